# Every rule that values a leaf, raises a lower bound at node creation or drops
# a split, one inline function per rule, each with its soundness argument.  The
# search (_search.pyx) calls these and carries a comment at each place where it
# marks a node solved or raises a bound.  Proofs: shared/reference/
# fastsmalltree-notes.txt ("Equivalent points", "Leaf support").
#
# Notation: costs are per row and already divided by n, so values add up across
# children; lam is the price of one leaf.

from libc.stdint cimport int32_t


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


cdef inline double creation_lower_bound(double leaf, double floor, double lam) noexcept nogil:
    """Equivalent points: rows with identical features are never separated, so any
    tree with a split costs at least floor + 2*lam; a leaf costs `leaf` exactly.
    Hence R(X) >= min(leaf, floor + 2*lam)."""
    cdef double split_floor = floor + 2.0 * lam
    return leaf if leaf < split_floor else split_floor


cdef inline bint leaf_is_optimal(double loss, double floor, double pot, double lam,
                                 double tol) noexcept nogil:
    """A node is a leaf at once when
    * loss - floor <= lam: a split costs at least floor + 2*lam >= loss + lam (leaf);
    * pot < 2*lam: any split has a side of potential below lam, and in an optimal
      tree every leaf has potential >= lam (leaf support: deleting such a leaf and
      routing its rows to the sibling saves lam and adds at most pot of loss)."""
    return loss - floor <= lam + tol or pot < 2.0 * lam


cdef inline double leaf_support(double worst, double loss) noexcept nogil:
    """The support of a set S: worst(S) - leaf(S), the most a leaf on S can save
    against sending every row of S to a leaf of any other label.  Deleting a
    leaf L of an optimal tree and routing its rows through its sibling's subtree
    saves lam and raises the loss of L's rows from loss(L) to at most worst(L)
    (each row at its class's largest cost): at most worst(L) - loss(L) =
    leaf_support(L), since L's label is a best one.  So in an optimal tree every
    leaf has support >= lam.  Support only shrinks on subsets (for each label the
    saving worst - cost is a sum of nonnegative per-row terms, and the maximum
    over labels of smaller sums is smaller), so a side of support < lam holds no
    such leaf, here or in any subset.  Under 0/1 loss it is the share of the
    rows in S's largest class (OSDT's accurate support), never more than the
    potential (the rows' share), which the rule used before."""
    return worst - loss


cdef inline bint split_supported(double sup_left, double sup_right, double lam) noexcept nogil:
    """Leaf support: a split with a side of support (`leaf_support`) or of
    potential (which is never smaller) below lam never appears in an optimal tree
    of X nor of any subset, so deleting leaves of too little support ends at a
    tree built from supported splits only: every split of it has a leaf of
    support >= lam on each side, and so has both sides of support >= lam at
    the node it cuts and at every superset.  Deleting never deepens a tree, so
    this also holds under a depth limit.  A tree with a leaf of support exactly
    lam ties the tree without it; `lam` is passed here less a relative 1e-9
    (`sup_lam` in `gather_valid`), so rounding never drops a split whose support
    reaches lam."""
    return sup_left >= lam and sup_right >= lam


cdef inline double worst_loss(const double* counts, int K, const double* maxcost) noexcept nogil:
    """The cost of rows with these class counts when every row gets its class's
    largest cost: the most any tree can lose on them."""
    return class_sum(counts, K, maxcost)


cdef inline bint side_not_worth(double lb_side, double worst_side, double tol) noexcept nogil:
    """Side worth: a split s of X with a side S whose optimum exceeds worst(S), the
    cost of misclassifying every row of S at its largest cost, is never optimal
    at X.  Take an optimal tree T of the other side X \\ S and send all of X
    through it: that tree costs at most R(X \\ S) + worst(S), so
    R(X) <= R(X \\ S) + worst(S) < R(X \\ S) + R(S) = R(s).  The split can be set
    aside at X (a minimiser of R(X) is always kept) but not in X's descendants,
    where S shrinks.  With max_depth the same tree, of depth at most d - 1, serves
    at X.  The OSDT paper's bound on a leaf's accurate support (a leaf must
    classify lam * n rows correctly) is the case where S is a leaf, for 0/1 loss.
    lb(S) > worst(S) + tol gives R(s) > R(X) + tol."""
    return lb_side > worst_side + tol


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
    over the parent's valid splits holds it."""
    cdef double rest = best2 - worst_peel
    return peel_loss + rest if rest > 0.0 else peel_loss
