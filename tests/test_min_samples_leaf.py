"""min_samples_leaf: the optimum among the trees whose every leaf holds that many
rows, exact against brute force in both searches (the general search and the
depth-limited engine, with and without a depth cap) in every combination of the
rules that stay on under it, with threads and weights; the rules it breaks are
off whatever the overrides ask; every tree re-scored and its leaves counted from
the raw data; the path, cross-validation and the command line take it."""
import functools
import warnings

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from fst import FastSmallTreeClassifier, FastSmallTreeClassifierCV, regularization_path
from fst._core import _config
from fst._utils import min_leaf_rows, obeys_min_leaf
from fst.exceptions import NotCertifiedWarning
from oracle import (continuous_problem, optimal_objective, problem_cost, random_problem,
                    rescore, sample_weights, unbounded_problem)

# The rules that stay on under min_samples_leaf > 1, of each search.
GENERAL_RULES = ("equivalent", "support", "capacity", "worth", "leaf_budget")
ENGINE_RULES = ("equivalent", "support", "leaf_budget", "peel_leaf")


def _problem(kind, seed):
    """(X, y, cost, lam, max_depth, weights, min_leaf) of a small problem of each
    kind: `random` (binary, small-integer and NaN columns: the general search
    under max_depth or without), `continuous` (the engine under max_depth),
    `unbounded` (continuous without a depth cap: the engine by leaf budget, then
    the general search); weights on every third seed."""
    if kind == "random":
        X, y, cost, lam, depth = random_problem(4000 + seed)
        if depth is None and lam == 0:
            lam = 0.02
    elif kind == "continuous":
        X, y, cost, lam, depth = continuous_problem(4000 + seed)
    else:
        X, y, cost, lam = unbounded_problem(4000 + seed)
        depth = None
    w = sample_weights(seed, y) if seed % 3 == 2 else None
    return X, y, cost, lam, depth, w, 2 + seed % 4


@functools.lru_cache(maxsize=None)
def _expected(kind, seed):
    """(the constrained optimum, the unconstrained one, class index of each row,
    the full cost matrix), by brute force, once per run."""
    X, y, cost, lam, depth, w, ml = _problem(kind, seed)
    y_idx, full = problem_cost(y, cost)
    return (optimal_objective(X, y_idx, full, lam, depth, weights=w, min_leaf=ml),
            optimal_objective(X, y_idx, full, lam, depth, weights=w), y_idx, full)


def _leaf_rows(clf, X, w):
    """The training rows of positive weight in each leaf of the fitted tree."""
    est = clf.estimator_
    live = np.ones(len(X), bool) if w is None else np.asarray(w) > 0
    counts = np.bincount(est.apply(np.asarray(X, dtype=np.float32)[live]),
                         minlength=est.tree_.node_count)
    return counts[est.tree_.children_left == -1]


def _check(kind, seed, overrides=None, n_jobs=1):
    X, y, cost, lam, depth, w, ml = _problem(kind, seed)
    expected, _, y_idx, full = _expected(kind, seed)
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=depth,
                                  min_samples_leaf=ml, n_jobs=n_jobs, time_limit=None)
    clf._overrides = dict(overrides or {})     # test hook: the search's settings
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotCertifiedWarning)
        clf.fit(X, y, sample_weight=w)
    assert clf.optimal_, (kind, seed)
    assert clf.search_stats_["min_leaf"] == ml
    assert clf.objective_ == pytest.approx(expected, abs=1e-9), (kind, seed)
    assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)
    leaves = _leaf_rows(clf, X, w)
    assert len(leaves) == 1 or leaves.min() >= ml, (kind, seed, leaves)
    return clf


def _rules(names, combo):
    return [name for i, name in enumerate(names) if combo >> i & 1]


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("kind", ["random", "continuous", "unbounded"])
def test_min_samples_leaf_matches_brute_force(kind, seed):
    _check(kind, seed)


