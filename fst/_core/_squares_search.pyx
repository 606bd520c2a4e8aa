"""The general search under squared error: the regressor's best tree of any
shape, without max_depth, by branch and bound over row sets.

A node is a set of rows, kept in the memo store by its row bitset (no depth
left: every shape is searched).  Its splits are the thresholds of every column
between two consecutive distinct values of its rows, valued in one pass per
column over its rows in that column's order (the prefix sums of weight,
weighted target and weighted square give both children's leaf losses).  The
search `_solve(node, cap)` ends with the node solved (its optimum and its
canonical tree: fewest leaves, then the lowest root split) or with a proven
bound of at least `cap`: it tries the splits best greedy split first (their
two leaves' loss), each child searched under what its sibling's bound leaves
of the cap, and every child solved or bounded tightens the bounds of its
column's other splits (`_bounds.subset_child_bound`, `superset_child_bound`).
docs/how_it_works.md, "The general search under squared error", gives the
argument; every bound it writes is a function of `_bounds`.

The rows of each recursion level are kept sorted per column (p x n a level,
allocated as the search first reaches it), so a deep node's pass costs its own
rows, not all of them.  Memory: the store's nodes (a key of n / 64 words each)
and the levels.

The search recurses, one C frame a level (`_solve` -> `_search_child`), where
the classifier's general search runs an explicit frame stack: a path of the
search is a tree's path, and a leaf costs lam while the single leaf loses 1,
so no tree better than the single leaf is deeper than (1 + lam) / lam; the
levels are capped there, at n, and at STACK_LEVELS (`max_levels`; a deeper
path stops the search as a memory stop, with the best tree found)."""
from libc.stdlib cimport malloc, calloc, free, qsort
from libc.string cimport memcpy, memset

import numpy as np
cimport numpy as cnp

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t, uint64_t, TOL, INF
from ._ties cimport tie_wins
from ._bitset cimport bs_hash, bs_rows, bs_set, bs_andnot
from ._memo cimport Memo, Node, memo_init, memo_free, memo_find, memo_insert, memo_bytes
from ._limits cimport (Limits, limits_start, limits_poll, fst_now,
                       RUNNING, STOP_MEMORY)
from ._config cimport (Config, config_from_dict, RULE_SUPPORT, RULE_EQUIVALENT,
                       RULE_EXCHANGE, RULE_TRANSFER, RULE_LEAF_BUDGET)
from ._rowpass cimport squares_loss
from ._bounds cimport (settle, settle_leaf, too_few_to_split, raise_bound,
                       lower_to_incumbent, two_leaf_lower_bound, creation_lower_bound,
                       floor_settles_leaf, subset_child_bound, superset_child_bound,
                       squares_row_worst, squares_node_bound, two_leaf_closure_bound,
                       floor_f32, squares_side_dominated)

cnp.import_array()

# The deepest recursion of the search (`_solve`, a few hundred bytes of C stack a
# level): about 1.5 MB at most, within any thread's stack (Python's threads on
# macOS get 16 MB, Linux's the process's stack limit, usually 8 MB).  Only
# lam below about 2.5e-4 on more than this many rows allows deeper paths.
STACK_LEVELS = 4096


cdef struct SCand:
    int32_t split       # the lowest global split id of this partition of the node
    int32_t col         # its column
    int32_t nl          # rows left: the first nl of the node's rows in col's order
    uint8_t done        # both children solved: lbl + lbr is the split's value
    double lossl        # the children's leaf losses
    double lossr
    double lbl          # bounds (values once solved) of the children's optima
    double lbr
    double wl           # sum of the rows' worst added errors left of the split
                        # (`squares_row_worst`, the node's target range)


cdef struct SKey:
    double bound        # the split's bound when the node's splits were valued
    double greedy       # its two leaves' losses: the order among equal bounds
    int32_t split
    int32_t idx         # the candidate


cdef struct SLevel:
    int32_t* rows       # p x n: the node's rows in each column's order
    word_t* key         # nw words: the node's rows
    word_t* left        # nw words: a child's rows (scratch)
    SCand* cands
    SKey* keys
    int nc              # the candidates of the node being searched here


cdef struct SSearch:
    int n
    int p
    int nw
    const int32_t* rank        # p x n
    const int32_t* order       # p x n: the rows by rank on each column
    const int32_t* col_start   # p + 1
    const double* z            # n targets (scaled: the root leaf loses 1)
    const double* w            # n weights, or NULL (each row weighs 1)
    const int32_t* group       # n: the row's group of identical feature rows
    double* gsum               # 3 a group: scratch of the equivalent-points floor
    double* share              # n: each row's share of its group's error (`_shares`)
    const uint8_t* shared      # n: whether the row's group holds other rows (a row
                               # alone in its group has share 0, always)
    bint any_shared
    bint binary                # every column one split at most: a level holds its
                               # node's rows once (any order), not once a column
    const int32_t* lstart      # binary: n + 1, each row's entries in lcols
    const int32_t* lcols       # binary: the columns whose split sends the row left
    const word_t* colbits      # binary: p x nw, the rows each column's split sends left
    double* colsum             # binary: 6 a column, the pass's sums (`_candidates_binary`)
    double lam
    int rules
    int min_leaf
    int64_t max_cands          # candidates a level holds
    uint8_t* side              # n: 1 for a row on the left of the split built
    Memo memo
    SLevel* lv
    int n_levels               # levels allocated
    int max_levels
    Limits lim
    int64_t work               # cells passed (rows x columns) and rows moved
    int64_t work_limit         # > 0: stop as at the time limit past this work
    int64_t expansions
    double next_report
    double report_every
    void* reporter             # the Python callable (a borrowed reference)
    node_t root


