"""A node's columns in the depth-limited engine (`_depth`): its rows' ranks,
classes and weights gathered in each column's order, the depth-one passes over
them, a column's thresholds and the run of them a split may use, the rows'
positions in one column's order, the neighbour bound's shrinking of an interval
of thresholds and the children's bounds it gives, the bound of a stopped root
from its columns, the order a root searched as a leaf beside a subtree takes
its columns in (`_peel_order`), and a split's rows partitioned into its two
children, each still sorted per column (`_partition`, `_complete`).  None of it
searches below the node, so none of it calls back into `_depth`; it polls the
limits through `DEngine.poll`."""
from cython.parallel cimport prange
from libc.stdlib cimport qsort

from ._typedefs cimport int32_t, int64_t, TOL, INF
from ._limits cimport fst_now
from ._context cimport fst_load_double
from ._config cimport RULE_EQUIVALENT, RULE_EXCHANGE, RULE_TRANSFER
from ._rowpass cimport (DSpace, leaf_loss, class_sum, weight_at, column_pass, add_rows,
                       row_worst)
from ._bounds cimport (creation_lower_bound, leaf_support, split_creation_bound,
                       closed_column_bound, stopped_root_bound, neighbour_bound,
                       superset_child_bound, subset_child_bound, squares_row_worst,
                       leaf_beside_split_bound, column_least_bound)
from ._depth cimport DEngine, DLevel, ColKey, POLL_ROWS
from ._simd cimport fst_side_rows, fst_sides_rows

# A depth-one pass over at least this many (row, column) cells runs its columns on
# the fit's threads; smaller ones are not worth waking them.
cdef int64_t PARALLEL_MIN_CELLS = 200_000


