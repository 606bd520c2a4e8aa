"""The budgeted certified search for the best sparse tree.

`solve(X, B)` either solves node X (R(X) known exactly, lb == ub) with R(X) <= B,
or leaves it with a proven lower bound lb(X) > B.  The schedule (`_schedule`)
deepens the budget at the root until the root is solved or a limit stops the
search.  docs/how_it_works.md ("Invariants and the tolerance") gives the loop
and the invariants every memo write keeps (_bounds.pxd states them): lower bounds are admissible, an
incumbent is a real tree, and an unsolved answer carries lb > budget.

# Notes:
# - The search runs on an explicit stack of frames (`solve`), one per open node,
#   in one nogil loop: its depth, the depth of the tree being explored, is bounded
#   by memory, not by the C stack.  Each frame owns its scratch (copied row set,
#   candidates), so an insert that moves the memo store never invalidates a
#   frame's data: nodes are always re-read by id.
# - A stop (time, memory, Ctrl-C) unwinds every frame; each writes its best real
#   tree into its node on the way out (a flush of incumbents, never a bound), so
#   the root holds the best tree found.
# - Every bound written here and every node marked solved goes through a named
#   rule of _bounds.pxd.
"""
from libc.stdlib cimport malloc, calloc, realloc, free, qsort
from libc.string cimport memcpy, memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, TOL, INF
from ._memo cimport Node, memo_key
from ._limits cimport STOP_MEMORY
from ._config cimport (RULE_SEGMENT, RULE_TRANSFER, RULE_EXCHANGE, RULE_PAIRS,
                       RULE_PEEL3, RULE_LEAF_BUDGET)
from ._context cimport (Ctx, Cand, Key, cand_node, check_limits, check_memory_now, owns,
                        restricted, fst_shared_incumbent, fst_shared_lower)
from ._bounds cimport (settle, settle_leaf, settle_at_incumbent, raise_bound,
                       lower_to_incumbent, capacity_unit, split_bound, split_not_worth,
                       column_transfer, threshold_exchange, splits_lower_bound,
                       superset_bound, lookahead_first, lookahead_second,
                       raise_split_bound, children_bound, split_value,
                       owned_splits_lower_bound, shared_cap, shared_bound,
                       share_settles, adopt_shared_tree, two_leaf_closure_bound,
                       subset_child_bound, superset_child_bound)
from ._table cimport fst_table_get, fst_table_put
from ._nodes cimport (class_counts, find_child, store_children, gather_valid,
                      prefetch_slots, prefetch_match)
from ._segment cimport solve_single_column
from ._pair_stage cimport transfer_to_children, expand_pairs

cdef enum:
    # The states of a frame (`Frame.state`)
    F_BEGIN = 0      # entered: the expansion's set-up comes next (`_expand_begin`)
    F_LOOP = 2       # in the candidate loop, at candidate key k
    F_FIRST = 3      # the loop's candidate waits for its first child
    F_SECOND = 4     # ... for its second child
    F_DONE = 5       # finished: its incumbents are flushed and it is popped

cdef enum:
    PF_SLOT = 16       # candidates ahead whose children's table slots are prefetched
    PF_MATCH = 8       # candidates ahead whose children's records are prefetched


cdef int cmp_key(const void* pa, const void* pb) noexcept nogil:
    """Candidates by increasing sort key (the lower bound; in a ladder rung the
    incumbent), ties by split index (a fixed order)."""
    cdef const Key* a = <const Key*> pa
    cdef const Key* b = <const Key*> pb
    if a.ord < b.ord:
        return -1
    if a.ord > b.ord:
        return 1
    return (a.split > b.split) - (a.split < b.split)


cdef inline void _want(Frame* f, node_t child, double B, const int32_t* cand,
                       int ncand) noexcept nogil:
    """Ask the driver to solve `child` within B over `cand` before f resumes."""
    f.want = 1
    f.child = child
    f.child_B = B
    f.child_cand = cand
    f.child_ncand = ncand


