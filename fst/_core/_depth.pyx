"""The depth-limited engine: the tree of least `loss / n + lam * leaves` among all
trees of depth at most D on every threshold of every column, over the rows kept
sorted per column (O(rows x columns) memory, no per-threshold bitsets).

The search of a row set X with d levels left, within a budget B (`_solve`):
* d = 0, one row, or a leaf the loss floor proves optimal: the leaf.
* squared error on binary columns, d = 2, 3 or 4: every tree from X's sums over
  each pair, triple and quadruple of columns, in one pass over its rows
  (`_squares.solve_sums`).
* d = 1: one pass per column over X's rows in that column's order, counting each
  class up to every threshold, values every split's two leaves (`_depth_one`).
* a cap of d + 1 leaves (its own, or what its budget admits): X's optimum of
  depth d - 1, then the trees whose root has a leaf child, the leaf priced from
  its column's counts before its sibling is searched (`_solve_peel`).
* d >= 2: the root splits of each column are valued by bisection over the
  column's thresholds (an interval of thresholds still open is valued at its
  midpoint, then split in two); an interval is dropped when every threshold in
  it is proven above the cap min(B, best) by the interval bound (its two valued
  ends' outer children), and shrunk from each end by the neighbour bound (rows
  crossing between two thresholds change the split's value by at most their
  worst cost).  At d = 2 a split's two sides are valued exactly by one pass per
  column (`_depth_one` on both sides at once); deeper, the split's children are
  partitioned stably (each stays sorted per column) and searched with the
  look-ahead budgets: the smaller child within cap - lb(larger), the larger
  within cap - R(smaller).

The answer of `_solve(X, d, B)` is either exact, R(X, d) with its tree, or a
lower bound above B + TOL; a split is pruned only when its bound exceeds the cap
by more than TOL, and the best tree is replaced by one better by more than TOL,
or equal within TOL with fewer leaves, or as many leaves and a lower root split
id (`_takes`), so an exact answer is the canonical optimal tree: the fewest
leaves, then the least root split id, its subtrees likewise.  A split that could
tie the best and still replace it is valued up to the best (`_tie_may_win`).
Every bound is a named rule of `_bounds.pxd`.

The search object, its threads and its result are `_depth_search.DepthSearch`.

# Notes:
# - Recursion is bounded by the depth limit (one C frame a level), so it needs no
#   explicit stack; every level's scratch is allocated once per fit (`DLevel`).
# - Trees are kept in heap order: position q's children at 2q + 1 and 2q + 2;
#   an entry is a global split id, or -1 for a leaf.
"""
from libc.string cimport memcpy, memset
from libc.math cimport NAN

from ._typedefs cimport int32_t, int64_t, uint8_t, uint64_t, TOL, INF
from ._limits cimport limits_poll, fst_now, RUNNING, STOP_INTERRUPT, STOP_TIME
from ._context cimport (fst_shared_incumbent, fst_shared_lower, fst_shared_stop,
                        fst_shared_set_stop, fst_claim, fst_store_double, fst_load_double)
from ._config cimport (RULE_EQUIVALENT, RULE_EXCHANGE, RULE_TRANSFER, RULE_LEAF_BUDGET,
                      RULE_SEGMENT, RULE_PEEL_LEAF, RULE_LARGER_CAP, RULE_ALLOCATIONS,
                      RULE_SIMILAR)
from ._rowpass cimport DSpace, leaf_loss, class_sum, add_rows
from ._bounds cimport (floor_settles_leaf, interval_bound, capped_interval_bound,
                       superset_child_bound, subset_child_bound, one_leaf_lower_bound,
                       shared_prune_level, budget_leaves, budget_depth, budget_depth_bound,
                       leaf_beside_only, leaf_beside_split_bound, larger_cap_bound,
                       peel_pass_budget, LEAF_MANY)
from ._squares cimport segment_bound, segment_prune, by_sums, solve_sums
from ._depth_memo cimport (MemoEntry, SimRing, memo_hash, memo_find, memo_put,
                           memo_larger_cap, memo_ring, memo_ring_put, memo_similar_bound)
from ._capped cimport _value_allocations, _value_capped, _peel_takes
from ._depth_columns cimport (_lower, _weights, _cap_bounds, engine_root_bound, _gather,
                              _depth_one, _side_best, _child_hints, _column_run, _shrink_up,
                              _shrink_down, _positions, _peel_order, _peel_leaves,
                              _peel_scan_bounds,
                              _partition, _complete)


# --------------------------------------------------------------- the limits

cdef inline bint _poll(DEngine* e) noexcept nogil:
    """Whether the search must stop: time at every valuation, memory and Ctrl-C
    every 0.1 s."""
    cdef double now
    cdef int code
    if e.lim.stop != RUNNING:
        return True
    if e.sh != NULL and fst_shared_stop(e.sh) != RUNNING:
        e.lim.stop = fst_shared_stop(e.sh)    # another engine's stop ends this one
        return True
    now = fst_now()
    # Ctrl-C reaches Python's main thread, which runs engine 0
    code = limits_poll(&e.lim, now, e.nodes + e.evals, e.work_limit, e.tid == 0)
    if code > RUNNING:
        return _stop(e, code)
    if e.share_from >= 0 and e.tid == 0 and _share_spent(e, now):
        return _stop(e, STOP_TIME)
    if (code == RUNNING and e.reporter != NULL and e.tid == 0 and e.root_best != NULL
            and now >= e.next_report):
        e.next_report = now + e.report_every
        with gil:
            _report(e, now)
    return e.lim.stop != RUNNING


# Engine 0's polls from one look at a run's share to the next (`_share_spent`).
cdef int SHARE_LOOK_POLLS = 64


cdef bint _share_spent(DEngine* e, double now) noexcept nogil:
    """Whether a run with a share of its time (`DepthSearch.set_share`) stops
    there (`share_look`, every SHARE_LOOK_POLLS polls from share_from on): the
    root takes its columns one after another (in parallel, from a shared
    counter) and searches a column's splits in full once taken, so the columns
    closed are the share of the root's work done, and their pace its rate.  A
    look that lets the run go on is the last (share_from -1)."""
    cdef int u, closed = 0, what
    if now < e.share_from:
        return False
    e.share_polls += 1
    if (e.share_polls - 1) % SHARE_LOOK_POLLS != 0:
        return False
    for u in range(e.sp.p):
        if fst_load_double(&e.col_lb[u]) > -INF:
            closed += 1
    what = share_look(e.share_t0, now, e.share_end, closed, e.sp.p)
    if what == SHARE_RUN_ON:
        e.share_from = -1.0
    return what == SHARE_STOP


cdef bint engine_poll(DEngine* e) noexcept nogil:
    """`_poll` for the modules that solve the engine's nodes (`DEngine.poll`)."""
    return _poll(e)


