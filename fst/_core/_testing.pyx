"""Test hooks: the kernels of the core called on given arrays, so the tests can
compare every loop against a naive reference written for the test, and every
vector loop against the scalar one.  Not used by the estimators.

Each hook takes `simd`, the vector loops asked for (-1 the best the CPU has, 0
scalar, 1 AVX-512, 2 AVX2; a choice the CPU lacks runs scalar), as a fit's
configuration does.
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint64_t, INF
from ._bitset cimport bs_count, bs_and, bs_andnot, bs_hash, bs_hash_key, bs_hash_linear, bs_set
from ._memo cimport Node
from ._problem cimport space_init, split_row, unit_cost
from ._problem import distinct_columns
from ._config cimport (RULE_CAPACITY, RULE_PEEL3, RULE_ALL, RULE_EXCHANGE,
                       STRATEGY_CLASS_PREFIX)
from ._context cimport Ctx
from ._nodes cimport class_counts, marked_rows, scan_counts, fill_sides, node_fill
from ._rowpass cimport (DSpace, _column_pass_unit_one, _column_pass_unit2,
                       _column_pass_squares, _column_pass_squares_one, NoWeights,
                       _column_pass_cost2_one,
                       column_pass)
from ._squares cimport segment_bound
from ._depth cimport share_look, SHARE_WAIT, SHARE_STOP, SHARE_RUN_ON
from ._pair_counts cimport pair_counts
from ._pair_values cimport pair_values
from ._simd cimport (fst_simd_resolve, fst_simd_mode, fst_and_count, fst_compact_ok,
                     fst_compact_plan, fst_compact_at, fst_side_rows, fst_sides_rows)

cnp.import_array()


def simd_choice(int simd=-1):
    """The loops a fit asking for `simd` gets on this CPU: 0 scalar, 1 AVX-512,
    2 AVX2."""
    return int(fst_simd_mode(fst_simd_resolve(simd)))


def compaction_available():
    """Whether pair stages can compact their node's rows on this CPU (BMI2)."""
    return bool(fst_compact_ok(fst_simd_resolve(0)))


def pair_counts_for_tests(const word_t[:, ::1] XS, const int32_t[::1] rows, int K,
                          const word_t[:, ::1] XC, int n_threads, int nb0=-1, int simd=-1):
    """`pair_counts` on given bitsets; returns the n_rows x m x K counts.  nb0 >= 0
    (two classes): class 0 is the bits below nb0, and XC must be those bits."""
    cdef int m = XS.shape[0]
    cdef int nw = XS.shape[1]
    cdef int n_rows = rows.shape[0]
    cdef int vec = fst_simd_resolve(simd)
    if XC.shape[0] < K - 1 or XC.shape[1] != nw:
        raise ValueError("XC must hold K - 1 bitsets of the same width as XS")
    for r in range(n_rows):
        if not 0 <= rows[r] < m:
            raise ValueError("rows must index the splits of XS")
    if K == 2 and nb0 >= 0:
        bits = np.zeros(nw * 64, dtype=bool)
        bits[:nb0] = True
        if not np.array_equal(np.asarray(XC[0]),
                              np.packbits(bits, bitorder="little").view("<u8")):
            raise ValueError("with nb0, XC must hold the bits below nb0")
    out = np.zeros((n_rows, m, K), dtype=np.int32)
    cdef int32_t[:, :, ::1] o = out
    with nogil:
        pair_counts(vec, &XS[0, 0], &rows[0], n_rows, m, K, &XC[0, 0], nw, &o[0, 0, 0],
                    n_threads, nb0 if K == 2 else -1)
    return out


