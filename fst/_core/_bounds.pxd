# Every rule of the certified search that values a leaf, raises a lower bound,
# drops a split or marks a node solved: one inline function per rule, each with
# its soundness argument.  This is the one file to audit for the certificate: the
# stages call these at every place they write a bound or a solved flag, and a
# rule whose RULE_* bit (_config.pxd) is cleared is never applied.  Each rule's
# one-line reason is in docs/how_it_works.md.
#
# Notation: costs are per row and already divided by n, so values add up across
# children; lam is the price of one leaf; R(X) the optimum of row set X (at its
# depth left).  The invariants every write keeps (docs/how_it_works.md):
#   (i)   lb(X) <= R(X): lower bounds are admissible;
#   (ii)  ub(X) is the objective of a real tree, rebuilt by following best_split;
#   (iii) a solved node has lb == ub; an unsolved answer carries lb > budget.
# Tolerance: a prune needs an excess of more than TOL and a solve accepts
# equality within TOL (docs/how_it_works.md, "Invariants and the tolerance").

from libc.stdint cimport int32_t, int64_t
from libc.math cimport nextafterf, INFINITY
from ._typedefs cimport TOL, INF
from ._memo cimport Node, SPLIT_ELSEWHERE
from ._config cimport (RULE_EQUIVALENT, RULE_SUPPORT, RULE_SUPERSET, RULE_CAPACITY,
                       RULE_WORTH)
from ._context cimport Ctx, Cand, cand_node

# ------------------------------------------------------------------- values


cdef inline double leaf_loss(const double* counts, int K, const double* cost,
                             const int32_t* cols, int ncols, int* label) noexcept nogil:
    """Least total cost of labelling rows with these class counts by one label.

    Only the labels `cols` (ncols of them, increasing) are tried: the first of
    each set of identical columns of `cost` (`distinct_columns`), since identical
    columns give identical sums.  Ties go to the lowest class index (the same
    tie-break as numpy's argmax over scores, so the exported tree predicts this
    label)."""
    cdef double best = 0.0, s
    cdef int t, k, c, arg = 0
    for t in range(ncols):
        k = cols[t]
        s = 0.0
        for c in range(K):
            s += counts[c] * cost[c * K + k]
        if t == 0 or s < best:
            best = s
            arg = k
    if label != NULL:
        label[0] = arg
    return best


cdef inline double class_sum(const double* counts, int K, const double* per_row) noexcept nogil:
    """Sum over rows of a per-class amount: counts[c] * per_row[c] over classes c."""
    cdef double s = 0.0
    cdef int c
    for c in range(K):
        s += counts[c] * per_row[c]
    return s


cdef inline double potential(const double* counts, int K, const double* potc) noexcept nogil:
    """pot(X) = sum over rows of (max_k C[y,k] - min_k C[y,k]): the most that
    relabelling X can change the loss (|X|/n for 0/1 loss)."""
    return class_sum(counts, K, potc)


cdef inline double worst_loss(const double* counts, int K, const double* maxcost) noexcept nogil:
    """The cost of rows with these class counts when every row gets its class's
    largest cost: the most any tree can lose on them."""
    return class_sum(counts, K, maxcost)


cdef inline double leaf_support(double worst, double loss) noexcept nogil:
    """The support of a set S: worst(S) - leaf(S), the most a leaf on S can save
    against sending every row of S to a leaf of any other label (see
    `split_supported`)."""
    return worst - loss


# ------------------------------------------------------- the node's own state


cdef inline bint settle(Node* nd) noexcept nogil:
    """The incumbent meets the proven bound (within TOL): the node is solved at its
    incumbent, a real tree (ii), and the bound takes its value (iii).  Every rule
    that raises a bound or lowers an incumbent ends here.  Returns whether the
    node is solved."""
    if not nd.solved and nd.ub <= nd.lb + TOL:
        nd.lb = nd.ub
        nd.solved = 1
    return nd.solved


cdef inline void raise_bound(Node* nd, double v) noexcept nogil:
    """lb(X) = max(lb(X), v) for a v the caller's rule proves <= R(X) (i)."""
    if v > nd.lb:
        nd.lb = v


cdef inline void lower_to_incumbent(Node* nd) noexcept nogil:
    """A bound above the incumbent (within TOL of it, from rounding) falls to it:
    the incumbent is a real tree, so R(X) <= ub and the lower bound stays
    admissible (i)."""
    if nd.lb > nd.ub:
        nd.lb = nd.ub


cdef inline void settle_leaf(Node* nd) noexcept nogil:
    """The caller's rule proves the best tree on X a leaf: solved at leaf(X)."""
    nd.ub = nd.leaf
    nd.lb = nd.leaf
    nd.best_split = -1
    nd.solved = 1


cdef inline void settle_exact(Node* nd, double v, int32_t split) noexcept nogil:
    """The caller's rule proves R(X) = v, the value of the real tree rooted at
    `split` whose nodes it has recorded: solved at v."""
    nd.ub = v
    nd.lb = v
    nd.best_split = split
    nd.solved = 1


cdef inline void settle_at_incumbent(Node* nd) noexcept nogil:
    """The caller's rule proves R(X) >= ub(X): solved at the incumbent."""
    nd.lb = nd.ub
    nd.solved = 1


# ---------------------------------------------------------- node creation


cdef inline bint too_few_to_split(int64_t m, int min_leaf) noexcept nogil:
    """min_samples_leaf: a split leaves at least min_leaf rows on each side, so
    a set of fewer than 2 min_leaf rows has no split, and its only tree is the
    leaf (not a rule that can be switched off: the constraint itself)."""
    return m < 2 * <int64_t> min_leaf


cdef inline bint floor_settles_leaf(double loss, double floor, double lam) noexcept nogil:
    """Equivalent points (RULE_EQUIVALENT): rows with identical features are never
    separated, so every tree with a split loses at least the floor m(X) and costs
    at least m + 2 lam; when loss - m <= lam that is >= loss + lam = leaf(X), and
    the leaf is optimal."""
    return loss - floor <= lam + TOL


cdef inline bint support_settles_leaf(double pot, double lam) noexcept nogil:
    """Leaf support (RULE_SUPPORT): in an optimal tree every leaf has potential >=
    lam (deleting a leaf of less and routing its rows to its sibling saves lam
    and adds at most its potential of loss), so a set of potential below 2 lam
    holds no split of an optimal tree: the leaf is optimal.  Under squared
    error (pot at least X's rows' worst added errors over X's range): the two
    sides of any split of X have worsts summing to below 2 lam, so one has
    less than lam and the split is never a minimiser
    (`squares_side_dominated`): the leaf is optimal."""
    return pot < 2.0 * lam


