"""The sorted-column search of depth-limited nodes (`sorted_run` in _sorted.pyx).

A node with depth d >= 2 left, on columns of many thresholds, is searched over its
rows sorted on each column: root splits by bisection along a column, set aside by
the interval and neighbour bounds, each valued exactly at depth two
(`_depth_one_sides`, `_depth_one_sides2` for two classes) or by searching its
children deeper.  Its certified optimum must be brute force's, on every kind of
problem the general search takes; `sorted_min = 0` sends every such node
there, `inf` none (the private override `sorted_min`).
"""
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from fst._core._problem import _pack_rows, build_problem
from oracle import continuous_problem, optimal_objective, problem_cost, rescore


class _BitsetSearch(FastSmallTreeClassifier):
    """FastSmallTreeClassifier held to the bitset search, whose sorted-column stage
    these tests are about (a max_depth fit on continuous columns would otherwise
    go to the depth-limited engine); `_overrides` set on it keep that."""

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


@pytest.mark.parametrize("sorted_min", [0.0, None])
@pytest.mark.parametrize("seed", range(150))
def test_sorted_search_matches_brute_force(seed, sorted_min):
    """Forced on every depth-limited node of depth two or more, and at its
    default threshold: the certified optimum, its bound and the re-scored tree
    are brute force's, with costs, three classes, NaN and lambda 0."""
    X, y, cost, lam, max_depth = continuous_problem(seed)
    clf = _BitsetSearch(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    if sorted_min is not None:
        clf._overrides = {"sorted_min": sorted_min}  # test hook
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.fit(X, y)
    _check(clf, X, y, cost, lam, max_depth)


def test_the_oracle_problems_reach_the_sorted_search():
    """The problems above exercise the sorted search: forced, it searches a node
    in most of those with a depth limit of two or more (the others are settled
    before any expansion: a leaf at creation, or the greedy seed certified)."""
    reached = total = 0
    for seed in range(150):
        X, y, cost, lam, max_depth = continuous_problem(seed)
        if max_depth < 2:
            continue
        clf = _BitsetSearch(regularization=lam, cost_matrix=cost, max_depth=max_depth)
        clf._overrides = {"sorted_min": 0.0}  # test hook
        clf.fit(X, y)
        total += 1
        reached += clf.search_stats_["sorted_nodes"] > 0
    assert reached >= 0.6 * total, (reached, total)


@pytest.mark.parametrize("seed", range(60))
def test_sorted_search_with_weights_matches_brute_force(seed):
    """Sample and class weights make each (class, weight) pair a class of the
    search: the general depth-two pass, never the two-class one, values them."""
    X, y, cost, lam, max_depth = continuous_problem(500 + seed)
    max_depth = max(max_depth, 2)
    rng = np.random.default_rng(seed)
    w = rng.choice([0.0, 0.5, 1.0, 2.5, 3.0], size=len(y))
    w[0] = 1.0
    class_weight = {0: 2.0, 1: 0.5} if seed % 2 else None
    clf = _BitsetSearch(regularization=lam, cost_matrix=cost, max_depth=max_depth,
                                  class_weight=class_weight)
    clf._overrides = {"sorted_min": 0.0}  # test hook
    clf.fit(X, y, sample_weight=w)
    _check(clf, X, y, problem_cost(y, cost, class_weight)[1], lam, max_depth, weights=w)


@pytest.mark.parametrize("seed", range(150))
def test_unshrunk_sorted_search_matches_brute_force(seed):
    """With intervals of thresholds valued at their middle, not shrunk first by
    their ends' neighbour bounds: still brute force's optimum (the shrinking is
    on in every other test)."""
    X, y, cost, lam, max_depth = continuous_problem(seed)
    clf = _BitsetSearch(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    clf._overrides = {"sorted_min": 0.0, "strategy_off": ["sorted_shrink"]}  # test hook
    clf.fit(X, y)
    _check(clf, X, y, cost, lam, max_depth)


@pytest.mark.parametrize("max_depth", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_shrinking_values_fewer_splits_for_the_same_optimum(seed, max_depth):
    """Shrinking an interval by its ends' neighbour bounds before valuing its
    middle sets thresholds aside that bisection would have valued: the same
    certified optimum and bound, with fewer root splits valued."""
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(600, 3)).round(3)
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] > -0.2)).astype(int)
    y[rng.random(600) < 0.1] ^= 1
    if seed % 2:
        y[(X[:, 2] > 0.8) & (rng.random(600) < 0.7)] = 2
    fits = []
    for shrink in (True, False):
        clf = _BitsetSearch(regularization=0.01, max_depth=max_depth)
        clf._overrides = {} if shrink else {"strategy_off": ["sorted_shrink"]}  # test hook
        fits.append(clf.fit(X, y))
    shrunk, bisected = fits
    assert shrunk.optimal_ and bisected.optimal_
    assert shrunk.objective_ == pytest.approx(bisected.objective_, abs=1e-12)
    assert shrunk.lower_bound_ == pytest.approx(bisected.lower_bound_, abs=1e-12)
    assert (shrunk.search_stats_["sorted_splits_valued"]
            < bisected.search_stats_["sorted_splits_valued"])
    _, y_idx = np.unique(y, return_inverse=True)
    cost = np.ones((3, 3)) - np.eye(3)
    assert rescore(shrunk, X, y_idx, cost, 0.01) == pytest.approx(shrunk.objective_, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("max_depth", [2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_sorted_search_equals_general_search(seed, max_depth):
    """On 300 rows of continuous columns (too many for brute force) the sorted
    search and the general one (pair stage) certify the same optimum."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4)).round(2)
    y = ((X[:, 0] > 0.2) ^ (X[:, 1] * X[:, 2] > 0.1)).astype(int)
    y[rng.random(300) < 0.15] ^= 1
    if seed % 2:
        y[rng.random(300) < 0.2] = 2
    lam = [0.005, 0.01, 0.02][seed % 3]
    fits = []
    for sorted_min in (None, np.inf):
        clf = _BitsetSearch(regularization=lam, max_depth=max_depth)
        if sorted_min is not None:
            clf._overrides = {"sorted_min": sorted_min}  # test hook
        fits.append(clf.fit(X, y))
    sorted_fit, general = fits
    assert sorted_fit.search_stats_["sorted_nodes"] > 0
    assert general.search_stats_["sorted_nodes"] == 0
    assert sorted_fit.optimal_ and general.optimal_
    assert sorted_fit.objective_ == pytest.approx(general.objective_, abs=1e-12)
    cost = np.ones((3, 3)) - np.eye(3)
    _, y_idx = np.unique(y, return_inverse=True)
    assert rescore(sorted_fit, X, y_idx, cost, lam) == pytest.approx(sorted_fit.objective_,
                                                                     abs=1e-12)


def test_sorted_search_ignores_row_order_and_n_jobs():
    """The same tree for the rows permuted and for two threads (the sorted search
    runs in one thread; its tie-breaks follow columns and thresholds)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5)).round(2)
    y = ((X[:, 0] + X[:, 1] > 0.3) ^ (X[:, 2] > 0.5)).astype(int)
    y[rng.random(400) < 0.1] ^= 1
    perm = rng.permutation(400)
    ref = _BitsetSearch(regularization=0.005, max_depth=3).fit(X, y)
    assert ref.search_stats_["sorted_nodes"] > 0
    for clf, (Xf, yf) in [(_BitsetSearch(regularization=0.005, max_depth=3),
                           (X[perm], y[perm])),
                          (_BitsetSearch(regularization=0.005, max_depth=3, n_jobs=2),
                           (X, y))]:
        clf.fit(Xf, yf)
        assert clf.objective_ == ref.objective_
        np.testing.assert_array_equal(clf.estimator_.tree_.feature, ref.estimator_.tree_.feature)
        np.testing.assert_array_equal(clf.estimator_.tree_.threshold,
                                      ref.estimator_.tree_.threshold)


def test_time_limit_inside_sorted_search_returns_a_real_tree():
    """A time stop while depth-three nodes are being searched over sorted columns
    returns the best tree found, its objective re-scored, with optimal_ False and
    a warning; no bound above the objective."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 12))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=6000) > 0).astype(int)
    clf = _BitsetSearch(regularization=0.001, max_depth=4, time_limit=0.5)
    with pytest.warns(UserWarning):
        clf.fit(X, y)
    assert not clf.optimal_
    assert clf.search_stats_["sorted_nodes"] > 0
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