cdef bint _frame_enter(Ctx* c, node_t nid, const int32_t* cand, int ncand,
                       double B) noexcept nogil:
    """The entry of `solve(nid, B)`: returns False when the node needs no
    expansion (solved, its incumbent within TOL of its bound, proved above B, or
    a stop), else pushes its frame and returns True."""
    cdef Node* nd = &c.memo.nodes[nid]
    cdef Frame* f
    cdef Frame* grown
    cdef int64_t cap
    if nd.solved or c.lim.stop:
        return False
    cdef double ub
    # the threads' table at entry only: a lookup per candidate's child costs a
    # cache miss each, more than the searches it spares
    if c.table != NULL and not restricted(c, nd.count):
        if shared_bound(nd, fst_table_get(c.table, nd.hash, nd.count, nd.depth,
                                          memo_key(&c.memo, nid), &ub)):
            c.st.shared_raises += 1
        if adopt_shared_tree(nd, ub):
            c.st.shared_trees += 1
        lower_to_incumbent(nd)
    if settle(nd):
        return False
    if nd.lb > B + TOL:
        return False
    check_limits(c)
    if c.lim.stop:
        return False
    if c.n_frames == c.cap_frames:
        cap = 2 * c.cap_frames if c.cap_frames > 0 else 64
        grown = <Frame*> realloc(c.frames, cap * sizeof(Frame))
        if grown == NULL:
            c.lim.stop = STOP_MEMORY
            return False
        c.frames = grown
        c.cap_frames = cap
    f = &(<Frame*> c.frames)[c.n_frames]
    c.n_frames += 1
    memset(f, 0, sizeof(Frame))
    f.nid = nid
    f.B = B
    f.cand = cand
    f.ncand = ncand
    f.restricted = restricted(c, nd.count)
    f.si_min = INF
    c.st.expansions += 1
    f.X = <word_t*> malloc(c.sp.nw * sizeof(word_t))
    f.valid = <int32_t*> malloc((ncand + 1) * sizeof(int32_t))
    f.cnt = <double*> malloc(c.sp.K * sizeof(double))
    f.cands = <Cand*> malloc((ncand + 1) * sizeof(Cand))
    if f.X == NULL or f.valid == NULL or f.cnt == NULL or f.cands == NULL:
        c.lim.stop = STOP_MEMORY
        f.state = F_DONE
    else:
        f.state = F_BEGIN
    return True


cdef void _frame_finish(Ctx* c, Frame* f) noexcept nogil:
    """The exit of `solve`: flush the frame's incumbents and pop it.

    Children's incumbents may have improved while they were searched; each
    candidate's tree is real (ii).  Never raises a bound."""
    cdef Node* nd
    cdef int i
    cdef double v
    if f.cands != NULL:
        nd = &c.memo.nodes[f.nid]
        for i in range(f.n_cands):
            if f.cands[i].left < 0 or f.cands[i].right < 0:
                continue   # not stored: its records' trees were weighed in the expansion
            v = cand_node(c, &f.cands[i], 0).ub + cand_node(c, &f.cands[i], 1).ub
            if v < nd.ub:
                nd.ub = v
                nd.best_split = f.cands[i].split
                lower_to_incumbent(nd)
        settle(nd)
        if c.sh != NULL and f.nid == c.prog_root:
            fst_shared_lower(c.sh, nd.ub)
        if c.table != NULL and f.X != NULL and not f.restricted and f.state == F_DONE:
            # what this expansion proved, for the other threads
            fst_table_put(c.table, nd.hash, nd.count, nd.depth, f.X, nd.lb, nd.ub)
    free(f.X)
    free(f.valid)
    free(f.cnt)
    free(f.cands)
    free(f.keys)
    c.n_frames -= 1


cdef void solve(Ctx* c, node_t nid, const int32_t* cand, int ncand, double B) noexcept nogil:
    """Solve node `nid` within budget B over the splits `cand` (a superset of its
    valid splits: the parent's valid splits).  On return, unless a stop is set,
    the node is solved with ub <= B + TOL or has lb > B.

    The search runs here on an explicit stack of frames, one per open node: a
    frame that needs a child solved records it (`_want`) and the loop pushes the
    child's frame on top; when that frame is done and popped, the frame below
    resumes where it stopped.  A stop unwinds every open frame through
    `_frame_finish`, which writes each one's best real tree into its node."""
    cdef int base = c.n_frames
    cdef Frame* f
    if not _frame_enter(c, nid, cand, ncand, B):
        return
    while c.n_frames > base:
        f = &(<Frame*> c.frames)[c.n_frames - 1]
        if f.want:
            f.want = 0
            _frame_enter(c, f.child, f.child_cand, f.child_ncand, f.child_B)
            continue
        while not f.want and f.state != F_DONE:
            if f.state == F_BEGIN:
                _expand_begin(c, f)
            else:
                _expand_loop(c, f)
        if f.state == F_DONE:
            _frame_finish(c, f)