cdef void _report(DEngine* e, double now) noexcept:
    """Call the fit's progress reporter (verbose >= 2) with (seconds, the root's
    lower bound now, its incumbent, root splits valued).  Ctrl-C while it runs
    stops the search as an interrupt; any other error turns it off.  With
    engines side by side (engine 0 reports) the incumbent is the shared one."""
    cdef double ub = e.root_best[0]
    cdef double lb
    if e.sh != NULL and fst_shared_incumbent(e.sh) < ub:
        ub = fst_shared_incumbent(e.sh)
    lb = engine_root_bound(e)
    if ub < lb:
        lb = ub
    try:
        (<object> e.reporter)((now - e.report_t0, lb, ub, e.evals))
    except KeyboardInterrupt:
        _stop(e, STOP_INTERRUPT)
    except BaseException:
        e.reporter = NULL


cdef inline bint _stop(DEngine* e, int code) noexcept nogil:
    """End the search with `code`, and every engine of a parallel root with it."""
    e.lim.stop = code
    if e.sh != NULL:
        fst_shared_set_stop(e.sh, code)
    return True


# ------------------------------------------------------------------ search

cdef double _solve(DEngine* e, int d, const int32_t* ord, int m, const double* cnt,
                   double B, int kc, bint* exact) noexcept nogil:
    """R(X, d, kc) of the node with rows `ord` (m rows sorted per column, class
    counts cnt), the least value of its trees of depth at most d and at most kc
    leaves (LEAF_CAP_NONE: any number), when it is at most B + TOL (exact[0] set,
    its tree in e.lv[d].best); otherwise a lower bound above B + TOL (exact[0]
    cleared; e.lv[d].best holds the best tree found, worth the value `_solve`
    would return were it exact).  The root is searched with kc > max_depth."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef double leaf = leaf_loss(sp, cnt, m) + sp.lam
    cdef double v, floor
    cdef int k
    if d == 3:
        # a new node of depth three: its sums are not taken yet
        L.tri_ready = False
    L.best[0] = -1
    L.best_leaves = 1
    L.seeded = False
    exact[0] = True
    if d == 0 or m <= 1 or kc <= 1:
        return leaf
    if kc < LEAF_CAP_NONE and d < 30 and kc > (1 << d):
        # a tree of depth d has at most 2^d leaves: the cap does not bind, and
        # the node is the same subproblem at cap 2^d (one entry in the store)
        kc = 1 << d
    if kc <= d:
        if d == 2 and e.memo != NULL and d < e.max_depth and e.pairs:
            # its answer at two leaves is kept with those at three and four
            # (`_solve_sums_kept`)
            return _solve_kept(e, d, ord, m, cnt, B, kc, leaf, exact)
        # a tree of at most kc leaves has depth at most kc - 1: the node's trees
        # are those of the smaller depth, searched there
        return _solve_at(e, d, kc - 1, ord, m, cnt, B, kc, exact)
    if (sp.rules & RULE_EQUIVALENT) and floor_settles_leaf(
            leaf - sp.lam, class_sum(sp, cnt, sp.mincost), sp.lam):
        return leaf
    if (sp.rules & RULE_LEAF_BUDGET) and d < e.max_depth:
        floor = class_sum(sp, cnt, sp.mincost)
        k = budget_leaves(B, floor, sp.lam)
        if budget_depth(d, k) < d:
            return _solve_shallower(e, d, budget_depth(d, k), ord, m, cnt, B, kc, floor,
                                    k, exact)
    if e.memo != NULL and 2 <= d < e.max_depth:
        return _solve_kept(e, d, ord, m, cnt, B, kc, leaf, exact)
    if d == 1 and e.memo != NULL and e.pairs and e.max_depth >= 2:
        return _solve_one_kept(e, ord, m, cnt, B, leaf, exact)
    if by_sums(e, d, kc):
        if d == e.max_depth:
            # the root: its leaf and sums for a stop's bound, which is then its
            # own creation bound (`engine_root_bound`)
            e.root_leaf = leaf
            e.root_cnt = cnt
            e.sums_root = True
        v = solve_sums(e, L, d, ord, m, B, kc, exact, NULL, NULL, NULL)
        if v == INF:
            # stopped in the pass over the rows: the leaf is the tree found
            v = leaf
        if d == e.max_depth and not exact[0] and e.seed_value < v - TOL:
            # a stopped root keeps its seed (the shallower search's tree) when
            # it is better than what the sums found
            memcpy(L.best, e.seed_tree, _heap_size(d) * sizeof(int32_t))
            L.best_leaves = e.seed_leaves
            L.seeded = True
            v = e.seed_value
        return v
    return _solve_node(e, d, ord, m, cnt, B, kc, leaf, exact)


cdef double _solve_kept(DEngine* e, int d, const int32_t* ord, int m, const double* cnt,
                        double B, int kc, double leaf, bint* exact) noexcept nogil:
    """`_solve_node` through the store of searched nodes (`_depth_memo`): a node
    searched before is answered by what that search proved, its exact answer
    (the canonical tree, as a bound above B when its value is above it) or a
    bound above B; else, with RULE_SIMILAR, by a bound above B from a node of
    the same depth and cap searched before (`memo_similar_bound`); a node searched
    now leaves its answer there, and in its ring, unless a stop cut it short."""
    cdef DLevel* L = &e.lv[d]
    cdef uint64_t h = memo_hash(ord, m, d)
    cdef MemoEntry* x = memo_find(e.memo, h, ord, m, d, kc)
    cdef double v
    cdef SimRing* ring
    if x.hash != 0 and (x.exact or x.value > B + TOL):
        e.memo.hits += 1
        if x.exact:
            memcpy(L.best, x.tree, _heap_size(d) * sizeof(int32_t))
            L.best_leaves = x.leaves
            exact[0] = x.value <= B + TOL
        else:
            exact[0] = False
        return x.value
    if e.sp.rules & RULE_LARGER_CAP:
        v = larger_cap_bound(x.value if x.hash != 0 else -INF,
                             memo_larger_cap(e.memo, h, ord, m, d, kc))
        if v > B + TOL:
            # proven above the budget at a larger cap, so above it at this one
            e.memo.hits += 1
            e.memo.larger_cap_hits += 1
            exact[0] = False
            return v
    if by_sums(e, d, kc):
        return _solve_sums_kept(e, d, ord, m, B, kc, leaf, h, exact)
    ring = NULL
    if e.sp.rules & RULE_SIMILAR:
        # (classification: `DepthSearch` clears the rule under squared error;
        # a node solved from its sums above is passed at once, where reading
        # the ring cost more than it saved)
        ring = memo_ring(e.memo, d, kc, e.sp.n, e.sp.K)
        if ring != NULL:
            v = memo_similar_bound(e.memo, ring, &e.sp, ord, m, cnt, B + TOL)
            if v > B + TOL:
                # above the budget by a node searched before: kept as a bound
                e.memo.similar_hits += 1
                exact[0] = False
                _keep(e, ring, h, ord, m, d, kc, cnt, False, v)
                return v
    v = _solve_node(e, d, ord, m, cnt, B, kc, leaf, exact)
    if e.lim.stop == RUNNING:
        _keep(e, ring, h, ord, m, d, kc, cnt, exact[0], v)
    return v


cdef inline void _keep(DEngine* e, SimRing* ring, uint64_t h, const int32_t* ord, int m,
                       int d, int kc, const double* cnt, bint exact, double v) noexcept nogil:
    """Keep what was proved of a node of `_solve_kept` in the store (exact: its
    value and its tree in e.lv[d].best; else a bound), and the node in its ring
    (NULL: none) with the store's copy of its rows."""
    cdef DLevel* L = &e.lv[d]
    cdef const int32_t* held = memo_put(e.memo, h, ord, m, d, kc, exact, v, L.best,
                                        _heap_size(d), L.best_leaves, NULL)
    if ring != NULL and held != NULL:
        memo_ring_put(ring, held, m, v, cnt, e.sp.K)