cdef void _root_static(DEngine* e) noexcept nogil:
    """Fill e.col_static: for each column, the least `split_creation_bound` of
    the root's splits on it (INF: none), the root's rows in that column's order
    (level max_depth holds them while the root is searched and after), its
    children's bounds taken at the fit's depth (`final_depth`).  One pass a
    column; run once, when a stop or a progress line first needs it."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[e.max_depth]
    cdef int m = sp.n, K = sp.K, u, i, k
    cdef int d = e.final_depth - 1
    cdef const int32_t* rk
    cdef const int32_t* yk
    cdef const double* wk
    cdef double cl[64]          # K <= 64 (`DepthSearch`); a progress line may come
    cdef double cr[64]          # while the levels' own counts are in use
    cdef double v, low
    if e.static_done:
        return
    for u in range(sp.p):
        rk = L.rk + <int64_t> u * m
        yk = L.yk + <int64_t> u * m
        wk = _weights(&e.sp, L, u, m)
        for k in range(K):
            cl[k] = 0
        low = INF
        for i in range(1, m):
            add_rows(sp, cl, yk, wk, i - 1, i)
            if rk[i] == rk[i - 1]:
                continue
            for k in range(K):
                cr[k] = e.root_cnt[k] - cl[k]
            v = split_creation_bound(_lower(sp, cl, i, d), _lower(sp, cr, m - i, d))
            if v < low:
                low = v
        e.col_static[u] = low
    e.static_done = True


cdef double engine_root_bound(DEngine* e) noexcept nogil:
    """A lower bound on R(X, final_depth) of the root from its columns alone: at
    the fit's depth, the least over the columns of their `closed_column_bound`
    (closed) or creation bound (open), to be taken with the incumbent
    (`stopped_root_bound`); at a shallower depth (deepening), whose closed columns
    prove nothing for the fit's, the root's leaf and the creation bounds.  Past
    the time limit, before the columns' bounds were ever needed, the root's own
    creation bound (one pass a column would overrun the limit), as for a root
    solved from its sums (`by_sums`), which gathers no column orders."""
    cdef int u
    cdef double lb, c, v
    if e.sums_root or (not e.static_done and e.lim.deadline >= 0
                       and fst_now() > e.lim.deadline):
        # the columns' pass (`_root_static`) would run past the time limit:
        # the root's own creation bound holds for every split (R_s(X, D) >=
        # R(X, D) >= it), and for the leaf
        return _lower(&e.sp, e.root_cnt, e.sp.n, e.final_depth)
    _root_static(e)
    lb = INF
    for u in range(e.sp.p):
        v = e.col_static[u]
        if e.max_depth == e.final_depth:
            c = fst_load_double(&e.col_lb[u])
            if c > -INF:
                v = closed_column_bound(v, c)
        if v < lb:
            lb = v
    if e.max_depth != e.final_depth:
        lb = stopped_root_bound(e.root_leaf, lb)
    return lb


cdef bint _gather(DEngine* e, DLevel* L, const int32_t* ord, int m) noexcept nogil:
    """The node's ranks, classes and weights in each column's order (rk, yk, wk);
    under squared error its least and greatest target (zlo, zhi).  A large
    node polls the limits every column: False when they stopped the search
    (the arrays are then incomplete)."""
    cdef int u, i
    cdef int n = e.sp.n
    cdef const int32_t* rank
    cdef const int32_t* o
    cdef int32_t* rk
    cdef int32_t* yk
    cdef double* wk
    for u in range(e.sp.p):
        if m >= POLL_ROWS and e.poll(e):
            return False
        rank = e.sp.rank + <int64_t> u * n
        o = ord + <int64_t> u * m
        rk = L.rk + <int64_t> u * m
        yk = L.yk + <int64_t> u * m
        for i in range(m):
            rk[i] = rank[o[i]]
            yk[i] = e.sp.y[o[i]]
        if L.wk != NULL:
            wk = L.wk + <int64_t> u * m
            for i in range(m):
                wk[i] = e.sp.w[o[i]]
    if e.sp.target != NULL and m > 0:
        L.zlo = e.sp.target[ord[0]]
        L.zhi = L.zlo
        for i in range(1, m):
            if e.sp.target[ord[i]] < L.zlo:
                L.zlo = e.sp.target[ord[i]]
            elif e.sp.target[ord[i]] > L.zhi:
                L.zhi = e.sp.target[ord[i]]
    return True


cdef void _depth_one(DEngine* e, DLevel* L, int m, int nsides, int32_t t,
                     const double* tot, const int64_t* ntot, double* best,
                     int32_t* arg, const double* above) noexcept nogil:
    """R(S, 1) of each side S of the node (one side: the node itself; two: the
    rows before position t of the root split's column, side 0, and the others,
    side 1, as `L.upos` places them): best[s] the least of S's leaf and of every
    split's two leaves, arg[s] that split (-1: the leaf).

    One pass per column over the node's rows in that column's order
    (`_rowpass.column_pass`), counting each side's class sums up to a threshold
    (its left leaf; the side's sums less them, its right leaf).  Every partition
    of a side by one split is a prefix of this order at a change of rank (split k
    sends ranks <= k left), so the least over them is R(S, 1).  With
    RULE_EXCHANGE a side's threshold is skipped while the rows that crossed since
    its last valuation could not lower its value below the best
    (`rows_moved_bound`), and with RULE_EQUIVALENT a side's pass
    ends once its best reaches its floor (no split can do better).  A skipped
    threshold is never better than the best by more than TOL, so the result is
    the first best split in column order with or without the skips; threads
    (columns side by side, each from the leaf) reduce in column order to it.
    At depth two without min_leaf, serial, the two sides' rows of each column
    (and their weights) are gathered first and each side passed alone
    (`_sides_rows`): the same values, as no side's valuations read the
    other's, without a branch on each row's side.
    With `above` (or NULL) a side's pass starts from the least of its leaf and
    above[s], as if a split of that value were held: where S's best is below
    above[s] - TOL it is found as without it, else best[s] stays above[s] with
    arg[s] -1 and no tree of S is worth less than above[s] - TOL (a split
    passed over is not below the best held less TOL; the leaf is above it).
    A large node's serial pass polls the limits every column: after a stop the
    search discards what it valued since (`_search_column`) and is not solved."""
    cdef DSpace* sp = &e.sp
    cdef int K = sp.K
    cdef int u, s, k
    cdef double lowest[2]
    cdef const double* wu
    cdef bint par = e.n_threads > 1 and <int64_t> m * sp.p >= PARALLEL_MIN_CELLS
    for s in range(2):
        arg[s] = -1
        best[s] = INF
        lowest[s] = -INF
    for s in range(nsides):
        best[s] = leaf_loss(sp, tot + s * K, ntot[s]) + sp.lam
        if sp.rules & RULE_EQUIVALENT:
            lowest[s] = creation_lower_bound(best[s], class_sum(sp, tot + s * K, sp.mincost),
                                             sp.lam)
        if above != NULL and above[s] < best[s]:
            best[s] = above[s]
    if not par and nsides == 2 and L.crk != NULL and sp.min_leaf <= 1:
        # each side's rows gathered first, then passed alone, the same values
        # as one pass of both (each side's valuations in the same order, none
        # depending on the other side's)
        for u in range(sp.p):
            if m >= POLL_ROWS and e.poll(e):
                return
            e.sweeps += 1
            wu = _weights(sp, L, u, m)
            _sides_rows(e, L, u, m, t, wu)
            for s in range(2):
                column_pass(sp, L.crk + s * m, L.cyk + s * m,
                            L.cwk + s * m if wu != NULL else NULL, NULL, 0, <int> ntot[s],
                            1, tot + s * K, ntot + s, lowest + s, sp.col_start[u], L.ccnt,
                            L.cwc, best + s, arg + s, NULL)
        return
    if not par:
        for u in range(sp.p):
            if m >= POLL_ROWS and e.poll(e):
                # stopped: best and arg are those of the columns passed, real
                # trees, which every caller discards or keeps only as such
                return
            e.sweeps += 1
            column_pass(sp, L.rk + <int64_t> u * m, L.yk + <int64_t> u * m,
                        _weights(&e.sp, L, u, m),
                        L.upos + <int64_t> u * m if nsides == 2 else NULL, t, m,
                        nsides, tot, ntot, lowest, sp.col_start[u], L.ccnt, L.cwc,
                        best, arg, NULL)
        return
    L.cshared[0] = best[0]
    L.cshared[1] = best[1]
    for u in range(sp.p):
        L.cbest[8 * u] = best[0]
        L.cbest[8 * u + 1] = best[1]
        L.carg[16 * u] = -1
        L.carg[16 * u + 1] = -1
    for u in prange(sp.p, schedule="dynamic", num_threads=e.n_threads):
        column_pass(sp, L.rk + <int64_t> u * m, L.yk + <int64_t> u * m,
                    _weights(&e.sp, L, u, m),
                    L.upos + <int64_t> u * m if nsides == 2 else NULL, t, m, nsides,
                    tot, ntot, lowest, sp.col_start[u], L.ccnt + <int64_t> u * (3 * K + 8),
                    L.cwc + <int64_t> u * (5 * K + 8), L.cbest + 8 * u, L.carg + 16 * u,
                    L.cshared)
    e.sweeps += sp.p
    for u in range(sp.p):
        for s in range(nsides):
            if L.carg[16 * u + s] >= 0 and L.cbest[8 * u + s] < best[s] - TOL:
                best[s] = L.cbest[8 * u + s]
                arg[s] = L.carg[16 * u + s]


cdef void _side_best(DEngine* e, DLevel* L, int m, int32_t t, int s, const double* tot,
                     const int64_t* ntot, double above, double* clb, double* best,
                     int32_t* arg) noexcept nogil:
    """R(S, 1) of side s alone of the node of depth two, as `_depth_one` finds
    it from the least of S's leaf and `above` (the first best split in column
    order), each column's pass over S's rows gathered first (`_side_rows`: the
    pass does not branch on each row's side).  clb[2 u + s] bounds column u's
    least value on S (its leaf and its splits on u): a column whose bound
    cannot beat the best by more than TOL is not passed, and clb then takes
    what the pass proves of the column (`column_least_bound`), a bound for a
    superset of S next.  Serial: a stop leaves the columns passed."""
    cdef DSpace* sp = &e.sp
    cdef const double* ts = tot + s * sp.K
    cdef double lowest = -INF
    cdef int u, k
    best[0] = leaf_loss(sp, ts, ntot[s]) + sp.lam
    arg[0] = -1
    if sp.rules & RULE_EQUIVALENT:
        lowest = creation_lower_bound(best[0], class_sum(sp, ts, sp.mincost), sp.lam)
    if above < best[0]:
        best[0] = above
    for u in range(sp.p):
        if m >= POLL_ROWS and e.poll(e):
            return
        if clb[2 * u + s] >= best[0] - TOL:
            # the column cannot lower the side's best by more than TOL
            continue
        e.sweeps += 1
        k = _side_rows(e, L, u, m, t, s, _weights(sp, L, u, m))
        column_pass(sp, L.crk, L.cyk, L.cwk if L.wk != NULL else NULL, NULL, 0, k, 1, ts,
                    ntot + s, &lowest, sp.col_start[u], L.ccnt, L.cwc, best, arg, NULL)
        clb[2 * u + s] = column_least_bound(clb[2 * u + s], best[0])


cdef inline void _sides_rows(DEngine* e, DLevel* L, int u, int m, int32_t t,
                             const double* wk) noexcept nogil:
    """Both sides' rows of column u's order (side 0: position below t in
    L.upos), their ranks, classes and weights (wk, or NULL for none), side 0's
    into L.crk, L.cyk, L.cwk from 0 and side 1's from m, each in that order
    (`fst_sides_rows`: one read of the column for both; the weights then by
    a loop that writes each to both and moves each side's count on by its
    side, without a branch)."""
    cdef const int32_t* rk = L.rk + <int64_t> u * m
    cdef const int32_t* yk = L.yk + <int64_t> u * m
    cdef const int32_t* pos = L.upos + <int64_t> u * m
    cdef int i, k0 = 0, k1 = m
    cdef bint s
    fst_sides_rows(e.vec, rk, yk, pos, m, t, L.crk, L.cyk, L.crk + m, L.cyk + m)
    if wk == NULL:
        return
    for i in range(m):
        s = pos[i] >= t
        L.cwk[k0] = wk[i]
        L.cwk[k1] = wk[i]
        k0 += 1 - s
        k1 += s


cdef inline int _side_rows(DEngine* e, DLevel* L, int u, int m, int32_t t, int s,
                           const double* wk) noexcept nogil:
    """The rows of side s (0: position below t in L.upos, 1: the others) of
    column u's order, ranks, classes and weights, into L.crk, L.cyk, L.cwk
    in that order; returns how many.  The ranks and classes by
    `fst_side_rows` (the vector loops), the weights by a loop that writes
    each and moves the count on by its side, without a branch."""
    cdef const int32_t* rk = L.rk + <int64_t> u * m
    cdef const int32_t* yk = L.yk + <int64_t> u * m
    cdef const int32_t* pos = L.upos + <int64_t> u * m
    cdef int i, k = 0
    cdef int32_t* crk = L.crk
    cdef int32_t* cyk = L.cyk
    cdef double* cwk = L.cwk
    cdef int n = fst_side_rows(e.vec, rk, yk, pos, m, t, s, crk, cyk)
    if wk == NULL:
        return n
    for i in range(m):
        cwk[k] = wk[i]
        k += (pos[i] >= t) == s
    return n


cdef void _child_hints(const DSpace* sp, const DLevel* L, const double* W,
                       const int32_t* tpos, int a, int c, int lo, int hi, int t,
                       double* hint) noexcept nogil:
    """The children's bounds of the root split at row position t from the
    column's valued neighbours a < t < c (-1: none), and the widening of their
    budgets: hint[0] for L_t, hint[1] for R_t, hint[2] the worst cost of the
    rows from t to the farther end of [lo, hi]."""
    cdef double bnd
    hint[0] = -INF
    hint[1] = -INF
    if a >= 0:
        if sp.rules & RULE_TRANSFER:
            hint[0] = superset_child_bound(L.lbl[a])
        if sp.rules & RULE_EXCHANGE:
            bnd = subset_child_bound(L.lbr[a], W[t] - W[tpos[a]])
            if bnd > hint[1]:
                hint[1] = bnd
    if c >= 0:
        if sp.rules & RULE_TRANSFER:
            bnd = superset_child_bound(L.lbr[c])
            if bnd > hint[1]:
                hint[1] = bnd
        if sp.rules & RULE_EXCHANGE:
            bnd = subset_child_bound(L.lbl[c], W[tpos[c]] - W[t])
            if bnd > hint[0]:
                hint[0] = bnd
    # both children's budgets are widened by the worst cost of the rows to the
    # interval's farther end: a bound a child proves then reaches across the
    # whole interval (the neighbour bound)
    hint[2] = W[tpos[hi]] - W[t]
    if W[t] - W[tpos[lo]] > hint[2]:
        hint[2] = W[t] - W[tpos[lo]]


cdef int _supported_from(const DSpace* sp, const int32_t* yk, const double* wk,
                         const double* W, const int32_t* tpos, int T,
                         double* c) noexcept nogil:
    """The first threshold (index into tpos) whose left side has support at least
    sup_lam; T when none (`split_supported`)."""
    cdef int j = 0, i = 0, k
    for k in range(sp.K):
        c[k] = 0
    while j < T:
        while i < tpos[j]:
            c[yk[i]] += weight_at(wk, i)
            i += 1
        if leaf_support(W[i], leaf_loss(sp, c, i)) >= sp.sup_lam:
            return j
        j += 1
    return T


cdef int _supported_to(const DSpace* sp, const int32_t* yk, const double* wk,
                       const double* W, const int32_t* tpos, int T, int m,
                       double* c) noexcept nogil:
    """The last threshold whose right side has support at least sup_lam; -1 when
    none."""
    cdef int j = T - 1, i = m, k
    for k in range(sp.K):
        c[k] = 0
    while j >= 0:
        while i > tpos[j]:
            i -= 1
            c[yk[i]] += weight_at(wk, i)
        if leaf_support(W[m] - W[i], leaf_loss(sp, c, m - i)) >= sp.sup_lam:
            return j
        j -= 1
    return -1


cdef inline double _node_row_worst(const DSpace* sp, const DLevel* L, int32_t y,
                                   double w) noexcept nogil:
    """What a row of the node adds at most to the optimum of any of its subsets
    (`row_worst`); under squared error from the node's own target range: the
    means of its subsets' leaves lie in it (`squares_row_worst`, with
    RULE_EXCHANGE; without it nothing reads the worst costs: 0)."""
    if sp.target != NULL:
        if not (sp.rules & RULE_EXCHANGE):
            return 0.0
        return squares_row_worst(sp.target[y], w, L.zlo, L.zhi)
    return row_worst(sp, y, w)


cdef bint _column_run(const DSpace* sp, DLevel* L, int u, int m, bint own_worst,
                      int* lo, int* hi) noexcept nogil:
    """Column u's thresholds of the node gathered in L: their row positions
    (L.tpos), the worst cost of the column's first rows (L.wpre: each row's own
    worst with own_worst, else `_node_row_worst`, which is 0 where no rule of the
    column's search reads it), and the run [lo, hi] of the thresholds that leaf
    support and min_samples_leaf admit.  False when there is none."""
    cdef const int32_t* rk = L.rk + <int64_t> u * m
    cdef const int32_t* yk = L.yk + <int64_t> u * m
    cdef const double* wk = _weights(sp, L, u, m)
    cdef int32_t* tpos = L.tpos
    cdef double* W = L.wpre
    cdef int T = 0, i
    cdef double w
    for i in range(1, m):
        if rk[i] != rk[i - 1]:
            tpos[T] = i
            T += 1
    if T == 0:
        return False
    W[0] = 0.0
    for i in range(m):
        w = weight_at(wk, i)
        if not own_worst:
            W[i + 1] = W[i] + _node_row_worst(sp, L, yk[i], w)
        elif sp.target != NULL:
            W[i + 1] = W[i] + squares_row_worst(sp.target[yk[i]], w, L.zlo, L.zhi)
        else:
            W[i + 1] = W[i] + row_worst(sp, yk[i], w)
    if sp.sup_lam > 0.0:
        # leaf support: both sides of a split of an optimal tree hold support at
        # least lam, and a side's support grows with it, so the supported
        # thresholds are one run: from the first whose left side reaches lam to
        # the last whose right side does
        lo[0] = _supported_from(sp, yk, wk, W, tpos, T, L.cnt + 2 * sp.K)
        hi[0] = _supported_to(sp, yk, wk, W, tpos, T, m, L.cnt + 2 * sp.K)
        if lo[0] > hi[0]:
            return False
    else:
        lo[0] = 0
        hi[0] = T - 1
    # min_samples_leaf: the splits are the thresholds with min_leaf rows on each
    # side, one run of positions (tpos rises)
    while lo[0] <= hi[0] and tpos[lo[0]] < sp.min_leaf:
        lo[0] += 1
    while hi[0] >= lo[0] and m - tpos[hi[0]] < sp.min_leaf:
        hi[0] -= 1
    return lo[0] <= hi[0]


cdef int _shrink_up(const double* W, const int32_t* tpos, int32_t ta, double va, int lo,
                    int hi, double P, double* lbmin) noexcept nogil:
    """The first threshold of [lo, hi] (right of the valued threshold at row
    position ta, of bound va) that the neighbour bound does not prove above P;
    hi + 1 when none.  The bound falls as thresholds move away from ta (more rows
    cross), so the proven ones are a prefix, found by bisection."""
    cdef int a = lo, b = hi + 1, mid
    cdef double bnd
    while a < b:
        mid = (a + b) // 2
        if neighbour_bound(va, W[tpos[mid]] - W[ta]) > P:
            a = mid + 1
        else:
            b = mid
    if a > lo:
        bnd = neighbour_bound(va, W[tpos[a - 1]] - W[ta])
        if bnd < lbmin[0]:
            lbmin[0] = bnd
    return a


cdef int _shrink_down(const double* W, const int32_t* tpos, int32_t tc, double vc, int lo,
                      int hi, double P, double* lbmin) noexcept nogil:
    """`_shrink_up` from the valued threshold at tc right of [lo, hi]: the last
    threshold not proven above P; lo - 1 when none."""
    cdef int a = lo - 1, b = hi, mid
    cdef double bnd
    while a < b:
        mid = (a + b + 1) // 2
        if neighbour_bound(vc, W[tc] - W[tpos[mid]]) > P:
            b = mid - 1
        else:
            a = mid
    if a < hi:
        bnd = neighbour_bound(vc, W[tc] - W[tpos[a + 1]])
        if bnd < lbmin[0]:
            lbmin[0] = bnd
    return a


cdef bint _positions(DEngine* e, DLevel* L, const int32_t* ord, int m, int u) noexcept nogil:
    """L.upos: for each column, the position in column u's order of each of the
    node's rows in that column's order; a root split of column u at position t
    then sends a row right when its position is t or more, tested in sequence.
    A large node polls the limits every column: False when they stopped the
    search (L.upos is then incomplete, and nothing may be valued with it)."""
    cdef int g, i
    cdef const int32_t* o = ord + <int64_t> u * m
    cdef const int32_t* og
    cdef int32_t* up
    for i in range(m):
        e.pos[o[i]] = i
    for g in range(e.sp.p):
        if m >= POLL_ROWS and e.poll(e):
            return False
        og = ord + <int64_t> g * m
        up = L.upos + <int64_t> g * m
        for i in range(m):
            up[i] = e.pos[og[i]]
    return True


cdef bint _peel_leaves(DEngine* e, int d, int u, int m, const double* cnt, int* lo,
                       int* hi) noexcept nogil:
    """Column u's thresholds of a node of `_solve_peel` (`_column_run`, with
    each row's own worst cost: the subset bound reads it whatever the rules) and
    at each threshold j its left and right sides as leaves (L.lbl[j],
    L.lbr[j], lam included) and its left side's floor (L.lbv[j]).  False when
    the column has none."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef int K = sp.K
    cdef const int32_t* yk = L.yk + <int64_t> u * m
    cdef const double* wk = _weights(&e.sp, L, u, m)
    cdef int32_t* tpos = L.tpos
    cdef double* cl = L.cnt + 2 * K
    cdef double* cr = L.cnt + 3 * K
    cdef int i, j, k
    if not _column_run(sp, L, u, m, True, lo, hi):
        return False
    for k in range(K):
        cl[k] = 0
    i = 0
    for j in range(lo[0], hi[0] + 1):
        add_rows(sp, cl, yk, wk, i, tpos[j])
        i = tpos[j]
        for k in range(K):
            cr[k] = cnt[k] - cl[k]
        L.lbl[j] = leaf_loss(sp, cl, i) + sp.lam
        L.lbr[j] = leaf_loss(sp, cr, m - i) + sp.lam
        L.lbv[j] = class_sum(sp, cl, sp.mincost)
    return True


