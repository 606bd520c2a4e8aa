"""An independent brute-force solver for the tests, and the problems they solve.

R(X, d) = min(leaf(X), min over every split s separating X of R(L_s, d-1) + R(R_s, d-1)),
memoised on (row set, depth left; a depth of r - 1 or more on r rows is no
limit, since every split sends a row each way).  No bound, no pruning rule, no shared code
with fst: only the problem's definition (docs/user_guide.md, "The objective").  NaN is larger
than every number and goes right.  The problem generators at the end are the
oracle tests' (and benchmarks/compare_builds.py's, which fits them build against
build).
"""
import numpy as np


def split_space(X):
    """Every split (column, threshold) between consecutive distinct float32 values,
    plus 'finite vs NaN' for a column with both, as (column, left-mask) pairs."""
    X32 = np.asarray(X, dtype=np.float32)
    out = []
    for j in range(X32.shape[1]):
        col = X32[:, j].astype(np.float64)
        vals = np.unique(col[~np.isnan(col)])
        for u in vals[:-1]:
            out.append((j, np.nan_to_num(col, nan=np.inf) <= u))
        if np.isnan(col).any() and len(vals) > 0:
            out.append((j, ~np.isnan(col)))
    return out


def _masks_and_leaf(X, y, cost, weights=None):
    """Row-set bitmasks of every split, and the least cost / n of a leaf on a row set
    (with row weights: the least weighted cost over the sum of the weights)."""
    y = np.asarray(y)
    n = len(y)
    masks = [sum(1 << int(i) for i in np.flatnonzero(m)) for _, m in split_space(X)]
    cost = np.asarray(cost, dtype=np.float64)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    total = n if weights is None else w.sum()

    def leaf(rows):
        idx = [i for i in range(n) if rows >> i & 1]
        return min((w[idx] * cost[y[idx], k]).sum() for k in range(cost.shape[1])) / total

    return masks, leaf


def optimal_objective(X, y, cost, lam, max_depth=None, weights=None, min_leaf=1,
                      max_leaves=None):
    """The optimal objective loss/n + lam * leaves by exhaustive enumeration.

    `y` holds class indices, `cost[c, k]` the cost of predicting k for class c;
    `weights` (optional) weighs each row's cost, and the loss is then divided by
    their sum; every leaf holds at least `min_leaf` rows of positive weight; a
    tree has at most `max_leaves` leaves (None: any number)."""
    if max_leaves is not None:
        return optimal_capped(X, y, cost, lam, max_leaves, max_depth, weights, min_leaf)
    return optimal_fewest_leaves(X, y, cost, lam, max_depth, weights, min_leaf=min_leaf)[0]


def optimal_capped(X, y, cost, lam, max_leaves, max_depth=None, weights=None, min_leaf=1):
    """The optimal objective over the trees of at most `max_leaves` leaves
    (`_capped_optimum`)."""
    n = len(y)
    masks, leaf_loss = _masks_and_leaf(X, y, cost, weights)
    live = sum(1 << i for i in range(n) if weights is None or weights[i] > 0)
    return _capped_optimum(masks, leaf_loss, lam, (1 << n) - 1, live, min_leaf, max_depth,
                           max_leaves)