cdef double _solve_one_kept(DEngine* e, const int32_t* ord, int m, const double* cnt,
                            double B, double leaf, bint* exact) noexcept nogil:
    """A node of depth one under a leaf cap on binary columns: its best tree of
    at most two leaves is the answer at two leaves of the node of depth two on
    the same rows (`_solve_kept`: from the store, or from its sums with the
    answers at three and four leaves), found on the scratch of depth two, as
    no node of depth two is open below a node of depth one."""
    cdef DLevel* L = &e.lv[1]
    cdef double v = _solve_kept(e, 2, ord, m, cnt, B, 2, leaf, exact)
    memset(L.best, -1, _heap_size(1) * sizeof(int32_t))
    L.best_leaves = 1
    if e.lim.stop != RUNNING:
        # stopped: the leaf is the tree found
        exact[0] = False
        return leaf
    if exact[0]:
        memcpy(L.best, e.lv[2].best, _heap_size(1) * sizeof(int32_t))
        L.best_leaves = e.lv[2].best_leaves
    return v


cdef double _solve_sums_kept(DEngine* e, int d, const int32_t* ord, int m, double B, int kc,
                             double leaf, uint64_t h, bint* exact) noexcept nogil:
    """A node below the root solved from its columns' sums (`by_sums`) and kept
    in the store: its exact answer whatever the budget (the sums value every
    tree), and at depth two its answers at caps of two, three and four leaves,
    which the same sets value (`_squares.solve_sums`), all canonical, so a
    repeat at any of them is answered from the store."""
    cdef DLevel* L = &e.lv[d]
    cdef int32_t caps_tree[21]
    cdef int caps_leaves[3]
    cdef double caps[3]
    cdef int c
    cdef const int32_t* held
    cdef double v = solve_sums(e, L, d, ord, m, B, kc, exact, caps, caps_tree, caps_leaves)
    if v == INF:
        # stopped in the pass over the rows: the leaf is the tree found
        return leaf
    if e.lim.stop != RUNNING:
        return v
    if d != 2:
        memo_put(e.memo, h, ord, m, d, kc, True, v, L.best, _heap_size(d), L.best_leaves,
                 NULL)
        return v
    # the three entries share one copy of the rows
    held = NULL
    for c in range(3):
        held = memo_put(e.memo, h, ord, m, d, c + 2, True, caps[c], caps_tree + 7 * c,
                        _heap_size(d), caps_leaves[c], held)
    return v


cdef double _solve_node(DEngine* e, int d, const int32_t* ord, int m, const double* cnt,
                        double B, int kc, double leaf, bint* exact) noexcept nogil:
    """`_solve` of a node of depth d >= 1 past its leaf's own answers: as a
    leaf beside a subtree (`_solve_peel`), else by its columns."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef double best, lbmin, v, low
    cdef int k
    cdef int64_t nt[2]
    cdef double b1[2]
    cdef int32_t a1[2]
    cdef int u
    cdef bint par
    if not _complete(e, d, ord):
        exact[0] = False
        return leaf
    if (sp.rules & RULE_PEEL_LEAF) and d >= 2:
        k = _peel_cap(e, d, cnt, B, kc)
        if leaf_beside_only(d, k):
            v = _solve_peel(e, d, ord, m, cnt, B, k, exact)
            if k < kc and not exact[0] and e.lim.stop == RUNNING:
                # the cap was the budget's: a tree of more leaves is above B but
                # may be below the bound of the capped trees (`budget_depth_bound`)
                v = budget_depth_bound(v, class_sum(sp, cnt, sp.mincost), sp.lam, k)
                v = v if v > B else B
            return v
    if not _gather(e, L, ord, m):
        # stopped: the leaf is the node's tree found, and the node is not
        # counted (a root stopped here proves no bound: `DepthSearch.run`)
        exact[0] = False
        return leaf
    e.nodes += 1
    if d == 1:
        nt[0] = m
        _depth_one(e, L, m, 1, 0, cnt, nt, b1, a1, NULL)
        if a1[0] >= 0:
            memset(L.best, -1, _heap_size(1) * sizeof(int32_t))
            L.best[0] = a1[0]
            L.best_leaves = 2
        return b1[0]
    best = leaf
    if d == e.max_depth:
        e.root_leaf = leaf
        e.root_cnt = cnt
    if d == e.max_depth and e.seed_value < best - TOL:
        # the root starts from the seed, a real tree of this depth: a split
        # replaces it only by being better by more than TOL, so the answer is
        # exact as without it, and the cap is close from the first split on
        best = e.seed_value
        memcpy(L.best, e.seed_tree, _heap_size(d) * sizeof(int32_t))
        L.best_leaves = e.seed_leaves
        L.seeded = True
    lbmin = INF
    low = _lower(sp, cnt, m, d)
    # The best depth-one split first: its value at depth d is often near the
    # optimum, so the bisection starts under a close cap.
    nt[0] = m
    _depth_one(e, L, m, 1, 0, cnt, nt, b1, a1, NULL)
    par = e.sh != NULL and d == e.max_depth
    if par:
        fst_shared_lower(e.sh, best)
    if a1[0] >= 0 and best > low + TOL and (not par or e.tid == 0):
        u = _split_column(sp, a1[0])
        _value_split(e, d, u, ord, m, cnt, a1[0], B, kc, &best, &lbmin)
        if par:
            fst_shared_lower(e.sh, best)
    _columns(e, d, ord, m, cnt, B, kc, INF, False, low, &best, &lbmin)
    if d == e.max_depth:
        e.root_found = best
    return _answer(e, best, lbmin, B, exact)


cdef void _columns(DEngine* e, int d, const int32_t* ord, int m, const double* cnt,
                   double B, int kc, double V, bint peel, double low, double* best,
                   double* lbmin) noexcept nogil:
    """Value a node's splits column by column: by bisection (`_search_column`),
    or with `peel` as a leaf beside a subtree (`_peel_column`, V the node's
    optimum of depth d - 1 or a bound on it); best and its tree improve, lbmin
    takes the least bound of the splits proven above their cap.  At the root
    each closed column publishes its bound (`engine_root_bound`), and a parallel
    root's engines take the columns from a shared counter."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef bint root = d == e.max_depth
    cdef bint par = e.sh != NULL and root
    cdef const int32_t* order = e.col_order if root else NULL
    cdef double col_lbmin
    cdef int u, i
    if root:
        e.root_best = best
    i = fst_claim(e.next_col) if par else 0
    while i < sp.p:
        u = order[i] if order != NULL else i
        if e.lim.stop != RUNNING or (best[0] <= low + TOL and not _tie_may_win(
                sp, L, e.col_rest[i] if order != NULL else sp.col_start[u])):
            # stopped, or no split can beat the best (creation bound) and none
            # of the columns left (their ids from col_start[u] up, or from
            # col_rest[i] in the root's order) can tie it and replace it
            # (`_tie_may_win`)
            break
        if _poll(e):
            break
        col_lbmin = INF
        if peel:
            _peel_column(e, d, u, ord, m, cnt, B, kc, V, best, &col_lbmin)
        else:
            _search_column(e, d, u, ord, m, cnt, B, kc, best, &col_lbmin)
        if col_lbmin < lbmin[0]:
            lbmin[0] = col_lbmin
        if root and e.lim.stop == RUNNING:
            # the column is closed: its splits are valued or proven above their cap
            fst_store_double(&e.col_lb[u], col_lbmin)
        # a parallel root's engine takes the next column no engine has taken
        i = fst_claim(e.next_col) if par else i + 1
    if root:
        e.root_best = NULL
        e.col_order = NULL


