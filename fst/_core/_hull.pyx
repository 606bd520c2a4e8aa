"""The hull of a DPDT state.  With either complexity measure a subtree's
objective is additive over its nodes, so V(s, alpha) = min over subtrees T of
(loss(T) + alpha * c(T)) / n is the lower envelope of lines, concave and
piecewise linear in alpha, determined by the subtrees on the lower convex hull
of the points (c(T), loss(T)): `lower_hull` keeps them.

# Notes:
# - Ties keep generation order (a stable merge sort), so the hull does not
#   depend on the order of the rows.
"""
from libc.string cimport memcpy


cdef inline bint _before(const Point* a, const Point* b) noexcept nogil:
    """Hull order: complexity, then loss, then generation order (stable)."""
    if a.c != b.c:
        return a.c < b.c
    return a.l < b.l


cdef void sort_points(Point* a, int64_t n, Point* tmp) noexcept nogil:
    """Stable merge sort by (c, l): ties keep generation order."""
    cdef int64_t width, lo, mid, hi, i, j, k
    width = 1
    while width < n:
        lo = 0
        while lo < n:
            mid = lo + width
            if mid > n:
                mid = n
            hi = lo + 2 * width
            if hi > n:
                hi = n
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if _before(&a[j], &a[i]):
                    tmp[k] = a[j]
                    j += 1
                else:
                    tmp[k] = a[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = a[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = a[j]
                j += 1
                k += 1
            lo = hi
        memcpy(a, tmp, n * sizeof(Point))
        width *= 2


cdef int64_t lower_hull(Point* a, int64_t n) noexcept nogil:
    """Keep, in place, the points optimal for some alpha >= 0; returns their count.

    On input a[] is sorted by (c, l).  First the Pareto staircase (a point needs
    a loss strictly below every simpler point's: otherwise a simpler point is at
    least as good for every alpha >= 0), then the lower convex hull of it (a
    point on or above the segment of its neighbours is never the unique optimum;
    at the alpha where it ties, the simpler neighbour is preferred).  The result
    has c increasing and loss decreasing, slopes strictly increasing."""
    cdef int64_t i, k = 0
    cdef double cross
    for i in range(n):
        if k > 0 and a[i].l >= a[k - 1].l:
            continue  # dominated by a simpler (or equal, earlier) point
        while k >= 2:
            cross = ((a[k - 1].c - a[k - 2].c) * (a[i].l - a[k - 2].l)
                     - (a[k - 1].l - a[k - 2].l) * (a[i].c - a[k - 2].c))
            if cross <= 0:
                k -= 1     # a[k-1] is on or above segment a[k-2] -> a[i]
            else:
                break
        a[k] = a[i]
        k += 1
    return k