cdef void _expand_begin(Ctx* c, Frame* f) noexcept nogil:
    """The expansion of frame f's node up to its candidate loop: the valid
    splits, the leaf and single-column
    rules, the children's records, the pair stage, each split's bound and the
    node's; then the candidates in search order (state F_LOOP), or F_DONE when
    the node is settled here.  The frame's candidates whose children were looked
    up (`n_cands`) are flushed when it finishes."""
    cdef node_t nid = f.nid
    cdef Node* nd = &c.memo.nodes[nid]
    cdef int depth = nd.depth
    cdef int child_depth = depth - 1 if depth > 0 else -1
    cdef bint one_column = True
    f.state = F_DONE
    memcpy(f.X, memo_key(&c.memo, nid), c.sp.nw * sizeof(word_t))
    class_counts(c, f.X, nd.count, f.cnt)
    f.nvalid = gather_valid(c, f.X, nd.count, f.cnt, child_depth, f.cand, f.ncand,
                            f.valid, f.cands, &one_column)
    if f.nvalid < 0:
        # stopped during the scan: the node stays as it was
        f.nvalid = 0
        return
    c.work += 20000 + <int64_t> (f.ncand + 4 * f.nvalid) * c.sp.nw
    if f.nvalid == 0:
        # Leaf support: no supported split, so the best tree is a leaf.
        settle_leaf(nd)
        return
    if one_column and (c.cfg.rules & RULE_SEGMENT):
        # Single column: the segmentation programme gives R(X) exactly.
        solve_single_column(c, nid, f.X, c.sp.split_col[f.valid[0]])
        return
    _lookup_children(c, f)
    if f.nvalid >= 1024:
        check_memory_now(c)
        if c.lim.stop:
            return
    nd = &c.memo.nodes[nid]
    if (c.cfg.rules & RULE_PEEL3) and nd.pair_done and nd.g2 < INF:
        transfer_to_children(c, nd, f.cands, f.nvalid)
    if (c.cfg.rules & RULE_PAIRS) and child_depth != 0:
        if expand_pairs(c, nid, f.X, f.cnt, f.valid, f.nvalid, f.cands, f.B) < 0:
            return
    if _bound_node(c, f):
        _order_candidates(c, f)


cdef void _lookup_children(Ctx* c, Frame* f) noexcept nogil:
    """Each candidate's children found in the store, or left as the creation
    records `gather_valid` made.  A child is stored only when it is searched or
    its tree becomes this node's incumbent; until then its record lives in the
    candidate (a pure function of its rows), with what the pair stage adds.  Most
    expansions end proved above the budget right after the pair stage, and their
    children's records are dropped with them, at the price of valuing a child
    again when its parent is expanded again.

    The lookups miss the cache on a large store: the slot of the candidate
    PF_SLOT ahead is asked for, and the record behind the slot PF_MATCH ahead
    when its hash matches (a likely hit), so both arrive before they are read."""
    cdef Cand* cands = f.cands
    cdef int i, nvalid = f.nvalid
    cdef int32_t s
    cdef bint lazy = c.sp.target != NULL
    for i in range(PF_SLOT if PF_SLOT < nvalid else nvalid):
        prefetch_slots(&c.memo, &cands[i])
    for i in range(PF_MATCH if PF_MATCH < nvalid else nvalid):
        prefetch_match(&c.memo, cands[i].tl.hash)
        prefetch_match(&c.memo, cands[i].tr.hash)
    for i in range(nvalid):
        if i + PF_SLOT < nvalid:
            prefetch_slots(&c.memo, &cands[i + PF_SLOT])
        if i + PF_MATCH < nvalid:
            prefetch_match(&c.memo, cands[i + PF_MATCH].tl.hash)
            prefetch_match(&c.memo, cands[i + PF_MATCH].tr.hash)
        s = f.valid[i]
        if lazy and cands[i].tl.lb + cands[i].tr.lb > f.B + TOL:
            # squared error: a split whose children's creation bounds put it
            # above the budget is not searched here, and its children are
            # looked up once it is (no pair stage bounds them, and a stored
            # child's bound would only raise a split already above the budget)
            cands[i].left = -1
            cands[i].right = -1
        else:
            cands[i].left = find_child(c, f.nid, f.X, s, False, &cands[i].tl)
            cands[i].right = find_child(c, f.nid, f.X, s, True, &cands[i].tr)
        cands[i].split = s
        cands[i].dropped = 0
        f.n_cands = i + 1