cdef inline double _answer(DEngine* e, double best, double lbmin, double B,
                           bint* exact) noexcept nogil:
    """A node's answer from its best tree and the least bound of the trees not
    valued (lbmin): not exact when stopped; exact when within B; else no tree
    is worth B or less (every split was proven above its cap), and the bound."""
    cdef double v
    if e.lim.stop != RUNNING:
        exact[0] = False
        return best
    if best <= B + TOL:
        return best
    exact[0] = False
    v = best if best < lbmin else lbmin
    return v if v > B else B


cdef int _peel_cap(DEngine* e, int d, const double* cnt, double B, int kc) noexcept nogil:
    """The leaf cap a node of depth d is searched under by `_solve_peel`: its
    own cap kc, lowered under RULE_LEAF_BUDGET to the leaves its budget admits
    (`budget_leaves`: a tree of more is above the budget B, or at the root, above
    its seed, so neither the answer nor a tie with it is among them).  The root
    is searched so only when its seed is its exact optimum of depth d - 1
    (`_solve_peel` takes it for that optimum); else LEAF_CAP_NONE."""
    cdef int k = kc
    cdef int b = LEAF_MANY
    cdef double floor
    if d == e.max_depth and not e.seed_exact:
        return LEAF_CAP_NONE
    if e.sp.rules & RULE_LEAF_BUDGET:
        floor = class_sum(&e.sp, cnt, e.sp.mincost)
        b = budget_leaves(e.seed_value if d == e.max_depth else B, floor, e.sp.lam)
    return b if b < k else k


cdef double _solve_peel(DEngine* e, int d, const int32_t* ord, int m, const double* cnt,
                        double B, int kc, bint* exact) noexcept nogil:
    """`_solve` of a node of depth d >= 2 under a cap of kc = d + 1 leaves
    (RULE_PEEL_LEAF, `leaf_beside_only`): its trees are those of depth d - 1,
    whose optimum V is searched first (at the root, the seed is it), and a leaf
    beside a subtree of depth d - 1 and at most d leaves.  Each split is then
    valued on each side as that leaf, from its column's counts, beside the other
    side's subtree (`_peel_column`); a split's side is searched only when its
    leaf, with the bounds below, could still be within the cap:
    * `leaf_beside_bound`: the subtree has at least d leaves;
    * `subset_child_bound` (the rule's argument needs nested sets: not under
      min_leaf): the subtree's rows are the node's less the leaf's, so it is
      worth at least V less the leaf rows' worst cost;
    * `superset_child_bound` (likewise): along a column, the subtree's rows
      grow as its leaf shrinks, so it is worth at least the last one searched.
    Exact as `_solve` (the canonical tree: `_takes` compares the seed or V's
    tree, itself canonical among the trees of depth d - 1, with each leaf-beside
    tree, and a tie on its own root split in the canonical split order,
    `_capped._peel_takes`: the trees of depth d on that split are leaf-beside
    ones), or a bound above B."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef DLevel* C = &e.lv[d - 1]
    cdef double leaf = leaf_loss(sp, cnt, m) + sp.lam
    cdef double best, V, lbmin = INF
    cdef bint exv, root = d == e.max_depth
    e.peel_nodes += 1
    exact[0] = True
    L.seeded = False
    if root:
        # the seed is the root's exact optimum of depth d - 1 (`_peel_cap`)
        V = e.seed_value
        exv = True
        memcpy(L.best, e.seed_tree, _heap_size(d) * sizeof(int32_t))
        L.best_leaves = e.seed_leaves
        L.seeded = True
        e.root_leaf = leaf
        e.root_cnt = cnt
    else:
        V = _solve(e, d - 1, ord, m, cnt, B, kc, &exv)
        memset(L.best, -1, _heap_size(d) * sizeof(int32_t))
        if e.lim.stop != RUNNING or exv:
            memcpy(L.best, C.best, _heap_size(d - 1) * sizeof(int32_t))
            L.best_leaves = C.best_leaves
            # V's tree stands as the root's seed does: a tie on its own root
            # split valued here, a leaf beside a subtree of depth d - 1, may
            # still come before it (`_capped._peel_takes`, `_tie_may_win`)
            L.seeded = exv
        else:
            L.best_leaves = 1
        if e.lim.stop != RUNNING:
            exact[0] = False
            return V
    # no tree of depth d - 1 within B (V is then a bound above it): the leaf,
    # above B too, stands as the tree found
    best = V if exv else leaf
    if not _gather(e, L, ord, m):
        exact[0] = False
        return best
    e.nodes += 1
    if e.sh != NULL and root:
        fst_shared_lower(e.sh, best)
    if root and d == e.final_depth and exv:
        _peel_order(e, d, m, cnt, V)
    _columns(e, d, ord, m, cnt, B, kc, V, True, _lower(sp, cnt, m, d), &best, &lbmin)
    if root:
        e.root_found = best
    # (V bounds the trees of depth d - 1)
    return _answer(e, best, lbmin if lbmin < V else V, B, exact)


cdef void _peel_column(DEngine* e, int d, int u, const int32_t* ord, int m,
                       const double* cnt, double B, int kc, double V, double* best,
                       double* lbmin) noexcept nogil:
    """The leaf-beside trees of column u's splits of a node of `_solve_peel`:
    each threshold's leaves and left floor from one pass over the column
    (`_peel_leaves`), then the leaf on the left from the largest leaf down, and
    on the right likewise, so that each subtree searched holds the rows of the
    one before.  A leaf loses no more as it shrinks, so each subtree is searched
    within the cap less the scan's last (least) leaf: a bound it proves above
    that budget rules out the rest of the scan at once (`superset_child_bound`),
    where a budget of the cap less its own leaf would rule out only the
    thresholds whose leaf loses as much."""
    cdef DLevel* L = &e.lv[d]
    cdef int j, lo, hi
    cdef double run, cap
    cdef double floor = class_sum(&e.sp, cnt, e.sp.mincost)
    if not _peel_leaves(e, d, u, m, cnt, &lo, &hi):
        return
    if d == 2:
        # a subtree of depth one: a split's side valued in one pass a column
        # (`_peel_pass`, the rows placed by `_positions` when a first split of
        # the column is valued)
        L.pa[2 * m] = -1
        for j in range(lo, hi + 1):
            L.pv[2 * j] = NAN
            L.pv[2 * j + 1] = NAN
        # each scan's least leaf, which its subtrees' passes are budgeted by
        L.pv[2 * m] = L.lbl[lo]
        L.pv[2 * m + 1] = L.lbr[hi]
    run = -INF
    if d == 2:
        _peel_scan_bounds(e, L, 1)
    for j in range(hi, lo - 1, -1):
        if _peel_pruned(e, d, u, m, floor, B, V, j, 0, run, best[0], &cap, lbmin):
            continue
        _peel_split(e, d, u, ord, m, cnt, B, kc, j, 0, L.lbl[lo], cap, &run, best, lbmin)
        if e.lim.stop != RUNNING:
            return
    run = -INF
    if d == 2:
        _peel_scan_bounds(e, L, 0)
    for j in range(lo, hi + 1):
        if _peel_pruned(e, d, u, m, floor, B, V, j, 1, run, best[0], &cap, lbmin):
            continue
        _peel_split(e, d, u, ord, m, cnt, B, kc, j, 1, L.lbr[hi], cap, &run, best, lbmin)
        if e.lim.stop != RUNNING:
            return


cdef inline bint _peel_pruned(DEngine* e, int d, int u, int m, double floor,
                              double B, double V, int j, int side, double run,
                              double best, double* cap, double* lbmin) noexcept nogil:
    """Whether the split at column u's threshold j with its `side` a leaf
    (`_peel_column`) is ruled out before its other side is searched: its
    `leaf_beside_split_bound` and, with nested sets, the leaf beside the
    largest subtree searched before it in the scan (`superset_child_bound`,
    run) above the level the node prunes at (`_cap_and_prune`); the bound then
    goes into lbmin.  Else the split's cap goes into cap[0].  floor: the
    node's rows' floor (`class_sum` of their least costs), once a scan.
    Inline, as most of a scan's thresholds end here."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef double* W = L.wpre
    cdef int t = L.tpos[j]
    cdef int32_t split = sp.col_start[u] + L.rk[<int64_t> u * m + t - 1]
    cdef double leafv, floor_rest, worst_leaf, P, bnd, b2
    if side == 0:
        leafv = L.lbl[j]
        floor_rest = floor - L.lbv[j]
        worst_leaf = W[t]
    else:
        leafv = L.lbr[j]
        floor_rest = L.lbv[j]
        worst_leaf = W[m] - W[t]
    _cap_and_prune(e, d, _tie_may_win(sp, L, split), B, best, cap, &P)
    bnd = leaf_beside_split_bound(leafv, floor_rest, sp.lam, d, V, worst_leaf,
                                  sp.min_leaf <= 1)
    if sp.min_leaf <= 1:
        b2 = leafv + superset_child_bound(run)
        if b2 > bnd:
            bnd = b2
    if bnd > P:
        if bnd < lbmin[0]:
            lbmin[0] = bnd
        return True
    return False


