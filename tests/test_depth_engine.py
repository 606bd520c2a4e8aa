"""The depth-limited engine (fst/_core/_depth.pyx): exact against brute force in
every switch combination of its rules, with costs, weights and NaN; every tree
re-scored from the raw data; stops return a valid tree and bound; no threshold is
ever dropped; results do not depend on row order."""
import hashlib
import itertools
import re
import time
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from fst._core import _config
from fst.exceptions import ConstantTreeWarning, NotCertifiedWarning
from oracle import (continuous_problem, optimal_objective, random_problem, rescore,
                    sample_weights)

# the engine's rules: the loss floor, the neighbour and moved-rows bounds, the
# interval and superset bounds, leaf support, the leaf budget's depth, a leaf
# beside a subtree
ENGINE_RULES = (_config.RULES["equivalent"], _config.RULES["exchange"],
                _config.RULES["transfer"], _config.RULES["support"],
                _config.RULES["leaf_budget"], _config.RULES["peel_leaf"])
# the combinations of the rule bits in the tests below
THREADS_BIT = 1 << len(ENGINE_RULES)


def combos(n):
    """Combinations 0 .. n - 1 of the rule bits; the fast tier runs a quarter of
    them (every rule off or on in some), the slow tier every one."""
    return [c if c % 4 == 0 else pytest.param(c, marks=pytest.mark.slow) for c in range(n)]


def engines(combo):
    """One engine or three (the parallel root) for a combination of the rules:
    three where an odd number of rules is on, so that each rule is met on and
    off with either."""
    return 3 if bin(combo).count("1") % 2 else 1


# The brute-force optima, computed once per problem in a test run: the rule
# combinations (32 of them, three tests) share the same problems.
_EXPECTED = {}


def _expected(X, y, cost, lam, depth, w=None):
    key = hashlib.sha1(b"".join(
        np.ascontiguousarray(a).tobytes() + b"|" for a in (X, y, cost, w)
        if a is not None)).hexdigest(), cost is None, w is None, lam, depth
    if key not in _EXPECTED:
        classes, y_idx = np.unique(y, return_inverse=True)
        K = len(classes)
        full = ((np.ones((K, K)) - np.eye(K)) if cost is None
                else cost[np.ix_(classes, classes)])
        _EXPECTED[key] = optimal_objective(X, y_idx, full, lam, depth, weights=w), y_idx, full
    return _EXPECTED[key]


def _fit(X, y, cost, lam, depth, rules=_config.ALL_RULES, w=None, **params):
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=depth,
                                  **params)
    clf._overrides = {"depth_engine": True, "rules": rules}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.fit(X, y, sample_weight=w)
    return clf


def _check(X, y, cost, lam, depth, rules=_config.ALL_RULES, w=None, n_jobs=1):
    expected, y_idx, full = _expected(X, y, cost, lam, depth, w)
    clf = _fit(X, y, cost, lam, depth, rules, w, n_jobs=n_jobs)
    assert clf.optimal_
    assert clf.search_stats_["engine"] == "depth"
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)
    assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    assert clf.estimator_.get_depth() <= depth
    return clf


@pytest.mark.parametrize("seed", range(120))
def test_engine_matches_brute_force(seed):
    X, y, cost, lam, depth = random_problem(seed)
    _check(X, y, cost, lam, depth if depth is not None else 1 + seed % 4)


@pytest.mark.parametrize("seed", range(60))
def test_engine_matches_brute_force_on_continuous_columns(seed):
    X, y, cost, lam, depth = continuous_problem(seed)
    _check(X, y, cost, lam, depth if depth is not None else 3)


@pytest.mark.parametrize("seed", range(40))
def test_engine_matches_brute_force_with_sample_weights(seed):
    X, y, cost, lam, depth = random_problem(3000 + seed)
    _check(X, y, cost, lam, depth if depth is not None else 2, w=sample_weights(seed, y))