cdef int _by_key(const void* a, const void* b) noexcept nogil:
    """qsort's order of the splits: the two leaves' loss (the greedy choice
    first: good incumbents early), then the bound, then the id."""
    cdef const SKey* x = <const SKey*> a
    cdef const SKey* y = <const SKey*> b
    if x.greedy != y.greedy:
        return -1 if x.greedy < y.greedy else 1
    if x.bound != y.bound:
        return -1 if x.bound < y.bound else 1
    return (x.split > y.split) - (x.split < y.split)


cdef inline bint _stop(SSearch* s, int code) noexcept nogil:
    if s.lim.stop == RUNNING:
        s.lim.stop = code
    return True


cdef bint _poll(SSearch* s) noexcept nogil:
    """Whether the search must stop: time and work at every node, memory and
    Ctrl-C every 0.1 s."""
    cdef double now
    cdef int code
    if s.lim.stop != RUNNING:
        return True
    now = fst_now()
    code = limits_poll(&s.lim, now, s.work, s.work_limit, True)
    if code > RUNNING:
        return _stop(s, code)
    if code == RUNNING and s.reporter != NULL and now >= s.next_report:
        s.next_report = now + s.report_every
        with gil:
            _report(s, now)
    return s.lim.stop != RUNNING


cdef void _report(SSearch* s, double now) noexcept:
    """The reporter's line: the root's bound as its splits stand now (the
    least of its incumbent and its splits' bounds, `squares_node_bound`; a
    bound on every tree at any moment of its search)."""
    cdef Node* r
    cdef SLevel* L = &s.lv[0]
    cdef double lo, lb
    if s.root < 0:
        return
    r = &s.memo.nodes[s.root]
    lb = r.lb
    if not r.solved and L.cands != NULL and L.nc > 0:
        lo = squares_node_bound(r.ub, _splits_least(L, L.nc))
        if lo > lb:
            lb = lo
    try:
        (<object> s.reporter)((now, lb, r.ub, s.expansions))
    except Exception:
        pass


cdef SLevel* _level(SSearch* s, int d) noexcept nogil:
    """Level d's scratch, allocated on first use; NULL (a memory stop) when it
    cannot be."""
    cdef SLevel* L
    if d >= s.max_levels:
        _stop(s, STOP_MEMORY)
        return NULL
    L = &s.lv[d]
    if L.rows != NULL:
        return L
    L.key = <word_t*> malloc(s.nw * sizeof(word_t) + 8)
    L.left = <word_t*> malloc(s.nw * sizeof(word_t) + 8)
    L.cands = <SCand*> malloc(s.max_cands * sizeof(SCand) + 8)
    L.keys = <SKey*> malloc(s.max_cands * sizeof(SKey) + 8)
    L.rows = <int32_t*> malloc((<int64_t> s.n if s.binary else <int64_t> s.p * s.n)
                               * sizeof(int32_t) + 4)
    if L.rows == NULL or L.key == NULL or L.left == NULL or L.cands == NULL or L.keys == NULL:
        _level_free(L)
        _stop(s, STOP_MEMORY)
        return NULL
    if d + 1 > s.n_levels:
        s.n_levels = d + 1
    return L


cdef void _level_free(SLevel* L) noexcept nogil:
    free(L.rows); free(L.key); free(L.left); free(L.cands); free(L.keys)
    L.rows = NULL; L.key = NULL; L.left = NULL; L.cands = NULL; L.keys = NULL


cdef inline double _add_row(SSearch* s, int32_t r, double* sw, double* sz,
                            double* sq) noexcept nogil:
    """Add row r to the sums (weight, weighted target, weighted square); returns
    its target."""
    cdef double wi = 1.0 if s.w == NULL else s.w[r]
    cdef double zi = s.z[r]
    sw[0] += wi
    sz[0] += wi * zi
    sq[0] += wi * zi * zi
    return zi


cdef double _sums_loss(SSearch* s, const int32_t* rows, int m, double* zlo,
                       double* zhi) noexcept nogil:
    """The squared error of the rows about their weighted mean; their least and
    greatest target into zlo, zhi."""
    cdef double sw = 0.0, sz = 0.0, sq = 0.0, zi, lo = INF, hi = -INF
    cdef int i
    for i in range(m):
        zi = _add_row(s, rows[i], &sw, &sz, &sq)
        if zi < lo:
            lo = zi
        if zi > hi:
            hi = zi
    zlo[0] = lo
    zhi[0] = hi
    return squares_loss(sw, sz, sq)


cdef double _shares(SSearch* s, const int32_t* rows, int m) noexcept nogil:
    """Each row's share of its group's squared error within the node (by its
    weight: a group's shares sum to its error), into s.share; returns their
    sum, the node's equivalent-points floor.  A group of identical feature rows
    lies on one side of every split, so the floor of a split's side is the sum
    of its rows' shares: a prefix sum in the column pass."""
    cdef int i
    cdef int32_t r, g
    cdef double wi, total = 0.0
    cdef double* G = s.gsum
    if not s.any_shared:
        return 0.0
    # (a row alone in its group keeps its share of 0)
    for i in range(m):
        if s.shared[rows[i]]:
            g = s.group[rows[i]]
            _add_row(s, rows[i], &G[3 * g], &G[3 * g + 1], &G[3 * g + 2])
    for i in range(m):
        r = rows[i]
        if s.shared[r]:
            g = s.group[r]
            wi = 1.0 if s.w == NULL else s.w[r]
            s.share[r] = squares_loss(G[3 * g], G[3 * g + 1], G[3 * g + 2]) * (wi / G[3 * g])
            total += s.share[r]
    for i in range(m):
        if s.shared[rows[i]]:
            g = s.group[rows[i]]
            G[3 * g] = 0.0
            G[3 * g + 1] = 0.0
            G[3 * g + 2] = 0.0
    return total