cdef bint _bound_node(Ctx* c, Frame* f) noexcept nogil:
    """Each split's bound from its children (the shape relaxation under
    RULE_PAIRS), the incumbent from the best two-level tree, the splits set aside
    (side worth, threshold exchange) and the bounds spread along each column
    (column transfer); then the node's bound.  Returns False when the node is
    settled here or proved above its budget (the frame is done), True when its
    candidates are to be searched."""
    cdef node_t nid = f.nid
    cdef Node* nd = &c.memo.nodes[nid]
    cdef Cand* cands = f.cands
    cdef Node* L
    cdef Node* R
    cdef double sup = 0.0, v, best2 = INF
    cdef double cap_unit = capacity_unit(c.cfg.rules, c.cfg.lam)
    cdef int i
    for i in range(f.nvalid):
        L = cand_node(c, &cands[i], 0)
        R = cand_node(c, &cands[i], 1)
        if cands[i].pair_leaf < best2:
            best2 = cands[i].pair_leaf
        if c.cfg.rules & RULE_PAIRS:
            # Shape relaxation (and the exact two-level value): a bound on every
            # tree rooted at this split.
            cands[i].lb = split_bound(L, R, c.cfg.lam, cap_unit)
        else:
            cands[i].lb = children_bound(L, R)
        v = L.ub + R.ub
        if v < nd.ub:
            # (ii) a real tree: split s over the children's trees, stored so that
            # extraction can rebuild it (a stored child's incumbent is no worse
            # than its record's)
            if store_children(c, nid, f.X, &cands[i]) < 0:
                return False
            nd = &c.memo.nodes[nid]
            L = cand_node(c, &cands[i], 0)
            R = cand_node(c, &cands[i], 1)
            nd.ub = L.ub + R.ub
            nd.best_split = cands[i].split
        if split_not_worth(c.cfg.rules, &cands[i], L, R):
            cands[i].dropped = 1   # never optimal at X: side worth
        if L.lb > sup:
            sup = L.lb
        if R.lb > sup:
            sup = R.lb
    if c.cfg.rules & RULE_TRANSFER:
        column_transfer(cands, f.nvalid)
    if c.cfg.rules & RULE_EXCHANGE:
        threshold_exchange(c, cands, f.nvalid)
    raise_bound(nd, superset_bound(_splits_bound(c, f), sup, nd.depth, c.cfg.rules))
    if (c.cfg.rules & RULE_LEAF_BUDGET) and nd.depth < 0 and not f.restricted:
        # every tree of one or two leaves was valued (the leaf, the best of the
        # splits' two leaves, which is the incumbent or worse than it)
        raise_bound(nd, two_leaf_closure_bound(nd.leaf, best2, nd.floor, c.cfg.lam))
        lower_to_incumbent(nd)
    if settle(nd):
        return False
    return not (nd.lb > f.B + TOL)   # else proved above the budget


cdef inline double _splits_bound(Ctx* c, Frame* f) noexcept nogil:
    """The node's bound from its candidates: over this thread's splits at a
    parallel root (`owned_splits_lower_bound`), else over all."""
    if f.restricted:
        return owned_splits_lower_bound(f.cands, f.nvalid, c.memo.nodes[f.nid].leaf,
                                        c.tid, c.n_workers)
    return splits_lower_bound(f.cands, f.nvalid, c.memo.nodes[f.nid].leaf)


cdef void _order_candidates(Ctx* c, Frame* f) noexcept nogil:
    """The kept candidates in search order (by bound; in a ladder rung by
    incumbent; under squared error by their two leaves' value, the greedy
    split first, which finds good incumbents early where no pair stage bounds
    the children), ties by split index; the frame enters its candidate loop."""
    cdef Key* keys = <Key*> malloc(f.nvalid * sizeof(Key))
    cdef Cand* cands = f.cands
    cdef int i, nkeys = 0
    if keys == NULL:
        c.lim.stop = STOP_MEMORY
        return
    for i in range(f.nvalid):
        if not cands[i].dropped and (not f.restricted or owns(c, cands[i].split)):
            if c.sp.target != NULL:
                keys[nkeys].ord = cands[i].pair_leaf
            elif c.order_ub:
                keys[nkeys].ord = cand_node(c, &cands[i], 0).ub + cand_node(c, &cands[i], 1).ub
            else:
                keys[nkeys].ord = cands[i].lb
            keys[nkeys].split = cands[i].split
            keys[nkeys].idx = i
            nkeys += 1
    qsort(keys, nkeys, sizeof(Key), cmp_key)
    f.keys = keys
    f.nkeys = nkeys
    f.best = c.memo.nodes[f.nid].ub
    f.k = 0
    f.state = F_LOOP


