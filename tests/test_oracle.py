"""Exhaustive oracle tests: fst's certified optimum equals brute force exactly."""
import functools
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from fst._core import _config
from fst._core._limits import effective_n_threads
from fst.exceptions import ConstantTreeWarning

FST_OPENMP = effective_n_threads(2) == 2
from oracle import (medium_problem, medium_setting, optimal_objective, problem_cost,
                    random_problem, rescore, sample_weights, threshold_problem)


def _brute_force(X, y, cost, lam, max_depth):
    """(optimal objective by enumeration, class index of each row, full cost matrix)."""
    classes, y_idx = np.unique(y, return_inverse=True)
    K = len(classes)
    full_cost = (np.ones((K, K)) - np.eye(K)) if cost is None else cost[np.ix_(classes, classes)]
    return optimal_objective(X, y_idx, full_cost, lam, max_depth), y_idx, full_cost


@pytest.mark.parametrize("seed", range(360))
def test_matches_brute_force(seed):
    X, y, cost, lam, max_depth = random_problem(seed)
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.fit(X, y)
    expected, y_idx, full_cost = _brute_force(X, y, cost, lam, max_depth)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full_cost, lam) == pytest.approx(expected, abs=1e-9)
    assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    if max_depth is not None:
        assert clf.estimator_.get_depth() <= max_depth


@pytest.mark.parametrize("seed", range(360))
def test_threads_match_brute_force_and_the_serial_tree(seed):
    """Two and four threads (each searching a share of the root's splits): the
    oracle's optimum, certified, and the very tree, bound and objective of one
    thread (the canonical optimum)."""
    X, y, cost, lam, max_depth = random_problem(seed)
    expected, y_idx, full_cost = _brute_force(X, y, cost, lam, max_depth)
    fits = [FastSmallTreeClassifier(regularization=lam, cost_matrix=cost,
                                    max_depth=max_depth, n_jobs=j).fit(X, y)
            for j in (1, 2, 4)]
    for clf in fits:
        assert clf.optimal_
        assert rescore(clf, X, y_idx, full_cost, lam) == pytest.approx(expected, abs=1e-9)
        assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    for clf in fits[1:]:
        assert clf.search_stats_["threads"] == (clf.n_jobs if FST_OPENMP else 1)
        assert clf.objective_ == fits[0].objective_
        assert clf.lower_bound_ == fits[0].lower_bound_
        for attr in ("feature", "threshold", "children_left", "children_right", "value"):
            np.testing.assert_array_equal(getattr(clf.estimator_.tree_, attr),
                                          getattr(fits[0].estimator_.tree_, attr))


@pytest.mark.parametrize("seed", range(40))
def test_class_weight_with_cost_matrix_matches_brute_force(seed):
    """Class weights multiply the rows of the cost matrix: the optimum is the
    brute force's under the product, and the exported tree predicts the labels
    the search chose (its scores once applied the weights twice)."""
    X, y, _, lam, max_depth = random_problem(seed)
    rng = np.random.default_rng(1000 + seed)
    K = len(np.unique(y))
    cost = rng.uniform(0, 3, size=(K, K))
    weights = rng.uniform(0.2, 4.0, size=K)
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=max_depth,
                                  class_weight=dict(enumerate(weights)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.fit(X, y)
    expected, y_idx, full_cost = _brute_force(X, y, weights[:, None] * cost, lam, max_depth)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full_cost, lam) == pytest.approx(expected, abs=1e-9)


def test_class_weight_with_cost_matrix_one_leaf():
    """The smallest case of the double weighting: seven rows of class 0, two of
    class 1 weighted 3, unit costs: predicting 0 costs 6, predicting 1 costs 7."""
    X = np.zeros((9, 1))
    y = np.array([0] * 7 + [1] * 2)
    clf = FastSmallTreeClassifier(regularization=0.5, class_weight={0: 1, 1: 3},
                                  cost_matrix=[[0, 1], [1, 0]]).fit(X, y)
    assert clf.optimal_
    assert clf.predict(X[:1])[0] == 0
    assert clf.objective_ == pytest.approx(6 / 9 + 0.5)


