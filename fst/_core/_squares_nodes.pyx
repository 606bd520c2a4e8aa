"""Node creation under squared error, for the general search.

The general search (`_search`, `_schedule`, `_solver`) is one search for both
losses: its frames, candidate loop, store, tie rule, limits and rules are the
same, and only a node's creation record and its splits' children's records
depend on the loss.  Under classification they come from class counts
(`_nodes`: popcounts of class bitsets); under squared error from sums over the
node's rows, here:

* a node's leaf is the weighted squared error of its rows about their weighted
  mean, plus lam; its potential `pot` is the sum of its rows' worst added
  errors over its target range (`_bounds.squares_row_worst`), the most any
  tree's leaves (whose means lie in that range) can lose on them, which the
  rules of potentials read (leaf support, side worth, column transfer);
* its equivalent-points floor is the sum of its rows' shares of their groups'
  squared errors (a group of identical rows lies on one side of every split,
  so a side's floor is the sum of its rows' shares);
* its splits' children's sums come from one walk of the node's rows a column
  (into a bucket a rank, then summed along the column's thresholds), or on
  binary columns one walk of the rows adding each to the columns whose split
  sends it left; a right side's sums are the node's less its left side's, as
  its linear hash is (`bs_hash_linear`: the hash adds over disjoint rows, row
  by row too).

A child's potential is read over its parent's target range, which contains
its own, so it is never below the child's own potential: the rules that
compare a potential with lam (leaf support at creation) stay sound.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset

from ._typedefs cimport word_t, int32_t, int64_t, uint64_t, INF
from ._bitset cimport bs_rows, bs_hash_linear, bs_hash_final
from ._memo cimport Node
from ._problem cimport split_row_bulk
from ._limits cimport RUNNING, STOP_SWITCH
from ._config cimport RULE_SUPPORT, RULE_EQUIVALENT
from ._context cimport Ctx, Cand, scan_stopped
from ._rowpass cimport squares_loss
from ._bounds cimport (creation_bounds, too_few_to_split, settle_leaf,
                       squares_row_worst, squares_side_dominated)


cdef struct NodeSums:
    int64_t m          # rows
    double w, z, q     # weight, weighted target, weighted square
    double worst       # the rows' worst added errors over the node's target range
    double floor       # their floor shares: the equivalent-points floor


cdef int squares_scratch(Ctx* c) noexcept nogil:
    """The context's squared-error scratch (`Ctx.sq_*`); -1 when it cannot be
    allocated."""
    cdef int64_t n = c.sp.n
    cdef int64_t slots = c.sp.n_cols if c.sp.n_cols > c.sp.most_splits + 1 else c.sp.most_splits + 1
    c.sq_rows = <int32_t*> malloc(n * sizeof(int32_t) + 8)
    c.sq_vals = <double*> malloc(SQ_FIELDS * n * sizeof(double) + 8)
    c.sq_hrow = <uint64_t*> malloc(n * sizeof(uint64_t) + 8)
    c.sq_gsum = <double*> calloc(3 * <int64_t> c.sp.n_groups + 3, sizeof(double))
    c.sq_sums = <double*> malloc(SQ_FIELDS * slots * sizeof(double) + 8)
    c.sq_hash = <uint64_t*> malloc(slots * sizeof(uint64_t) + 8)
    if (c.sq_rows == NULL or c.sq_vals == NULL or c.sq_hrow == NULL or c.sq_gsum == NULL
            or c.sq_sums == NULL or c.sq_hash == NULL):
        return -1
    return 0


cdef void squares_scratch_free(Ctx* c) noexcept nogil:
    free(c.sq_rows); free(c.sq_vals); free(c.sq_hrow); free(c.sq_gsum)
    free(c.sq_sums); free(c.sq_hash)
    c.sq_rows = NULL; c.sq_vals = NULL; c.sq_hrow = NULL; c.sq_gsum = NULL
    c.sq_sums = NULL; c.sq_hash = NULL


cdef inline uint64_t _row_hash(const uint64_t* hkey, int32_t r) noexcept nogil:
    """Row r's term of `bs_hash_linear`: its bit within its word's half times
    that half's key."""
    return ((<uint64_t> 1) << (r & 31)) * hkey[2 * (r >> 6) + ((r >> 5) & 1)]


