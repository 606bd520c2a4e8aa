"""FastSmallTreeRegressor: the optimum of the scaled squared error plus lam a
leaf, exact against brute force (with and without max_depth, under
max_leaf_nodes and min_samples_leaf, with weights and NaN) in every
combination of the rules that hold under squared error, with threads; every
tree re-scored from the raw data; the native DecisionTreeRegressor it returns;
stops; sklearn's estimator checks."""
import functools
import pickle
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.inspection import permutation_importance
from sklearn.tree import DecisionTreeRegressor, export_text
from sklearn.utils.estimator_checks import parametrize_with_checks

from fst import FastSmallTreeRegressor, FastSmallTreeRegressorCV, regularization_path
from fst.exceptions import ConstantTreeWarning, NotCertifiedWarning
from oracle import optimal_regression, regression_problem

# The engine's rules that hold under squared error (the others are off there);
# "exchange" is the neighbour bound from each row's worst added error there,
# "segment" the k-segmentation floor.
REGRESSION_RULES = ("equivalent", "exchange", "transfer", "leaf_budget", "segment",
                    "peel_leaf", "larger_cap", "allocations")


def _weights(seed, n):
    """Real weights with some zeros on every third seed, else None."""
    if seed % 3 != 2:
        return None
    rng = np.random.default_rng(12000 + seed)
    w = rng.uniform(0.1, 3.0, size=n)
    w[rng.random(n) < 0.15] = 0.0
    w[0] = max(w[0], 0.5)
    return w


def _problem(seed):
    """(X, y, lam, max_depth, weights, min_leaf, max_leaf_nodes): min_samples_leaf
    2 on every fifth seed, a leaf cap of 3 or 4 on every fourth."""
    X, y, lam, depth = regression_problem(seed)
    w = _weights(seed, len(y))
    return (X, y, lam, depth, w, 2 if seed % 5 == 4 else 1,
            (3 + seed % 2) if seed % 4 == 3 else None)


@functools.lru_cache(maxsize=None)
def _expected(seed):
    X, y, lam, depth, w, ml, k = _problem(seed)
    return optimal_regression(X, y, lam, depth, weights=w, min_leaf=ml, max_leaves=k)


def rescore(reg, X, y, lam, w=None):
    """The regressor's objective from the raw data: weighted squared error of
    its predictions over the weights' sum and the weighted variance of y, plus
    lam a leaf."""
    est = reg.estimator_
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    live = w > 0
    mean = (w[live] * y[live]).sum() / w[live].sum()
    var = (w[live] * (y[live] - mean) ** 2).sum() / w[live].sum()
    pred = est.predict(np.asarray(X, dtype=np.float32))
    return (w * (y - pred) ** 2).sum() / w.sum() / var + lam * est.get_n_leaves()


def _check(seed, overrides=None, n_jobs=1):
    X, y, lam, depth, w, ml, k = _problem(seed)
    expected = _expected(seed)
    reg = FastSmallTreeRegressor(regularization=lam, max_depth=depth, min_samples_leaf=ml,
                                 max_leaf_nodes=k, n_jobs=n_jobs, time_limit=None)
    reg._overrides = dict(overrides or {})      # test hook: the search's settings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        reg.fit(X, y, sample_weight=w)
    assert reg.optimal_ and reg.status_ == "optimal", seed
    assert reg.objective_ == pytest.approx(expected, abs=1e-9), seed
    assert reg.lower_bound_ == pytest.approx(expected, abs=1e-9)
    assert rescore(reg, X, y, lam, w) == pytest.approx(expected, abs=1e-9)
    assert depth is None or reg.get_depth() <= depth
    assert k is None or reg.n_leaves_ <= k
    live = np.ones(len(y), bool) if w is None else w > 0
    counts = np.bincount(reg.apply(X[live]), minlength=reg.estimator_.tree_.node_count)
    leaves = counts[reg.estimator_.tree_.children_left == -1]
    assert len(leaves) == 1 or leaves.min() >= ml
    return reg


@pytest.mark.parametrize("seed", range(60))
def test_regressor_matches_brute_force(seed):
    _check(seed)


def test_these_problems_are_not_vacuous():
    """Many of the optima above hold several leaves, and several are not the
    single leaf's 1 + lam."""
    leaves = [_check(seed).n_leaves_ for seed in range(0, 60, 3)]
    assert sum(n >= 3 for n in leaves) >= 5, leaves


@pytest.mark.parametrize("combo", [c if c % 32 == 31 else pytest.param(c, marks=pytest.mark.slow)
                                   for c in range(1 << (len(REGRESSION_RULES) + 1))])
def test_every_rule_combination(combo):
    """The loss floor, the neighbour bound, the interval bounds, the leaf budget,
    the k-segmentation floor, the leaf beside a subtree, a larger cap's bound
    and the splits valued allocation by allocation each off or on, one
    engine or three at the root, with or without the rising bound under a leaf
    cap: the brute force's optimum (two problems a
    combination, of different depth caps; every problem in four combinations).  Problem 45, searched to
    depth 9 by leaf budget, takes half a minute without the loss floor: the
    pairing gives it two combinations that hold the floor."""
    rules = [name for i, name in enumerate(REGRESSION_RULES) if combo >> i & 1]
    n_jobs = 3 if combo >> len(REGRESSION_RULES) & 1 else 1
    # every third combination proves a capped search's bound upward from its
    # start (`EngineSearch._rise`)
    rise = 0.0 if combo % 3 == 1 else False
    for seed in (combo % 60, (combo - 32) % 60):
        # (the engine's rules: under a leaf cap, without the general search's
        # first run, which would answer some of these problems before it)
        _check(seed, {"rules": rules, "rising_bound": rise, "cap_probe": False}, n_jobs)


def test_a_first_run_without_the_cap_changes_no_answer_under_squared_error():
    """Under a leaf cap at lam > 0 on binary or binned columns the general search
    without the cap runs first (`CapProbeSearch`): node for node the engine's
    tree under the cap, with its bound; it answers several of these problems."""
    answered = 0
    for seed in range(3, 60, 4):
        for n_jobs in (1, 2):
            on = _check(seed, n_jobs=n_jobs)
            off = _check(seed, {"cap_probe": False}, n_jobs)
            for attr in ("feature", "threshold", "children_left", "children_right"):
                np.testing.assert_array_equal(getattr(on.estimator_.tree_, attr),
                                              getattr(off.estimator_.tree_, attr))
            assert on.lower_bound_ == off.lower_bound_
            assert "cap_probe" not in off.search_stats_
            answered += on.search_stats_.get("cap_probe", {}).get("answered", False)
    assert answered >= 4, answered