@pytest.mark.parametrize("seed", range(120))
def test_sample_weight_matches_brute_force(seed):
    """Weighted loss over the weights' sum: the optimum, the re-scored tree and
    the bound equal the brute force's, with costs, class weights and depth
    limits (each (class, weight) pair is a class of the search)."""
    X, y, cost, lam, max_depth = random_problem(3000 + seed)
    w = sample_weights(seed, y)
    class_weight = {0: 2.0, 1: 0.5} if seed % 3 == 0 else None
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=max_depth,
                                  class_weight=class_weight)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.fit(X, y, sample_weight=w)
    y_idx, full_cost = problem_cost(y, cost, class_weight)
    expected = optimal_objective(X, y_idx, full_cost, lam, max_depth, weights=w)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full_cost, lam, weights=w) == pytest.approx(expected, abs=1e-9)
    assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    if max_depth is not None:
        assert clf.estimator_.get_depth() <= max_depth


@pytest.mark.parametrize("seed", range(30))
def test_whole_sample_weights_are_repeated_rows(seed):
    """A whole weight counts as that many copies of the row (sklearn's sample
    weight semantics): same optimum as the fit on the repeated rows."""
    X, y, cost, lam, max_depth = random_problem(4000 + seed)
    w = np.random.default_rng(seed).integers(0, 4, size=len(y))
    w[:len(np.unique(y))] = 1                    # every class keeps a row
    rep = np.repeat(np.arange(len(y)), w)
    a = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    b = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    a.fit(X, y, sample_weight=w)
    b.fit(X[rep], y[rep])
    assert a.optimal_ and b.optimal_
    assert a.objective_ == pytest.approx(b.objective_, abs=1e-9)


@pytest.mark.parametrize("share, switch_work, ladder", [
    (0.1, 0, ()), (0.4, 0, ()), (1.0, 0, ()), (0.1, 30_000, ()), (0.1, 1, ()),
    (0.1, 1, (6, 10**15, -1, 0.0)), (0.1, 1, (0, 0)), (0.1, 1, (6, 20_000, -1, 0.0)),
    (0.1, 1, (6, 20_000))])
@pytest.mark.parametrize("seed", range(30))
def test_budget_steps_match_brute_force(seed, share, switch_work, ladder):
    """Other budget sequences certify the same optimum: deepening from the root's
    bound from the start (switch_work 0) in several steps (with share 1 the second
    pass runs at the incumbent), and a first pass at the incumbent ended after a
    little work (30_000) or at once (1), then the depth ladder (rungs ended after
    twice that work, or run to their optimum, or no ladder, or ended after about
    one expansion and resumed in turns with deepening -- these three whatever the
    root's gap -- or with the default end at a small gap) and deepening.  The
    default switches after far more work than these problems need, so the other
    tests run one pass."""
    X, y, cost, lam, max_depth = random_problem(2000 + seed)
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    # test hooks: share of the gap added per root pass, work of the first pass at
    # the incumbent, the ladder (deepest rung, work per rung, store cap, gap)
    clf._overrides = {"deepening": share, "deepening_close": share,
                      "switch_work": switch_work, **_ladder_settings(ladder)}
    clf.fit(X, y)
    expected, y_idx, full_cost = _brute_force(X, y, cost, lam, max_depth)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full_cost, lam) == pytest.approx(expected, abs=1e-9)


def _ladder_settings(ladder):
    """The search settings of a ladder tuple (deepest rung, work of a rung's first
    turn, store size that ends the turns, root gap in lambdas that ends them)."""
    keys = ("ladder_max", "rung_work", "ladder_bytes", "ladder_gap")
    return dict(zip(keys, ladder))


def _fit_with_capacity(X, y, capacity, **params):
    clf = FastSmallTreeClassifier(**params)
    clf._overrides = {"memo_capacity": capacity}  # test hook: initial slots of the store
    return clf.fit(X, y)


@pytest.mark.parametrize("seed", range(40))
def test_tiny_memo_store_gives_identical_results(seed):
    X, y, cost, lam, max_depth = random_problem(1000 + seed)
    params = dict(regularization=lam, cost_matrix=cost, max_depth=max_depth)
    small = _fit_with_capacity(X, y, 4, **params)
    large = _fit_with_capacity(X, y, 1 << 16, **params)
    assert small.search_stats_["memo_capacity"] > 4 or small.search_stats_["nodes_created"] <= 4
    assert small.objective_ == large.objective_
    np.testing.assert_array_equal(small.predict(X), large.predict(X))
    np.testing.assert_array_equal(small.estimator_.tree_.feature, large.estimator_.tree_.feature)


