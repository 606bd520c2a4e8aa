"""A bound from disjoint subsets of the rows (`EngineSearch._subset_bound`):
the split space of a subset, the rows a tree gets most wrong, and each row's
key.

Every tree of at most k leaves costs the whole set at least what it costs
disjoint subsets of its rows together, so the sum of the least objectives over
the subsets' own trees bounds the whole set's (`_bounds.subset_rows_bound`).
A subset is grown as constraints are in row generation: each round adds rows
that the subset's own optimal tree gets wrong on the whole set, which that
tree can then no longer fit, so the next subset's optimum is no lower and is
often higher."""
import dataclasses

import numpy as np

__all__ = ["subset_space", "row_keys", "tree_excess", "pick_rows"]

# The seed of the rows' keys (`row_keys`).
_KEY_SEED = 20261208


def subset_space(space, rows):
    """The `EngineSpace` of the rows `rows` (indices into `space`'s, increasing)
    of `space`: their ranks on each column and each column's order of them (ties
    by their order in `rows`), their classes, weights and targets.  The
    thresholds, split numbering and costs are `space`'s: a split sends the same
    rows left in both, and a tree's objective is in the same units (the costs
    are divided by the whole set's rows).  A column's ranks may skip values the
    subset lacks: the engine splits a node only between two ranks it holds."""
    rows = np.asarray(rows, dtype=np.intp)
    rank = np.ascontiguousarray(space.row_rank[:, rows])
    order = np.ascontiguousarray(np.argsort(rank, axis=1, kind="stable").astype(np.int32))

    def pick(a):
        return None if a is None else np.ascontiguousarray(np.asarray(a)[rows])

    return dataclasses.replace(space, row_rank=rank, col_order=order, n_rows=len(rows),
                               y=np.ascontiguousarray(space.y[rows]),
                               row_excess=np.zeros(0), row_weight=pick(space.row_weight),
                               target=pick(space.target))


def row_keys(space):
    """A key for each row from its ranks, class and target, not its position: a
    sum of fixed random multiples modulo 2^64.  The rows a round picks among
    equal costs go by it, so the subsets, and the bound, do not depend on the
    rows' order."""
    rng = np.random.RandomState(_KEY_SEED)
    p, n = space.row_rank.shape
    coef = rng.randint(1, 2 ** 62, size=p + 2, dtype=np.int64).astype(np.uint64)
    key = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(p):
            key += coef[j] * space.row_rank[j].astype(np.uint64)
        key += coef[p] * space.y.astype(np.uint64)
        if space.target is not None:
            key += coef[p + 1] * np.asarray(space.target, dtype=np.float64).view(np.uint64)
    return key


def _leaves(space, heap):
    """Each row's leaf (its heap position) in the tree `heap` (heap order, global
    split ids, -1 leaves): split k of column j sends the ranks <= k left."""
    heap = np.asarray(heap, dtype=np.int64)
    n = space.row_rank.shape[1]
    pos = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    while True:
        s = np.full(n, -1, dtype=np.int64)
        inside = pos < len(heap)
        s[inside] = heap[pos[inside]]
        split = s >= 0
        if not split.any():
            return pos
        r, s = rows[split], s[split]
        col = np.asarray(space.split_col)[s]
        k = s - np.asarray(space.col_start)[col]
        right = space.row_rank[col, r] > k
        pos[r] = 2 * pos[r] + 1 + right


def tree_excess(space, heap, fitted=None):
    """What the tree `heap` costs each row of `space` above the least it could,
    each leaf answering as it best would for the rows `fitted` (a mask; None:
    all) it holds (the label of least cost, or the weighted mean): a class's
    cost of that label less the class's least cost, or the squared distance to
    the mean, times the row's weight.  A row of positive excess is one the
    tree gets wrong.  With `fitted` a subset whose rows every leaf holds some
    of, it is that subset's own tree applied to all the rows."""
    leaf = _leaves(space, heap)
    n = len(leaf)
    if n == 0:
        return np.zeros(0)
    if fitted is None:
        fitted = np.ones(n, dtype=bool)
    w = np.ones(n) if space.row_weight is None else np.asarray(space.row_weight, float)
    _, leaf = np.unique(leaf, return_inverse=True)
    m = int(leaf.max()) + 1
    wf = np.where(fitted, w, 0.0)
    if space.target is not None:
        z = np.asarray(space.target, dtype=np.float64)
        sw = np.bincount(leaf, weights=wf, minlength=m)
        mean = np.bincount(leaf, weights=wf * z, minlength=m) / np.maximum(sw, 1e-300)
        return w * (z - mean[leaf]) ** 2
    K = space.n_classes
    weight = np.bincount(leaf * K + space.y, weights=wf, minlength=m * K).reshape(m, K)
    label = np.argmin(weight @ space.cost, axis=1)
    return w * (space.cost[space.y, label[leaf]] - space.mincost[space.y])


def pick_rows(excess, keys, taken, count):
    """At most `count` rows not yet `taken` (a mask) of positive excess, the
    costliest first, among equal excess by their `row_keys`."""
    free = np.flatnonzero(~taken & (excess > 1e-12))
    if len(free) == 0:
        return free
    order = np.lexsort((keys[free], -excess[free]))
    return free[order[:count]]