def _capped_optimum(masks, leaf, lam, rows, live, min_leaf, max_depth, max_leaves):
    """min over the trees of `rows` (split by `masks`, each leaf worth leaf(S) +
    lam, holding min_leaf rows of `live`, of depth at most max_depth and at most
    max_leaves leaves; None: any) of their value: R(S, d, k) = min(leaf(S) +
    lam, min over the splits s and 1 <= a < k of R(L_s, d - 1, a) + R(R_s, d -
    1, k - a)), memoised on (rows, depth, k); without a cap, R(S, d) of the
    same form."""
    memo = {}
    cap = rows.bit_count() + 1 if max_leaves is None else int(max_leaves)

    def solve(rows, depth, k):
        if depth is not None and depth >= rows.bit_count() - 1:
            depth = None        # r rows: every tree of them has depth r - 1 at most
        key = (rows, depth, k)
        if key in memo:
            return memo[key]
        best = leaf(rows) + lam
        if k >= 2 and (depth is None or depth > 0):
            nd = None if depth is None else depth - 1
            seen = set()
            for m in masks:
                left = rows & m
                if left == 0 or left == rows or left in seen:
                    continue
                seen.add(left)
                right = rows & ~m
                if (left & live).bit_count() < min_leaf or (right & live).bit_count() < min_leaf:
                    continue
                if max_leaves is None:
                    best = min(best, solve(left, nd, cap) + solve(right, nd, cap))
                else:
                    for a in range(1, k):
                        best = min(best, solve(left, nd, a) + solve(right, nd, k - a))
        memo[key] = best
        return best

    return solve(rows, max_depth, cap)


def optimal_fewest_leaves(X, y, cost, lam, max_depth=None, weights=None, tol=1e-9,
                          min_leaf=1):
    """(the optimal objective, the fewest leaves of a tree reaching it within
    `tol`) by exhaustive enumeration.  In an optimal tree every subtree is
    optimal for its rows, so the fewest leaves of a node's optimal trees is the
    least, over the leaf and the splits whose best trees reach its optimum, of
    the leaf's one or the sum of both sides' fewest.  A split is admitted only
    when each side holds `min_leaf` rows of positive weight."""
    n = len(y)
    masks, leaf_loss = _masks_and_leaf(X, y, cost, weights)
    live = sum(1 << i for i in range(n) if weights is None or weights[i] > 0)
    memo = {}

    def solve(rows, depth):
        if depth is not None and depth >= rows.bit_count() - 1:
            depth = None        # r rows: every tree of them has depth r - 1 at most
        key = (rows, depth)
        if key in memo:
            return memo[key]
        cands = [(leaf_loss(rows) + lam, 1)]
        best = cands[0][0]
        if depth is None or depth > 0:
            nd = None if depth is None else depth - 1
            seen = set()
            for m in masks:
                left = rows & m
                if left == 0 or left == rows or left in seen:
                    continue
                seen.add(left)
                if ((left & live).bit_count() < min_leaf
                        or (rows & ~m & live).bit_count() < min_leaf):
                    continue
                lv, ll = solve(left, nd)
                if lv + lam > best + tol:  # the right side costs at least lam
                    continue
                rv, rl = solve(rows & ~m, nd)
                cands.append((lv + rv, ll + rl))
                best = min(best, lv + rv)
        memo[key] = (best, min(k for v, k in cands if v <= best + tol))
        return memo[key]

    return solve((1 << n) - 1, max_depth)


def canonical_tree(X, y, cost, lam, max_depth=None, tol=1e-9):
    """The tree fst's tie rule picks (docs/how_it_works.md, "Ties"), by exhaustive
    enumeration: at each node, among the leaf and the splits whose best trees
    reach its optimum within `tol`, the fewest leaves, then the lowest split
    index (the leaf first), its subtrees chosen the same way.  Returned as
    nested tuples: 'L' for a leaf, else (column, bitmask of the node's rows
    sent left, left subtree, right subtree)."""
    n = len(y)
    space = split_space(X)
    masks, leaf_loss = _masks_and_leaf(X, y, cost)
    memo = {}

    def solve(rows, depth):
        if depth is not None and depth >= rows.bit_count() - 1:
            depth = None
        key = (rows, depth)
        if key in memo:
            return memo[key]
        cands = [(leaf_loss(rows) + lam, 1, "L")]
        if depth is None or depth > 0:
            nd = None if depth is None else depth - 1
            seen = set()
            for (col, _), m in zip(space, masks):
                left = rows & m
                if left == 0 or left == rows or left in seen:
                    continue
                seen.add(left)
                lv, ll, lt = solve(left, nd)
                rv, rl, rt = solve(rows & ~m, nd)
                cands.append((lv + rv, ll + rl, (col, left, lt, rt)))
        best = min(c[0] for c in cands)
        fewest = min(c[1] for c in cands if c[0] <= best + tol)
        memo[key] = next(c for c in cands if c[0] <= best + tol and c[1] == fewest)
        return memo[key]

    return solve((1 << n) - 1, max_depth)[2]


