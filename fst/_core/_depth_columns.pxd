# A node's columns in the depth-limited engine: gathered orders, depth-one
# passes, a column's thresholds, positions, the neighbour and interval bounds'
# helpers, a stopped root's bound, a leaf-beside root's column order and a
# leaf-beside scan's column bounds, a split's partition (`_depth_columns.pyx`).
from ._typedefs cimport int32_t, int64_t, INF
from ._rowpass cimport DSpace, leaf_loss, class_sum
from ._bounds cimport creation_lower_bound, two_leaf_lower_bound
from ._config cimport RULE_EQUIVALENT
from ._depth cimport DEngine, DLevel


cdef inline double _lower(const DSpace* sp, const double* c, int64_t m, int d) noexcept nogil:
    """A bound on R(S, d) from S's counts alone: its leaf with no depth left, else
    the creation bound (`creation_lower_bound`, or `two_leaf_lower_bound` with
    RULE_EQUIVALENT off)."""
    cdef double leaf = leaf_loss(sp, c, m) + sp.lam
    if d == 0 or m <= 1:
        return leaf
    if sp.rules & RULE_EQUIVALENT:
        return creation_lower_bound(leaf, class_sum(sp, c, sp.mincost), sp.lam)
    return two_leaf_lower_bound(leaf, sp.lam)


cdef inline const double* _weights(const DSpace* sp, const DLevel* L, int u,
                                   int m) noexcept nogil:
    """The node's row weights in column u's order (`_gather`), NULL without
    weights (each row weighs 1: `weight_at`)."""
    return NULL if L.wk == NULL else L.wk + <int64_t> u * m


cdef inline void _cap_bounds(double* kb, int kc, const double* vs, double leaf_l,
                             double leaf_r) noexcept nogil:
    """Complete the children's bounds at every cap x < kc of a valued split
    (kb[x - 1] the left child's at cap x, kb[kc - 1 + x - 1] the right's; the
    caps a valuation searched hold their values or bounds, the others -INF):
    a child's value at kc - 1 leaves (vs) bounds it at every smaller cap, its
    leaf is its value at cap 1, and a value at a cap bounds it at every smaller
    one (fewer trees)."""
    cdef int side, x
    cdef double* b
    for side in range(2):
        b = kb + side * (kc - 1)
        for x in range(kc - 1):
            if vs[side] > b[x]:
                b[x] = vs[side]
        b[0] = leaf_l if side == 0 else leaf_r
        for x in range(kc - 3, -1, -1):
            if b[x + 1] > b[x]:
                b[x] = b[x + 1]



cdef double engine_root_bound(DEngine* e) noexcept nogil
cdef bint _gather(DEngine* e, DLevel* L, const int32_t* ord, int m) noexcept nogil
cdef void _depth_one(DEngine* e, DLevel* L, int m, int nsides, int32_t t,
                     const double* tot, const int64_t* ntot, double* best,
                     int32_t* arg, const double* above) noexcept nogil
cdef void _side_best(DEngine* e, DLevel* L, int m, int32_t t, int s, const double* tot,
                     const int64_t* ntot, double above, double* clb, double* best,
                     int32_t* arg) noexcept nogil
cdef void _child_hints(const DSpace* sp, const DLevel* L, const double* W,
                       const int32_t* tpos, int a, int c, int lo, int hi, int t,
                       double* hint) noexcept nogil
cdef bint _column_run(const DSpace* sp, DLevel* L, int u, int m, bint own_worst,
                      int* lo, int* hi) noexcept nogil
cdef int _shrink_up(const double* W, const int32_t* tpos, int32_t ta, double va, int lo,
                    int hi, double P, double* lbmin) noexcept nogil
cdef int _shrink_down(const double* W, const int32_t* tpos, int32_t tc, double vc, int lo,
                      int hi, double P, double* lbmin) noexcept nogil
cdef bint _positions(DEngine* e, DLevel* L, const int32_t* ord, int m, int u) noexcept nogil
cdef void _peel_order(DEngine* e, int d, int m, const double* cnt, double V) noexcept nogil
cdef bint _peel_leaves(DEngine* e, int d, int u, int m, const double* cnt, int* lo,
                       int* hi) noexcept nogil
cdef bint _partition(DEngine* e, DLevel* L, const int32_t* ord, int m, int u,
                     int t) noexcept nogil
cdef bint _complete(DEngine* e, int d, const int32_t* ord) noexcept nogil


cdef inline void _peel_scan_bounds(DEngine* e, DLevel* L, int s) noexcept nogil:
    """Start a scan of `_peel_column` at depth two that reads side s of its
    splits: no column bound yet for that side (each threshold's side holds the
    rows of the one valued before it in the scan, so its columns' bounds carry,
    `column_least_bound`; `_peel_pass` reads none under min_leaf, where they
    do not), the other side not valued (L.pcl)."""
    cdef int u
    for u in range(e.sp.p):
        L.pcl[2 * u + s] = -INF
        L.pcl[2 * u + 1 - s] = INF
