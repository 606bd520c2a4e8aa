"""Fits without a depth cap on continuous columns: the engine by leaf budget
(`fst._engine.EngineSearch` without max_depth, run first by
`fst._leaf_budget.LeafBudgetSearch`, or alone where the general search's row bitsets do
not pay), exact against brute force in every combination of the engine's rules,
handing over to the general search when it does not certify, and sound when
stopped; every tree re-scored from the raw data."""
import functools
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from fst._core import _config
from fst._core._depth_search import deeper_trees_lower_bound, leaf_budget_leaves
from fst.exceptions import NotCertifiedWarning
from oracle import optimal_objective, rescore, unbounded_problem

ENGINE_RULES = ("equivalent", "exchange", "transfer", "support", "leaf_budget", "peel_leaf",
                "similar")


@functools.lru_cache(maxsize=None)
def _problem(seed):
    X, y, cost, lam = unbounded_problem(seed)
    classes, y_idx = np.unique(y, return_inverse=True)
    K = len(classes)
    full = (np.ones((K, K)) - np.eye(K)) if cost is None else cost
    return X, y, cost, lam, y_idx, full, optimal_objective(X, y_idx, full, lam)


def _fit(seed, **overrides):
    """The fit of problem `seed`; the engine runs first (the general search's
    short first run, which certifies these small problems at once, is off)
    unless the overrides say otherwise."""
    X, y, cost, lam, *_ = _problem(seed)
    n_jobs = overrides.pop("n_jobs", 1)
    overrides.setdefault("leaf_budget_probe", False)
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, n_jobs=n_jobs)
    clf._overrides = overrides
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        clf.fit(X, y)
    return clf


def _check_exact(seed, clf):
    X, y, cost, lam, y_idx, full, expected = _problem(seed)
    assert clf.optimal_, seed
    assert clf.objective_ == pytest.approx(expected, abs=1e-9), seed
    assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full, lam) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(40))
def test_the_leaf_budget_certifies_the_unbounded_optimum(seed):
    clf = _fit(seed)
    _check_exact(seed, clf)
    # the engine certified, or the general search ran after it
    certified = clf.search_stats_["leaf_budget"]["certified"]
    assert clf.search_stats_["engine"] == ("depth" if certified else "general")


def test_the_leaf_budget_alone_certifies_most_problems():
    certified = [_fit(seed).search_stats_["leaf_budget"]["certified"] for seed in range(40)]
    assert sum(certified) >= 20


# On these few rows whose optimum is deep for its lam the engine alone may not
# finish in seconds where the general search certifies at once, so its fits
# here have a work limit.
ALONE = {"general_search": False, "work_limit": 200_000}


def _same_splits(a, b):
    """Two fits returned the same tree (its features and thresholds node by node)."""
    np.testing.assert_array_equal(a.estimator_.tree_.feature, b.estimator_.tree_.feature)
    np.testing.assert_array_equal(a.estimator_.tree_.threshold, b.estimator_.tree_.threshold)


def _check_sound(seed, clf):
    """A fit that may have stopped: exact when certified, else its bound at most
    the optimum and its tree re-scored to the objective reported."""
    X, y, cost, lam, y_idx, full, expected = _problem(seed)
    if clf.optimal_:
        _check_exact(seed, clf)
    assert clf.lower_bound_ <= expected + 1e-9
    assert clf.objective_ >= expected - 1e-9
    assert rescore(clf, X, y_idx, full, lam) == pytest.approx(clf.objective_, abs=1e-9)


@pytest.mark.parametrize("seed", range(40))
def test_the_engine_alone_certifies_the_unbounded_optimum(seed):
    """Where the general search does not follow the engine (its row bitsets do
    not pay, `fst._spaces.general_search_pays`; here the `general_search` override
    off), the engine deepens by leaf budget alone until it certifies: the exact
    optimum, and the tree of the fit the general search may finish (one tie
    rule); sound where it stops at its work limit."""
    clf = _fit(seed, **ALONE)
    _check_sound(seed, clf)
    assert clf.search_stats_["engine"] == "depth"
    assert "leaf_budget" not in clf.search_stats_
    if clf.optimal_:
        both = _fit(seed, general_search=True)
        _same_splits(clf, both)


def test_the_engine_alone_certifies_most_problems():
    assert sum(_fit(seed, **ALONE).optimal_ for seed in range(40)) >= 30