cdef inline double _floor_low(double f, double total) noexcept nogil:
    """A floor summed from shares (or a difference of such sums), taken a few
    ulps of the node's total low so that no rounding raises it."""
    f = f - 1e-9 * total - 1e-12
    return f if f > 0.0 else 0.0


cdef void _node_rows(Ctx* c, const word_t* X, NodeSums* t, bint shares,
                     bint hashes) noexcept nogil:
    """X's rows into c.sq_rows (increasing), what each adds to a side's sums
    into c.sq_vals and (with `hashes`) to its hash into c.sq_hrow, and X's
    totals into t; the floor shares only with `shares` (else 0): each row's
    share of its group's squared error within X (by weight: a group's shares
    sum to its error; a row alone in its group keeps 0), their sum X's
    equivalent-points floor."""
    cdef int64_t i, m = bs_rows(X, c.sp.nw, c.sq_rows)
    cdef int32_t r, g
    cdef double wi, zi, lo = INF, hi = -INF
    cdef double* v
    cdef double* G = c.sq_gsum
    shares = shares and c.sp.any_shared
    t.m = m
    t.w = 0.0
    t.z = 0.0
    t.q = 0.0
    t.worst = 0.0
    t.floor = 0.0
    for i in range(m):
        r = c.sq_rows[i]
        wi = 1.0 if c.sp.row_weight == NULL else c.sp.row_weight[r]
        zi = c.sp.target[r]
        v = c.sq_vals + SQ_FIELDS * i
        v[0] = wi
        v[1] = wi * zi
        v[2] = v[1] * zi
        v[4] = 0.0
        v[5] = 1.0
        t.w += v[0]
        t.z += v[1]
        t.q += v[2]
        if zi < lo:
            lo = zi
        if zi > hi:
            hi = zi
        if hashes:
            c.sq_hrow[i] = _row_hash(c.hkey, r)
        if shares and c.sp.shared[r]:
            g = c.sp.group[r]
            G[3 * g] += v[0]
            G[3 * g + 1] += v[1]
            G[3 * g + 2] += v[2]
    for i in range(m):
        r = c.sq_rows[i]
        v = c.sq_vals + SQ_FIELDS * i
        v[3] = squares_row_worst(c.sp.target[r], v[0], lo, hi)
        t.worst += v[3]
        if shares and c.sp.shared[r]:
            g = c.sp.group[r]
            v[4] = squares_loss(G[3 * g], G[3 * g + 1], G[3 * g + 2]) * (v[0] / G[3 * g])
            t.floor += v[4]
    if shares:
        for i in range(m):
            r = c.sq_rows[i]
            if c.sp.shared[r]:
                g = c.sp.group[r]
                G[3 * g] = 0.0
                G[3 * g + 1] = 0.0
                G[3 * g + 2] = 0.0


cdef void _record(Ctx* c, Node* nd, double loss, double worst, double floor,
                  int64_t count, int depth) noexcept nogil:
    """The creation record of a node of `count` rows, leaf loss `loss`,
    potential `worst` and floor `floor` (its hash and depth are the caller's):
    its bounds from `_bounds.creation_bounds`, as a class node's, or its leaf
    where it holds too few rows to split (min_samples_leaf)."""
    nd.count = count
    nd.leaf = loss + c.cfg.lam
    nd.pot = worst
    nd.ub = nd.leaf             # (ii) the leaf is a real tree
    nd.best_split = -1
    nd.solved = 0
    nd.pair_done = 0
    nd.g2 = 0.0
    nd.g3 = INF
    if too_few_to_split(count, c.cfg.min_leaf):
        nd.floor = 0.0
        settle_leaf(nd)
        return
    creation_bounds(nd, loss, floor, depth, count, c.cfg.lam, c.cfg.rules)


cdef void squares_fill(Ctx* c, Node* nd, const word_t* X, int depth) noexcept nogil:
    """The creation record of (X, depth) from its rows (`_nodes.node_fill`
    under squared error)."""
    cdef NodeSums t
    _node_rows(c, X, &t, (c.cfg.rules & RULE_EQUIVALENT) != 0, False)
    _record(c, nd, squares_loss(t.w, t.z, t.q), t.worst, _floor_low(t.floor, t.floor),
            t.m, depth)


cdef inline void _add(double* dst, const double* v, int fields) noexcept nogil:
    """A row's first `fields` sums into a side's (`_fields`)."""
    cdef int f
    for f in range(fields):
        dst[f] += v[f]