cdef inline double _floor_low(double f, double total) noexcept nogil:
    """A floor summed from shares (or a difference of such sums), taken a few
    ulps of the node's total low so that no rounding raises it."""
    f = f - 1e-9 * total - 1e-12
    return f if f > 0.0 else 0.0


cdef node_t _new_node(SSearch* s, const word_t* key, uint64_t h, const int32_t* rows,
                      int m, double loss) noexcept nogil:
    """A new node of the store for these rows (key their bitset, absent from the
    store, h its hash; rows any order of them, loss their leaf's squared error)
    with its creation bound: the leaf, or two leaves at least (above the
    equivalent-points floor under RULE_EQUIVALENT); settled at once when that
    bound reaches the leaf.  -1 (a memory stop) when the store cannot grow."""
    cdef node_t nid
    cdef Node* nd
    cdef double floor
    nid = memo_insert(&s.memo, key, -1, h)
    if nid < 0:
        _stop(s, STOP_MEMORY)
        return -1
    nd = &s.memo.nodes[nid]
    nd.count = m
    nd.leaf = loss + s.lam
    nd.ub = nd.leaf
    nd.best_split = -1
    nd.pot = 1.0            # leaves of the incumbent tree
    nd.g2 = INF
    nd.g3 = -INF
    nd.floor = 0.0
    nd.solved = 0
    if too_few_to_split(m, s.min_leaf):
        settle_leaf(nd)
    elif s.rules & RULE_EQUIVALENT:
        # the equivalent-points floor: its groups' squared errors, summed
        floor = _shares(s, rows, m)
        floor = _floor_low(floor, floor)
        nd.floor = floor_f32(floor)
        if floor_settles_leaf(loss, floor, s.lam):
            settle_leaf(nd)
        else:
            nd.lb = creation_lower_bound(nd.leaf, floor, s.lam)
    else:
        nd.lb = two_leaf_lower_bound(nd.leaf, s.lam)
    settle(nd)
    return nid


cdef inline bint _wins(double v, double leaves, int32_t split, const Node* nd) noexcept nogil:
    """fst's tie rule (`_ties.tie_wins`, leaves counted: lam > 0 here): a tree of
    value v, `leaves` leaves and root `split` against the node's incumbent."""
    return tie_wins(v, <int> leaves, split, nd.ub, <int> nd.pot, nd.best_split, True, False)


cdef int _candidates(SSearch* s, SLevel* L, int m, double zlo, double zhi) noexcept nogil:
    """The node's splits (L.cands): one pass per column over its rows in that
    column's order, a candidate at each change of value with min_leaf rows on
    each side (and, under RULE_SUPPORT, neither side dominated:
    `squares_side_dominated`), its children's leaf losses and creation bounds
    (a leaf when it cannot be split, else two leaves at least:
    `two_leaf_lower_bound`).  Returns their number."""
    cdef int u, i, nc = 0
    cdef int32_t r, rk, nxt
    cdef const int32_t* rows
    cdef const int32_t* rank
    cdef double sw, sz, sq, tw, tz, tq, zi, W, Wt, lossl, lossr, F, Ft = 0.0
    cdef bint support = s.rules & RULE_SUPPORT
    cdef bint equivalent = s.rules & RULE_EQUIVALENT
    cdef SCand* cd
    tw = 0.0; tz = 0.0; tq = 0.0; Wt = 0.0
    rows = L.rows
    for i in range(m):
        r = rows[i]
        zi = _add_row(s, r, &tw, &tz, &tq)
        Wt += squares_row_worst(zi, 1.0 if s.w == NULL else s.w[r], zlo, zhi)
    if equivalent:
        Ft = _shares(s, L.rows, m)
    for u in range(s.p):
        rows = L.rows + <int64_t> u * s.n
        rank = s.rank + <int64_t> u * s.n
        sw = 0.0; sz = 0.0; sq = 0.0; W = 0.0; F = 0.0
        for i in range(m - 1):
            r = rows[i]
            zi = _add_row(s, r, &sw, &sz, &sq)
            W += squares_row_worst(zi, 1.0 if s.w == NULL else s.w[r], zlo, zhi)
            if equivalent:
                F += s.share[r]
            rk = rank[r]
            nxt = rank[rows[i + 1]]
            if nxt == rk or i + 1 < s.min_leaf or m - i - 1 < s.min_leaf:
                continue
            if support and (squares_side_dominated(W, s.lam)
                            or squares_side_dominated(Wt - W, s.lam)):
                continue
            cd = &L.cands[nc]
            nc += 1
            cd.split = s.col_start[u] + rk
            cd.col = u
            cd.nl = i + 1
            cd.done = 0
            lossl = squares_loss(sw, sz, sq)
            lossr = squares_loss(tw - sw, tz - sz, tq - sq)
            cd.lossl = lossl
            cd.lossr = lossr
            cd.wl = W
            cd.lbl = _child_creation(s, lossl, i + 1, _floor_low(F, Ft))
            cd.lbr = _child_creation(s, lossr, m - i - 1, _floor_low(Ft - F, Ft))
        s.work += m
    return nc


