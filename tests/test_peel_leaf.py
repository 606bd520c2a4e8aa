"""A leaf beside a subtree (`_bounds.leaf_beside_only`, RULE_PEEL_LEAF): a node of
the depth-limited engine capped at one leaf more than its depth is searched as
its optimum of one depth less, then as the trees whose root has a leaf child,
that leaf priced from its column's counts before any search.  Against brute
force and node for node against the same fit with the rule off, on problems
where it is used: under max_leaf_nodes = max_depth + 1, by leaf budget without
max_depth, with weights, min_samples_leaf and squared error, with threads; a
stopped fit's bound stays below the optimum; every tree re-scored from the raw
data."""
import functools
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier, FastSmallTreeRegressor
from fst.exceptions import NotCertifiedWarning
from oracle import (continuous_problem, optimal_objective, optimal_regression, problem_cost,
                    regression_problem, rescore, sample_weights, unbounded_problem)


def _problem(kind, seed):
    """(X, y, cost, lam, max_depth, max_leaf_nodes, weights, min_leaf): `capped`
    is a continuous problem at depth 2 to 4 under a cap of one leaf more;
    `capped2` of two leaves more (the nodes below the root reach the rule where
    their budget lowers their cap); `unbounded` one without a depth cap (the leaf
    budget's deepening); weights on every third seed, min_samples_leaf 2 on
    every fifth."""
    if kind in ("capped", "capped2"):
        X, y, cost, lam, _ = continuous_problem((9000 if kind == "capped" else 9100) + seed)
        depth = 2 + seed % 3
        cap = depth + (1 if kind == "capped" else 2)
    else:
        X, y, cost, lam = unbounded_problem(9000 + seed)
        depth = cap = None
    w = sample_weights(seed, y) if seed % 3 == 2 else None
    return X, y, cost, lam, depth, cap, w, 2 if seed % 5 == 4 else 1


@functools.lru_cache(maxsize=None)
def _expected(kind, seed):
    X, y, cost, lam, depth, cap, w, ml = _problem(kind, seed)
    y_idx, full = problem_cost(y, cost)
    return optimal_objective(X, y_idx, full, lam, depth, weights=w, min_leaf=ml,
                             max_leaves=cap), y_idx, full


def _fit(kind, seed, rules_off=(), n_jobs=1, work_limit=None):
    X, y, cost, lam, depth, cap, w, ml = _problem(kind, seed)
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=depth,
                                  max_leaf_nodes=cap, min_samples_leaf=ml, n_jobs=n_jobs,
                                  time_limit=None)
    # test hook: the engine first without a depth cap or under a leaf cap (the
    # general search's short run would certify these small problems before it)
    clf._overrides = {"rules_off": list(rules_off), "leaf_budget_probe": False,
                      "cap_probe": False}
    if work_limit is not None:
        clf._overrides["work_limit"] = work_limit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        clf.fit(X, y, sample_weight=w)
    return clf


def _peel_nodes(clf):
    """The nodes the engine solved by the rule (0 where the general search's
    statistics are the fit's)."""
    return clf.search_stats_.get("peel_nodes", 0)


def _check(kind, seed, clf):
    X, y, cost, lam, depth, cap, w, ml = _problem(kind, seed)
    expected, y_idx, full = _expected(kind, seed)
    assert clf.optimal_, (kind, seed)
    assert clf.objective_ == pytest.approx(expected, abs=1e-9), (kind, seed)
    assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)
    assert cap is None or clf.n_leaves_ <= cap


def _same_tree(a, b):
    for attr in ("feature", "threshold", "children_left", "children_right", "value"):
        np.testing.assert_array_equal(getattr(a.estimator_.tree_, attr),
                                      getattr(b.estimator_.tree_, attr))


@pytest.mark.parametrize("seed", range(36))
@pytest.mark.parametrize("kind", ["capped", "capped2", "unbounded"])
def test_the_rule_gives_the_optimum_and_the_tree_of_the_search_without_it(kind, seed):
    on = _fit(kind, seed)
    _check(kind, seed, on)
    off = _fit(kind, seed, rules_off=["peel_leaf"])
    _check(kind, seed, off)
    assert _peel_nodes(off) == 0
    _same_tree(on, off)
    if seed % 4 == 1:
        # three engines at the root take its columns: the serial tree
        _same_tree(on, _fit(kind, seed, n_jobs=3))