@pytest.mark.parametrize("lam", [0.005, 0.01, 0.02])
def test_parity_regression(lam):
    """Label = parity of three binary features (the reference notes' counterexample
    to an inadmissible seven-leaf floor): the eight-leaf tree is optimal."""
    rng = np.random.default_rng(0)
    n = 96
    X = rng.integers(0, 2, size=(n, 5)).astype(float)
    # all eight parity cells well populated
    X[:, :3] = np.array([[(i >> b) & 1 for b in range(3)] for i in range(n)]) % 2
    y = (X[:, 0].astype(int) ^ X[:, 1].astype(int) ^ X[:, 2].astype(int))
    clf = FastSmallTreeClassifier(regularization=lam).fit(X, y)
    expected = optimal_objective(X, y, np.ones((2, 2)) - np.eye(2), lam)
    assert expected == pytest.approx(8 * lam)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-12)
    assert clf.n_leaves_ == 8


def test_parity_below_a_split():
    """Parity of three features under a root split on a fourth: a seven-or-more-leaf
    subtree below a split (the case the inadmissible floor got wrong)."""
    rng = np.random.default_rng(1)
    n = 128
    bits = np.array([[(i >> b) & 1 for b in range(4)] for i in range(n)], dtype=float)
    X = np.hstack([bits, rng.integers(0, 2, size=(n, 2))])
    parity = bits[:, 0].astype(int) ^ bits[:, 1].astype(int) ^ bits[:, 2].astype(int)
    y = np.where(bits[:, 3] == 1, parity, 0)
    for lam in [0.004, 0.01, 0.03]:
        clf = FastSmallTreeClassifier(regularization=lam).fit(X, y)
        expected = optimal_objective(X, y, np.ones((2, 2)) - np.eye(2), lam)
        assert clf.optimal_
        assert clf.objective_ == pytest.approx(expected, abs=1e-12)


@functools.lru_cache(maxsize=None)
def _random_expected(seed):
    """`_brute_force` of `random_problem(seed)`, computed once per test run: the 4096
    rule combinations share 60 problems, four each, every problem under 273 or
    274 combinations (the oracle is a third of their time)."""
    return _brute_force(*random_problem(seed))


@pytest.mark.slow
@pytest.mark.parametrize("combo", range(4096))
def test_every_rule_switch_combination_matches_brute_force(combo):
    """Each rule (equivalent points, leaf support, segmentation, superset,
    threshold exchange, column transfer, pair stage with the shape relaxation,
    leaf capacity, side worth, the three-leaf bound and its two-leaf transfer)
    switched off or on, with the greedy seed on or off, and the parallel
    search's rules (shares of the root, the shared incumbent's cap, the shared
    table) off (one thread) or on (two threads, or three: shares of unequal
    size): the certified optimum is the same, exactly the oracle's."""
    # the general search's rules (the leaf budget and the leaf beside a subtree
    # are the engine's: their own tests)
    rules = (combo & _config.ALL_RULES & ~_config.RULES["leaf_budget"]
             & ~_config.RULES["peel_leaf"])
    strategy_off = [] if combo & 1024 else ["greedy"]
    n_jobs = 1 if not combo & 2048 else (2 if combo % 2 == 0 else 3)
    # four of the sixty problems, chosen so that every problem meets each rule
    # both on and off, and both thread counts
    for seed in range(2000 + (combo + combo // 7) % 15, 2060, 15):
        X, y, cost, lam, max_depth = random_problem(seed)
        expected, y_idx, full_cost = _random_expected(seed)
        # as shipped, and with every pair stage of a row or more run in rounds
        # (which needs the pair stage and column transfer: without either rule
        # the second fit would be the first again)
        stagings = [{}]
        if rules & _config.RULES["pairs"] and rules & _config.RULES["transfer"]:
            stagings.append({"stage_min_rows": 1, "stage_rounds": 2, "stage_min_run": 0})
        for staging in stagings:
            clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost,
                                          max_depth=max_depth, n_jobs=n_jobs)
            # test hooks: the rule bits (fst._core._config.RULES), the strategies off,
            # the pair stage's rounds
            clf._overrides = {"rules": rules, "strategy_off": strategy_off, **staging}
            clf.fit(X, y)
            assert clf.optimal_
            assert clf.objective_ == pytest.approx(expected, abs=1e-9), (seed, combo, staging)
            assert rescore(clf, X, y_idx, full_cost, lam) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(24))
