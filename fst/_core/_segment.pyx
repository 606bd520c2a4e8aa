"""Single-column segmentation dynamic programme.

When every supported split of a node is on one column, every tree on the node
partitions its rows into intervals of that column, one per leaf, and any
partition into k intervals is realised by a tree of depth ceil(log2 k).  So the
best tree is the best segmentation of the sorted rows, each segment charged its
best label plus lambda, with at most 2**depth segments under a depth limit.

# Notes:
# - Rows with equal values form one block: a segment boundary can only fall
#   between blocks.  `prefix` holds cumulative class counts over the blocks.
# - Segment values use `leaf_loss`, the same function that values memo nodes, so
#   the realised tree's nodes carry bit-identical values.
"""
from libc.stdint cimport int32_t
from libc.stdlib cimport malloc, free

from ._bounds cimport leaf_loss


cdef inline double _seg_cost(const double* prefix, int a, int b, int K, const double* cost,
                             const int32_t* cols, int ncols, double lam,
                             double* tmp) noexcept nogil:
    cdef int c
    for c in range(K):
        tmp[c] = prefix[b * K + c] - prefix[a * K + c]
    return leaf_loss(tmp, K, cost, cols, ncols, NULL) + lam


cdef int segment_blocks(const double* prefix,   # IN (m + 1) x K cumulative class counts
                        int m,                  # IN number of blocks
                        int K,                  # IN number of classes
                        const double* cost,     # IN K x K cost per row / n
                        const int32_t* cols,    # IN the labels a leaf tries
                        int ncols,              # IN (`_search.distinct_columns`)
                        double lam,             # IN price of a leaf
                        int max_segments,       # IN at most this many segments (<= 0: m)
                        int* ends,              # OUT exclusive end block of each segment
                        double* value,          # OUT total value of the segmentation
                        ) noexcept nogil:
    """Return the number of segments of an optimal segmentation, or -1 if out of memory."""
    cdef int S = max_segments if 0 < max_segments < m else m
    cdef int layers = 1 if S >= m else S
    cdef double* g = <double*> malloc((layers + 1) * (m + 1) * sizeof(double))
    cdef int* arg = <int*> malloc((layers + 1) * (m + 1) * sizeof(int))
    cdef double* tmp = <double*> malloc(K * sizeof(double))
    cdef int s, a, b, n_seg, cur
    cdef double v, best
    if g == NULL or arg == NULL or tmp == NULL:
        free(g); free(arg); free(tmp)
        return -1
    if S >= m:
        # Unconstrained: g[b] = min_a g[a] + cost(a, b), layer 1 only.
        g[0] = 0.0
        for b in range(1, m + 1):
            best = 0.0
            cur = -1
            for a in range(b):
                v = g[a] + _seg_cost(prefix, a, b, K, cost, cols, ncols, lam, tmp)
                if cur < 0 or v < best:
                    best = v
                    cur = a
            g[b] = best
            arg[b] = cur
        value[0] = g[m]
        # Walk back from m: ends in reverse order.
        n_seg = 0
        b = m
        while b > 0:
            ends[n_seg] = b
            n_seg += 1
            b = arg[b]
    else:
        # g[s][b]: best over segmentations of blocks [0, b) into at most s segments.
        for b in range(m + 1):
            g[b] = 0.0 if b == 0 else 1e300  # layer 0: only the empty prefix
            arg[b] = -1
        for s in range(1, layers + 1):
            g[s * (m + 1)] = 0.0
            arg[s * (m + 1)] = -1
            for b in range(1, m + 1):
                best = g[(s - 1) * (m + 1) + b]
                cur = -2  # -2: same as with one segment fewer
                for a in range(b):
                    if g[(s - 1) * (m + 1) + a] >= 1e299:
                        continue
                    v = g[(s - 1) * (m + 1) + a] + _seg_cost(prefix, a, b, K, cost, cols, ncols, lam, tmp)
                    if v < best:
                        best = v
                        cur = a
                g[s * (m + 1) + b] = best
                arg[s * (m + 1) + b] = cur
        value[0] = g[layers * (m + 1) + m]
        n_seg = 0
        b = m
        s = layers
        while b > 0:
            cur = arg[s * (m + 1) + b]
            if cur == -2:
                s -= 1
                continue
            ends[n_seg] = b
            n_seg += 1
            b = cur
            s -= 1
    # Reverse to increasing order.
    for a in range(n_seg // 2):
        cur = ends[a]
        ends[a] = ends[n_seg - 1 - a]
        ends[n_seg - 1 - a] = cur
    free(g); free(arg); free(tmp)
    return n_seg