cdef bint _after_child(Ctx* c, Frame* f) noexcept nogil:
    """The loop's candidate after its first (F_FIRST) or second (F_SECOND) child
    was solved: ask for the second child (True), or settle the candidate and
    move on (False).  Look-ahead budgets: the first child gets what the second
    leaves at least, the second what the first's optimum leaves; a child proved
    above its share puts the split above the cap."""
    cdef Cand* cd = &f.cands[f.i]
    cdef Node* L = &c.memo.nodes[f.first]
    cdef Node* R = &c.memo.nodes[f.second]
    cdef double v
    if f.state == F_FIRST:
        if not (L.solved and L.ub <= f.bl + TOL):
            # Look-ahead: the first child is proved above its share.
            raise_split_bound(cd, lookahead_first(L, R))
            _spread_children(c, f, f.i)
            f.k += 1
            return False
        f.br = f.cap - L.ub
        f.state = F_SECOND
        _want(f, f.second, f.br, f.valid, f.nvalid)
        return True
    if not (R.solved and R.ub <= f.br + TOL):
        # Look-ahead: the second child is proved above what the solved first leaves.
        raise_split_bound(cd, lookahead_second(L, R))
    else:
        v = split_value(L, R)
        cd.lb = v  # both children solved: the split's bound is its value
        if v < f.best:
            f.best = v
            c.memo.nodes[f.nid].ub = v              # (ii) a real tree
            c.memo.nodes[f.nid].best_split = cd.split
            if c.sh != NULL and f.nid == c.prog_root:
                fst_shared_lower(c.sh, v)
    _spread_children(c, f, f.i)
    f.k += 1
    return False


cdef void _spread_children(Ctx* c, Frame* f, int j) noexcept nogil:
    """Under squared error, a searched split's children's bounds passed to the
    other splits of its column, to their children's records (stored or not)
    and so to their bounds: of a split nearer a side, that side's child holds
    the searched one's rows less those between (`subset_child_bound`, their
    worst the difference of the sides' worsts: RULE_EXCHANGE), and its other
    child contains the searched one's (`superset_child_bound`: RULE_TRANSFER).
    (Under classification the pair stage bounds the children, and bounds move
    along a column by `column_transfer` at the loop's ends.)"""
    cdef Cand* cands = f.cands
    cdef Cand* cj = &cands[j]
    cdef Cand* o
    cdef double lbl, lbr
    cdef bint exchange = (c.cfg.rules & RULE_EXCHANGE) != 0
    cdef bint transfer = (c.cfg.rules & RULE_TRANSFER) != 0
    cdef int i
    if c.sp.target == NULL or not (exchange or transfer):
        return
    lbl = cand_node(c, cj, 0).lb
    lbr = cand_node(c, cj, 1).lb
    i = j - 1
    while i >= 0 and cands[i].col == cj.col:
        # o's left side is cj's less the rows between, its right side cj's and them
        o = &cands[i]
        if exchange:
            _raise_child(c, o, 0, subset_child_bound(lbl, cj.worst_left - o.worst_left))
        if transfer:
            _raise_child(c, o, 1, superset_child_bound(lbr))
        i -= 1
    i = j + 1
    while i < f.nvalid and cands[i].col == cj.col:
        o = &cands[i]
        if transfer:
            _raise_child(c, o, 0, superset_child_bound(lbl))
        if exchange:
            _raise_child(c, o, 1, subset_child_bound(lbr, o.worst_left - cj.worst_left))
        i += 1


cdef inline void _raise_child(Ctx* c, Cand* o, int right, double v) noexcept nogil:
    """A bound proved for one child of candidate o: its record (in the store
    when stored) and o's bound take it."""
    cdef Node* nd = cand_node(c, o, right)
    if nd.solved or not (v > nd.lb):
        return
    raise_bound(nd, v)
    lower_to_incumbent(nd)
    settle(nd)
    raise_split_bound(o, children_bound(cand_node(c, o, 0), cand_node(c, o, 1)))