def test_medium_problems_match_brute_force(seed):
    X, y = medium_problem(seed)
    lam, max_depth = medium_setting(seed)
    clf = FastSmallTreeClassifier(regularization=lam, max_depth=max_depth).fit(X, y)
    cost = np.ones((2, 2)) - np.eye(2)
    expected = _medium_expected(seed)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y, cost, lam) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(24))
def test_two_leaf_transfer_matches_brute_force_on_and_off(seed):
    """The two-leaf transfer (`_transfer_two_leaf`, under the peel3 rule bit) fires
    on every medium problem, and with it on and off the certified optimum is
    brute force's (the rule-combination tests switch it on the small problems)."""
    on = _medium_matches_brute_force(seed)
    off = _medium_matches_brute_force(seed, rules_off=["peel3"])
    assert on.search_stats_["transfers"] > 0
    assert off.search_stats_["transfers"] == 0
    assert on.objective_ == pytest.approx(off.objective_, abs=1e-12)


@pytest.mark.parametrize("keep", [0, 10**12])
@pytest.mark.parametrize("seed", range(12))
def test_valued_children_stored_or_dropped_match_brute_force(seed, keep):
    """A pair stage's children live in their candidates unless searched or made
    the node's incumbent; a wide stage stores them all (`keep_pair_words`).  Both
    ways (every stage stores, none does) the certified optimum is brute force's
    and the returned tree scores it, with and without a depth limit."""
    # test hooks: pair stages storing children; every stored key rebuilds to its record
    clf = _medium_matches_brute_force(seed, keep_pair_words=keep, check_keys=True)
    assert clf.search_stats_["key_check"][2] == 0


@functools.lru_cache(maxsize=None)
def _medium_expected(seed):
    """The brute-force optimum of medium problem `seed` at its penalty and depth
    limit (as `_medium_matches_brute_force` sets them), computed once per test run."""
    X, y = medium_problem(seed)
    return optimal_objective(X, y, np.ones((2, 2)) - np.eye(2), *medium_setting(seed))


def _medium_matches_brute_force(seed, **overrides):
    """Fit medium problem `seed` (penalty and depth limit by seed) with the given
    private overrides (test hooks); assert the certified optimum is brute force's
    and the returned tree scores it.  Returns the fitted classifier."""
    X, y = medium_problem(seed)
    lam, max_depth = medium_setting(seed)
    clf = FastSmallTreeClassifier(regularization=lam, max_depth=max_depth)
    clf._overrides = overrides
    clf.fit(X, y)
    cost = np.ones((2, 2)) - np.eye(2)
    expected = _medium_expected(seed)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y, cost, lam) == pytest.approx(expected, abs=1e-9)
    return clf


@pytest.mark.parametrize("staging", [(1, 0, 0), (1, 2, 0), (2, 100, 0)])
@pytest.mark.parametrize("seed", range(24))
def test_pair_stage_in_rounds_matches_brute_force(seed, staging):
    """A pair stage in rounds values the middle row of each run on a column and
    leaves out the rows that column transfer puts above the budget and every
    bound known at the node (`staged_pairs`).  Forced on every stage of a row or
    more, with no round of midpoints (only the rows transfer rules out before any
    count), two rounds, or as many as it takes: the certified optimum is brute
    force's and the returned tree scores it."""
    # test hook: (rows, rounds, rows a run on average)
    _medium_matches_brute_force(seed, **_staging_settings(staging))


def _staging_settings(staging):
    """The search settings of a staging tuple: a pair stage of at least this many
    rows, at most this many rounds of midpoints, this many rows a run on average."""
    return dict(zip(("stage_min_rows", "stage_rounds", "stage_min_run"), staging))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_pair_stage_in_rounds_on_runs_of_thresholds(seed):
    """On columns of many thresholds, stages in rounds (forced on every stage, or
    as shipped) leave rows out and value fewer rows than whole stages, and the
    certified optimum is brute force's, the returned tree scoring it (penalty
    0.01 or 0.02 by seed: the brute force of one takes seconds)."""
    X, y = threshold_problem(seed)
    cost = np.ones((2, 2)) - np.eye(2)
    for lam in [(0.01, 0.02)[seed % 2]]:
        expected = optimal_objective(X, y, cost, lam)
        rows = {}
        for staging in [(1, 100, 0), (1, 2, 0), None, (10**9, 0, 0)]:
            clf = FastSmallTreeClassifier(regularization=lam)
            if staging is not None:
                clf._overrides = _staging_settings(staging)  # test hook
            clf.fit(X, y)
            assert clf.optimal_
            assert clf.objective_ == pytest.approx(expected, abs=1e-9), (lam, staging)
            assert rescore(clf, X, y, cost, lam) == pytest.approx(expected, abs=1e-9)
            rows[staging] = (clf.search_stats_["pair_rows"],
                             clf.search_stats_["pair_rows_left_out"])
        assert rows[(10**9, 0, 0)][1] == 0           # whole stages leave nothing out
        assert rows[(1, 100, 0)][1] > 0
        assert rows[(1, 100, 0)][0] < rows[(10**9, 0, 0)][0]