cdef int _candidates_binary(SSearch* s, SLevel* L, int m, double zlo,
                            double zhi) noexcept nogil:
    """`_candidates` on binary columns: one pass over the node's rows adds each
    row to the sums of the columns whose split sends it left (weight, weighted
    target and square, worst added error; and where they vary, floor share and
    rows); each split's right side is the node's sums less its left."""
    cdef int u, i, k, k0, k1, nc = 0, nl
    cdef int32_t r
    cdef int64_t cells = 0
    cdef double tw = 0.0, tz = 0.0, tq = 0.0, Wt = 0.0, Ft = 0.0, zi, wi, wz, wq, ww, fs
    cdef double lossl, lossr, fl
    cdef const int32_t* lcols = s.lcols
    cdef double* C = s.colsum              # 4 a column: w, w z, w z^2, worst
    cdef double* CF = s.colsum + 4 * s.p   # floor shares (where some row has one)
    cdef double* CN = s.colsum + 5 * s.p   # rows (with weights: else the weight)
    cdef double* c
    cdef bint support = s.rules & RULE_SUPPORT
    cdef bint shares = False
    cdef bint weighted = s.w != NULL
    cdef SCand* cd
    if s.rules & RULE_EQUIVALENT:
        Ft = _shares(s, L.rows, m)
        shares = Ft > 0.0
    memset(C, 0, 6 * s.p * sizeof(double))
    for i in range(m):
        r = L.rows[i]
        wi = 1.0 if s.w == NULL else s.w[r]
        zi = _add_row(s, r, &tw, &tz, &tq)
        wz = wi * zi
        wq = wz * zi
        ww = squares_row_worst(zi, wi, zlo, zhi)
        Wt += ww
        k0 = s.lstart[r]
        k1 = s.lstart[r + 1]
        cells += k1 - k0
        if shares:
            fs = s.share[r]
            for k in range(k0, k1):
                u = lcols[k]
                c = C + 4 * u
                c[0] += wi
                c[1] += wz
                c[2] += wq
                c[3] += ww
                CF[u] += fs
        else:
            for k in range(k0, k1):
                c = C + 4 * lcols[k]
                c[0] += wi
                c[1] += wz
                c[2] += wq
                c[3] += ww
        if weighted:
            for k in range(k0, k1):
                CN[lcols[k]] += 1.0
    # (work: a row, and each column it is added to)
    s.work += m + cells
    for u in range(s.p):
        if s.col_start[u + 1] == s.col_start[u]:
            continue
        c = C + 4 * u
        # (without weights each row adds exactly 1.0 to the weight)
        nl = <int> (CN[u] if weighted else c[0])
        if nl < s.min_leaf or m - nl < s.min_leaf:
            continue
        if support and (squares_side_dominated(c[3], s.lam)
                        or squares_side_dominated(Wt - c[3], s.lam)):
            continue
        cd = &L.cands[nc]
        nc += 1
        cd.split = s.col_start[u]
        cd.col = u
        cd.nl = nl
        cd.done = 0
        lossl = squares_loss(c[0], c[1], c[2])
        lossr = squares_loss(tw - c[0], tz - c[1], tq - c[2])
        cd.lossl = lossl
        cd.lossr = lossr
        cd.wl = c[3]
        fl = CF[u] if shares else 0.0
        cd.lbl = _child_creation(s, lossl, nl, _floor_low(fl, Ft))
        cd.lbr = _child_creation(s, lossr, m - nl, _floor_low(Ft - fl, Ft))
    return nc


cdef inline double _child_creation(SSearch* s, double loss, int m, double floor) noexcept nogil:
    """A child's bound before it is searched: its leaf when it holds no split;
    under RULE_EQUIVALENT, its leaf when the floor settles it
    (`floor_settles_leaf`), else `creation_lower_bound` above the floor (the
    child's share sums, `_shares`); else `two_leaf_lower_bound`.  Where the
    bound is the leaf's value the child is a leaf, exactly."""
    if m < 2 * s.min_leaf:
        return loss + s.lam
    if s.rules & RULE_EQUIVALENT:
        if floor_settles_leaf(loss, floor, s.lam):
            return loss + s.lam
        return creation_lower_bound(loss + s.lam, floor, s.lam)
    return two_leaf_lower_bound(loss + s.lam, s.lam)


cdef inline bint _exact(SSearch* s, double lb, double loss) noexcept nogil:
    """Whether a child's creation bound is its leaf's value: the child is a leaf."""
    return lb >= loss + s.lam - TOL


cdef void _spread(SSearch* s, SCand* cands, int nc, int j) noexcept nogil:
    """Candidate j's children bounds (or values) passed to the other splits of
    its column: a child nearer its own side contains the rows of j's child on
    the same side less those between (R >= lb - their worst: RULE_EXCHANGE),
    one farther contains j's child (R >= lb, a superset costs no less:
    RULE_TRANSFER, without min_leaf)."""
    cdef SCand* c = &cands[j]
    cdef SCand* o
    cdef int i
    cdef double v
    cdef bint nested = s.min_leaf <= 1
    i = j - 1
    while i >= 0 and cands[i].col == c.col:
        o = &cands[i]
        if not o.done:
            # o's left child is c's less the rows between, its right c's plus them
            if s.rules & RULE_EXCHANGE:
                v = subset_child_bound(c.lbl, c.wl - o.wl)
                if v > o.lbl:
                    o.lbl = v
            if nested and (s.rules & RULE_TRANSFER):
                v = superset_child_bound(c.lbr)
                if v > o.lbr:
                    o.lbr = v
        i -= 1
    i = j + 1
    while i < nc and cands[i].col == c.col:
        o = &cands[i]
        if not o.done:
            if nested and (s.rules & RULE_TRANSFER):
                v = superset_child_bound(c.lbl)
                if v > o.lbl:
                    o.lbl = v
            if s.rules & RULE_EXCHANGE:
                v = subset_child_bound(c.lbr, o.wl - c.wl)
                if v > o.lbr:
                    o.lbr = v
        i += 1