cdef inline double creation_lower_bound(double leaf, double floor, double lam) noexcept nogil:
    """Equivalent points: any tree with a split costs at least floor + 2 lam (two
    leaves, and the floor of the loss); a leaf costs `leaf` exactly.  Hence
    R(X) >= min(leaf, floor + 2 lam)."""
    cdef double split_floor = floor + 2.0 * lam
    return leaf if leaf < split_floor else split_floor


cdef inline double two_leaf_lower_bound(double leaf, double lam) noexcept nogil:
    """Without the floor: a tree with a split has >= 2 leaves and a nonnegative
    loss, so R(X) >= min(leaf, 2 lam)."""
    return leaf if leaf < 2.0 * lam else 2.0 * lam


cdef inline float floor_f32(double m) noexcept nogil:
    """m rounded down to float32, so the stored floor never exceeds the true one
    (a lower floor is still a lower bound on the loss)."""
    cdef float f = <float> m
    if <double> f > m:
        f = nextafterf(f, -INFINITY)
    return f


cdef inline void creation_bounds(Node* nd, double loss, double floor, int depth,
                                 int64_t total, double lam, int rules) noexcept nogil:
    """A new node's bound and solved flag from its leaf (nd.leaf = loss + lam) and
    potential: a leaf at once with no depth left or a single row (no split), by
    leaf support or by equivalent points; otherwise lb = min(leaf, m + 2 lam),
    or min(leaf, 2 lam) without the floor.  `floor` is m(X); under
    RULE_EQUIVALENT it is kept (rounded down) in nd.floor for the shape bounds
    (`child_shapes`), else nd.floor stays 0."""
    nd.floor = 0.0
    if depth == 0 or total <= 1 or ((rules & RULE_SUPPORT)
                                    and support_settles_leaf(nd.pot, lam)):
        nd.lb = nd.leaf
        nd.solved = 1
        return
    if not (rules & RULE_EQUIVALENT):
        nd.lb = two_leaf_lower_bound(nd.leaf, lam)
        return
    nd.floor = floor_f32(floor)
    if floor_settles_leaf(loss, floor, lam):
        nd.lb = nd.leaf
        nd.solved = 1
        return
    nd.lb = creation_lower_bound(nd.leaf, floor, lam)


cdef inline void merge_bound(Node* nd, double lb) noexcept nogil:
    """A bound proved for the same rows and depth while the node lived in another
    candidate's record holds here too (i)."""
    if not nd.solved:
        raise_bound(nd, lb)


# ------------------------------------------------------- splits of a node


cdef inline bint split_supported(double sup_left, double sup_right, double lam) noexcept nogil:
    """Leaf support (RULE_SUPPORT).  Deleting a leaf L of an optimal tree and
    routing its rows through its sibling's subtree saves lam and raises the loss
    of L's rows from loss(L) to at most worst(L) (each row at its class's largest
    cost): at most leaf_support(L), since L's label is a best one.  So in an
    optimal tree every leaf has support >= lam.  Support only shrinks on subsets
    (for each label the saving worst - cost is a sum of nonnegative per-row
    terms, and the maximum over labels of smaller sums is smaller), so a split
    with a side of support (or of potential, which is never smaller) below lam
    never appears in an optimal tree of X nor of any subset: deleting leaves of
    too little support ends at a tree built from supported splits only, every
    split of which has a leaf of support >= lam on each side, and so both sides
    of support >= lam at the node it cuts and at every superset.  Deleting never
    deepens a tree, so this holds under a depth limit too.  Under 0/1 loss the
    support is the share of the rows in S's largest class (OSDT's accurate
    support).  A tree with a leaf of support exactly lam ties the tree without
    it; the caller passes `lam` less a relative 1e-9 (`support_unit`), so
    rounding never drops a split whose support reaches lam."""
    return sup_left >= lam and sup_right >= lam


cdef inline double support_unit(double lam) noexcept nogil:
    """The lam of `split_supported`, less a relative 1e-9."""
    return lam * (1.0 - 1e-9)


cdef inline double capacity_unit(int rules, double lam) noexcept nogil:
    """Leaf capacity (RULE_CAPACITY).  R(S) is always attained by a tree whose
    every leaf has potential >= lam (leaf support: deleting a leaf of less and
    routing its rows to its sibling saves lam and adds at most its potential of
    loss; deleting never deepens a tree, so this holds under a depth limit too).
    Potentials add over disjoint rows, so such a tree with a leaves needs
    pot(S) >= a * lam: a set of potential below a * lam holds no such tree with a
    or more leaves, and a three-leaf tree peels off a leaf of potential >= lam
    beside a side of potential >= 2 lam.  Returns the unit the tests compare
    potentials with: lam less a relative 1e-9, so that rounding in a computed
    potential never excludes a tree (a weaker bound, never a wrong one); 0 when
    the rule is off (every potential passes)."""
    if rules & RULE_CAPACITY:
        return lam * (1.0 - 1e-9)
    return 0.0


cdef inline bint side_not_worth(double lb_side, double worst_side) noexcept nogil:
    """Side worth (RULE_WORTH): a split s of X with a side S whose optimum exceeds
    worst(S), the cost of misclassifying every row of S at its largest cost, is
    never optimal at X.  Take an optimal tree T of the other side X \\ S and send
    all of X through it: that tree costs at most R(X \\ S) + worst(S), so
    R(X) <= R(X \\ S) + worst(S) < R(X \\ S) + R(S) = R(s).  The split can be set
    aside at X (a minimiser of R(X) is always kept) but not in X's descendants,
    where S shrinks.  With max_depth the same tree, of depth at most d - 1,
    serves at X.  The OSDT paper's bound on a leaf's accurate support (a leaf
    must classify lam * n rows correctly) is the case where S is a leaf, for
    0/1 loss.  lb(S) > worst(S) + TOL gives R(s) > R(X) + TOL."""
    return lb_side > worst_side + TOL


cdef inline bint split_not_worth(int rules, const Cand* cd, const Node* L,
                                 const Node* R) noexcept nogil:
    """`side_not_worth` for either side of a candidate, under RULE_WORTH."""
    return (rules & RULE_WORTH) != 0 and (
        side_not_worth(L.lb, cd.worst_left) or side_not_worth(R.lb, cd.worst_right))