@pytest.mark.parametrize("seed", range(12))
def test_path_keys_rebuild_every_stored_node(seed):
    """Most stored nodes keep their key as a path (parent, split, side).  With a
    store that starts at 4 slots (so nodes, whole keys and table all grow), every
    stored key rebuilds to its record's row count and hash and is found again at
    its own id, and the certified optimum is still brute force's."""
    X, y = medium_problem(seed)
    lam, max_depth = medium_setting(seed)
    clf = FastSmallTreeClassifier(regularization=lam, max_depth=max_depth)
    # test hooks: a store of 4 slots; Search.check_keys after the fit
    clf._overrides = {"memo_capacity": 4, "check_keys": True}
    clf.fit(X, y)
    nodes, paths, bad, longest = clf.search_stats_["key_check"]
    assert nodes >= clf.search_stats_["nodes_created"]   # and the canonical tree's
    assert bad == 0
    assert paths > 0
    assert clf.search_stats_["whole_keys"] == nodes - paths
    cost = np.ones((2, 2)) - np.eye(2)
    expected = optimal_objective(X, y, cost, lam, max_depth)
    assert clf.optimal_
    assert rescore(clf, X, y, cost, lam) == pytest.approx(expected, abs=1e-9)


def test_path_keys_include_chains_of_several_steps():
    """Paths chain (a child's two-leaf grandchildren point at the child, which may
    itself be a path): the checks above must see chains longer than the one-pass
    compare handles (two steps), so the rebuilding fallback is covered too."""
    longest = 0
    for seed in range(4):
        X, y = medium_problem(seed)
        clf = FastSmallTreeClassifier(regularization=[0.004, 0.01, 0.03][seed % 3])
        clf._overrides = {"check_keys": True}
        clf.fit(X, y)
        assert clf.search_stats_["key_check"][2] == 0
        longest = max(longest, clf.search_stats_["key_check"][3])
    assert longest >= 3


@pytest.mark.parametrize("seed", range(24))
def test_whole_unit_and_summed_excess_agree(seed):
    """The equivalent-points floor has two code paths: a popcount of marked rows
    when every group's excess is a whole number of cost units (0/1 loss), else a
    sum over group representatives.  Scaling the costs and lambda by 7 forces the
    second path and must scale the certified optimum by exactly 7."""
    from fst._core._problem import build_problem

    rng = np.random.default_rng(500 + seed)
    n, p = int(rng.integers(12, 60)), int(rng.integers(1, 4))
    X = rng.integers(0, 2, size=(n, p)).astype(float)   # few distinct rows: mixed groups
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [0, 1]
    unit = np.ones((2, 2)) - np.eye(2)
    X32 = X.astype(np.float32)
    assert build_problem(X32, y, 2, unit).eq_mask.shape[0] > 0
    assert build_problem(X32, y, 2, 7.0 * unit).eq_mask.shape[0] == 0
    lam = [0.01, 0.03, 0.08][seed % 3]
    a = FastSmallTreeClassifier(regularization=lam).fit(X, y)
    b = FastSmallTreeClassifier(regularization=7 * lam, cost_matrix=7.0 * unit).fit(X, y)
    expected, y_idx, full_cost = _brute_force(X, y, None, lam, None)
    assert a.optimal_ and b.optimal_
    assert a.objective_ == pytest.approx(expected, abs=1e-9)
    assert b.objective_ == pytest.approx(7 * expected, abs=1e-9)