def test_the_constraint_binds_on_these_problems():
    """The problems above are not vacuous: on many of them the constrained
    optimum is worse than the unconstrained one."""
    for kind in ("random", "continuous", "unbounded"):
        binds = sum(_expected(kind, s)[0] > _expected(kind, s)[1] + 1e-9 for s in range(30))
        assert binds >= 8, kind


@pytest.mark.parametrize("combo", [c if c % 8 == 0 else pytest.param(c, marks=pytest.mark.slow)
                                   for c in range(1 << (len(GENERAL_RULES) + 2))])
def test_general_search_every_rule_combination(combo):
    """The general search's rules that stay on (equivalent points, leaf support,
    leaf capacity, side worth, the leaf budget) each off or on, the greedy seed
    off or on, one thread or two: the oracle's constrained optimum."""
    rules = _rules(GENERAL_RULES, combo)
    greedy = combo >> len(GENERAL_RULES) & 1
    n_jobs = 2 if combo >> (len(GENERAL_RULES) + 1) & 1 else 1
    for seed in range(combo % 6, 30, 6):
        _check("random", seed, {"rules": rules, "strategy_off": [] if greedy else ["greedy"]},
               n_jobs=n_jobs)


@pytest.mark.parametrize("combo", range(1 << (len(ENGINE_RULES) + 1)))
def test_engine_every_rule_combination(combo):
    """The engine's rules that stay on (the loss floor, leaf support, the leaf
    budget, a leaf beside a subtree without its nested-set bounds) each off or on, one engine or three at the root, under max_depth and
    by leaf budget without it: the oracle's constrained optimum."""
    rules = _rules(ENGINE_RULES, combo)
    n_jobs = 3 if combo >> len(ENGINE_RULES) & 1 else 1
    for seed in range(combo % 2, 30, 4):
        clf = _check("continuous", seed, {"rules": rules, "depth_engine": True}, n_jobs)
        assert clf.search_stats_["engine"] == "depth"
    for seed in range(combo % 2, 30, 4):
        # the engine by leaf budget first; the general search after it (with the
        # same rules) where it does not certify
        _check("unbounded", seed, {"rules": rules, "leaf_budget_probe": False}, n_jobs)


def test_threads_give_the_serial_tree():
    for kind in ("random", "continuous", "unbounded"):
        for seed in range(0, 30, 5):
            one = _check(kind, seed)
            two = _check(kind, seed, n_jobs=2)
            for attr in ("feature", "threshold", "children_left", "children_right", "value"):
                np.testing.assert_array_equal(getattr(one.estimator_.tree_, attr),
                                              getattr(two.estimator_.tree_, attr))


def test_the_rules_it_breaks_are_off_whatever_is_asked():
    """Under min_leaf > 1 the rules that carry bounds between nested row sets
    are off even when every rule is asked for; at 1 nothing changes."""
    cfg = _config.make_config({"rules": _config.ALL_RULES}, min_leaf=3)
    assert cfg["rules"] & _config.MIN_LEAF_RULES_OFF == 0
    assert cfg["rules"] == _config.ALL_RULES & ~_config.MIN_LEAF_RULES_OFF
    for name in ("superset", "exchange", "transfer", "pairs", "peel3", "segment"):
        assert _config.RULES[name] & _config.MIN_LEAF_RULES_OFF
    assert _config.make_config(min_leaf=1)["rules"] == _config.ALL_RULES