cdef inline void column_transfer(Cand* cands, int n) noexcept nogil:
    """Column transfer (RULE_TRANSFER): for thresholds t < t' of one column the
    two splits disagree only on the rows between them, of potential
    pot_left(t') - pot_left(t); moving those rows turns any tree rooted at t'
    into one rooted at t with the same leaves and at most that much more loss,
    so |R(t) - R(t')| <= that potential and a bound proved for one threshold
    bounds its whole column.  `cands` are in column order, thresholds
    increasing: one sweep each way."""
    cdef int i
    cdef double v
    for i in range(1, n):
        if cands[i].col == cands[i - 1].col:
            v = cands[i - 1].lb - (cands[i].pot_left - cands[i - 1].pot_left)
            if v > cands[i].lb:
                cands[i].lb = v
    for i in range(n - 2, -1, -1):
        if cands[i].col == cands[i + 1].col:
            v = cands[i + 1].lb - (cands[i + 1].pot_left - cands[i].pot_left)
            if v > cands[i].lb:
                cands[i].lb = v


cdef inline void threshold_exchange(Ctx* c, Cand* cands, int n) noexcept nogil:
    """Threshold exchange (RULE_EXCHANGE): for thresholds t < t' of one column,
    left(t) is inside left(t') and right(t') inside right(t).  If lb(left(t)) >=
    leaf(left(t')), then R(t') = R(left t') + R(right t') <= leaf(left t') +
    R(right t) <= R(t) (R is monotone under inclusion), so t is dropped;
    symmetrically t' is dropped when lb(right(t')) >= leaf(right(t)).  Only
    neighbours this rule kept are compared and a drop is always in favour of
    such a split, so no cycle drops every split of a column; a drop in favour of
    a split set aside by side worth (never a minimiser of R(X)) drops no
    minimiser either.  Valid at this node only: children inherit every valid
    split."""
    cdef int i, last = -1
    for i in range(n):
        if last >= 0 and cands[last].col == cands[i].col:
            if cand_node(c, &cands[last], 0).lb >= cand_node(c, &cands[i], 0).leaf:
                cands[last].dropped = 1      # t = last is dominated by t' = i
            elif cand_node(c, &cands[i], 1).lb >= cand_node(c, &cands[last], 1).leaf:
                cands[i].dropped = 1         # t' = i is dominated by t = last
                continue
        last = i


# ------------------------------------------------ small trees of a child


cdef inline double three_leaf_peel(double peel_loss, double best2, double worst_peel) noexcept nogil:
    """A lower bound on the loss of every three-leaf tree on a set X that peels
    off the cell A as its leaf at depth one (its root split t cuts X into A and
    C; a split u cuts C into two leaves): loss(A) + max(0, best2(X) - worst(A)),
    where best2(X) is X's best two-leaf loss over a set of splits holding u and
    worst(A) is the cost of A's rows each at its class's largest cost.

    Monotonicity over rows: send all of X through C's two-leaf tree (split u,
    its two labels).  On C it loses loss_u(C); on A each row costs at most its
    class's largest cost, so X's tree loses at most loss_u(C) + worst(A), and
    X's best two-leaf tree over splits holding u loses no more:
    best2(X) <= loss_u(C) + worst(A).  Hence loss_u(C) >= best2(X) - worst(A),
    and loss_u(C) >= 0.  The three-leaf tree loses loss(A) + loss_u(C).

    The trees this bounds are those whose every leaf has potential >= lam, which
    attain R (leaf support): u then splits C into sides of potential >= lam, so
    u is valid at C, at X and at every superset of X, and the pair stage's row
    over the parent's valid splits holds it.  RULE_PEEL3."""
    cdef double rest = best2 - worst_peel
    return peel_loss + rest if rest > 0.0 else peel_loss


cdef inline double two_leaf_transfer(double g2_parent, double worst_other) noexcept nogil:
    """A lower bound on every two-leaf tree on a child C of X: g2(X) - worst(X
    minus C), g2(X) = 2 lam + best2(X) X's exact best two-leaf value (RULE_PEEL3).

    Monotonicity over rows, the argument of `three_leaf_peel` applied to the
    child: send all of X through a two-leaf tree of C (its split u, its two
    labels).  It loses loss_u(C) on C and at most worst(X minus C) on the other
    rows (each at its class's largest cost), and u separates X (it separates
    C), so best2(X) <= loss_u(C) + worst(X minus C): every two-leaf tree on C
    costs at least the value.  The trees this bounds are those whose leaves have
    potential >= lam, which attain R (leaf support): u is then valid at C and at
    every superset, among the splits over which best2(X) was taken.  The value
    depends on X's rows and C's only, so a record raised by it is still a bound
    whoever reads it; a pair stage on C later replaces it by the exact value,
    which is no smaller."""
    return g2_parent - worst_other


cdef inline void child_shapes(const Node* ch, double lam, double cap,
                              double* g) noexcept nogil:
    """g[a], a = 1..4: lower bounds on the trees with exactly a leaves (a >= 4 for
    g[4]) on a child, among the trees whose every leaf has potential >= lam (R is
    always attained by one: `capacity_unit`); infinite when its depth left or its
    potential cannot hold them (cap: `capacity_unit`, 0 when that rule is off).
    g1 = leaf (exact); g2 = 2 lam + m, or the exact best two-leaf value once the
    pair stage has run (before it, the bound `two_leaf_transfer` carried from a
    superset when larger); g3 = 3 lam + m, or 3 lam + the pair stage's three-leaf
    bound when larger (a three-leaf tree has a leaf at depth one: the cheapest
    peeled cell, raised by `three_leaf_peel` under RULE_PEEL3); g4 = 4 lam + m.
    Here m is the child's equivalent-points floor (`Node.floor`): a tree with a
    leaves costs a * lam plus its loss, and its loss is at least m, since rows
    with identical features share every leaf (the notes charge m only to trees
    with a split at creation, R >= min(leaf, m + 2 lam), and the same floor holds
    for every size).  Each is also >= lb(child), since every tree on the child
    costs at least R(child)."""
    cdef int d = ch.depth
    cdef int a
    cdef double m = ch.floor
    g[1] = ch.leaf
    g[2] = INF if d == 0 else 2.0 * lam + m
    g[3] = INF if (d == 0 or d == 1 or ch.pot < 3.0 * cap) else 3.0 * lam + m
    g[4] = INF if (g[3] == INF or ch.pot < 4.0 * cap) else 4.0 * lam + m
    if ch.pair_done:
        g[2] = ch.g2 if d != 0 else INF
        if g[3] != INF and ch.g3 > g[3]:
            g[3] = ch.g3
    elif g[2] != INF and ch.g2 > g[2]:
        g[2] = ch.g2    # a superset's two-leaf value, transferred (`two_leaf_transfer`)
    for a in range(2, 5):
        if g[a] != INF and ch.lb > g[a]:
            g[a] = ch.lb


