"""Node creation and the memo glue of the search.

A node's creation record (counts, leaf, potential, creation bounds) is a pure
function of its rows, so a child's record is computed from one fused pass over
the words of a split at its parent (`scan_counts`, `fill_sides`) and kept in the
parent's candidate; it is stored (`store_children`) only once it is searched or
its tree becomes the parent's incumbent.  A lookup (`find_child`) compares a
stored key with the child's rows without building them.

# Notes:
# - Every bound a record gets at creation comes from `_bounds.creation_bounds`.
# - A node id is stable; a pointer into the store is not (an insert may move
#   it), so records are re-read by id after anything that may insert.
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t, uint64_t, TOL, INF
from libc.stdint cimport uint32_t
from ._bitset cimport fst_ctz, fst_popcount, bs_count, bs_and, bs_andnot, bs_hash, bs_hash_final, bs_hash_linear
from ._memo cimport (Node, Memo, SPLIT_ELSEWHERE, memo_find, memo_insert, memo_insert_path, memo_key_is,
                     memo_make_whole, slot_tag)
from ._problem cimport split_row, split_row_bulk
from ._limits cimport RUNNING, STOP_MEMORY, STOP_SWITCH
from ._config cimport RULE_SUPPORT
from ._context cimport Ctx, Cand, scan_stopped
from ._limits cimport fst_now
from ._bounds cimport (leaf_loss, potential, worst_loss, leaf_support, split_supported,
                       support_unit, creation_bounds, merge_bound, settle,
                       lower_to_incumbent)
from ._simd cimport fst_and_count, fst_scan2
from ._squares_nodes cimport squares_fill, squares_valid

cdef void class_counts(Ctx* c, const word_t* X, int64_t total, double* out) noexcept nogil:
    """Class counts of X: K - 1 AND-popcounts, the last class by difference."""
    cdef int k
    cdef int64_t rest = total
    cdef int64_t v
    for k in range(c.sp.K - 1):
        v = fst_and_count(c.vec, X, c.sp.class_bits + k * c.sp.nw, c.sp.nw)
        out[k] = <double> v
        rest -= v
    out[c.sp.K - 1] = <double> rest


cdef int64_t marked_rows(Ctx* c, const word_t* X) noexcept nogil:
    """Rows of X in the whole-unit excess mask (0 without the mask)."""
    cdef int64_t w, pc = 0
    if c.sp.eq_mask == NULL:
        return 0
    for w in range(c.sp.nw):
        pc += fst_popcount(X[w] & c.sp.eq_mask[w])
    return pc


cdef double equivalent_excess(Ctx* c, const word_t* X) noexcept nogil:
    """The mixed groups' part of m(X): the sum, in row order, of the excess of each
    mixed group inside X, read from the group's representative row.

    X is a union of whole groups (every split sends identical rows the same way),
    so m(X) = sum_c cnt_c * mincost_c + this excess (see _problem.build_problem).
    Rows are sorted there by label and group, an order that does not depend on
    the input's, so the sum runs in the same order for any input order;
    `scan_counts` sums in the same order, so both give the same value."""
    cdef int64_t w, row
    cdef word_t word
    cdef double s = 0.0
    if c.sp.eq_mask != NULL:
        # Whole units: a popcount of the marked rows (exact, any order).
        return (<double> marked_rows(c, X)) * c.sp.eq_unit
    for w in range(c.sp.nw):
        word = X[w] & c.sp.rep_rows[w]
        while word:
            row = (w << 6) + fst_ctz(word)
            word &= word - 1
            s += c.sp.row_excess[row]
    return s



cdef node_t node_get(Ctx* c, const word_t* X, int depth, node_t parent, int32_t s,
                     int side) noexcept nogil:
    """Find the node of (X, depth) or create it with its creation bounds.  With a
    `parent` (>= 0), X is that node's rows on one side of split s (side 1: not in
    it), and a new node keeps its key as that path; without (-1), its key is
    stored whole (`node_get_whole`).

    Returns -1 (and sets a memory stop) when the store cannot grow."""
    cdef uint64_t h = bs_hash(X, c.sp.nw, depth)
    cdef node_t nid = memo_find(&c.memo, X, depth, h)
    if nid >= 0:
        return nid
    if parent >= 0:
        nid = memo_insert_path(&c.memo, parent, s, side, depth, h)
    else:
        nid = memo_insert(&c.memo, X, depth, h)
    if nid < 0:
        c.lim.stop = STOP_MEMORY
        return -1
    node_fill(c, &c.memo.nodes[nid], X, depth)
    return nid


cdef void node_fill(Ctx* c, Node* nd, const word_t* X, int depth) noexcept nogil:
    """The creation record of (X, depth) from its rows (under squared error,
    `_squares_nodes.squares_fill`)."""
    cdef double* cnt = c.cnt_scratch
    cdef int64_t total
    if c.sp.target != NULL:
        squares_fill(c, nd, X, depth)
        return
    total = bs_count(X, c.sp.nw)
    class_counts(c, X, total, cnt)
    node_fill_counts(c, nd, cnt, total, equivalent_excess(c, X), depth)


cdef void node_fill_counts(Ctx* c, Node* nd, const double* cnt, int64_t total,
                           double excess, int depth) noexcept nogil:
    """The creation record of a node of `depth` with class counts `cnt` and mixed
    groups' excess `excess`: counts, leaf, potential, creation bounds.  A pure
    function of the rows, so a record may be recomputed instead of stored."""
    cdef double loss, floor = 0.0
    cdef int k
    loss = leaf_loss(cnt, c.sp.K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL)
    nd.count = total
    nd.leaf = loss + c.cfg.lam
    nd.pot = potential(cnt, c.sp.K, c.sp.potc)
    nd.ub = nd.leaf             # (ii) the leaf is a real tree
    nd.best_split = -1
    nd.solved = 0
    nd.pair_done = 0
    nd.g2 = 0.0     # no two-leaf bound beyond 2 lam + floor yet (`two_leaf_transfer`)
    nd.g3 = INF
    for k in range(c.sp.K):
        floor += cnt[k] * c.sp.mincost[k]
    floor += excess
    creation_bounds(nd, loss, floor, depth, total, c.cfg.lam, c.cfg.rules)


cdef void fill_sides(Ctx* c, uint64_t hX, uint64_t hl, double exl, double exr,
                            const double* cntL, const double* cntR, int64_t nl,
                            int64_t total, int depth, Node* L, Node* R) noexcept nogil:
    """The children's creation records from `scan_counts`' sums (the right side's
    hash by difference: the linear hash adds up over disjoint sets)."""
    L.hash = bs_hash_final(hl, depth)
    L.depth = depth
    node_fill_counts(c, L, cntL, nl, exl, depth)
    R.hash = bs_hash_final(hX - hl, depth)
    R.depth = depth
    node_fill_counts(c, R, cntR, total - nl, exr, depth)


cdef int64_t scan_counts(Ctx* c, const word_t* X, int64_t eX, const word_t* S,
                         const double* cnt, double* cntL, double* cntR, uint64_t* hash_l,
                         double* ex_l, double* ex_r) noexcept nogil:
    """One pass over the words of a split S at X (its children's records then
    follow from `fill_sides`, after the caller's leaf-support test): the rows of
    X & S (returned), both sides' class counts, the left side's linear hash and
    both sides' excess.  eX = marked rows of X (whole-unit excess; unused
    otherwise): the right side's counts and whole-unit excess follow by
    difference, exactly.  The sums are the same as bs_hash's and
    equivalent_excess's (a real excess in row order)."""
    cdef int nw = c.sp.nw
    cdef int K = c.sp.K
    cdef int64_t* ic = c.icnt
    cdef int64_t w, row, nl = 0, rest
    cdef int k
    cdef word_t a, b, ra, rb, rep
    cdef uint64_t hl = 0
    cdef const uint64_t* hkey = c.hkey
    cdef const word_t* cb0 = c.sp.class_bits
    cdef int64_t c0 = 0, el = 0
    cdef const word_t* eqm = c.sp.eq_mask
    cdef double exl = 0.0, exr = 0.0
    cdef int64_t sums[3]
    for k in range(K):
        ic[k] = 0
    if eqm != NULL and K == 2:
        # The common case (0/1 loss, two classes): one loop, 8 words to a vector
        # where the CPU has AVX-512, 4 with AVX2 and rows sorted by class
        # (fst_scan2, simd/scan.h; integer sums, the same).
        fst_scan2(c.vec, X, S, cb0, eqm, hkey, nw, sums, &hl, c.sp.n0_prefix)
        nl = sums[0]
        c0 = sums[1]
        el = sums[2]
    elif eqm != NULL:
        for w in range(nw):
            a = X[w] & S[w]
            nl += fst_popcount(a)
            c0 += fst_popcount(a & cb0[w])
            for k in range(1, K - 1):
                ic[k] += fst_popcount(a & c.sp.class_bits[k * nw + w])
            el += fst_popcount(a & eqm[w])
            hl += (a & 0xFFFFFFFFULL) * hkey[2 * w] + (a >> 32) * hkey[2 * w + 1]
    else:
        for w in range(nw):
            a = X[w] & S[w]
            b = X[w] & ~S[w]
            nl += fst_popcount(a)
            c0 += fst_popcount(a & cb0[w])
            for k in range(1, K - 1):
                ic[k] += fst_popcount(a & c.sp.class_bits[k * nw + w])
            hl += (a & 0xFFFFFFFFULL) * hkey[2 * w] + (a >> 32) * hkey[2 * w + 1]
            rep = c.sp.rep_rows[w]
            ra = a & rep
            while ra:
                row = (w << 6) + fst_ctz(ra)
                ra &= ra - 1
                exl += c.sp.row_excess[row]
            rb = b & rep
            while rb:
                row = (w << 6) + fst_ctz(rb)
                rb &= rb - 1
                exr += c.sp.row_excess[row]
    ic[0] = c0
    if eqm != NULL:
        exl = (<double> el) * c.sp.eq_unit
        exr = (<double> (eX - el)) * c.sp.eq_unit   # whole units: exact by difference
    rest = nl
    for k in range(K - 1):
        cntL[k] = <double> ic[k]
        rest -= ic[k]
    cntL[K - 1] = <double> rest
    for k in range(K):
        cntR[k] = cnt[k] - cntL[k]
    hash_l[0] = hl
    ex_l[0] = exl
    ex_r[0] = exr
    return nl