@pytest.mark.parametrize("lam", [0.0, 0.02])
@pytest.mark.parametrize("seed", range(20))
def test_engine_at_zero_regularization_and_nan(seed, lam):
    """lam = 0 (the exact depth-limited problem) on columns with NaN."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(14, 3)).astype(float)
    X[rng.random(X.shape) < 0.15] = np.nan
    y = rng.integers(0, 2 + seed % 2, size=14)
    _check(X, y, None, lam, 1 + seed % 3)


def _combo_problems():
    for seed in range(0, 40, 3):
        X, y, cost, lam, depth = random_problem(seed)
        yield X, y, cost, lam, depth if depth is not None else 2 + seed % 2, None
    for seed in range(0, 30, 3):
        X, y, cost, lam, depth = continuous_problem(seed)
        yield X, y, cost, lam, depth if depth is not None else 3, None
    for seed in range(0, 12, 3):
        # every row its own real weight: the engine's class sums of weights
        X, y, cost, lam, depth = continuous_problem(500 + seed)
        w = np.random.default_rng(seed).random(len(y)) * 2
        yield X, y, cost, lam, depth if depth is not None else 2 + seed % 2, w


@pytest.mark.parametrize("combo", combos(THREADS_BIT))
def test_engine_every_rule_combination_matches_brute_force(combo):
    """Each of the engine's rules (loss floor; neighbour and moved-rows bounds;
    interval and superset bounds; leaf support; leaf budget; a leaf beside a
    subtree) switched off or on, and the
    parallel root's (engines taking columns, the shared value's prune) off (one
    thread) or on (three, `engines`): the same optimum, and the same tree for both."""
    rules = _config.ALL_RULES
    for i, bit in enumerate(ENGINE_RULES):
        if not combo >> i & 1:
            rules &= ~bit
    n_jobs = engines(combo)
    for X, y, cost, lam, depth, w in _combo_problems():
        clf = _check(X, y, cost, lam, depth, rules, w=w, n_jobs=n_jobs)
        if n_jobs > 1:
            _same_tree(clf, _fit(X, y, cost, lam, depth, rules, w=w))


def _same_tree(a, b):
    assert a.objective_ == b.objective_ and a.lower_bound_ == b.lower_bound_
    for attr in ("feature", "threshold", "children_left", "children_right", "value"):
        np.testing.assert_array_equal(getattr(a.estimator_.tree_, attr),
                                      getattr(b.estimator_.tree_, attr))


@pytest.mark.parametrize("seed", range(60))
def test_engine_threads_give_the_serial_tree(seed):
    """Two and four engines at the root: the oracle's optimum and the very tree of
    one (ties between root splits are common on these few distinct values)."""
    X, y, cost, lam, depth = continuous_problem(seed)
    depth = depth if depth is not None else 2 + seed % 2
    one = _check(X, y, cost, lam, depth)
    for n_jobs in (2, 4):
        _same_tree(_check(X, y, cost, lam, depth, n_jobs=n_jobs), one)


def test_engine_time_limit_stops_every_engine():
    X, y = _hard_continuous()
    clf = FastSmallTreeClassifier(regularization=0.0, max_depth=4, time_limit=0.3, n_jobs=2)
    clf._overrides = {"depth_engine": True}
    t0 = time.perf_counter()
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y)
    assert time.perf_counter() - t0 < 3.0
    assert clf.status_ == "time_limit" and not clf.optimal_
    _, y_idx = np.unique(y, return_inverse=True)
    assert rescore(clf, X, y_idx, 1 - np.eye(2), 0.0) == pytest.approx(clf.objective_)
    assert clf.lower_bound_ <= clf.objective_


def test_engine_agrees_with_the_bitset_search():
    """On a continuous problem too large for brute force, both searches certify
    the same optimum at depth 2 and 3."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=200) > 0.4).astype(int)
    for depth in (2, 3):
        for lam in (0.0, 0.01):
            a = _fit(X, y, None, lam, depth)
            b = FastSmallTreeClassifier(regularization=lam, max_depth=depth)
            b._overrides = {"depth_engine": False}
            b.fit(X, y)
            assert a.optimal_ and b.optimal_
            assert a.objective_ == pytest.approx(b.objective_, abs=1e-9)