def test_the_leaf_budget_stage_keeps_the_nodes_it_searched():
    """Without max_depth the engine's stage before the general search keeps the
    nodes it searched below its root (`_depth_memo`), from which a similar
    node's bound is read too (`similar_node_bound`): with the store, without
    it, and with it but without the rule, the same exact tree and bound; where
    the stage certifies, the store answers nodes on many problems and the rule
    on several, neither when off; the engine alone keeps none."""
    used = {"memo_hits": 0, "similar_bounds": 0}
    for seed in range(40):
        fits = {"on": _fit(seed), "no_store": _fit(seed, engine_memo=False),
                "no_rule": _fit(seed, rules_off=["similar"])}
        for clf in fits.values():
            _check_exact(seed, clf)
            _same_splits(fits["on"], clf)
            assert clf.lower_bound_ == fits["on"].lower_bound_
        if fits["on"].search_stats_["engine"] == "depth":
            # the stage certified: the fit's statistics are its own
            for stat in used:
                used[stat] += fits["on"].search_stats_[stat] > 0
            assert fits["no_store"].search_stats_["memo_hits"] == 0
            assert fits["no_store"].search_stats_["similar_bounds"] == 0
            assert fits["no_rule"].search_stats_["similar_bounds"] == 0
        alone = _fit(seed, **ALONE)
        assert alone.search_stats_["memo_hits"] == alone.search_stats_["similar_bounds"] == 0
    assert used["memo_hits"] >= 10 and used["similar_bounds"] >= 5, used


def test_the_general_search_follows_where_its_row_bitsets_pay(monkeypatch):
    """The general search follows the engine when its row bitsets take at most
    GENERAL_BITS_PER_CELL bytes a row and column (eight times as many thresholds
    a column on average); past that, or with the override off, the engine runs
    alone.  6,000 rows of three continuous columns are past it."""
    import fst._spaces as spaces

    cap = spaces.GENERAL_BITS_PER_CELL
    assert spaces.general_search_pays(8 * cap, 64, 1)
    assert not spaces.general_search_pays(8 * cap + 1, 64, 1)
    assert spaces.general_search_pays(3 * 8 * cap, 64, 3)
    routes = {}
    for bits in (0, 10**9):
        monkeypatch.setattr(spaces, "GENERAL_BITS_PER_CELL", bits)
        routes[bits] = [("leaf_budget" in _fit(seed).search_stats_) for seed in range(8)]
    assert not any(routes[0]) and all(routes[10**9])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6_000, 3))
    y = ((X[:, 0] > 0) ^ (rng.random(6_000) < 0.1)).astype(int)
    monkeypatch.setattr(spaces, "GENERAL_BITS_PER_CELL", cap)
    clf = FastSmallTreeClassifier(regularization=0.05).fit(X, y)
    assert "leaf_budget" not in clf.search_stats_ and clf.search_stats_["engine"] == "depth"
    assert clf.optimal_
    both = FastSmallTreeClassifier(regularization=0.05)
    both._overrides = {"general_search": True}
    both.fit(X, y)
    assert "leaf_budget" in both.search_stats_
    assert both.objective_ == pytest.approx(clf.objective_, abs=1e-12)
    assert (np.mean(clf.predict(X) != y) + 0.05 * clf.n_leaves_
            == pytest.approx(clf.objective_, abs=1e-12))


@pytest.mark.parametrize("seed", range(0, 40, 2))
def test_the_engine_deepened_to_depth_three_before_the_general_search(seed):
    """`leaf_budget_deepen` 3: the engine searches depth 3 even where its deepest
    search could not certify, then goes on as before; the same optimum and tree
    as the default fit, which leaves those depths to the general search."""
    clf = _fit(seed, leaf_budget_deepen=3)
    _check_exact(seed, clf)
    default = _fit(seed)
    budget = clf.search_stats_["leaf_budget"]
    assert budget["certified"] or budget["depth_searched"] >= 3
    assert budget["depth_searched"] >= default.search_stats_["leaf_budget"]["depth_searched"]
    _same_splits(clf, default)


