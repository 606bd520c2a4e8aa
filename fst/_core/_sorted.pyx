"""The sorted-column search of a depth-limited node (depth d >= 2 left), over its
rows sorted on each column, never through per-threshold bitsets; its argument is
at `sorted_run`.  A search of depth three or more asks its caller to solve the
children of the root splits it values (`SortedRun.child`) and resumes where it
stopped, so the frame stack (`_search.solve`) holds every open level.

# Notes:
# - The node's rows are sorted on each column once (`_sorted_open`), O(rows x
#   columns); a depth-two valuation moves the root split's rows one by one
#   between the sides and sweeps every column once (`_depth_one_sides`).
# - Leaves are valued from whole counts by `leaf_loss`, as the stored nodes value
#   them, so a realised tree scores the same to the last bit.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t, TOL, INF
from ._bitset cimport bs_and, bs_andnot, bs_test
from ._memo cimport Node
from ._problem cimport split_row
from ._limits cimport RUNNING, STOP_MEMORY
from ._config cimport RULE_SUPPORT, STRATEGY_SORTED_SHRINK
from ._context cimport Ctx
from ._bounds cimport (leaf_loss, potential, split_supported, settle, raise_bound,
                       settle_depth_one, interval_bound, neighbour_bound, rows_moved_bound,
                       unit_rows_moved_bound, two_class_moved_bound)
from ._nodes cimport node_get, install_two_leaf
from ._context cimport check_limits


cdef void _sorted_free(Sorted* d) noexcept nogil:
    free(d.cols); free(d.order); free(d.rank); free(d.ycls); free(d.side)
    free(d.tpos); free(d.evl); free(d.evr); free(d.stack); free(d.worst)
    free(d.tcnt); free(d.icnt); free(d.isnap); free(d.dcnt); free(d.rest)
    memset(d, 0, sizeof(Sorted))


cdef void _depth_one_sides(Ctx* c, Sorted* d, const int64_t* ntot, double* best,
                           int32_t* arg) noexcept nogil:
    """R(S, 1) of both sides S of the root split in `d.side`: best[s] is the least
    of S's leaf and of every split's two leaves, arg[s] that split (-1: the leaf).

    One pass per column over the node's rows sorted on it, counting each side's
    classes up to a threshold (its left leaf; the side's counts less them, its
    right leaf).  Every partition of a side by one split is a prefix of this
    order at a change of rank (split k of a column sends ranks <= k left), so
    the least over them is R(S, 1).  Leaves are valued from whole counts by
    `leaf_loss`, as the stored nodes value them, so a realised tree scores the
    same to the last bit.

    Row bound: moving rows D (D_k of class k) from a split's right leaf to its
    left lowers its value by at most max_j A_j(D) - min_j A_j(D), where A_j(D) =
    sum_k D_k C[k, j] over the labels j a leaf tries: the right leaf's least cost
    min_j (A_j(R) - A_j(D)) >= loss(R) - max_j A_j(D), and the left's
    min_j (A_j(L) + A_j(D)) >= loss(L) + min_j A_j(D).  Under a unit cost u that
    is u (max_k D_k - min_k D_k) <= u max_k D_k; otherwise at most D's potential
    (rows times the largest potential of a row).  After valuing v at a
    threshold, a side's later thresholds are skipped while that bound on the
    rows since stays below v - best[s]; once no rows left to pass could reach
    it, its pass ends."""
    cdef int K = c.sp.K
    cdef int m = d.m
    cdef int u, s, k
    cdef int64_t i
    cdef int64_t n0, n1, e0, e1, l0, l1
    cdef int64_t T0 = ntot[0], T1 = ntot[1]
    cdef bint done0, done1
    cdef double need0, need1, pmax = 0.0, unit = c.sp.unit
    cdef const int32_t* order
    cdef const int32_t* rank
    cdef const int32_t* ycls
    cdef int64_t* ic = d.icnt
    cdef int64_t* snap = d.isnap
    cdef int32_t base, sv
    for k in range(K):
        if c.sp.potc[k] > pmax:
            pmax = c.sp.potc[k]
    for s in range(2):
        arg[s] = -1
        best[s] = INF
        if ntot[s] > 0:
            best[s] = leaf_loss(d.tcnt + s * K, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL) + c.cfg.lam
    for u in range(d.ncu):
        order = d.order + <int64_t> u * m
        rank = d.rank + <int64_t> u * m
        ycls = d.ycls + <int64_t> u * m
        base = c.sp.col_start[d.cols[u]]
        for k in range(2 * K):
            ic[k] = 0
            snap[k] = 0
        n0 = 0; n1 = 0
        e0 = 0; e1 = 0     # rows at each side's last valuation
        l0 = 0; l1 = 0     # rows at each side's last threshold
        need0 = 0.0; need1 = 0.0
        done0 = T0 < 2
        done1 = T1 < 2
        for i in range(m - 1):
            sv = d.side[order[i]]
            ic[sv * K + ycls[i]] += 1
            n1 += sv
            n0 += 1 - sv
            if rank[i + 1] == rank[i]:
                continue
            # (the rows' potential first: O(1); under a unit cost, the most
            # rows of one class only where that does not rule the split out)
            if (n0 != l0 and not done0 and n0 < T0 and rows_moved_bound(n0 - e0, pmax) >= need0
                    and (unit == 0.0 or need0 == 0.0
                         or unit_rows_moved_bound(_most_moved(ic, snap, K), unit) >= need0)):
                _depth_one_value(c, d, 0, n0, T0, base + rank[i], pmax, best, arg, &need0, &done0)
                e0 = n0
            l0 = n0
            if (n1 != l1 and not done1 and n1 < T1 and rows_moved_bound(n1 - e1, pmax) >= need1
                    and (unit == 0.0 or need1 == 0.0
                         or unit_rows_moved_bound(_most_moved(ic + K, snap + K, K), unit)
                         >= need1)):
                _depth_one_value(c, d, 1, n1, T1, base + rank[i], pmax, best, arg, &need1, &done1)
                e1 = n1
            l1 = n1
            if done0 and done1:
                break


cdef inline int64_t _most_moved(const int64_t* ic, const int64_t* snap, int K) noexcept nogil:
    """The most rows of one class a side passed since its last valuation."""
    cdef int64_t most = 0
    cdef int k
    for k in range(K):
        if ic[k] - snap[k] > most:
            most = ic[k] - snap[k]
    return most


cdef inline void _depth_one_value(Ctx* c, Sorted* d, int s, int64_t n, int64_t T, int32_t split,
                                  double pmax, double* best, int32_t* arg, double* need,
                                  bint* done) noexcept nogil:
    """Value side s's split at the current threshold of `_depth_one_sides` (its
    first n of T rows left; pmax the largest potential of a row), record its
    counts as the side's last valuation, and update its best, need and end of
    pass (the row bound of `_depth_one_sides` over every row still to pass:
    under a unit cost, the most rows of one class among them)."""
    cdef int K = c.sp.K
    cdef int k
    cdef double v, most = 0.0
    for k in range(K):
        d.isnap[s * K + k] = d.icnt[s * K + k]
        d.dcnt[k] = <double> d.icnt[s * K + k]
        d.rest[k] = d.tcnt[s * K + k] - d.dcnt[k]
        if d.rest[k] > most:
            most = d.rest[k]
    v = ((leaf_loss(d.dcnt, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL) + c.cfg.lam)
         + (leaf_loss(d.rest, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL) + c.cfg.lam))
    c.st.sorted_leaf_pairs += 1
    if v < best[s]:
        best[s] = v
        arg[s] = split
        need[0] = 0.0
    else:
        need[0] = v - best[s]
        if (most * c.sp.unit if c.sp.unit > 0.0 else rows_moved_bound(T - n, pmax)) < need[0]:
            done[0] = True


cdef inline double _leaf2(Ctx* c, int64_t n0, int64_t n1) noexcept nogil:
    """`leaf_loss` of two classes with whole counts n0, n1 (the counts the stored
    nodes value, so the same value to the last bit)."""
    cdef double counts[2]
    counts[0] = <double> n0
    counts[1] = <double> n1
    return leaf_loss(counts, 2, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL)


cdef inline void _side2_value(Ctx* c, int64_t n, int64_t q, int64_t T, int64_t Q,
                              int32_t split, double al, double be, double* best,
                              int32_t* arg, double* need, bint* done) noexcept nogil:
    """Value a side of two classes at a threshold of `_depth_one_sides2` (its first
    n of T rows left, q and Q of them of class 1) and update its best, need and
    end of pass: the row bound |D_0 al + D_1 be| (see `_depth_one_sides2`) at its
    largest over the rows still to pass, D_0 <= T - n - Q + q, D_1 <= Q - q."""
    cdef double v = ((_leaf2(c, n - q, q) + c.cfg.lam)
                     + (_leaf2(c, T - n - Q + q, Q - q) + c.cfg.lam))
    cdef double r0 = <double> (T - n - Q + q), r1 = <double> (Q - q)
    cdef double up, down
    c.st.sorted_leaf_pairs += 1
    if v < best[0]:
        best[0] = v
        arg[0] = split
        need[0] = 0.0
    else:
        need[0] = v - best[0]
        up = (r0 * al if al > 0.0 else 0.0) + (r1 * be if be > 0.0 else 0.0)
        down = (-r0 * al if al < 0.0 else 0.0) + (-r1 * be if be < 0.0 else 0.0)
        if (up if up > down else down) < need[0]:
            done[0] = True


cdef void _depth_one_sides2(Ctx* c, Sorted* d, const int64_t* ntot, double* best,
                            int32_t* arg) noexcept nogil:
    """`_depth_one_sides` for two classes: the counts of a pass live in registers
    (a side's rows and its rows of class 1), with no chain of stores through
    memory from row to row, and every leaf is valued from whole counts exactly
    as the stored nodes value it.

    The row bound of `_depth_one_sides` with two labels a, b: rows D (D_0 of
    class 0, D_1 of class 1) moved from the right leaf to the left lower the
    value by at most |A_a(D) - A_b(D)| = |D_0 al + D_1 be|, al = C[0, a] -
    C[0, b], be = C[1, a] - C[1, b] (under 0/1 loss |D_1 - D_0| / n: rows of
    both classes offset each other); 0 with a single label."""
    cdef int m = d.m
    cdef int u, s
    cdef int64_t i
    cdef int64_t n0, q0, n1, q1, e0n, e0q, e1n, e1q, l0n, l1n
    cdef int64_t T0 = ntot[0], T1 = ntot[1]
    cdef int64_t Q0 = <int64_t> d.tcnt[1], Q1 = <int64_t> d.tcnt[3]   # rows of class 1
    cdef double al = 0.0, be = 0.0, x
    cdef bint done0, done1
    cdef double need0, need1
    cdef const int32_t* order
    cdef const int32_t* rank
    cdef const int32_t* ycls
    cdef int32_t base, sv, yv
    if c.sp.n_pcols == 2:
        al = c.sp.cost[c.sp.pcols[0]] - c.sp.cost[c.sp.pcols[1]]
        be = c.sp.cost[2 + c.sp.pcols[0]] - c.sp.cost[2 + c.sp.pcols[1]]
    for s in range(2):
        arg[s] = -1
        best[s] = INF
    if T0 > 0:
        best[0] = _leaf2(c, T0 - Q0, Q0) + c.cfg.lam
    if T1 > 0:
        best[1] = _leaf2(c, T1 - Q1, Q1) + c.cfg.lam
    for u in range(d.ncu):
        order = d.order + <int64_t> u * m
        rank = d.rank + <int64_t> u * m
        ycls = d.ycls + <int64_t> u * m
        base = c.sp.col_start[d.cols[u]]
        n0 = 0; q0 = 0; n1 = 0; q1 = 0
        e0n = 0; e0q = 0; e1n = 0; e1q = 0     # counts at each side's last valuation
        l0n = 0; l1n = 0                       # rows at each side's last threshold
        need0 = 0.0; need1 = 0.0
        done0 = T0 < 2
        done1 = T1 < 2
        for i in range(m - 1):
            sv = d.side[order[i]]
            yv = ycls[i]
            n1 += sv
            q1 += sv & yv
            n0 += 1 - sv
            q0 += yv - (sv & yv)
            if rank[i + 1] == rank[i]:
                continue
            # Value a side here when its rows changed since its last threshold,
            # its pass is not done and the row bound does not rule its split out.
            if n0 != l0n and not done0 and n0 < T0:
                x = (n0 - q0 - e0n + e0q) * al + (q0 - e0q) * be
                if two_class_moved_bound(x) >= need0:
                    _side2_value(c, n0, q0, T0, Q0, base + rank[i], al, be, &best[0],
                                 &arg[0], &need0, &done0)
                    e0n = n0
                    e0q = q0
            l0n = n0
            if n1 != l1n and not done1 and n1 < T1:
                x = (n1 - q1 - e1n + e1q) * al + (q1 - e1q) * be
                if two_class_moved_bound(x) >= need1:
                    _side2_value(c, n1, q1, T1, Q1, base + rank[i], al, be, &best[1],
                                 &arg[1], &need1, &done1)
                    e1n = n1
                    e1q = q1
            l1n = n1
            if done0 and done1:
                break


cdef int _depth_two_value(Ctx* c, Sorted* d, const int32_t* order, int64_t* ntot,
                          int64_t nleft, double* v2, int32_t* s2) noexcept nogil:
    """Move the root split to "the first `nleft` rows of `order` left" (rows cross
    one by one, their costs per label moving between the sides' totals) and
    value both sides (`_depth_one_sides`)."""
    cdef int K = c.sp.K
    cdef int k
    cdef int32_t row
    while ntot[0] < nleft:
        row = order[ntot[0]]
        d.side[row] = 0
        d.tcnt[c.sp.y[row]] += 1.0
        d.tcnt[K + c.sp.y[row]] -= 1.0
        ntot[0] += 1
        ntot[1] -= 1
    while ntot[0] > nleft:
        ntot[0] -= 1
        ntot[1] += 1
        row = order[ntot[0]]
        d.side[row] = 1
        d.tcnt[c.sp.y[row]] -= 1.0
        d.tcnt[K + c.sp.y[row]] += 1.0
    if K == 2:
        _depth_one_sides2(c, d, ntot, v2, s2)
    else:
        _depth_one_sides(c, d, ntot, v2, s2)
    c.st.sorted_splits_valued += 1
    c.work += <int64_t> d.ncu * d.m
    return 0


cdef int _realise_depth_one(Ctx* c, node_t parent, const word_t* X, int32_t s1, int right,
                            int32_t s2, double value, word_t* T) noexcept nogil:
    """Store one side of root split s1 (depth one left) with the tree `sorted_run`
    found for it: split s2 over two leaves, or a leaf (s2 < 0), of objective
    `value` = R(side, 1).  Returns -1 on a memory stop."""
    cdef int nw = c.sp.nw
    cdef node_t ch
    cdef Node* nd
    if right:
        bs_andnot(T, X, split_row(&c.sp, s1), nw)
    else:
        bs_and(T, X, split_row(&c.sp, s1), nw)
    ch = node_get(c, T, 1, parent, s1, right)
    if ch < 0:
        return -1
    if s2 >= 0 and install_two_leaf(c, ch, T, s2, value, T + nw) < 0:
        return -1
    # value = R(side, 1) (`_depth_one_sides`, `_depth_one_sides2`)
    settle_depth_one(&c.memo.nodes[ch], value)
    return ch


cdef int _sorted_open(Ctx* c, const word_t* X, int m, const int32_t* cand, int ncand,
                      bint sides, Sorted* d) noexcept nogil:
    """The node's rows sorted on each column of `cand` (with their ranks and, for
    depth two (`sides`), classes), and the scratch of the column sweeps.

    Returns 1 when open, 0 when those columns hold fewer than `sorted_min`
    thresholds apiece in X on average (nothing left allocated), -1 on a memory
    stop."""
    cdef uint8_t* seen = NULL
    cdef int u, j, K = c.sp.K
    cdef int64_t i, p, nthr = 0, gthr = 0
    cdef int32_t row
    cdef const int32_t* gorder
    cdef const int32_t* grank
    cdef int32_t* order
    cdef int32_t* rank
    memset(d, 0, sizeof(Sorted))
    seen = <uint8_t*> calloc(c.sp.n_cols + 1, 1)
    d.cols = <int32_t*> malloc((c.sp.n_cols + 1) * sizeof(int32_t))
    if seen == NULL or d.cols == NULL:
        free(seen)
        _sorted_free(d)
        c.lim.stop = STOP_MEMORY
        return -1
    for i in range(ncand):
        seen[c.sp.split_col[cand[i]]] = 1
    for j in range(c.sp.n_cols):
        if seen[j]:
            d.cols[d.ncu] = j
            d.ncu += 1
            gthr += c.sp.col_start[j + 1] - c.sp.col_start[j]
    free(seen)
    if d.ncu == 0 or gthr < c.cfg.sorted_min * d.ncu:
        _sorted_free(d)
        return 0
    d.m = m
    d.order = <int32_t*> malloc(<int64_t> d.ncu * m * sizeof(int32_t))
    d.rank = <int32_t*> malloc(<int64_t> d.ncu * m * sizeof(int32_t))
    d.tpos = <int32_t*> malloc((m + 1) * sizeof(int32_t))
    d.evl = <double*> malloc((m + 1) * sizeof(double))
    d.evr = <double*> malloc((m + 1) * sizeof(double))
    d.stack = <int32_t*> malloc((4 * m + 8) * sizeof(int32_t))
    d.worst = <double*> malloc((m + 1) * sizeof(double))
    d.dcnt = <double*> malloc(K * sizeof(double))
    d.rest = <double*> malloc(K * sizeof(double))
    if sides:
        d.side = <uint8_t*> malloc(c.sp.n + 1)
        d.ycls = <int32_t*> malloc(<int64_t> d.ncu * m * sizeof(int32_t))
        d.tcnt = <double*> malloc(2 * K * sizeof(double))
        d.icnt = <int64_t*> malloc(2 * K * sizeof(int64_t))
        d.isnap = <int64_t*> malloc(2 * K * sizeof(int64_t))
    if (d.order == NULL or d.rank == NULL or d.tpos == NULL or d.evl == NULL
            or d.evr == NULL or d.stack == NULL or d.worst == NULL
            or d.dcnt == NULL or d.rest == NULL
            or (sides and (d.side == NULL or d.ycls == NULL or d.tcnt == NULL
                           or d.icnt == NULL or d.isnap == NULL))):
        _sorted_free(d)
        c.lim.stop = STOP_MEMORY
        return -1
    for u in range(d.ncu):
        gorder = c.sp.col_order + <int64_t> d.cols[u] * c.sp.n
        grank = c.sp.row_rank + <int64_t> d.cols[u] * c.sp.n
        order = d.order + <int64_t> u * m
        rank = d.rank + <int64_t> u * m
        p = 0
        for i in range(c.sp.n):
            row = gorder[i]
            if bs_test(X, row):
                order[p] = row
                rank[p] = grank[row]
                if sides:
                    d.ycls[<int64_t> u * m + p] = c.sp.y[row]
                if p > 0 and rank[p] != rank[p - 1]:
                    nthr += 1
                p += 1
    c.work += <int64_t> d.ncu * c.sp.n
    if nthr < c.cfg.sorted_min * d.ncu:
        _sorted_free(d)
        return 0
    return 1


cdef inline int _shrink_from_left(Sorted* d, int ja, int jb, double excess) noexcept nogil:
    """The first threshold j in (ja, jb) whose rows since ja are worth at least
    `excess` (worst[tpos[j] + 1] - worst[tpos[ja] + 1] >= excess), or jb: the
    thresholds before it are within `excess` of ja.  Binary search (worst is
    nondecreasing along the column)."""
    cdef int lo = ja + 1, hi = jb, mid
    cdef double base = d.worst[d.tpos[ja] + 1]
    if excess <= 0.0:
        return lo
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if d.worst[d.tpos[mid] + 1] - base >= excess:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline int _shrink_from_right(Sorted* d, int ja, int jb, double excess) noexcept nogil:
    """The last threshold j in (ja, jb) whose rows up to jb are worth at least
    `excess` (worst[tpos[jb] + 1] - worst[tpos[j] + 1] >= excess), or ja."""
    cdef int lo = ja, hi = jb - 1, mid
    cdef double top = d.worst[d.tpos[jb] + 1]
    if excess <= 0.0:
        return hi
    while lo < hi:
        mid = hi - (hi - lo) // 2
        if top - d.worst[d.tpos[mid] + 1] >= excess:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef void _column_pass(Ctx* c, Sorted* d, const int32_t* order, const int32_t* rank,
                       const double* cnt, int32_t* ends, double* key) noexcept nogil:
    """One walk over a column's rows (in `order`, their value ranks in `rank`):
    the column's supported root splits are its thresholds ends[0] .. ends[1]
    (the j-th change of rank is threshold j; ends[1] < ends[0] when none is, and
    every threshold is when leaf support is off), and, when `key` is not NULL,
    key[0] is the least two-leaf loss over all its thresholds (under a unit cost,
    minus the two leaves' rows of their majority classes: an order, not a bound;
    INF when the column has no threshold in the node).

    Leaf support by potential (`split_supported`; the general search tests the
    support `leaf_support`, never larger, so it drops more): a root split with a
    side of potential below lam is never needed -- deleting it and sending that
    side's rows through the other side's tree (of depth <= d - 1) costs at most
    that potential and saves a leaf's lam, so R(X, d) is the least of the leaf
    and the supported splits.  Along the column the left potential only grows
    and the right one only shrinks, so the supported thresholds are contiguous."""
    cdef int K = c.sp.K
    cdef int m = d.m
    cdef int k, j = 0
    cdef int64_t i
    cdef bint support = (c.cfg.rules & RULE_SUPPORT) != 0
    cdef double v, kl, kr
    ends[0] = 0 if not support else m
    ends[1] = -1
    if key != NULL:
        key[0] = INF
    for k in range(K):
        d.dcnt[k] = 0.0
    for i in range(m - 1):
        d.dcnt[c.sp.y[order[i]]] += 1.0
        if rank[i + 1] == rank[i]:
            continue
        if key != NULL or support:
            for k in range(K):
                d.rest[k] = cnt[k] - d.dcnt[k]
        if (not support or split_supported(potential(d.dcnt, K, c.sp.potc),
                                           potential(d.rest, K, c.sp.potc), c.cfg.lam)):
            if ends[0] > j:
                ends[0] = j
            ends[1] = j
        if key != NULL:
            if c.sp.unit > 0.0:
                # unit cost: the two leaves' errors less the node's rows
                kl = 0.0
                kr = 0.0
                for k in range(K):
                    if d.dcnt[k] > kl:
                        kl = d.dcnt[k]
                    if d.rest[k] > kr:
                        kr = d.rest[k]
                v = -(kl + kr)
            else:
                v = (leaf_loss(d.dcnt, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL)
                     + leaf_loss(d.rest, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL))
            if v < key[0]:
                key[0] = v
        j += 1
    if not support:
        ends[1] = j - 1


cdef void sorted_release(SortedRun* r) noexcept nogil:
    """Free what a sorted-column search still holds (nothing after it ends)."""
    free(r.perm)
    free(r.key)
    free(r.ends)
    free(r.T)
    r.perm = NULL
    r.key = NULL
    r.ends = NULL
    r.T = NULL
    _sorted_free(&r.d)
    memset(&r.d, 0, sizeof(Sorted))


cdef int sorted_start(Ctx* c, SortedRun* r) noexcept nogil:
    """Open the sorted-column search of node r.nid (its rows r.X, class counts
    r.cnt, candidate splits r.cand, budget r.B: the caller sets these on a
    zeroed SortedRun) and run it (`sorted_run`, whose argument covers both):
    returns 0 when its columns are too few thresholds apiece for it to pay (the
    caller expands the node), 1 when done (or a memory stop), 2 when it waits
    for a child (r.child within r.child_B over r.cand)."""
    cdef Node* nd = &c.memo.nodes[r.nid]
    cdef int u, q, ret
    cdef int m = <int> nd.count
    r.m = m
    r.depth = nd.depth
    r.two = nd.depth == 2
    ret = _sorted_open(c, r.X, m, r.cand, r.ncand, r.two, &r.d)
    if ret <= 0:
        return 1 if ret < 0 else 0
    r.T = <word_t*> malloc(2 * c.sp.nw * sizeof(word_t))
    if r.T == NULL:
        sorted_release(r)
        c.lim.stop = STOP_MEMORY
        return 1
    c.st.sorted_nodes += 1

    r.best = nd.ub
    r.lbmin = nd.leaf
    r.arg1 = -1
    r.argL = -1
    r.argR = -1
    # At depth two, columns in the order of their best two-leaf split (ties by
    # column): a good incumbent early tightens the cap of every later column.
    # The order only changes the work: every column is searched.  Deeper nodes
    # keep the column order: there the children's searches, not the order of the
    # columns, decide the incumbent.
    if r.two:
        r.perm = <int32_t*> malloc((r.d.ncu + 1) * sizeof(int32_t))
        r.key = <double*> malloc((r.d.ncu + 1) * sizeof(double))
        r.ends = <int32_t*> malloc(2 * (r.d.ncu + 1) * sizeof(int32_t))
    if r.perm != NULL and r.key != NULL and r.ends != NULL:
        for u in range(r.d.ncu):
            _column_pass(c, &r.d, r.d.order + <int64_t> u * m, r.d.rank + <int64_t> u * m,
                         r.cnt, r.ends + 2 * u, r.key + u)
            # insertion: stable, so ties keep the column order
            q = u
            while q > 0 and r.key[r.perm[q - 1]] > r.key[u]:
                r.perm[q] = r.perm[q - 1]
                q -= 1
            r.perm[q] = u
        c.work += <int64_t> r.d.ncu * m
    else:
        free(r.perm)
        free(r.key)
        free(r.ends)
        r.perm = NULL
        r.key = NULL
        r.ends = NULL
    r.ui = 0
    r.phase = P_COLUMN
    return sorted_run(c, r)


cdef bint _sorted_column(Ctx* c, SortedRun* r) noexcept nogil:
    """Set up column r.ui of the search: its thresholds in X, its worst-cost
    prefix, its supported root splits and the queue of intervals.  False when
    the column has no supported threshold (the search goes on to the next)."""
    cdef Sorted* d = &r.d
    cdef int m = r.m, K = c.sp.K, k
    cdef int64_t i
    cdef int32_t se[2]
    cdef int32_t* order
    cdef int32_t* rank
    r.u = r.perm[r.ui] if r.perm != NULL else r.ui
    order = d.order + <int64_t> r.u * m
    rank = d.rank + <int64_t> r.u * m
    # The column's thresholds in X: tpos[j] is the last row (in this order)
    # left of threshold j.  worst[i]: the worst cost of the column's first
    # i rows (`worst_loss`).
    r.nt = 0
    d.worst[0] = 0.0
    for i in range(m):
        d.worst[i + 1] = d.worst[i] + c.sp.maxcost[c.sp.y[order[i]]]
        if i + 1 < m and rank[i + 1] != rank[i]:
            d.tpos[r.nt] = <int32_t> i
            r.nt += 1
    if r.nt == 0:
        return False
    if r.two:
        for i in range(m):
            d.side[order[i]] = 1
        for k in range(K):
            d.tcnt[k] = 0.0
            d.tcnt[K + k] = r.cnt[k]
        r.ntot[0] = 0     # the rows order[0 .. ntot[0] - 1] are left
        r.ntot[1] = m
    # The supported root splits, j0 .. j1 (`_column_pass`; at depth two
    # found by the ordering pass above).
    if r.ends == NULL:
        _column_pass(c, d, order, rank, r.cnt, se, NULL)
        r.j0 = se[0]
        r.j1 = se[1]
    else:
        r.j0 = r.ends[2 * r.u]
        r.j1 = r.ends[2 * r.u + 1]
    c.st.sorted_splits_set_aside += r.nt - (r.j1 - r.j0 + 1 if r.j1 >= r.j0 else 0)
    if r.j1 < r.j0:
        return False
    # Queue of intervals (a, b) of valued ends; (j0, j1) once its ends are.
    d.stack[0] = r.j0
    d.stack[1] = r.j1
    r.nst = 1     # intervals queued: d.stack[2 * head .. 2 * nst - 1]
    r.head = 0
    r.step = 0
    r.jm = 0
    return True


cdef int _sorted_pick(Ctx* c, SortedRun* r, double* wh) noexcept nogil:
    """The column's next threshold to value (r.jm), by the search's bisection:
    its first and last supported thresholds, then the middle of each interval
    of the queue that its ends' bounds do not put above the cap (first in first
    out).  Returns 1 with r.jm set (and *wh, what the children's cap adds), 0
    when the column is done."""
    cdef Sorted* d = &r.d
    cdef int ja, jb, lo, hi
    cdef double cap, lbt, v, wab, B = r.B
    while True:
        wh[0] = 0.0
        if r.step == 0:
            r.jm = r.j0
        elif r.step == 1:
            if r.j1 == r.j0:
                r.step = 2
                continue
            r.jm = r.j1
        else:
            if r.head == r.nst:
                return 0
            ja = d.stack[2 * r.head]
            jb = d.stack[2 * r.head + 1]
            r.head += 1
            if jb - ja < 2:
                continue
            cap = B if B < r.best else r.best
            # Interval bound (see `sorted_run`): R(t) >= lb(L_a) + lb(R_b).  And
            # the neighbour bound: R(t) >= lb(a) - worst(rows between a and t),
            # likewise from b (rows crossing from the right side to the left
            # lower R(R) by at most their worst cost and only raise R(L)).
            wab = d.worst[d.tpos[jb] + 1] - d.worst[d.tpos[ja] + 1]
            lbt = interval_bound(d.evl[ja], d.evr[jb])
            v = neighbour_bound(d.evl[ja] + d.evr[ja], wab)
            if v > lbt:
                lbt = v
            v = neighbour_bound(d.evl[jb] + d.evr[jb], wab)
            if v > lbt:
                lbt = v
            if lbt > cap + TOL:
                c.st.sorted_splits_set_aside += jb - ja - 1
                if lbt < r.lbmin:
                    r.lbmin = lbt
                continue
            # Shrink the interval by the neighbour bound: a threshold t with
            # lb(a) - worst(rows a..t) > cap is above cap, and these t are a
            # prefix of (a, b) (worst grows along the column); likewise a
            # suffix from b.  They are set aside with that bound (each one's
            # at least the bound at the prefix's last, resp. the suffix's
            # first threshold), and the middle of what is left is valued,
            # not the middle of (a, b): a valuation is never spent on a
            # threshold already proved above cap.
            if (c.cfg.strategy & STRATEGY_SORTED_SHRINK):
                lo = _shrink_from_left(d, ja, jb, d.evl[ja] + d.evr[ja] - cap - TOL)
                hi = _shrink_from_right(d, ja, jb, d.evl[jb] + d.evr[jb] - cap - TOL)
            else:
                lo = ja + 1
                hi = jb - 1
            if lo > ja + 1:
                v = neighbour_bound(d.evl[ja] + d.evr[ja], d.worst[d.tpos[lo - 1] + 1]
                                    - d.worst[d.tpos[ja] + 1])
                if v < r.lbmin:
                    r.lbmin = v
            if hi < jb - 1:
                v = neighbour_bound(d.evl[jb] + d.evr[jb], d.worst[d.tpos[jb] + 1]
                                    - d.worst[d.tpos[hi + 1] + 1])
                if v < r.lbmin:
                    r.lbmin = v
            if lo > hi:
                c.st.sorted_splits_set_aside += jb - ja - 1
                continue
            # (the prefix and suffix are counted as set aside when the halves
            # holding them are taken from the queue and shrunk again)
            r.jm = lo + (hi - lo) // 2
            # Both halves queued: intervals are taken first in first out, so
            # a column is sampled evenly before any part of it is refined (a
            # good incumbent early tightens the cap of every later valuation)
            d.stack[2 * r.nst] = ja
            d.stack[2 * r.nst + 1] = r.jm
            d.stack[2 * r.nst + 2] = r.jm
            d.stack[2 * r.nst + 3] = jb
            r.nst += 2
            # Children searched within cap plus the worst cost of the rows
            # to the farther end of what is left open, [lo, hi]: a split
            # proved above that puts all of it above cap by the neighbour
            # bound (the rest is above cap already).
            wh[0] = d.worst[d.tpos[r.jm] + 1] - d.worst[d.tpos[lo] + 1]
            v = d.worst[d.tpos[hi] + 1] - d.worst[d.tpos[r.jm] + 1]
            if v > wh[0]:
                wh[0] = v
        r.step += 1 if r.step < 2 else 0
        return 1


cdef void _sorted_record(Ctx* c, SortedRun* r) noexcept nogil:
    """Record the valuation of threshold r.jm: its sides' values or bounds, the
    least bound, and the incumbent when its value is exact and better."""
    cdef Sorted* d = &r.d
    cdef double v
    cdef Node* nd
    d.evl[r.jm] = r.v2[0]
    d.evr[r.jm] = r.v2[1]
    v = r.v2[0] + r.v2[1]
    if v < r.lbmin:
        r.lbmin = v
    if r.ret == 1 and v < r.best:
        r.best = v
        if r.two:
            r.arg1 = r.s
            r.argL = r.s2[0]
            r.argR = r.s2[1]
            r.vL = r.v2[0]
            r.vR = r.v2[1]
        else:
            # (ii) a real tree: split s over its children's solved trees
            nd = &c.memo.nodes[r.nid]
            if v < nd.ub:
                nd.ub = v
                nd.best_split = r.s


cdef int _sweep_begin(Ctx* c, SortedRun* r) noexcept nogil:
    """Value root split r.s of a node of depth >= 3 left: both children stored
    and searched as the candidate loop searches a split -- the smaller first,
    within what the other's bound leaves of the cap (r.sweep_cap), the other
    within what the first's optimum leaves (`_sweep_end` reads their bounds).
    Returns 2 when a child is asked for (P_FIRST), 1 when neither needs a
    search, -1 on a memory stop."""
    cdef int nw = c.sp.nw
    bs_and(r.T, r.X, split_row(&c.sp, r.s), nw)
    r.l = node_get(c, r.T, r.depth - 1, r.nid, r.s, 0)
    if r.l < 0:
        return -1
    bs_andnot(r.T, r.X, split_row(&c.sp, r.s), nw)
    r.r = node_get(c, r.T, r.depth - 1, r.nid, r.s, 1)
    if r.r < 0:
        return -1
    c.st.sorted_splits_valued += 1
    if c.memo.nodes[r.l].lb + c.memo.nodes[r.r].lb <= r.sweep_cap + TOL:
        if c.memo.nodes[r.r].count < c.memo.nodes[r.l].count:
            r.first = r.r
            r.second = r.l
        else:
            r.first = r.l
            r.second = r.r
        r.bl = r.sweep_cap - c.memo.nodes[r.second].lb
        r.phase = P_FIRST
        r.child = r.first
        r.child_B = r.bl
        return 2
    return 1


cdef void _sweep_end(Ctx* c, SortedRun* r) noexcept nogil:
    """The valued split's sides' bounds (their optima when solved); r.ret 1 when
    both are solved (the split's value is exact)."""
    r.v2[0] = c.memo.nodes[r.l].lb
    r.v2[1] = c.memo.nodes[r.r].lb
    r.ret = 1 if c.memo.nodes[r.l].solved and c.memo.nodes[r.r].solved else 0


cdef int sorted_run(Ctx* c, SortedRun* r) noexcept nogil:
    """Search a depth-limited node (depth d >= 2 left) over its rows sorted on
    each column, one column at a time, its thresholds by bisection, from where
    it stopped (r.phase).  Returns 2 when it waits for a child (r.child within r.child_B over
    r.cand: the caller solves it and calls again), 1 when done (the node solved, or its bound
    raised above B, or a stop).

    R(X, d) = min(leaf, min over root splits t of R(L_t, d - 1) + R(R_t, d - 1)).
    Along a column, L_t grows and R_t shrinks with the threshold, and a tree of
    a set, applied to a subset, costs no more (costs are nonnegative; its empty
    leaves could only be merged away, saving lambda).  So for thresholds a < t < b
    of one column, R(L_t) >= R(L_a) and R(R_t) >= R(R_b): every root split
    strictly between two valued ones has R(t) >= lb(L_a) + lb(R_b) (the interval
    bound).  And rows D crossing from the right side to the left lower R(R) by
    at most worst(D), their cost each at its class's largest (the smaller set's
    optimal tree, applied to it plus D, costs at most that more), so also
    R(t) >= lb(a) - worst(rows between a and t), and likewise from b (the
    neighbour bound).  Each column's first and last thresholds are valued; an
    interval whose bounds put it above min(B, incumbent) is set aside with that
    bound, any other is split at its middle threshold, which is valued.

    Valuing a root split: at depth two, R(L, 1) and R(R, 1) exactly, in one pass
    over the node's rows per column (`_depth_one_sides`, `_depth_one_sides2`):
    about m * columns steps, where the pair stage spends nw words on every pair
    of splits.  Deeper, its children are stored and searched (`_sweep_begin`)
    within min(B, incumbent) plus the worst cost of the rows to the interval's
    farther end: a split proved above that puts the whole interval above the
    cap by the neighbour bound.  On columns of many thresholds (continuous
    features) this is far cheaper than the candidate loop, which values every
    root split.

    Columns are those of the frame's candidate splits (a superset of X's valid
    splits: a column with none has no split useful at X, see `solve`); every
    threshold of such a column at a change of rank in X is a root split here."""
    cdef Sorted* d = &r.d
    cdef double wh, cap, B = r.B
    cdef int ret
    cdef int32_t* rank
    while True:
        if r.phase == P_COLUMN:
            if r.ui >= d.ncu:
                break
            check_limits(c)
            if c.lim.stop:
                break
            if not _sorted_column(c, r):
                r.ui += 1
                continue
            r.phase = P_PICK
        if r.phase == P_PICK:
            if not _sorted_pick(c, r, &wh):
                r.ui += 1
                r.phase = P_COLUMN
                continue
            rank = d.rank + <int64_t> r.u * r.m
            r.s = c.sp.col_start[d.cols[r.u]] + rank[d.tpos[r.jm]]
            if r.two:
                check_limits(c)    # a valuation may take long on a large node
                if c.lim.stop:
                    break
                _depth_two_value(c, d, d.order + <int64_t> r.u * r.m, r.ntot,
                                 d.tpos[r.jm] + 1, r.v2, r.s2)
                r.ret = 1
                _sorted_record(c, r)
                continue
            cap = B if B < r.best else r.best
            r.sweep_cap = cap + wh
            ret = _sweep_begin(c, r)
            if ret == 2:
                return 2
            if ret < 0:
                break
            _sweep_end(c, r)
            _sorted_record(c, r)
            continue
        if r.phase == P_FIRST:
            if c.lim.stop:
                break
            if (c.memo.nodes[r.first].solved
                    and c.memo.nodes[r.first].ub <= r.bl + TOL):
                r.phase = P_SECOND
                r.child = r.second
                r.child_B = r.sweep_cap - c.memo.nodes[r.first].ub
                return 2
            _sweep_end(c, r)
            _sorted_record(c, r)
            r.phase = P_PICK
            continue
        if r.phase == P_SECOND:
            if c.lim.stop:
                break
            _sweep_end(c, r)
            _sorted_record(c, r)
            r.phase = P_PICK
            continue
    return _sorted_finish(c, r)


cdef int _sorted_finish(Ctx* c, SortedRun* r) noexcept nogil:
    """The end of a sorted-column search: the best depth-two tree realised, the
    node's bound raised to the least over its root splits (unless stopped).
    Returns 1."""
    cdef bint stopped = c.lim.stop != RUNNING
    cdef node_t chl, chr = -1
    cdef Node* nd
    cdef double v
    free(r.perm)
    free(r.key)
    free(r.ends)
    r.perm = NULL
    r.key = NULL
    r.ends = NULL
    _sorted_free(&r.d)
    memset(&r.d, 0, sizeof(Sorted))
    if r.arg1 >= 0:
        # (ii) a real tree: root split arg1 over the sides' trees, stored with their
        # grandchildren so that extraction rebuilds it.
        chl = _realise_depth_one(c, r.nid, r.X, r.arg1, 0, r.argL, r.vL, r.T)
        if chl >= 0:
            chr = _realise_depth_one(c, r.nid, r.X, r.arg1, 1, r.argR, r.vR, r.T)
        if chl < 0 or chr < 0:
            free(r.T)
            r.T = NULL
            return 1
        nd = &c.memo.nodes[r.nid]
        v = c.memo.nodes[chl].ub + c.memo.nodes[chr].ub
        if v < nd.ub:
            nd.ub = v
            nd.best_split = r.arg1
    free(r.T)
    r.T = NULL
    if stopped:
        return 1     # a stop: the incumbent is recorded, no bound is claimed
    nd = &c.memo.nodes[r.nid]
    # R(X, d) >= min(leaf, every root split's value or bound) = lbmin: every root
    # split of X is on a column of the candidates and was valued or set aside
    # (by `interval_bound` or `neighbour_bound`).
    raise_bound(nd, r.lbmin)
    settle(nd)
    return 1