cdef inline int _fields(const Ctx* c) noexcept nogil:
    """The sums a side needs added row by row (`_add`): its rows only under
    weights (else the weight counts them)."""
    return SQ_FIELDS if c.sp.row_weight != NULL else SQ_FIELDS - 1


cdef inline void _copy(double* dst, const double* src) noexcept nogil:
    cdef int f
    for f in range(SQ_FIELDS):
        dst[f] = src[f]


cdef int64_t _binary_sums(Ctx* c, int64_t m, int fields, bint hashes) noexcept nogil:
    """On binary columns: each column's left side's sums (the node's rows its
    split sends left) into c.sq_sums, and with `hashes` their linear hash into
    c.sq_hash, one walk of the rows; returns the cells read."""
    cdef int64_t i, k, cells = m
    cdef int32_t r
    cdef int u
    cdef const double* v
    cdef double* d
    cdef double a0, a1, a2, a3, a4
    cdef uint64_t h
    memset(c.sq_sums, 0, SQ_FIELDS * c.sp.n_cols * sizeof(double))
    memset(c.sq_hash, 0, c.sp.n_cols * sizeof(uint64_t))
    for i in range(m):
        r = c.sq_rows[i]
        v = c.sq_vals + SQ_FIELDS * i
        h = c.sq_hrow[i]
        if fields < SQ_FIELDS and not hashes:
            # (the common case spelt out: five sums held in locals, so that no
            # store to a column's sums reloads them; the fifth, a floor share,
            # is 0 where there is none)
            a0 = v[0]
            a1 = v[1]
            a2 = v[2]
            a3 = v[3]
            a4 = v[4]
            for k in range(c.sp.lstart[r], c.sp.lstart[r + 1]):
                d = c.sq_sums + SQ_FIELDS * c.sp.lcols[k]
                d[0] += a0
                d[1] += a1
                d[2] += a2
                d[3] += a3
                d[4] += a4
        else:
            for k in range(c.sp.lstart[r], c.sp.lstart[r + 1]):
                u = c.sp.lcols[k]
                _add(c.sq_sums + SQ_FIELDS * u, v, fields)
                if hashes:
                    c.sq_hash[u] += h
        cells += c.sp.lstart[r + 1] - c.sp.lstart[r]
    return cells


cdef void _rank_sums(Ctx* c, int u, int64_t m, int fields, bint hashes) noexcept nogil:
    """Column u's sums of the node's rows by rank, one bucket a rank into
    c.sq_sums, and with `hashes` their linear hash into c.sq_hash (ranks past
    its last split, always right, in its last bucket)."""
    cdef int T = c.sp.col_start[u + 1] - c.sp.col_start[u]
    cdef const int32_t* rank = c.sp.row_rank + <int64_t> u * c.sp.n
    cdef int64_t i
    cdef int32_t b
    memset(c.sq_sums, 0, SQ_FIELDS * (T + 1) * sizeof(double))
    memset(c.sq_hash, 0, (T + 1) * sizeof(uint64_t))
    for i in range(m):
        b = rank[c.sq_rows[i]]
        if b > T:
            b = T
        _add(c.sq_sums + SQ_FIELDS * b, c.sq_vals + SQ_FIELDS * i, fields)
        if hashes:
            c.sq_hash[b] += c.sq_hrow[i]


cdef inline uint64_t _and_hash(const word_t* X, const word_t* S, int nw,
                               const uint64_t* hkey) noexcept nogil:
    """`bs_hash_linear` of X & S, word by word."""
    cdef uint64_t h = 0
    cdef word_t a
    cdef int w
    for w in range(nw):
        a = X[w] & S[w]
        h += (a & 0xFFFFFFFFULL) * hkey[2 * w] + (a >> 32) * hkey[2 * w + 1]
    return h