def test_engine_keeps_every_threshold():
    """Thousands of distinct values a column: the engine searches all of them."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4000, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    clf = _fit(X, y, None, 0.0, 2)
    assert clf.optimal_
    assert clf.search_stats_["n_splits_searched"] == clf.search_stats_["n_splits"]
    X32 = X.astype(np.float32)
    assert clf.search_stats_["n_splits"] == sum(len(np.unique(X32[:, j])) - 1
                                                for j in range(3))


def test_engine_does_not_depend_on_row_order():
    X, y, cost, lam, _ = continuous_problem(5)
    perm = np.random.default_rng(0).permutation(len(y))
    a = _fit(X, y, cost, lam, 3)
    b = _fit(X[perm], y[perm], cost, lam, 3)
    assert a.objective_ == b.objective_
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def _hard_continuous():
    """3,000 rows of 6 continuous columns, far from done at depth 4 in a second."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 6))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=3000) > 0).astype(int)
    return X, y


def test_engine_time_limit_returns_a_valid_tree():
    """A stop returns the best tree found, re-scored, with a bound below it."""
    X, y = _hard_continuous()
    clf = FastSmallTreeClassifier(regularization=0.0, max_depth=4, time_limit=0.05)
    clf._overrides = {"depth_engine": True}
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y)
    assert not clf.optimal_
    assert clf.status_ == "time_limit"
    assert clf.estimator_.get_depth() <= 4
    _, y_idx = np.unique(y, return_inverse=True)
    assert rescore(clf, X, y_idx, 1 - np.eye(2), 0.0) == pytest.approx(clf.objective_)
    assert clf.lower_bound_ <= clf.objective_


def test_max_depth_on_continuous_columns_goes_to_the_engine_and_keeps_every_threshold():
    """Under max_depth, continuous columns go to the engine, even where the row
    bitsets of every threshold would not fit (the bitset search would then search
    row quantiles only, uncertified); binary columns stay with the bitset search."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(500, 3))
    y = (X[:, 0] + X[:, 1] > 0.2).astype(int)
    clf = FastSmallTreeClassifier(regularization=0.0, max_depth=2)
    clf._overrides = {"split_bytes": 1000}     # test hook: room for a few bitsets
    clf.fit(X, y)
    assert clf.optimal_ and clf.search_stats_.get("engine") == "depth"
    assert clf.search_stats_["n_splits_searched"] == clf.search_stats_["n_splits"]
    Xb = (X > 0).astype(float)
    clf = FastSmallTreeClassifier(regularization=0.01, max_depth=2).fit(Xb, y)
    assert clf.optimal_ and clf.search_stats_["engine"] == "general"


def test_engine_results_do_not_depend_on_n_jobs():
    """Depth-one passes large enough to run their columns on threads give the
    same tree as one thread."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60_000, 5))
    y = ((X[:, 0] > 0.1) ^ (X[:, 1] * X[:, 3] > 0.2) | (rng.random(60_000) < 0.1)).astype(int)
    fits = [_fit(X, y, None, 0.0, 2, n_jobs=n_jobs) for n_jobs in (1, 2)]
    assert fits[0].optimal_ and fits[1].optimal_
    assert fits[0].objective_ == fits[1].objective_
    for a in ("feature", "threshold", "children_left"):
        np.testing.assert_array_equal(getattr(fits[0].estimator_.tree_, a),
                                      getattr(fits[1].estimator_.tree_, a))


def _depth_one_errors(x_cols, y, rows):
    """Fewest errors of a depth-one tree (or a leaf) on `rows`: every threshold of
    every column, enumerated directly."""
    yr = y[rows]
    best = min(np.sum(yr == 0), np.sum(yr == 1))
    for col in x_cols:
        v = col[rows]
        order = np.argsort(v, kind="stable")
        vs, ys = v[order], yr[order]
        c1 = np.cumsum(ys)
        c0 = np.arange(1, len(ys) + 1) - c1
        cut = np.flatnonzero(vs[1:] != vs[:-1])      # left = first cut + 1 rows
        if len(cut) == 0:
            continue
        l0, l1 = c0[cut], c1[cut]
        r0, r1 = c0[-1] - l0, c1[-1] - l1
        best = min(best, int(np.min(np.minimum(l0, l1) + np.minimum(r0, r1))))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_engine_depth_two_against_direct_enumeration(seed):
    """Hundreds of rows of continuous columns, two classes, lam = 0: the fewest
    errors of a depth-two tree by enumerating every root threshold and every
    threshold of each side, against the engine (whose row-skipping passes and
    pruned bisection must never miss the optimum)."""
    rng = np.random.default_rng(50 + seed)
    n, p = 240, 3
    X = rng.normal(size=(n, p)).round(2)
    y = ((X[:, 0] + rng.normal(scale=0.8, size=n) > 0) ^ (X[:, 1] > 0.5)).astype(int)
    cols = [X[:, j].astype(np.float32) for j in range(p)]
    best = _depth_one_errors(cols, y, np.arange(n))
    for col in cols:
        for t in np.unique(col)[:-1]:
            left = np.flatnonzero(col <= t)
            right = np.flatnonzero(col > t)
            best = min(best, _depth_one_errors(cols, y, left) + _depth_one_errors(cols, y, right))
    clf = _fit(X, y, None, 0.0, 2)
    assert clf.optimal_
    assert clf.objective_ * n == pytest.approx(best, abs=1e-6)