cdef void _peel_split(DEngine* e, int d, int u, const int32_t* ord, int m,
                      const double* cnt, double B, int kc, int j, int side,
                      double far, double cap, double* run, double* best,
                      double* lbmin) noexcept nogil:
    """The split at column u's threshold j (`_peel_column`) with its `side` (0:
    left) a leaf, not ruled out by `_peel_pruned` (which gives its cap): its
    other side searched at depth d - 1 with at most d leaves within what the
    scan's least leaf (far) leaves of the cap; run
    holds the largest value or bound of the subtrees searched before it in this
    scan (each a subset of this one's rows)."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef DLevel* C = &e.lv[d - 1]
    cdef int K = sp.K
    cdef const int32_t* rk = L.rk + <int64_t> u * m
    cdef const int32_t* yk = L.yk + <int64_t> u * m
    cdef const double* wk = _weights(&e.sp, L, u, m)
    cdef double* cc = L.cnt + 3 * K
    cdef int t = L.tpos[j], k, mr
    cdef int32_t split = sp.col_start[u] + rk[t - 1]
    cdef double leafv, bud, v
    cdef bint ex
    if side == 0:
        leafv = L.lbl[j]
        mr = m - t
    else:
        leafv = L.lbr[j]
        mr = t
    if _poll(e):
        return
    if d == 2:
        _peel_depth_two(e, d, u, ord, m, cnt, j, side, B, cap, leafv, run, best, lbmin)
        return
    e.evals += 1
    # the other side's rows, sorted per column, and its sums
    if not _partition(e, L, ord, m, u, t):
        return
    for k in range(K):
        cc[k] = 0
    if side == 0:
        add_rows(sp, cc, yk, wk, t, m)
    else:
        add_rows(sp, cc, yk, wk, 0, t)
    bud = cap - (far if far < leafv else leafv)
    v = _solve(e, d - 1, L.child + (<int64_t> sp.p * t if side == 0 else 0), mr, cc, bud,
               kc - 1, &ex)
    if e.lim.stop != RUNNING:
        return
    if v > run[0]:
        run[0] = v
    if not ex or leafv + v > cap + TOL:
        if leafv + v < lbmin[0]:
            lbmin[0] = leafv + v
        return
    v += leafv
    memset(L.cand, -1, _heap_size(d) * sizeof(int32_t))
    L.cand[0] = split
    _place(L.cand, d, 2 if side == 0 else 1, C.best)
    if _peel_takes(e, d, v, 1 + C.best_leaves, best[0]):
        best[0] = v
        _took(L, 1 + C.best_leaves)
        memcpy(L.best, L.cand, _heap_size(d) * sizeof(int32_t))
        if e.sh != NULL and d == e.max_depth:
            fst_shared_lower(e.sh, best[0])


cdef void _peel_depth_two(DEngine* e, int d, int u, const int32_t* ord, int m,
                          const double* cnt, int j, int side, double B, double cap,
                          double leafv, double* run, double* best,
                          double* lbmin) noexcept nogil:
    """`_peel_split` at depth two: the split's other side valued at depth one,
    in one pass a column (`_peel_pass`, the side placed by `L.upos`).  As
    deeper subtrees are searched within the cap less their scan's least leaf,
    the pass is budgeted (`peel_pass_budget`) by min(B, best) less that leaf
    (L.pv[2 m + side]): a side proven above it is kept as its bound (L.pa -2),
    which is above the cap beside every leaf of the scan, as the cap only
    falls with the node's best.  A side read as a bound that
    does not rule its split out is valued again, exactly.  The scan's sides
    grow from one valued threshold to the next, so each column's bound at the
    last carries to this one (L.pcl, `column_least_bound`), and a column that
    cannot beat the side's best is not passed (under min_leaf, where those
    bounds do not carry, the pass values both sides at once instead, each for
    its own scan)."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef int t = L.tpos[j], o = 1 - side
    cdef const int32_t* rk = L.rk + <int64_t> u * m
    cdef int32_t split = sp.col_start[u] + rk[t - 1]
    cdef double v
    cdef int32_t a
    cdef int leaves
    if L.pv[2 * j + o] != L.pv[2 * j + o]:
        v = B if B < best[0] else best[0]
        if not _peel_pass(e, L, u, ord, m, cnt, t, j, o,
                          peel_pass_budget(v, L.pv[2 * m + side]),
                          peel_pass_budget(v, L.pv[2 * m + o])):
            return
    if L.pa[2 * j + o] == -2 and L.pv[2 * j + o] + leafv <= cap + TOL:
        if not _peel_pass(e, L, u, ord, m, cnt, t, j, o, INF, INF):
            return
    v = L.pv[2 * j + o]
    a = L.pa[2 * j + o]
    if v > run[0]:
        run[0] = v
    v += leafv
    if v > cap + TOL:
        if v < lbmin[0]:
            lbmin[0] = v
        return
    leaves = 1 + (2 if a >= 0 else 1)
    memset(L.cand, -1, _heap_size(d) * sizeof(int32_t))
    L.cand[0] = split
    L.cand[2 - side] = a
    if _peel_takes(e, d, v, leaves, best[0]):
        best[0] = v
        _took(L, leaves)
        memcpy(L.best, L.cand, _heap_size(d) * sizeof(int32_t))
        if e.sh != NULL and d == e.max_depth:
            fst_shared_lower(e.sh, best[0])


