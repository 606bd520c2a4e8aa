"""DPDT's tests generating function: the test nodes of a CART tree grown natively
on a state's rows (depth first to depth K, or best first to 2**K leaves as
sklearn's max_leaf_nodes grows it), every split of a state, and the last level's
least-loss split.

# Notes:
# - A state's rows are p lists sorted by value rank (ties by row index); CART
#   partitions a copy of them stably (`_partition`), so a state costs O(K m p).
# - Two values of CART's criterion closer than TIE_TOL (relative) are a tie,
#   broken by the fixed order (first column, then first threshold), never by
#   rounding or row order, so the tests match sklearn's CART on the same data.
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from ._typedefs cimport INF
from ._limits cimport fst_now
from ._rowpass cimport DSpace, column_pass

# Two values of CART's criterion closer than this (relative) are a tie, broken by
# the fixed order (first column, then first threshold), not by rounding.
cdef double TIE_TOL = 1e-12


cdef int rows_pass_init(Rows* R, int n_threads) noexcept nogil:
    """Fill R.ps (the depth-one pass's view of the costs: a unit cost counts
    whole rows only without weights) and allocate the gather buffers of
    n_threads scans; R's cost, mincost, y, w and K are set.  Returns -1 when
    out of memory."""
    cdef int K = R.K, c, k
    cdef int64_t n = R.n
    R.maxcost = <double*> malloc(K * sizeof(double) + 8)
    R.gi = <int32_t*> malloc(n_threads * 3 * n * sizeof(int32_t) + 4)
    R.gw = <double*> malloc(n_threads * n * sizeof(double) + 8) if R.weighted else NULL
    R.gc = <int64_t*> malloc(n_threads * 5 * K * sizeof(int64_t) + 8)
    if R.maxcost == NULL or R.gi == NULL or R.gc == NULL or (R.weighted and R.gw == NULL):
        return -1
    for c in range(K):
        R.maxcost[c] = R.cost[c * K]
        for k in range(K):
            if R.cost[c * K + k] > R.maxcost[c]:
                R.maxcost[c] = R.cost[c * K + k]
    memset(&R.ps, 0, sizeof(DSpace))
    R.ps.n = R.n
    R.ps.p = R.p
    R.ps.K = K
    R.ps.cost = R.cost
    R.ps.maxcost = R.maxcost
    R.ps.mincost = R.mincost
    R.ps.unit = 1.0 if (R.unit_cost and not R.weighted) else 0.0
    return 0


cdef void rows_pass_free(Rows* R) noexcept nogil:
    free(R.maxcost)
    free(R.gi)
    free(R.gw)
    free(R.gc)
    R.gc = NULL
    R.maxcost = NULL
    R.gi = NULL
    R.gw = NULL


cdef void rows_column_scan(const Rows* R, const int32_t* lst, const int32_t* rnk, int64_t m,
                           const uint8_t* side, const int* need, const double* tot,
                           double* scratch, int tid, double* res) noexcept nogil:
    """The depth-one pass of one column over weighted rows, the one DPDT's
    generator and its last levels use: rows `lst` (m of them, in the column's
    order; `rnk` the column's ranks), each on side side[r] (NULL: all on side 0),
    a side scanned when need[s] == 1, tot its class sums (K a side).  Per side,
    the first least-loss split of the column (summed leaf losses): res[s * (3 +
    K)] found (1.0) or not, then its loss and its rank threshold (the rank of the
    last row sent left); its left class sums are `rows_left_sums`'.  The rows are gathered in the
    column's order (thread tid's buffers) and valued by the engine's pass
    (`_rowpass.column_pass`, no price of a leaf and no rule).  scratch: 3 K."""
    cdef int K = R.K, sd
    cdef int64_t i
    cdef int32_t r
    cdef int32_t* rk = R.gi + <int64_t> tid * 3 * R.n
    cdef int32_t* yk = rk + R.n
    cdef int32_t* sk = yk + R.n
    cdef double* wk = R.gw + <int64_t> tid * R.n if R.weighted else NULL
    cdef int64_t ntot[2]
    cdef double best[2]
    cdef double lowest[2]
    cdef int32_t arg[2]
    cdef double* rs
    ntot[0] = 0
    ntot[1] = 0
    for i in range(m):
        r = lst[i]
        rk[i] = rnk[r]
        yk[i] = R.y[r]
        sd = 0 if side == NULL else side[r]
        sk[i] = sd
        ntot[sd] += 1
        if wk != NULL:
            wk[i] = R.w[r]
    for sd in range(2):
        best[sd] = INF
        lowest[sd] = -INF
        arg[sd] = -1
        if need[sd] != 1:
            ntot[sd] = 0        # not scanned
    column_pass(&R.ps, rk, yk, wk, sk if side != NULL else NULL, 1, <int> m,
                2 if side != NULL else 1, tot, ntot, lowest, 0, scratch,
                R.gc + <int64_t> tid * 5 * K, best, arg, NULL)
    for sd in range(2):
        rs = res + sd * (3 + K)
        rs[0] = 0.0
        if arg[sd] < 0:
            continue
        rs[0] = 1.0
        rs[1] = best[sd]
        rs[2] = arg[sd]


cdef void rows_left_sums(const Rows* R, const int32_t* lst, const int32_t* rnk, int64_t m,
                         const uint8_t* side, int sd, int32_t t, double* out) noexcept nogil:
    """The class sums of the rows `lst` on side sd (side NULL: all) whose rank
    `rnk` is at most t: the left leaf of a split `rows_column_scan` found."""
    cdef int64_t i
    cdef int32_t r
    memset(out, 0, R.K * sizeof(double))
    for i in range(m):
        r = lst[i]
        if (side == NULL or side[r] == sd) and rnk[r] <= t:
            out[R.y[r]] += rows_wt(R, r)


cdef int rows_best_split(Rows* R, const int32_t* L, int64_t m, int32_t* out_f,
                    int32_t* out_t, double* out_v) noexcept nogil:
    """Least summed leaf loss split of the rows in lists L (p lists of m rows),
    for a last-level root (max_depth 1): `rows_column_scan` on each column, the
    first least kept.  Returns 0 when no column separates the rows.  Ties: first
    column, then first threshold."""
    cdef int K = R.K
    cdef double* tot = R.counts
    cdef double* scratch = R.counts + K
    cdef double* res = R.counts + 4 * K
    cdef int j, found = 0
    cdef int need[2]
    cdef int64_t i
    cdef double best = 0.0
    need[0] = 1
    need[1] = 0
    memset(tot, 0, K * sizeof(double))
    for i in range(m):
        tot[R.y[L[i]]] += rows_wt(R, L[i])
    for j in range(R.p):
        rows_column_scan(R, L + <int64_t> j * m, R.rank + <int64_t> j * R.n, m, NULL, need,
                         tot, scratch, 0, res)
        if res[0] != 0.0 and (not found or res[1] < best):
            found = 1
            best = res[1]
            out_f[0] = j
            out_t[0] = <int32_t> res[2]
    out_v[0] = best
    return found

cdef inline bint _past(double deadline) noexcept nogil:
    """Whether `deadline` (fst_now() seconds, < 0: none) has passed."""
    return deadline >= 0 and fst_now() >= deadline


cdef int cart_grow(Rows* R, int64_t start, int64_t end, int64_t m, int depth, int kmax,
              int32_t* tests, int64_t* n_tests, double deadline) noexcept nogil:
    """Grow CART (depth kmax) on rows cs[j*m + start : j*m + end] of every
    column j and add its test nodes to tests (no duplicates).  Past `deadline`
    (< 0: none) no node is split further: the tests added so far are CART's
    tests of a smaller tree."""
    cdef int32_t f = 0, t = 0
    cdef double v = 0.0, imp = 0.0
    cdef int64_t nl
    if depth >= kmax or end - start < 2 or _past(deadline):
        return 0
    # the best split of this CART node: scan each column's segment
    if not _best_split_segment(R, start, end, m, &f, &t, &v, &imp):
        return 0
    _add_test(f, t, tests, n_tests)
    if depth + 1 >= kmax:
        return 0
    nl = _partition(R, start, end, m, f, t)
    cart_grow(R, start, start + nl, m, depth + 1, kmax, tests, n_tests, deadline)
    cart_grow(R, start + nl, end, m, depth + 1, kmax, tests, n_tests, deadline)
    return 0

cdef int64_t _partition(Rows* R, int64_t start, int64_t end, int64_t m, int32_t f,
                        int32_t t) noexcept nogil:
    """Stable partition of every column's segment [start, end) of cs: rows with
    rank[f] <= t first.  Returns their count."""
    cdef const int32_t* rf = R.rank + <int64_t> f * R.n
    cdef int64_t i, nl = 0, pos
    cdef int j
    cdef int32_t r
    cdef int32_t* seg
    for j in range(R.p):
        seg = R.cs + <int64_t> j * m
        nl = 0
        pos = 0
        for i in range(start, end):
            r = seg[i]
            if rf[r] <= t:
                seg[start + nl] = r
                nl += 1
            else:
                R.ctmp[pos] = r
                pos += 1
        memcpy(seg + start + nl, R.ctmp, pos * sizeof(int32_t))
    return nl

cdef int cart_best_first(Rows* R, int64_t m, int kmax, int32_t* tests,
                    int64_t* n_tests, double deadline) noexcept nogil:
    """Grow CART best first to 2^kmax leaves (sklearn's max_leaf_nodes growth:
    always split the leaf whose split decreases the weighted impurity most)
    on the rows in cs and add its test nodes to tests (no duplicates).  Past
    `deadline` (< 0: none) it stops growing, as `cart_grow`."""
    cdef int64_t cap = (<int64_t> 1 << kmax) + 1
    cdef int64_t* fs = <int64_t*> malloc(2 * cap * sizeof(int64_t))
    cdef int32_t* ff = <int32_t*> malloc(2 * cap * sizeof(int32_t))
    cdef double* gain = <double*> malloc(cap * sizeof(double))
    cdef int64_t n_front = 0, splits = 0, i, k, best, s0, e0, nl
    cdef double v, imp
    cdef int32_t f, t
    if fs == NULL or ff == NULL or gain == NULL:
        free(fs)
        free(ff)
        free(gain)
        return -1
    # frontier: segment [fs[2i], fs[2i+1]), its split ff[2i], ff[2i+1] and gain
    # (gain < 0: no split)
    fs[0] = 0
    fs[1] = m
    gain[0] = -1.0
    if m >= 2 and _best_split_segment(R, 0, m, m, &f, &t, &v, &imp):
        ff[0] = f
        ff[1] = t
        gain[0] = imp - v if imp > v else 0.0
    n_front = 1
    while splits < (<int64_t> 1 << kmax) - 1 and not _past(deadline):
        best = -1
        for i in range(n_front):
            if gain[i] >= 0 and (best < 0 or gain[i] > gain[best]):
                best = i
        if best < 0:
            break
        f = ff[2 * best]
        t = ff[2 * best + 1]
        _add_test(f, t, tests, n_tests)
        splits += 1
        s0 = fs[2 * best]
        e0 = fs[2 * best + 1]
        nl = _partition(R, s0, e0, m, f, t)
        # the node becomes its left child; its right child is appended
        fs[2 * best + 1] = s0 + nl
        fs[2 * n_front] = s0 + nl
        fs[2 * n_front + 1] = e0
        n_front += 1
        for k in range(2):
            i = best if k == 0 else n_front - 1
            gain[i] = -1.0
            if (fs[2 * i + 1] - fs[2 * i] >= 2 and _best_split_segment(R, 
                    fs[2 * i], fs[2 * i + 1], m, &f, &t, &v, &imp)):
                ff[2 * i] = f
                ff[2 * i + 1] = t
                # a split that does not lower the impurity is still allowed
                # (as in sklearn); rounding must not make it "no split"
                gain[i] = imp - v if imp > v else 0.0
    free(fs)
    free(ff)
    free(gain)
    return 0

cdef int _best_split_segment(Rows* R, int64_t start, int64_t end, int64_t m,
                             int32_t* out_f, int32_t* out_t,
                             double* out_v, double* node_imp) noexcept nogil:
    """CART's split of the rows cs[j*m + start : j*m + end]; 0 if none
    (pure node, or every column constant).  node_imp: rows * impurity."""
    cdef double* tot = R.counts
    cdef int64_t i
    cdef int c, nz = 0
    cdef double tw = 0.0
    memset(tot, 0, R.K * sizeof(double))
    for i in range(start, end):
        tot[R.y[R.cs[i]]] += rows_wt(R, R.cs[i])
    for c in range(R.K):
        tw += tot[c]
        if tot[c] > 0 and (R.cw == NULL or R.cw[c] > 0):
            nz += 1
    if nz < 2:
        return 0  # pure (with class weights: of positive weight): CART's leaf
    node_imp[0] = rows_impurity(R, tot, tw)
    return _scan_segment(R, start, end, m, tw, out_f, out_t, out_v)

cdef int _scan_segment(Rows* R, int64_t start, int64_t end, int64_t m, double tw,
                       int32_t* out_f, int32_t* out_t, double* out_v) noexcept nogil:
    """CART's least weighted impurity split of the segment (tw: its rows'
    total weight, the sum of the class counts in R.counts)."""
    cdef double* tot = R.counts
    cdef double* left = R.counts + R.K
    cdef double* right = R.counts + 2 * R.K
    cdef int j, c, found = 0
    cdef int64_t i, cnt = end - start
    cdef int32_t r, rk
    cdef const int32_t* lst
    cdef const int32_t* rnk
    cdef double v, nl, best = 0.0
    for j in range(R.p):
        lst = R.cs + <int64_t> j * m + start
        rnk = R.rank + <int64_t> j * R.n
        if rnk[lst[0]] == rnk[lst[cnt - 1]]:
            continue
        memset(left, 0, R.K * sizeof(double))
        nl = 0.0
        for i in range(cnt - 1):
            r = lst[i]
            left[R.y[r]] += rows_wt(R, r)
            nl += rows_wt(R, r)
            rk = rnk[r]
            if rk == rnk[lst[i + 1]]:
                continue
            for c in range(R.K):
                right[c] = tot[c] - left[c]
            v = rows_impurity(R, left, nl) + rows_impurity(R, right, tw - nl)
            if not found or v < best - TIE_TOL * (best + 1.0):
                found = 1
                best = v
                out_f[0] = j
                out_t[0] = rk
    out_v[0] = best
    return found

cdef void _add_test(int32_t f, int32_t t, int32_t* tests,
                    int64_t* n_tests) noexcept nogil:
    """Append test (f, t) unless it is there already."""
    cdef int64_t k
    for k in range(n_tests[0]):
        if tests[2 * k] == f and tests[2 * k + 1] == t:
            return
    tests[2 * n_tests[0]] = f
    tests[2 * n_tests[0] + 1] = t
    n_tests[0] += 1


cdef int64_t cart_all_tests(Rows* R, const int32_t* L, int64_t m, int32_t* tests) noexcept nogil:
    """Every split that separates the rows in lists L."""
    cdef int64_t i, n_t = 0
    cdef int j
    cdef const int32_t* lst
    cdef const int32_t* rnk
    for j in range(R.p):
        lst = L + <int64_t> j * m
        rnk = R.rank + <int64_t> j * R.n
        for i in range(m - 1):
            if rnk[lst[i]] != rnk[lst[i + 1]]:
                tests[2 * n_t] = j
                tests[2 * n_t + 1] = rnk[lst[i]]
                n_t += 1
    return n_t