cdef int _child_rows(SSearch* s, SLevel* L, SLevel* C, int m, const SCand* cd,
                     bint right) noexcept nogil:
    """The child's rows in each column's order into level C (filtered from the
    node's at L by the sides marked in s.side; on binary columns, read off its
    key at C.key: a level's rows are then in row order, as the root's are and
    any filtering of them keeps them); returns their number."""
    cdef int u, i, k = 0
    cdef const int32_t* src
    cdef int32_t* dst
    cdef uint8_t want = 0 if right else 1
    if s.binary:
        s.work += m
        return <int> bs_rows(C.key, s.nw, C.rows)
    for u in range(s.p):
        src = L.rows + <int64_t> u * s.n
        dst = C.rows + <int64_t> u * s.n
        k = 0
        for i in range(m):
            if s.side[src[i]] == want:
                dst[k] = src[i]
                k += 1
    s.work += <int64_t> m * s.p
    return k


cdef void _mark(SSearch* s, SLevel* L, int m, const SCand* cd) noexcept nogil:
    """The left child's key into L.left, and s.side: 1 for the rows left of the
    split, 0 for the node's others (on binary columns the key alone: the
    node's key and the column's, word by word, and `_child_rows` reads the
    side from the column)."""
    cdef const int32_t* rows = L.rows + <int64_t> cd.col * s.n
    cdef const word_t* col
    cdef int i
    if s.binary:
        col = s.colbits + <int64_t> cd.col * s.nw
        for i in range(s.nw):
            L.left[i] = L.key[i] & col[i]
        return
    memset(L.left, 0, s.nw * sizeof(word_t))
    for i in range(cd.nl):
        s.side[rows[i]] = 1
        bs_set(L.left, rows[i])
    for i in range(cd.nl, m):
        s.side[rows[i]] = 0


cdef node_t _open_child(SSearch* s, SLevel* L, int m, SCand* cd, bint right,
                        double* lb) noexcept nogil:
    """The store's node of one child of candidate cd (marked by `_mark`), its
    key built at level d + 1's key; its bound raised into lb[0] and lb[0] into
    it.  -1 on a memory stop."""
    cdef SLevel* C = L + 1
    cdef node_t nid
    cdef Node* nd
    cdef const int32_t* rows = L.rows + <int64_t> cd.col * s.n
    cdef uint64_t h
    if right:
        bs_andnot(C.key, L.key, L.left, s.nw)
    else:
        memcpy(C.key, L.left, s.nw * sizeof(word_t))
    h = bs_hash(C.key, s.nw, -1)
    nid = memo_find(&s.memo, C.key, -1, h)
    if nid < 0:
        if s.binary:
            # the side's rows, gathered at level d + 1 (its floor reads them; a
            # stored node needs none)
            _child_rows(s, L, C, m, cd, right)
            rows = C.rows
        elif right:
            rows += cd.nl           # (the split's column order: the left side first)
        nid = _new_node(s, C.key, h, rows, m - cd.nl if right else cd.nl,
                        cd.lossr if right else cd.lossl)
        if nid < 0:
            return -1
    nd = &s.memo.nodes[nid]
    raise_bound(nd, lb[0])
    settle(nd)
    lb[0] = nd.ub if nd.solved else nd.lb
    return nid


cdef int _search_child(SSearch* s, int d, int m, SCand* cd, bint right, node_t nid,
                       double cap, double* lb) noexcept nogil:
    """Search one child (its node nid) under `cap`: its rows into level d + 1,
    `_solve` there; its bound (value once solved) into lb.  Returns whether it
    is solved."""
    cdef SLevel* L = &s.lv[d]
    cdef SLevel* C
    cdef Node* nd = &s.memo.nodes[nid]
    cdef int k
    if not nd.solved and nd.lb < cap:
        C = _level(s, d + 1)
        if C == NULL:
            return 0
        L = &s.lv[d]
        if right:
            bs_andnot(C.key, L.key, L.left, s.nw)
        else:
            memcpy(C.key, L.left, s.nw * sizeof(word_t))
        k = _child_rows(s, L, C, m, cd, right)
        _solve(s, d + 1, nid, k, cap)
        if not s.binary:
            # the levels below may have remarked the sides (s.side): mark this
            # split again (on binary columns only level d's own key is read)
            _mark(s, &s.lv[d], m, cd)
        nd = &s.memo.nodes[nid]
    lb[0] = nd.ub if nd.solved else nd.lb
    return nd.solved