cdef bint _peel_pass(DEngine* e, DLevel* L, int u, const int32_t* ord, int m,
                     const double* cnt, int t, int j, int s, double above,
                     double other) noexcept nogil:
    """Side s (0: the rows before position t of column u's order) of the split
    at column u's threshold j of a node of depth two valued at depth one into
    L.pv[2 j + s], L.pa[2 j + s], its pass started from `above` (`_depth_one`):
    a side with no tree below above - TOL is kept as that bound, L.pa -2.
    Under min_leaf, where the columns' bounds do not carry from a subset, the
    other side too, from `other`, in the same pass, for the other scan;
    elsewhere side s alone, over its rows gathered first, its columns bounded
    by L.pcl (`_side_best`).  False when stopped (the side then not valued)."""
    cdef DSpace* sp = &e.sp
    cdef int K = sp.K
    cdef double tot[128]
    cdef double ab[2]
    cdef double bv[2]
    cdef int32_t ba[2]
    cdef int64_t nt[2]
    cdef int k
    cdef bint both
    if L.pa[2 * m] < 0:
        if not _positions(e, L, ord, m, u):
            return False
        L.pa[2 * m] = 0
    e.evals += 1
    for k in range(2 * K):
        tot[k] = 0
    add_rows(sp, tot, L.yk + <int64_t> u * m, _weights(sp, L, u, m), 0, t)
    for k in range(K):
        tot[K + k] = cnt[k] - tot[k]
    nt[0] = t
    nt[1] = m - t
    # under min_leaf, where the columns' bounds do not carry from a subset,
    # one pass values both sides, each for its own scan
    both = sp.min_leaf > 1
    ab[s] = above
    ab[1 - s] = other
    if both:
        _depth_one(e, L, m, 2, t, tot, nt, bv, ba, ab)
    else:
        _side_best(e, L, m, t, s, tot, nt, above, L.pcl, bv + s, ba + s)
    if e.lim.stop != RUNNING:
        return False
    for k in range(2):
        if k != s and not both:
            continue
        L.pv[2 * j + k] = bv[k]
        L.pa[2 * j + k] = ba[k]
        if ba[k] < 0 and bv[k] == ab[k]:
            # no split of the side, nor its leaf, below ab[k] - TOL
            L.pa[2 * j + k] = -2
            L.pv[2 * j + k] = ab[k] - TOL
    return True


cdef double _solve_at(DEngine* e, int d, int d2, const int32_t* ord, int m,
                      const double* cnt, double B, int kc, bint* exact) noexcept nogil:
    """`_solve` of the node at the smaller depth d2, its tree copied to depth
    d's level (a tree in heap order keeps its positions in a deeper heap)."""
    cdef DLevel* L = &e.lv[d]
    cdef DLevel* S = &e.lv[d2]
    cdef double v
    if not _complete(e, d, ord):
        exact[0] = False
        memset(L.best, -1, _heap_size(d) * sizeof(int32_t))
        L.best_leaves = 1
        return leaf_loss(&e.sp, cnt, m) + e.sp.lam
    v = _solve(e, d2, ord, m, cnt, B, kc, exact)
    memset(L.best, -1, _heap_size(d) * sizeof(int32_t))
    memcpy(L.best, S.best, _heap_size(d2) * sizeof(int32_t))
    L.best_leaves = S.best_leaves
    L.seeded = False
    return v


cdef double _solve_shallower(DEngine* e, int d, int d2, const int32_t* ord, int m,
                             const double* cnt, double B, int kc, double floor, int k,
                             bint* exact) noexcept nogil:
    """`_solve` of a node below the root under RULE_LEAF_BUDGET: a tree within the
    budget has at most k leaves (`budget_leaves`, floor the node's loss floor), so
    the node is searched at the depth d2 < d they allow (`budget_depth`), and its
    answer is the answer at d: exact when within the budget, else a bound above
    it (`budget_depth_bound`; a leaf cap kc only removes trees, so the bound
    holds with it).  The tree found is copied to this depth's level."""
    cdef double v
    e.shallower += 1
    v = _solve_at(e, d, d2, ord, m, cnt, B, kc, exact)
    if e.lim.stop != RUNNING:
        return v
    if not exact[0] or v > B + TOL:
        # nothing within the budget: the shallower answer (exact above the
        # budget, or a bound above it) bounds only the shallower trees
        exact[0] = False
        v = budget_depth_bound(v, floor, e.sp.lam, k)
        return v if v > B else B
    return v


cdef inline void _cap_and_prune(DEngine* e, int d, bint tie, double B, double best,
                                double* cap, double* P) noexcept nogil:
    """What a split of a node of depth d must cost at most (cap: its children's
    budgets) and the bound above which it is pruned (P): when a tie with the
    best may replace it (`tie`, `_takes`), up to the best itself; else the
    budget, or less than the incumbent (`_cap`, `_prune_level`: ties go to lower
    split ids).  A parallel root also takes another engine's tree as its cap, a
    tie with it kept (the engines' answers are then ordered as the serial search
    meets them, `DepthSearch._gather`)."""
    cdef double sb
    if tie:
        cap[0] = B if B < best else best
        P[0] = cap[0] + TOL
    else:
        cap[0] = _cap(&e.sp, B, best)
        P[0] = _prune_level(&e.sp, B, best)
    if e.sh != NULL and d == e.max_depth:
        sb = fst_shared_incumbent(e.sh)
        P[0] = shared_prune_level(P[0], sb)
        if sb < cap[0]:
            cap[0] = sb     # the children's budgets: a tie is still valued


cdef void _value_split(DEngine* e, int d, int u, const int32_t* ord, int m,
                       const double* cnt, int32_t split, double B, int kc, double* best,
                       double* lbmin) noexcept nogil:
    """Value one root split (of column u) of a node with d >= 2 levels left
    against cap = min(B, best), as `_search_column` values a threshold."""
    cdef DLevel* L = &e.lv[d]
    cdef const int32_t* rk = L.rk + <int64_t> u * m
    cdef int32_t k = split - e.sp.col_start[u]
    cdef int t = 0
    cdef double vs[3]
    while t < m and rk[t] <= k:
        t += 1
    if t < e.sp.min_leaf or m - t < e.sp.min_leaf:
        return      # (min_leaf >= 1: an empty side too)
    if d == 2 and not _positions(e, L, ord, m, u):
        return
    _value_at(e, d, u, ord, m, cnt, split, t,
              _cap(&e.sp, B, best[0]) if not _tie_may_win(&e.sp, L, split)
              else (B if B < best[0] else best[0]), kc, best, lbmin, NULL,
              vs, NULL)


