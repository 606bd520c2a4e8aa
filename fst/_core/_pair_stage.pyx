"""The row-count pair stage at a node X: for chosen valid splits (the rows of the
stage) against every valid split, the class counts of every cell, from which each
child of each chosen split gets its exact best two-leaf tree (installed as its
incumbent), its pair values g2, g3 and its bound raised to the shape bounds
(`_bounds.record_pair_values`).

# Notes:
# - Every value uses only splits valid at X: an optimal tree uses only splits
#   valid where it stands, and validity at a child implies validity at X.
# - Any subset of rows is sound: a child left out keeps its bounds.  So a cap on
#   a stage's word-work, a stage in rounds that leaves out the rows column
#   transfer already puts above the budget (`staged_pairs`), and a time limit
#   between two chunks change the work and the incumbents, never a certificate.
# - The counts (`_pair_counts`) run over X's rows compacted when that saves
#   words (`fst_compact_at`, BMI2); the counts are the same.
# - The values of a row are a pure function of its counts, computed in parallel
#   on a large stage and installed in row order, so the result does not depend
#   on the number of threads.
"""
from cython.parallel cimport prange
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t, TOL, INF
from ._bitset cimport bs_count, bs_and, bs_andnot
from ._memo cimport Node
from ._problem cimport split_row, split_row_bulk
from ._limits cimport RUNNING, STOP_TIME, STOP_MEMORY, fst_now, limits_rss
from ._config cimport RULE_TRANSFER, STRATEGY_COMPACT
from ._context cimport Ctx, Cand, cand_node
from ._bounds cimport (capacity_unit, split_bound, split_not_worth, record_pair_values,
                       transfer_two_leaf, two_leaf_transfer, column_transfer)
from ._nodes cimport class_counts, install_two_leaf, store_children
from ._pair_counts cimport pair_counts, pair_counts_xt, transposed_splits, TRANSPOSE_ROWS
from ._pair_values cimport pair_values
from ._simd cimport fst_and_counts2, fst_and_count, fst_compact_ok, fst_compact_plan, fst_compact_at


cdef void transfer_to_children(Ctx* c, Node* nd, Cand* cands, int nvalid) noexcept nogil:
    """Node X's exact two-leaf value bounds its children's two-leaf trees, less the
    other side's worst cost (`_bounds.two_leaf_transfer`, RULE_PEEL3): applied
    before the pair stage, so that a split it proves above the budget takes no
    row of the stage, and a child it proves a leaf is solved."""
    cdef double cap_unit = capacity_unit(c.cfg.rules, c.cfg.lam)
    cdef int i
    for i in range(nvalid):
        if transfer_two_leaf(cand_node(c, &cands[i], 0),
                             two_leaf_transfer(nd.g2, cands[i].worst_right),
                             c.cfg.lam, cap_unit):
            c.st.transfers += 1
        if transfer_two_leaf(cand_node(c, &cands[i], 1),
                             two_leaf_transfer(nd.g2, cands[i].worst_left),
                             c.cfg.lam, cap_unit):
            c.st.transfers += 1