def canonical_capped_tree(X, y, cost, lam, max_leaves, max_depth=None, weights=None,
                          tol=1e-9):
    """The tree fst's tie rule picks under a leaf cap, by exhaustive enumeration:
    R(S, d, k) over the leaf and every split s and allocation 1 <= a < k of the
    canonical trees of its sides at a and k - a leaves; among the candidates
    within `tol` of the least, at lam > 0 the fewest leaves, then the first in
    the canonical split order read root first, then the left subtree, then the
    right (a leaf before any split; docs/how_it_works.md, "Ties").  Without a cap
    (and at lam > 0) that order is `canonical_tree`'s.  Returned in its form."""
    n = len(y)
    space = split_space(X)
    masks, leaf_loss = _masks_and_leaf(X, y, cost, weights)
    memo = {}

    def solve(rows, depth, k):
        if depth is not None and depth >= rows.bit_count() - 1:
            depth = None
        k = min(k, rows.bit_count())
        key = (rows, depth, k)
        if key in memo:
            return memo[key]
        cands = [(leaf_loss(rows) + lam, 1, (-1,), "L")]
        if k >= 2 and (depth is None or depth > 0):
            nd = None if depth is None else depth - 1
            seen = set()
            for index, ((col, _), m) in enumerate(zip(space, masks)):
                left = rows & m
                if left == 0 or left == rows or left in seen:
                    continue
                seen.add(left)
                for a in range(1, k):
                    lv, ll, lk, lt = solve(left, nd, a)
                    rv, rl, rk, rt = solve(rows & ~m, nd, k - a)
                    cands.append((lv + rv, ll + rl, (index,) + lk + rk,
                                  (col, left, lt, rt)))
        best = min(c[0] for c in cands)
        near = [c for c in cands if c[0] <= best + tol]
        if lam > 0:
            fewest = min(c[1] for c in near)
            near = [c for c in near if c[1] == fewest]
        memo[key] = min(near, key=lambda c: c[2])
        return memo[key]

    return solve((1 << n) - 1, max_depth, max_leaves)[3]


def fitted_tree(est, X):
    """A fitted sklearn tree in `canonical_tree`'s form, from the rows each of
    its nodes holds (X without NaN)."""
    t = est.tree_
    X32 = np.asarray(X, dtype=np.float32)

    def walk(node, rows):
        if t.children_left[node] < 0:
            return "L"
        f = int(t.feature[node])
        left = sum(1 << i for i in range(len(X32))
                   if rows >> i & 1 and X32[i, f] <= t.threshold[node])
        return (f, left, walk(t.children_left[node], left),
                walk(t.children_right[node], rows & ~left))

    return walk(0, (1 << len(X32)) - 1)


def optimal_regression(X, y, lam, max_depth=None, weights=None, min_leaf=1,
                       max_leaves=None):
    """The optimal objective of the regressor by exhaustive enumeration:
    sum_i w_i (y_i - leaf mean)^2 / sum_i w_i / Var_w(y) + lam * leaves over
    every tree (of depth at most `max_depth`, at most `max_leaves` leaves, each
    leaf holding `min_leaf` rows of positive weight), the means and variance
    weighted, rows of weight 0 left out.  R(S, d, k) = min(leaf(S), min over
    the splits and 1 <= a < k of R(L, d - 1, a) + R(R, d - 1, k - a))
    (`_capped_optimum`)."""
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    live = w > 0
    mean = (w[live] * y[live]).sum() / w[live].sum()
    var = (w[live] * (y[live] - mean) ** 2).sum() / w[live].sum()
    X = np.asarray(X)[live]
    y, w = y[live], w[live]
    n = len(y)
    masks = [sum(1 << int(i) for i in np.flatnonzero(m)) for _, m in split_space(X)]
    total = w.sum()

    def leaf(rows):
        idx = [i for i in range(n) if rows >> i & 1]
        ws, ys = w[idx], y[idx]
        mu = (ws * ys).sum() / ws.sum()
        return (ws * (ys - mu) ** 2).sum() / total / var

    return _capped_optimum(masks, leaf, lam, (1 << n) - 1, (1 << n) - 1, min_leaf,
                           max_depth, max_leaves)