cdef node_t find_child(Ctx* c, node_t xid, const word_t* X, int32_t s, bint right,
                       const Node* rec) noexcept nogil:
    """The memo id of child X & S (X & ~S when `right`; S the rows of split s, X the
    rows of node xid) whose creation record `rec` (hash, depth, count) is known, or
    -1.  A stored key that is this very path (xid, s, side) is the child; any other
    is compared word for word with the child's rows, which are not built."""
    cdef Memo* m = &c.memo
    cdef int nw = c.sp.nw
    cdef uint64_t mask = <uint64_t> (m.table_size - 1)
    cdef uint64_t slot = rec.hash & mask
    cdef const word_t* S = split_row(&c.sp, s)
    cdef int32_t path = 2 * s + (1 if right else 0)
    cdef uint32_t tag = slot_tag(rec.hash)
    cdef node_t nid
    while True:
        nid = m.table[slot].id
        if nid < 0:
            return -1
        if (m.table[slot].tag == tag and m.nodes[nid].hash == rec.hash
                and m.nodes[nid].depth == rec.depth and m.nodes[nid].count == rec.count):
            if m.nodes[nid].key_split == path and m.nodes[nid].key_ref == xid:
                return nid
            if memo_key_is(m, nid, X, S, right):
                return nid
        slot = (slot + 1) & mask



