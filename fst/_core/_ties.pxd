# fst's one tie rule (docs/how_it_works.md, "Ties"): among trees whose
# objectives are within TOL, the fewest leaves (when leaves are counted: lam > 0;
# at lam = 0 they are not), then the lowest root split id, the leaf (id -1)
# first.  Every compiled search decides with `tie_wins` as it goes, or orders
# the optimal trees it holds by `tie_key`; Python reads the key through
# `fst._core._config.tie_key`.

from ._typedefs cimport int32_t, TOL


cdef inline bint tie_wins(double v, int leaves, int32_t split, double best, int best_leaves,
                          int32_t best_split, bint count_leaves, bint seeded) noexcept nogil:
    """Whether a tree rooted at `split` (value v, `leaves` leaves) replaces a
    node's best (value best, best_leaves, root best_split: -1 for the leaf):
    better by more than TOL; or within TOL and first by `tie_key`.  The leaf is
    kept against an equal split (it has the fewest leaves, and the lowest id);
    `seeded`: the best is a seed not yet valued at this node, which gives way to
    its own root split valued here (the depth-limited engine's root,
    `_depth._takes`)."""
    if v < best - TOL:
        return True
    if v > best + TOL or best_split < 0:
        return False
    if count_leaves and leaves != best_leaves:
        return leaves < best_leaves
    return split < best_split or (seeded and split == best_split)


cdef inline tuple tie_key(int leaves, int32_t split, bint count_leaves):
    """The order of `tie_wins` among trees of equal objective, as a key: the
    least key is the tree fst returns."""
    return (leaves if count_leaves else 0, split)