def test_a_stopped_engine_returns_at_least_cart():
    """A stop under max_depth returns a tree no worse than CART's of the same
    depth (CART is kept when the search's best is worse).  The stop is the
    work limit's (test hook), without a time limit: CART's fit cannot be
    stopped, so under a time limit it runs only where it fits before the
    deadline (`test_cart_runs_only_before_the_deadline`)."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(5)
    X = rng.normal(size=(20_000, 8))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] - X[:, 3] + rng.normal(size=20_000) > 0)
    y = y.astype(int)
    clf = FastSmallTreeClassifier(regularization=0.0, max_depth=4, time_limit=None)
    clf._overrides = {"work_limit": 3}
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y)
    cart = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    assert not clf.optimal_
    # stopped at once, the search's own best is CART's or worse here
    assert clf.search_stats_["incumbent"] == "cart"
    assert clf.objective_ <= np.mean(cart.predict(X) != y) + 1e-12
    assert np.mean(clf.predict(X) != y) == pytest.approx(clf.objective_)
    assert clf.lower_bound_ <= clf.objective_


def test_a_time_stopped_engine_returns_at_least_dpdt(monkeypatch):
    """After a time stop under max_depth, DPDT's tree of the same depth (grown in the
    share of the time limit the engine leaves it) is returned when it is better. The
    engine is left almost nothing here, so that DPDT's tree wins and is the one
    returned, re-scored."""
    import fst._plan as plan
    from fst import DPDTClassifier

    monkeypatch.setattr(plan, "DPDT_TIME_SHARE", 0.995)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3_000, 6))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] - X[:, 3] + rng.normal(size=3_000) > 0)
    y = y.astype(int)
    clf = FastSmallTreeClassifier(regularization=0.001, max_depth=4, time_limit=4.0)
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y)
    dpdt = DPDTClassifier(max_depth=4, complexity="leaves", alphas=[0.001],
                          alpha=0.001).fit(X, y)
    dpdt_objective = np.mean(dpdt.predict(X) != y) + 0.001 * dpdt.estimator_.tree_.n_leaves
    assert not clf.optimal_ and clf.status_ == "time_limit"
    assert clf.search_stats_["incumbent"] == "dpdt"
    assert clf.objective_ <= dpdt_objective + 1e-12
    assert (np.mean(clf.predict(X) != y) + 0.001 * clf.n_leaves_
            == pytest.approx(clf.objective_, abs=1e-12))
    assert clf.lower_bound_ <= clf.objective_


@pytest.mark.parametrize("combo", combos(THREADS_BIT))
def test_engine_without_deepening_matches_brute_force(combo):
    """The search of the requested depth alone (no shallower optimum as its seed) is
    exact too, in every rule combination."""
    rules = _config.ALL_RULES
    for k, bit in enumerate(ENGINE_RULES):
        if not combo >> k & 1:
            rules &= ~bit
    for X, y, cost, lam, depth, w in _combo_problems():
        expected, y_idx, full = _expected(X, y, cost, lam, depth, w)
        clf = _fit(X, y, cost, lam, depth, rules, w=w)
        clf._overrides["engine_deepen"] = False
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.simplefilter("ignore", ConstantTreeWarning)
            clf.fit(X, y, sample_weight=w)
        assert clf.optimal_
        assert clf.search_stats_["depth_searched"] == depth
        assert clf.objective_ == pytest.approx(expected, abs=1e-9)
        assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)


def _engine_problem():
    from sklearn.datasets import load_breast_cancer

    from fst._engine import engine_space
    X, y = load_breast_cancer(return_X_y=True)
    X32 = np.ascontiguousarray(X[:, :10], dtype=np.float32)
    cost = np.ones((2, 2)) - np.eye(2)
    return engine_space(X32, y, 2, cost)


def test_a_seed_is_the_root_s_best_until_a_split_beats_it():
    """A seeded root returns the seed's tree when it stops before finding a better
    one, and still certifies the optimum when the seed is the optimum itself."""
    from fst._core._depth_search import DepthSearch

    space = _engine_problem()
    args = (space.row_rank, space.col_order, space.col_start, space.y, space.cost)
    config = _config.make_config(regularization=0.01)
    stop_at_once = dict(config, time_limit=0.0)
    exact = DepthSearch(*args, config, 3)
    exact.run()
    assert exact.solved
    optimum, tree = exact.upper_bound, exact.tree()
    # stopped at once: nothing found in that time beats the optimum, so the seed
    # (the optimum's own tree) is what a stopped root returns
    stopped = DepthSearch(*args, stop_at_once, 3)
    stopped.seed(optimum, tree)
    stopped.run()
    assert not stopped.solved
    assert stopped.upper_bound == optimum
    assert np.array_equal(stopped.tree(), tree)
    # the optimum as the seed: certified, with the same value
    seeded = DepthSearch(*args, config, 3)
    seeded.seed(optimum, tree)
    seeded.run()
    assert seeded.solved and seeded.upper_bound == optimum
    # a shallower heap is a prefix of a deeper one
    shallow = DepthSearch(*args, config, 2)
    shallow.run()
    deeper = DepthSearch(*args, stop_at_once, 3)
    deeper.seed(shallow.upper_bound, shallow.tree())
    deeper.run()
    assert deeper.upper_bound <= shallow.upper_bound
    with pytest.raises(ValueError, match="deeper than max_depth"):
        shallow.seed(optimum, tree)


def test_a_stop_in_the_last_depth_returns_at_least_the_shallower_optimum():
    """Deepened one level at a time, a fit stopped in its last depth returns a tree
    at least as good as the optimum one level shallower, re-scored."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :10]
    shallow = FastSmallTreeClassifier(regularization=0.01, max_depth=2).fit(X, y)
    assert shallow.optimal_
    clf = FastSmallTreeClassifier(regularization=0.01, max_depth=5, time_limit=0.3)
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y)
    assert not clf.optimal_
    assert clf.search_stats_["depth_searched"] >= 3
    assert clf.objective_ <= shallow.objective_ + 1e-12
    assert (np.mean(clf.predict(X) != y) + 0.01 * clf.n_leaves_
            == pytest.approx(clf.objective_, abs=1e-12))