cdef node_t store_record(Ctx* c, const word_t* T, const Node* rec, node_t parent,
                         int32_t s, int side, word_t* T2) noexcept nogil:
    """Store the node of rows T whose record `rec` is known, its key held as the
    path (parent, s, side): T is parent's rows on that side of split s.  The record
    is its creation record, or one the pair stage valued while it lived in its
    candidate (`pair_stage`): then its best two-leaf tree (rec.best_split) is
    installed through real grandchildren, so extraction can rebuild it.  If another
    path stored the node meanwhile, the record's bound and tree are merged into it
    (its pair values are not: the node values its own when needed).  T2:
    nw words of scratch.  Returns -1 and sets a memory stop when the store cannot
    grow."""
    cdef node_t nid = memo_find(&c.memo, T, rec.depth, rec.hash)
    cdef int32_t key_split, key_ref
    cdef Node* nd
    if nid < 0:
        nid = memo_insert_path(&c.memo, parent, s, side, rec.depth, rec.hash)
        if nid < 0:
            c.lim.stop = STOP_MEMORY
            return -1
        key_split = c.memo.nodes[nid].key_split
        key_ref = c.memo.nodes[nid].key_ref
        c.memo.nodes[nid] = rec[0]
        nd = &c.memo.nodes[nid]
        nd.key_split = key_split
        nd.key_ref = key_ref
        # the incumbent is the leaf until the two-leaf tree's grandchildren exist,
        # and the node is solved again below only once its tree is in place
        nd.ub = nd.leaf
        nd.best_split = -1
        nd.solved = 0
        if rec.best_split == SPLIT_ELSEWHERE:
            # a tree another thread's store holds: still real, kept as it is
            nd.ub = rec.ub
            nd.best_split = SPLIT_ELSEWHERE
    else:
        merge_bound(&c.memo.nodes[nid], rec.lb)
    if rec.best_split >= 0 and install_two_leaf(c, nid, T, rec.best_split, rec.ub, T2) < 0:
        return -1
    nd = &c.memo.nodes[nid]
    lower_to_incumbent(nd)
    settle(nd)
    return nid