def test_a_leaf_beside_a_subtree_changes_no_answer_under_squared_error():
    """A node capped one leaf above its depth (by max_leaf_nodes or by what its
    budget admits) searched as its shallower optimum or a leaf beside a subtree
    (`leaf_beside_split_bound`, the leaf's loss from its column's sums): with
    the rule and without it node for node the same tree and the same bound on
    every problem, serial and threaded; it searches nodes so on several of
    them, and none when off."""
    others = [r for r in REGRESSION_RULES if r != "peel_leaf"]
    used = 0
    for seed in range(60):
        for n_jobs in (1, 2):
            on = _check(seed, None, n_jobs)
            off = _check(seed, {"rules": others}, n_jobs)
            for attr in ("feature", "threshold", "children_left", "children_right", "value"):
                np.testing.assert_array_equal(getattr(on.estimator_.tree_, attr),
                                              getattr(off.estimator_.tree_, attr))
            assert on.lower_bound_ == off.lower_bound_
            # (a fit the general search ends has no engine statistics)
            assert off.search_stats_.get("peel_nodes", 0) == 0
            used += on.search_stats_.get("peel_nodes", 0) > 0
    assert used >= 6, used


@pytest.mark.parametrize("seed", range(100))
def test_ties_under_a_leaf_cap_give_one_tree_by_every_route(seed):
    """Targets of three whole values on columns of four: a split's allocations
    of its leaves, and a leaf beside a subtree and its node's shallower
    optimum, tie exactly.  The peel, the allocations one by one, and past the
    children's optima return one tree (the canonical split order, read root,
    left subtree, right: docs/how_it_works.md, "Ties"), certified, with the
    same objective."""
    rng = np.random.RandomState(seed)
    n, p = rng.randint(6, 16), rng.randint(1, 4)
    X = rng.randint(0, 4, (n, p)).astype(float)
    y = rng.randint(0, 3, n).astype(float)
    for k in (3, 4, 5, 6):
        for lam in (0.0, 0.01):
            fits = []
            for route in ({}, {"rules_off": ["peel_leaf"]}, {"rules_off": ["allocations"]}):
                reg = FastSmallTreeRegressor(regularization=lam, max_leaf_nodes=k)
                reg._overrides = route
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConstantTreeWarning)
                    reg.fit(X, y)
                assert reg.optimal_
                fits.append(reg)
            for other in fits[1:]:
                assert other.objective_ == pytest.approx(fits[0].objective_, abs=1e-12)
                for attr in ("feature", "threshold", "children_left", "children_right"):
                    np.testing.assert_array_equal(getattr(other.estimator_.tree_, attr),
                                                  getattr(fits[0].estimator_.tree_, attr),
                                                  err_msg=f"{k} {lam} {other._overrides}")


def _partitions(items, k):
    """Every partition of `items` into at most k nonempty groups."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest, k):
        for g in range(len(part)):
            yield part[:g] + [[first] + part[g]] + part[g + 1:]
        if len(part) < k:
            yield [[first]] + part


@pytest.mark.parametrize("seed", range(40))
def test_the_segmentation_floor_is_the_least_partition(seed):
    """The k-segmentation floor of a set is the least over every partition of
    its targets into at most kmax groups (not only runs of the sorted targets)
    of the groups' weighted squared errors plus lam a group: never above it
    (sound), and within the slack of it (the floor is exact)."""
    from fst._core._testing import segment_bound_for_tests
    rng = np.random.default_rng(500 + seed)
    m = int(rng.integers(1, 9))
    z = rng.normal(size=m) * 0.3
    if seed % 3 == 0:
        z = np.round(z * 4) / 4                  # repeated targets
    w = rng.uniform(0.2, 3.0, m) if seed % 2 else None
    ww = np.ones(m) if w is None else w
    kmax = int(rng.integers(1, 6))
    lam = [0.0, 0.001, 0.01, 0.05][seed % 4]
    best = np.inf
    for part in _partitions(list(range(m)), kmax):
        loss = 0.0
        for g in part:
            zg, wg = z[g], ww[g]
            mu = (wg * zg).sum() / wg.sum()
            loss += (wg * (zg - mu) ** 2).sum()
        best = min(best, loss + lam * len(part))
    got = segment_bound_for_tests(np.ascontiguousarray(z), w, kmax, lam)
    assert got <= best + 1e-12
    assert got >= best - 1e-8


def test_the_segmentation_floor_prunes_and_changes_no_tree():
    """On a step target at depth 3 the floor proves splits above their cap
    without a search, and the optimum is the one found without it."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (5.0 * (X[:, 0] > 0) + 3.0 * (X[:, 1] > 0.5) + 2.0 * (X[:, 2] > -0.3)
         + 0.2 * rng.normal(size=400))
    on = FastSmallTreeRegressor(0.02, max_depth=3).fit(X, y)
    off = FastSmallTreeRegressor(0.02, max_depth=3)
    off._overrides = {"rules": [r for r in REGRESSION_RULES if r != "segment"]}
    off.fit(X, y)
    assert on.optimal_ and off.optimal_
    assert on.search_stats_["segment_prunes"] > 0
    assert off.search_stats_["segment_bounds"] == 0
    assert on.objective_ == pytest.approx(off.objective_, abs=1e-12)
    for attr in ("feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(on.estimator_.tree_, attr),
                                      getattr(off.estimator_.tree_, attr))


def test_a_rising_bound_changes_no_answer():
    """Under a leaf cap without max_depth, the deepest search proving its bound
    upward from its start (its root run against budgets below its incumbent,
    `EngineSearch._rise`): the brute force's optimum, the same tree as
    without it, serial and threaded; used on several problems."""
    used = 0
    for seed in range(60):
        if _problem(seed)[6] is None:
            continue
        for n_jobs in (1, 2):
            on = _check(seed, {"rising_bound": 0.0, "cap_probe": False}, n_jobs)
            off = _check(seed, {"rising_bound": False, "cap_probe": False}, n_jobs)
            assert off.search_stats_["rising_runs"] == 0
            used += on.search_stats_["rising_runs"] > 0
            for attr in ("feature", "threshold", "children_left", "children_right", "value"):
                np.testing.assert_array_equal(getattr(on.estimator_.tree_, attr),
                                              getattr(off.estimator_.tree_, attr))
    assert used >= 4, used


