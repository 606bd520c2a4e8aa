"""A split of the depth-limited engine (`_depth`) under a leaf cap: its leaves
shared out between its two children, allocation by allocation
(`_value_allocations`, RULE_ALLOCATIONS, where the cap binds) or past the two
children's searches at one leaf under the cap (`_value_capped`), its tied
allocations in the canonical split order; and the same order between a leaf
beside a subtree and its node's best on one root split (`_peel_takes`).  The
children are searched through `DEngine.solve` (`_depth._solve`), so this
module cimports only `_depth`'s types, as `_depth_columns` does."""
from libc.string cimport memcpy, memset

from ._typedefs cimport int32_t, TOL, INF
from ._limits cimport RUNNING
from ._rowpass cimport DSpace, leaf_loss
from ._bounds cimport larger_cap_bound, allocation_bound
from ._depth cimport (DEngine, DLevel, _heap_size, _takes, _took, _place, _wins,
                      _tree_order, CAP_BOUNDS_MAX)
from ._depth_columns cimport _cap_bounds


cdef bint _allocated(DEngine* e, int d, int32_t split, double found, double low,
                     int got_leaves, const int32_t* got0, const int32_t* got1,
                     double* best, double* vs) noexcept nogil:
    """The answer of a split valued allocation by allocation (`_value_capped`,
    `_value_allocations`): found the best allocation within the cap (INF: none),
    its trees got0 and got1 (heap order of depth d - 1) and their leaves, low the
    least bound of the others.  True with vs[2] = found and the node's best
    improved as `_takes` allows; else False, vs[2] = low."""
    cdef DLevel* L = &e.lv[d]
    if found == INF:
        vs[2] = low
        return False
    vs[2] = found
    if _takes(&e.sp, L, found, got_leaves, best[0], split):
        best[0] = found
        _took(L, got_leaves)
        memset(L.best, -1, _heap_size(d) * sizeof(int32_t))
        L.best[0] = split
        _place(L.best, d, 1, got0)
        _place(L.best, d, 2, got1)
    return True


cdef inline bint _pair_first(const int32_t* left, const int32_t* right,
                             const int32_t* held_left, const int32_t* held_right,
                             int d) noexcept nogil:
    """Whether two subtrees of depth d (heap order) beside one split come
    before the pair held beside it in the canonical split order: the left
    subtree decides, and when they are the same the right.  Between two
    allocations of a split's leaves of equal value (and, with the leaves in the
    tie rule, as many leaves) the tie rule keeps the first in that order, as it
    keeps the lowest split at a node (docs/how_it_works.md, "Ties")."""
    cdef int c = _tree_order(left, held_left, d)
    if c != 0:
        return c < 0
    return _tree_order(right, held_right, d) < 0


cdef inline bint _ties_with(const DSpace* sp, double v, int leaves, double best,
                            int best_leaves) noexcept nogil:
    """Whether a tree of value v and `leaves` leaves ties a best one for the tie
    rule's order between trees of one root split to decide: within TOL of it,
    and with as many leaves where the rule counts them (else `_wins` decides
    by the leaves)."""
    return (best - TOL <= v <= best + TOL) and not (sp.ties and leaves != best_leaves)


cdef inline bint _allocation_wins(const DSpace* sp, double v, int leaves,
                                  const int32_t* left, const int32_t* right, double found,
                                  int got_leaves, const int32_t* got_left,
                                  const int32_t* got_right, int32_t split,
                                  int d) noexcept nogil:
    """Whether an allocation of a split's leaves (value v, its sides' trees
    left and right, of depth d) replaces the best held (value found, INF for
    none): `_wins` (better, or as good with fewer leaves where the tie rule
    counts them), or on a tie of as many leaves first in the canonical split
    order (`_pair_first`)."""
    if _wins(sp, v, leaves, split, found, got_leaves, split, False):
        return True
    return (_ties_with(sp, v, leaves, found, got_leaves)
            and _pair_first(left, right, got_left, got_right, d))


cdef bint _peel_takes(DEngine* e, int d, double v, int leaves, double best) noexcept nogil:
    """Whether a leaf beside a subtree (`_depth._solve_peel`; the tree in
    L.cand, heap order of depth d, `leaves` leaves, value v) replaces the
    node's best: by `_takes`, but on a tie of as many leaves (where the tie
    rule counts them) with a best on the same root split, the one first in
    the canonical split order (`_tree_order`).  That best is the node's
    optimum of depth d - 1 (or the root's seed), the least in that order of
    the trees of depth d - 1, or a leaf beside a subtree met before; the
    trees of depth d on that split are all leaf-beside ones (a side of depth
    d - 1 holds d leaves or more), so the first in the order of all three is
    the split's canonical tree (docs/how_it_works.md, "Ties")."""
    cdef DLevel* L = &e.lv[d]
    if L.best[0] == L.cand[0] and _ties_with(&e.sp, v, leaves, best, L.best_leaves):
        return _tree_order(L.cand, L.best, d) < 0
    return _takes(&e.sp, L, v, leaves, best, L.cand[0])