cdef double _value_at_once(SSearch* s, SLevel* L, Node* nd, int nc,
                           int32_t* split2) noexcept nogil:
    """The node's splits valued at once, as their candidates stand: a split
    whose children are both exact (their leaves, or solved in the store) is
    done and may be the node's incumbent; each split's key for the search's
    order (`_by_key`).  Returns the best two-leaf tree's value, its split in
    split2[0] (-1: none)."""
    cdef double best2 = INF, v
    cdef SCand* cd
    cdef int j
    split2[0] = -1
    for j in range(nc):
        cd = &L.cands[j]
        v = cd.lossl + cd.lossr + 2.0 * s.lam
        if tie_wins(v, 2, cd.split, best2, 2, split2[0], True, False):
            best2 = v
            split2[0] = cd.split
        if _exact(s, cd.lbl, cd.lossl) and _exact(s, cd.lbr, cd.lossr):
            cd.done = 1
            v = cd.lbl + cd.lbr
            if _wins(v, 2.0, cd.split, nd):
                nd.ub = v
                nd.best_split = cd.split
                nd.pot = 2.0
        L.keys[j].bound = cd.lbl + cd.lbr
        L.keys[j].greedy = cd.lossl + cd.lossr
        L.keys[j].split = cd.split
        L.keys[j].idx = j
    return best2


cdef inline double _splits_least(const SLevel* L, int nc) noexcept nogil:
    """The least of the node's splits' bounds (each its children's sum)."""
    cdef double lo = INF
    cdef int j
    for j in range(nc):
        if L.cands[j].lbl + L.cands[j].lbr < lo:
            lo = L.cands[j].lbl + L.cands[j].lbr
    return lo


cdef void _solve(SSearch* s, int d, node_t nid, int m, double cap) noexcept nogil:
    """Search the node nid, whose m rows are level d's (sorted per column, its
    key at L.key), until it is solved or its bound reaches cap (or the search
    stops).  Its bound after is the least of its incumbent and its splits'
    bounds (each the sum of its children's), which holds stopped or not."""
    cdef SLevel* L = &s.lv[d]
    cdef Node* nd = &s.memo.nodes[nid]
    cdef int nc, i, j
    cdef double zlo, zhi, v, Q, leaves, best2
    cdef double lb2[2]
    cdef int32_t split2
    cdef SCand* cd
    cdef node_t ids[2]
    cdef int solved2[2]
    cdef int first, t, c
    if nd.solved or nd.lb >= cap or _poll(s):
        return
    _sums_loss(s, L.rows, m, &zlo, &zhi)        # (the target range)
    s.expansions += 1
    nc = (_candidates_binary(s, L, m, zlo, zhi) if s.binary
          else _candidates(s, L, m, zlo, zhi))
    L.nc = nc
    nd = &s.memo.nodes[nid]
    best2 = _value_at_once(s, L, nd, nc, &split2)
    raise_bound(nd, squares_node_bound(nd.ub, _splits_least(L, nc)))
    if split2 >= 0 and _wins(best2, 2.0, split2, nd):
        # the best two-leaf tree is a real tree (its children leaves, or their
        # stored trees, which are no worse)
        nd.ub = best2
        nd.best_split = split2
        nd.pot = 2.0
    if (s.rules & RULE_LEAF_BUDGET) and split2 >= 0:
        raise_bound(nd, two_leaf_closure_bound(nd.leaf, best2, nd.floor, s.lam))
    lower_to_incumbent(nd)
    if settle(nd) or nd.lb >= cap:
        return
    if _level(s, d + 1) == NULL:
        return
    L = &s.lv[d]
    qsort(L.keys, nc, sizeof(SKey), _by_key)
    for i in range(nc):
        j = L.keys[i].idx
        cd = &L.cands[j]
        if cd.done:
            continue
        nd = &s.memo.nodes[nid]
        Q = (cap if cap < nd.ub else nd.ub) + TOL
        if cd.lbl + cd.lbr >= Q:
            continue
        _mark(s, L, m, cd)
        lb2[0] = cd.lbl
        lb2[1] = cd.lbr
        ids[0] = _open_child(s, L, m, cd, False, &lb2[0])
        if ids[0] < 0:
            break
        ids[1] = _open_child(s, L, m, cd, True, &lb2[1])
        if ids[1] < 0:
            break
        # the child of the smaller leaf loss first (c = 0 left, 1 right): the
        # cheaper to solve, its value (not only a bound) then leaves the other
        # the tighter cap
        first = 1 if cd.lossr < cd.lossl else 0
        solved2[0] = 0
        solved2[1] = 0
        for t in range(2):
            c = first ^ t
            if lb2[0] + lb2[1] >= Q:
                break
            solved2[c] = _search_child(s, d, m, cd, c == 1, ids[c], Q - lb2[1 - c], &lb2[c])
            if s.lim.stop != RUNNING:
                break
        cd.lbl = lb2[0]
        cd.lbr = lb2[1]
        if s.lim.stop != RUNNING:
            break
        if solved2[0] and solved2[1]:
            cd.done = 1
        # the children's best trees, solved or not, make a real tree of the node
        nd = &s.memo.nodes[nid]
        v = s.memo.nodes[ids[0]].ub + s.memo.nodes[ids[1]].ub
        leaves = s.memo.nodes[ids[0]].pot + s.memo.nodes[ids[1]].pot
        if _wins(v, leaves, cd.split, nd):
            nd.ub = v
            nd.best_split = cd.split
            nd.pot = leaves
        _spread(s, L.cands, nc, j)
    nd = &s.memo.nodes[nid]
    # the bound the splits and the incumbent leave, whether or not the loop ran
    # to its end (a split never searched keeps its children's bounds)
    raise_bound(nd, squares_node_bound(nd.ub, _splits_least(L, nc)))
    lower_to_incumbent(nd)
    settle(nd)