@pytest.mark.parametrize("combo", range(1 << (len(ENGINE_RULES) + 1)))
def test_every_engine_rule_combination_without_a_depth_cap(combo):
    """The engine's rules (loss floor; neighbour and moved-rows bounds; interval
    and superset bounds; leaf support; leaf budget; a leaf beside a subtree; a
    similar node's bound) each off or on, with one engine or three (three
    where an odd number is on), followed by the general search (the unbounded
    optimum, exactly; with or without the stage's store of searched nodes) or
    alone (exact where it certifies within its work limit, sound where it
    stops)."""
    off = [name for i, name in enumerate(ENGINE_RULES) if not combo >> i & 1]
    memo = not combo >> len(ENGINE_RULES) & 1
    n_jobs = 3 if bin(combo).count("1") % 2 else 1
    for seed in range(combo % 8, 40, 8):
        _check_exact(seed, _fit(seed, rules_off=off, n_jobs=n_jobs, engine_memo=memo))
        _check_sound(seed, _fit(seed, rules_off=off, n_jobs=n_jobs, **ALONE))


@pytest.mark.parametrize("seed", range(40))
def test_a_shallow_leaf_budget_hands_over_to_the_general_search(seed):
    """With the engine's searches capped at depth two, a problem it cannot
    certify there goes on in the general search: still the exact optimum, and the
    same tree as the general search alone (one tie rule)."""
    clf = _fit(seed, leaf_budget_depth=2)
    _check_exact(seed, clf)
    alone = _fit(seed, leaf_budget_stage=False)
    _check_exact(seed, alone)
    assert "leaf_budget" not in alone.search_stats_
    _same_splits(clf, alone)


@pytest.mark.parametrize("seed", range(40))
def test_the_general_search_s_first_run_certifies_the_same_tree(seed):
    """As shipped, the general search's short first run comes first and
    certifies these small problems: the engine's tree and the same optimum."""
    clf = _fit(seed, leaf_budget_probe=True)
    _check_exact(seed, clf)
    engine = _fit(seed)
    _same_splits(clf, engine)


@pytest.mark.parametrize("seed", range(0, 40, 4))
def test_the_first_run_ends_at_its_work(seed, monkeypatch):
    """The general search's first run ends at PROBE_WORK of its work (not at a
    time: the fit's path does not depend on the machine's speed), or at the
    fit's own work limit (the test hook) where that is lower; the engine
    follows, then a fresh general search without the first run's limit: here a
    first run cut at 2,000 units of work, and the same optimum and tree as the
    fit without a first run."""
    import fst._leaf_budget as leaf_budget
    import fst._plan as plan

    limits = []
    set_work_limit = plan.Search.set_work_limit

    class Spy(plan.Search):
        def set_work_limit(self, work):
            limits.append(work)
            return set_work_limit(self, work)

    monkeypatch.setattr(plan, "Search", Spy)
    monkeypatch.setattr(leaf_budget, "PROBE_WORK", 2000)
    clf = _fit(seed, leaf_budget_probe=True, leaf_budget_depth=2)
    _check_exact(seed, clf)
    # only the first run is given a work limit (the fresh search has none)
    assert limits == [2000]
    fresh = _fit(seed, leaf_budget_depth=2)
    _same_splits(clf, fresh)
    limits.clear()
    capped = _fit(seed, leaf_budget_probe=True, work_limit=500)
    assert limits[0] == 500
    _check_sound(seed, capped)


def test_a_first_run_cut_short_leaves_the_fit_to_the_engine(monkeypatch):
    """A first run whose work limit is below one expansion's work certifies
    only the problems of one expansion; on the others the engine by leaf
    budget runs (its entry in the statistics)."""
    import fst._leaf_budget as leaf_budget

    monkeypatch.setattr(leaf_budget, "PROBE_WORK", 2000)
    ran = [("leaf_budget" in _fit(seed, leaf_budget_probe=True).search_stats_)
           for seed in range(40)]
    assert sum(ran) >= 20


def test_the_first_run_certifies_where_the_engine_would_search_deep():
    """A problem the general search certifies within its first run's work while
    the engine by leaf budget would search to depth 4 first (as compas_processed
    at lam = 0.05): the fit ends in that run, with the engine's optimum and
    tree."""
    seeds = []
    for seed in range(40):
        first = _fit(seed, leaf_budget_probe=True)
        if "leaf_budget" in first.search_stats_:
            continue                    # the first run did not certify it
        engine = _fit(seed)
        _check_exact(seed, first)
        _same_splits(first, engine)
        seeds.append(seed)
    assert len(seeds) >= 20