def test_a_subset_bound_is_sound_under_squared_error():
    """Under a leaf cap of five without max_depth, disjoint subsets of the rows
    searched first (`EngineSearch._subset_bound`, each subset's leaves' means
    refitted on its rows): every bound they prove at most the brute force's
    optimum, and the same tree and bound as without them, serial and
    threaded; they run on many of these problems and on none when off."""
    from unittest import mock

    from fst._engine import EngineSearch
    used = 0
    keep = EngineSearch._raise_lb
    for seed in range(0, 60, 3):
        X, y, lam, _, w, _, _ = _problem(seed)
        expected = optimal_regression(X, y, lam, None, weights=w, max_leaves=5)
        fits = []
        for subset in (0.0, False):
            for n_jobs in (1, 2):
                risen = []

                def raise_lb(search, lb):
                    risen.append(lb)
                    keep(search, lb)

                reg = FastSmallTreeRegressor(regularization=lam, max_leaf_nodes=5,
                                             n_jobs=n_jobs, time_limit=None)
                reg._overrides = {"subset_bound": subset, "rising_bound": False,
                                  "cap_probe": False}
                with mock.patch.object(EngineSearch, "_raise_lb", raise_lb), \
                        warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConstantTreeWarning)
                    reg.fit(X, y, sample_weight=w)
                assert reg.optimal_ and reg.n_leaves_ <= 5
                assert reg.objective_ == pytest.approx(expected, abs=1e-9), seed
                assert rescore(reg, X, y, lam, w) == pytest.approx(expected, abs=1e-9)
                assert all(lb <= expected + 1e-9 for lb in risen), (seed, risen, expected)
                rounds = reg.search_stats_["subset_rounds"]
                assert rounds == 0 if subset is False else True
                used += rounds > 0
                fits.append(reg)
        for other in fits[1:]:
            for attr in ("feature", "threshold", "children_left", "children_right", "value"):
                np.testing.assert_array_equal(getattr(other.estimator_.tree_, attr),
                                              getattr(fits[0].estimator_.tree_, attr))
    assert used >= 10, used


def test_no_rising_bound_below_the_depth_the_cap_allows():
    """A search cut at a depth below the leaf cap's (here three, under a cap of
    five) proves nothing of the deeper trees, so it runs no budgeted runs and
    its bound stays at most the optimum."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3))
    y = X[:, 0] + np.sin(3 * X[:, 1]) + 0.1 * rng.normal(size=80)
    best = FastSmallTreeRegressor(0.0, max_leaf_nodes=5, time_limit=None).fit(X, y)
    assert best.optimal_
    cut = FastSmallTreeRegressor(0.0, max_leaf_nodes=5, time_limit=None)
    cut._overrides = {"leaf_budget_depth": 3, "rising_bound": 0.0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        cut.fit(X, y)
    assert not cut.optimal_ and cut.search_stats_["rising_runs"] == 0
    assert cut.lower_bound_ <= best.objective_ + 1e-9


def test_threads_give_the_serial_tree():
    for seed in range(0, 60, 6):
        one = _check(seed)
        two = _check(seed, n_jobs=2)
        for attr in ("feature", "threshold", "children_left", "children_right", "value"):
            np.testing.assert_array_equal(getattr(one.estimator_.tree_, attr),
                                          getattr(two.estimator_.tree_, attr))


def test_the_objective_is_one_minus_r2_plus_leaves():
    X, y = make_friedman1(n_samples=400, noise=1.0, random_state=0)
    reg = FastSmallTreeRegressor(regularization=0.01, max_depth=2).fit(X, y)
    assert reg.optimal_
    assert reg.objective_ == pytest.approx(1 - reg.score(X, y) + 0.01 * reg.n_leaves_,
                                           abs=1e-9)
    # CART's tree of depth 2 is one of the trees searched: never better
    cart = DecisionTreeRegressor(max_depth=2).fit(X, y)
    assert reg.objective_ <= 1 - cart.score(X, y) + 0.01 * cart.get_n_leaves() + 1e-9


def test_the_native_tree():
    """Leaf means as values, weighted variances as impurities, weighted counts;
    predict, pickle, export_text and permutation importance work on it."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 0] > 0, 5.0, 1.0) + 0.1 * rng.normal(size=200)
    w = rng.uniform(0.5, 2.0, size=200)
    reg = FastSmallTreeRegressor(regularization=0.05).fit(X, y, sample_weight=w)
    assert reg.optimal_ and reg.n_leaves_ == 2
    t = reg.estimator_.tree_
    leaf = reg.apply(X)
    for node in np.flatnonzero(t.children_left == -1):
        rows = leaf == node
        mean = np.average(y[rows], weights=w[rows])
        assert t.value[node, 0, 0] == pytest.approx(mean)
        assert t.impurity[node] == pytest.approx(np.average((y[rows] - mean) ** 2,
                                                            weights=w[rows]))
        assert t.weighted_n_node_samples[node] == pytest.approx(w[rows].sum())
        assert t.n_node_samples[node] == rows.sum()
    np.testing.assert_allclose(reg.predict(X), t.value[leaf, 0, 0])
    again = pickle.loads(pickle.dumps(reg))
    np.testing.assert_array_equal(again.predict(X), reg.predict(X))
    assert "feature_0" in export_text(reg.estimator_)
    assert "certified optimal" in str(reg)
    imp = permutation_importance(reg, X, y, n_repeats=2, random_state=0)
    assert imp.importances_mean.argmax() == 0


def test_a_constant_target_is_one_leaf():
    X = np.arange(10.0)[:, None]
    reg = FastSmallTreeRegressor(regularization=0.01).fit(X, np.full(10, 3.5))
    assert reg.optimal_ and reg.n_leaves_ == 1 and reg.objective_ == pytest.approx(0.01)
    np.testing.assert_array_equal(reg.predict(X), 3.5)


def test_a_stopped_fit_returns_a_tree_and_a_bound():
    """A fit stopped after little work keeps its best tree or CART's, with a
    bound below its objective and a warning."""
    X, y = make_friedman1(n_samples=600, noise=1.0, random_state=0)
    reg = FastSmallTreeRegressor(regularization=0.002, max_depth=3)
    reg._overrides = {"work_limit": 20}          # test hook: stop after little work
    with pytest.warns(NotCertifiedWarning):
        reg.fit(X, y)
    assert not reg.optimal_ and reg.status_ == "time_limit"
    assert reg.lower_bound_ <= reg.objective_
    assert reg.objective_ == pytest.approx(rescore(reg, X, y, 0.002), abs=1e-9)
    # CART's tree of the same depth is the fallback: the fit is never worse
    cart = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    assert reg.objective_ <= 1 - cart.score(X, y) + 0.002 * cart.get_n_leaves() + 1e-9


def test_zero_regularization_needs_a_limit():
    X, y = make_friedman1(n_samples=50, random_state=0)
    with pytest.raises(ValueError, match="regularization > 0, max_depth"):
        FastSmallTreeRegressor(regularization=0.0).fit(X, y)
    reg = FastSmallTreeRegressor(regularization=0.0, max_leaf_nodes=3).fit(X, y)
    assert reg.optimal_ and reg.n_leaves_ == 3


@pytest.mark.parametrize("y", [[1.0, np.nan, 2.0], [1.0, np.inf, 2.0]])
def test_a_target_that_is_not_finite_is_refused(y):
    with pytest.raises(ValueError, match="y"):
        FastSmallTreeRegressor().fit([[0.0], [1.0], [2.0]], y)