cdef inline double shapes_lower_bound(const Node* ch, double lam, double cap) noexcept nogil:
    """min(g1, g2, g3, g4) (`child_shapes`): any tree on the child is a leaf, one
    split, or has three, or four or more leaves (RULE_PAIRS)."""
    cdef double g[5]
    cdef double v
    cdef int a
    child_shapes(ch, lam, cap, g)
    v = g[1]
    for a in range(2, 5):
        if g[a] < v:
            v = g[a]
    return v


cdef inline bint raise_to_shapes(Node* ch, double lam, double cap) noexcept nogil:
    """A child's bound rises to min(g1, g2, g3, g4) (`shapes_lower_bound`), and it
    is solved when its incumbent meets the bound (`settle`).  Returns whether
    the bound rose."""
    cdef double v = shapes_lower_bound(ch, lam, cap)
    cdef bint rose = False
    if v > ch.lb:
        ch.lb = v
        rose = True
    settle(ch)
    return rose


cdef inline void record_pair_values(Node* ch, double best2, double peel, double lam,
                                    double cap) noexcept nogil:
    """The pair stage valued a child (RULE_PAIRS): best2 its exact best two-leaf
    loss over the splits valid at its parent (an optimal tree uses only splits
    valid where it stands, and validity at a child implies validity at its
    parent), so g2 = 2 lam + best2 exactly; peel the least loss of a leaf any
    three-leaf tree peels off (raised by `three_leaf_peel` under RULE_PEEL3), so
    g3 = 3 lam + peel bounds its three-leaf trees.  Its bound rises to the
    shapes (`raise_to_shapes`).  INF: no such tree."""
    ch.g2 = 2.0 * lam + best2 if best2 < INF else INF
    ch.g3 = 3.0 * lam + peel if peel < INF else INF
    ch.pair_done = 1
    raise_to_shapes(ch, lam, cap)


cdef inline bint transfer_two_leaf(Node* ch, double v, double lam, double cap) noexcept nogil:
    """A child's two-leaf bound rises to v = `two_leaf_transfer` of its parent
    (RULE_PEEL3), then its bound to the shapes; a child the pair stage valued
    already has the exact value.  Returns whether its bound rose."""
    if ch.solved or ch.pair_done or not (v > ch.g2):
        return False
    ch.g2 = v
    return raise_to_shapes(ch, lam, cap)


cdef inline double split_shape_bound(const double* gl, const double* gr) noexcept nogil:
    """Lower bound on every tree rooted at this split: trees with <= 3 leaves (and
    (2,2)) cost >= min(g1, g2)(L) + min(g1, g2)(R) -- exact once both children have
    their pair values -- and a tree with a + b >= 4 leaves costs >= g_a(L) + g_b(R)
    (the shape relaxation)."""
    cdef double two = ((gl[1] if gl[1] < gl[2] else gl[2])
                       + (gr[1] if gr[1] < gr[2] else gr[2]))
    cdef double v = two, w
    cdef int a, b
    for a in range(1, 5):
        for b in range(1, 5):
            if a + b >= 4:
                w = gl[a] + gr[b]
                if w < v:
                    v = w
    return v


cdef inline double split_bound(const Node* L, const Node* R, double lam,
                               double cap) noexcept nogil:
    """The bound a split gets from its children (RULE_PAIRS): the sum of their
    bounds (every tree rooted at it costs R(L) + R(R)), or the shape relaxation
    (`split_shape_bound`) when larger."""
    cdef double gl[5]
    cdef double gr[5]
    cdef double v = L.lb + R.lb, w
    child_shapes(L, lam, cap, gl)
    child_shapes(R, lam, cap, gr)
    w = split_shape_bound(gl, gr)
    return w if w > v else v


# ------------------------------------------------------ a node's own bound


cdef inline double splits_lower_bound(const Cand* cands, int n, double leaf) noexcept nogil:
    """R(X) = min(leaf, min over kept splits of R(split)) >= min(leaf, min over
    kept splits of lb(split)): every dropped split is dominated by a kept one
    (threshold exchange) or is never a minimiser (side worth), and every split
    left out of the candidates is unsupported (leaf support), so a minimiser is
    always kept."""
    cdef double lbmin = leaf
    cdef int i
    for i in range(n):
        if not cands[i].dropped and cands[i].lb < lbmin:
            lbmin = cands[i].lb
    return lbmin


cdef extern from *:
    """
    #define FST_SHARE_SLACK (3 * FST_TOL)
    """
    # A share of a parallel root within this of the shared incumbent is done
    # (`shared_cap`).
    const double SHARE_SLACK "FST_SHARE_SLACK"


cdef inline double owned_splits_lower_bound(const Cand* cands, int n, double leaf,
                                            int tid, int n_workers) noexcept nogil:
    """A parallel root's share (n_jobs > 1, the switch of this rule and the next):
    thread tid searches the root splits s with s % n_workers == tid, and its root
    stands for R_t(X) = min(leaf, min over its kept splits of R(split)) >=
    min(leaf, their lbs).  Every split belongs to one thread and a minimiser is
    always kept (`splits_lower_bound`), so R(X) = min over threads of R_t(X): a
    thread solved at v_t holds a real tree no worse than its share, the least v_t
    is R(X), and the least of the threads' bounds bounds R(X)."""
    cdef double lbmin = leaf
    cdef int i
    for i in range(n):
        if (not cands[i].dropped and cands[i].split % n_workers == tid
                and cands[i].lb < lbmin):
            lbmin = cands[i].lb
    return lbmin


cdef inline double shared_cap(double cap, double shared) noexcept nogil:
    """The cap of a parallel root's loop: the shared incumbent is the value of a
    real tree some thread holds (it only decreases), so a share proved above it
    cannot hold the optimum, and its splits need only be searched up to
    shared + TOL (not below it: a split that ties the optimum is valued, and
    one left is proved above it by more than TOL, which the canonical tree's
    reading needs, `_search.canonical_split`).  Every split the loop leaves is
    then proved above the cap, or no better than the loop's incumbent within
    TOL, so a complete pass leaves the share solved (`share_settles`), or its
    bound above its budget, or above the least shared value it capped at:
    `_schedule._passes` checks this, and a share within SHARE_SLACK of the
    shared incumbent is done."""
    if shared + TOL < cap:
        return shared + TOL
    return cap


