"""An independent brute-force solver for the tests: enumerates every tree.

R(X, d) = min(leaf(X), min over every split s separating X of R(L_s, d-1) + R(R_s, d-1)),
memoised on (row set, depth left).  No bound, no pruning rule, no shared code
with fst: only the problem's definition (DESIGN.md section 1).  NaN is larger
than every number and goes right.
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


def optimal_objective(X, y, cost, lam, max_depth=None, weights=None):
    """The optimal objective loss/n + lam * leaves by exhaustive enumeration.

    `y` holds class indices, `cost[c, k]` the cost of predicting k for class c;
    `weights` (optional) weighs each row's cost, and the loss is then divided by
    their sum."""
    n = len(y)
    masks, leaf_loss = _masks_and_leaf(X, y, cost, weights)
    memo = {}

    def leaf(rows):
        return leaf_loss(rows) + lam

    def solve(rows, depth):
        key = (rows, depth)
        if key in memo:
            return memo[key]
        best = leaf(rows)
        if depth is None or depth > 0:
            nd = None if depth is None else depth - 1
            seen = set()
            for m in masks:
                left = rows & m
                if left == 0 or left == rows or left in seen:
                    continue
                seen.add(left)
                right = rows & ~m
                lv = solve(left, nd)
                if lv + lam >= best:  # the right side costs at least lam
                    continue
                best = min(best, lv + solve(right, nd))
        memo[key] = best
        return best

    return solve((1 << n) - 1, max_depth)


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