def _stopped(X, y, cost, lam, depth, rules, work, n_jobs=1, deepen=True, w=None):
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=depth,
                                  n_jobs=n_jobs)
    clf._overrides = {"depth_engine": True, "rules": rules, "work_limit": work,
                      "engine_deepen": deepen}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        clf.fit(X, y, sample_weight=w)
    return clf


@pytest.mark.parametrize("combo", combos(THREADS_BIT))
def test_a_stopped_engine_s_bound_holds_in_every_rule_combination(combo):
    """Stops after 1 to 64 nodes and valuations (1, 2, 8, 64 or 1, 4, 16, 64 by
    combination), in every combination of the
    engine's rules and with one or three engines, deepening or not: the bound a
    stopped fit reports (the root's columns, closed or open, with its best tree:
    `_bounds.stopped_root_bound`) never exceeds the brute-force optimum, the
    returned tree re-scores to its objective, and a certified fit's bound is the
    optimum."""
    rules = _config.ALL_RULES
    for i, bit in enumerate(ENGINE_RULES):
        if not combo >> i & 1:
            rules &= ~bit
    n_jobs = engines(combo)
    for k, (X, y, cost, lam, depth, w) in enumerate(_combo_problems()):
        depth = max(depth, 2)
        expected, y_idx, full = _expected(X, y, cost, lam, depth, w)
        for work in ((1, 2, 8, 64) if (combo + combo // 3) % 2 else (1, 4, 16, 64)):
            clf = _stopped(X, y, cost, lam, depth, rules, work, n_jobs, deepen=k % 2 == 0,
                           w=w)
            assert clf.lower_bound_ <= expected + 1e-9, (work, clf.status_)
            assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(clf.objective_)
            assert clf.objective_ >= expected - 1e-9
            if clf.optimal_:
                assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)


def test_a_stopped_engine_reports_more_than_the_creation_bound():
    """A depth-four fit stopped in its last depth, or in a shallower one: the
    root's open splits each cost at least their two sides' creation bounds, more
    than the root's own (two leaves' worth of lambda)."""
    X, y = _hard_continuous()
    lam = 0.01
    creation = 2 * lam      # 0/1 loss: the root's creation bound is 2 lam
    for work, deepen, searched in ((2000, False, 4), (20000, False, 4), (2000, True, 3)):
        clf = _stopped(X, y, None, lam, 4, _config.ALL_RULES, work, deepen=deepen)
        assert clf.status_ == "time_limit"
        assert clf.search_stats_["depth_searched"] == searched
        assert creation + 1e-9 < clf.lower_bound_ <= clf.objective_


def test_engine_progress_lines_at_verbose_two(monkeypatch, capsys):
    """verbose=2 prints the engine's progress (bound, incumbent, gap) while it
    runs, in the general search's format: each line's bound is at most its
    incumbent and above the creation bound, and bounds never fall."""
    import fst._utils as fc

    monkeypatch.setattr(fc, "PROGRESS_SECONDS", 0.2)
    X, y = _hard_continuous()
    clf = FastSmallTreeClassifier(regularization=0.01, max_depth=4, time_limit=1.5, verbose=2)
    clf._overrides = {"depth_engine": True}
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y)
    lines = re.findall(r"\[fst\] +([0-9.]+) s  lower bound ([0-9.]+)  best ([0-9.]+)  "
                       r"gap ([0-9.]+) \(([0-9.]+) lambda\)  expansions ([0-9,]+)",
                       capsys.readouterr().out)
    assert len(lines) >= 2
    lows = [float(line[1]) for line in lines]
    for _, low, best, *_ in lines:
        assert 0.02 < float(low) <= float(best)
    assert lows == sorted(lows)
    assert lows[-1] <= clf.objective_


