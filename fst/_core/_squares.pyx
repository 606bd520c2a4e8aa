"""The depth-limited engine's squared-error parts that need no column orders:
the k-segmentation floor of a set of rows' sorted targets (`segment_bound`, the
programme behind `_bounds.segmentation_lower_bound`), and the nodes solved from
their column sums on binary columns (`by_sums`, `solve_sums`: every tree of
depth two, three or four from the sums over the rows left of each pair,
triple and quadruple of splits).  docs/how_it_works.md, "Squared error",
gives the argument; the engine calls them from `_depth._solve` and
`_depth._search_column`.

# Notes:
# - The limits are polled through the engine's `poll` (`_depth.engine_poll`),
#   so this module needs nothing of `_depth` at run time.
"""
from libc.stdlib cimport qsort
from libc.string cimport memcpy, memset

from ._typedefs cimport int32_t, int64_t, TOL, INF
from ._rowpass cimport DSpace, squares_loss
from ._bounds cimport segmentation_lower_bound
from ._depth cimport DEngine, DLevel, _heap_size, _takes, _took, _place, POLL_ROWS


# ------------------------------------------------------------ k-segmentation

cdef int _by_target(const void* a, const void* b) noexcept nogil:
    """qsort's order of (target, weight) pairs: by target."""
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    return (x > y) - (x < y)


cdef inline double _run_loss(const double* P, int a, int b) noexcept nogil:
    """The squared error of the sorted targets a .. b - 1 about their weighted mean,
    from the prefix sums P (weight, weighted target, weighted square; 3 a row)."""
    return squares_loss(P[3 * b] - P[3 * a], P[3 * b + 1] - P[3 * a + 1],
                        P[3 * b + 2] - P[3 * a + 2])


cdef void _segment_layer(const double* P, const double* prev, double* cur, int lo, int hi,
                         int olo, int ohi) noexcept nogil:
    """cur[i] = min over j in [olo, min(ohi, i - 1)] of prev[j] + the loss of the
    run j .. i - 1, for i in [lo, hi]: the least loss of the first i sorted targets
    in one group more than prev counts.  The least j is nondecreasing in i (the
    run losses satisfy the quadrangle inequality), so the middle i's least j
    bounds the search of the two halves (divide and conquer)."""
    cdef int mid, j, top, arg
    cdef double v, best
    if lo > hi:
        return
    mid = (lo + hi) // 2
    top = ohi if ohi < mid - 1 else mid - 1
    best = INF
    arg = olo
    for j in range(olo, top + 1):
        v = prev[j] + _run_loss(P, j, mid)
        if v < best:
            best = v
            arg = j
    cur[mid] = best
    _segment_layer(P, prev, cur, lo, mid - 1, olo, arg)
    _segment_layer(P, prev, cur, mid + 1, hi, arg, ohi)


cdef double segment_bound(const DSpace* sp, double* buf, const int32_t* rows, int m,
                          int kmax) noexcept nogil:
    """`segmentation_lower_bound` of the set of m rows `rows` (any order) whose
    trees have at most kmax leaves: its targets sorted with their weights, the
    k-segmentation floors seg_k for k <= min(kmax, m) by the layered programme
    (`_segment_layer`; a tree has at most m nonempty leaves), about the set's
    weighted mean (no cancellation against a distant mean).  The layers stop
    once k lam alone reaches the least value found: every larger k is worth
    more.  buf: 8 m + 8 doubles of scratch."""
    cdef double* zw = buf                       # 2 m: (target, weight) pairs
    cdef double* P = buf + 2 * <int64_t> m      # 3 (m + 1): prefix sums
    cdef double* prev = P + 3 * (<int64_t> m + 1)
    cdef double* cur = prev + (m + 1)
    cdef double* seg = cur + (m + 1)
    cdef double* tmp
    cdef double w, z, sw = 0.0, swz = 0.0, mean, low
    cdef int i, k, kk
    cdef int32_t r
    for i in range(m):
        r = rows[i]
        w = 1.0 if sp.w == NULL else sp.w[r]
        zw[2 * i] = sp.target[r]
        zw[2 * i + 1] = w
        sw += w
        swz += w * sp.target[r]
    qsort(zw, m, 2 * sizeof(double), _by_target)
    mean = swz / sw if sw > 0.0 else 0.0
    P[0] = 0.0; P[1] = 0.0; P[2] = 0.0
    for i in range(m):
        w = zw[2 * i + 1]
        z = zw[2 * i] - mean
        P[3 * i + 3] = P[3 * i] + w
        P[3 * i + 4] = P[3 * i + 1] + w * z
        P[3 * i + 5] = P[3 * i + 2] + w * z * z
    kk = kmax if kmax < m else m
    for i in range(m + 1):
        prev[i] = _run_loss(P, 0, i)
    seg[0] = prev[m]
    low = seg[0] + sp.lam
    k = 2
    while k <= kk and k * sp.lam < low:
        _segment_layer(P, prev, cur, k, m, k - 1, m - 1)
        seg[k - 1] = cur[m]
        if cur[m] + k * sp.lam < low:
            low = cur[m] + k * sp.lam
        tmp = prev
        prev = cur
        cur = tmp
        k += 1
    return segmentation_lower_bound(seg, k - 1, sp.lam)