cdef int _by_bound(const void* a, const void* b) noexcept nogil:
    """qsort's order of root columns: by static bound, then by column."""
    cdef const ColKey* x = <const ColKey*> a
    cdef const ColKey* y = <const ColKey*> b
    if x.v != y.v:
        return -1 if x.v < y.v else 1
    return (x.u > y.u) - (x.u < y.u)


cdef void _peel_order(DEngine* e, int d, int m, const double* cnt, double V) noexcept nogil:
    """The root of `_solve_peel` at the fit's depth, V its exact optimum of depth
    d - 1: each column's static bound (e.col_static, as `_root_static` fills it
    for other roots, for `engine_root_bound`), the least over its thresholds and
    sides of `leaf_beside_split_bound` (INF for a column without a threshold);
    and the order its columns are searched in (e.col_order): the least bound
    first, then by column.  A stopped root's open columns are bounded by these
    (its trees are those of depth d - 1, worth at least V and so at least its
    best, and the leaf-beside trees of its splits), so its bound rises as the
    columns are closed in this order.  Which columns are searched is unchanged,
    and so is the tree (`_tie_may_win` reads the least split id of the columns
    left, col_rest)."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef int p = sp.p, u, j, i, t, lo, hi
    cdef double floor = class_sum(sp, cnt, sp.mincost)
    cdef double low, b
    cdef bint nested = sp.min_leaf <= 1
    cdef double* W = L.wpre
    for u in range(p):
        low = INF
        if _peel_leaves(e, d, u, m, cnt, &lo, &hi):
            for j in range(lo, hi + 1):
                t = L.tpos[j]
                b = leaf_beside_split_bound(L.lbl[j], floor - L.lbv[j], sp.lam, d, V, W[t],
                                            nested)
                if b < low:
                    low = b
                b = leaf_beside_split_bound(L.lbr[j], L.lbv[j], sp.lam, d, V, W[m] - W[t],
                                            nested)
                if b < low:
                    low = b
        e.col_keys[u].v = low
        e.col_keys[u].u = u
        if e.tid == 0:
            e.col_static[u] = low
        if e.poll(e):
            return
    if e.tid == 0:
        e.static_done = True
    qsort(e.col_keys, p, sizeof(ColKey), _by_bound)
    for i in range(p):
        e.col_perm[i] = e.col_keys[i].u
    for i in range(p - 1, -1, -1):
        e.col_rest[i] = sp.col_start[e.col_perm[i]]
        if i + 1 < p and e.col_rest[i + 1] < e.col_rest[i]:
            e.col_rest[i] = e.col_rest[i + 1]
    e.col_order = e.col_perm


# ------------------------------------------------------------ partitions

cdef bint _partition(DEngine* e, DLevel* L, const int32_t* ord, int m, int u,
                     int t) noexcept nogil:
    """The two sides of the node's split at row position t of column u's order,
    each still sorted per column, in L.child: the left side's p x t block, then
    the right side's p x (m - t).  Only the first column is partitioned now, the
    others when a child needs them (L.lazy, `_complete`): a child reads its
    first column's order alone (its rows, and the store's key) until it is
    searched by its columns, and many never are, answered from the store, from
    their columns' sums (`by_sums`) or by a bound.  A large node polls the
    limits first: False when they stopped the search."""
    cdef int i
    cdef const int32_t* ou = ord + <int64_t> u * m
    for i in range(m):
        e.side[ou[i]] = 0 if i < t else 1
    L.lazy = True
    L.lazy_ord = ord
    L.lazy_m = m
    L.lazy_u = u
    L.lazy_t = t
    return _partition_columns(e, L, ord, m, t, 0, 1)


cdef bint _partition_columns(DEngine* e, DLevel* L, const int32_t* ord, int m, int t,
                             int g0, int g1) noexcept nogil:
    """`_partition` of columns g0 .. g1 - 1, each row's side in e.side."""
    cdef int p = e.sp.p
    cdef int g, i, nl, nr
    cdef int32_t r
    cdef const int32_t* o
    cdef int32_t* dl
    cdef int32_t* dr
    for g in range(g0, g1):
        if m >= POLL_ROWS and e.poll(e):
            return False
        o = ord + <int64_t> g * m
        dl = L.child + <int64_t> g * t
        dr = L.child + <int64_t> p * t + <int64_t> g * (m - t)
        nl = 0
        nr = 0
        for i in range(m):
            r = o[i]
            if e.side[r] == 0:
                dl[nl] = r
                nl += 1
            else:
                dr[nr] = r
                nr += 1
    return True


cdef bint _complete(DEngine* e, int d, const int32_t* ord) noexcept nogil:
    """Before a node of depth d reads its rows in other columns' orders than
    its first: when it is a child of a split its parent partitioned lazily
    (`_partition`), the parent's other columns partitioned now.  False when
    the limits stopped that."""
    cdef DLevel* P
    cdef const int32_t* ou
    cdef int i
    if d + 1 > e.max_depth:
        return True
    P = &e.lv[d + 1]
    if not P.lazy or (ord != P.child and ord != P.child + <int64_t> e.sp.p * P.lazy_t):
        return True
    ou = P.lazy_ord + <int64_t> P.lazy_u * P.lazy_m
    for i in range(P.lazy_m):
        e.side[ou[i]] = 0 if i < P.lazy_t else 1
    if not _partition_columns(e, P, P.lazy_ord, P.lazy_m, P.lazy_t, 1, e.sp.p):
        return False
    P.lazy = False
    return True