def test_the_engine_alone_stopped_by_its_depth_says_search_limit(monkeypatch):
    """The engine alone deepens as far as it goes (`MAX_ENGINE_DEPTH`, here cut
    to 2): where a deeper tree could still beat its best, the fit ends by
    itself uncertified, and says so ('search_limit', never 'optimal' beside
    optimal_ False), with a sound bound and tree."""
    import fst._plan as plan

    monkeypatch.setattr(plan, "MAX_ENGINE_DEPTH", 2)
    stopped = 0
    for seed in range(40):
        clf = _fit(seed, **ALONE)
        _check_sound(seed, clf)
        assert (clf.status_ == "optimal") == clf.optimal_
        if not clf.optimal_:
            assert clf.status_ == "search_limit"
            stopped += 1
    assert stopped > 0


def test_some_problems_need_the_handover():
    """The hand-over test above reaches the general search on some problems."""
    ran = [not _fit(seed, leaf_budget_depth=2).search_stats_["leaf_budget"]["certified"]
           for seed in range(40)]
    assert any(ran) and not all(ran)


@pytest.mark.parametrize("general", [True, False])
@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_a_stopped_leaf_budget_fit_is_sound(seed, general):
    """Stops after 1 to 256 units of work of each search, with the general search
    after the engine or the engine alone: the bound never exceeds the optimum,
    the tree re-scores to the objective reported."""
    for work in (1, 2, 4, 16, 64, 256):
        clf = _fit(seed, work_limit=work, general_search=general)
        assert ("leaf_budget" in clf.search_stats_) == general
        _check_sound(seed, clf)


def test_leaf_budget_arithmetic():
    """A tree of value at most B has at most (B - floor) / lam leaves (a few ulps
    of slack); a tree deeper than D has at least D + 2 leaves."""
    assert leaf_budget_leaves(0.1, 0.0, 0.02) == 5
    assert leaf_budget_leaves(0.1 - 1e-6, 0.0, 0.02) == 4
    assert leaf_budget_leaves(0.107, 0.02, 0.02) == 4
    assert leaf_budget_leaves(0.5, 0.0, 0.0) >= 1 << 20
    assert leaf_budget_leaves(-1.0, 0.0, 0.1) == 0
    assert deeper_trees_lower_bound(0.01, 0.02, 3) == pytest.approx(0.11)


def test_progress_lines_bound_every_tree(monkeypatch, capsys):
    """verbose=2 prints progress lines from the engine and then the general
    search; the engine's bound is that of every tree (its depth's bound lowered
    to the deeper trees'), so no line's bound exceeds the fit's final one."""
    import re

    import fst._utils as fc

    monkeypatch.setattr(fc, "PROGRESS_SECONDS", 0.2)
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(300, 6))
    y = (X[:, 0] + 0.3 * rng.uniform(size=300) > 0.6).astype(int)
    clf = FastSmallTreeClassifier(regularization=0.004, time_limit=3, verbose=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        clf.fit(X, y)
    lines = re.findall(r"\[fst\] +([0-9.]+) s  lower bound ([0-9.]+)  best ([0-9.]+)",
                       capsys.readouterr().out)
    assert len(lines) >= 2
    assert "leaf_budget" in clf.search_stats_
    for _, low, best in lines:
        assert float(low) <= float(best)
        assert float(low) <= clf.lower_bound_ + 1e-9


def test_a_general_search_run_again_resumes():
    """`Search.set_time_limit` then `run` again continues a stopped search from
    its store: the optimum of one uninterrupted run, and the same tree."""
    from fst._core._config import make_config
    from fst._core._problem import build_problem
    from fst._core._solver import Search

    rng = np.random.RandomState(1)
    X = rng.uniform(size=(60, 3)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] + 0.4 * rng.uniform(size=60) > 1.1).astype(np.int32)
    cost = np.ones((2, 2)) - np.eye(2)
    problem = build_problem(X, y, 2, cost, None)
    whole = Search(problem, make_config(regularization=0.03, time_limit=60))
    assert whole.run() == 0 and whole.solved
    parts = Search(problem, make_config(regularization=0.03, time_limit=0.0))
    parts.run()
    assert not parts.solved
    parts.set_time_limit(60)
    assert parts.run() == 0 and parts.solved
    assert parts.upper_bound == pytest.approx(whole.upper_bound, abs=1e-12)
    for a, b in zip(parts.extract()[:3], whole.extract()[:3]):
        np.testing.assert_array_equal(a, b)