@pytest.mark.parametrize("simd", [0, 1, 2])
@pytest.mark.parametrize("n", [300, 1000, 1500])
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("cost", [None, "random"])
def test_fused_child_scan_matches_rows(cost, K, n, simd):
    """The search values children from one fused pass over the words (hash of the
    right side by difference); every record must equal the one computed from the
    child's own rows, or a stored child would be missed or stored twice.  With
    5, 16 and 24 words (the vector loop's tail, whole blocks, both), under the
    scalar and the vector loops (the same where the CPU has no AVX-512)."""
    from fst._core._problem import build_problem
    from fst._core._testing import scan_matches_node_fill

    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, size=(n, 4)).astype(np.float32)   # duplicates: mixed groups
    y = rng.integers(0, K, size=n)
    C = (np.ones((K, K)) - np.eye(K)) if cost is None else rng.uniform(0, 2, (K, K))
    problem = build_problem(X, y, K, C)
    assert (problem.eq_mask.shape[0] > 0) == (cost is None)
    assert scan_matches_node_fill(problem, 0.01, 3, 200, simd) == 0


@pytest.mark.parametrize("case", ["to_optimum", "turns", "capped", "gap"])
def test_depth_ladder_keeps_the_optimum(case):
    """The ladder only copies incumbents, so the certified optimum is unchanged
    (exhaustive check), with the switch at once and
    - rungs run to their optimum: each shallow optimum is copied onto the unlimited
      search, and the ladder did run;
    - rungs cut after about one expansion: a rung left uncertified is resumed in
      turns with deepening, with doubling work, and the turns did alternate;
    - the same with the store's cap at one byte: exactly one turn;
    - the same with the end at a gap no root can be under (1e9 lam): no turn.
    The first three never end at a small gap (ladder_gap 0), so they run on
    these small problems."""
    ladder = {"to_optimum": (6, 10**15, -1, 0.0), "turns": (6, 20_000, -1, 0.0),
              "capped": (6, 20_000, 1, 0.0), "gap": (6, 20_000, -1, 1e9)}[case]
    reached = alternated = 0
    for seed in range(40):
        X, y, cost, lam, max_depth = random_problem(3000 + seed)
        if max_depth is not None:
            continue  # the ladder serves the unlimited search only
        clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost)
        clf._overrides = {"switch_work": 1, **_ladder_settings(ladder)}
        clf.fit(X, y)
        expected, y_idx, full_cost = _brute_force(X, y, cost, lam, None)
        assert clf.optimal_
        assert clf.objective_ == pytest.approx(expected, abs=1e-9)
        assert rescore(clf, X, y_idx, full_cost, lam) == pytest.approx(expected, abs=1e-9)
        if case == "capped":
            assert clf.search_stats_["ladder_turns"] <= 1
        if case == "gap":
            assert clf.search_stats_["ladder_turns"] == 0
        reached += clf.search_stats_["ladder_depth"] >= 2
        alternated += clf.search_stats_["ladder_turns"] >= 2
    if case == "to_optimum":
        assert reached >= 5
    if case == "turns":
        assert alternated >= 3