cdef inline bint share_settles(double best, double B, double si_min) noexcept nogil:
    """A parallel root's share is solved at its loop's incumbent `best` when it
    fits the budget and no shared cap went below it (si_min + TOL >= best): the
    loop then ran with the caps of the sequential search, min(B, best)."""
    return best <= B + TOL and best <= si_min + TOL


cdef inline double shared_prune_level(double P, double shared) noexcept nogil:
    """The depth-limited engine's parallel root (n_jobs > 1, the switch): each
    engine values the root splits of its own columns, and `shared` is the value
    of a real tree some engine holds (it only decreases).  A split whose bound
    exceeds shared + TOL cannot be the answer, which is the least of the
    engines' answers; a split that ties with it is kept and valued, so each
    engine answers its own columns as the serial search would, and ties between
    engines are broken in the serial order (`_depth.DepthSearch._gather`)."""
    if shared + TOL < P:
        return shared + TOL
    return P


cdef inline bint shared_bound(Node* nd, double v) noexcept nogil:
    """Shared bound (n_jobs > 1, the switch): v is a bound some thread of this fit
    proved for the same row set and depth left and published (`_table.pxd`).
    R(X, d) depends on X and d alone within one fit (same data, costs, lambda
    and rules), so v <= R(X, d) here as well (i).  A thread's restricted root is
    never published (`owned_splits_lower_bound` bounds its share only).
    Returns whether it raised the bound."""
    if v > nd.lb:
        nd.lb = v
        return True
    return False


cdef inline bint adopt_shared_tree(Node* nd, double ub) noexcept nogil:
    """(ii) a real tree (n_jobs > 1): some thread's store holds a tree of value ub
    for the same rows and depth left (`_table.pxd`); the node takes it as its
    incumbent, recorded as held elsewhere (SPLIT_ELSEWHERE), and extraction
    reads it from the store holding the least value for that key.  Never a
    bound.  Returns whether the incumbent fell."""
    if ub < nd.ub:
        nd.ub = ub
        nd.best_split = SPLIT_ELSEWHERE
        return True
    return False


cdef inline double superset_bound(double lbmin, double sup, int depth, int rules) noexcept nogil:
    """Superset bound (RULE_SUPERSET), only without a depth limit: R is monotone
    under inclusion (restricting an optimal tree of X to S adds neither loss nor
    leaves), so R(X) >= R(S) >= lb(S) for every child S; `sup` is the largest
    child bound.  Under max_depth the child's bound is for one level less, and
    R(S, d - 1) >= R(S, d) can exceed R(X, d)."""
    if sup > lbmin and depth < 0 and (rules & RULE_SUPERSET):
        return sup
    return lbmin


cdef inline double lookahead_first(const Node* first, const Node* second) noexcept nogil:
    """Look-ahead: the split's first child was proved above its share of the
    budget (or not solved within it): the split costs at least lb(first) +
    lb(second)."""
    return first.lb + second.lb


cdef inline double lookahead_second(const Node* first, const Node* second) noexcept nogil:
    """Look-ahead: the first child is solved (R(first) = ub) and the second was
    proved above what it leaves: the split costs at least ub(first) +
    lb(second)."""
    return first.ub + second.lb


cdef inline void raise_split_bound(Cand* cd, double v) noexcept nogil:
    """A split's bound rises to v, which the caller's rule proves for every tree
    rooted at it (look-ahead)."""
    if v > cd.lb:
        cd.lb = v


cdef inline double children_bound(const Node* L, const Node* R) noexcept nogil:
    """Every tree rooted at a split costs R(L) + R(R) >= lb(L) + lb(R) (the bound
    without the pair stage)."""
    return L.lb + R.lb


cdef inline double split_value(const Node* L, const Node* R) noexcept nogil:
    """Both children of a split solved: the best tree rooted at it costs exactly
    R(L) + R(R) = ub(L) + ub(R), a real tree (its bound is its value)."""
    return L.ub + R.ub


# ------------------------------------------- the depth-limited engine
#
# `_depth` searches depth-limited trees over the rows sorted on each column.
# Its rules hold by the same monotonicity: a tree of a set, applied to a subset,
# costs no more (costs are nonnegative; its empty leaves could only be merged
# away, saving lam).  Each runs under the RULE_* bit of the same argument
# (equivalent, exchange, transfer, support).


cdef inline double interval_bound(double lb_left_a, double lb_right_b) noexcept nogil:
    """For thresholds a < t < b of one column, L_t contains L_a and R_t contains R_b,
    so R(t) = R(L_t) + R(R_t) >= R(L_a) + R(R_b) >= lb(L_a) + lb(R_b): a bound on
    every root split strictly between two valued ones."""
    return lb_left_a + lb_right_b


cdef inline double capped_interval_bound(const double* left_a, const double* right_b,
                                        int kc) noexcept nogil:
    """Under a leaf cap kc (max_leaf_nodes) a root split t is worth the least
    over the allocations (x, kc - x), 1 <= x < kc, of R(L_t, x) + R(R_t, kc - x),
    R(S, x) the least value of S's trees of at most x leaves.  For thresholds
    a < t < b of one column, L_t contains L_a and R_t contains R_b, and at the
    same cap a superset costs no less (a tree of the larger set, applied to the
    smaller, loses no more and has no more leaves).  So R(t) >= min over x of
    lb(L_a, x) + lb(R_b, kc - x), left_a[x - 1] and right_b[x - 1] the bounds at
    cap x: `interval_bound` allocation by allocation, which the caps' own
    bounds make tighter than the bound of the children at kc - 1 leaves each."""
    cdef double v, low = INF
    cdef int x
    for x in range(1, kc):
        v = left_a[x - 1] + right_b[kc - x - 1]
        if v < low:
            low = v
    return low


cdef inline double allocation_bound(double lb_left, double lb_right) noexcept nogil:
    """Allocations (RULE_ALLOCATIONS): under a leaf cap kc a split is worth the
    least over its allocations (a, kc - a), 1 <= a < kc, of R(L, a) + R(R, kc - a),
    R(S, x) the least value of S's trees of at most x leaves: a tree of at most
    kc leaves rooted at the split has a subtree of some a leaves on the left
    and at most kc - a on the right.  So one allocation is worth at least the
    sum of its two sides' bounds at their caps (lb_left at a, lb_right at
    kc - a; each from a search at that cap or a larger one, `larger_cap_bound`),
    and the split at least the least of those sums over its allocations.  The
    rows are the split's own, so it holds under min_samples_leaf and for any
    loss."""
    return lb_left + lb_right