def _hard_problem():
    """3,000 rows of six continuous columns with an interaction: no fit without a
    depth cap certifies it in a few seconds at lam = 0.001."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3_000, 6))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] - X[:, 3] + rng.normal(size=3_000) > 0)
    return X, y.astype(int)


def _starve_searches(monkeypatch, dpdt_share):
    """The engine by leaf budget left almost no time, no depth-3 fallback, and
    `dpdt_share` of the time limit kept for DPDT's tree."""
    import fst._leaf_budget as leaf_budget
    import fst._plan as plan

    monkeypatch.setattr(plan, "LEAF_BUDGET_TIME_SHARE", 0.001)
    monkeypatch.setattr(plan, "LEAF_BUDGET_LAST_SHARE", 0.001)
    # the plan's and the leaf-budget search's shares alike
    for module in (plan, leaf_budget):
        monkeypatch.setattr(module, "FALLBACK_TIME_SHARE", 0.0)
        monkeypatch.setattr(module, "DPDT_TIME_SHARE", dpdt_share)


def test_a_general_search_stopped_mid_pass_resumes():
    """A search stopped by its time limit in the middle of a pass (the first
    pass or a rung cut at its work) and run again goes on searching: each run
    ends at its limit with a time stop, not with the pass's own cut, and its
    bound never falls."""
    from fst._core._config import make_config
    from fst._core._problem import build_problem
    from fst._core._limits import STATUS_NAMES
    from fst._core._solver import Search

    X, y = _hard_problem()
    problem = build_problem(X.astype(np.float32), y.astype(np.int32), 2,
                            np.ones((2, 2)) - np.eye(2), None)
    search = Search(problem, make_config(regularization=0.001, time_limit=0.2))
    assert STATUS_NAMES[search.run()] == "time_limit"
    bounds = [search.lower_bound]
    for _ in range(3):
        search.set_time_limit(0.2)
        assert STATUS_NAMES[search.run()] == "time_limit"
        bounds.append(search.lower_bound)
    assert all(a <= b + 1e-12 for a, b in zip(bounds, bounds[1:]))
    assert bounds[-1] <= search.upper_bound


def test_the_certifying_search_may_run_past_the_engine_s_share(monkeypatch):
    """The engine by leaf budget has LEAF_BUDGET_TIME_SHARE of the time limit,
    except the search whose depth holds every tree as good as its seed (the one
    that certifies), which may run to LEAF_BUDGET_LAST_SHARE of it: the limits
    each depth's search was given, with whether its seed (the depth before's
    optimum) made it that search."""
    import fst._engine as fe
    from fst._leaf_budget import LEAF_BUDGET_LAST_SHARE, LEAF_BUDGET_TIME_SHARE

    given = []
    search = fe.EngineSearch._search

    def spy(self, depth, time_limit):
        seeded = self._s is not None and self._s.solved
        given.append((time_limit, seeded and self._covers(depth, self._s.upper_bound)))
        return search(self, depth, time_limit)

    monkeypatch.setattr(fe.EngineSearch, "_search", spy)
    limit = 1000.0
    last = 0
    for seed in range(40):
        X, y, cost, lam, *_ = _problem(seed)
        given.clear()
        clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, time_limit=limit)
        clf._overrides = {"leaf_budget_probe": False}
        clf.fit(X, y)
        for seconds, certifying in given:
            if certifying:
                last += 1
                assert limit * LEAF_BUDGET_TIME_SHARE < seconds <= limit * LEAF_BUDGET_LAST_SHARE
            else:
                assert seconds <= limit * LEAF_BUDGET_TIME_SHARE
    assert last >= 3


@pytest.mark.parametrize("general", [True, False])
def test_a_time_stopped_fit_without_a_depth_cap_returns_at_least_dpdt(monkeypatch, general):
    """After a time stop without max_depth, DPDT's tree of LEAF_BUDGET_DEPTH at the
    fit's lam (grown in the share of the time limit kept for it) is returned when it
    is better, whether the general search followed the engine or not.  The
    searches are left almost nothing here, so that DPDT's tree wins and is the
    one returned, re-scored; the fit's bound still holds for it."""
    import fst._plan as plan
    from fst import DPDTClassifier

    _starve_searches(monkeypatch, 0.995)
    X, y = _hard_problem()
    lam = 0.001
    clf = FastSmallTreeClassifier(regularization=lam, time_limit=4.0)
    clf._overrides = {"general_search": general}
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y)
    dpdt = DPDTClassifier(max_depth=plan.LEAF_BUDGET_DEPTH, complexity="leaves",
                          alphas=[lam], alpha=lam).fit(X, y)
    dpdt_objective = np.mean(dpdt.predict(X) != y) + lam * dpdt.estimator_.tree_.n_leaves
    assert not clf.optimal_ and clf.status_ == "time_limit"
    assert clf.search_stats_["incumbent"] == "dpdt"
    assert clf.objective_ <= dpdt_objective + 1e-12
    assert clf.get_depth() <= plan.LEAF_BUDGET_DEPTH
    assert (np.mean(clf.predict(X) != y) + lam * clf.n_leaves_
            == pytest.approx(clf.objective_, abs=1e-12))
    assert clf.lower_bound_ <= clf.objective_


