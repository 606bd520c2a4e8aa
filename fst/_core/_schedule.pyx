"""The schedule of a certified search: the greedy seed, the first root pass at the
incumbent, the depth ladder and budget deepening, until the root is solved or a
limit stops the search.

# Notes:
# - The first pass runs at the incumbent, a budget the optimum always fits, so
#   one pass certifies; most problems end there.  After `switch_work` (a count of
#   word operations, so the path does not depend on the machine) the pass is
#   ended like a stop -- open frames flush incumbents, never a bound -- and the
#   depth ladder and deepening from the root's bound take over: their tight
#   passes find better trees and bounds when a hard problem is stopped.  Every
#   bound proved in a pass is kept.
# - The depth ladder (`depth_ladder`) only supplies incumbents: the best trees of
#   depth 2, 3, ... found by the same search on depth-limited nodes (keys (X, d)
#   never meet the unlimited ones), copied onto the unlimited nodes.  Deepening
#   and a rung left uncertified take turns with doubling work.
# - Budget deepening: after a complete pass the root is proved above its budget;
#   the next budget is the new bound plus a share of the gap (`deepening`), or
#   the incumbent once the gap is within `ladder_gap` leaves' worth of lambda,
#   since then the bound is what is left to prove.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, TOL, INF
from ._bitset cimport bs_and, bs_andnot, bs_hash, bs_set
from ._memo cimport Node, memo_find, memo_key, memo_bytes
from ._problem cimport split_row
from ._limits cimport RUNNING, STOP_MEMORY, STOP_SWITCH
from ._config cimport STRATEGY_GREEDY
from ._context cimport Ctx, Cand, check_limits, fst_shared_incumbent, fst_shared_lower
from ._bounds cimport settle, SHARE_SLACK
from ._nodes cimport class_counts, node_get_whole, gather_valid
from ._search cimport solve


cdef struct SeedFrame:
    # One open node of the greedy seed (`greedy_seed`) on its own stack.
    node_t nid               # the node
    const int32_t* cand      # the splits it may use: its parent's valid splits
    int ncand
    int state                # 0: to grow; 1: its left child is being grown; 2: right
    word_t* X                # 2 nw words: its rows, then a child's
    int32_t* valid           # its valid splits
    Cand* cands
    double* cnt
    int nvalid
    int arg                  # the greedy split's position in valid
    node_t lid, rid          # the split's children
    double vl                # the left child's incumbent once grown


cdef bint _seed_push(Ctx* c, SeedFrame** stack, int* n, int* cap, node_t nid,
                     const int32_t* cand, int ncand) noexcept nogil:
    """Open node nid for the greedy seed unless it is solved or a stop is set
    (its incumbent then stands as it is).  False when nothing was pushed."""
    cdef SeedFrame* grown
    cdef SeedFrame* f
    if c.memo.nodes[nid].solved or c.lim.stop:
        return False
    check_limits(c)
    if c.lim.stop:
        return False           # the greedy seed only ever supplies incumbents
    if n[0] == cap[0]:
        grown = <SeedFrame*> realloc(stack[0], (2 * cap[0] + 16) * sizeof(SeedFrame))
        if grown == NULL:
            c.lim.stop = STOP_MEMORY
            return False
        stack[0] = grown
        cap[0] = 2 * cap[0] + 16
    f = &stack[0][n[0]]
    n[0] += 1
    memset(f, 0, sizeof(SeedFrame))
    f.nid = nid
    f.cand = cand
    f.ncand = ncand
    f.arg = -1
    return True


cdef void _seed_grow(Ctx* c, SeedFrame* f) noexcept nogil:
    """The greedy split of f's node: the valid split of the best two-leaf value,
    if it beats the leaf; its two children are created (f.arg, f.lid, f.rid)."""
    cdef Node* nd = &c.memo.nodes[f.nid]
    cdef int nw = c.sp.nw, i
    cdef bint one_column
    cdef double v
    cdef int child_depth = nd.depth - 1 if nd.depth > 0 else -1
    f.X = <word_t*> malloc(2 * nw * sizeof(word_t))
    f.valid = <int32_t*> malloc((f.ncand + 1) * sizeof(int32_t))
    f.cands = <Cand*> malloc((f.ncand + 1) * sizeof(Cand))
    f.cnt = <double*> malloc(c.sp.K * sizeof(double))
    if f.X == NULL or f.valid == NULL or f.cands == NULL or f.cnt == NULL:
        c.lim.stop = STOP_MEMORY
        return
    memcpy(f.X, memo_key(&c.memo, f.nid), nw * sizeof(word_t))
    class_counts(c, f.X, nd.count, f.cnt)
    f.nvalid = gather_valid(c, f.X, nd.count, f.cnt, child_depth, f.cand, f.ncand,
                            f.valid, f.cands, &one_column)
    if f.nvalid < 0:
        f.nvalid = 0            # stopped during the scan: the node stays a leaf here
        return
    v = nd.leaf
    for i in range(f.nvalid):
        if f.cands[i].pair_leaf < v:
            v = f.cands[i].pair_leaf
            f.arg = i
    if f.arg >= 0:
        bs_and(f.X + nw, f.X, split_row(&c.sp, f.valid[f.arg]), nw)
        f.lid = node_get_whole(c, f.X + nw, child_depth)
        bs_andnot(f.X + nw, f.X, split_row(&c.sp, f.valid[f.arg]), nw)
        f.rid = node_get_whole(c, f.X + nw, child_depth)
        if f.lid < 0 or f.rid < 0:
            f.arg = -1


cdef double greedy_seed(Ctx* c, node_t root, const int32_t* cand, int ncand) noexcept nogil:
    """Greedy seed: from `root`, grow the split with the best two-leaf value while
    it beats the leaf, depth first (a node's left subtree, then its right), and
    record the resulting real trees as upper bounds (ii) only -- never a bound or
    a solved flag.  Runs on its own explicit stack.  Returns the root's ub."""
    cdef SeedFrame* stack = NULL
    cdef SeedFrame* f
    cdef int n = 0, cap = 0
    cdef Node* nd
    cdef double v
    _seed_push(c, &stack, &n, &cap, root, cand, ncand)
    while n > 0:
        f = &stack[n - 1]
        if f.state == 0:
            _seed_grow(c, f)
            if f.arg >= 0:
                f.state = 1
                _seed_push(c, &stack, &n, &cap, f.lid, f.valid, f.nvalid)
                continue
        elif f.state == 1:
            f.vl = c.memo.nodes[f.lid].ub
            f.state = 2
            _seed_push(c, &stack, &n, &cap, f.rid, f.valid, f.nvalid)
            continue
        else:
            v = f.vl + c.memo.nodes[f.rid].ub
            nd = &c.memo.nodes[f.nid]
            if v < nd.ub:
                nd.ub = v              # (ii) a real tree: the greedy subtree
                nd.best_split = f.valid[f.arg]
        free(f.X)
        free(f.valid)
        free(f.cands)
        free(f.cnt)
        n -= 1
    free(stack)
    return c.memo.nodes[root].ub



cdef double install_tree(Ctx* c, const word_t* X, int src_depth) noexcept nogil:
    """Copy the tree recorded at (X, src_depth) -- a depth-limited node -- onto the
    unlimited nodes (X, -1) below, as incumbents: bottom-up, each unlimited node
    takes the copied split when the sum of its children's incumbents beats its
    own.  Every value written is that of a real tree (ii); no bound is touched.
    Returns the incumbent of (X, -1), or -1 on a memory stop."""
    cdef int nw = c.sp.nw
    cdef node_t src = memo_find(&c.memo, X, src_depth, bs_hash(X, nw, src_depth))
    cdef int32_t s = c.memo.nodes[src].best_split if src >= 0 else -1
    cdef node_t dst = node_get_whole(c, X, -1)
    cdef word_t* T
    cdef double vl, vr
    cdef Node* nd
    if dst < 0:
        return -1.0
    if s < 0:
        return c.memo.nodes[dst].ub
    T = <word_t*> malloc(nw * sizeof(word_t))
    if T == NULL:
        c.lim.stop = STOP_MEMORY
        return -1.0
    bs_and(T, X, split_row(&c.sp, s), nw)
    vl = install_tree(c, T, src_depth - 1)
    bs_andnot(T, X, split_row(&c.sp, s), nw)
    vr = install_tree(c, T, src_depth - 1) if vl >= 0 else -1.0
    free(T)
    if vl < 0 or vr < 0:
        return -1.0
    nd = &c.memo.nodes[dst]
    if vl + vr < nd.ub:
        nd.ub = vl + vr       # (ii) a real tree: split s over the children's trees
        nd.best_split = s
        settle(nd)
    return nd.ub


cdef int depth_ladder(Ctx* c, node_t root, const word_t* full,
                      const int32_t* all_splits, int d0, int64_t work) noexcept nogil:
    """Incumbents for a hard problem: the best trees of depth d0, d0 + 1, ... each
    found by the same search on depth-limited nodes (keys (X, d) never meet the
    unlimited ones), one pass at the rung's incumbent for at most `work`; each
    rung's tree is copied onto the unlimited nodes (install_tree).  Returns the
    depth of the first rung not certified within its work (the caller resumes it
    later with more work: its nodes keep what they learned), or 0 when the ladder
    is done: every rung to `ladder_max` certified, the root solved, or a stop.
    Only incumbents change: every bound of the unlimited search is untouched, so
    the certificate is the same, and a stopped search returns a tree no worse than
    the best shallow tree found.  install_tree recurses once per level of the
    rung's tree, at most `ladder_max` deep."""
    cdef int d
    cdef node_t rid
    cdef bint certified
    c.st.ladder_turns += 1
    for d in range(d0, c.cfg.ladder_max + 1):
        rid = node_get_whole(c, full, d)
        if rid < 0:
            return 0
        if d > c.st.ladder_depth:
            c.st.ladder_depth = d
            if c.cfg.strategy & STRATEGY_GREEDY:
                greedy_seed(c, rid, all_splits, c.sp.n_splits)
        c.work_stop = c.work + work
        # Candidates in order of their incumbents, not their bounds: a rung is
        # there to find good trees.  Any order is sound (the candidate loop only
        # stops early on a sorted bound when it sorts by bound).
        c.order_ub = 1
        c.st.passes += 1
        solve(c, rid, all_splits, c.sp.n_splits, c.memo.nodes[rid].ub)
        c.order_ub = 0
        c.work_stop = 0
        certified = c.memo.nodes[rid].solved and c.lim.stop == RUNNING
        if c.lim.stop == STOP_SWITCH:
            c.lim.stop = RUNNING
        if install_tree(c, full, d) < 0 or c.lim.stop or c.memo.nodes[root].solved:
            return 0
        if not certified:
            return d
    return 0


cdef inline bint _gap_is_small(const Ctx* c, const Node* root) noexcept nogil:
    """The root's bound is within `ladder_gap` leaves' worth of lambda of its
    incumbent: the ladder ends and deepening passes run at the incumbent."""
    return root.ub - root.lb < c.cfg.ladder_gap * c.cfg.lam


cdef node_t schedule_run(Ctx* c, const int32_t* all_splits) noexcept nogil:
    """Search the root, all rows at the caller's depth limit, until it is solved,
    a limit stops the search, or a pass breaks the search contract
    (`Ctx.contract_broken`).  Returns the root's id, or -1 when it could not be
    made."""
    cdef word_t* full = c.tmp
    cdef int64_t i
    cdef node_t root
    cdef int depth = c.cfg.max_depth
    memset(full, 0, c.sp.nw * sizeof(word_t))
    for i in range(c.sp.n):
        bs_set(full, i)
    root = node_get_whole(c, full, depth)
    c.prog_root = root   # the polls copy its bounds from now on
    if root < 0:
        return -1
    if c.cfg.strategy & STRATEGY_GREEDY:
        greedy_seed(c, root, all_splits, c.sp.n_splits)
    _passes(c, root, full, all_splits)
    return root


cdef void _passes(Ctx* c, node_t root, const word_t* full,
                  const int32_t* all_splits) noexcept nogil:
    """The root's passes: the first at the incumbent (or, with no switch work,
    deepening from the root's bound at once), then the ladder's turns and
    deepening, until the root is solved or a stop."""
    cdef Node* nd
    cdef double B = c.memo.nodes[root].lb
    cdef int ladder_next = 0     # the next rung of the ladder to run, or 0: none
    cdef int64_t chunk = 0       # work of the ladder's last turn
    cdef int64_t ladder_bytes = (c.cfg.ladder_bytes if c.cfg.ladder_bytes >= 0
                                 else c.lim.memory_limit // 2)
    if c.cfg.switch_work > 0 or c.seed < INF:
        # the first pass at the incumbent, or the seed's value when less
        B = c.memo.nodes[root].ub
        if c.seed < B:
            B = c.seed
    if c.cfg.switch_work > 0:
        c.work_stop = c.cfg.switch_work
        if c.cfg.ladder_max >= 2 and c.cfg.max_depth < 0:
            ladder_next = 2
            chunk = c.cfg.rung_work // 2
    while (not c.lim.stop and not c.memo.nodes[root].solved and not _share_done(c, root)
           and not _seed_done(c, root)):
        c.st.passes += 1
        c.si_seen = INF
        solve(c, root, all_splits, c.sp.n_splits, B)
        nd = &c.memo.nodes[root]
        if c.sh != NULL:
            fst_shared_lower(c.sh, nd.ub)
        if c.cfg.break_contract and not nd.solved and not c.lim.stop:
            nd.lb = B if B < nd.lb else nd.lb   # tests: simulates the bug below
        if (not c.lim.stop and not nd.solved and not (nd.lb > B)
                and not (c.sh != NULL and nd.lb > c.si_seen - SHARE_SLACK)):
            # Contract (iii) broken: a complete pass must solve the root or prove
            # it above B.  Deepening would then run pass after pass without
            # progress (forever, without a time limit): the caller reports the bug.
            c.contract_broken = 1
            return
        if c.lim.stop == STOP_SWITCH:
            # The pass was cut at its work (the first pass, or a deepening pass
            # whose share ran out): run the ladder -- its first rungs, or the
            # rung it left uncertified, with twice the work of its last turn --
            # then deepen again.
            c.lim.stop = RUNNING
            c.work_stop = 0
            if ladder_next >= 2 and _gap_is_small(c, &c.memo.nodes[root]):
                # A better tree could gain less than the gap, and the bound is
                # what is left to prove: the ladder's turns go to deepening from
                # now on (the gap only shrinks).
                ladder_next = 0
            if ladder_next >= 2:
                chunk = 2 * chunk
                ladder_next = depth_ladder(c, root, full, all_splits, ladder_next, chunk)
                if ladder_bytes > 0 and memo_bytes(&c.memo) > ladder_bytes:
                    # The store is past half the memory limit: the rungs' nodes
                    # never serve the unlimited search, so the rest is left to
                    # deepening (memo_bytes, not the process's size: the same path
                    # on every machine).
                    ladder_next = 0
            nd = &c.memo.nodes[root]
            if nd.solved or c.lim.stop:
                return
            # Deepening and the ladder take turns, each for the same (doubling)
            # work, while a rung is left uncertified.
            if ladder_next >= 2:
                c.work_stop = c.work + chunk
            if nd.lb > B + TOL or B >= nd.ub or B >= c.seed:
                B = nd.lb       # (a pass at the incumbent, or the seed, was cut)
            continue
        if nd.solved or c.lim.stop:
            return
        B = _next_budget(c, nd, B)


cdef inline bint _seed_done(Ctx* c, node_t root) noexcept nogil:
    """The root is proved no better than the seed's tree (within TOL): that
    tree, which exists outside the store, is optimal."""
    return c.memo.nodes[root].lb >= c.seed - TOL


cdef inline bint _share_done(Ctx* c, node_t root) noexcept nogil:
    """A thread's share of a parallel root is done once its bound is within
    SHARE_SLACK (three TOL) of the shared incumbent or above it
    (`owned_splits_lower_bound`): none of its splits can beat another thread's
    tree by more than that.  (A pass at the root keeps to this: it ends solved,
    above its budget, or within SHARE_SLACK of the least shared incumbent it
    capped at or above it, `shared_cap`.)"""
    return (c.sh != NULL
            and c.memo.nodes[root].lb >= fst_shared_incumbent(c.sh) - SHARE_SLACK)


cdef double _next_budget(Ctx* c, const Node* nd, double B) noexcept nogil:
    """Budget deepening: the root is proved above B; its next budget is its new
    bound plus a share of the remaining gap (`deepening`), or, once the gap is
    within `ladder_gap` leaves' worth of lambda (the incumbent is likely
    optimal and only the bound is left), `deepening_close` of it: by default the
    incumbent, so no work goes to proving bounds that are then superseded.  A
    seed below the incumbent stands for it (its tree exists)."""
    cdef double ub = nd.ub if nd.ub < c.seed else c.seed
    if nd.lb > B + TOL:
        B = nd.lb
    else:
        B = B + 10 * TOL
    if _gap_is_small(c, nd):
        return B + c.cfg.deepening_close * (ub - B)
    return B + c.cfg.deepening * (ub - B)