def test_the_rule_is_used_on_these_problems():
    """The problems above are not vacuous: the rule solves nodes, the root among
    them, in many of them (with and without nested-set bounds, min_leaf)."""
    for kind in ("capped", "capped2", "unbounded"):
        used = [seed for seed in range(36) if _peel_nodes(_fit(kind, seed)) > 0]
        assert len(used) >= 8, (kind, used)
        assert any(seed % 5 == 4 for seed in used), (kind, used)


@pytest.mark.parametrize("seed", range(0, 36, 2))
@pytest.mark.parametrize("kind", ["capped", "capped2", "unbounded"])
def test_a_stopped_fit_keeps_a_valid_bound(kind, seed):
    """Stopped after 1 to 64 units of the engine's work: the bound never exceeds
    the optimum, the tree re-scores to the objective reported."""
    X, y, cost, lam, depth, cap, w, ml = _problem(kind, seed)
    expected, y_idx, full = _expected(kind, seed)
    for work in (1, 3, 9, 27, 64):
        clf = _fit(kind, seed, work_limit=work)
        assert clf.lower_bound_ <= expected + 1e-9, (seed, work)
        assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(clf.objective_,
                                                                     abs=1e-9)


def _regression(seed):
    X, y, lam, _ = regression_problem(9500 + seed)
    depth = 2 + seed % 3
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.2, 2.0, size=len(y)) if seed % 3 == 2 else None
    return X, y, lam, depth, w


@pytest.mark.parametrize("seed", range(24))
def test_squared_error_gives_the_optimum_and_the_same_tree(seed):
    """The regressor under max_leaf_nodes = max_depth + 1: the brute force's
    optimum with the rule on and off, the same tree."""
    X, y, lam, depth, w = _regression(seed)
    expected = optimal_regression(X, y, lam, depth, weights=w, max_leaves=depth + 1)
    fits = []
    for off in ([], ["peel_leaf"]):
        reg = FastSmallTreeRegressor(regularization=lam, max_depth=depth,
                                     max_leaf_nodes=depth + 1, time_limit=None)
        reg._overrides = {"rules_off": off, "cap_probe": False}   # (the engine's rule)
        reg.fit(X, y, sample_weight=w)
        assert reg.optimal_
        assert reg.objective_ == pytest.approx(expected, abs=1e-9), seed
        fits.append(reg)
    _same_tree(*fits)


@pytest.mark.parametrize("seed", range(0, 24, 4))
def test_a_squared_error_root_stopped_anywhere_keeps_a_valid_bound(seed):
    """The regressor's root capped one leaf above its depth, stopped after
    every unit of work: the bound (its open columns' leaf-beside bounds among
    them) never exceeds the optimum, and the tree returned re-scores to its
    objective."""
    from test_regressor import rescore as rescore_squares
    X, y, lam, depth, w = _regression(seed)
    expected = optimal_regression(X, y, lam, depth, weights=w, max_leaves=depth + 1)

    def fit(work=0):
        reg = FastSmallTreeRegressor(regularization=lam, max_depth=depth,
                                     max_leaf_nodes=depth + 1, time_limit=None)
        # (the engine's root: no first run of the general search before it)
        reg._overrides = {"work_limit": work, "cap_probe": False}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotCertifiedWarning)
            return reg.fit(X, y, sample_weight=w)

    whole = fit()
    assert whole.optimal_
    total = whole.search_stats_["nodes"] + whole.search_stats_["evaluations"]
    for work in range(1, total + 2):
        reg = fit(work)
        assert reg.lower_bound_ <= expected + 1e-9, (seed, work)
        assert rescore_squares(reg, X, y, lam, w) == pytest.approx(reg.objective_, abs=1e-9)