cdef class SquaresSearch:
    """The general search under squared error on an engine space's arrays.

    Parameters
    ----------
    rank, col_order : int32 arrays (p, n)
        Each row's value rank on each column (NaN above every number) and the
        rows sorted by rank.
    col_start : int32 array (p + 1,)
        Split k of column u (global col_start[u] + k) sends ranks <= k left.
    target : float64 array (n,)
        Scaled targets: a leaf's loss is the weighted squared error about its
        weighted mean, the objective that plus lam a leaf.
    weight : float64 array (n,) or None
    group : int32 array (n,)
        Each row's group of rows with identical features (the equivalent-points
        floor, RULE_EQUIVALENT).
    config : dict
        The search's configuration (`fst._core._config.make_config`), as every
        core search takes it: regularization (> 0), rules, min_leaf,
        time_limit, memory_limit and work_limit (the cells its passes read, a
        row and a column each).  Of the rules, RULE_SUPPORT
        (`squares_side_dominated`), RULE_EQUIVALENT, RULE_EXCHANGE,
        RULE_TRANSFER and RULE_LEAF_BUDGET (`two_leaf_closure_bound`) apply.
        The k-segmentation floor does not: on the binary and binned columns
        this search takes, a floor of the targets alone costs a sort and a
        programme per node and prunes less than it costs.
    """
    cdef SSearch s
    cdef object _keep
    cdef object _reporter
    cdef public double seed_value
    cdef double _time_limit
    cdef double _seconds

    def __cinit__(self, rank, col_order, col_start, target, weight, group, dict config):
        cdef Config cfg
        config_from_dict(&cfg, config)
        cdef double lam = cfg.lam
        cdef cnp.ndarray[int32_t, ndim=2] R = np.ascontiguousarray(rank, dtype=np.int32)
        cdef cnp.ndarray[int32_t, ndim=2] O = np.ascontiguousarray(col_order, dtype=np.int32)
        cdef cnp.ndarray[int32_t, ndim=1] S = np.ascontiguousarray(col_start, dtype=np.int32)
        cdef cnp.ndarray[double, ndim=1] Z = np.ascontiguousarray(target, dtype=np.float64)
        cdef cnp.ndarray[int32_t, ndim=1] G = np.ascontiguousarray(group, dtype=np.int32)
        cdef cnp.ndarray[double, ndim=1] Wt
        cdef int p = R.shape[0], n = R.shape[1]
        if not lam > 0:
            raise ValueError("the general search under squared error needs lam > 0")
        if n < 1 or p < 1 or Z.shape[0] != n or G.shape[0] != n:
            raise ValueError("the general search needs rows, columns and a target a row")
        if not np.all(np.isfinite(Z)):
            raise ValueError("the targets must be finite")
        memset(&self.s, 0, sizeof(SSearch))
        self.s.root = -1
        if weight is None:
            Wt = np.ones(1)
        else:
            Wt = np.ascontiguousarray(weight, dtype=np.float64)
            if Wt.shape[0] != n or not np.all(np.isfinite(Wt)) or np.any(Wt <= 0):
                raise ValueError("the weights must be finite and > 0, one a row")
        n_groups = int(G.max()) + 1
        per_col = np.diff(S)
        binary = bool(np.all(per_col <= 1))
        lst = np.zeros(n + 1, dtype=np.int32)
        lcl = np.zeros(1, dtype=np.int32)
        cs = np.zeros(6 * p + 6)
        nw = (n + 63) // 64
        cb = np.zeros((1, 1), dtype=np.uint64)
        if binary:
            # each row's columns whose one split (rank <= 0) sends it left
            left = (R == 0) & (per_col == 1)[:, None]
            lst[1:] = np.cumsum(left.sum(axis=0))
            lcl = np.ascontiguousarray(np.nonzero(left.T)[1].astype(np.int32))
            if lcl.shape[0] == 0:
                lcl = np.zeros(1, dtype=np.int32)
            # the same as row bitsets, a column's (bit r of word r / 64)
            packed = np.zeros((p, 8 * nw), dtype=np.uint8)
            packed[:, : (n + 7) // 8] = np.packbits(left, axis=1, bitorder="little")
            cb = np.ascontiguousarray(packed.view("<u8").astype(np.uint64))
        gs = np.zeros(3 * n_groups + 3)
        sh = np.zeros(n + 1)
        shared = np.ascontiguousarray((np.bincount(G, minlength=n_groups)[G] > 1)
                                      .astype(np.uint8))
        self._keep = (R, O, S, Z, G, Wt, gs, sh, shared, lst, lcl, cs, cb)
        self.s.n = n
        self.s.p = p
        self.s.nw = nw
        self.s.rank = &R[0, 0]
        self.s.order = &O[0, 0]
        self.s.col_start = &S[0]
        self.s.z = &Z[0]
        self.s.w = &Wt[0] if weight is not None else NULL
        self.s.group = &G[0]
        self.s.gsum = <double*> cnp.PyArray_DATA(gs)
        self.s.share = <double*> cnp.PyArray_DATA(sh)
        self.s.shared = <const uint8_t*> cnp.PyArray_DATA(shared)
        self.s.any_shared = bool(shared.any())
        self.s.binary = binary
        self.s.lstart = <const int32_t*> cnp.PyArray_DATA(lst)
        self.s.lcols = <const int32_t*> cnp.PyArray_DATA(lcl)
        self.s.colsum = <double*> cnp.PyArray_DATA(cs)
        self.s.colbits = <const word_t*> cnp.PyArray_DATA(cb)
        self.s.lam = lam
        self.s.rules = cfg.rules & (RULE_SUPPORT | RULE_EQUIVALENT | RULE_EXCHANGE | RULE_TRANSFER
                                | RULE_LEAF_BUDGET)
        self.s.min_leaf = cfg.min_leaf
        self.s.max_cands = max(min(int(S[p]), <int64_t> p * (n - 1)), 1)
        self.s.work_limit = cfg.work_limit
        self.s.lim.memory_limit = cfg.memory_limit
        # a path is at most n deep; deeper than (1 + lam) / lam it costs more
        # than the single leaf; and at most STACK_LEVELS deep, the C stack the
        # recursion may take (a deeper path stops the search as a memory stop)
        self.s.max_levels = min(n, int((1.0 + lam) / lam) + 2, STACK_LEVELS) + 1
        self.s.lv = <SLevel*> calloc(self.s.max_levels, sizeof(SLevel))
        self.s.side = <uint8_t*> calloc(n, 1)
        if (self.s.lv == NULL or self.s.side == NULL
                or memo_init(&self.s.memo, self.s.nw, 1 << 12) != 0):
            raise MemoryError()
        self.s.memo.memory_limit = cfg.memory_limit
        self._time_limit = cfg.time_limit
        self.seed_value = INF
        self._seconds = 0.0

    def __dealloc__(self):
        cdef int d
        if self.s.lv != NULL:
            for d in range(self.s.max_levels):
                _level_free(&self.s.lv[d])
            free(self.s.lv)
        free(self.s.side)
        memo_free(&self.s.memo)

    def set_reporter(self, reporter, seconds=5.0):
        """Call reporter((now, root bound, root incumbent, expansions)) every
        `seconds` while the search runs."""
        self._reporter = reporter
        self.s.reporter = <void*> reporter if reporter is not None else NULL
        self.s.report_every = float(seconds)

    def set_work_limit(self, long long work_limit):
        """Stop as at the time limit past this much work (0: none)."""
        self.s.work_limit = work_limit

    def set_time_limit(self, time_limit):
        self._time_limit = -1.0 if time_limit is None else float(time_limit)

    def seed(self, double value):
        """A tree of this value exists (another search's): the root searches only
        for better ones, and a bound reaching it certifies that tree."""
        self.seed_value = value

    def run(self):
        """Search the root (all rows) until solved, bounded at the seed, or
        stopped; returns the stop code (0: finished).  A second run resumes."""
        cdef SLevel* L
        cdef int u
        cdef double cap = self.seed_value
        cdef double t0 = fst_now()
        cdef double zlo, zhi, loss
        limits_start(&self.s.lim, self._time_limit, self.s.lim.memory_limit)
        self.s.next_report = t0 + self.s.report_every
        with nogil:
            L = _level(&self.s, 0)
            if L != NULL:
                if self.s.binary:
                    for u in range(self.s.n):
                        L.rows[u] = u
                else:
                    for u in range(self.s.p):
                        memcpy(L.rows + <int64_t> u * self.s.n,
                               self.s.order + <int64_t> u * self.s.n,
                               self.s.n * sizeof(int32_t))
                memset(L.key, 0, self.s.nw * sizeof(word_t))
                for u in range(self.s.n):
                    bs_set(L.key, u)
                if self.s.root < 0:
                    loss = _sums_loss(&self.s, L.rows, self.s.n, &zlo, &zhi)
                    # (the store is empty: the root is new)
                    self.s.root = _new_node(&self.s, L.key, bs_hash(L.key, self.s.nw, -1),
                                            L.rows, self.s.n, loss)
                if self.s.root >= 0:
                    _solve(&self.s, 0, self.s.root, self.s.n, cap)
        self._seconds += fst_now() - t0
        return self.s.lim.stop

    @property
    def solved(self):
        """Whether the root's optimum is proved: its tree, or the seed's when the
        bound reached it."""
        if self.s.root < 0:
            return False
        nd = &self.s.memo.nodes[self.s.root]
        return bool(nd.solved) or nd.lb >= self.seed_value

    @property
    def root_solved(self):
        """Whether the root's own tree is proved optimal (not only the seed)."""
        return self.s.root >= 0 and bool(self.s.memo.nodes[self.s.root].solved)

    @property
    def upper_bound(self):
        """The value of the search's own best tree (inf before the root)."""
        if self.s.root < 0:
            return INF
        return self.s.memo.nodes[self.s.root].ub

    @property
    def lower_bound(self):
        """A bound on every tree (None before the root was created)."""
        if self.s.root < 0:
            return None
        nd = &self.s.memo.nodes[self.s.root]
        if nd.solved:
            return nd.ub
        return min(nd.lb, self.seed_value)

    def split_of(self, rows):
        """The root split of the best tree the store holds for these rows (an
        array of row ids; -1: a leaf, or a set not stored: a child valued as a
        leaf)."""
        cdef word_t* key = self.s.lv[0].left if self.s.lv[0].left != NULL else NULL
        cdef node_t nid
        if self.s.root < 0 or key == NULL:
            return -1
        memset(key, 0, self.s.nw * sizeof(word_t))
        for r in rows:
            bs_set(key, <int64_t> r)
        nid = memo_find(&self.s.memo, key, -1, bs_hash(key, self.s.nw, -1))
        if nid < 0:
            return -1
        return int(self.s.memo.nodes[nid].best_split)

    def stats(self):
        return {"nodes": int(self.s.memo.n_nodes), "expansions": int(self.s.expansions),
                "evaluations": int(self.s.expansions), "work": int(self.s.work),
                "levels": int(self.s.n_levels), "seconds": self._seconds,
                "memo_bytes": int(memo_bytes(&self.s.memo)),
                "peak_rss_bytes": int(self.s.lim.peak_rss)}