def pair_values_for_tests(const int32_t[:, ::1] A, const double[:, ::1] cl, bint right,
                          const double[::1] cc, const double[:, ::1] cost,
                          const double[::1] potc, double lam, bint three_leaf=False,
                          int simd=-1):
    """The values of one row of pair counts (`_pair_values.pair_values`) for K
    classes, with the leaf-capacity rule at `lam` (off when lam is 0); A is m x K
    (classes 0..K-2, then the total), cl is m x K; returns (best2, peel, arg).
    With three_leaf, peel is the three-leaf bound the search stores (RULE_PEEL3)
    instead of the cheapest peel."""
    cdef Ctx c
    cdef double b2 = 0.0, pl = 0.0
    cdef int arg = -2
    cdef int m = A.shape[0]
    cdef int K = A.shape[1]
    cdef int j, k
    cdef int32_t[::1] cli = np.zeros(K * m + 1, dtype=np.int32)
    if (K < 2 or K > 64 or cl.shape[0] != m or cl.shape[1] != K or cc.shape[0] != K
            or cost.shape[0] != K or cost.shape[1] != K or potc.shape[0] != K):
        raise ValueError("K classes (2 to 64): A and cl are m x K, cc and potc have K "
                         "entries, cost is K x K")
    memset(&c, 0, sizeof(Ctx))
    c.sp.K = K
    c.sp.cost = &cost[0, 0]
    cdef const int32_t[::1] pcols = distinct_columns(cost)
    c.sp.pcols = &pcols[0]
    c.sp.n_pcols = pcols.shape[0]
    c.sp.potc = &potc[0]
    c.cfg.lam = lam
    c.cfg.rules = RULE_CAPACITY if lam > 0 else 0
    c.sp.unit = unit_cost(c.sp.cost, c.sp.potc, K)
    c.vec = fst_simd_resolve(simd)
    for j in range(m):
        for k in range(K):
            if k < K - 1:
                cli[j * K + k] = <int32_t> cl[j, k]
            cli[j * K + K - 1] += <int32_t> cl[j, k]
    cdef double[::1] maxcost = np.max(np.asarray(cost), axis=1)
    c.sp.maxcost = &maxcost[0]
    if three_leaf:
        c.cfg.rules |= RULE_PEEL3
    with nogil:
        pair_values(&c, &cc[0], &A[0, 0], m, &cl[0, 0], &cli[0], right, &b2, &pl, &arg)
    return b2, pl, arg