def test_each_run_keeps_the_reporters_schedule():
    """A search's progress lines fall at whole multiples of the period since the
    reporter's clock started (the fit's), not since each run's own start: a
    run begun just before a multiple reports at it, though it lasts far less
    than a period (a fit of many short runs, each depth's, otherwise prints
    nothing); the seconds each line gives count from that clock."""
    from fst._core._depth_search import DepthSearch
    from fst._core._limits import clock

    space = _engine_problem()
    args = (space.row_rank, space.col_order, space.col_start, space.y, space.cost)
    config = _config.make_config(regularization=0.001)
    lines = []
    search = DepthSearch(*args, config, 3)
    # the clock started 9.95 s ago, a line due every 10 s: the next at 10 s
    search.set_reporter(lines.append, 10.0, clock() - 9.95)
    t0 = time.perf_counter()
    search.run()
    took = time.perf_counter() - t0
    assert search.solved and took > 0.1, took
    assert len(lines) == 1 and 10.0 <= lines[0][0] < 10.0 + took, (lines, took)
    # a run's own schedule (the clock started at the run): no line within it
    quiet = []
    again = DepthSearch(*args, config, 3)
    again.set_reporter(quiet.append, 10.0)
    again.run()
    assert quiet == []


def test_both_searches_report_the_same_statistics_and_take_the_same_overrides():
    """The general search and the engine, built by the plan from one
    configuration, report the common statistics (`fst._plan.COMMON_STATS`), and
    the same work-limit override stops either."""
    from fst._plan import COMMON_STATS

    X, y = _hard_continuous()
    for engine in (True, False):
        clf = FastSmallTreeClassifier(regularization=0.01, max_depth=3, time_limit=None)
        clf._overrides = {"depth_engine": engine, "work_limit": 1000}
        with pytest.warns(NotCertifiedWarning):
            clf.fit(X[:400], y[:400])
        assert clf.status_ == "time_limit"
        assert set(COMMON_STATS) <= set(clf.search_stats_)
        assert clf.search_stats_["engine"] == ("depth" if engine else "general")
        assert clf.lower_bound_ <= clf.objective_