cdef void _value_at(DEngine* e, int d, int u, const int32_t* ord, int m,
                    const double* cnt, int32_t split, int t, double cap, int kc,
                    double* best, double* lbmin, const double* hint,
                    double* vs, double* kb) noexcept nogil:
    """Value the root split sending the first t rows of column u's order left:
    at d = 2 both sides exactly (`_value_depth_two`, L.upos filled for u), deeper
    by its children's search (`_value_deeper`, hint its children's bounds or
    NULL).  vs gets the sides' values or bounds (under a leaf cap kc, their
    values or bounds at kc - 1 leaves, which bound every allocation of the
    leaves) and the split's value or bound (vs[2]); a split proven above its cap
    lowers lbmin to its bound.  kb (NULL: not kept) gets the children's bounds
    at every cap below kc (`_cap_bounds`)."""
    e.evals += 1
    if d == 2:
        _value_depth_two(e, &e.lv[d], m, cnt, split, t, e.lv[d].yk + <int64_t> u * m,
                         _weights(&e.sp, &e.lv[d], u, m), kc, best, vs, kb)
    elif (not _value_deeper(e, d, u, ord, m, cnt, split, t, cap, kc, best, vs, hint, kb)
            and e.lim.stop == RUNNING and vs[2] < lbmin[0]):
        lbmin[0] = vs[2]