def _fit_xor_beside_side(n_cell, extra, extra_y, weighted, lam, seed):
    """Fit fst on an XOR of n_cell rows a cell (columns f1, f2) beside extra rows
    (their f1, f2 in `extra`, their classes `extra_y`) flagged by a column `side`,
    with a noise column; the cost is 0/1, or [[0, 1], [2, 0]] when `weighted`.
    Checks the certificate against brute force and the returned tree's score from
    the data, and returns the fit and its brute-force optimum."""
    cells = np.repeat(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), n_cell, axis=0)
    f = np.vstack([cells, extra]).astype(float)
    side = np.r_[np.zeros(len(cells)), np.ones(len(extra))]
    noise = np.random.default_rng(seed).integers(0, 3, size=len(side)).astype(float)
    X = np.column_stack([side, f, noise])
    y = np.r_[cells[:, 0] ^ cells[:, 1], extra_y]
    cost = np.array([[0.0, 1.0], [2.0, 0.0]]) if weighted else np.ones((2, 2)) - np.eye(2)
    clf = FastSmallTreeClassifier(regularization=lam,
                                  cost_matrix=cost if weighted else None).fit(X, y)
    expected = optimal_objective(X, y, cost, lam)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-12)
    assert rescore(clf, X, y, cost, lam) == pytest.approx(expected, abs=1e-12)
    return clf, expected


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("below", [True, False])
def test_side_worth_at_its_boundary(weighted, below):
    """The side-worth rule at its threshold, where only the root split can reach the
    optimum.  Class = f1 XOR f2 (60 or 120 rows per cell), plus 20 class-1 rows
    flagged by a column `side` and lying in the two class-0 cells.  The tree that
    splits on `side` first and then solves the XOR costs 5 lam; without that split
    the 20 rows are misclassified in the XOR's leaves (4 lam + their cost, W); the
    split further down would need two copies.  So the root split on `side` is
    optimal exactly when lam < W (the side's worth, its leaf's cost lam against W:
    the rule's threshold): lam just below must keep it (a rule that set it
    aside there would certify the worse tree), lam just above must not need it."""
    n_cell, n_side = (120 if weighted else 60), 20   # the XOR is worth its leaves
    extra = np.repeat(np.array([[0, 0], [1, 1]]), n_side // 2, axis=0)
    n = 4 * n_cell + n_side
    worth = n_side * (2.0 if weighted else 1.0) / n
    lam = worth - 0.5 / n if below else worth + 0.5 / n
    clf, expected = _fit_xor_beside_side(n_cell, extra, np.ones(n_side, dtype=int),
                                         weighted, lam, seed=0)
    assert expected == pytest.approx(min(5 * lam, 4 * lam + worth), abs=1e-12)
    assert clf.n_leaves_ == (5 if below else 4)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("below", [True, False])
def test_leaf_support_at_its_boundary(weighted, below):
    """Leaf support at its threshold, on a side whose rows are mixed: the side's
    leaf must save lam against misclassifying all its rows, its support worst -
    loss, not its potential (all its rows).  An XOR of 60 rows a cell, and beside
    it 20 class-1 rows in the two class-0 cells and 8 class-0 rows in the two
    class-1 cells, flagged by a column `side`.  Without the split on `side` all
    28 are misclassified in the XOR's leaves (4 lam + W1 + W0); with it the
    side's leaf takes class 1 and misclassifies only the 8 (5 lam + W0).  So
    that split is optimal exactly when lam < W1, the side's support (its 20
    class-1 rows at their cost), well below its potential W1 + W0 under 0/1
    loss: lam just below must keep it (a rule that measured support by the
    minority or by the rows less twice the minority would drop it), lam just
    above must not need it (the rule drops it there, the potential rule not).
    The XOR is worth its leaves (120 rows a cell when an error of class 1 costs
    two)."""
    n_cell = 120 if weighted else 60
    ones = np.repeat(np.array([[0, 0], [1, 1]]), 10, axis=0)     # class 1 in class-0 cells
    zeros = np.repeat(np.array([[0, 1], [1, 0]]), 4, axis=0)     # class 0 in class-1 cells
    n = 4 * n_cell + len(ones) + len(zeros)
    w1, w0 = len(ones) * (2.0 if weighted else 1.0) / n, len(zeros) / n
    lam = w1 - 0.5 / n if below else w1 + 0.5 / n
    assert lam < w1 + w0 - 0.5 / n        # the potential rule keeps the split either way
    clf, expected = _fit_xor_beside_side(
        n_cell, np.vstack([ones, zeros]),
        np.r_[np.ones(len(ones), dtype=int), np.zeros(len(zeros), dtype=int)],
        weighted, lam, seed=1)
    assert expected == pytest.approx(min(5 * lam + w0, 4 * lam + w1 + w0), abs=1e-12)
    assert clf.n_leaves_ == (5 if below else 4)


@pytest.mark.parametrize("q", [12, 20])
@pytest.mark.parametrize("offset", [0.0, 1.0])
@pytest.mark.parametrize("greedy", [True, False])
def test_leaf_capacity_at_its_boundary(q, offset, greedy):
    """Leaf capacity at its threshold: a set whose optimal subtree has three leaves
    with a potential just above 3 lam.  The set S is three classes of q rows in a
    line (x = 0, 1, 2), flagged by a column `side`; beside it an XOR of 40 rows a
    cell (classes 0 and 1), and every row of S lies in an XOR cell of another
    class.  With lam just below q / n each class of S is a leaf of potential just
    above lam, so pot(S) = 3 q / n is just above 3 lam; S's best tree is its three
    leaves (3 lam), against 3 lam + (q / n - lam) for two leaves and twice that for
    one.  The optimum (7 leaves: `side`, the XOR, S's three) needs S's three-leaf
    value; a rule that marked S's three-leaf trees out (g3 infinite below 3.2 lam
    of potential, or a peel that needs 1.2 lam, or 2.4 lam on the other side: each
    a mutant checked by hand) certifies a worse tree or fails the fit's own score
    check.  Also with a diagonal offset in the costs (potentials unchanged) and
    with the greedy seed off, so that no incumbent hides a wrong bound."""
    rng = np.random.default_rng(0)
    n_cell = 40
    cells = np.repeat(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), n_cell, axis=0)
    xS = np.repeat(np.arange(3), q)
    fS = np.zeros((len(xS), 2), dtype=int)
    for i, k in enumerate(xS):     # an XOR cell of another class, alternating
        alt = i % 2
        fS[i] = (alt, 1 - alt) if k == 0 else (alt, alt) if k == 1 else ((i // 2) % 2, alt)
    X = np.column_stack([np.r_[np.zeros(len(cells)), np.ones(len(xS))],
                         np.r_[cells[:, 0], fS[:, 0]], np.r_[cells[:, 1], fS[:, 1]],
                         np.r_[rng.integers(0, 3, size=len(cells)), xS]]).astype(float)
    y = np.r_[cells[:, 0] ^ cells[:, 1], xS]
    n = len(y)
    cost = np.ones((3, 3)) - np.eye(3) + offset
    lam = (q - 0.5) / n
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost)
    if not greedy:
        clf._overrides = {"strategy_off": ["greedy"]}
    clf.fit(X, y)
    expected = optimal_objective(X, y, cost, lam)
    assert expected == pytest.approx(offset + 7 * lam, abs=1e-12)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-12)
    assert rescore(clf, X, y, cost, lam) == pytest.approx(expected, abs=1e-12)
    assert clf.n_leaves_ == 7