cdef inline bint _right_first(Ctx* c, node_t left, node_t right) noexcept nogil:
    """Which child of a split is searched first: the one of fewer rows (ties:
    the left), or under squared error the one of the smaller leaf loss."""
    if c.sp.target != NULL:
        return c.memo.nodes[right].leaf < c.memo.nodes[left].leaf
    return c.memo.nodes[right].count < c.memo.nodes[left].count


cdef void _expand_loop(Ctx* c, Frame* f) noexcept nogil:
    """Frame f's candidate loop, from where it stopped: the candidates in search
    order, each one's children searched with look-ahead budgets (the first asked
    of the driver in state F_FIRST, the second in F_SECOND), until no candidate
    can fit the budget or beat the incumbent; then the node's bound (F_DONE)."""
    cdef Cand* cands = f.cands
    cdef Key* keys = f.keys
    cdef double B = f.B, cap, si
    cdef bint shared = f.restricted and f.nid == c.prog_root
    # keys sorted by bound end the loop at the first above the cap or the
    # incumbent; other orders (a rung's, squared error's) skip them one by one
    cdef bint by_bound = not c.order_ub and c.sp.target == NULL
    cdef int i, k
    if f.state == F_FIRST or f.state == F_SECOND:
        if not c.lim.stop and _after_child(c, f):
            return
    f.state = F_LOOP
    while not c.lim.stop and f.k < f.nkeys:
        k = f.k
        i = keys[k].idx
        cap = B if B < f.best else f.best
        if shared:
            # a parallel root: another thread's tree caps this one's share
            si = fst_shared_incumbent(c.sh)
            if shared_cap(cap, si) < cap:
                cap = shared_cap(cap, si)
                if si < f.si_min:
                    f.si_min = si
        if cands[i].lb > cap + TOL:
            # Bounds only rise (column transfer from failed neighbours), so this
            # candidate is out; later keys were sorted no lower, but their bounds
            # may have risen too: skip rather than stop.
            if keys[k].ord > cap + TOL and by_bound:
                break  # sorted: no remaining split fits the budget
            f.k += 1
            continue
        if f.best <= B + TOL and cands[i].lb >= f.best - TOL:
            if keys[k].ord >= f.best - TOL and by_bound:
                break  # no remaining split can improve on the incumbent
            f.k += 1
            continue
        # Both children are searched from here on: store them.
        if store_children(c, f.nid, f.X, &cands[i]) < 0:
            break
        # The child of fewer rows goes first (ties: the left; under squared
        # error the one of the smaller leaf loss, `_right_first`): it is solved
        # cheaply, and its exact value then gives the other child a tighter
        # budget than its sibling's bound would.  Either order is sound.
        if _right_first(c, cands[i].left, cands[i].right):
            f.first = cands[i].right
            f.second = cands[i].left
        else:
            f.first = cands[i].left
            f.second = cands[i].right
        f.i = i
        f.cap = cap
        f.bl = cap - c.memo.nodes[f.second].lb
        f.state = F_FIRST
        _want(f, f.first, f.bl, f.valid, f.nvalid)
        return
    free(f.keys)
    f.keys = NULL
    f.state = F_DONE
    if not c.lim.stop:
        _loop_bound(c, f)


cdef void _loop_bound(Ctx* c, Frame* f) noexcept nogil:
    """The end of the candidate loop: solved at the incumbent when it fits the
    budget -- every kept split has lb >= best - TOL (evaluated, proved above the
    cap, or cut off by the sorted order) and the leaf is >= best, so R(X) =
    best; else every kept split and the leaf are proved above B and the bound
    rises to their min, after spreading the raised bounds along each column.
    At a parallel root the incumbent settles the share only when no shared cap
    went below it (`share_settles`); else the share's bound exceeds B or the
    least shared value used less SHARE_SLACK (`shared_cap`)."""
    cdef Node* nd = &c.memo.nodes[f.nid]
    if f.si_min < c.si_seen:
        c.si_seen = f.si_min
    if share_settles(f.best, f.B, f.si_min):
        settle_at_incumbent(nd)
        return
    if c.cfg.rules & RULE_TRANSFER:
        column_transfer(f.cands, f.nvalid)
    raise_bound(nd, _splits_bound(c, f))