cdef int expand_pairs(Ctx* c, node_t nid, const word_t* X, const double* cnt,
                      const int32_t* valid, int nvalid, Cand* cands, double B) noexcept nogil:
    """The pair stage of an expansion (RULE_PAIRS): its rows are the candidates
    within the budget whose children lack pair values, set aside by side worth
    or not, in split order, under a cap on the stage's word-work (larger at the
    root of a pass, where one complete stage gives the exact best tree of at
    most three leaves and a bound for every child).  It writes into the stored
    children and into the records of the others; an expensive stage stores its
    children.  Returns -1 on a memory stop."""
    cdef int nw = c.sp.nw
    cdef int i, k, npr, nruns, ran
    cdef int64_t maxrows
    cdef Node* L
    cdef Node* R
    cdef int32_t* prows = <int32_t*> malloc((nvalid + 1) * sizeof(int32_t))
    if prows == NULL:
        c.lim.stop = STOP_MEMORY
        return -1
    npr = 0
    for i in range(nvalid):
        L = cand_node(c, &cands[i], 0)
        R = cand_node(c, &cands[i], 1)
        if split_not_worth(c.cfg.rules, &cands[i], L, R):
            continue     # set aside by the caller; its children need no pair values
        if ((not L.pair_done and not L.solved) or (not R.pair_done and not R.solved)) \
                and L.lb + R.lb <= B + TOL:
            prows[npr] = i
            npr += 1
    if npr > 0:
        # A cell costs K - 1 AND-counts of nw words (and values over K classes),
        # so the cap counts K - 1 times the words: a stage of many classes (a
        # weighted fit has one per (class, weight) pair) stays within the time
        # the cap allows two classes.
        maxrows = ((c.cfg.pair_cap_root if c.n_frames == 1 else c.cfg.pair_cap)
                   // (<int64_t> nvalid * nw * (c.sp.K - 1) + 1) + 1)
        if npr > maxrows:
            npr = <int> maxrows
        # The work clock is charged for the whole stage even when rounds leave
        # rows out, so the schedule's switches depend on the stage, not on how
        # many rows it valued.
        c.work += <int64_t> npr * nvalid * nw
        # Rounds pay when the rows come in runs on a column (continuous
        # features), not when each column has one (binary features: there the
        # rounds could leave nothing out).
        nruns = 0
        for k in range(npr):
            if k == 0 or cands[prows[k]].col != cands[prows[k - 1]].col:
                nruns += 1
        if (npr >= c.cfg.stage_min_rows and <int64_t> c.cfg.stage_min_run * nruns <= npr
                and (c.cfg.rules & RULE_TRANSFER)):
            if staged_pairs(c, X, cnt, valid, nvalid, cands, prows, &npr, B,
                            c.memo.nodes[nid].leaf) < 0:
                free(prows)
                return -1
        else:
            ran = pair_stage(c, X, cnt, valid, nvalid, cands, prows, npr)
            if ran < 0:
                free(prows)
                return -1
            if ran == 0:
                npr = 0     # not run (`pair_open`): no children to keep
            c.st.pair_rows += npr
        if c.sp.K > 2 or <int64_t> nvalid * nw >= c.cfg.keep_pair_words:
            # An expensive stage (per child, nvalid * nw words counted, or values
            # over three or more classes) keeps its children: valuing them again
            # would cost more than storing them.
            for k in range(npr):
                if store_children(c, nid, X, &cands[prows[k]]) < 0:
                    free(prows)
                    return -1
    free(prows)
    return 0


cdef int _install_side(Ctx* c, Cand* cd, int right, const word_t* X, int32_t s,
                       double value, word_t* RW, word_t* T) noexcept nogil:
    """`install_two_leaf` on one side of a candidate of the node X (its rows
    built in RW, nw words, only then).  A side not yet stored keeps the tree in
    its record (ub, best_split): `store_record` creates its grandchildren if
    the record is ever stored, and otherwise the record is dropped with the
    candidate.  Returns -1 on a memory stop."""
    cdef node_t child = cd.right if right else cd.left
    cdef Node* rec
    if child >= 0:
        if right:
            bs_andnot(RW, X, split_row(&c.sp, cd.split), c.sp.nw)
        else:
            bs_and(RW, X, split_row(&c.sp, cd.split), c.sp.nw)
        return install_two_leaf(c, child, RW, s, value, T)
    rec = &cd.tr if right else &cd.tl
    if value < rec.ub:
        rec.ub = value      # the two leaves of split s: a real tree, built when stored
        rec.best_split = s
    return 0



cdef enum:
    PAR_VALUES_MIN = 1 << 14   # rows x splits of a chunk that pays for threads
    # A pair stage counts over the rows of its node compacted (`pair_open`) when
    # that leaves fewer than (COMPACT_SHARE - 1) / COMPACT_SHARE of the words.
    COMPACT_SHARE = 8



cdef void _pair_values_row(Ctx* c, int i, int r, const int32_t* A, int m, int K,
                           const double* cl, const int32_t* cli, const double* CR,
                           const uint8_t* NEED, double* VAL, int* ARG) noexcept nogil:
    """The pair values of row r (split position i) of a chunk of pair counts, for
    each side that needs them: VAL[4r..4r+3] and ARG[2r..2r+1]; reads only."""
    ARG[2 * r] = -1
    ARG[2 * r + 1] = -1
    if NEED[2 * r]:
        pair_values(c, cl + i * K, A + <int64_t> r * m * K, m, cl, cli, False,
                     &VAL[4 * r], &VAL[4 * r + 1], &ARG[2 * r])
    if NEED[2 * r + 1]:
        pair_values(c, CR + <int64_t> r * K, A + <int64_t> r * m * K, m, cl, cli, True,
                     &VAL[4 * r + 2], &VAL[4 * r + 3], &ARG[2 * r + 1])


cdef struct PairStage:
    # The buffers of one node's pair stage, set up once for all its rounds.
    int64_t chunk    # rows counted at once
    int nwc          # words of a row set in XS and XC: nw, or ceil(|X| / 64) when
                     # the rows of X are compacted (`fst_compact_at`)
    int nb0          # the rows of class 0 in XS are its bits below nb0 (two classes,
                     # Space.n0_prefix), or -1: they are XC
    word_t* XS       # m x nwc: X & s_j
    word_t* XT       # XS transposed (`transposed_splits`), or NULL: row kernels
    word_t* XC       # (K - 1) x nwc: X & class k
    int32_t* A       # chunk x m x K: the counts
    double* cl       # m x K: class counts of X & s_j
    int32_t* cli     # cl in whole rows (classes 0..K-2, rows), for a unit cost
    word_t* T
    word_t* RW
    double* VAL      # per row: left best2, left peel, right best2, right peel
    int* ARG         # per row: left and right best split position (-1 none)
    uint8_t* NEED    # per row: left and right lack pair values
    double* CR       # per row: the right child's class counts


cdef void pair_close(PairStage* ps) noexcept nogil:
    free(ps.XS); free(ps.XT); free(ps.XC); free(ps.A); free(ps.cl); free(ps.cli)
    free(ps.T); free(ps.RW); free(ps.VAL); free(ps.ARG); free(ps.NEED); free(ps.CR)
    memset(ps, 0, sizeof(PairStage))


cdef int64_t _stage_bytes(int m, int K, int nwc, int64_t chunk) noexcept nogil:
    """The bytes a pair stage over m valid splits of K classes in nwc words
    writes: the splits' rows (XS, and as much again transposed for the kernels
    of three or more classes), the counts of a chunk of rows (A), the splits'
    class counts (cl, cli) and the per-row scratch."""
    cdef int64_t xs = <int64_t> m * nwc * sizeof(word_t)
    if K > 2:
        xs *= 2
    return (xs + chunk * m * K * sizeof(int32_t) + <int64_t> m * K * (sizeof(double) + sizeof(int32_t))
            + chunk * (K * sizeof(double) + 6 * sizeof(double)) + <int64_t> (K + 2) * nwc * sizeof(word_t))


cdef bint _stage_fits(Ctx* c, int64_t nbytes) noexcept nogil:
    """Whether a stage of nbytes keeps the process within the memory limit (always,
    without one).  At the root of a fit of many rows the stage's splits take as
    much as the split space itself; a stage that would not fit is not run, which
    is sound as any stage left out is (module notes): the children keep their
    bounds and are expanded as they come.  The search stops at the limit only
    where its own store reaches it."""
    cdef long long rss
    if c.lim.memory_limit <= 0:
        return True
    rss = limits_rss(&c.lim)
    return rss < 0 or rss + nbytes <= c.lim.memory_limit


cdef int pair_open(Ctx* c, const word_t* X, const int32_t* valid, int m, int n_rows,
                   bint rounds, PairStage* ps) noexcept nogil:
    """Set up the pair stage at node X for up to n_rows rows against the m valid
    splits; for a stage in rounds, the splits are transposed here once, when
    n_rows reaches TRANSPOSE_ROWS (otherwise `pair_counts` decides at each
    count).  Returns 1; 0 when there is nothing to count or the stage would pass
    the memory limit (`_stage_fits`); -1 on no memory (then `pair_close`)."""
    cdef int K = c.sp.K
    cdef int nw = c.sp.nw
    cdef int i, k, nwc
    cdef int64_t sums[2]
    cdef int64_t total
    cdef bint compact
    cdef word_t* xs
    cdef int32_t* nzw = NULL
    cdef int32_t* nzk = NULL
    cdef int nnz = 0
    memset(ps, 0, sizeof(PairStage))
    if K > 64 or m < 1 or n_rows < 1:
        return 0
    ps.chunk = (<int64_t> 1 << 22) // (<int64_t> m * K) + 1
    if ps.chunk > n_rows:
        ps.chunk = n_rows
    # Compaction: the counts are the same over the rows of X renumbered 0 .. |X|-1
    # (every set counted is inside X), in fewer words when X is sparse.
    nwc = <int> ((bs_count(X, nw) + 63) // 64)
    compact = ((c.cfg.strategy & STRATEGY_COMPACT) and nwc * COMPACT_SHARE < nw * (COMPACT_SHARE - 1)
               and fst_compact_ok(c.vec))
    if not compact:
        nwc = nw
    ps.nwc = nwc
    if not _stage_fits(c, _stage_bytes(m, K, nwc, ps.chunk)):
        c.st.pair_skipped += 1
        return 0
    ps.XS = <word_t*> malloc(<int64_t> m * nwc * sizeof(word_t))
    ps.XC = <word_t*> malloc((<int64_t> K * nwc + 1) * sizeof(word_t))
    ps.A = <int32_t*> malloc(ps.chunk * m * K * sizeof(int32_t))
    ps.cl = <double*> malloc(<int64_t> m * K * sizeof(double))
    if c.sp.unit > 0.0:
        ps.cli = <int32_t*> malloc(<int64_t> m * K * sizeof(int32_t))
    ps.T = <word_t*> malloc(nw * sizeof(word_t))
    ps.RW = <word_t*> malloc(nw * sizeof(word_t))
    ps.VAL = <double*> malloc(ps.chunk * 4 * sizeof(double))
    ps.ARG = <int*> malloc(ps.chunk * 2 * sizeof(int))
    ps.NEED = <uint8_t*> malloc(ps.chunk * 2 * sizeof(uint8_t))
    ps.CR = <double*> malloc(ps.chunk * K * sizeof(double))
    if (ps.XS == NULL or ps.XC == NULL or ps.A == NULL or ps.cl == NULL or ps.T == NULL
            or ps.RW == NULL or ps.VAL == NULL or ps.ARG == NULL or ps.NEED == NULL
            or ps.CR == NULL or (c.sp.unit > 0.0 and ps.cli == NULL)):
        return -1
    if compact:
        # Which words of X hold rows, and how many, found once for all the sets
        # compacted below (`fst_compact_plan`): each split's rows are extracted
        # from its whole words, and its class counts taken over the compacted ones.
        nzw = <int32_t*> malloc(2 * (nw + 1) * sizeof(int32_t))
        if nzw == NULL:
            return -1
        nzk = nzw + nw + 1
        nnz = fst_compact_plan(X, nw, nzw, nzk)
    for k in range(K - 1):
        if compact:
            fst_compact_at(c.sp.class_bits + k * nw, X, nzw, nzk, nnz, ps.XC + k * nwc, nwc)
        else:
            bs_and(ps.XC + k * nw, X, c.sp.class_bits + k * nw, nw)
    # Rows sorted by class: the rows of class 0 of X are the first of X, so in
    # the compacted words (row order kept) they are the bits below |X & class 0|,
    # and in the full words the bits below the problem's count of class 0 (every
    # set counted lies inside X).
    ps.nb0 = -1
    if c.sp.n0_prefix >= 0:
        ps.nb0 = <int> bs_count(ps.XC, nwc) if compact else c.sp.n0_prefix
    for i in range(m):
        if compact:
            xs = ps.XS + <int64_t> i * nwc
            fst_compact_at(split_row_bulk(&c.sp, valid[i]), X, nzw, nzk, nnz, xs, nwc)
            total = bs_count(xs, nwc)
            for k in range(K - 1):
                ps.cl[i * K + k] = <double> fst_and_count(c.vec, xs, ps.XC + k * nwc, nwc)
                total -= <int64_t> ps.cl[i * K + k]
            ps.cl[i * K + K - 1] = <double> total
        elif K == 2:
            # one pass: the row set, its rows and its rows of class 0
            xs = ps.XS + <int64_t> i * nw
            fst_and_counts2(c.vec, X, split_row_bulk(&c.sp, valid[i]), c.sp.class_bits,
                            nw, xs, sums)
            ps.cl[2 * i] = <double> sums[1]
            ps.cl[2 * i + 1] = <double> (sums[0] - sums[1])
        else:
            xs = ps.XS + <int64_t> i * nw
            bs_and(xs, X, split_row_bulk(&c.sp, valid[i]), nw)
            class_counts(c, xs, bs_count(xs, nw), ps.cl + i * K)
        if c.sp.unit > 0.0:
            ps.cli[i * K + K - 1] = 0
            for k in range(K):
                if k < K - 1:
                    ps.cli[i * K + k] = <int32_t> ps.cl[i * K + k]
                ps.cli[i * K + K - 1] += <int32_t> ps.cl[i * K + k]
    free(nzw)
    if rounds and n_rows >= TRANSPOSE_ROWS:
        ps.XT = transposed_splits(c.vec, ps.XS, m, K, nwc)   # NULL: the row kernels
    return 1


cdef int pair_run(Ctx* c, PairStage* ps, const word_t* X, const double* cnt,
                  const int32_t* valid, int m, Cand* cands, const int32_t* rows,
                  int n_rows) noexcept nogil:
    """Count and value the rows `rows` of an open stage (`pair_open`, for at least
    n_rows rows): see `pair_stage`.  Returns -1 on a memory stop, or when the
    time limit passes between two chunks (a stage at the root of a fit of many
    classes can take seconds): the rows done keep their values, the others their
    bounds -- any subset is sound -- and the search unwinds as at any stop."""
    cdef int K = c.sp.K
    cdef int nw = c.sp.nw
    cdef int i, k, r0, r, nr, argl, argr, ret = 0
    cdef double cap_unit = capacity_unit(c.cfg.rules, c.cfg.lam)
    r0 = 0
    while r0 < n_rows and ret == 0:
        nr = <int> (ps.chunk if r0 + ps.chunk <= n_rows else n_rows - r0)
        if ps.XT != NULL:
            pair_counts_xt(c.vec, ps.XS, ps.XT, rows + r0, nr, m, K, ps.XC, ps.nwc, ps.A,
                           c.cfg.n_threads, ps.nb0)
        else:
            pair_counts(c.vec, ps.XS, rows + r0, nr, m, K, ps.XC, ps.nwc, ps.A, c.cfg.n_threads,
                        ps.nb0)
        c.st.pair_stages += 1
        # The values of each row are a pure function of its counts: computed for
        # every side still lacking them (in parallel on a large stage, each row
        # by one thread), then installed in row order, which decides ties and
        # skips a side valued meanwhile (a child reached by two splits), as a
        # serial loop does.  So the result does not depend on the threads.
        for r in range(nr):
            i = rows[r0 + r]
            ps.NEED[2 * r] = not cand_node(c, &cands[i], 0).pair_done
            ps.NEED[2 * r + 1] = not cand_node(c, &cands[i], 1).pair_done
            for k in range(K):
                ps.CR[r * K + k] = cnt[k] - ps.cl[i * K + k]
        if c.cfg.n_threads > 1 and nr > 1 and <int64_t> nr * m >= PAR_VALUES_MIN:
            for r in prange(nr, num_threads=c.cfg.n_threads, schedule="dynamic"):
                _pair_values_row(c, rows[r0 + r], r, ps.A, m, K, ps.cl, ps.cli, ps.CR,
                                 ps.NEED, ps.VAL, ps.ARG)
        else:
            for r in range(nr):
                _pair_values_row(c, rows[r0 + r], r, ps.A, m, K, ps.cl, ps.cli, ps.CR,
                                 ps.NEED, ps.VAL, ps.ARG)
        for r in range(nr):
            i = rows[r0 + r]
            # (a pointer into the memo is taken after an install, which may grow it)
            if not cand_node(c, &cands[i], 0).pair_done:
                argl = ps.ARG[2 * r]
                if argl >= 0 and _install_side(c, &cands[i], 0, X, valid[argl],
                                               2.0 * c.cfg.lam + ps.VAL[4 * r], ps.RW,
                                               ps.T) < 0:
                    ret = -1
                    break
                record_pair_values(cand_node(c, &cands[i], 0), ps.VAL[4 * r], ps.VAL[4 * r + 1],
                                   c.cfg.lam, cap_unit)
            if not cand_node(c, &cands[i], 1).pair_done:
                argr = ps.ARG[2 * r + 1]
                if argr >= 0 and _install_side(c, &cands[i], 1, X, valid[argr],
                                               2.0 * c.cfg.lam + ps.VAL[4 * r + 2], ps.RW,
                                               ps.T) < 0:
                    ret = -1
                    break
                record_pair_values(cand_node(c, &cands[i], 1), ps.VAL[4 * r + 2],
                                   ps.VAL[4 * r + 3], c.cfg.lam, cap_unit)
        r0 += nr
        if ret == 0 and r0 < n_rows and c.lim.deadline >= 0 and fst_now() > c.lim.deadline:
            c.lim.stop = STOP_TIME
            ret = -1
    if ret < 0 and c.lim.stop == RUNNING:
        c.lim.stop = STOP_MEMORY
    return ret


cdef int pair_stage(Ctx* c, const word_t* X, const double* cnt, const int32_t* valid,
                    int m, Cand* cands, const int32_t* rows, int n_rows) noexcept nogil:
    """The row-count pair stage at node X for the splits `rows` (positions in the
    valid list) against every valid split: each child of each such split gets its
    exact best two-leaf tree (installed as its incumbent, a real tree), its pair
    values g2, g3 and its bound raised to min(g1, g2, g3, g4).  Every value uses
    only splits valid at X: an optimal tree uses only splits valid where it stands,
    and validity at a child implies validity at X.  Returns 1 when it ran, 0 when
    there was nothing to run or it would pass the memory limit (`pair_open`), -1
    on a stop."""
    cdef PairStage ps
    cdef int ret = pair_open(c, X, valid, m, n_rows, False, &ps)
    if ret > 0:
        ret = pair_run(c, &ps, X, cnt, valid, m, cands, rows, n_rows)
        if ret == 0:
            ret = 1
    elif ret < 0 and c.lim.stop == RUNNING:
        c.lim.stop = STOP_MEMORY
    pair_close(&ps)
    return ret



cdef int staged_pairs(Ctx* c, const word_t* X, const double* cnt, const int32_t* valid,
                      int m, Cand* cands, int32_t* rows, int* n_rows, double B,
                      double leaf) noexcept nogil:
    """The pair stage of `rows` in rounds: each round values the middle row of every
    run of rows (consecutive on one column) that column transfer does not yet put
    above the budget, so that the bounds it proves spread along the column
    (`column_transfer`: |R(t) - R(t')| <= the potential between them).  A row is
    left out once the transferred bound of its split exceeds B and is no lower
    than the leaf and every bound already known at this node, so the node's bound
    after the stage is the same as if it were valued.  After `c.cfg.stage_rounds`
    rounds the rows left are valued together.  Leaving a row out is sound as
    leaving it out under the stage's cap is: its children keep their bounds, and
    the split's bound is the transfer the expansion applies anyway.  On return `rows`
    holds the rows valued (n_rows of them).  Returns -1 on a memory stop.

    Leaving any row out is sound, so the order and the test only change the
    work.  On columns of many thresholds most rows end above the budget within
    the transfer of a neighbour's bound, so rounds value a fraction of them; a
    stage whose rows are one a column (binary features) runs whole, since
    rounds could leave nothing out there."""
    cdef int n = n_rows[0]
    cdef uint8_t* st = <uint8_t*> calloc(m + 1, sizeof(uint8_t))  # 1 pending, 2 valued
    cdef double* lbs = <double*> malloc((m + 1) * sizeof(double))
    cdef int32_t* pick = <int32_t*> malloc((n + 1) * sizeof(int32_t))
    cdef int32_t* done = <int32_t*> malloc((n + 1) * sizeof(int32_t))
    cdef double mk, cap_unit = capacity_unit(c.cfg.rules, c.cfg.lam)
    cdef int i, k, ndone = 0, npick, nleft, round_no = 0
    cdef int ret = 0
    cdef PairStage ps
    cdef int opened = pair_open(c, X, valid, m, n, True, &ps)
    if opened < 0 or st == NULL or lbs == NULL or pick == NULL or done == NULL:
        ret = -1
        if c.lim.stop == RUNNING:
            c.lim.stop = STOP_MEMORY
    elif opened > 0:
        for k in range(n):
            st[rows[k]] = 1
        # Each split's own bound, kept in lbs: after a round only the rows valued
        # change (a child shared with another split keeps the bound it had, lower
        # and still sound, until the end of the stage).
        mk = leaf
        for i in range(m):
            lbs[i] = split_bound(cand_node(c, &cands[i], 0), cand_node(c, &cands[i], 1),
                                 c.cfg.lam, cap_unit)
            if st[i] != 1 and lbs[i] < mk:
                mk = lbs[i]
        while True:
            # Transfer along each column, in the candidates' bounds (the expansion
            # sets them afresh after the stage).
            for i in range(m):
                cands[i].lb = lbs[i]
            column_transfer(cands, m)
            # Rows left: pending and not above both B and mk; the others are left
            # out for good (bounds only rise and mk only falls as rows are valued).
            nleft = 0
            for i in range(m):
                if st[i] == 1:
                    if cands[i].lb <= B + TOL or cands[i].lb < mk:
                        nleft += 1
                    else:
                        st[i] = 3
            if nleft == 0:
                break
            round_no += 1
            if round_no > c.cfg.stage_rounds:
                npick = 0
                for i in range(m):
                    if st[i] == 1:
                        pick[npick] = i
                        npick += 1
            else:
                npick = _run_midpoints(cands, st, m, pick)
            for k in range(npick):
                st[pick[k]] = 2
                done[ndone] = pick[k]
                ndone += 1
            if pair_run(c, &ps, X, cnt, valid, m, cands, pick, npick) < 0:
                ret = -1
                break
            for k in range(npick):
                i = pick[k]
                lbs[i] = split_bound(cand_node(c, &cands[i], 0), cand_node(c, &cands[i], 1),
                                 c.cfg.lam, cap_unit)
                if lbs[i] < mk:
                    mk = lbs[i]
        for k in range(ndone):
            rows[k] = done[k]
        c.st.pair_rows += ndone
        c.st.pair_rows_left += n - ndone
    n_rows[0] = ndone
    free(st); free(lbs); free(pick); free(done)
    pair_close(&ps)
    return ret


cdef int _run_midpoints(const Cand* cands, const uint8_t* st, int m,
                        int32_t* pick) noexcept nogil:
    """The middle of each run of rows left (st 1: pending and not above B and mk),
    a run being consecutive such rows on one column (other splits between them do
    not break it).  Returns how many."""
    cdef int i, npick = 0, first = -1, count = 0, k, seen
    cdef int32_t col = -1
    for i in range(m + 1):
        if i < m and st[i] != 1:
            continue
        if i < m and count > 0 and cands[i].col == col:
            count += 1
            continue
        if count > 0:
            # the (count // 2)-th row of the run, counting from `first`
            seen = 0
            for k in range(first, i if i < m else m):
                if st[k] == 1:
                    if seen == count // 2:
                        pick[npick] = k
                        npick += 1
                        break
                    seen += 1
        if i < m:
            first = i
            count = 1
            col = cands[i].col
    return npick