def regression_problem(seed):
    """Up to 22 rows, one to three columns of many values (some repeated, some
    NaN), a target partly a step function of them, lam from 0 to 0.1 (0 only
    under a depth cap), a depth cap on two seeds in three."""
    rng = np.random.default_rng(11000 + seed)
    n = int(rng.integers(6, 23))
    p = int(rng.integers(1, 4))
    X = rng.integers(0, int(rng.integers(3, 20)), size=(n, p)).astype(float)
    if seed % 4 == 0:
        X[rng.random((n, p)) < 0.15] = np.nan
    step = (np.nan_to_num(X[:, 0], nan=30.0) > np.nanmedian(X[:, 0])).astype(float)
    y = 3.0 * step + rng.normal(scale=1.0, size=n) + 10.0
    if seed % 5 == 1:
        y = np.round(y)                      # repeated targets
    max_depth = [None, 2, 3][seed % 3]
    lam = [0.0, 0.01, 0.03, 0.1][seed % 4]
    if max_depth is None and lam == 0:
        lam = 0.02
    return X, y, lam, max_depth


def tie_problem(seed):
    """Up to 16 rows, one to three columns of a few values, two classes, 0/1
    loss and lam a whole number of rows' worth (1/n to 3/n): trees of different
    sizes then often tie exactly, as on iris at lam = 0.02."""
    rng = np.random.default_rng(9000 + seed)
    n = int(rng.integers(6, 17))
    p = int(rng.integers(1, 4))
    X = rng.integers(0, int(rng.integers(2, 6)), size=(n, p)).astype(float)
    y = ((X[:, 0] + rng.normal(scale=1.0, size=n)) > X[:, 0].mean()).astype(int)
    y[:2] = [0, 1]
    lam = int(rng.integers(1, 4)) / n
    return X, y, lam


def capped_tie_problem(seed):
    """Up to 13 rows, one to three columns of two to five values, two or three
    classes, row weights on one seed in five, for the trees of at most 3 to 6
    leaves (`canonical_capped_tree`): whole-row losses, so that a split's
    allocations of its leaves, and a leaf beside a subtree and a node's
    shallower optimum, often tie exactly."""
    rng = np.random.RandomState(1000 + seed)
    n, p = rng.randint(6, 14), rng.randint(1, 4)
    X = rng.randint(0, [2, 3, 5][seed % 3], (n, p)).astype(float)
    K = 3 if seed % 4 == 3 else 2
    y = rng.randint(0, K, n)
    y[:K] = range(K)
    w = None if seed % 5 else rng.randint(1, 4, n).astype(float)
    return X, y, K, w


def problem_cost(y, cost=None, class_weight=None):
    """(class index of each row, the K x K cost matrix the search minimises): unit
    costs without `cost`, each class's row scaled by its weight in the dict
    `class_weight`."""
    classes, y_idx = np.unique(y, return_inverse=True)
    K = len(classes)
    full_cost = np.ones((K, K)) - np.eye(K) if cost is None else np.asarray(cost, dtype=float)
    if class_weight is not None:
        full_cost = np.array([class_weight.get(k, 1.0) for k in range(K)])[:, None] * full_cost
    return y_idx, full_cost