cdef inline double _small_trees_least(const Cand* cd, const Node* L, const Node* R,
                                      int k) noexcept nogil:
    """A lower bound on every tree of at most k <= 4 leaves rooted at a split
    whose two sides the pair stage valued (g2: each side's exact best two-leaf
    value; g3: a bound on its three-leaf trees): its two leaves, a leaf beside
    the other side's best two-leaf tree, and with four, two such trees side by
    side or a leaf beside a three-leaf tree."""
    cdef double v = cd.pair_leaf
    if L.leaf + R.g2 < v:
        v = L.leaf + R.g2
    if L.g2 + R.leaf < v:
        v = L.g2 + R.leaf
    if k >= 4:
        if L.g2 + R.g2 < v:
            v = L.g2 + R.g2
        if L.leaf + R.g3 < v:
            v = L.leaf + R.g3
        if L.g3 + R.leaf < v:
            v = L.g3 + R.leaf
    return v


cdef int _tie_candidates(Ctx* c, node_t nid, const word_t* X, double* cnt, double V,
                         const int32_t* all_splits, int n_all, int32_t* valid,
                         Cand* cands, int rec_leaves) noexcept nogil:
    """The splits `canonical_ties` tries at node nid (rows X; cnt takes their
    class sums): its valid splits in index order in `valid` and `cands`, each
    with its children found, its bound from them (and from the pair stage,
    run where it may spare children a search), and `dropped` where
    `rec_leaves` rules it out; their bounds spread along their columns.
    Returns their number n, or -n - 1 when a stop cut the scan or the pair
    stage short."""
    cdef Node* nd = &c.memo.nodes[nid]
    cdef int child_depth = nd.depth - 1 if nd.depth > 0 else -1
    cdef double cap_unit = capacity_unit(c.cfg.rules, c.cfg.lam)
    cdef bint one_column, stopped = False
    cdef int i, nvalid
    cdef int64_t cap_node
    cdef Node* L
    cdef Node* R
    class_counts(c, X, nd.count, cnt)
    nvalid = gather_valid(c, X, nd.count, cnt, child_depth, all_splits, n_all, valid,
                          cands, &one_column)
    if nvalid < 0:
        return -1               # stopped during the scan
    for i in range(nvalid):
        cands[i].split = valid[i]
        cands[i].dropped = 0
        cands[i].left = find_child(c, nid, X, valid[i], False, &cands[i].tl)
        cands[i].right = find_child(c, nid, X, valid[i], True, &cands[i].tr)
    if rec_leaves == 2 and c.cfg.lam > 0:
        for i in range(nvalid):
            if cands[i].pair_leaf > V + 2.0 * TOL:
                cands[i].dropped = 1    # no tree of two leaves reaches V
    elif (c.cfg.rules & RULE_PAIRS) and child_depth != 0:
        # at the root, the root's larger stage (one complete stage values
        # every child there): its bounds spare most children a search
        cap_node = c.cfg.pair_cap
        if nd.count == c.sp.n:
            c.cfg.pair_cap = c.cfg.pair_cap_root
        stopped = expand_pairs(c, nid, X, cnt, valid, nvalid, cands, V) < 0
        c.cfg.pair_cap = cap_node
    for i in range(nvalid):
        L = cand_node(c, &cands[i], 0)
        R = cand_node(c, &cands[i], 1)
        cands[i].lb = children_bound(L, R)
        if c.cfg.rules & RULE_PAIRS:
            raise_split_bound(&cands[i], split_bound(L, R, c.cfg.lam, cap_unit))
        if (3 <= rec_leaves <= 4 and c.cfg.lam > 0 and L.pair_done and R.pair_done
                and _small_trees_least(&cands[i], L, R, rec_leaves) > V + 2.0 * TOL):
            cands[i].dropped = 1        # no tree of rec_leaves or fewer reaches V
    if c.cfg.rules & RULE_TRANSFER:
        column_transfer(cands, nvalid)
    return -nvalid - 1 if stopped else nvalid