def test_the_leaf_budget_searches_nodes_shallower_on_the_combination_problems():
    """The combination tests exercise the leaf budget: on their problems it sends
    nodes to a shallower depth (`_bounds.budget_depth`), and switched off none."""
    on = off = 0
    for X, y, cost, lam, depth, w in _combo_problems():
        on += _fit(X, y, cost, lam, depth, w=w).search_stats_["leaf_budget_depths"]
        off += _fit(X, y, cost, lam, depth, _config.ALL_RULES & ~_config.RULES["leaf_budget"],
                    w=w).search_stats_["leaf_budget_depths"]
    assert on > 0
    assert off == 0


def _side_pass_reference(rk, yk, lam, unit, start, sup_lam):
    """The first least split of a side, by every threshold (split k sends ranks
    <= k left, one between each two distinct ranks) whose two leaves' support
    (their largest class's rows) reaches sup_lam, where it beats `start` by
    more than the tolerance: (value, split id as the passes number it)."""
    best, arg = start, -1
    t0, t1 = int(np.sum(yk == 0)), int(np.sum(yk == 1))
    for i in range(1, len(rk)):
        if rk[i] == rk[i - 1]:
            continue
        l1 = int(np.sum(yk[:i]))
        l0 = i - l1
        if min(max(l0, l1), max(t0 - l0, t1 - l1)) * unit < sup_lam:
            continue
        err = min(l0, l1) + min(t0 - l0, t1 - l1)
        v = err * unit + 2 * lam
        if v < best - 1e-10:
            best, arg = v, 7 + int(rk[i - 1])
    return best, arg