cdef int squares_valid(Ctx* c, const word_t* X, int64_t total, int child_depth,
                       const int32_t* cand, int ncand, int32_t* valid, Cand* cands,
                       bint* one_column) noexcept nogil:
    """`_nodes.gather_valid` under squared error: the valid splits of X among
    `cand` (separating, at least min_leaf rows a side, one per distinct
    partition: the lowest of a column's thresholds that give it; under
    RULE_SUPPORT neither side dominated, `squares_side_dominated`, which holds
    in every descendant too, where a side and the target range only shrink),
    each with its children's creation records, `pot_left`, `worst_left`,
    `worst_right` (the sides' worst added errors over X's target range), `col`
    and `pair_leaf`.  Returns how many, or -1 on a stop."""
    cdef NodeSums t
    cdef int64_t m, nl, prev_nl, cells = 0
    cdef int i, j, k, u, pos, nvalid = 0, polled = 0
    cdef int32_t s, r
    cdef double left[SQ_FIELDS]
    cdef double lossl, lossr, wl, wr, fl
    cdef double lam = c.cfg.lam
    cdef uint64_t hX, hl
    cdef bint support = (c.cfg.rules & RULE_SUPPORT) != 0
    cdef bint rows_hash
    cdef double next_signal = 0.0
    cdef int fields = _fields(c)
    cdef Cand* cd
    if c.lim.stop != RUNNING and c.lim.stop != STOP_SWITCH:
        return -1           # already stopped: no scan
    # a side's hash row by row costs a row's columns (binary) or a row a column
    # (binned); word by word, a split's words: the cheaper (the same sum)
    rows_hash = (total * (<double> c.sp.lstart[c.sp.n] / c.sp.n if c.sp.binary
                          else c.sp.n_cols) <= <double> ncand * c.sp.nw)
    _node_rows(c, X, &t, (c.cfg.rules & RULE_EQUIVALENT) != 0, rows_hash)
    m = t.m
    hX = bs_hash_linear(X, c.sp.nw)
    one_column[0] = True
    if c.sp.binary:
        cells = _binary_sums(c, m, fields, rows_hash)
    i = 0
    while i < ncand:
        polled += 1
        if (polled & 63) == 0 and scan_stopped(c, &next_signal):
            return -1           # (a poll every 64 columns: its clock costs more than a column)
        u = c.sp.split_col[cand[i]]
        j = i
        while j < ncand and c.sp.split_col[cand[j]] == u:
            j += 1
        if not c.sp.binary:
            _rank_sums(c, u, m, fields, rows_hash)
            cells += m
        memset(left, 0, sizeof(left))
        hl = 0
        pos = 0
        prev_nl = -1
        for k in range(i, j):
            s = cand[k]
            if c.sp.binary:
                _copy(left, c.sq_sums + SQ_FIELDS * u)
                if rows_hash:
                    hl = c.sq_hash[u]
            else:
                r = s - c.sp.col_start[u]
                while pos <= r:
                    _add(left, c.sq_sums + SQ_FIELDS * pos, SQ_FIELDS)
                    if rows_hash:
                        hl += c.sq_hash[pos]
                    pos += 1
            nl = <int64_t> (left[5 if c.sp.row_weight != NULL else 0] + 0.5)
            if nl == prev_nl:
                continue        # the previous threshold's partition of X
            prev_nl = nl
            if nl < c.cfg.min_leaf or m - nl < c.cfg.min_leaf:
                continue        # a side of fewer rows than a leaf must hold (or none)
            wl = left[3]
            wr = t.worst - wl
            if support and (squares_side_dominated(wl, lam)
                            or squares_side_dominated(wr, lam)):
                continue        # never a minimiser, here or in a descendant
            lossl = squares_loss(left[0], left[1], left[2])
            lossr = squares_loss(t.w - left[0], t.z - left[1], t.q - left[2])
            fl = left[4]
            if not rows_hash:
                hl = _and_hash(X, split_row_bulk(&c.sp, s), c.sp.nw, c.hkey)
            cd = &cands[nvalid]
            cd.tl.hash = bs_hash_final(hl, child_depth)
            cd.tl.depth = child_depth
            _record(c, &cd.tl, lossl, wl, _floor_low(fl, t.floor), nl, child_depth)
            cd.tr.hash = bs_hash_final(hX - hl, child_depth)
            cd.tr.depth = child_depth
            _record(c, &cd.tr, lossr, wr, _floor_low(t.floor - fl, t.floor), m - nl,
                    child_depth)
            if nvalid > 0 and c.sp.split_col[valid[0]] != u:
                one_column[0] = False
            cd.pot_left = wl
            cd.worst_left = wl
            cd.worst_right = wr
            cd.col = u
            cd.pair_leaf = lossl + lossr + 2.0 * lam
            valid[nvalid] = s
            nvalid += 1
        i = j
    c.work += cells
    return nvalid