cdef int store_children(Ctx* c, node_t xid, const word_t* X, Cand* cd) noexcept nogil:
    """Store a candidate's children (of node xid, rows X) in the memo from their
    creation records.  Returns -1 on a memory stop."""
    cdef int nw = c.sp.nw
    cdef word_t* T
    cdef const word_t* S = split_row(&c.sp, cd.split)
    if cd.left >= 0 and cd.right >= 0:
        return 0
    # the children's paths end at xid: its own key becomes whole (chains stay short)
    if c.memo.nodes[xid].key_split >= 0 and memo_make_whole(&c.memo, xid) < 0:
        c.lim.stop = STOP_MEMORY
        return -1
    T = <word_t*> malloc(2 * nw * sizeof(word_t))
    if T == NULL:
        c.lim.stop = STOP_MEMORY
        return -1
    if cd.left < 0:
        bs_and(T, X, S, nw)
        cd.left = store_record(c, T, &cd.tl, xid, cd.split, 0, T + nw)
    if cd.right < 0 and cd.left >= 0:
        bs_andnot(T, X, S, nw)
        cd.right = store_record(c, T, &cd.tr, xid, cd.split, 1, T + nw)
    free(T)
    return 0 if cd.left >= 0 and cd.right >= 0 else -1



cdef int install_two_leaf(Ctx* c, node_t child, const word_t* rows, int32_t s,
                           double value, word_t* T) noexcept nogil:
    """Record the child's best two-leaf tree (split s) as its incumbent when it is
    better: a real tree (ii) -- the grandchildren are created so that extraction
    can rebuild it.  Returns -1 on a memory stop."""
    cdef int nw = c.sp.nw
    cdef int cd = c.memo.nodes[child].depth
    cdef int gd = cd - 1 if cd > 0 else -1
    cdef node_t ga, gb
    cdef Node* nd
    cdef double v
    if not (value < c.memo.nodes[child].ub):
        return 0
    bs_and(T, rows, split_row(&c.sp, s), nw)
    ga = node_get(c, T, gd, child, s, 0)
    bs_andnot(T, rows, split_row(&c.sp, s), nw)
    gb = node_get(c, T, gd, child, s, 1)
    if ga < 0 or gb < 0:
        return -1
    v = c.memo.nodes[ga].ub + c.memo.nodes[gb].ub
    nd = &c.memo.nodes[child]
    if v < nd.ub:
        nd.ub = v
        nd.best_split = s
    return 0