def test_a_weighted_engine_only_fit_without_a_depth_cap_returns_at_least_dpdt(monkeypatch):
    """Sample weights of more distinct values than the general search counts go
    to the engine alone; stopped without max_depth it too returns DPDT's tree of
    LEAF_BUDGET_DEPTH when better, grown with the same weights."""
    import fst._plan as plan
    from fst import DPDTClassifier

    _starve_searches(monkeypatch, 0.995)
    X, y = _hard_problem()
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=len(y))
    lam = 0.001
    clf = FastSmallTreeClassifier(regularization=lam, time_limit=12.0)
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y, sample_weight=w)
    dpdt = DPDTClassifier(max_depth=plan.LEAF_BUDGET_DEPTH, complexity="leaves",
                          alphas=[lam], alpha=lam).fit(X, y, sample_weight=w)

    def objective(est):
        return np.sum(w * (est.predict(X) != y)) / w.sum() + lam * est.get_n_leaves()

    assert clf.search_stats_["engine"] == "depth" and "leaf_budget" not in clf.search_stats_
    assert clf.search_stats_["incumbent"] == "dpdt"
    assert clf.objective_ <= objective(dpdt) + 1e-12
    assert objective(clf) == pytest.approx(clf.objective_, abs=1e-12)
    assert clf.lower_bound_ <= clf.objective_


@pytest.mark.parametrize("general", [True, False])
def test_a_stopped_fit_without_a_depth_cap_under_min_samples_leaf_skips_dpdt(monkeypatch,
                                                                             general):
    """DPDT's trees do not keep min_samples_leaf: under it a stopped fit without
    max_depth grows none (without it, the same fit grows one), and its tree keeps
    the constraint, with the general search after the engine or without."""
    import fst._dpdt
    import fst._plan as plan

    _starve_searches(monkeypatch, 0.995)
    grown = []
    fit = fst._dpdt.DPDTClassifier.fit

    def spy(self, X, y, sample_weight=None):
        grown.append(len(X))
        return fit(self, X, y, sample_weight=sample_weight)

    monkeypatch.setattr(fst._dpdt.DPDTClassifier, "fit", spy)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3_000, 6))
    y = (X[:, 0] * X[:, 1] + rng.normal(size=3_000) > 0).astype(int)
    for min_leaf in (1, 40):
        grown.clear()
        clf = FastSmallTreeClassifier(regularization=0.001, min_samples_leaf=min_leaf,
                                      time_limit=2.0)
        clf._overrides = {"general_search": general}
        with pytest.warns(NotCertifiedWarning):
            clf.fit(X, y)
        assert not clf.optimal_
        assert (len(grown) > 0) == (min_leaf == 1)
        leaves = clf.estimator_.tree_.children_left < 0
        assert clf.estimator_.tree_.n_node_samples[leaves].min() >= min_leaf