def test_transfer_would_be_unsound_under_the_constraint():
    """Why the monotone rules go: a set of exactly min_leaf rows must stay a
    leaf, while a superset of twice as many splits into two pure leaves, so the
    superset's optimum is the lower one."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    big = FastSmallTreeClassifier(regularization=0.01, min_samples_leaf=2).fit(X, y)
    small = FastSmallTreeClassifier(regularization=0.01, min_samples_leaf=2).fit(X[1:3], y[1:3])
    assert big.optimal_ and small.optimal_
    assert big.objective_ == pytest.approx(0.02)          # two pure leaves
    assert small.objective_ == pytest.approx(0.5 + 0.01)  # a leaf of both rows
    assert small.objective_ > big.objective_


def test_a_fraction_is_read_as_sklearn_reads_it():
    X, y = np.arange(50.0)[:, None], np.arange(50) % 2
    clf = FastSmallTreeClassifier(min_samples_leaf=0.1).fit(X, y)
    assert clf.search_stats_["min_leaf"] == 5 == min_leaf_rows(0.1, 50)
    assert min_leaf_rows(0.001, 50) == 1 and min_leaf_rows(7, 50) == 7
    # rows of weight 0 are left out of the fit, so they never count
    w = np.where(np.arange(50) < 10, 0.0, 1.0)
    clf = FastSmallTreeClassifier(min_samples_leaf=0.1).fit(X, y, sample_weight=w)
    assert clf.search_stats_["min_leaf"] == 4


@pytest.mark.parametrize("value", [0, -1, 1.0, 1.5, 0.0, "3"])
def test_bad_values_are_refused_by_name(value):
    with pytest.raises(ValueError, match="min_samples_leaf"):
        FastSmallTreeClassifier(min_samples_leaf=value).fit([[0.0], [1.0]], [0, 1])


def test_more_than_half_the_rows_leaves_the_root_a_leaf():
    X, y = np.arange(10.0)[:, None], (np.arange(10) > 4).astype(int)
    clf = FastSmallTreeClassifier(regularization=0.001, min_samples_leaf=6).fit(X, y)
    assert clf.optimal_ and clf.n_leaves_ == 1
    assert clf.objective_ == pytest.approx(0.5 + 0.001)


def test_a_fallback_tree_is_kept_only_when_it_obeys():
    X, y = np.arange(12.0)[:, None], np.array([0, 1] * 6)
    cart = DecisionTreeClassifier().fit(X, y)                 # leaves of one row
    assert not obeys_min_leaf(cart, X, slice(None), 2)
    assert obeys_min_leaf(cart, X, slice(None), 1)
    cart3 = DecisionTreeClassifier(min_samples_leaf=3).fit(X, y)
    assert obeys_min_leaf(cart3, X, slice(None), 3)
    assert obeys_min_leaf(DecisionTreeClassifier(max_depth=1, min_samples_leaf=7).fit(X, y),
                          X, slice(None), 9)              # the root alone


def test_a_stopped_fit_obeys_the_constraint():
    """A fit stopped at once (a work limit) under max_depth returns its best tree
    or CART's (grown with the same min_samples_leaf): every leaf obeys."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    for depth in (None, 3):
        clf = FastSmallTreeClassifier(regularization=0.001, max_depth=depth,
                                      min_samples_leaf=20)
        clf._overrides = {"work_limit": 50}       # test hook: stop after little work
        with pytest.warns(NotCertifiedWarning):
            clf.fit(X, y)
        assert not clf.optimal_
        assert _leaf_rows(clf, X, None).min() >= 20


def test_path_and_cross_validation_take_it():
    X, y, *_ = random_problem(4001)
    X = np.vstack([X] * 3)
    y = np.concatenate([y] * 3)
    path = regularization_path(X, y, lambda_min=0.01, min_samples_leaf=4)
    y_idx, full = problem_cost(y)
    for lam, tree in zip(path.pareto_front_["lambda_min"], path.trees_):
        counts = np.bincount(tree.apply(X.astype(np.float32)), minlength=tree.tree_.node_count)
        assert tree.tree_.node_count == 1 or counts[tree.tree_.children_left == -1].min() >= 4
        fit = FastSmallTreeClassifier(regularization=lam, min_samples_leaf=4).fit(X, y)
        assert fit.objective_ == pytest.approx(
            optimal_objective(X, y_idx, full, lam, min_leaf=4), abs=1e-9)
    cv = FastSmallTreeClassifierCV(lambdas=[0.01, 0.05], cv=3, min_samples_leaf=4).fit(X, y)
    assert cv.best_estimator_.min_samples_leaf == 4
    assert cv.best_estimator_.search_stats_["min_leaf"] == 4