cdef int canonical_ties(Ctx* c, node_t nid, double V, const int32_t* all_splits,
                        int n_all, int32_t* splits, node_t* left, node_t* right,
                        int rec_leaves) noexcept nogil:
    """The root splits of node nid's optimal trees, whose optimum is V: -1 when
    the leaf reaches V within TOL (the leaf has the fewest leaves, so it is the
    canonical tree); else the number of splits whose best tree reaches V within
    TOL, each in `splits` (in index order, n_all + 1 entries at most) with its
    children's ids in `left` and `right`, every child solved; -3 is a stop.  At a
    parallel root only this thread's splits are tried.  The canonical tree
    (`_solver.Search`) takes, among them, the one whose children's canonical
    trees have the fewest leaves in all, then the lowest index.

    Which optimal tree the search records depends on the order it met them, and
    so on the threads, the store's capacity and the row order; this choice
    depends on X and V alone.  The splits are tried over all splits (the valid
    ones of X are a function of X), in index order, none set aside by a
    dominance rule (those keep one of several equal splits, by the store's
    history); a split is skipped only when a proven bound puts it above V + TOL,
    else its children are solved within what V leaves them.

    `rec_leaves`: the leaves of an optimal tree of the node (the recorded
    one), if two to four.  Under lam > 0, where fewest leaves decides a tie
    first, the canonical tree has no more (the leaf is ruled out above), so
    only the splits with a tree of that many leaves at most reaching V within
    TOL can hold it, the others are skipped (their trees of V, if any, have
    more leaves): with two, the splits whose two leaves reach V, and the pair
    stage, which only bounds them, is not run; with three or four, those whose
    small trees' bound (`_small_trees_least`, from the pair stage's values,
    where it valued both sides) reaches V.  A split of an unsupported side
    (which `gather_valid` and the pair stage leave out) never holds the
    canonical tree: the tree without that leaf is better.  Reading the
    canonical tree of a small optimum then costs its few tying splits'
    children, not a search of every split the bounds do not rule out."""
    cdef Node* nd = &c.memo.nodes[nid]
    cdef int nw = c.sp.nw
    cdef bint own_only = restricted(c, nd.count)
    cdef int i, nvalid, found = 0
    cdef bint tie
    cdef node_t first, second
    cdef Node* L
    cdef Node* R
    cdef word_t* X
    cdef double* cnt
    cdef int32_t* valid
    cdef Cand* cands
    if nd.leaf <= V + TOL or nd.depth == 0:
        return -1
    X = <word_t*> malloc(nw * sizeof(word_t))
    cnt = <double*> malloc(c.sp.K * sizeof(double))
    valid = <int32_t*> malloc((n_all + 1) * sizeof(int32_t))
    cands = <Cand*> malloc((n_all + 1) * sizeof(Cand))
    if X == NULL or cnt == NULL or valid == NULL or cands == NULL:
        c.lim.stop = STOP_MEMORY
        found = -3
    else:
        memcpy(X, memo_key(&c.memo, nid), nw * sizeof(word_t))
        nvalid = _tie_candidates(c, nid, X, cnt, V, all_splits, n_all, valid, cands,
                                 rec_leaves)
        if nvalid < 0:
            nvalid = -nvalid - 1    # stopped in the scan or the pair stage
            found = -3
        i = 0
        while found >= 0 and i < nvalid:
            if ((own_only and not owns(c, cands[i].split)) or cands[i].lb > V + TOL
                    or cands[i].dropped):
                i += 1
                continue
            if store_children(c, nid, X, &cands[i]) < 0:
                found = -3
                break
            first, second = cands[i].left, cands[i].right
            if c.memo.nodes[second].count < c.memo.nodes[first].count:
                first, second = second, first
            tie = False
            solve(c, first, valid, nvalid, V - c.memo.nodes[second].lb)
            L = &c.memo.nodes[first]
            R = &c.memo.nodes[second]
            if not c.lim.stop and L.solved and L.ub + R.lb <= V + TOL:
                solve(c, second, valid, nvalid, V - L.ub)
                L = &c.memo.nodes[first]
                R = &c.memo.nodes[second]
                if not c.lim.stop and R.solved and L.ub + R.ub <= V + TOL:
                    tie = True
                    splits[found] = cands[i].split
                    left[found] = cands[i].left
                    right[found] = cands[i].right
                    found += 1
            if c.lim.stop:
                found = -3
            elif not tie:
                # proved above V: its bound spreads along its column
                raise_split_bound(&cands[i], children_bound(L, R))
                if c.cfg.rules & RULE_TRANSFER:
                    column_transfer(cands, nvalid)
            i += 1
    free(X)
    free(cnt)
    free(valid)
    free(cands)
    return found