# The unlimited instance at a price that keeps the checks' random targets to a
# shallow leaf budget (three leaves): the checks test the interface, the
# benchmarks the search.
@parametrize_with_checks([FastSmallTreeRegressor(regularization=0.01, max_depth=2),
                          FastSmallTreeRegressor(regularization=0.5),
                          FastSmallTreeRegressorCV([0.05, 0.2], cv=3, max_depth=2)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("seed", [1, 2, 5, 7])
def test_regression_path_matches_brute_force(seed):
    """Every tree of the regression path is the brute force's optimum at the
    ends and the middle of its interval, re-scored from the data."""
    X, y, _, depth = regression_problem(seed)
    depth = 3 if depth is None else depth
    path = regularization_path(X, y, lambda_min=0.0, max_depth=depth, task="regression")
    assert path.optimal_ and path.classes_ is None
    front = path.pareto_front_
    assert front["lambda_max"][0] == pytest.approx(1.0) and front["n_leaves"][0] == 1
    assert np.all(np.diff(front["n_leaves"]) > 0)
    for tree, lo, hi, r2 in zip(path.trees_, front["lambda_min"], front["lambda_max"],
                                front["r2"]):
        for lam in (lo, (lo + hi) / 2, hi):
            reg = FastSmallTreeRegressor(regularization=lam)
            reg.estimator_ = tree
            assert rescore(reg, X, y, lam) == pytest.approx(
                optimal_regression(X, y, lam, depth), abs=1e-9)
        assert r2 == pytest.approx(1 - rescore(reg, X, y, 0.0), abs=1e-9)
    assert "r2=" in repr(path)
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = path.plot_front()
    assert ax.get_ylabel() == "training R²"
    matplotlib.pyplot.close("all")


def test_regression_path_refuses_the_classifier_s_options():
    X, y, _, _ = regression_problem(1)
    with pytest.raises(ValueError, match="do not apply"):
        regularization_path(X, y, max_depth=2, task="regression", class_weight="balanced")
    with pytest.raises(ValueError, match="task"):
        regularization_path(X, y, max_depth=2, task="ranking")


def _cv_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = 2.0 * (X[:, 0] > 0.3) + X[:, 1] * (X[:, 2] > 0) + 0.5 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("scoring", [None, "neg_mean_absolute_error"])
def test_regressor_cv_matches_grid_search(scoring):
    """The same held-out scores, choice and refit as a GridSearchCV over the same
    regularizations (unshuffled k-fold), with no more fits."""
    from sklearn.model_selection import GridSearchCV, KFold
    X, y = _cv_data()
    lams = [0.005, 0.01, 0.03, 0.08, 0.2]
    cv = FastSmallTreeRegressorCV(lams, cv=4, scoring=scoring, max_depth=3).fit(X, y)
    gs = GridSearchCV(FastSmallTreeRegressor(max_depth=3), {"regularization": lams},
                      cv=KFold(4), scoring=scoring).fit(X, y)
    for k in range(4):
        np.testing.assert_allclose(cv.cv_results_[f"split{k}_test_score"],
                                   gs.cv_results_[f"split{k}_test_score"], rtol=0, atol=1e-12)
    assert cv.cv_results_["rank_test_score"].tolist() == gs.cv_results_["rank_test_score"].tolist()
    assert cv.regularization_ == gs.best_params_["regularization"]
    assert cv.best_score_ == pytest.approx(gs.best_score_, abs=1e-12)
    assert cv.cv_results_["optimal"].all() and cv.optimal_
    assert cv.n_fits_ <= 4 * len(lams)
    assert isinstance(cv.best_estimator_, FastSmallTreeRegressor)
    assert isinstance(cv.estimator_, DecisionTreeRegressor)
    np.testing.assert_array_equal(cv.predict(X), gs.best_estimator_.predict(X))
    assert cv.score(X, y) == pytest.approx(gs.score(X, y))
    if scoring is None:
        assert cv.score(X, y) == pytest.approx(cv.best_estimator_.score(X, y))


def test_regressor_cv_with_weights_and_its_refusals():
    """Sample weights reach every fit (the refit is the weighted fit), a
    classifier's parameters are not taken, and bad targets and grids are
    refused with what is wrong."""
    X, y = _cv_data(150, seed=3)
    w = np.random.default_rng(3).uniform(0.0, 2.0, len(y))
    cv = FastSmallTreeRegressorCV([0.01, 0.05], cv=3, max_depth=2).fit(X, y, sample_weight=w)
    ref = FastSmallTreeRegressor(cv.regularization_, max_depth=2).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(cv.predict(X), ref.predict(X))
    assert cv.best_estimator_.objective_ == pytest.approx(ref.objective_, abs=1e-12)
    assert "cost_matrix" not in cv.get_params()
    assert f"regularization_={cv.regularization_:g}" in str(cv)
    with pytest.raises(ValueError, match="lambdas holds 0 without max_depth"):
        FastSmallTreeRegressorCV([0.0, 0.1]).fit(X, y)
    y_bad = y.copy()
    y_bad[3] = np.nan
    with pytest.raises(ValueError, match="(?i)nan"):
        FastSmallTreeRegressorCV([0.1], cv=2, max_depth=2).fit(X, y_bad)


def _binary_problem(seed):
    """Up to 22 rows of three to six 0/1 columns (some constant), a target
    partly their step function, depth 3 or none: the engine's nodes of depth two
    below the root are solved from their column pairs' sums."""
    rng = np.random.default_rng(13000 + seed)
    n = int(rng.integers(6, 23))
    p = int(rng.integers(3, 7))
    X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(float)
    if seed % 7 == 3:
        X[:, -1] = 1.0
    y = 2.0 * X[:, 0] - 1.5 * X[:, 1] * X[:, 2] + rng.normal(scale=0.7, size=n)
    if seed % 5 == 1:
        y = np.round(y)
    lam = [0.0, 0.005, 0.02, 0.06][seed % 4]
    depth = 3 if seed % 2 == 0 or lam == 0 else None
    w = _weights(seed, n)
    ml = 2 if seed % 5 == 4 else 1
    return X, y, lam, depth, w, ml


@pytest.mark.parametrize("seed", range(30))
def test_binary_columns_match_brute_force(seed):
    """On 0/1 columns, with weights, repeated targets, min_samples_leaf and one or
    three threads: the brute force's optimum, the same tree serial and threaded,
    re-scored from the data."""
    X, y, lam, depth, w, ml = _binary_problem(seed)
    expected = optimal_regression(X, y, lam, depth, weights=w, min_leaf=ml)
    fits = []
    for n_jobs in (1, 3):
        reg = FastSmallTreeRegressor(regularization=lam, max_depth=depth, min_samples_leaf=ml,
                                     n_jobs=n_jobs, time_limit=None)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.simplefilter("ignore", ConstantTreeWarning)
            reg.fit(X, y, sample_weight=w)
        assert reg.optimal_, seed
        assert reg.objective_ == pytest.approx(expected, abs=1e-9), seed
        assert rescore(reg, X, y, lam, w) == pytest.approx(expected, abs=1e-9)
        fits.append(reg)
    for attr in ("feature", "threshold", "children_left", "value"):
        np.testing.assert_array_equal(getattr(fits[0].estimator_.tree_, attr),
                                      getattr(fits[1].estimator_.tree_, attr))


@pytest.mark.parametrize("seed", range(30))
def test_the_sums_give_the_column_passes_tree(seed):
    """On 0/1 columns the nodes of depth two, three and four, the root among
    them, are solved from their column pairs', triples' and quadruples' sums;
    with them off (the `pair_sums` test hook) the partitions and column passes
    solve them.  The trees are the same, node for node, at depth 2 to 5 and by
    leaf budget, with weights, repeated targets and min_samples_leaf, serial
    and threaded, and with the columns most of whose rows hold 0 searched
    negated or not (`binary_flips`)."""
    rng = np.random.default_rng(17000 + seed)
    n = int(rng.integers(20, 120))
    p = int(rng.integers(4, 10))
    X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(float)
    if seed % 6 == 2:
        X[:, 0] = 1.0                       # a column without a split
    y = (2.0 * X[:, 0] - 1.5 * X[:, 1] * X[:, 2] + X[:, 3] * (1 - X[:, 1])
         + rng.normal(scale=0.6, size=n))
    if seed % 4 == 1:
        y = np.round(y)
    depth = [2, 3, 4, 5, None][seed % 5]
    # by leaf budget the smallest price leaves trees deeper than the engine's
    lam = 0.03 if depth is None else [0.002, 0.01, 0.03][seed % 3]
    w = rng.uniform(0.5, 2.0, n) if seed % 2 else None
    ml = [1, 1, 3][seed % 3]
    fits = []
    for pair_sums, n_jobs, flip in ((True, 1, True), (False, 1, True), (True, 2, True),
                                    (True, 1, False)):
        reg = FastSmallTreeRegressor(lam, max_depth=depth, min_samples_leaf=ml, n_jobs=n_jobs,
                                     time_limit=None)
        # (the engine alone by leaf budget: on 0/1 columns the general search
        # would come first; `flip_binary` off: no column searched negated)
        reg._overrides = {"pair_sums": pair_sums, "general_search": False,
                          "flip_binary": flip}
        reg.fit(X, y, sample_weight=w)
        assert reg.optimal_, seed
        assert rescore(reg, X, y, lam, w) == pytest.approx(reg.objective_, abs=1e-12)
        fits.append(reg)
    assert fits[0].search_stats_["column_passes"] <= fits[1].search_stats_["column_passes"]
    for other in fits[1:]:
        assert other.objective_ == pytest.approx(fits[0].objective_, abs=1e-9), seed
        for attr in ("feature", "threshold", "children_left", "children_right", "value"):
            np.testing.assert_array_equal(getattr(fits[0].estimator_.tree_, attr),
                                          getattr(other.estimator_.tree_, attr))


def test_the_flipped_columns_are_most_of_these_problems_columns():
    """The problems above are not vacuous for the flips: on most of them some
    columns are searched negated; a column with NaN or a third value stops
    every flip."""
    from fst._core._problem import rank_space
    from fst._spaces import binary_flips

    def flips(X):
        return binary_flips(rank_space(np.asarray(X, dtype=np.float32)))

    flipped = 0
    for seed in range(30):
        rng = np.random.default_rng(17000 + seed)
        n = int(rng.integers(20, 120))
        p = int(rng.integers(4, 10))
        X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(np.float32)
        flipped += flips(X) is not None
    assert flipped >= 20, flipped
    X = np.array([[0, 0], [0, 1], [0, 0], [1, 0], [2, 0]], dtype=np.float32)
    assert flips(X[:4]).tolist() == [True, True]
    assert flips(X) is None                         # a third value
    assert flips(np.array([[0, np.nan], [0, 1], [0, 0], [1, 0]])) is None
    # a flipped column is ranked as its negation would be
    ranked = rank_space(X[:4])
    binary_flips(ranked)
    negated = rank_space(-X[:4])
    np.testing.assert_array_equal(ranked.row_rank, negated.row_rank)
    np.testing.assert_array_equal(ranked.col_order, negated.col_order)
    for (v, nan), (w, nan2) in zip(ranked.values, negated.values):
        np.testing.assert_array_equal(v, w)
        assert nan == nan2


@pytest.mark.parametrize("deepen", [False, True])
@pytest.mark.parametrize("depth, work", [(2, 1), (3, 1), (3, 20), (3, 100), (4, 1), (4, 2000)])
def test_a_root_stopped_in_its_sums_keeps_a_valid_bound(depth, work, deepen, monkeypatch):
    """A root solved from its sums and stopped (in its pass over the rows, or
    while its sets' trees are valued: the fits take 13, 290 and 3,207 units of
    work at depth 2, 3 and 4 when the shallower depths run first) returns its
    best tree or CART's, re-scored, with a bound at most the optimum: the
    root's creation bound.  Its pass is short, so it runs alone; made to
    deepen (`SUMS_DIRECT_WORK` below every pass), a stop at depth three or four
    returns at least the depth-two optimum it was seeded with."""
    import fst._engine as engine

    if deepen:
        monkeypatch.setattr(engine, "SUMS_DIRECT_WORK", -1)
    rng = np.random.default_rng(5)
    X = (rng.random((3000, 12)) < 0.5).astype(float)
    y = 2.0 * X[:, 0] - X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=3000)
    full = FastSmallTreeRegressor(0.005, max_depth=depth).fit(X, y)
    assert full.optimal_ and full.search_stats_["column_passes"] == 0
    reg = FastSmallTreeRegressor(0.005, max_depth=depth)
    reg._overrides = {"work_limit": work}        # test hook: stop after little work
    with pytest.warns(NotCertifiedWarning):
        reg.fit(X, y)
    assert not reg.optimal_ and reg.status_ == "time_limit"
    assert reg.lower_bound_ <= full.objective_ + 1e-12
    assert full.objective_ <= reg.objective_ + 1e-12
    assert reg.objective_ == pytest.approx(rescore(reg, X, y, 0.005), abs=1e-9)
    if deepen and work > 13:
        # stopped at depth three or four, after the depth-two search certified
        shallower = FastSmallTreeRegressor(0.005, max_depth=2).fit(X, y)
        assert reg.objective_ <= shallower.objective_ + 1e-12


@pytest.mark.parametrize("seed", range(16))
def test_a_short_sums_root_runs_alone_and_gives_the_deepened_tree(seed, monkeypatch):
    """Under max_depth 2 to 4 on 0/1 columns the root is solved from its sums in
    one pass that values every tree; where that pass adds its rows to at most
    SUMS_DIRECT_WORK table slots (`DepthSearch.root_sums_work`, checked here
    against its count from the data) it runs alone, without the shallower
    searches, and gives the tree, node for node, and the certificate of the
    deepened search (weights, repeated targets, min_samples_leaf, a leaf cap)."""
    import fst._engine as engine

    rng = np.random.default_rng(23000 + seed)
    n = int(rng.integers(10, 150))
    p = int(rng.integers(2, 10))
    X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(float)
    if seed % 5 == 3:
        X[:, -1] = 0.0                      # a column without a split
    y = 2.0 * X[:, 0] - X[:, 1] * X[:, -1] + rng.normal(scale=0.7, size=n)
    if seed % 4 == 1:
        y = np.round(y)
    depth = 2 + seed % 3
    lam = [0.0, 0.004, 0.02][seed % 3]
    cap = 2 ** depth - 1 if seed % 3 == 0 else None        # lam = 0 needs none
    w = rng.integers(0, 3, n).astype(float) if seed % 2 else None
    if w is not None:
        w[0] = 1.0
    searched = []
    works = []
    search = engine.EngineSearch._search
    direct = engine.EngineSearch._direct

    def counted(self, *args):
        searched.append(args[0])
        return search(self, *args)

    def recorded(self):
        before = len(searched)
        s = direct(self)
        works.append(None if s is None else s.root_sums_work())
        if s is None:
            del searched[before:]           # built to be asked, not run
        return s

    monkeypatch.setattr(engine.EngineSearch, "_search", counted)
    monkeypatch.setattr(engine.EngineSearch, "_direct", recorded)
    fits = []
    for limit in (engine.SUMS_DIRECT_WORK, -1):
        monkeypatch.setattr(engine, "SUMS_DIRECT_WORK", limit)
        searched.clear()
        works.clear()
        reg = FastSmallTreeRegressor(lam, max_depth=depth, max_leaf_nodes=cap,
                                     min_samples_leaf=1 + seed % 2, time_limit=None)
        reg.fit(X, y, sample_weight=w)
        assert reg.optimal_
        assert rescore(reg, X, y, lam, w) == pytest.approx(reg.objective_, abs=1e-12)
        fits.append((reg, list(searched), list(works)))
    (alone, alone_depths, alone_work), (deepened, deepened_depths, _) = fits
    from fst._spaces import binary_flips
    live = np.ones(n, bool) if w is None else w > 0
    splits = [j for j in range(p) if len(np.unique(X[live, j])) == 2]
    # a row is added where a split sends it left: the 0s of a column, or its 1s
    # where the column is searched negated (most rows hold 0: `binary_flips`)
    from fst._core._problem import rank_space
    flips = binary_flips(rank_space(X[live].astype(np.float32)))
    left = X[live] <= 0.5 if flips is None else (X[live] <= 0.5) != flips
    a = left[:, splits].sum(axis=1).astype(np.int64)
    expected = a * (a + 1) // 2
    if depth >= 3:
        expected = expected + a * (a - 1) * (a - 2) // 6
    if depth >= 4:
        expected = expected + a * (a - 1) * (a - 2) * (a - 3) // 24
    if cap is None:
        assert alone_work == [int(expected.sum())]
        assert alone_depths == [depth]
    else:
        # under a leaf cap below 2^depth the root is not solved from its sums
        assert alone_work == [None] and alone_depths == list(range(2, depth + 1))
    assert deepened_depths == list(range(2, depth + 1))
    assert alone.objective_ == deepened.objective_
    for attr in ("feature", "threshold", "children_left", "children_right", "value"):
        np.testing.assert_array_equal(getattr(alone.estimator_.tree_, attr),
                                      getattr(deepened.estimator_.tree_, attr))


def test_binary_columns_use_the_pair_sums_and_agree_with_the_column_passes():
    """On binarised diabetes at depth 3 the depth-two nodes below the root are
    solved from the pairs' sums (few column passes), and the tree is the one the
    same search gives on the same 0/1 columns stored as three values (one more
    split a column, so the column passes solve them)."""
    from sklearn.datasets import load_diabetes
    X, y = load_diabetes(return_X_y=True)
    B = np.column_stack([X[:, j] <= q for j in range(X.shape[1])
                         for q in np.quantile(X[:, j], [0.25, 0.5, 0.75])]).astype(float)
    pairs = FastSmallTreeRegressor(0.01, max_depth=3).fit(B, y)
    # a third value in one row of every column leaves the binary splits as
    # they were and adds one split each, so the column passes run
    B3 = B.copy()
    B3[0] = np.where(B3[0] > 0, 2.0, -1.0)
    passes = FastSmallTreeRegressor(0.01, max_depth=3).fit(B3, y)
    assert pairs.optimal_ and passes.optimal_
    assert pairs.search_stats_["column_passes"] < passes.search_stats_["column_passes"] / 10
    assert pairs.objective_ <= passes.objective_ + 1e-12


# ------------------------------------------- the general search (no max_depth)

# The rules the general search applies under squared error (`SQUARES_RULES`):
# "support" drops a split with a side whose rows' worst added error is below
# lam and settles a node of less than 2 lam of them, "worth" sets aside a split
# with a side proved above its worst, "superset" bounds a node by its
# children, "exchange" and "transfer" compare a column's thresholds,
# "equivalent" is the floor of groups of identical rows, "leaf_budget" closes
# a node whose two-leaf trees reach three leaves' price.
GENERAL_RULES = ("support", "equivalent", "exchange", "transfer", "leaf_budget",
                 "superset", "worth")

# Its three ways into a fit without max_depth: a first run before the engine
# (the classifier's, a test hook here: the general search unseeded); the engine
# by leaf budget to depth one, then the general search seeded with its tree;
# and the engine alone (as on continuous columns).
GENERAL_ROUTES = {
    "first_run": {"general_search": True, "leaf_budget_probe": True},
    "seeded": {"general_search": True, "leaf_budget_probe": False, "leaf_budget_depth": 1},
    "engine": {"general_search": False},
}

# The problems without a depth cap or a leaf cap (the general search's).
_UNCAPPED = [s for s in range(60) if _problem(s)[3] is None and _problem(s)[6] is None]


@pytest.mark.parametrize("route", sorted(GENERAL_ROUTES))
@pytest.mark.parametrize("seed", _UNCAPPED)
def test_the_general_search_matches_brute_force(seed, route):
    reg = _check(seed, GENERAL_ROUTES[route])
    engine = reg.search_stats_["engine"]
    assert engine == ("depth" if route == "engine" else "general") or (
        route == "seeded" and reg.search_stats_["leaf_budget"]["certified"])


def test_the_general_search_problems_are_not_vacuous():
    """Several of them are searched by the general search after the engine,
    and several optima hold three leaves or more."""
    regs = [_check(s, GENERAL_ROUTES["seeded"]) for s in _UNCAPPED]
    assert sum(r.search_stats_["engine"] == "general" for r in regs) >= 5
    assert sum(r.n_leaves_ >= 3 for r in regs) >= 4


@pytest.mark.parametrize("combo", [c if c % 16 == 5 else pytest.param(c, marks=pytest.mark.slow)
                                   for c in range(1 << (len(GENERAL_RULES) + 1))])
def test_the_general_search_in_every_rule_combination(combo):
    """Each of its rules off or on, seeded by the engine or by itself: the brute
    force's optimum on three problems a combination (each problem in several)."""
    rules = [name for i, name in enumerate(GENERAL_RULES) if combo >> i & 1]
    route = GENERAL_ROUTES["seeded" if combo >> len(GENERAL_RULES) & 1 else "first_run"]
    for k in range(3):
        seed = _UNCAPPED[(combo * 3 + k) % len(_UNCAPPED)]
        _check(seed, dict(route, rules=rules))


def _binned(n=300, p=4, seed=0):
    """A regression on binned columns (8 bins a column, one-hot thresholds):
    the general search's domain."""
    X, y = make_friedman1(n_samples=n, n_features=max(p, 5), noise=1.0, random_state=seed)
    X = np.floor(X[:, :p] * 6) / 6
    return X, y


def test_binned_columns_take_the_general_search_and_agree_with_the_engine():
    X, y = _binned()
    for lam in (0.1, 0.05):
        gen = FastSmallTreeRegressor(lam).fit(X, y)
        eng = FastSmallTreeRegressor(lam)
        eng._overrides = {"general_search": False}
        eng.fit(X, y)
        assert gen.search_stats_["engine"] == "general"
        assert eng.search_stats_["engine"] == "depth"
        assert gen.optimal_ and eng.optimal_
        assert gen.objective_ == pytest.approx(eng.objective_, abs=1e-9)
        assert gen.objective_ == pytest.approx(rescore(gen, X, y, lam), abs=1e-9)
    # where the engine alone does not certify within the time limit
    reg = FastSmallTreeRegressor(0.02).fit(X, y)
    assert reg.optimal_ and reg.search_stats_["engine"] == "general"
    assert reg.objective_ == pytest.approx(rescore(reg, X, y, 0.02), abs=1e-9)
    # continuous columns keep the engine alone
    Xc, yc = make_friedman1(n_samples=200, noise=1.0, random_state=0)
    assert FastSmallTreeRegressor(0.2).fit(Xc, yc).search_stats_["engine"] == "depth"


@pytest.mark.parametrize("route", ["first_run", "seeded"])
def test_a_stopped_general_search_keeps_a_valid_bound(route):
    """Stopped after little work (its first run's, or after the engine), the fit
    returns a re-scored tree no better than the optimum and a bound no
    higher."""
    X, y = _binned(n=120, p=4, seed=3)
    lam = 0.01
    full = FastSmallTreeRegressor(lam, time_limit=None)
    full._overrides = {"general_search": True}
    full.fit(X, y)
    assert full.optimal_
    for work in (2000, 20000, 200000):
        reg = FastSmallTreeRegressor(lam, time_limit=None)
        reg._overrides = dict(GENERAL_ROUTES[route], work_limit=work, leaf_budget_depth=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotCertifiedWarning)
            reg.fit(X, y)
        assert reg.objective_ == pytest.approx(rescore(reg, X, y, lam), abs=1e-9)
        assert reg.objective_ >= full.objective_ - 1e-9
        assert reg.lower_bound_ <= full.objective_ + 1e-9
        assert reg.optimal_ == (reg.status_ == "optimal")
        if not reg.optimal_:
            assert reg.status_ == "time_limit"
            assert reg.gap_ == pytest.approx(reg.objective_ - reg.lower_bound_)


@pytest.mark.parametrize("seed", _UNCAPPED[:6])
def test_the_general_search_returns_the_same_tree_on_threads(seed):
    """One, two and three threads (each a share of the root's splits, their
    stores apart): the brute force's optimum and the same tree."""
    trees = []
    for n_jobs in (1, 2, 3):
        reg = _check(seed, GENERAL_ROUTES["seeded"], n_jobs=n_jobs)
        t = reg.estimator_.tree_
        trees.append((t.feature.tolist(), t.threshold.tolist(), t.value.ravel().tolist()))
    assert trees[0] == trees[1] == trees[2]


@pytest.mark.parametrize("seed", _UNCAPPED[:8])
def test_the_general_search_s_tree_depends_on_neither_row_order_nor_store_size(seed):
    """The rows permuted (weights with them) or the store started at four
    slots: the same certified tree."""
    X, y, lam, depth, w, ml, k = _problem(seed)
    base = _check(seed, GENERAL_ROUTES["seeded"])
    small = _check(seed, dict(GENERAL_ROUTES["seeded"], memo_capacity=4))
    perm = np.random.default_rng(seed).permutation(len(y))
    moved = FastSmallTreeRegressor(regularization=lam, min_samples_leaf=ml, time_limit=None)
    moved._overrides = dict(GENERAL_ROUTES["seeded"])
    moved.fit(X[perm], y[perm], sample_weight=None if w is None else w[perm])
    assert moved.optimal_
    for other in (small, moved):
        a, b = base.estimator_.tree_, other.estimator_.tree_
        assert a.feature.tolist() == b.feature.tolist()
        assert np.allclose(a.threshold, b.threshold) and np.allclose(a.value, b.value)


def test_the_general_search_s_nodes_hold_their_rows_losses_and_floors():
    """The store's record of a node under squared error: its leaf is its rows'
    weighted squared error (scaled) plus lam, its floor at most its groups'
    errors and within rounding of them, its potential its rows' worst added
    errors (over its own target range or its parent's, which holds it), as the
    root and the children of every root split show."""
    from fst._core._problem import squares_problem
    from fst._core._solver import Search
    from fst._core._config import make_config
    from fst._engine import engine_space, _row_groups
    from fst._core._columns import row_groups
    rng = np.random.default_rng(5)
    n = 90
    X = rng.integers(0, 3, size=(n, 3)).astype(np.float32)
    z = rng.normal(size=n) + X[:, 0]
    w = rng.uniform(0.5, 2.0, size=n)
    space = engine_space(X, np.zeros(n, dtype=np.int32), 1, np.zeros((1, 1)))
    scale = np.sum(w * (z - np.average(z, weights=w)) ** 2)
    target = z / np.sqrt(scale)
    lam = 0.01
    problem = squares_problem(space.row_rank, space.col_order, space.split_col,
                              space.col_start, target, w, _row_groups(space))
    search = Search(problem, make_config({}, regularization=lam, max_depth=None))
    search.set_work_limit(1)      # the root and its splits' children only
    search.run()
    group = row_groups(space.row_rank, space.n_ranks)

    def words(rows):
        bits = np.zeros(((n + 63) // 64) * 64, dtype=bool)
        bits[rows] = True
        return np.packbits(bits, bitorder="little").view("<u8").copy()

    def worst(rows, over):
        t, lo, hi = target[rows], target[over].min(), target[over].max()
        return np.sum(w[rows] * np.maximum(t - lo, hi - t) ** 2)

    def check(rows):
        rec = search._lookup(words(rows))
        if rec is None:
            return 0
        # a child's potential is read over its parent's (the root's) range
        assert worst(rows, rows) - 1e-9 <= rec["pot"] <= worst(rows, np.arange(n)) + 1e-9
        t, ww, g = target[rows], w[rows], group[rows]
        mean = np.average(t, weights=ww)
        assert rec["leaf"] == pytest.approx(np.sum(ww * (t - mean) ** 2) + lam, abs=1e-12)
        floor = sum(np.sum(ww[g == k] * (t[g == k] - np.average(t[g == k], weights=ww[g == k])) ** 2)
                    for k in np.unique(g))
        assert floor - 1e-6 <= rec["floor"] <= floor + 1e-12
        assert rec["count"] == len(rows)
        return 1

    assert check(np.arange(n)) == 1
    seen = 0
    for s in range(space.n_splits):
        col = space.split_col[s]
        left = space.row_rank[col] <= s - space.col_start[col]
        seen += check(np.flatnonzero(left)) + check(np.flatnonzero(~left))
    assert seen >= 2


def test_the_general_search_runs_where_its_keys_and_bitsets_stay_small():
    """Binary or binned columns only, and bounded rows, thresholds and cells."""
    from fst._spaces import (SQUARES_MAX_CELLS, SQUARES_MAX_ROWS, SQUARES_MAX_SPLITS,
                             squares_general_pays)
    assert squares_general_pays(442, 46, 46)
    assert squares_general_pays(5000, 7 * 50, 50)
    assert not squares_general_pays(442, 8 * 10, 10)          # continuous
    assert not squares_general_pays(SQUARES_MAX_ROWS + 1, 10, 10)
    assert not squares_general_pays(1000, SQUARES_MAX_SPLITS + 1, 20000)
    assert not squares_general_pays(SQUARES_MAX_CELLS // 100 + 1, 100, 100)


def _one_split_problem(seed):
    """Up to 17 rows of one to five 0/1 columns (some with NaN for the 1, a
    constant one on every seventh seed): the general search's one-split
    columns, which it passes row by row (each row adding to the columns whose
    split sends it left)."""
    rng = np.random.default_rng(18000 + seed)
    n = int(rng.integers(6, 18))
    p = int(rng.integers(1, 6))
    X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(float)
    if seed % 5 == 0:
        X[X == 1.0] = np.nan                 # a column of 0 and NaN: one split
    if seed % 7 == 0:
        X[:, 0] = 1.0
    y = 2.0 * np.nan_to_num(X[:, 0], nan=1.0) + rng.normal(size=n)
    if seed % 4 == 1:
        y = np.round(y)
    w = _weights(seed, n)
    return X, y, [0.01, 0.03, 0.1][seed % 3], w, 2 if seed % 5 == 4 else 1


@pytest.mark.parametrize("seed", range(48))
def test_the_general_search_on_binary_columns_matches_brute_force(seed):
    """Its first run and its search seeded by the engine, each rule on or off
    by the seed: the brute force's optimum, the tree re-scored."""
    X, y, lam, w, ml = _one_split_problem(seed)
    expected = optimal_regression(X, y, lam, None, weights=w, min_leaf=ml)
    rules = [name for i, name in enumerate(GENERAL_RULES) if seed >> i & 1]
    for route in ("first_run", "seeded"):
        reg = FastSmallTreeRegressor(lam, min_samples_leaf=ml, time_limit=None)
        reg._overrides = dict(GENERAL_ROUTES[route], rules=rules)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.simplefilter("ignore", ConstantTreeWarning)
            reg.fit(X, y, sample_weight=w)
        assert reg.optimal_, (seed, route)
        assert reg.objective_ == pytest.approx(expected, abs=1e-9), (seed, route)
        assert rescore(reg, X, y, lam, w) == pytest.approx(expected, abs=1e-9)


def test_the_binary_problems_are_not_vacuous():
    """Most of them reach the general search after the engine's depth one, and
    several optima hold three leaves or more."""
    regs = []
    for seed in range(48):
        X, y, lam, w, ml = _one_split_problem(seed)
        reg = FastSmallTreeRegressor(lam, min_samples_leaf=ml, time_limit=None)
        reg._overrides = dict(GENERAL_ROUTES["seeded"])
        regs.append(reg.fit(X, y, sample_weight=w))
    assert sum(r.search_stats_["engine"] == "general" for r in regs) >= 24
    assert sum(r.n_leaves_ >= 3 for r in regs) >= 8


def test_ties_give_one_tree_whatever_the_route():
    """Integer targets make trees of equal loss and leaves common: the canonical
    tree (fewest leaves, then the split order) is the same whichever search
    finds it — the engine by leaf budget then the general search seeded with
    its tree (the default), the general search after a shallower engine, the
    engine alone, the engine under a leaf cap that does not bind, and the
    engine under max_depth at the tree's depth.  (The seed's own tree is not
    taken for the canonical one: a tie deeper than the engine searched may
    come first in the split order.)"""
    rng = np.random.RandomState(11)
    differ = compared = 0
    for _ in range(40):
        n, p = rng.randint(8, 40), rng.randint(2, 5)
        X = rng.randint(0, 3, (n, p)).astype(float)
        y = rng.randint(0, 3, n).astype(float) + (X[:, 0] > 0)
        lam = float(rng.choice([0.005, 0.01, 0.02, 0.05]))
        routes = [({}, {}), ({}, {"leaf_budget_depth": 1}), ({}, {"general_search": False}),
                  ({"max_leaf_nodes": 64}, {"cap_probe": False})]
        fits = []
        for params, overrides in routes:
            reg = FastSmallTreeRegressor(regularization=lam, time_limit=None, **params)
            reg._overrides = overrides
            fits.append(reg.fit(X, y))
        fits.append(FastSmallTreeRegressor(regularization=lam, time_limit=None,
                                           max_depth=max(fits[0].get_depth(), 1)).fit(X, y))
        first = fits[0]
        assert first.optimal_
        for other in fits[1:]:
            if other.status_ == "search_limit":
                # the engine alone, whose leaf budget needs more than its 16 levels
                continue
            assert other.optimal_
            compared += 1
            assert other.objective_ == pytest.approx(first.objective_, abs=1e-9)
            for attr in ("feature", "threshold", "children_left", "children_right"):
                np.testing.assert_array_equal(getattr(first.estimator_.tree_, attr),
                                              getattr(other.estimator_.tree_, attr))
        differ += fits[0].get_depth() > 4
    # (trees deeper than the engine's stage before the general search, where
    # the seed's own tree could differ)
    assert differ >= 4 and compared >= 130, (differ, compared)