def compact_for_tests(const word_t[::1] src, const word_t[::1] X):
    """`fst_compact_plan` and `fst_compact_at`: the bits of src at the rows of X,
    renumbered 0 .. |X| - 1 (None where the CPU lacks BMI2)."""
    cdef int nw = X.shape[0]
    cdef int nwc = <int> ((bs_count(&X[0], nw) + 63) // 64)
    cdef int nnz
    out = np.full(max(nwc, 1), 0xFFFF, dtype=np.uint64)   # not zero: the tail is written
    words = np.zeros(nw + 1, dtype=np.int32)
    counts = np.zeros(nw + 1, dtype=np.int32)
    cdef word_t[::1] o = out
    cdef int32_t[::1] zw = words
    cdef int32_t[::1] zk = counts
    if not compaction_available():
        return None
    nnz = fst_compact_plan(&X[0], nw, &zw[0], &zk[0])
    fst_compact_at(&src[0], &X[0], &zw[0], &zk[0], nnz, &o[0], nwc)
    return out[:nwc]


def and_count_for_tests(const word_t[::1] X, const word_t[::1] S, int simd=-1):
    """`fst_and_count`: the rows of X & S."""
    if X.shape[0] != S.shape[0] or X.shape[0] < 1:
        raise ValueError("X and S must be bitsets of the same positive width")
    return fst_and_count(fst_simd_resolve(simd), &X[0], &S[0], <int> X.shape[0])


def scan_matches_node_fill(problem, double regularization, int64_t seed, int trials,
                           int simd=-1):
    """On random row sets X and splits S, the children's records from
    `scan_counts` then `fill_sides`, as `gather_valid` takes them (the linear hash
    of the right side by difference, the fused counts and excess), equal the
    records `node_fill` computes from the rows.  Returns the number of
    mismatching records."""
    cdef Ctx c
    cdef int nw, i
    cdef Node L, R, F
    cdef int bad = 0, t, side
    cdef int64_t total, nl
    cdef uint64_t hl
    cdef double exl, exr
    cdef const word_t* S
    memset(&c, 0, sizeof(Ctx))
    pcols = distinct_columns(problem.cost)
    space_init(&c.sp, problem, pcols, True)
    nw = c.sp.nw
    c.cfg.lam = regularization
    c.cfg.rules = RULE_ALL
    c.cfg.max_depth = -1
    c.vec = fst_simd_resolve(simd)
    scratch = np.zeros(3 * c.sp.K, dtype=np.float64)
    icnt = np.zeros(c.sp.K, dtype=np.int64)
    hkey = np.array([bs_hash_key(i) for i in range(2 * nw)], dtype=np.uint64)
    cdef double[::1] scratch_v = scratch
    cdef int64_t[::1] icnt_v = icnt
    cdef uint64_t[::1] hkey_v = hkey
    c.cnt_scratch = &scratch_v[0]
    c.icnt = &icnt_v[0]
    c.hkey = &hkey_v[0]
    cdef cnp.ndarray[word_t, ndim=1] X = np.zeros(nw, dtype=np.uint64)
    cdef cnp.ndarray[word_t, ndim=1] T = np.zeros(nw, dtype=np.uint64)
    cdef double[::1] cnt = np.zeros(c.sp.K)
    cdef double[::1] cl = np.zeros(c.sp.K)
    cdef double[::1] cr = np.zeros(c.sp.K)
    rng = np.random.default_rng(seed)
    for t in range(trials):
        rows = rng.random(c.sp.n) < rng.uniform(0.1, 0.9)
        X[:] = 0
        for i in np.flatnonzero(rows):
            bs_set(&X[0], i)
        total = bs_count(&X[0], nw)
        class_counts(&c, &X[0], total, &cnt[0])
        S = split_row(&c.sp, int(rng.integers(c.sp.n_splits)))
        nl = scan_counts(&c, &X[0], marked_rows(&c, &X[0]), S, &cnt[0], &cl[0], &cr[0],
                         &hl, &exl, &exr)
        fill_sides(&c, bs_hash_linear(&X[0], nw), hl, exl, exr, &cl[0], &cr[0], nl, total,
                   3, &L, &R)
        for side in range(2):
            if side == 0:
                bs_and(&T[0], &X[0], S, nw)
            else:
                bs_andnot(&T[0], &X[0], S, nw)
            node_fill(&c, &F, &T[0], 3)
            F.hash = bs_hash(&T[0], nw, 3)
            G = L if side == 0 else R
            if (G.hash != F.hash or G.count != F.count or G.lb != F.lb or G.leaf != F.leaf
                    or G.pot != F.pot or G.solved != F.solved):
                bad += 1
    return bad


def segment_bound_for_tests(double[::1] target, weight, int kmax, double lam):
    """`_squares.segment_bound` of all the rows of `target` (weights `weight`, None:
    each 1) under kmax leaves and lam a leaf."""
    cdef DSpace sp
    cdef int m = target.shape[0]
    cdef double[::1] w
    cdef cnp.ndarray[int32_t, ndim=1] rows = np.arange(m, dtype=np.int32)
    cdef double* buf = <double*> malloc((8 * m + 8) * sizeof(double))
    cdef double v
    if buf == NULL:
        raise MemoryError()
    memset(&sp, 0, sizeof(DSpace))
    sp.target = &target[0]
    sp.lam = lam
    if weight is not None:
        w = np.ascontiguousarray(weight, dtype=np.float64)
        sp.w = &w[0]
    v = segment_bound(&sp, buf, &rows[0], m, kmax)
    free(buf)
    return v


def share_look_for_tests(double t0, double now, double end, int closed, int p):
    """`_depth.share_look`: 'wait', 'stop' or 'run on'."""
    return {SHARE_WAIT: "wait", SHARE_STOP: "stop",
            SHARE_RUN_ON: "run on"}[share_look(t0, now, end, closed, p)]


cdef const double* _data_or_null(a):
    """The data of a contiguous float64 array (its owner keeps it), NULL for
    None."""
    cdef const double[::1] v
    if a is None:
        return NULL
    v = a
    return &v[0]


cdef struct _SidePass:
    # one side's pass in a test: the side's rows, the lowest value, whether
    # each side is done, and each pass's best and split (b1, a1: the loop
    # under test; b2, a2: the loop it must match), side 1 empty
    int64_t nt[2]
    double low[2]
    bint done[2]
    double b1[2]
    double b2[2]
    int32_t a1[2]
    int32_t a2[2]


cdef void _side_pass_start(_SidePass* q, int m, double start, double lowest) noexcept:
    q.nt[0] = m
    q.nt[1] = 0
    q.low[0] = lowest
    q.low[1] = -INF
    q.done[0] = False
    q.done[1] = True
    q.b1[0] = start
    q.b2[0] = start
    q.b1[1] = INF
    q.b2[1] = INF
    q.a1[0] = -1
    q.a2[0] = -1
    q.a1[1] = -1
    q.a2[1] = -1


def side_pass_for_tests(const int32_t[::1] rk, const int32_t[::1] yk, double lam,
                        double unit, double start, double lowest, bint exchange,
                        double sup_lam=0.0):
    """One side's depth-one pass over rows in a column's order (rk their ranks,
    yk their classes 0 or 1) under a unit cost: (best, arg) of the pass a side
    alone takes (`_column_pass_unit_one`) and of the general two-class loop
    (`_column_pass_unit2`), each started from `start` (the side's leaf or a
    budget below it); sup_lam > 0: a split needs that support on each side."""
    cdef DSpace sp
    cdef _SidePass q
    cdef int m = rk.shape[0]
    cdef double tot[2]
    cdef int i
    memset(&sp, 0, sizeof(DSpace))
    sp.K = 2
    sp.unit = unit
    sp.lam = lam
    sp.rules = RULE_EXCHANGE if exchange else 0
    sp.min_leaf = 1
    sp.sup_lam = sup_lam
    tot[0] = 0.0
    tot[1] = 0.0
    for i in range(m):
        tot[yk[i]] += 1.0
    _side_pass_start(&q, m, start, lowest)
    _column_pass_unit_one(&sp, &rk[0], &yk[0], m, tot, m, lowest, 7, q.b1, q.a1)
    _column_pass_unit2(&sp, &rk[0], &yk[0], NULL, 0, m, 1, tot, q.nt, q.low, 7, q.done,
                       q.b2, q.a2, NULL)
    return (q.b1[0], int(q.a1[0])), (q.b2[0], int(q.a2[0]))


def squares_side_pass_for_tests(const int32_t[::1] rk, const double[::1] z, double lam,
                                double start, double lowest, weights=None):
    """One side's depth-one pass under squared error over rows in a column's
    order (rk their ranks, z their targets, of `weights` or each of weight 1):
    (best, arg) of the pass a side alone takes (`_column_pass_squares_one`) and
    of the general loop (`_column_pass_squares`, one side), each started from
    `start`."""
    cdef DSpace sp
    cdef _SidePass q
    cdef int m = rk.shape[0]
    cdef int i
    cdef double w
    cdef double tot[6]
    yk = np.arange(m, dtype=np.int32)
    cdef int32_t[::1] yv = yk
    wa = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    cdef const double* wp = _data_or_null(wa)
    memset(&sp, 0, sizeof(DSpace))
    sp.K = 1
    sp.lam = lam
    sp.min_leaf = 1
    sp.target = &z[0]
    for i in range(6):
        tot[i] = 0.0
    for i in range(m):
        w = 1.0 if wp == NULL else wp[i]
        tot[0] += w
        tot[1] += w * z[i]
        tot[2] += w * z[i] * z[i]
    _side_pass_start(&q, m, start, lowest)
    if wp == NULL:
        _column_pass_squares_one(&sp, &rk[0], &yv[0], <const NoWeights*> NULL, m, tot,
                                 lowest, 7, q.b1, q.a1)
    else:
        _column_pass_squares_one(&sp, &rk[0], &yv[0], wp, m, tot, lowest, 7, q.b1, q.a1)
    _column_pass_squares(&sp, &rk[0], &yv[0], wp, NULL, 0, m, 1, tot, q.nt, q.low, 7, q.done,
                         q.b2, q.a2, NULL)
    return (q.b1[0], int(q.a1[0])), (q.b2[0], int(q.a2[0]))


def cost2_side_pass_for_tests(const int32_t[::1] rk, const int32_t[::1] yk,
                              const double[::1] cost, double lam, double start,
                              double lowest, bint exchange, double sup_lam=0.0,
                              weights=None):
    """One side's depth-one pass of two classes under a cost matrix (`cost`, 2 x 2
    row-major, no unit cost), rows in a column's order (rk their ranks, yk their
    classes, of `weights` or each of weight 1, a row's potential its weight
    times its class's spread of costs): (best, arg) of the pass a side alone
    takes (`_column_pass_cost2_one`, compiled for each) and of `column_pass`'s
    general loop (the same rows as side 0 of two, side 1 empty), each started
    from `start`."""
    cdef DSpace sp
    cdef _SidePass q
    cdef int m = rk.shape[0]
    cdef int i, k
    cdef double tot[4]
    cdef double maxc[2]
    cdef double minc[2]
    cdef double ic[16]
    cdef int64_t wc[16]
    cdef double wmax = 0.0
    pos = np.zeros(m, dtype=np.int32)
    cdef int32_t[::1] pv = pos
    wa = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    cdef const double* wp = _data_or_null(wa)
    memset(&sp, 0, sizeof(DSpace))
    sp.K = 2
    sp.unit = 0.0
    sp.lam = lam
    sp.rules = RULE_EXCHANGE if exchange else 0
    sp.min_leaf = 1
    sp.sup_lam = sup_lam
    sp.cost = &cost[0]
    sp.pmax = 0.0
    for k in range(2):
        maxc[k] = cost[2 * k] if cost[2 * k] > cost[2 * k + 1] else cost[2 * k + 1]
        minc[k] = cost[2 * k] if cost[2 * k] < cost[2 * k + 1] else cost[2 * k + 1]
        if maxc[k] - minc[k] > sp.pmax:
            sp.pmax = maxc[k] - minc[k]
    sp.maxcost = maxc
    sp.mincost = minc
    for k in range(4):
        tot[k] = 0.0
    if wp != NULL:
        for i in range(m):
            if wp[i] * sp.pmax > wmax:
                wmax = wp[i] * sp.pmax
        sp.pmax = wmax
    for i in range(m):
        tot[yk[i]] += 1.0 if wp == NULL else wp[i]
    _side_pass_start(&q, m, start, lowest)
    if wp == NULL:
        _column_pass_cost2_one(&sp, &rk[0], &yk[0], <const NoWeights*> NULL, m, tot, m,
                               lowest, 7, q.b1, q.a1)
    else:
        _column_pass_cost2_one(&sp, &rk[0], &yk[0], wp, m, tot, m, lowest, 7, q.b1, q.a1)
    column_pass(&sp, &rk[0], &yk[0], wp, &pv[0], 1, m, 2, tot, q.nt, q.low, 7, ic, wc,
                q.b2, q.a2, NULL)
    return (q.b1[0], int(q.a1[0])), (q.b2[0], int(q.a2[0]))


def side_rows_for_tests(const int32_t[::1] rk, const int32_t[::1] yk,
                        const int32_t[::1] pos, int32_t t, int side, int simd=-1):
    """The rows of one side of a split (`fst_side_rows`: position pos below t,
    side 0, or at least t, side 1), their ranks and classes in order."""
    cdef int m = rk.shape[0]
    ork = np.zeros(m + 1, dtype=np.int32)
    oyk = np.zeros(m + 1, dtype=np.int32)
    cdef int32_t[::1] r = ork
    cdef int32_t[::1] y = oyk
    cdef int k = fst_side_rows(fst_simd_resolve(simd), &rk[0], &yk[0], &pos[0], m, t, side,
                               &r[0], &y[0])
    return ork[:k], oyk[:k]


def sides_rows_for_tests(const int32_t[::1] rk, const int32_t[::1] yk,
                         const int32_t[::1] pos, int32_t t, int simd=-1):
    """Both sides' rows of a split at once (`fst_sides_rows`): (side 0's ranks,
    classes, side 1's ranks, classes)."""
    cdef int m = rk.shape[0]
    out = np.zeros((4, m + 1), dtype=np.int32)
    cdef int32_t[:, ::1] o = out
    cdef int k = fst_sides_rows(fst_simd_resolve(simd), &rk[0], &yk[0], &pos[0], m, t,
                                &o[0, 0], &o[1, 0], &o[2, 0], &o[3, 0])
    return out[0, :k], out[1, :k], out[2, :m - k], out[3, :m - k]