cdef inline double larger_cap_bound(double lb, double lb_larger) noexcept nogil:
    """R(S, d, x), the least value of S's trees of depth at most d and at most x
    leaves, does not decrease as the cap x falls: a tree of at most x leaves
    has at most c >= x, so the trees at cap x are among those at cap c, and a
    least value over fewer trees is no less.  So a bound (or value) proven on
    the same rows at the same depth under a larger cap, lb_larger, bounds the
    node at cap x.  Its rows are the node's own, so it holds under
    min_samples_leaf too (a tree that obeys it at cap x obeys it at cap c)."""
    return lb_larger if lb_larger > lb else lb


cdef inline double similar_node_bound(double lb_other, double worst_removed) noexcept nogil:
    """Similarity (RULE_SIMILAR; MurTree's similarity lower bound, here under a
    leaf cap and for any loss; not under min_samples_leaf): for two row sets X
    and Y and the same depth d and cap x, R(X, d, x) >= R(Y, d, x) - worst(Y - X).
    X's optimal tree T (depth at most d, at most x leaves), its leaves' answers
    kept, applied to Y: the rows of X not in Y leave (each row's cost is at
    least 0, so T costs no more on X and Y's common rows than on X), and each
    row of Y - X joins a leaf and adds at most its worst cost there (a class's
    largest cost times its weight; under squared error, `squares_row_worst`
    over X's target range, in which the means of T's leaves lie).  T, pruned of
    leaves left empty and with its answers refitted, is a tree of Y of depth at
    most d and at most x leaves costing no more, so R(Y) <= R(X) + worst(Y - X).
    lb_other: R(Y) or a lower bound proven on it.  A leaf of T that keeps rows
    may keep too few: not under min_samples_leaf.  (The engine reads it in
    classification only: under squared error a row's worst is its squared
    distance to the far end of X's target range, which leaves the bound under
    the budgets.)"""
    return lb_other - worst_removed


cdef inline double neighbour_bound(double lb_end, double worst_between) noexcept nogil:
    """Rows D crossing between a threshold t and a valued threshold e of the same
    column move from one side to the other: they lower the side they leave by
    nothing (a subset costs no more) and raise the side they join by at most
    worst(D), each row at its class's largest cost (the smaller set's optimal
    tree, applied to it plus D, costs at most that more).  So R(t) >= lb(e) -
    worst(D), with lb(e) the bound (or value) of the split at e."""
    return lb_end - worst_between


cdef inline double one_leaf_lower_bound(double lam) noexcept nogil:
    """Any tree on a nonempty set has a leaf and a nonnegative loss: R(S) >= lam.
    It stands in for the bound of a column's end that no valued threshold has
    reached yet (`interval_bound` with one end open)."""
    return lam


cdef inline double superset_child_bound(double lb_inner) noexcept nogil:
    """A child of a root split contains the same-side child of every split of
    the column nearer its own side (L_t contains L_a for a < t, R_t contains R_c
    for c > t), and a superset costs no less (a tree on the larger set, applied
    to the smaller one, loses no more and has no more leaves): R(L_t) >=
    lb(L_a).  The depth-limited engine starts a child's bound from it (under
    RULE_TRANSFER, as `interval_bound`)."""
    return lb_inner


cdef inline double subset_child_bound(double lb_outer, double worst_removed) noexcept nogil:
    """The other way: L_t = L_c minus the rows D between t and c, and the optimal
    tree of L_t applied to L_c costs at most worst(D) more, so R(L_t) >= lb(L_c)
    - worst(D) (under RULE_EXCHANGE, as `neighbour_bound`)."""
    return lb_outer - worst_removed


cdef inline double split_creation_bound(double lower_left, double lower_right) noexcept nogil:
    """A root split s of a node with d >= 1 levels: its best subtree is a leaf or
    a split on each side, each side's best of d - 1 levels, and each of those is
    at least that side's creation bound (`creation_lower_bound`, or
    `two_leaf_lower_bound` without RULE_EQUIVALENT; with no level left, the
    side's leaf exactly).  Hence R_s(X, d) >= lower(left) + lower(right)."""
    return lower_left + lower_right


cdef inline double closed_column_bound(double creation, double proven) noexcept nogil:
    """A root column the engine has finished: each of its splits was valued (its
    value then at least the root's incumbent) or proven above its cap by a bound
    (proven: the least of those, INF for none), and each is at least its
    `split_creation_bound` (creation: their least).  Both are lower bounds on
    the column's pruned splits, so the larger holds; with the incumbent beside
    it (`stopped_root_bound`) it bounds every split of the column."""
    return creation if creation > proven else proven


cdef inline double stopped_root_bound(double best, double columns) noexcept nogil:
    """R(X, D) of a root whose search stopped: R(X, D) = min(leaf, min_s R_s(X, D)).
    best is the value of a real tree that started at the leaf, so best <= leaf;
    every split is in a closed column (R_s >= min(best, its
    `closed_column_bound`)) or an open one (R_s >= its column's least
    `split_creation_bound`); columns is the least of those column bounds.  So
    R(X, D) >= min(best, columns).  A root searched as a leaf beside a subtree
    (RULE_PEEL_LEAF; its best at most its optimum of depth D - 1, which bounds
    its trees of that depth, and its trees of more leaves than its cap above its
    best) bounds a column by its splits' least `leaf_beside_split_bound`
    instead of their creation bounds (`_depth_columns._peel_order`)."""
    return best if best < columns else columns


cdef inline double rows_moved_bound(int64_t moved, double pmax) noexcept nogil:
    """The depth-one passes (`_depth._column_pass`) value a side's split at a
    threshold only when the rows that crossed since its last valuation could
    lower its two-leaf value below the best: moving rows D from a split's right
    leaf to its left lowers its value by at most max_j A_j(D) - min_j A_j(D),
    A_j(D) = sum_k D_k C[k, j] over the labels j a leaf tries (the right leaf's
    least cost min_j (A_j(R) - A_j(D)) >= loss(R) - max_j A_j(D), and the left's
    min_j (A_j(L) + A_j(D)) >= loss(L) + min_j A_j(D)), which is at most D's
    potential: at most `moved` rows times the largest potential of a row."""
    return moved * pmax


cdef inline int64_t unit_rows_to_wait(int64_t errors, int64_t errors_to_beat) noexcept nogil:
    """`rows_moved_bound` in whole rows, two classes under a unit cost: a row
    crossing from a split's right leaf to its left changes each leaf's errors by
    at most one, in opposite directions, so a split with `errors` errors is
    followed by none with `errors_to_beat` or fewer until errors - errors_to_beat
    rows have crossed."""
    return errors - errors_to_beat