cdef inline void _raise_caps(double* lbs, int x, double v) noexcept nogil:
    """A side's value or bound v at cap x bounds it at every cap x' <= x
    (`larger_cap_bound`): lbs[x' - 1] its bounds."""
    cdef int i
    for i in range(x):
        lbs[i] = larger_cap_bound(lbs[i], v)


cdef bint _value_allocations(DEngine* e, int d, const int32_t** rows, const int* mm,
                             const double** cc, const double* lb0, int first, double cap,
                             double widen, int kc, int32_t split, double* best,
                             double* vs, double* kb) noexcept nogil:
    """A split of a node of depth d under a binding leaf cap kc (RULE_ALLOCATIONS),
    valued allocation by allocation: its value is the least over a = 1 .. kc - 1
    of R(left, a) + R(right, kc - a).  Each allocation is dropped when its two
    sides' bounds are above the cap (`allocation_bound`), else its side of fewer
    leaves (the cheaper search) is searched first, within the cap less the
    other side's bound, and the other within the cap less that value; every
    value or bound found at a cap bounds the side at each smaller cap.  The
    budgets are widened by `widen` (the neighbour bound's reach, `_child_hints`).
    True with the node's best improved as `_takes` allows when an allocation is
    within the cap (vs[2] its value; the allocations are met in the order of
    `_value_capped`, a ascending, and replace the best found only as it does,
    so the tree is the same); else False, vs[2] the least bound of the
    allocations.  vs[0], vs[1] get each side's bound at kc - 1 leaves, kb (NULL:
    not kept) its bounds at every cap."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef DLevel* C = &e.lv[d - 1]
    cdef int h = _heap_size(d - 1)
    cdef int32_t* got[2]
    cdef double lbs[2 * CAP_BOUNDS_MAX]
    cdef int cap_of[2]
    cdef int a, s1, s2, side, x, lv1, got_leaves = 0
    cdef double x1, x2, capa, bud, low = INF, found = INF, leaf
    cdef bint ex
    got[0] = L.alt + 2 * h
    got[1] = L.alt + 3 * h
    e.by_allocation += 1
    for side in range(2):
        leaf = leaf_loss(sp, cc[side], mm[side]) + sp.lam
        lbs[side * CAP_BOUNDS_MAX] = leaf
        for x in range(1, kc - 1):
            lbs[side * CAP_BOUNDS_MAX + x] = lb0[side]
    for a in range(1, kc):
        e.allocations += 1
        capa = cap if cap < found else found
        cap_of[0] = a
        cap_of[1] = kc - a
        x1 = allocation_bound(lbs[a - 1], lbs[CAP_BOUNDS_MAX + kc - a - 1])
        if x1 > capa + TOL:
            if x1 < low:
                low = x1
            continue
        s1 = 0 if a < kc - a else (1 if a > kc - a else first)
        s2 = 1 - s1
        bud = capa - lbs[s2 * CAP_BOUNDS_MAX + cap_of[s2] - 1] + widen
        x1 = e.solve(e, d - 1, rows[s1], mm[s1], cc[s1], bud, cap_of[s1], &ex)
        if e.lim.stop != RUNNING:
            return False
        _raise_caps(lbs + s1 * CAP_BOUNDS_MAX, cap_of[s1], x1)
        if not ex or x1 > bud + TOL:
            x1 = allocation_bound(x1, lbs[s2 * CAP_BOUNDS_MAX + cap_of[s2] - 1])
            if x1 < low:
                low = x1
            continue
        memcpy(L.cand, C.best, h * sizeof(int32_t))
        lv1 = C.best_leaves
        bud = capa - x1 + widen
        x2 = e.solve(e, d - 1, rows[s2], mm[s2], cc[s2], bud, cap_of[s2], &ex)
        if e.lim.stop != RUNNING:
            return False
        _raise_caps(lbs + s2 * CAP_BOUNDS_MAX, cap_of[s2], x2)
        if not ex or x1 + x2 > capa + TOL:
            if x1 + x2 < low:
                low = x1 + x2
            continue
        # the allocations' trees share the root split: of equal value, the
        # tie rule keeps the one of fewer leaves, else the first in the
        # canonical split order
        if _allocation_wins(sp, x1 + x2, lv1 + C.best_leaves,
                            L.cand if s1 == 0 else C.best, C.best if s1 == 0 else L.cand,
                            found, got_leaves, got[0], got[1], split, d - 1):
            found = x1 + x2
            got_leaves = lv1 + C.best_leaves
            memcpy(got[s1], L.cand, h * sizeof(int32_t))
            memcpy(got[s2], C.best, h * sizeof(int32_t))
    vs[0] = lbs[kc - 2]
    vs[1] = lbs[CAP_BOUNDS_MAX + kc - 2]
    if kb != NULL:
        for side in range(2):
            for x in range(kc - 1):
                if lbs[side * CAP_BOUNDS_MAX + x] > kb[side * (kc - 1) + x]:
                    kb[side * (kc - 1) + x] = lbs[side * CAP_BOUNDS_MAX + x]
        _cap_bounds(kb, kc, vs, lbs[0], lbs[CAP_BOUNDS_MAX])
    return _allocated(e, d, split, found, low, got_leaves, got[0], got[1], best, vs)


cdef bint _value_capped(DEngine* e, int d, const int32_t** rows, const int* mm,
                        const double** cc, int first, double cap, int kc, int32_t split,
                        double* best, double* vs, double* kb) noexcept nogil:
    """The split of `_value_deeper` under a leaf cap kc whose two children's
    optima at kc - 1 leaves (values vs, trees in L.cand for child `first` and
    e.lv[d - 1].best for the other) hold more than kc leaves together.  Its value
    is the least over the allocations (a, kc - a) of R(left, a) + R(right, kc - a).
    A child whose optimum at kc - 1 leaves has l leaves has that optimum for any
    cap a >= l (the least over a larger class, attained in the smaller), so only
    the allocations with a in [kc - l_right, l_left] differ, and each child's
    value at kc - 1 leaves bounds it at every cap: the left child is searched
    within cap - vs[right], the right within cap - R(left, a).  True with the
    node's best improved as `_takes` allows when an allocation is within the cap
    (vs[2] its value: the allocations not within it are above it); else False,
    vs[2] the least bound of the allocations (each above the cap).  kb (NULL:
    not kept) gets each child's value or bound at the caps searched."""
    cdef DSpace* sp = &e.sp
    cdef DLevel* L = &e.lv[d]
    cdef DLevel* C = &e.lv[d - 1]
    cdef int h = _heap_size(d - 1)
    cdef int32_t* opt0 = L.alt              # each child's optimum at kc - 1 leaves
    cdef int32_t* opt1 = L.alt + h
    cdef int32_t* got0 = L.alt + 2 * h      # the best allocation's trees
    cdef int32_t* got1 = L.alt + 3 * h
    cdef int32_t* opt[2]
    cdef int nl[2]
    cdef int a, lo, hi, k0, k1, lv0, lv1, got_leaves = 0
    cdef double x0, x1, capa, bud, low = INF, found = INF
    cdef bint ex
    opt[0] = opt0
    opt[1] = opt1
    memcpy(opt[first], L.cand, h * sizeof(int32_t))
    memcpy(opt[1 - first], C.best, h * sizeof(int32_t))
    nl[first] = L.cand_leaves
    nl[1 - first] = C.best_leaves
    lo = kc - nl[1] if kc - nl[1] > 1 else 1
    hi = nl[0] if nl[0] < kc - 1 else kc - 1
    for a in range(lo, hi + 1):
        e.allocations += 1
        capa = cap if cap < found else found
        k0 = a
        k1 = kc - a
        if k0 >= nl[0]:
            x0 = vs[0]
            lv0 = nl[0]
            memcpy(L.cand, opt0, h * sizeof(int32_t))
        else:
            bud = capa - vs[1]
            x0 = e.solve(e, d - 1, rows[0], mm[0], cc[0], bud, k0, &ex)
            if e.lim.stop != RUNNING:
                return False
            if kb != NULL and x0 > kb[k0 - 1]:
                kb[k0 - 1] = x0
            if not ex or x0 > bud + TOL:
                if x0 + vs[1] < low:
                    low = x0 + vs[1]
                continue
            lv0 = C.best_leaves
            memcpy(L.cand, C.best, h * sizeof(int32_t))
        if k1 >= nl[1]:
            x1 = vs[1]
            lv1 = nl[1]
            memcpy(C.best, opt1, h * sizeof(int32_t))
        else:
            bud = capa - x0
            x1 = e.solve(e, d - 1, rows[1], mm[1], cc[1], bud, k1, &ex)
            if e.lim.stop != RUNNING:
                return False
            if kb != NULL and x1 > kb[kc - 1 + k1 - 1]:
                kb[kc - 1 + k1 - 1] = x1
            if not ex:
                if x0 + x1 < low:
                    low = x0 + x1
                continue
            lv1 = C.best_leaves
        if x0 + x1 > capa + TOL:
            if x0 + x1 < low:
                low = x0 + x1
            continue
        if _allocation_wins(sp, x0 + x1, lv0 + lv1, L.cand, C.best, found, got_leaves,
                            got0, got1, split, d - 1):
            found = x0 + x1
            got_leaves = lv0 + lv1
            memcpy(got0, L.cand, h * sizeof(int32_t))
            memcpy(got1, C.best, h * sizeof(int32_t))
    return _allocated(e, d, split, found, low, got_leaves, got0, got1, best, vs)