cdef int gather_valid(Ctx* c, const word_t* X, int64_t total, const double* cnt,
                      int child_depth, const int32_t* cand, int ncand, int32_t* valid,
                      Cand* cands, bint* one_column) noexcept nogil:
    """Valid splits of X among `cand`: separating with at least min_leaf rows a
    side (min_samples_leaf: the problem's own constraint, no rule), one per
    distinct partition, leaf-supported.  Fills valid[] and, per valid split, cands[].pot_left,
    .worst_left, .worst_right, .col,
    .pair_leaf (the two-leaf value leaf(L) + leaf(R)) and the children's creation
    records .tl, .tr (depth `child_depth`).  Returns how many, or -1 when the
    search is stopped, before or during the scan (`scan_stopped`): the valid splits are then incomplete, so the caller must leave
    the node as it was (no leaf settled, no bound raised).  Under squared error
    the same from the rows' sums (`_squares_nodes.squares_valid`; cnt unused)."""
    cdef int nw = c.sp.nw
    cdef int K = c.sp.K
    cdef int i, k, col, prev_col = -1, nvalid = 0
    cdef int64_t nl, prev_cnt = -1
    cdef int32_t s
    cdef const word_t* S
    cdef double* cntL = c.cnt_scratch + K
    cdef double* cntR = c.cnt_scratch + 2 * K
    cdef double wL, wR, lossL, lossR
    cdef double sup_lam = support_unit(c.cfg.lam)   # see `split_supported`
    cdef uint64_t hX
    cdef int64_t eX
    cdef uint64_t hl
    cdef double exl, exr
    cdef double next_signal = fst_now() + 0.1
    # the poll's period in candidates: every one when a candidate's leaf losses
    # alone take thousands of operations (many classes), else every 64th
    cdef int poll_mask = 0 if <int64_t> K * c.sp.n_pcols > 4096 else 63
    if c.sp.target != NULL:
        return squares_valid(c, X, total, child_depth, cand, ncand, valid, cands,
                             one_column)
    if c.lim.stop != RUNNING and c.lim.stop != STOP_SWITCH:
        return -1           # already stopped: no scan
    hX = bs_hash_linear(X, nw)
    eX = marked_rows(c, X)
    one_column[0] = True
    for i in range(ncand):
        if (i & poll_mask) == poll_mask and scan_stopped(c, &next_signal):
            return -1
        s = cand[i]
        S = split_row_bulk(&c.sp, s)
        col = c.sp.split_col[s]
        if col == prev_col:
            nl = fst_and_count(c.vec, X, S, nw)
            if nl == prev_cnt:
                # Same partition of X as the previous threshold of this column
                # (left sides are nested, equal counts mean equal sets).
                continue
        nl = scan_counts(c, X, eX, S, cnt, cntL, cntR, &hl, &exl, &exr)
        prev_col = col
        prev_cnt = nl
        if nl < c.cfg.min_leaf or total - nl < c.cfg.min_leaf:
            continue  # a side of fewer rows than a leaf must hold (or none)
        wL = worst_loss(cntL, K, c.sp.maxcost)
        wR = worst_loss(cntR, K, c.sp.maxcost)
        lossL = leaf_loss(cntL, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL)
        lossR = leaf_loss(cntR, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL)
        if (c.cfg.rules & RULE_SUPPORT) and not split_supported(
                leaf_support(wL, lossL), leaf_support(wR, lossR), sup_lam):
            continue  # leaf support: dropped here and in every descendant
        fill_sides(c, hX, hl, exl, exr, cntL, cntR, nl, total, child_depth,
                   &cands[nvalid].tl, &cands[nvalid].tr)
        if nvalid > 0 and c.sp.split_col[valid[0]] != col:
            one_column[0] = False
        cands[nvalid].pot_left = potential(cntL, K, c.sp.potc)
        cands[nvalid].worst_left = wL
        cands[nvalid].worst_right = wR
        cands[nvalid].col = col
        cands[nvalid].pair_leaf = lossL + lossR + 2.0 * c.cfg.lam
        valid[nvalid] = s
        nvalid += 1
    return nvalid