cdef void _search_column(DEngine* e, int d, int u, const int32_t* ord, int m,
                         const double* cnt, double B, int kc, double* best,
                         double* lbmin) noexcept nogil:
    """Value the root splits of column u of a node with d >= 2 levels left by
    bisection over its thresholds, pruning intervals by the interval and
    neighbour bounds against cap = min(B, best); best and its tree (e.lv[d].best)
    improve, lbmin takes the least bound of every split proven above its cap."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef const int32_t* rk = L.rk + <int64_t> u * m
    cdef int32_t* tpos = L.tpos
    cdef int32_t* q = L.queue
    cdef double* W = L.wpre
    cdef int i, head = 0, tail = 0, lo, hi, a, c, mid, t
    cdef double cap, bnd, va, P, sb
    cdef double vs[3]
    cdef double hint[3]
    cdef double kb[2 * CAP_BOUNDS_MAX]
    cdef double one[CAP_BOUNDS_MAX]
    cdef double* kbp = NULL
    cdef int nk = 0
    cdef int32_t split
    if L.lbk != NULL and kc <= CAP_BOUNDS_MAX and kc < (1 << d):
        # the cap binds: each valued threshold keeps its children's bounds at
        # every cap below kc (`capped_interval_bound`); an open end of the
        # column bounds each child by one leaf
        nk = 2 * (kc - 1)
        kbp = kb
        for i in range(kc - 1):
            one[i] = one_leaf_lower_bound(sp.lam)
    if not _column_run(sp, L, u, m, False, &lo, &hi):
        return
    if d == 2 and not _positions(e, L, ord, m, u):
        return
    q[0] = lo; q[1] = hi; q[2] = -1; q[3] = -1
    tail = 1
    while head < tail:
        lo = q[4 * head]; hi = q[4 * head + 1]; a = q[4 * head + 2]; c = q[4 * head + 3]
        head += 1
        _cap_and_prune(e, d, _tie_below(sp, L, u, rk, tpos, lo), B, best[0], &cap, &P)
        if (sp.rules & RULE_TRANSFER) and (a >= 0 or c >= 0):
            bnd = interval_bound(L.lbl[a] if a >= 0 else one_leaf_lower_bound(sp.lam),
                                 L.lbr[c] if c >= 0 else one_leaf_lower_bound(sp.lam))
            if kbp != NULL:
                sb = capped_interval_bound(
                    L.lbk + <int64_t> a * nk if a >= 0 else one,
                    L.lbk + <int64_t> c * nk + (kc - 1) if c >= 0 else one, kc)
                if sb > bnd:
                    bnd = sb
            if bnd > P:
                if bnd < lbmin[0]:
                    lbmin[0] = bnd
                continue
        if sp.rules & RULE_EXCHANGE:
            if a >= 0:
                va = L.lbv[a]
                lo = _shrink_up(W, tpos, tpos[a], va, lo, hi, P, lbmin)
            if c >= 0 and lo <= hi:
                va = L.lbv[c]
                hi = _shrink_down(W, tpos, tpos[c], va, lo, hi, P, lbmin)
        if lo > hi:
            continue
        if _poll(e):
            return
        mid = (lo + hi) // 2
        t = tpos[mid]
        split = sp.col_start[u] + rk[t - 1]
        if d > 2:
            _child_hints(sp, L, W, tpos, a, c, lo, hi, t, hint)
        _value_at(e, d, u, ord, m, cnt, split, t, cap, kc, best, lbmin, hint, vs, kbp)
        if e.sh != NULL and d == e.max_depth:
            fst_shared_lower(e.sh, best[0])
        if e.lim.stop != RUNNING:
            return
        L.lbl[mid] = vs[0]
        L.lbr[mid] = vs[1]
        L.lbv[mid] = vs[2]
        if kbp != NULL:
            memcpy(L.lbk + <int64_t> mid * nk, kb, nk * sizeof(double))
        if lo <= mid - 1:
            q[4 * tail] = lo; q[4 * tail + 1] = mid - 1; q[4 * tail + 2] = a; q[4 * tail + 3] = mid
            tail += 1
        if mid + 1 <= hi:
            q[4 * tail] = mid + 1; q[4 * tail + 1] = hi; q[4 * tail + 2] = mid; q[4 * tail + 3] = c
            tail += 1


cdef void _value_depth_two(DEngine* e, DLevel* L, int m, const double* cnt,
                           int32_t split, int t, const int32_t* yk, const double* wk,
                           int kc, double* best, double* vs, double* kb) noexcept nogil:
    """A root split of a node with two levels left (its first t rows in yk's
    column order go left, as L.upos places them, `_positions`): both sides valued
    exactly at depth one in one pass per column; the node's best and tree improve
    when it is better.  Under a cap of three leaves (kc = 3; the node has kc > 2,
    `_solve`) one side at most splits: the better of the left side's best split
    with the right leaf and the left leaf with the right side's (on a tie the
    left leaf, which the canonical order puts first, as the allocations of a
    split and the leaf beside a subtree meet it first); vs keeps the sides'
    depth-one values, which bound both, and kb (NULL: not kept) each side's
    value at caps 1 and 2."""
    cdef int K = e.sp.K
    cdef int k, i
    cdef double tot[128]
    cdef int64_t nt[2]
    cdef int32_t arg[2]
    cdef double v, vl, vr
    for k in range(2 * K):
        tot[k] = 0
    add_rows(&e.sp, tot, yk, wk, 0, t)
    for k in range(K):
        tot[K + k] = cnt[k] - tot[k]
    nt[0] = t
    nt[1] = m - t
    _depth_one(e, L, m, 2, t, tot, nt, vs, arg, NULL)
    v = vs[0] + vs[1]
    if kc < 4 and arg[0] >= 0 and arg[1] >= 0:
        e.allocations += 1
        vl = vs[0] + leaf_loss(&e.sp, tot + K, nt[1]) + e.sp.lam
        vr = leaf_loss(&e.sp, tot, nt[0]) + e.sp.lam + vs[1]
        if vr <= vl + TOL:
            v = vr
            arg[0] = -1
        else:
            v = vl
            arg[1] = -1
    vs[2] = v
    if kb != NULL:
        for k in range(2 * (kc - 1)):
            kb[k] = -INF
        _cap_bounds(kb, kc, vs, leaf_loss(&e.sp, tot, nt[0]) + e.sp.lam,
                    leaf_loss(&e.sp, tot + K, nt[1]) + e.sp.lam)
    if _takes(&e.sp, L, v, (2 if arg[0] >= 0 else 1) + (2 if arg[1] >= 0 else 1), best[0],
              split):
        best[0] = v
        _took(L, (2 if arg[0] >= 0 else 1) + (2 if arg[1] >= 0 else 1))
        memset(L.best, -1, _heap_size(2) * sizeof(int32_t))
        L.best[0] = split
        L.best[1] = arg[0]
        L.best[2] = arg[1]


cdef bint _value_deeper(DEngine* e, int d, int u, const int32_t* ord, int m,
                        const double* cnt, int32_t split, int t, double cap, int kc,
                        double* best, double* vs, const double* hint,
                        double* kb) noexcept nogil:
    """A root split of a node with d >= 3 levels left: its rows partitioned into
    the two children (each still sorted per column), the smaller child searched
    within cap - lb(larger) and the larger within cap - R(smaller), each with at
    most kc - 1 leaves.  vs gets the two children's values or bounds and the
    split's value or bound (vs[2]); True when the split is valued exactly.  When
    the two optima hold more than kc leaves together, the split's value is the best allocation
    of the kc leaves between them (`_value_capped`).  Under RULE_ALLOCATIONS a
    binding cap values the split allocation by allocation instead
    (`_value_allocations`).  kb (NULL: not kept) gets
    the children's bounds at every cap below kc (`_cap_bounds`)."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef DLevel* C = &e.lv[d - 1]
    cdef int K = sp.K
    cdef int p = sp.p
    cdef int k, j, ml = t, mr = m - t, first, second
    cdef int32_t* left = L.child
    cdef int32_t* right = L.child + <int64_t> p * ml
    cdef double* cl = L.cnt + 2 * K
    cdef double* cr = L.cnt + 3 * K
    cdef const int32_t* yu = L.yk + <int64_t> u * m
    cdef const double* wu = _weights(&e.sp, L, u, m)
    cdef const int32_t* rows[2]
    cdef const double* cc[2]
    cdef int mm[2]
    cdef double lb0[2]
    cdef double v1, v2, bud
    cdef bint ex1
    cdef int ck = kc - 1 if kc < LEAF_CAP_NONE else kc
    for k in range(K):
        cl[k] = 0
    add_rows(sp, cl, yu, wu, 0, t)
    for k in range(K):
        cr[k] = cnt[k] - cl[k]
    if not _partition(e, L, ord, m, u, t):
        return False
    rows[0] = left; rows[1] = right
    cc[0] = cl; cc[1] = cr
    mm[0] = ml; mm[1] = mr
    lb0[0] = _lower(sp, cl, ml, d - 1)
    lb0[1] = _lower(sp, cr, mr, d - 1)
    if kb != NULL:
        for k in range(2 * (kc - 1)):
            kb[k] = -INF
    if hint != NULL:
        # the children's bounds from the column's valued neighbours
        if hint[0] > lb0[0]:
            lb0[0] = hint[0]
        if hint[1] > lb0[1]:
            lb0[1] = hint[1]
    if (sp.rules & RULE_SEGMENT) and sp.target != NULL and d >= 3 and segment_prune(
            e, d, rows, mm, ck, cap, lb0):
        # proven above the cap by the children's segmentation floors alone
        vs[0] = lb0[0]
        vs[1] = lb0[1]
        vs[2] = lb0[0] + lb0[1]
        if kb != NULL:
            _cap_bounds(kb, kc, vs, leaf_loss(sp, cl, ml) + sp.lam,
                        leaf_loss(sp, cr, mr) + sp.lam)
        return False
    first = 1 if ml >= mr else 0
    second = 1 - first
    if ((sp.rules & RULE_ALLOCATIONS) and kc <= CAP_BOUNDS_MAX and d < 30
            and kc < (1 << d)):
        # the cap binds: the split is the best of its allocations, each valued
        # side by side (`allocation_bound`)
        return _value_allocations(e, d, rows, mm, cc, lb0, first, cap,
                                  hint[2] if hint != NULL else 0.0, kc, split, best,
                                  vs, kb)
    # the smaller child first: it costs less, and its value often rules the
    # larger one out
    vs[second] = lb0[second]
    for k in range(2):
        j = first if k == 0 else second
        bud = cap - (lb0[second] if k == 0 else v1)
        if hint != NULL:
            bud += hint[2]
        v2 = _solve(e, d - 1, rows[j], mm[j], cc[j], bud, ck, &ex1)
        if e.lim.stop != RUNNING:
            return False
        vs[j] = v2
        if not ex1 or (k == 0 and v2 > bud + TOL):
            vs[2] = vs[0] + vs[1]
            if kb != NULL:
                _cap_bounds(kb, kc, vs, leaf_loss(sp, cl, ml) + sp.lam,
                            leaf_loss(sp, cr, mr) + sp.lam)
            return False
        if k == 0:
            v1 = v2
            memcpy(L.cand, C.best, _heap_size(d - 1) * sizeof(int32_t))
            L.cand_leaves = C.best_leaves
    vs[2] = vs[0] + vs[1]
    if L.cand_leaves + C.best_leaves > kc:
        if vs[2] <= cap + TOL:
            ex1 = _value_capped(e, d, rows, mm, cc, first, cap, kc, split, best, vs, kb)
        else:
            # each child's value at kc - 1 leaves bounds it at every allocation
            ex1 = False
        if kb != NULL and e.lim.stop == RUNNING:
            _cap_bounds(kb, kc, vs, leaf_loss(sp, cl, ml) + sp.lam,
                        leaf_loss(sp, cr, mr) + sp.lam)
        return ex1
    if kb != NULL:
        _cap_bounds(kb, kc, vs, leaf_loss(sp, cl, ml) + sp.lam,
                    leaf_loss(sp, cr, mr) + sp.lam)
    if _takes(&e.sp, L, v1 + v2, L.cand_leaves + C.best_leaves, best[0], split):
        best[0] = v1 + v2
        _took(L, L.cand_leaves + C.best_leaves)
        memset(L.best, -1, _heap_size(d) * sizeof(int32_t))
        L.best[0] = split
        _place(L.best, d, 1 + first, L.cand)
        _place(L.best, d, 1 + second, C.best)
    return True