def rescore(clf, X, y_idx, cost, lam, weights=None):
    """Objective of a fitted fst estimator's exported tree, from the raw data."""
    est = clf.estimator_
    pred = np.searchsorted(clf.classes_, est.predict(np.asarray(X, dtype=np.float32)))
    if weights is None:
        return cost[y_idx, pred].sum() / len(y_idx) + lam * est.get_n_leaves()
    w = np.asarray(weights, dtype=np.float64)
    return (w * cost[y_idx, pred]).sum() / w.sum() + lam * est.get_n_leaves()


def optimal_objective_tests(X, y, cost, alpha, max_depth, weights=None):
    """The optimal objective loss/n + alpha * expected number of tests (each test
    weighted by the share of rows reaching it) over every tree of depth at most
    `max_depth`, by exhaustive enumeration (DPDT's objective).  With row
    `weights`, the loss and the rows reaching a test are weighted and n is the
    weights' sum."""
    n = len(y)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    masks, leaf = _masks_and_leaf(X, y, cost, weights)
    memo = {}

    def solve(rows, depth):
        key = (rows, depth)
        if key in memo:
            return memo[key]
        best = leaf(rows)
        if depth > 0:
            price = alpha * sum(w[i] for i in range(n) if rows >> i & 1) / w.sum()
            seen = set()
            for m in masks:
                left = rows & m
                if left == 0 or left == rows or left in seen:
                    continue
                seen.add(left)
                best = min(best, price + solve(left, depth - 1) + solve(rows & ~m, depth - 1))
        memo[key] = best
        return best

    return solve((1 << n) - 1, max_depth)


def tree_objective(est, X, y_idx, cost, alpha, complexity, classes, weights=None):
    """loss/n + alpha * complexity of a fitted DecisionTreeClassifier, from the raw
    data: complexity is the expected number of tests or the number of leaves.
    With row `weights`: the weighted loss and tests over the weights' sum."""
    X32 = np.asarray(X, dtype=np.float32)
    w = np.ones(len(y_idx)) if weights is None else np.asarray(weights, dtype=np.float64)
    pred = np.searchsorted(classes, est.predict(X32))
    loss = (w * cost[y_idx, pred]).sum() / w.sum()
    if complexity == "leaves":
        return loss + alpha * est.get_n_leaves()
    internal = est.tree_.children_left >= 0
    # rows through each test node, counted by routing the data (not read off
    # the stored n_node_samples)
    path = est.decision_path(X32).toarray()
    return loss + alpha * (w[:, None] * path[:, internal]).sum() / w.sum()


# The problems of the oracle tests (also compared build against build by
# benchmarks/compare_builds.py).


def random_problem(seed):
    rng = np.random.default_rng(seed)
    kind = seed % 3
    n = int(rng.integers(4, 36))
    K = 2 if seed % 4 else 3
    if kind == 0:  # binary features, up to six
        p = int(rng.integers(1, 7))
        X = rng.integers(0, 2, size=(n, p)).astype(float)
    elif kind == 1:  # small-integer features
        p = int(rng.integers(1, 4))
        X = rng.integers(0, 4, size=(n, p)).astype(float)
    else:  # mixed, with NaN and negative values
        p = int(rng.integers(1, 4))
        X = rng.integers(-2, 2, size=(n, p)).astype(float)
        X[rng.random((n, p)) < 0.15] = np.nan
    # labels: partly a function of the features, partly noise
    score = np.nansum(X * rng.normal(size=p), axis=1)
    y = (score > np.median(score)).astype(int)
    if K == 3:
        y = y + (rng.random(n) < 0.3)
    flip = rng.random(n) < 0.2
    y[flip] = rng.integers(0, K, size=flip.sum())
    y[:K] = np.arange(K)  # every class present, so the cost matrix has K rows
    if seed % 2:
        cost = rng.uniform(0, 3, size=(K, K))
        if seed % 5 == 0:
            cost[np.diag_indices(K)] = 0.0
    else:
        cost = None
    max_depth = [None, None, 1, 2, 3][seed % 5]
    lams = [0.0, 0.005, 0.02, 0.05, 0.1, 0.3] if max_depth is not None else [0.005, 0.02, 0.05, 0.1, 0.3]
    lam = lams[seed % len(lams)]
    return X, y, cost, lam, max_depth