def _best_depth2_objective(X, y, lam):
    """The best tree of depth <= 2 under 0/1 loss, two classes, by numpy over every
    pair of thresholds: min over root splits of each side's best leaf or stump."""
    n = len(y)
    S = np.unique(np.array([X[:, j] <= t for j in range(X.shape[1])
                            for t in np.unique(X[:, j])[:-1]]), axis=0)
    Sf, pos = S.astype(float), (y == 1).astype(float)
    tot, tp = S.sum(1).astype(float), Sf @ pos
    C, P = Sf @ Sf.T, (Sf * pos) @ Sf.T          # cell s_i & s_j: rows, class 1

    def side(c, p, c_cells, p_cells):
        """Best leaf or stump on a side of c rows (p of class 1), whose cells
        under every split j are c_cells[:, j] rows with p_cells[:, j] of class 1."""
        leaf = np.minimum(p, c - p) / n + lam
        c2, p2 = c[:, None] - c_cells, p[:, None] - p_cells
        stump = (np.minimum(p_cells, c_cells - p_cells) + np.minimum(p2, c2 - p2)) / n
        stump = np.where((c_cells > 0) & (c2 > 0), stump + 2 * lam, np.inf).min(1)
        return np.minimum(leaf, stump)

    left = side(tot, tp, C, P)
    right = side(n - tot, pos.sum() - tp, tot[None, :] - C, tp[None, :] - P)
    leaf = min(pos.sum(), n - pos.sum()) / n + lam
    return min(leaf, (left + right).min())


@pytest.mark.parametrize("root_cap", ["complete", "node"])
def test_root_pair_stage_cap(root_cap):
    """The pair stage's cap is larger at the root: with a node cap that leaves most
    children without pair values, a complete stage at the root values every child
    of a depth-2 problem exactly (each child is a leaf or a stump), so one
    expansion certifies it; with the node cap at the root too, children must be
    searched.  Either way the certified optimum is the brute-force one (the
    bitset search, not the depth-limited engine: this is a test of the pair
    stage)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 6)).round(2)
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] > -0.2)).astype(int)
    y[rng.random(120) < 0.1] ^= 1
    lam = 0.01
    clf = FastSmallTreeClassifier(regularization=lam, max_depth=2)
    # test hooks: the bitset search; the pair stage's word-work cap at a node and
    # at the root
    clf._overrides = {"depth_engine": False, "pair_cap": 10_000,
                      "pair_cap_root": 10**9 if root_cap == "complete" else 10_000}
    clf.fit(X, y)
    expected = _best_depth2_objective(X, y, lam)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-12)
    assert rescore(clf, X, y, np.ones((2, 2)) - np.eye(2), lam) == pytest.approx(
        expected, abs=1e-12)
    if root_cap == "complete":
        assert clf.search_stats_["expansions"] == 1
    else:
        assert clf.search_stats_["expansions"] > 1