# ---------------------------------------------------------- the sums' solvers

cdef inline int64_t _triple_at(int a, int b, int c) noexcept nogil:
    """The slot of the column triple a < b < c in a dense table of all of them
    (the combinatorial number system: C(c, 3) + C(b, 2) + a)."""
    return (<int64_t> c * (c - 1) * (c - 2)) // 6 + (<int64_t> b * (b - 1)) // 2 + a


cdef inline int64_t _quad_at(int a, int b, int c, int f) noexcept nogil:
    """The slot of the column quadruple a < b < c < f in a dense table of all of
    them (C(f, 4) + `_triple_at(a, b, c)`)."""
    return (<int64_t> f * (f - 1) * (f - 2) * (f - 3)) // 24 + _triple_at(a, b, c)


cdef inline void _add4(double* q, const double* v) noexcept nogil:
    """Add a row's four sums v (weight, weighted target and square, one) to a
    slot q of a sums' table; v is the caller's own array, so the four adds
    can be one vector's."""
    q[0] += v[0]
    q[1] += v[1]
    q[2] += v[2]
    q[3] += v[3]


cdef bint _sum_rows(DEngine* e, DLevel* L, const int32_t* ord, int m, double* tot,
                    double* T, double* Q) noexcept nogil:
    """One pass over the node's rows (`solve_sums`): tot the sums (weight, weighted target and square, rows) of
    all of them, L.pair of those left of both splits of each column pair a <= b
    (a = b: of one split), with T (not NULL) T of those left of all three
    splits of each column triple a < b < c (`_triple_at`), and with Q (not
    NULL, T too) Q of those left of all four of each quadruple (`_quad_at`).
    A row adds to the pairs (triples, quadruples) of the columns that send it
    left.  Polls the limits every POLL_ROWS rows: False when they stopped the
    search."""
    cdef DSpace* sp = &e.sp
    cdef int p = sp.p, n = sp.n
    cdef double* P = L.pair
    cdef int32_t* A = L.plist
    cdef int i, a, b, c, f, g, na
    cdef int32_t r
    cdef double w, z
    cdef double v[4]
    cdef double* q
    memset(P, 0, 4 * <int64_t> p * p * sizeof(double))
    if T != NULL:
        memset(T, 0, 4 * (<int64_t> p * (p - 1) * (p - 2) // 6) * sizeof(double))
    if Q != NULL:
        memset(Q, 0, 4 * (<int64_t> p * (p - 1) * (p - 2) * (p - 3) // 24) * sizeof(double))
    tot[0] = 0.0; tot[1] = 0.0; tot[2] = 0.0; tot[3] = m
    for i in range(m):
        if (i & (POLL_ROWS - 1)) == POLL_ROWS - 1 and e.poll(e):
            return False
        r = ord[i]
        w = 1.0 if sp.w == NULL else sp.w[r]
        z = sp.target[r]
        v[0] = w
        v[1] = w * z
        v[2] = v[1] * z
        v[3] = 1.0
        tot[0] += v[0]
        tot[1] += v[1]
        tot[2] += v[2]
        na = 0
        for g in range(p):
            if sp.col_start[g + 1] > sp.col_start[g] and sp.rank[<int64_t> g * n + r] <= 0:
                A[na] = g
                na += 1
        for a in range(na):
            for b in range(a, na):
                _add4(P + 4 * (<int64_t> A[a] * p + A[b]), v)
        if T != NULL:
            for c in range(2, na):
                for b in range(1, c):
                    q = T + 4 * (_triple_at(0, A[b], A[c]))
                    for a in range(b):
                        _add4(q + 4 * A[a], v)
        if Q != NULL:
            for f in range(3, na):
                for c in range(2, f):
                    for b in range(1, c):
                        q = Q + 4 * (_quad_at(0, A[b], A[c], A[f]))
                        for a in range(b):
                            _add4(q + 4 * A[a], v)
    return True


cdef inline double _leaf_first(const DSpace* sp, DLevel* L, const double* tot,
                               int d) noexcept nogil:
    """The node's leaf (sums tot) as its best tree of depth d, where the sums'
    solvers (`_pairs_best`, `_triples_best`, `_quads_best`) start; returns its
    value."""
    memset(L.best, -1, _heap_size(d) * sizeof(int32_t))
    L.best_leaves = 1
    L.seeded = False
    return squares_loss(tot[0], tot[1], tot[2]) + sp.lam


cdef inline bint _sums_split(const DSpace* sp, const double* P, int u, double m,
                             int mlo) noexcept nogil:
    """Whether column u (pairs' sums P of a node of m rows) has a split with at
    least mlo rows on each side."""
    cdef const double* q = P + 4 * (<int64_t> u * sp.p + u)
    return sp.col_start[u + 1] > sp.col_start[u] and q[3] >= mlo and m - q[3] >= mlo


cdef inline void _side_sums(const DSpace* sp, const double* P, const double* tot,
                            int b, int s, double* side) noexcept nogil:
    """The sums of one side of root split b: the rows left of b (s = 0), or the
    others."""
    cdef const double* q = P + 4 * (<int64_t> b * sp.p + b)
    cdef int k
    for k in range(4):
        side[k] = q[k] if s == 0 else tot[k] - q[k]


cdef void _child_pairs(const DSpace* sp, const double* P, const double* T, int b,
                       int s, double* CP) noexcept nogil:
    """The pairs' sums CP of one child of root split b, from the node's pairs P
    and triples T: the left child's pair (u, g) is the node's sums over the rows
    left of b, u and g (a triple, a pair or one column as the three are distinct
    or not); the right child's is the node's pair (u, g) less it."""
    cdef int p = sp.p
    cdef int u, g, k, lo, mi, hi
    cdef const double* t
    cdef const double* q
    cdef double* o
    for u in range(p):
        for g in range(u, p):
            o = CP + 4 * (<int64_t> u * p + g)
            if u == g:
                lo = b if b < u else u
                hi = u if b < u else b
                t = P + 4 * (<int64_t> lo * p + hi)
            elif b == u or b == g:
                t = P + 4 * (<int64_t> u * p + g)
            else:
                lo = b if b < u else u
                hi = g if g > b else b
                mi = b + u + g - lo - hi
                t = T + 4 * _triple_at(lo, mi, hi)
            if s == 0:
                for k in range(4):
                    o[k] = t[k]
            else:
                q = P + 4 * (<int64_t> u * p + g)
                for k in range(4):
                    o[k] = q[k] - t[k]


cdef void _child_triples(const DSpace* sp, const double* T, const double* Q, int a,
                         int s, double* CT) noexcept nogil:
    """The triples' sums CT of one child of root split a, from the node's triples
    T and quadruples Q: the left child's triple (u, g, h) is the node's sums
    over the rows left of a, u, g and h (a quadruple, or the triple itself when
    a is one of them); the right child's is the node's triple less it."""
    cdef int p = sp.p
    cdef int u, g, h, k
    cdef int64_t at
    cdef const double* t
    cdef const double* q
    cdef double* o
    for h in range(2, p):
        for g in range(1, h):
            for u in range(g):
                at = _triple_at(u, g, h)
                o = CT + 4 * at
                q = T + 4 * at
                if a == u or a == g or a == h:
                    t = q
                elif a < u:
                    t = Q + 4 * _quad_at(a, u, g, h)
                elif a < g:
                    t = Q + 4 * _quad_at(u, a, g, h)
                elif a < h:
                    t = Q + 4 * _quad_at(u, g, a, h)
                else:
                    t = Q + 4 * _quad_at(u, g, h, a)
                if s == 0:
                    for k in range(4):
                        o[k] = t[k]
                else:
                    for k in range(4):
                        o[k] = q[k] - t[k]


cdef double _pairs_best(DEngine* e, DLevel* L, int m, const double* tot,
                        bint* stopped) noexcept nogil:
    """R(S, 2) of a node S of m rows from its sums (`_sum_rows`: tot, and L.pair
    of each column pair), its tree in L.best: for the root split u and a child
    split g, the left child's left leaf is pair(u, g), the right child's
    single(g) - pair(u, g).  Each side takes the first best of its leaf and its
    splits in column order (a split better by more than TOL, as `_depth_one`),
    and the node's best tree follows `_takes`: the canonical tree the column
    passes give, from the same sums in another order.  The limits are polled at
    every root split (as `_search_column` polls at every valuation): a stop sets
    stopped[0] and returns the best tree found so far."""
    cdef DSpace* sp = &e.sp
    cdef int p = sp.p
    cdef double* P = L.pair
    cdef int u, g, s, k, leaves
    cdef int arg[2]
    cdef int mlo = sp.min_leaf if sp.min_leaf > 1 else 1
    cdef double v, best
    cdef double side_best[2]
    cdef double side[4]
    cdef double x[4]
    cdef double y[4]
    best = _leaf_first(sp, L, tot, 2)
    for u in range(p):
        if not _sums_split(sp, P, u, m, mlo):
            continue
        if e.poll(e):
            stopped[0] = True
            return best
        e.evals += 1
        for s in range(2):
            _side_sums(sp, P, tot, u, s, side)
            side_best[s] = squares_loss(side[0], side[1], side[2]) + sp.lam
            arg[s] = -1
            for g in range(p):
                if g == u or sp.col_start[g + 1] == sp.col_start[g]:
                    continue
                for k in range(4):
                    # the side's rows left of g: pair(u, g), or single(g) less it
                    x[k] = P[4 * (<int64_t> (u if u < g else g) * p + (g if u < g else u)) + k]
                    if s == 1:
                        x[k] = P[4 * (<int64_t> g * p + g) + k] - x[k]
                    y[k] = side[k] - x[k]
                if x[3] < mlo or y[3] < mlo:
                    continue
                v = (squares_loss(x[0], x[1], x[2]) + squares_loss(y[0], y[1], y[2])
                     + 2.0 * sp.lam)
                if v < side_best[s] - TOL:
                    side_best[s] = v
                    arg[s] = sp.col_start[g]
        v = side_best[0] + side_best[1]
        leaves = (2 if arg[0] >= 0 else 1) + (2 if arg[1] >= 0 else 1)
        if _takes(sp, L, v, leaves, best, sp.col_start[u]):
            best = v
            _took(L, leaves)
            memset(L.best, -1, _heap_size(2) * sizeof(int32_t))
            L.best[0] = sp.col_start[u]
            L.best[1] = arg[0]
            L.best[2] = arg[1]
    return best


cdef double _triples_best(DEngine* e, DLevel* L, int m, const double* tot,
                          bint* stopped) noexcept nogil:
    """R(S, 3) of a node S of m rows from its sums (tot, L.pair, L.triple), its
    tree in L.best: each root split b's two children are solved at depth two
    from the pairs' sums they inherit (`_child_pairs`, `_pairs_best` on level
    two), and the node's best follows `_takes` over its root splits in column
    order, each side's tree the canonical one: the tree the partitions and
    column passes give.  The limits are polled at every root split; a stop sets
    stopped[0] and returns the best tree found so far."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* C = &e.lv[2]
    cdef int b, s, leaves, cand_leaves
    cdef int mlo = sp.min_leaf if sp.min_leaf > 1 else 1
    cdef double side[4]
    cdef double v, v0, best
    best = _leaf_first(sp, L, tot, 3)
    for b in range(sp.p):
        if not _sums_split(sp, L.pair, b, m, mlo):
            continue
        if e.poll(e):
            stopped[0] = True
            return best
        e.evals += 1
        v0 = 0.0
        cand_leaves = 0
        for s in range(2):
            _child_pairs(sp, L.pair, L.triple, b, s, C.pair)
            _side_sums(sp, L.pair, tot, b, s, side)
            v = _pairs_best(e, C, <int> side[3], side, stopped)
            if stopped[0]:
                return best
            if s == 0:
                v0 = v
                cand_leaves = C.best_leaves
                memcpy(L.cand, C.best, _heap_size(2) * sizeof(int32_t))
        v += v0
        leaves = cand_leaves + C.best_leaves
        if _takes(sp, L, v, leaves, best, sp.col_start[b]):
            best = v
            _took(L, leaves)
            memset(L.best, -1, _heap_size(3) * sizeof(int32_t))
            L.best[0] = sp.col_start[b]
            _place(L.best, 3, 1, L.cand)
            _place(L.best, 3, 2, C.best)
    return best


cdef double _quads_best(DEngine* e, DLevel* L, int m, const double* tot,
                        bint* stopped) noexcept nogil:
    """R(S, 4) of a node S of m rows from its sums (tot, L.pair, L.triple,
    L.quad), its tree in L.best: each root split a's two children are solved
    at depth three from the pairs' and triples' sums they inherit
    (`_child_pairs`, `_child_triples`, `_triples_best` on level three), taken
    as `_triples_best` takes its own.  Polls and stops as it does."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* C = &e.lv[3]
    cdef int a, s, leaves, cand_leaves
    cdef int mlo = sp.min_leaf if sp.min_leaf > 1 else 1
    cdef double side[4]
    cdef double v, v0, best
    best = _leaf_first(sp, L, tot, 4)
    for a in range(sp.p):
        if not _sums_split(sp, L.pair, a, m, mlo):
            continue
        if e.poll(e):
            stopped[0] = True
            return best
        e.evals += 1
        v0 = 0.0
        cand_leaves = 0
        for s in range(2):
            _child_pairs(sp, L.pair, L.triple, a, s, C.pair)
            _child_triples(sp, L.triple, L.quad, a, s, C.triple)
            _side_sums(sp, L.pair, tot, a, s, side)
            v = _triples_best(e, C, <int> side[3], side, stopped)
            if stopped[0]:
                return best
            if s == 0:
                v0 = v
                cand_leaves = C.best_leaves
                memcpy(L.cand, C.best, _heap_size(3) * sizeof(int32_t))
        v += v0
        leaves = cand_leaves + C.best_leaves
        if _takes(sp, L, v, leaves, best, sp.col_start[a]):
            best = v
            _took(L, leaves)
            memset(L.best, -1, _heap_size(4) * sizeof(int32_t))
            L.best[0] = sp.col_start[a]
            _place(L.best, 4, 1, L.cand)
            _place(L.best, 4, 2, C.best)
    return best


cdef double solve_sums(DEngine* e, DLevel* L, int d, const int32_t* ord, int m,
                        double B, bint* exact) noexcept nogil:
    """R(S, d) of a node solved from its sums (`by_sums`: squared error on binary
    columns, d = 2, 3 or 4, no leaf cap under 2^d leaves): one pass over its
    rows sums them over each column pair, and at depth three or four each
    triple, at depth four each quadruple (`_sum_rows`); every tree of depth d
    follows from those sums by subtraction (`_pairs_best`, `_triples_best`,
    `_quads_best`), the canonical one.  Exact; above B + TOL it is returned as
    the bound.  A stop in the pass returns INF, and the tree found so far
    otherwise; either way the node is not exact."""
    cdef double tot[4]
    cdef double best
    cdef bint stopped = False
    e.nodes += 1
    if not _sum_rows(e, L, ord, m, tot, L.triple if d >= 3 else NULL,
                     L.quad if d >= 4 else NULL):
        exact[0] = False
        return INF
    if d == 2:
        best = _pairs_best(e, L, m, tot, &stopped)
    elif d == 3:
        best = _triples_best(e, L, m, tot, &stopped)
    else:
        best = _quads_best(e, L, m, tot, &stopped)
    exact[0] = not stopped and best <= B + TOL
    return best


cdef bint by_sums(const DEngine* e, int d, int kc) noexcept nogil:
    """Whether a node of depth d (the root among them) and leaf cap kc is solved
    from its column pairs' (d = 2), triples' (d = 3) or quadruples' (d = 4)
    sums (`solve_sums`): squared error on binary columns (`DEngine.pairs`,
    `DEngine.triples`, `DEngine.quads`) and no cap under the 2^d leaves a tree
    of depth d can have.  Such a node takes one pass over its rows; the root
    too, on one thread (`DepthSearch.run`)."""
    return ((d == 2 and e.pairs and kc >= 4) or (d == 3 and e.triples and kc >= 8)
            or (d == 4 and e.quads and kc >= 16))