def test_dpdt_s_tree_is_grown_between_two_runs_of_the_general_search(monkeypatch):
    """Without max_depth, a general search stopped at its share of the time limit
    makes way for DPDT's tree (`LeafBudgetSearch.interlude`), then resumes for
    what DPDT left of its share: after its first run (PROBE_WORK, before the
    engine), two runs of the general search, one DPDT between them, and the
    fit ends within its time limit with a time stop."""
    import time

    import fst._plan as plan

    _starve_searches(monkeypatch, 0.5)
    runs, grown = [], []
    search_run = plan.Search.run
    dpdt_fit = plan.FitPlan._dpdt_fit

    class Spy(plan.Search):
        def run(self):
            runs.append(1)
            return search_run(self)

    def spy_dpdt(self, *args):
        grown.append(len(runs))
        return dpdt_fit(self, *args)

    monkeypatch.setattr(plan, "Search", Spy)
    monkeypatch.setattr(plan.FitPlan, "_dpdt_fit", spy_dpdt)
    X, y = _hard_problem()
    started = time.perf_counter()
    clf = FastSmallTreeClassifier(regularization=0.001, time_limit=6.0)
    clf._overrides = {"general_search": True}
    with pytest.warns(NotCertifiedWarning):
        clf.fit(X, y)
    assert time.perf_counter() - started < 6.0 + 0.5
    assert clf.status_ == "time_limit" and not clf.optimal_
    assert len(runs) == 3 and grown == [2]
    assert clf.lower_bound_ <= clf.objective_
    assert (np.mean(clf.predict(X) != y) + 0.001 * clf.n_leaves_
            == pytest.approx(clf.objective_, abs=1e-12))


class _StarvedSearch:
    """A general search whose every run stops at once on its time limit (the
    rest of it as made)."""

    def __init__(self, search):
        self._search = search

    def run(self):
        self._search.set_time_limit(0.0)
        return self._search.run()

    def set_time_limit(self, seconds):
        pass

    def __getattr__(self, name):
        return getattr(self._search, name)


def _floor(X, y_idx, cost):
    """The equivalent-points floor of the objective: each group of identical
    rows costs at least its cheapest label, over the rows."""
    _, group = np.unique(X, axis=0, return_inverse=True)
    counts = np.zeros((group.max() + 1, cost.shape[0]))
    np.add.at(counts, (group.ravel(), y_idx), 1.0)
    return float((counts @ cost).min(axis=1).sum()) / len(y_idx)


def _depth_fallback_fit(seed, monkeypatch, take=True):
    """The fit of problem `seed` with the engine capped at depth two and every
    run of the general search stopped on its time limit at once: a stopped fit,
    which searches the depth-3 optimum as its fallback.  take: whether the fit
    keeps what that fallback certifies."""
    import fst._classifier as fc
    import fst._plan as plan

    made = plan.LeafBudgetSearch._general
    monkeypatch.setattr(plan.LeafBudgetSearch, "_general",
                        lambda self, seconds: _StarvedSearch(made(self, seconds)))
    if not take:
        monkeypatch.setattr(fc.FastSmallTreeClassifier, "_take_depth_certificate",
                            lambda self, cert: None)
    X, y, cost, lam, *_ = _problem(seed)
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, time_limit=60)
    clf._overrides = {"leaf_budget_probe": False, "leaf_budget_depth": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        clf.fit(X, y)
    monkeypatch.undo()
    return clf


def test_a_certified_depth_fallback_bounds_or_certifies_a_stopped_fit(monkeypatch):
    """A stopped fit's depth-3 fallback that certifies its optimum V proves that
    every tree is worth at least min(V, m + 5 lam) (a deeper tree has five leaves
    at least), and V is the optimum where every tree as good as V has depth at
    most 3: the fit is then certified, with the canonical tree (that of the fit
    that was not stopped), else its bound is raised to that one.  Both happen on
    these problems, and every bound stays at most the optimum."""
    covered = raised = 0
    for seed in range(40):
        X, y, cost, lam, y_idx, full, expected = _problem(seed)
        clf = _depth_fallback_fit(seed, monkeypatch)
        _check_sound(seed, clf)
        if "leaf_budget" in clf.search_stats_ and clf.search_stats_["leaf_budget"]["certified"]:
            continue        # the engine certified at depth two: nothing stopped
        depth3 = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=3,
                                         time_limit=60).fit(X, y)
        assert depth3.optimal_
        bound = min(depth3.objective_, deeper_trees_lower_bound(_floor(X, y_idx, full), lam, 3))
        if bound < clf.objective_ - 1e-9:
            assert clf.lower_bound_ >= bound - 1e-9
        if clf.optimal_:
            covered += 1
            assert clf.search_stats_["incumbent"] == "depth"
            _same_splits(clf, _fit(seed))
        else:
            without = _depth_fallback_fit(seed, monkeypatch, take=False)
            assert without.objective_ == pytest.approx(clf.objective_, abs=1e-12)
            assert clf.lower_bound_ >= without.lower_bound_
            raised += clf.lower_bound_ > without.lower_bound_ + 1e-12
    assert covered and raised, (covered, raised)