@pytest.mark.parametrize("seed", range(40))
def test_a_sides_own_pass_matches_the_two_class_loop(seed):
    """The depth-one pass of one side alone (`_column_pass_unit_one`, which takes
    in the rows a skip passes over as one sum) gives the value and split of the
    general two-class loop and of a reference over every threshold, from the
    leaf or from a budget below it, with the moved-rows skip and without, with
    leaf support and without, on rows with tied ranks and classes of every
    balance."""
    from fst._core import _testing
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 200))
    rk = np.sort(rng.integers(0, max(2, m // int(rng.integers(1, 5))), size=m)).astype(np.int32)
    yk = (rng.random(m) < rng.choice([0.05, 0.3, 0.5, 0.9])).astype(np.int32)
    unit = 1.0 / m
    for lam in (0.0, 0.01):
        leaf = min(int(yk.sum()), m - int(yk.sum())) * unit + lam
        for start, sup in itertools.product((leaf, leaf - 3 * unit, leaf / 2),
                                            (0.0, 4.5 * unit, 0.25)):
            expected = _side_pass_reference(rk, yk, lam, unit, start, sup)
            for exchange in (False, True):
                one, loop = _testing.side_pass_for_tests(rk, yk, lam, unit, start, -np.inf,
                                                         exchange, sup)
                assert one == loop
                assert one[0] == pytest.approx(expected[0], abs=1e-12)
                assert one[1] == expected[1]


def _cost2_reference(rk, yk, cost, lam, start, sup_lam, w=None):
    """The best split of one side of two classes under a cost matrix (rows of
    weights w, or 1) by every threshold, each replacing the best only when
    better by more than the tolerance: (value, split id as the passes number
    it)."""
    C = np.asarray(cost).reshape(2, 2)
    w = np.ones(len(yk)) if w is None else w
    best, arg = start, -1
    t = np.array([w[yk == 0].sum(), w[yk == 1].sum()])
    for i in range(1, len(rk)):
        if rk[i] == rk[i - 1]:
            continue
        left = np.array([w[:i][yk[:i] == 0].sum(), w[:i][yk[:i] == 1].sum()])
        right = t - left
        ll, lr = (left @ C).min(), (right @ C).min()
        if min(left @ C.max(axis=1) - ll, right @ C.max(axis=1) - lr) < sup_lam:
            continue
        v = ll + lr + 2 * lam
        if v < best - 1e-10:
            best, arg = v, 7 + int(rk[i - 1])
    return best, arg


@pytest.mark.parametrize("seed", range(40))
def test_a_sides_own_pass_matches_the_cost_loop(seed):
    """Two classes under a cost matrix (class weights: no unit cost), with row
    weights (odd seeds) and without, the depth-one pass of one side alone
    (`_column_pass_cost2_one`, compiled for each) gives the value
    and split of the general loop bit for bit and of a reference over every
    threshold, from the leaf or a budget below it, with the moved-rows skip
    and without, with leaf support and without, on tied ranks and classes of
    every balance, under costs with and without a diagonal."""
    from fst._core import _testing
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 200))
    rk = np.sort(rng.integers(0, max(2, m // int(rng.integers(1, 5))), size=m)).astype(np.int32)
    yk = (rng.random(m) < rng.choice([0.05, 0.3, 0.5, 0.9])).astype(np.int32)
    w = rng.uniform(0.2, 5.0, size=2) / m
    cost = np.array([0.0, w[0], w[1], 0.0])
    if seed % 4 == 0:
        cost += rng.uniform(0.0, 0.3, size=4) / m
    rows_w = rng.uniform(0.1, 3.0, size=m) if seed % 2 else None
    t = np.array([np.sum(yk == 0), np.sum(yk == 1)], dtype=float)
    if rows_w is not None:
        t = np.array([rows_w[yk == 0].sum(), rows_w[yk == 1].sum()])
    leaf0 = (t @ cost.reshape(2, 2)).min()
    for lam in (0.0, 0.01):
        leaf = leaf0 + lam
        for start, sup in itertools.product((leaf, leaf - 3 * w.min(), leaf / 2),
                                            (0.0, 4.5 * w.min(), 0.25)):
            expected = _cost2_reference(rk, yk, cost, lam, start, sup, rows_w)
            for exchange in (False, True):
                one, loop = _testing.cost2_side_pass_for_tests(
                    rk, yk, cost, lam, start, -np.inf, exchange, sup, rows_w)
                assert one == loop
                assert one[0] == pytest.approx(expected[0], abs=1e-12)
                assert one[1] == expected[1]
                early, loop = _testing.cost2_side_pass_for_tests(
                    rk, yk, cost, lam, start, expected[0], exchange, sup, rows_w)
                assert early == loop


@pytest.mark.parametrize("seed", range(30))
def test_a_sides_own_pass_matches_the_squares_loop(seed):
    """Under squared error the depth-one pass of one side alone
    (`_column_pass_squares_one`, its sums in locals) gives the value and split
    of the general loop bit for bit, and of a reference over every threshold,
    from the leaf or a budget below it, with an early end at a lowest value
    and without, on tied ranks, tied targets and targets far from zero, with
    row weights (odd seeds) and without."""
    from fst._core import _testing
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 200))
    rk = np.sort(rng.integers(0, max(2, m // int(rng.integers(1, 5))), size=m)).astype(np.int32)
    z = rng.normal(float(rng.choice([0.0, 50.0])), 1.0, size=m)
    if seed % 3 == 0:
        z = np.round(z)
    z = z / np.sqrt(((z - z.mean()) ** 2).sum() + 1e-300)
    w = rng.uniform(0.1, 3.0, size=m) if seed % 2 else np.ones(m)

    def sse(v, u):
        return float((u * (v - np.average(v, weights=u)) ** 2).sum())

    leaf = sse(z, w)
    for lam in (0.0, 0.01):
        values = []
        for c in range(1, m):
            if rk[c] != rk[c - 1]:
                values.append((sse(z[:c], w[:c]) + sse(z[c:], w[c:]) + 2 * lam,
                               7 + int(rk[c - 1])))
        for start in (leaf + lam, 0.8 * (leaf + lam), 0.3 * (leaf + lam)):
            for lowest in (-np.inf, 0.5 * start):
                one, loop = _testing.squares_side_pass_for_tests(
                    rk, z, lam, start, lowest, w if seed % 2 else None)
                assert one == loop
                below = [v for v in values if v[0] < start - 1e-9]
                if not below:
                    assert one == (start, -1)
                elif lowest == -np.inf:
                    best = min(v for v, _ in below)
                    assert one[0] == pytest.approx(best, abs=1e-9)
                    assert one[1] == min(a for v, a in below if v <= best + 1e-9)
                else:
                    assert one[0] < start and any(a == one[1] for _, a in below)