# ------------------------------------------------------------ leaf budgets
#
# Without a depth cap the price of a leaf caps the tree: every leaf costs lam and
# every tree on S loses at least a floor of S (each row at its class's least
# cost; on all the rows, each group of rows with identical features at its least
# label), so a tree worth little has few leaves, and a tree of k leaves has depth
# at most k - 1.  The rules below (RULE_LEAF_BUDGET) turn a budget into a depth.

# The most leaves a budget is said to admit (no cap at all past it).
cdef enum:
    LEAF_MANY = 1 << 20


cdef inline int budget_leaves(double B, double floor, double lam) noexcept nogil:
    """A tree T of S with value at most B + TOL has L(T) >= floor and lam per
    leaf, so leaves(T) <= (B + TOL - floor) / lam: the most leaves a tree within
    the budget can have (LEAF_MANY when lam is 0 or the budget is vast).  Counted
    at B + 4 TOL, so that a tree tying one within the budget (within TOL of it,
    `_depth._takes`) is counted too and the tie rule sees the same trees.  Values
    are sums of rounded terms, so a tree's computed value may fall a few ulps
    under floor + k lam: the count is rounded up by 1e-7 of a leaf (any larger
    count is sound, only weaker)."""
    cdef double x
    if lam <= 0.0:
        return LEAF_MANY
    x = (B + 4.0 * TOL - floor) / lam
    if x >= LEAF_MANY:
        return LEAF_MANY
    if x < 0.0:
        return 0
    return <int> (x + 1e-7)


cdef inline int budget_depth(int d, int leaves) noexcept nogil:
    """A binary tree of k >= 1 leaves has depth at most k - 1.  So when every
    tree of S within the budget has at most `leaves` leaves
    (`budget_leaves`), R(S, d) and R(S, min(d, leaves - 1)) agree whenever either
    is within the budget: the optimal trees of depth d within it are trees of the
    smaller depth, and conversely (the smaller class is a subset).  With no leaf
    admitted the depth is 0 (the leaf, then above the budget)."""
    if leaves < 1:
        return 0
    return d if d < leaves - 1 else leaves - 1


cdef inline double budget_depth_bound(double v, double floor, double lam,
                                      int leaves) noexcept nogil:
    """The bound of S at depth d when the search at the smaller depth
    `budget_depth` found nothing within the budget, v its value or bound: a tree
    of at most `leaves` leaves has depth at most the smaller one, so it is worth
    at least v; a tree of more leaves is worth at least floor + (leaves + 1) lam,
    which is above the budget (`budget_leaves`).  R(S, d) >= the smaller."""
    cdef double more = floor + (leaves + 1) * lam
    return v if v < more else more


cdef inline double deeper_trees_bound(double floor, double lam, int D) noexcept nogil:
    """A tree of depth more than D has at least D + 2 leaves, so it is worth at
    least floor + (D + 2) lam: with the optimum of depth at most D (or a bound on
    it), min(that, this) bounds every tree, whatever its depth."""
    return floor + (D + 2) * lam


cdef inline double subset_rows_bound(double first, double others) noexcept nogil:
    """Disjoint subsets of the rows bound the whole (`EngineSearch._subset_bound`):
    for disjoint S_1, ..., S_q within S, every tree T of at most k leaves costs
    S the sum of its rows' costs, each at least 0, so at least what it costs
    the S_i together, and pays lam a leaf once:
        obj_S(T) >= (cost_S1(T) + lam |T|) + cost_S2(T) + ... + cost_Sq(T)
                 >= R_lam(S_1, k) + R_0(S_2, k) + ... + R_0(S_q, k),
    R_lam(S_i, k) the least objective over S_i's own trees of at most k leaves,
    of any depth, at lam (each term is a least over a set of trees that holds
    T).  The rows keep their weights and the costs their scale (divided by the
    whole set's rows), so every term is in the objective's units.  Under
    squared error a leaf's mean refitted on S_i costs S_i no more than the
    leaf's mean on S.  R(S_i, k) is searched without min_samples_leaf (a leaf
    of T may keep fewer rows of S_i): a larger set of trees, whose least is no
    greater.  first: R_lam(S_1, k) or a bound proven on it (a stopped search's);
    others: the sum of the R_0(S_i, k) of the others, or bounds on them."""
    return first + others


# ----------------------------------------- one leaf above the depth: a leaf beside
#
# A tree of depth exactly d has a child of depth d - 1, and a tree of depth d - 1
# has at least d leaves.  So under a cap of d + 1 leaves the other child of its
# root is a leaf: the trees of a node of depth d and cap d + 1 are those of depth
# at most d - 1, and a leaf beside a subtree of depth at most d - 1 and at most d
# leaves.  The engine (RULE_PEEL_LEAF) takes the node's optimum of depth d - 1
# first, then values only the second kind, whose leaf is priced from its column's
# counts before any search.

cdef inline bint leaf_beside_only(int d, int kc) noexcept nogil:
    """Whether a node of depth d >= 2 under a cap of kc leaves has only trees of
    depth at most d - 1 and trees whose root has a leaf child (above): kc = d + 1.
    (With kc <= d every tree has depth at most d - 1.)"""
    return kc == d + 1


cdef inline double leaf_beside_bound(double leaf, double floor_rest, double lam,
                                     int d) noexcept nogil:
    """A tree of depth d whose root has a leaf child (value `leaf`, its loss and
    lam): its other child has depth d - 1, hence at least d leaves, each worth
    lam, and loses at least its rows' floor (each row at its class's least
    cost): the tree is worth at least leaf + floor_rest + d lam.  Trees of the
    split of smaller depth are covered by the node's optimum of depth d - 1."""
    return leaf + floor_rest + d * lam


cdef inline double leaf_beside_split_bound(double leaf, double floor_rest, double lam,
                                           int d, double V, double worst_leaf,
                                           bint nested) noexcept nogil:
    """A split's trees of depth d with one side a leaf (value `leaf`): at least
    `leaf_beside_bound`, and with nested sets (not under min_leaf) at least leaf
    + `subset_child_bound(V, worst_leaf)`, V the node's optimum of depth d - 1
    (or a bound on it) and worst_leaf the leaf rows' worst cost: the subtree's
    rows are the node's less the leaf's, and adding those rows to its tree costs
    at most their worst, so the subtree is worth at least V - worst_leaf.
    The engine prunes a side with it (`_depth._peel_pruned`), and bounds the
    open columns of a stopped root searched so (`_depth_columns._peel_order`)."""
    cdef double b = leaf_beside_bound(leaf, floor_rest, lam, d)
    cdef double b2
    if nested:
        b2 = leaf + subset_child_bound(V, worst_leaf)
        if b2 > b:
            b = b2
    return b