def sample_weights(seed, y):
    """Weights with ties, zeros and fractions; on some seeds every row of one
    class weighs 0 (its label must stay predictable under a cost matrix)."""
    rng = np.random.default_rng(5000 + seed)
    w = rng.choice([0.0, 0.5, 1.0, 1.0, 2.5, 3.0], size=len(y))
    if seed % 7 == 3:
        w[y == y.max()] = 0.0
    if not w.sum() > 0:
        w[0] = 1.0
    return w


def medium_problem(seed):
    """Larger problems (up to 70 rows, four columns of up to six values) with
    optima of many leaves, where the pair stage and shape relaxation decide."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 71))
    p = int(rng.integers(2, 5))
    X = rng.integers(0, 6 if p <= 3 else 4, size=(n, p)).astype(float)
    y = ((X[:, 0] % 2) + (X[:, 1] > 2) + (rng.random(n) < 0.2)) % 2
    return X, y.astype(int)


def medium_setting(seed):
    """(penalty, depth limit) of medium problem `seed`."""
    return [0.004, 0.01, 0.03][seed % 3], [None, None, 3][seed % 3]


def threshold_problem(seed):
    """Three columns of twelve values (so runs of many thresholds on a column,
    where column transfer lets a stage in rounds leave rows out), labels an XOR
    of two thresholds with 15% flipped."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 71))
    X = rng.integers(0, 12, size=(n, 3)).astype(float)
    y = ((X[:, 0] > 4) ^ (X[:, 1] > 7)).astype(int)
    y[rng.random(n) < 0.15] ^= 1
    return X, y


def _noisy_labels(rng, X, K, flip_rate):
    """Labels of a random linear rule on X (a third class added at random for
    K = 3), a share flip_rate redrawn, the first K rows one of each class."""
    n, p = X.shape
    score = X @ rng.normal(size=p)
    y = (score > np.median(score)).astype(int)
    if K == 3:
        y = y + (rng.random(n) < 0.3)
    flip = rng.random(n) < flip_rate
    y[flip] = rng.integers(0, K, size=flip.sum())
    y[:K] = np.arange(K)
    return y


def continuous_problem(seed):
    """Up to 30 rows, one to three columns of many distinct values (some
    repeated, some NaN), two or three classes, a cost matrix on odd seeds."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 31))
    p = int(rng.integers(1, 4))
    K = 2 if seed % 3 else 3
    X = rng.integers(0, int(rng.integers(3, 25)), size=(n, p)).astype(float)
    if seed % 4 == 0:
        X[rng.random((n, p)) < 0.15] = np.nan
    y = _noisy_labels(rng, np.nan_to_num(X), K, 0.25)
    cost = rng.uniform(0, 3, size=(K, K)) if seed % 2 else None
    lam = [0.0, 0.005, 0.02, 0.05, 0.1][seed % 5]
    max_depth = [2, 3, 2, 3, 4, 1][seed % 6]
    return X, y, cost, lam, max_depth


def unbounded_problem(seed):
    """12 to 20 rows, two or three columns of many distinct values (continuous
    for the planner: at least 8 thresholds a column), two or three classes, a cost
    matrix on odd seeds, lam from 0.02 to 0.1: problems without a depth cap that
    the brute force solves at once."""
    rng = np.random.default_rng(7000 + seed)
    n = int(rng.integers(12, 21))
    p = int(rng.integers(2, 4))
    K = 2 if seed % 3 else 3
    X = rng.normal(size=(n, p)).round(2)
    y = _noisy_labels(rng, X, K, 0.2)
    cost = rng.uniform(0.5, 2, size=(K, K)) * (1 - np.eye(K)) if seed % 2 else None
    lam = [0.02, 0.03, 0.05, 0.1][seed % 4]
    return X, y, cost, lam