@pytest.mark.parametrize("seed", range(0, 36, 3))
def test_a_root_stopped_at_any_point_of_its_columns_keeps_a_valid_bound(seed):
    """The root at the fit's depth capped one leaf above it bounds its open columns
    by their splits' leaf-beside bounds (`_depth._peel_order`): stopped after every
    unit of work of that search, the bound never exceeds the optimum and the tree
    re-scores."""
    kind = "capped"
    X, y, cost, lam, depth, cap, w, ml = _problem(kind, seed)
    expected, y_idx, full = _expected(kind, seed)
    whole = _fit(kind, seed)
    total = whole.search_stats_["nodes"] + whole.search_stats_["evaluations"]
    for work in range(1, total + 2):
        clf = _fit(kind, seed, work_limit=work)
        assert clf.lower_bound_ <= expected + 1e-9, (seed, work)
        assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(clf.objective_,
                                                                     abs=1e-9)


@pytest.mark.slow
def test_the_bound_rises_while_the_root_s_columns_close(monkeypatch, capsys):
    """The progress lines of a search whose root at the fit's depth is a leaf
    beside a subtree (2000 rows of 32 continuous columns, max_leaf_nodes =
    max_depth + 1): its columns
    are taken the least bound first, so the bound rises as they close (without
    that order it stays at the least column's bound until the search ends), never
    above the optimum, and reaches it."""
    import re

    import fst._utils as fc
    from sklearn.datasets import make_classification

    monkeypatch.setattr(fc, "PROGRESS_SECONDS", 0.1)
    X, y = make_classification(2000, n_features=32, n_informative=5, n_redundant=1,
                               flip_y=0.05, class_sep=0.8, random_state=0)
    clf = FastSmallTreeClassifier(regularization=0.0, max_depth=3, max_leaf_nodes=4,
                                  time_limit=None, verbose=2).fit(X, y)
    assert clf.optimal_
    lines = [(float(low), float(best)) for low, best in re.findall(
        r"\[fst\] +[0-9.]+ s  lower bound ([0-9.]+)  best ([0-9.]+)",
        capsys.readouterr().out)]
    optimum = round(clf.objective_, 6)     # (as the lines print it)
    assert all(low <= optimum for low, _ in lines)
    # the lines once the best is the optimum
    last = [low for low, best in lines if best <= optimum]
    assert len(last) >= 5
    assert all(a <= b for a, b in zip(last, last[1:]))
    rising = sorted(set(low for low in last if low < optimum))
    assert len(rising) >= 3, rising


@pytest.mark.parametrize("seed", range(0, 36, 3))
def test_a_root_run_against_budgets_proves_bounds_at_most_its_optimum(seed):
    """The root of depth D under a cap of D + 1 leaves (searched as a leaf
    beside a subtree, its seed its certified optimum of depth D - 1), run
    against budgets below and above its optimum (`DepthSearch.run(budget)`,
    with its rule and without): each run either finds the optimum within the
    budget or proves a bound above the budget and at most the optimum, the
    bounds its leaf-beside nodes of depth two prove with their passes'
    budgets (`peel_pass_budget`) among them."""
    from fst._core._config import make_config
    from fst._core._depth_search import DepthSearch
    from fst._engine import engine_space

    X, y, cost, _, _ = continuous_problem(9200 + seed)
    _, full = problem_cost(y, cost)
    space = engine_space(np.ascontiguousarray(X, dtype=np.float32), y, full.shape[0], full)
    args = (space.row_rank, space.col_order, space.col_start, space.y, space.cost)
    proven = 0
    for depth in (2, 3):
        for rules_off in ([], ["peel_leaf"]):
            config = make_config({"rules_off": rules_off}, regularization=0.0,
                                 max_leaves=depth + 1)
            shallow = DepthSearch(*args, config, depth - 1)
            shallow.run()
            exact = DepthSearch(*args, config, depth)
            exact.seed(shallow.upper_bound, shallow.tree(), exact=True)
            exact.run()
            assert shallow.solved and exact.solved
            optimum = exact.upper_bound
            for gap in (0.5, 0.2, 0.1, 0.05, 0.02, 0.0, -0.02):
                budget = optimum - gap * optimum
                s = DepthSearch(*args, config, depth)
                s.seed(shallow.upper_bound, shallow.tree(), exact=True)
                s.run(budget)
                if s.above_budget is None:
                    assert budget >= optimum - 1e-9 and s.solved
                    assert s.upper_bound == pytest.approx(optimum, abs=1e-9)
                else:
                    assert budget <= s.above_budget <= optimum + 1e-9, (depth, gap)
                    proven += s.above_budget > budget + 0.5 * gap * optimum
    assert proven > 0