cdef inline double peel_pass_budget(double top, double far) noexcept nogil:
    """What a depth-one pass over the subtree side of a leaf-beside split at
    depth two starts from (`_depth._peel_depth_two`, RULE_PEEL_LEAF): its
    column's scan reads that side beside leaves worth at least `far` (its least
    leaf: a leaf loses no more as it shrinks) against caps of at most `top`
    (min(B, best): the cap only falls as the node's best does), so only a side
    worth at most top - far + TOL can be within a cap.  The pass, started from
    this value as if a split of it were held, finds such a side's exact optimum
    (it is below the value less TOL), and otherwise proves the side worth at
    least this value less TOL: beside any leaf of the scan that is above
    top + TOL, so above every cap of the scan."""
    return top - far + 3.0 * TOL


cdef inline double column_least_bound(double held, double best) noexcept nogil:
    """What a depth-one pass over one column u of a side S proves of the least
    value of S's leaf and of its splits on u (`_depth_columns._depth_one` with
    per-column bounds, RULE_PEEL_LEAF): the pass starts from a best at most
    S's leaf and ends at `best`; a split it passes over or values without
    taking is no lower than the best then less TOL, so every split of u on S,
    and the leaf, is worth at least best - TOL; `held`, a bound from before,
    still holds.  A superset S' of S (nested sets: not under min_leaf) is
    bounded by it too: a split of u on S', its rows restricted to S, is a split
    of u on S or S's leaf, and a leaf's loss on more rows is no less (the least
    over labels of sums of nonnegative costs; squared error about any mean),
    so its value on S' is at least that on S; S's leaf is at most S''s.  A
    split with a leaf of too little support, which the passes skip
    (`split_supported`), is worth more than its side's leaf, so the least is
    the same with or without them."""
    return held if held > best - TOL else best - TOL


# --------------------------------------------- squared error: k-segmentation
#
# Under squared error (the regressor) a leaf's loss is the weighted squared error
# of its rows' targets about their weighted mean.  A tree of k leaves cuts its
# rows into k nonempty groups, so its loss is at least the least such sum over
# every partition of the rows' targets into k groups: the weighted 1-D k-means
# optimum seg_k.  It is attained by k runs of the targets in sorted order: in an
# optimal partition each target lies nearest its own group's mean (moving it to a
# nearer mean lowers the sum, and recentring lowers it again), and on a line the
# points nearest each of k means form runs.  seg_k falls as k grows.

cdef inline double segmentation_lower_bound(const double* seg, int kmax,
                                            double lam) noexcept nogil:
    """A set S whose trees have at most kmax leaves (its depth and leaf cap),
    seg[k - 1] its k-segmentation floor seg_k for k = 1 .. kmax (seg_1 its leaf's
    loss): a tree of k <= kmax leaves is worth at least seg_k + k lam, so
    R(S) >= min over k <= kmax of seg_k + k lam.  A slack of 1e-9 (relative, and
    absolute below 1) is taken off: the programme that gives seg sums the terms
    of a leaf's loss in another order, and its divide-and-conquer minimum may
    stray from the exact one by rounding (by a few ulps of losses the regressor
    scales to at most 1)."""
    cdef int k
    cdef double v, best = INF
    for k in range(kmax):
        v = seg[k] + (k + 1) * lam
        if v < best:
            best = v
    return best - 1e-9 * (1.0 + (best if best > 0.0 else -best))



cdef inline double squares_row_worst(double z, double w, double zlo,
                                     double zhi) noexcept nogil:
    """What a row of target z and weight w adds at most to the squared error of
    a tree it joins: the tree of a set S applied to S and the row puts it in one
    leaf, whose squared error about its new mean is at most its error about the
    old mean mu, the old error plus w (z - mu)^2 (rows joining one leaf add
    their terms likewise); mu, a weighted mean of targets, lies in [zlo, zhi],
    the least and greatest target, so the row adds at most
    w max(z - zlo, zhi - z)^2.  With it the neighbour bound, the children's
    bounds across a column and the widening of their budgets (RULE_EXCHANGE)
    hold for squared error as for a class's worst cost: R(S + D) <= R(S) + the
    rows' sum, and R is monotone under inclusion."""
    cdef double a = z - zlo
    cdef double b = zhi - z
    if b > a:
        a = b
    return w * a * a


# ---------------------------------- the general search under squared error
#
# The general search (`_search`) runs squared error with the rules above, a
# node's potential the sum of its rows' worst added errors over its target
# range (`squares_row_worst`; `_squares_nodes`).  Each argument above that
# reads a potential or a worst cost holds with it: a tree of X's rows has leaf
# means in X's range, so a row sent to any of its leaves adds at most its worst
# (leaf support with `squares_side_dominated`, side worth, column transfer),
# and R is monotone under inclusion (restricted to a subset, each leaf's mean
# refits, losing no more; empty leaves are pruned): threshold exchange and the
# superset bound.  Its own rule is `two_leaf_closure_bound`.


cdef inline double two_leaf_closure_bound(double leaf, double best2, double floor,
                                          double lam) noexcept nogil:
    """Leaf budget at a node of the general search under squared error
    (RULE_LEAF_BUDGET): its splits value every tree of at most two leaves (the
    leaf, and best2 = the least over its valid splits of both children's leaf
    losses plus 2 lam; a split left out is never a minimiser), and a tree of
    three leaves or more loses at least the floor and pays 3 lam.  So R(X) >=
    min(leaf, best2, floor + 3 lam): where the first two reach it, the best of
    them is the optimum, found by one pass."""
    cdef double v = leaf if leaf < best2 else best2
    cdef double more = floor + 3.0 * lam
    return v if v < more else more


cdef inline bint squares_side_dominated(double worst_side, double lam) noexcept nogil:
    """Side worth under squared error (RULE_SUPPORT).  A split of X into D and
    X - D is worth R(D) + R(X - D) >= lam + R(X - D), while the optimal tree of
    X - D applied to all of X puts each row of D in one of its leaves, whose
    mean lies in X's target range, and so costs at most R(X - D) + worst(D)
    (`squares_row_worst` summed over D; rows joining leaves keep min_leaf).
    When worst(D) < lam the split is worth more than R(X): it is never a
    minimiser of R(X) = min(leaf, min over the splits), and leaving it out of
    the splits changes neither R(X) nor any bound of the others.  A relative
    1e-9 and TOL are kept so that rounding never drops a split at the edge."""
    return worst_side < lam * (1.0 - 1e-9) - TOL
