"""One tie rule everywhere: among trees of equal objective (within the
tolerance), the one with the fewest leaves (at lam > 0), then the canonical split order
(at each node the lowest split index, its subtrees likewise).  A fit, its
threads, the depth-limited engine and the bitset search at any max_depth at or
above the tree's depth, the regularization path and cross-validation return the
very same tree; its leaves are the brute force's fewest."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris

from fst import FastSmallTreeClassifier, FastSmallTreeClassifierCV, regularization_path
from fst.exceptions import ConstantTreeWarning, NotCertifiedWarning
from oracle import (canonical_capped_tree, canonical_tree, capped_tie_problem, fitted_tree,
                    optimal_capped, optimal_fewest_leaves, rescore, tie_problem,
                    unbounded_problem)


def _arrays(est):
    t = est.tree_
    return [t.feature, t.threshold, t.children_left, t.children_right,
            t.weighted_n_node_samples]


def _same_tree(a, b):
    for x, y in zip(_arrays(a), _arrays(b)):
        np.testing.assert_array_equal(x, y)


def _fit(X, y, lam, engine=None, **params):
    clf = FastSmallTreeClassifier(regularization=lam, **params)
    if engine is not None:
        clf._overrides = {"depth_engine": engine}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        return clf.fit(X, y)


def _check_one_tree(X, y, lam):
    ref = _fit(X, y, lam)
    assert ref.optimal_
    depth = ref.get_depth()
    for n_jobs in (2, 3):
        _same_tree(_fit(X, y, lam, n_jobs=n_jobs).estimator_, ref.estimator_)
    for d in sorted({max(depth, 1), max(depth, 1) + 1}):
        for engine in (True, False):
            for n_jobs in (1, 2):
                other = _fit(X, y, lam, engine=engine, max_depth=d, n_jobs=n_jobs)
                assert other.optimal_
                assert other.objective_ == pytest.approx(ref.objective_, abs=1e-9)
                _same_tree(other.estimator_, ref.estimator_)
    return ref


@pytest.mark.parametrize("seed", range(60))
def test_ties_go_to_the_fewest_leaves_everywhere(seed):
    X, y, lam = tie_problem(seed)
    best, fewest = optimal_fewest_leaves(X, y, 1 - np.eye(2), lam)
    ref = _check_one_tree(X, y, lam)
    assert ref.objective_ == pytest.approx(best, abs=1e-9)
    assert rescore(ref, X, y, 1 - np.eye(2), lam) == pytest.approx(best, abs=1e-9)
    assert ref.n_leaves_ == fewest


def test_iris_tie_at_0_02_is_the_three_leaf_tree_everywhere():
    """iris at lam = 0.02 has two optima of objective 0.1: 3 leaves and 6 errors,
    4 leaves and 3 errors.  Every way of fitting returns the 3-leaf tree."""
    X, y = load_iris(return_X_y=True)
    ref = _check_one_tree(X, y, 0.02)
    assert ref.n_leaves_ == 3 and ref.objective_ == pytest.approx(0.1)
    path = regularization_path(X, y, lambda_min=0.01, lambda_max=0.05)
    _same_tree(path.tree_at(0.02), ref.estimator_)
    cv = FastSmallTreeClassifierCV(lambdas=[0.02], cv=3).fit(X, y)
    _same_tree(cv.estimator_, ref.estimator_)


@pytest.mark.parametrize("seed", range(12))
def test_the_path_returns_the_fit_s_tree_at_its_breakpoints(seed):
    """At every breakpoint of the path (where two trees tie) and inside every
    interval, the path's tree is the fit's."""
    X, y, lam = tie_problem(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        path = regularization_path(X, y, lambda_min=lam / 2, lambda_max=4 * lam)
    f = path.pareto_front_
    points = list(f["lambda_min"][1:]) + [0.5 * (a + b) for a, b in
                                          zip(f["lambda_min"], f["lambda_max"])]
    for at in points:
        _same_tree(path.tree_at(at), _fit(X, y, at).estimator_)


@pytest.mark.parametrize("seed", range(40))
def test_at_zero_regularization_the_engine_and_the_bitset_search_agree(seed):
    """lam = 0 under max_depth (the fewest errors of a given depth): leaves are not
    compared, and the engine and the bitset search, serial or threaded, return the
    same tree: at every node the lowest optimal split, the leaf first."""
    X, y, _ = tie_problem(seed)
    depth = 1 + seed % 3
    ref = _fit(X, y, 0.0, engine=True, max_depth=depth)
    best = optimal_fewest_leaves(X, y, 1 - np.eye(2), 0.0, depth)[0]
    assert ref.optimal_ and ref.objective_ == pytest.approx(best, abs=1e-9)
    for engine in (True, False):
        for n_jobs in (1, 2):
            _same_tree(_fit(X, y, 0.0, engine=engine, max_depth=depth, n_jobs=n_jobs).estimator_,
                       ref.estimator_)


@pytest.mark.parametrize("seed", range(40))
def test_deep_ties_are_the_canonical_tree_in_both_engines(seed):
    """Continuous problems whose optima tie across depths: at max_depth 5 the
    engine (where a node's budget admits one leaf more than its depth, its
    optimum of one depth less is valued beside leaf-beside trees, which may tie
    it on its own root split) and the bitset search, and without max_depth the
    engine followed by the general search, or alone where it certifies within
    its work limit, all return the brute force's canonical tree."""
    X, y, cost, lam = unbounded_problem(seed)
    classes, y_idx = np.unique(y, return_inverse=True)
    K = len(classes)
    full = (np.ones((K, K)) - np.eye(K)) if cost is None else cost
    capped = canonical_tree(X, y_idx, full, lam, 5)
    unbounded = canonical_tree(X, y_idx, full, lam)
    fits = [(capped, {"depth_engine": True}, 5), (capped, {"depth_engine": False}, 5),
            (unbounded, {"general_search": True}, None),
            (unbounded, {"general_search": False, "work_limit": 200_000}, None)]
    for expected, overrides, depth in fits:
        clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=depth)
        clf._overrides = dict(overrides, leaf_budget_probe=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotCertifiedWarning)
            clf.fit(X, y)
        if "work_limit" not in overrides:
            assert clf.optimal_
        if clf.optimal_:
            assert fitted_tree(clf.estimator_, X) == expected, overrides


