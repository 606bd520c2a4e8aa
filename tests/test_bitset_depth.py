"""The bitset search under max_depth: on binary or binned columns (where the plan
sends a depth-limited fit), beyond the depth-limited engine's depths (17 and
more) and, forced by the `depth_engine` override, on continuous columns.  Its
certified optimum must be brute force's on every kind of problem, and the
engine's where both run.
"""
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from fst._core._problem import _pack_rows, build_problem
from fst.exceptions import ConstantTreeWarning
from oracle import continuous_problem, optimal_objective, problem_cost, rescore


class _BitsetSearch(FastSmallTreeClassifier):
    """FastSmallTreeClassifier held to the bitset search (a max_depth fit on
    continuous columns would otherwise go to the depth-limited engine);
    `_overrides` set on it keep that."""

    @property
    def _overrides(self):
        return {"depth_engine": False, **self.__dict__.get("_test_overrides", {})}

    @_overrides.setter
    def _overrides(self, value):
        self.__dict__["_test_overrides"] = dict(value)


def _check(clf, X, y, cost, lam, max_depth, weights=None):
    y_idx, full_cost = problem_cost(y, cost)
    expected = optimal_objective(X, y_idx, full_cost, lam, max_depth, weights=weights)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full_cost, lam, weights=weights) == pytest.approx(
        expected, abs=1e-9)
    assert clf.estimator_.get_depth() <= max_depth


@pytest.mark.parametrize("seed", range(150))
def test_bitset_search_under_max_depth_matches_brute_force(seed):
    """On continuous columns, with costs, three classes, NaN and lambda 0: the
    certified optimum, its bound and the re-scored tree are brute force's."""
    X, y, cost, lam, max_depth = continuous_problem(seed)
    clf = _BitsetSearch(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.fit(X, y)
    _check(clf, X, y, cost, lam, max_depth)


@pytest.mark.parametrize("seed", range(60))
def test_bitset_search_under_max_depth_with_weights_matches_brute_force(seed):
    """Sample and class weights make each (class, weight) pair a class of the
    search."""
    X, y, cost, lam, max_depth = continuous_problem(500 + seed)
    max_depth = max(max_depth, 2)
    rng = np.random.default_rng(seed)
    w = rng.choice([0.0, 0.5, 1.0, 2.5, 3.0], size=len(y))
    w[0] = 1.0
    class_weight = {0: 2.0, 1: 0.5} if seed % 2 else None
    clf = _BitsetSearch(regularization=lam, cost_matrix=cost, max_depth=max_depth,
                        class_weight=class_weight)
    clf.fit(X, y, sample_weight=w)
    _check(clf, X, y, problem_cost(y, cost, class_weight)[1], lam, max_depth, weights=w)


@pytest.mark.parametrize("seed", range(40))
def test_beyond_the_engine_s_depths_matches_brute_force(seed):
    """max_depth 17 or more is past the depth-limited engine: the plan runs the
    bitset search with the depth limit, exact as below it."""
    X, y, cost, lam, _ = continuous_problem(700 + seed)
    # at most 22 rows (every class kept: the first rows hold one of each), where
    # the brute force of three columns without a binding depth takes a second
    X, y = X[:22], y[:22]
    lam = max(lam, 0.005)       # no depth cap that binds: a positive price of a leaf
    max_depth = 17 + seed % 3
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.fit(X, y)
    assert clf.search_stats_["engine"] == "general"
    _check(clf, X, y, cost, lam, max_depth)


@pytest.mark.slow
@pytest.mark.parametrize("max_depth", [2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_bitset_search_equals_the_engine(seed, max_depth):
    """On 300 rows of continuous columns (too many for brute force) the bitset
    search and the depth-limited engine certify the same optimum and tree."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4)).round(2)
    y = ((X[:, 0] > 0.2) ^ (X[:, 1] * X[:, 2] > 0.1)).astype(int)
    y[rng.random(300) < 0.15] ^= 1
    if seed % 2:
        y[rng.random(300) < 0.2] = 2
    lam = [0.005, 0.01, 0.02][seed % 3]
    bitset = _BitsetSearch(regularization=lam, max_depth=max_depth).fit(X, y)
    engine = FastSmallTreeClassifier(regularization=lam, max_depth=max_depth).fit(X, y)
    assert engine.search_stats_["engine"] == "depth"
    assert bitset.optimal_ and engine.optimal_
    assert bitset.objective_ == pytest.approx(engine.objective_, abs=1e-12)
    for attr in ("feature", "threshold", "children_left"):
        np.testing.assert_array_equal(getattr(bitset.estimator_.tree_, attr),
                                      getattr(engine.estimator_.tree_, attr))
    cost = np.ones((3, 3)) - np.eye(3)
    _, y_idx = np.unique(y, return_inverse=True)
    assert rescore(bitset, X, y_idx, cost, lam) == pytest.approx(bitset.objective_, abs=1e-12)


def test_time_limit_under_max_depth_returns_a_real_tree():
    """A time stop of the bitset search under max_depth returns the best tree
    found, its objective re-scored, with optimal_ False and a warning; no bound
    above the objective."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 12)).round(1)
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=3000) > 0).astype(int)
    clf = _BitsetSearch(regularization=0.001, max_depth=4, time_limit=0.5)
    with pytest.warns(UserWarning):
        clf.fit(X, y)
    assert not clf.optimal_
    assert clf.lower_bound_ <= clf.objective_ + 1e-12
    cost = np.ones((2, 2)) - np.eye(2)
    assert rescore(clf, X, y, cost, 0.001) == pytest.approx(clf.objective_, abs=1e-12)
    assert clf.estimator_.get_depth() <= 4


def test_split_bits_hold_the_rows_of_each_threshold():
    """`_fill_split_bits` (one walk per column) against the definition: split k
    of column j holds the rows of rank <= k, NaN ranking above every number."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 300))
        p = int(rng.integers(1, 5))
        X = rng.integers(0, int(rng.integers(1, 50)), size=(n, p)).astype(np.float32)
        X[rng.random((n, p)) < 0.1] = np.nan
        pr = build_problem(X, rng.integers(0, 2, n), 2, np.ones((2, 2)) - np.eye(2))
        for j in range(p):
            for k in range(pr.col_start[j + 1] - pr.col_start[j]):
                expected = _pack_rows((pr.row_rank[j] <= k)[None, :], pr.n_words)[0]
                np.testing.assert_array_equal(pr.split_bits[pr.col_start[j] + k], expected)