# The routes of the search under a leaf cap: a node of one leaf more than its
# depth searched as its shallower optimum beside leaf-beside trees (peel_leaf)
# or allocation by allocation, a split's allocations one by one (allocations)
# or past its children's optima, binary columns from their sums or by passes,
# and threads.
_CAP_ROUTES = [{}, {"cap_probe": False, "depth_engine": True},
               {"cap_probe": False, "rules_off": ["peel_leaf"]},
               {"cap_probe": False, "rules_off": ["allocations"]},
               {"cap_probe": False, "pair_sums": False},
               {"cap_probe": False, "n_jobs": 2}]


@pytest.mark.parametrize("seed", range(60))
def test_under_a_leaf_cap_ties_are_the_canonical_tree_by_every_route(seed):
    """Under max_leaf_nodes (with max_depth on some seeds, at lam = 0 and one
    row's worth) every route returns the brute force's canonical tree: of a
    split's allocations of equal value the first in the split order read root,
    left subtree, right subtree (not the first allocation met, nor the one of
    the children's own optima), and likewise between a leaf beside a subtree
    and the node's shallower optimum on the same root split (not the leaf
    beside whenever it ties)."""
    X, y, K, w = capped_tie_problem(seed)
    cost = 1 - np.eye(K)
    for k in (3, 4, 5, 6):
        depth = [None, None, 2, 3, 4][(seed + k) % 5]
        for lam in (0.0, 1.0 / len(y)):
            expected = canonical_capped_tree(X, y, cost, lam, k, depth, weights=w)
            best = optimal_capped(X, y, cost, lam, k, depth, weights=w)
            for route in _CAP_ROUTES:
                route = dict(route)
                clf = FastSmallTreeClassifier(regularization=lam, max_leaf_nodes=k,
                                              max_depth=depth,
                                              n_jobs=route.pop("n_jobs", 1))
                clf._overrides = route
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    warnings.simplefilter("ignore", ConstantTreeWarning)
                    clf.fit(X, y, sample_weight=w)
                assert clf.optimal_
                assert rescore(clf, X, y, cost, lam, w) == pytest.approx(best, abs=1e-9)
                assert fitted_tree(clf.estimator_, X) == expected, (k, lam, depth, route)
