"""max_leaf_nodes: the optimum among the trees of at most that many leaves, exact
against brute force (the depth-limited engine under the cap, with and without
max_depth, lam = 0 included) in every combination of the engine's rules, with
threads, weights and min_samples_leaf; every tree re-scored and its leaves
counted from the raw data; a stopped fit keeps the cap; the path,
cross-validation and the command line take it."""
import contextlib
import functools
import warnings
from unittest import mock

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from fst import FastSmallTreeClassifier, FastSmallTreeClassifierCV, regularization_path
from fst.__main__ import main
from fst._engine import EngineSearch
from fst._utils import obeys_min_leaf
from fst.exceptions import ConstantTreeWarning, NotCertifiedWarning
from oracle import (continuous_problem, optimal_objective, problem_cost, random_problem,
                    rescore, sample_weights, unbounded_problem)

# The rules the depth-limited engine reads.
ENGINE_RULES = ("equivalent", "support", "exchange", "transfer", "leaf_budget", "peel_leaf",
                "larger_cap", "allocations", "similar")


# The kinds of problem (`_problem`).
KINDS = ("random", "continuous", "unbounded", "free")


def _problem(kind, seed):
    """(X, y, cost, lam, max_depth, weights, min_leaf, max_leaf_nodes) of a small
    problem of each kind: `random` (binary, small-integer and NaN columns, with
    or without max_depth, lam = 0 among them), `continuous` (many thresholds a
    column, under max_depth), `unbounded` (few thresholds a column, without a
    depth cap), `free` (the continuous problems without a depth cap, lam = 0 on
    every other seed: the deepening under the cap, and its deepest search's
    root valued split by split, which the rising bound runs against budgets);
    caps of 2 to 6 leaves,
    weights on every third seed, min_samples_leaf 2 on every fifth."""
    if kind == "random":
        X, y, cost, lam, depth = random_problem(5000 + seed)
    elif kind in ("continuous", "free"):
        X, y, cost, lam, depth = continuous_problem(5000 + seed)
        if kind == "free":
            depth = None
            lam = lam if seed % 2 else 0.0
    else:
        X, y, cost, lam = unbounded_problem(5000 + seed)
        depth = None
    w = sample_weights(seed, y) if seed % 3 == 2 else None
    return X, y, cost, lam, depth, w, 2 if seed % 5 == 4 else 1, 2 + seed % 5


@functools.lru_cache(maxsize=None)
def _expected(kind, seed):
    """(the optimum under the cap, the optimum without it, class index of each
    row, the full cost matrix), by brute force, once per run."""
    X, y, cost, lam, depth, w, ml, k = _problem(kind, seed)
    y_idx, full = problem_cost(y, cost)
    free = (optimal_objective(X, y_idx, full, lam, depth, weights=w, min_leaf=ml)
            if depth is not None or lam > 0 else None)
    return (optimal_objective(X, y_idx, full, lam, depth, weights=w, min_leaf=ml,
                              max_leaves=k), free, y_idx, full)


@contextlib.contextmanager
def _risen_bounds():
    """A list that collects every bound the runs against budgets prove while
    the block runs (`EngineSearch._rise`, through `_raise_lb`)."""
    risen = []
    keep = EngineSearch._raise_lb

    def raise_lb(search, lb):
        risen.append(lb)
        keep(search, lb)

    with mock.patch.object(EngineSearch, "_raise_lb", raise_lb):
        yield risen


def _check(kind, seed, overrides=None, n_jobs=1, probe=False):
    """Fit problem (kind, seed) under its cap and check it against the brute
    force: by the engine alone, or with `probe` as a fit runs it (at lam > 0
    on binary or binned columns the general search's first run without the
    cap comes first, `CapProbeSearch`, and may answer)."""
    X, y, cost, lam, depth, w, ml, k = _problem(kind, seed)
    expected, _, y_idx, full = _expected(kind, seed)
    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=depth,
                                  min_samples_leaf=ml, max_leaf_nodes=k, n_jobs=n_jobs,
                                  time_limit=None)
    # test hook: the search's settings
    clf._overrides = dict(overrides or {}) if probe else {"cap_probe": False,
                                                          **(overrides or {})}
    with warnings.catch_warnings(), _risen_bounds() as risen:
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.fit(X, y, sample_weight=w)
    assert all(lb <= expected + 1e-9 for lb in risen), (kind, seed, risen, expected)
    assert clf.optimal_, (kind, seed)
    answered = clf.search_stats_.get("cap_probe", {}).get("answered", False)
    assert clf.search_stats_["engine"] == ("general" if answered else "depth")
    assert probe or "cap_probe" not in clf.search_stats_
    assert clf.search_stats_["max_leaves"] == k
    assert clf.objective_ == pytest.approx(expected, abs=1e-9), (kind, seed)
    assert clf.lower_bound_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)
    assert clf.n_leaves_ == clf.estimator_.get_n_leaves() <= k
    assert depth is None or clf.get_depth() <= depth
    assert obeys_min_leaf(clf.estimator_, np.asarray(X, dtype=np.float32),
                          slice(None) if w is None else np.asarray(w) > 0, ml, k)
    return clf


def _stopped_fit(clf, X, y, w, k, y_idx, full, lam):
    """Fit `clf`, which may stop or end uncertified (no warning raised), and
    check its tree: a real tree of at most k leaves that re-scores to its
    objective from the data.  Returns it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.fit(X, y, sample_weight=w)
    assert clf.n_leaves_ == clf.estimator_.get_n_leaves() <= k
    assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(clf.objective_, abs=1e-9)
    return clf


def _assert_same_fit(on, off):
    """Two fits of one problem give the same tree node for node and the same
    bound."""
    for attr in ("feature", "threshold", "children_left", "children_right", "value"):
        np.testing.assert_array_equal(getattr(on.estimator_.tree_, attr),
                                      getattr(off.estimator_.tree_, attr))
    assert on.lower_bound_ == off.lower_bound_


def _same_fits_with_and_without(overrides, stat):
    """Every problem of every kind, serial and threaded, fitted as it is and
    with `overrides`: node for node the same fit, `stat` 0 in the second; the
    number of fits in which the first has it above 0."""
    used = 0
    for kind in KINDS:
        for seed in range(30):
            for n_jobs in (1, 2):
                on = _check(kind, seed, n_jobs=n_jobs)
                off = _check(kind, seed, overrides, n_jobs)
                _assert_same_fit(on, off)
                assert off.search_stats_[stat] == 0
                used += on.search_stats_[stat] > 0
    return used


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("kind", KINDS)
def test_max_leaf_nodes_matches_brute_force(kind, seed):
    _check(kind, seed)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_first_run_without_the_cap_changes_no_answer(n_jobs):
    """At lam > 0 on binary or binned columns a fit under the cap first runs the
    general search without it (`CapProbeSearch`), whose certified optimum, where
    it has at most k leaves, is the answer: node for node the engine's tree
    under the cap, with its bound, on every problem; it answers many of them,
    and runs on none at lam = 0."""
    answered = binding = 0
    for kind in KINDS:
        for seed in range(30):
            on = _check(kind, seed, n_jobs=n_jobs, probe=True)
            off = _check(kind, seed, n_jobs=n_jobs)
            _assert_same_fit(on, off)
            probe = on.search_stats_.get("cap_probe")
            lam = _problem(kind, seed)[3]
            assert lam > 0 or probe is None
            if probe is not None:
                answered += probe["answered"]
                binding += probe["certified"] and not probe["answered"]
    assert answered >= 15 and binding >= 3, (answered, binding)


def test_the_general_search_after_a_stopped_engine_answers_or_bounds(monkeypatch):
    """With a time limit, the engine under the cap stopped at its share (here
    after one unit of its work) is followed by the general search without the
    cap anew (`CapProbeSearch`; its first run cut after one unit of its work):
    where a general search certifies an optimum within the cap, the fit is
    certified with the engine's own tree node for node; otherwise a tree
    within the cap, no better than the optimum, and a bound at most the
    optimum."""
    import fst._leaf_budget as leaf_budget
    import fst._plan as plan

    def stopped_engine(problem, config, **kwargs):
        return EngineSearch(problem, dict(config, work_limit=1), **kwargs)

    monkeypatch.setattr(leaf_budget, "PROBE_WORK", 1)
    monkeypatch.setattr(plan, "EngineSearch", stopped_engine)
    answered = again = late = stopped = 0
    for kind in ("random", "unbounded"):
        for seed in range(90 if kind == "random" else 30):
            X, y, cost, lam, depth, w, ml, k = _problem(kind, seed)
            if not lam > 0:
                continue
            expected, _, y_idx, full = _expected(kind, seed)
            clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost,
                                          max_depth=depth, min_samples_leaf=ml,
                                          max_leaf_nodes=k, time_limit=60)
            _stopped_fit(clf, X, y, w, k, y_idx, full, lam)
            assert clf.lower_bound_ <= expected + 1e-9
            probe = clf.search_stats_.get("cap_probe")
            if probe is None:
                continue            # (continuous columns: the engine alone)
            again += probe["ran_again"]
            if clf.optimal_:
                # (or the engine certified within its unit of work)
                with monkeypatch.context() as m:
                    m.setattr(plan, "EngineSearch", EngineSearch)
                    _assert_same_fit(clf, _check(kind, seed))
                answered += probe["answered"]
                late += probe["answered"] and probe["ran_again"]
            else:
                # (CART's fallback tree, which may send NaN left, is not one of
                # the trees searched, and may be better)
                assert clf.objective_ >= expected - 1e-9 or "incumbent" in clf.search_stats_
                # the general search's optimum has more leaves than the cap
                # (mostly: the cap binds on these problems), or it stopped
                stopped += 1
    assert answered >= 30 and again >= 5 and late >= 2 and stopped >= 3, (
        answered, again, late, stopped)


def test_a_first_run_without_the_cap_stopped_keeps_the_cap():
    """Fits stopped after any amount of work in the general search's first run
    or the engine after it: a real tree of at most k leaves, re-scored from the
    data, and a bound at most the optimum under the cap."""
    stops = 0
    for kind in ("random", "unbounded"):
        for seed in range(1, 30, 2):
            X, y, cost, lam, depth, w, ml, k = _problem(kind, seed)
            if not lam > 0:
                continue
            expected, _, y_idx, full = _expected(kind, seed)
            for work in (1, 30, 300, 3000):
                clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost,
                                              max_depth=depth, min_samples_leaf=ml,
                                              max_leaf_nodes=k)
                clf._overrides = {"work_limit": work}
                _stopped_fit(clf, X, y, w, k, y_idx, full, lam)
                # (CART's fallback tree, which may send NaN left, is not one of
                # the trees searched, and may be better)
                assert clf.objective_ >= expected - 1e-9 or "incumbent" in clf.search_stats_
                assert clf.lower_bound_ <= expected + 1e-9
                stops += not clf.optimal_
    assert stops >= 10, stops


def test_the_cap_binds_on_these_problems():
    """The problems above are not vacuous: on many of them the optimum under the
    cap is worse than the optimum without it."""
    for kind in ("random", "continuous", "unbounded"):
        binds = sum(_expected(kind, s)[1] is not None
                    and _expected(kind, s)[0] > _expected(kind, s)[1] + 1e-9
                    for s in range(30))
        assert binds >= 6, (kind, binds)


@pytest.mark.parametrize("combo", [c if c % 16 == 0 else pytest.param(c, marks=pytest.mark.slow)
                                   for c in range(1 << (len(ENGINE_RULES) + 2))])
def test_engine_every_rule_combination(combo):
    """The engine's rules (the loss floor, leaf support, the neighbour and
    interval bounds with their per-cap form, the leaf budget, a leaf beside a
    subtree, a larger cap's bound from the store, the splits valued
    allocation by allocation, a similar node's bound) each off or on, one
    engine or three at the root, with or without the store of searched
    nodes, with or without the rising bound or the subsets' bound: the
    oracle's optimum under the cap."""
    rules = [name for i, name in enumerate(ENGINE_RULES) if combo >> i & 1]
    n_jobs = 3 if combo >> len(ENGINE_RULES) & 1 else 1
    memo = not combo >> (len(ENGINE_RULES) + 1) & 1
    # every third combination proves its deepest search's bound upward from its
    # start (`EngineSearch._rise`), its root run against budgets, and another
    # third bounds it from subsets of the rows first (`_subset_bound`), their
    # searches under the same rules (`_check` holds every bound either proves
    # to the optimum)
    rise = 0.0 if combo % 3 == 1 else False
    subset = 0.0 if combo % 3 == 2 else False
    for kind in KINDS:
        for seed in range(combo % 5, 30, 10):
            _check(kind, seed, {"rules": rules, "engine_memo": memo, "rising_bound": rise,
                                "subset_bound": subset}, n_jobs)


def test_a_similar_nodes_bound_changes_no_answer():
    """A node bounded by a node of the same depth and cap searched before,
    less the worst cost of the rows that one holds and this one does not
    (`similar_node_bound`, from the store's rings): with it and without it
    the same tree, objective and bound, serial and threaded; it answers nodes
    on several of these problems, and none when it is off."""
    used = _same_fits_with_and_without(_engine_rules_without("similar"), "similar_bounds")
    assert used >= 10, used


def test_the_store_of_searched_nodes_changes_no_answer():
    """The engine's store of searched nodes under a leaf cap answers repeats
    (a split's children at each allocation of its leaves, the same rows
    reached by two orders of splits) with what their search proved: the same
    tree, objective and bound as without it, serial and threaded; and it is
    used (nodes answered from it on many of these problems)."""
    used = _same_fits_with_and_without({"engine_memo": False}, "memo_hits")
    assert used >= 20, used


def _engine_rules_without(name):
    """The overrides that turn one of the engine's rules off."""
    return {"rules": [r for r in ENGINE_RULES if r != name]}


def test_splits_valued_allocation_by_allocation_change_no_answer():
    """Under a binding leaf cap a split valued allocation by allocation of its
    leaves, each allocation dropped by its sides' bounds (`allocation_bound`)
    or its sides searched within what the other leaves of the cap: with the
    rule and without it the same tree, objective and bound, serial and
    threaded; it values splits on many of these problems, and none when off."""
    used = _same_fits_with_and_without(_engine_rules_without("allocations"),
                                       "by_allocation")
    assert used >= 20, used


def test_a_larger_caps_bound_changes_no_answer():
    """A node's bound proven at a larger leaf cap bounds it at a smaller one
    (`larger_cap_bound`, read from the store): with it and without it the same
    tree, objective and bound, serial and threaded; it answers nodes on several
    of these problems, and none when it is off; a store shared by fits from
    the largest cap down gives it those fits' nodes too."""
    from fst._engine import MemoShare
    used = _same_fits_with_and_without(_engine_rules_without("larger_cap"),
                                       "memo_larger_cap_hits")
    assert used >= 6, used
    shared = 0
    for seed in range(0, 30, 2):
        X, y, cost, lam, depth, w, ml, _ = _problem("continuous", seed)
        y_idx, full = problem_cost(y, cost)
        share = MemoShare()
        for k in (6, 5, 4, 3):
            clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost,
                                          max_depth=depth, min_samples_leaf=ml,
                                          max_leaf_nodes=k, time_limit=None)
            clf._overrides = {"engine_memo": share, "cap_probe": False}
            clf.fit(X, y, sample_weight=w)
            expected = optimal_objective(X, y_idx, full, lam, depth, weights=w,
                                         min_leaf=ml, max_leaves=k)
            assert clf.optimal_ and clf.objective_ == pytest.approx(expected, abs=1e-9)
            assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)
            shared += k < 6 and clf.search_stats_["memo_larger_cap_hits"] > 0
    assert shared >= 3, shared


def test_a_rising_bound_changes_no_answer():
    """The deepest search under a leaf cap proving its bound upward first, its
    root run against budgets below its incumbent (`EngineSearch._rise`; here
    from its start, with no time limit): the same tree, objective and bound
    as without it, serial and threaded; such runs happen on many of these
    problems, and none when it is off."""
    used = _same_fits_on_and_off("rising_bound", "rising_runs", KINDS)
    assert used >= 12, used


def _same_fits_on_and_off(switch, stat, kinds):
    """Every problem of `kinds`, serial and threaded, fitted with `switch` (a
    bound's plan override) from the start (0.0) and off: node for node the same
    fit, `stat` 0 when off; the number of fits in which it is above 0 when on."""
    used = 0
    for kind in kinds:
        for seed in range(30):
            for n_jobs in (1, 2):
                on = _check(kind, seed, {switch: 0.0}, n_jobs)
                off = _check(kind, seed, {switch: False}, n_jobs)
                _assert_same_fit(on, off)
                assert off.search_stats_[stat] == 0
                used += on.search_stats_[stat] > 0
    return used


def test_a_subset_bound_changes_no_answer():
    """Disjoint subsets of the rows searched under the cap before the first
    seeded search below the deepest (`EngineSearch._subset_bound`; here with no
    time limit): the same tree, objective and bound as without them, serial
    and threaded, and every bound they prove at most the optimum (`_check`);
    they run on many of these problems (caps of five and six without
    max_depth), and on none when off."""
    used = _same_fits_on_and_off("subset_bound", "subset_rounds", ("unbounded", "free"))
    assert used >= 12, used


def test_a_subset_bound_is_sound_and_rises_at_a_stop():
    """Fits stopped after any amount of work, the subsets' bound proven first
    (`EngineSearch._subset_bound`, serial and threaded): a real tree within the
    cap re-scored from the data, a bound at most the certified optimum, and
    mostly a higher bound than the same work proves without it (continuous
    columns at lam = 0, where the search's own bound stays at the floor until
    its deepest search closes root columns), more than one error at most."""
    stops, higher, most, n = _stopped_bounds("subset_bound", 6, (300, 3000, 10000, 30000),
                                             {"rising_bound": False})
    assert stops >= 6 and higher >= 6, (stops, higher)
    assert most > 1.5 / n, most


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_disjoint_subsets_sum_their_bounds(n_jobs):
    """On noisy rows (a third of the labels flipped) the subsets' bound keeps
    several disjoint subsets, each above its floor, and sums them
    (`_bounds.subset_rows_bound`): at a stop a bound above the first subset's
    alone and at most the optimum, every bound on the way too."""
    from sklearn.datasets import make_classification
    X, y = make_classification(120, n_features=5, n_informative=4, n_redundant=0,
                               flip_y=0.3, random_state=0)
    y_idx, full = problem_cost(y, None)
    best = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=5,
                                   time_limit=None).fit(X, y)
    clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=5, n_jobs=n_jobs)
    clf._overrides = {"work_limit": 300, "subset_bound": 0.0, "rising_bound": False}
    with _risen_bounds() as risen:
        _stopped_fit(clf, X, y, None, 5, y_idx, full, 0.0)
    assert not clf.optimal_ and clf.search_stats_["subset_parts"] >= 2
    assert risen == sorted(risen) and len(risen) >= 3, risen
    assert all(lb <= best.objective_ + 1e-9 for lb in risen), risen
    # each subset kept adds at least one error (1 / 120) to the sum
    assert risen[-1] >= risen[0] + 2 / len(y) - 1e-9, risen
    assert clf.lower_bound_ == pytest.approx(risen[-1], abs=1e-12)


def test_a_subset_is_the_engines_problem_on_its_rows():
    """`subset_space`: the engine's optimum on a subset of the rows is the brute
    force's on those rows alone, in the whole set's units (its costs divided by
    the whole set's rows), under weights and a cost matrix; a subset's tree
    applied to all the rows answers as on the subset (`tree_excess`), and the
    rows' keys do not depend on their order (`row_keys`)."""
    from fst._core._config import make_config
    from fst._engine import engine_space
    from fst._subset import pick_rows, row_keys, subset_space, tree_excess
    for seed in range(12):
        X, y, cost, lam, _ = continuous_problem(8100 + seed)
        y_idx, full = problem_cost(y, cost)
        w = sample_weights(seed, y) if seed % 2 else None
        n = len(y)
        space = engine_space(np.ascontiguousarray(X, dtype=np.float32), y_idx,
                             full.shape[0], full)
        if w is not None:
            from dataclasses import replace
            space = replace(space, row_weight=np.asarray(w, float) * n / np.sum(w))
        rows = np.flatnonzero(np.random.RandomState(seed).rand(n) < 0.6)
        sub = subset_space(space, rows)
        config = make_config({}, regularization=lam, max_leaves=4, max_depth=None,
                             time_limit=None)
        search = EngineSearch(sub, config, keep_deepening=True, subset=False)
        search.run()
        assert search.solved
        sw = None if w is None else np.asarray(w, float)[rows]
        # the brute force divides the loss by the subset's weight, the engine by
        # the whole set's: its objective is the brute force's at lam / scale,
        # times scale
        scale = (len(rows) / n if w is None
                 else np.sum(np.asarray(w)[rows]) / np.sum(w))
        expected = optimal_objective(X[rows], y_idx[rows], full, lam / scale, None,
                                     weights=sw, max_leaves=4)
        assert search.upper_bound == pytest.approx(expected * scale, abs=1e-9)
        excess = tree_excess(space, search.heap(), np.isin(np.arange(n), rows))
        leaves = _heap_leaves(search.heap())
        assert leaves <= 4
        assert excess[rows].sum() == pytest.approx(search.upper_bound - lam * leaves
                                                   - _floor(sub), abs=1e-9)
        perm = np.random.RandomState(seed).permutation(n)
        moved = engine_space(np.ascontiguousarray(X[perm], dtype=np.float32), y_idx[perm],
                             full.shape[0], full)
        assert np.array_equal(row_keys(moved), row_keys(space)[perm])
        picked = pick_rows(excess, row_keys(space), np.zeros(n, dtype=bool), 3)
        assert len(picked) <= 3 and np.all(excess[picked] > 0)


def _heap_leaves(heap, pos=0):
    """The leaves of a tree in heap order (-1 or past its end: a leaf)."""
    if pos >= len(heap) or heap[pos] < 0:
        return 1
    return _heap_leaves(heap, 2 * pos + 1) + _heap_leaves(heap, 2 * pos + 2)


def _floor(space):
    """The rows' least costs summed, in the engine's units."""
    w = np.ones(space.n_rows) if space.row_weight is None else space.row_weight
    return float(np.sum(w * space.mincost[space.y]))


def test_a_rising_bound_over_a_root_whose_leaf_is_settled_is_its_value():
    """A root whose leaf its floor settles (no split can beat it, under these
    cost matrices at lam = 0) is answered exactly without its splits: run
    against a budget below it (`EngineSearch._rise`), its bound is its value,
    not an infinite one, and the fit is certified at it (`_check` asserts
    every bound the runs prove is at most the optimum)."""
    for seed in (7001, 7023, 7025, 7031):
        X, y, cost, _, _ = continuous_problem(seed)
        y_idx, full = problem_cost(y, cost)
        for k in (4, 5):
            expected = optimal_objective(X, y_idx, full, 0.0, None, max_leaves=k)
            clf = FastSmallTreeClassifier(regularization=0.0, cost_matrix=cost,
                                          max_leaf_nodes=k, time_limit=None)
            clf._overrides = {"rising_bound": 0.0}
            with warnings.catch_warnings(), _risen_bounds() as risen:
                warnings.simplefilter("ignore", ConstantTreeWarning)
                clf.fit(X, y)
            assert clf.optimal_ and clf.n_leaves_ == 1
            assert clf.objective_ == pytest.approx(expected, abs=1e-9)
            assert rescore(clf, X, y_idx, full, 0.0) == pytest.approx(expected, abs=1e-9)
            assert risen and all(lb == pytest.approx(expected, abs=1e-9) for lb in risen)


def test_a_rising_bound_is_sound_and_rises_at_a_stop():
    """Fits stopped after any amount of work while the deepest search under the
    cap proves its bound upward (`EngineSearch._rise`, serial and threaded): a
    real tree within the cap, its objective re-scored from the data, a bound
    at most the certified optimum, and mostly a higher bound than the same
    work proves without it (continuous columns at lam = 0, where a stopped
    search's bound otherwise rises only as the root's columns close)."""
    stops, higher, _, _ = _stopped_bounds(
        "rising_bound", 5, (300, 6000, 10000, 15000, 20000, 25000, 30000, 40000))
    assert stops >= 20 and higher >= 8, (stops, higher)


def _stopped_bounds(switch, k, works, overrides=None):
    """The 90 noisy continuous rows of the bound tests fitted under a cap of k
    at lam = 0, stopped after each amount of work in `works`, serial and
    threaded, with `switch` (a bound's plan override) from the start (0.0) and
    off: each a real tree within the cap re-scored from the data, at least the
    certified optimum, its bound and every bound risen at most the optimum.
    Returns (the fits stopped, the pairs in which the switch gave the higher
    bound, the highest bound with it, the rows)."""
    from sklearn.datasets import make_classification
    X, y = make_classification(90, n_features=5, n_informative=4, n_redundant=0,
                               flip_y=0.1, random_state=3)
    y_idx, full = problem_cost(y, None)
    best = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=k,
                                   time_limit=None).fit(X, y)
    assert best.optimal_ and best.objective_ > 0.1
    higher = stops = 0
    most = 0.0
    for work in works:
        for n_jobs in (1, 2):
            bounds = {}
            for on in (0.0, False):
                clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=k,
                                              n_jobs=n_jobs)
                clf._overrides = {"work_limit": work, switch: on, **(overrides or {})}
                with _risen_bounds() as risen:
                    _stopped_fit(clf, X, y, None, k, y_idx, full, 0.0)
                assert all(lb <= best.objective_ + 1e-9 for lb in risen), risen
                assert clf.objective_ >= best.objective_ - 1e-9
                assert clf.lower_bound_ <= best.objective_ + 1e-9
                stops += not clf.optimal_
                bounds[on is False] = clf.lower_bound_
            higher += bounds[False] > bounds[True] + 1e-9
            most = max(most, bounds[False])
    return stops, higher, most, len(y)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("switch,stat,k", [("rising_bound", "rising_runs", 5),
                                           ("subset_bound", "subset_rounds", 6)])
def test_a_run_is_cut_at_its_share_only_when_behind(monkeypatch, n_jobs, switch, stat, k):
    """With a time limit a search's first run is cut at its share
    (`DepthSearch.set_share`) only where the pace of its root's columns closed
    could not end it within RISE_FINISH of its time: the deepest search's to
    prove its bound upward (`EngineSearch._rise`), a search below it to make
    way for the subsets' bound (`_run_beside_subset`).  From a share of almost
    nothing, within all of its time (RISE_FINISH 1, a limit far beyond the
    search) it runs to its end with neither; within none of it (RISE_FINISH 0)
    it is cut, and runs on after them.  The same tree and bound either way,
    re-scored from the data."""
    import fst._engine as engine
    from sklearn.datasets import make_classification
    X, y = make_classification(90, n_features=5, n_informative=4, n_redundant=0,
                               flip_y=0.1, random_state=3)
    y_idx, full = problem_cost(y, None)

    def fit(on):
        clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=k, n_jobs=n_jobs,
                                      time_limit=600)
        clf._overrides = {switch: on}
        clf.fit(X, y)
        assert clf.optimal_ and clf.n_leaves_ <= k
        assert rescore(clf, X, y_idx, full, 0.0) == pytest.approx(clf.objective_, abs=1e-9)
        return clf

    off = fit(False)
    monkeypatch.setattr(engine, "RISE_FINISH", 1.0)
    on_pace = fit(1e-9)
    assert on_pace.search_stats_[stat] == 0
    _assert_same_fit(on_pace, off)
    monkeypatch.setattr(engine, "RISE_FINISH", 0.0)
    cut = fit(1e-9)
    assert cut.search_stats_[stat] > 0
    _assert_same_fit(cut, off)


def test_a_share_is_decided_by_the_pace_of_the_roots_columns():
    """A look at a run's share (`_depth.share_look`): it runs on when the rest of
    its root's columns, at the pace of those closed, end it by `end`; it stops
    when they would not even were one more to close at once; else it waits."""
    from fst._core._testing import share_look_for_tests as look
    # begun at 10 s, looked at at 13 s, to end by 19 s: 10 of 30 columns closed
    # in 3 s end it at 19 s
    assert look(10.0, 13.0, 19.0, 10, 30) == "run on"
    assert look(10.0, 13.0, 19.0, 30, 30) == "run on"
    # 9 of 30 end it at 20 s, but a tenth now would end it at 19 s
    assert look(10.0, 13.0, 19.0, 9, 30) == "wait"
    # 8 of 30: even a ninth now would end it at 20 s
    assert look(10.0, 13.0, 19.0, 8, 30) == "stop"
    # none closed: one closing at 13 s would end it at 100 s; at 10.2 s, at 16 s
    assert look(10.0, 13.0, 19.0, 0, 30) == "stop"
    assert look(10.0, 10.2, 19.0, 0, 30) == "wait"


def test_verbose_prints_the_bound_as_it_rises(capsys):
    """verbose=2 prints each bound the rising runs prove (`EngineSearch._rise`),
    increasing, between the floor and the certified optimum."""
    import re
    from sklearn.datasets import make_classification
    X, y = make_classification(90, n_features=5, n_informative=4, n_redundant=0,
                               flip_y=0.1, random_state=3)
    clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=5, verbose=2)
    clf._overrides = {"rising_bound": 0.0}
    clf.fit(X, y)
    assert clf.optimal_
    bounds = [float(b) for b in re.findall(r"lower bound (\S+)", capsys.readouterr().out)]
    assert len(bounds) >= 3 and bounds == sorted(bounds), bounds
    assert 0.0 < bounds[0] and bounds[-1] < clf.objective_, bounds


def test_verbose_prints_the_subsets_bound_as_it_rises(capsys):
    """verbose=2 prints each rise of the bound from subsets of the rows
    (`EngineSearch._subset_bound`), increasing, above the floor and below the
    certified optimum."""
    import re
    from sklearn.datasets import make_classification
    X, y = make_classification(120, n_features=5, n_informative=4, n_redundant=0,
                               flip_y=0.3, random_state=0)
    clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=5, verbose=2,
                                  time_limit=None)
    # (the subsets first, before the first search they may follow)
    clf._overrides = {"subset_bound": 0.0, "rising_bound": False}
    clf.fit(X, y)
    assert clf.optimal_ and clf.search_stats_["subset_parts"] >= 2
    bounds = [float(b) for b in re.findall(r"lower bound (\S+)", capsys.readouterr().out)]
    assert len(bounds) >= 3 and bounds == sorted(bounds), bounds
    assert 0.0 < bounds[0] and bounds[-1] < clf.objective_, bounds


def test_binary_columns_use_the_pair_sums_and_agree_with_the_column_passes():
    """On 0/1 columns with at most three classes the engine solves nodes of
    depth two (under a cap of three leaves too) to four from their columns'
    sums (`_squares.solve_sums`; a child of a node of depth three from that
    node's pairs and triples, counted in whole rows with two classes and no
    weights): the brute force's optimum, and node for node the tree and bound
    the column passes give, with weights, costs, min_samples_leaf and
    threads; the sums save most column passes on a larger table."""
    seen = 0
    for seed in range(1, 30, 3):           # the oracle's binary problems
        X, y = _problem("random", seed)[:2]
        assert set(np.unique(X)) <= {0.0, 1.0}
        for n_jobs in (1, 2):
            on = _check("random", seed, n_jobs=n_jobs)
            off = _check("random", seed, {"pair_sums": False}, n_jobs)
            _assert_same_fit(on, off)
            seen += on.n_leaves_ >= 3
    assert seen >= 4, seen
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(300, 12)).astype(float)
    X[:, 5] = rng.random(300) < 0.9          # a column most rows hold a 1 in
    y = ((X[:, 0] == 1) & (X[:, 3] == 0)) | ((X[:, 7] == 1) ^ (X[:, 5] == 0))
    y = np.where(rng.random(300) < 0.15, rng.integers(0, 3, 300), y.astype(int))
    w = rng.choice([0.5, 1.0, 2.0], size=300)
    two = (y == 1).astype(int)               # two classes: whole-row triples
    for k, weights, ml, yk in ((4, None, 1, y), (5, w, 1, y), (6, None, 3, y),
                               (6, None, 1, two), (5, w, 1, two)):
        _sums_agree_with_the_passes(X, yk, k, weights, ml)


def _sums_agree_with_the_passes(X, y, k, weights, ml, class_weight=None):
    """A fit of at most k leaves at lam = 0 with the sums and one without:
    node for node the same, certified, the sums saving over half the column
    passes and a node of depth three's children taking their sums from its
    own (with three classes or more and no weights, its triples in 16-bit
    lanes)."""
    fits = []
    for sums in (True, False):
        clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=k,
                                      min_samples_leaf=ml, class_weight=class_weight,
                                      time_limit=None)
        clf._overrides = {"pair_sums": sums}
        fits.append(clf.fit(X, y, sample_weight=weights))
    on, off = fits
    assert on.optimal_ and off.optimal_
    _assert_same_fit(on, off)
    assert on.search_stats_["column_passes"] < off.search_stats_["column_passes"] / 2
    assert on.search_stats_["parent_sums"] > 0 == off.search_stats_["parent_sums"]


def _many_classes_problem(seed):
    """A small problem of 0/1 columns and four to fifteen classes (the sums'
    slots of eight and sixteen doubles, `_squares`): (X, y, cost, lam,
    max_depth, weights, min_leaf, cap),
    under a leaf cap (lam 0 or above, with or without max_depth) or under
    max_depth alone at lam > 0; a cost matrix on every other seed, weights on
    every third, min_samples_leaf 2 on every fifth."""
    rng = np.random.default_rng(9000 + seed)
    K = (4, 5, 7, 8, 12, 15)[seed % 6]
    n = int(rng.integers(2 * K + 1, 2 * K + 15))   # (classes under half the rows)
    p = int(rng.integers(2, 7))
    X = rng.integers(0, 2, size=(n, p)).astype(float)
    y = (X @ rng.integers(0, 3, size=p) + rng.integers(0, 2, size=n)) % K
    y[:K] = np.arange(K)                     # every class present
    cost = rng.uniform(0, 3, size=(K, K)) if seed % 2 else None
    if cost is not None:
        cost[np.diag_indices(K)] = 0.0
    w = sample_weights(seed, y) if seed % 3 == 2 else None
    ml = 2 if seed % 5 == 4 else 1
    if seed % 4 == 3:
        return X, y, cost, [0.01, 0.05][seed % 2], [2, 3, 4][seed % 3], w, ml, None
    lam = [0.0, 0.0, 0.01, 0.05][seed % 4]
    return X, y, cost, lam, [None, None, 3][seed % 3], w, ml, 2 + seed % 6


@pytest.mark.parametrize("seed", range(48))
def test_pair_sums_with_up_to_fifteen_classes_match_the_brute_force(seed):
    """With four to fifteen classes on 0/1 columns a slot of the sums holds
    eight or sixteen doubles (each class's weight, then the rows; without
    weights a node's triples in 16-bit lanes): the nodes solved from them
    give the brute force's optimum, re-scored from the raw data, and node for
    node the tree and bound of the column passes, serial and on two threads."""
    X, y, cost, lam, depth, w, ml, k = _many_classes_problem(seed)
    y_idx, full = problem_cost(y, cost)
    expected = optimal_objective(X, y_idx, full, lam, depth, weights=w, min_leaf=ml,
                                 max_leaves=k)
    fits = []
    for sums, n_jobs in ((True, 1), (False, 1), (True, 2)):
        clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=depth,
                                      min_samples_leaf=ml, max_leaf_nodes=k, n_jobs=n_jobs,
                                      time_limit=None)
        clf._overrides = {"pair_sums": sums, "cap_probe": False, "depth_engine": True}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConstantTreeWarning)
            clf.fit(X, y, sample_weight=w)
        assert clf.optimal_ and clf.search_stats_["engine"] == "depth", seed
        assert clf.objective_ == pytest.approx(expected, abs=1e-9), seed
        assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)
        assert k is None or clf.n_leaves_ <= k
        fits.append(clf)
    _assert_same_fit(fits[0], fits[1])
    _assert_same_fit(fits[0], fits[2])
    if k is None or k >= 3:
        # (a cap of two leaves is searched at depth one, from no sums)
        assert (fits[0].search_stats_["column_passes"]
                < fits[1].search_stats_["column_passes"]), seed


@pytest.mark.parametrize("seed", [284, 590, 748, 856, 886, 1130])
def test_a_tie_of_one_side_split_is_the_left_leaf_by_every_route(seed):
    """Under a cap of three leaves at depth two, a split whose left side split
    beside its right leaf ties with its left leaf beside its right side split:
    the canonical order (the leaf first) takes the left leaf, as a split's
    allocations and the leaf beside a subtree meet it first; the sums
    (`_squares._set_best_three`) and the column passes without the leaf-beside
    rule (`_depth._value_depth_two`) took the other on these problems (three
    or four classes, caps of four and six, lam 0 and 0.01)."""
    X, y, cost, lam, depth, w, ml, k = _many_classes_problem(seed)
    K = 4 if seed == 284 else 3
    y = y % K
    y[:K] = np.arange(K)
    cost = None if cost is None or len(cost) < K else cost[:K, :K]
    y_idx, full = problem_cost(y, cost)
    expected = optimal_objective(X, y_idx, full, lam, depth, weights=w, min_leaf=ml,
                                 max_leaves=k)
    fits = []
    for overrides in ({}, {"pair_sums": False},
                      {"pair_sums": False, "rules": [r for r in ENGINE_RULES
                                                     if r != "peel_leaf"]}):
        clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost, max_depth=depth,
                                      min_samples_leaf=ml, max_leaf_nodes=k, time_limit=None)
        clf._overrides = {"cap_probe": False, **overrides}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConstantTreeWarning)
            clf.fit(X, y, sample_weight=w)
        assert clf.optimal_
        assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)
        fits.append(clf)
    _assert_same_fit(fits[0], fits[1])
    _assert_same_fit(fits[0], fits[2])


def test_pair_sums_with_up_to_fifteen_classes_save_column_passes():
    """On a larger 0/1 table with five to fifteen classes (weights, class
    weights, min_samples_leaf) the sums answer most nodes, a node of depth
    three's children from its pairs and triples: the same fit as the column
    passes with under half their passes."""
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, size=(400, 12)).astype(float)
    base = (2 * X[:, 0] + X[:, 3] + 3 * X[:, 7] * X[:, 5]).astype(int)
    w = rng.choice([0.5, 1.0, 2.0], size=400)
    for K, k, weights, ml, cw in ((5, 5, None, 1, None), (7, 6, w, 1, None),
                                  (7, 5, None, 3, "balanced"), (6, 6, w, 1, "balanced"),
                                  (10, 5, None, 1, None), (15, 5, w, 2, "balanced")):
        y = np.where(rng.random(400) < 0.15, rng.integers(0, K, 400), base % K)
        _sums_agree_with_the_passes(X, y, k, weights, ml, cw)


def test_threads_give_the_serial_tree():
    for kind in KINDS:
        for seed in range(0, 30, 4):
            one = _check(kind, seed)
            two = _check(kind, seed, n_jobs=2)
            for attr in ("feature", "threshold", "children_left", "children_right", "value"):
                np.testing.assert_array_equal(getattr(one.estimator_.tree_, attr),
                                              getattr(two.estimator_.tree_, attr))


def test_the_best_tree_of_k_leaves_on_a_chain():
    """At lam = 0 without max_depth, a cap of three leaves on rows of three
    classes in three runs: two splits on the column, a chain, loss 0; a cap of
    two leaves loses the smallest class."""
    X = np.arange(12.0)[:, None]
    y = np.array([0] * 5 + [1] * 4 + [2] * 3)
    three = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=3).fit(X, y)
    assert three.optimal_ and three.n_leaves_ == 3 and three.objective_ == 0.0
    two = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=2).fit(X, y)
    assert two.optimal_ and two.n_leaves_ == 2
    assert two.objective_ == pytest.approx(3 / 12)


@pytest.mark.parametrize("value", [0, 1, -1, 1.5, 2.0, "3"])
def test_bad_values_are_refused_by_name(value):
    with pytest.raises(ValueError, match="max_leaf_nodes"):
        FastSmallTreeClassifier(max_leaf_nodes=value).fit([[0.0], [1.0]], [0, 1])


def test_more_classes_than_the_engine_counts_is_refused():
    X = np.arange(260.0)[:, None]
    y = np.arange(260) % 65
    with pytest.raises(ValueError, match="max_leaf_nodes.*64 classes"):
        FastSmallTreeClassifier(max_leaf_nodes=4).fit(X, y)


def test_a_fallback_tree_is_kept_only_within_the_cap():
    X, y = np.arange(12.0)[:, None], np.array([0, 1] * 6)
    cart = DecisionTreeClassifier().fit(X, y)
    assert not obeys_min_leaf(cart, X, slice(None), 1, 4)
    assert obeys_min_leaf(cart, X, slice(None), 1, cart.get_n_leaves())
    assert obeys_min_leaf(DecisionTreeClassifier(max_leaf_nodes=4).fit(X, y),
                          X, slice(None), 1, 4)


def test_a_stopped_fit_keeps_the_cap():
    """A fit stopped at once (a work limit) returns its best tree or CART's
    (grown with the same max_leaf_nodes): at most the cap, with and without
    max_depth, and its bound below its objective."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=300) > 0).astype(int)
    for depth in (None, 3):
        clf = FastSmallTreeClassifier(regularization=0.0, max_depth=depth, max_leaf_nodes=6)
        clf._overrides = {"work_limit": 30}       # test hook: stop after little work
        with pytest.warns(NotCertifiedWarning):
            clf.fit(X, y)
        assert not clf.optimal_
        assert 2 <= clf.n_leaves_ <= 6
        assert clf.lower_bound_ <= clf.objective_
        cart = DecisionTreeClassifier(max_depth=depth, max_leaf_nodes=6, random_state=0)
        assert clf.score(X, y) >= cart.fit(X, y).score(X, y) - 1e-12


def test_binary_columns_stopped_after_any_work_keep_a_sound_bound():
    """On 0/1 columns (the nodes solved from their sums, their answers at every
    cap kept in the store, their children partitioned lazily and summed from
    their parent's sums) a fit stopped after any amount of work, serial or
    threaded, returns a real tree within the cap, its objective re-scored from
    the data, and a bound at most the brute force's optimum."""
    stops = 0
    for seed in range(1, 30, 3):                # the oracle's binary problems
        X, y, cost, lam, depth, w, ml, k = _problem("random", seed)
        expected, _, y_idx, full = _expected("random", seed)
        for work in (1, 3, 10, 30, 100):
            for n_jobs in (1, 2):
                clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost,
                                              max_depth=depth, min_samples_leaf=ml,
                                              max_leaf_nodes=k, n_jobs=n_jobs)
                clf._overrides = {"work_limit": work}     # test hook
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", NotCertifiedWarning)
                    clf.fit(X, y, sample_weight=w)
                stops += not clf.optimal_
                assert clf.n_leaves_ == clf.estimator_.get_n_leaves() <= k
                assert rescore(clf, X, y_idx, full, lam, w) == pytest.approx(clf.objective_,
                                                                             abs=1e-9)
                assert clf.objective_ >= expected - 1e-9
                assert clf.lower_bound_ <= expected + 1e-9
    assert stops >= 5, stops
    # a larger table, against its certified optimum
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, size=(400, 14)).astype(float)
    y = (((X[:, 0] == 1) & (X[:, 3] == 0)) | ((X[:, 7] == 1) ^ (X[:, 5] == 0))).astype(int)
    y[rng.random(400) < 0.2] ^= 1
    y_idx, full = problem_cost(y, None)
    stops = 0
    for k in (5, 6):
        best = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=k,
                                       time_limit=None).fit(X, y)
        assert best.optimal_
        for work in (1, 10, 100, 1000, 10000):
            for n_jobs in (1, 2):
                clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=k,
                                              n_jobs=n_jobs)
                clf._overrides = {"work_limit": work}
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", NotCertifiedWarning)
                    clf.fit(X, y)
                stops += not clf.optimal_
                assert clf.n_leaves_ <= k
                assert rescore(clf, X, y_idx, full, 0.0) == pytest.approx(clf.objective_,
                                                                          abs=1e-9)
                assert clf.objective_ >= best.objective_ - 1e-9
                assert clf.lower_bound_ <= best.objective_ + 1e-9
    assert stops >= 5, stops


def test_zero_regularization_needs_no_depth_cap_under_it():
    X, y, *_ = random_problem(5003)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=4).fit(X, y)
    assert clf.optimal_ and clf.n_leaves_ <= 4
    assert "max_leaf_nodes=4" in str(clf)


def test_path_and_cross_validation_take_it():
    X, y, *_ = random_problem(5001)
    X = np.vstack([X] * 2)
    y = np.concatenate([y] * 2)
    y_idx, full = problem_cost(y)
    path = regularization_path(X, y, lambda_min=0.0, max_leaf_nodes=3)
    assert max(tree.get_n_leaves() for tree in path.trees_) <= 3
    for lam in path.pareto_front_["lambda_min"]:
        fit = FastSmallTreeClassifier(regularization=lam, max_leaf_nodes=3).fit(X, y)
        assert fit.objective_ == pytest.approx(
            optimal_objective(X, y_idx, full, lam, max_leaves=3), abs=1e-9)
    cv = FastSmallTreeClassifierCV(lambdas=[0.0, 0.05], cv=3, max_leaf_nodes=3).fit(X, y)
    assert cv.best_estimator_.max_leaf_nodes == 3
    assert cv.best_estimator_.n_leaves_ <= 3


def test_command_line_takes_it(capsys):
    assert main(["--max-leaf-nodes", "3", "--regularization", "0"]) == 0
    out = capsys.readouterr().out
    assert "max_leaf_nodes=3" in out and "3 leaves" in out
    assert main(["--max-leaf-nodes", "1"]) == 2
    assert "at least 2" in capsys.readouterr().err
    assert main(["--dpdt", "--max-leaf-nodes", "3"]) == 2
    assert "--dpdt" in capsys.readouterr().err


def test_a_store_shared_between_fits_changes_no_answer():
    """One store of searched nodes handed from fit to fit (as the leaves front
    does), over caps in a mixed order and depth caps on and off: every fit is
    the brute-force optimum with the tree and bound of a fit without a store;
    a fit on other data starts its own store."""
    from fst._engine import MemoShare
    used = 0
    for kind in ("random", "continuous", "unbounded"):
        for seed in range(0, 30, 3):
            X, y, cost, lam, depth, w, ml, _ = _problem(kind, seed)
            y_idx, full = problem_cost(y, cost)
            share = MemoShare()
            for k in (6, 3, 5, 2, 4):
                expected = optimal_objective(X, y_idx, full, lam, depth, weights=w,
                                             min_leaf=ml, max_leaves=k)
                fits = []
                for store in (share, False):
                    clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost,
                                                  max_depth=depth, min_samples_leaf=ml,
                                                  max_leaf_nodes=k, time_limit=None)
                    clf._overrides = {"engine_memo": store, "cap_probe": False}
                    fits.append(clf.fit(X, y, sample_weight=w))
                on, off = fits
                assert on.optimal_ and on.objective_ == pytest.approx(expected, abs=1e-9)
                assert rescore(on, X, y_idx, full, lam, w) == pytest.approx(expected, abs=1e-9)
                for attr in ("feature", "threshold", "children_left", "children_right"):
                    np.testing.assert_array_equal(getattr(on.estimator_.tree_, attr),
                                                  getattr(off.estimator_.tree_, attr))
                assert on.lower_bound_ == off.lower_bound_
                used += on.search_stats_["memo_hits"] > 0
            other = random_problem(9999)
            before = share.memo
            clf = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=5,
                                          time_limit=None)
            clf._overrides = {"engine_memo": share}
            clf.fit(other[0], other[1])
            assert before is None or share.memo is not before
    assert used >= 10, used


def test_progress_lines_under_a_cap_after_the_first_run(monkeypatch, capsys):
    """verbose=2 under a leaf cap at lam > 0 on binary columns: lines from the
    engine under the cap and from the general search without it after it
    (`CapProbeSearch`), their seconds counted from the fit's start (never
    going back), their bound at most the fit's, and their best a tree within
    the cap (never below the fit's bound)."""
    import re

    import fst._utils as fc

    monkeypatch.setattr(fc, "PROGRESS_SECONDS", 0.2)
    rng = np.random.RandomState(3)
    X = rng.randint(0, 2, size=(2000, 40)).astype(float)
    y = ((X[:, 0] + X[:, 1] + X[:, 2] + rng.uniform(size=2000) * 3) > 2.5).astype(int)
    clf = FastSmallTreeClassifier(regularization=0.004, max_leaf_nodes=8, time_limit=2.5,
                                  verbose=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        clf.fit(X, y)
    lines = [tuple(map(float, m)) for m in re.findall(
        r"\[fst\] +([0-9.]+) s  lower bound ([0-9.]+)  best ([0-9.]+)",
        capsys.readouterr().out)]
    assert clf.search_stats_["cap_probe"]["ran_again"] and not clf.optimal_
    assert len(lines) >= 6
    assert all(a[0] <= b[0] for a, b in zip(lines, lines[1:]))
    for _, low, best in lines:
        assert low <= best + 1e-6 and low <= clf.lower_bound_ + 1e-6


def test_a_cap_above_the_engines_depth_deepens_as_far_as_it_can():
    """A cap of more leaves than the engine's deepest search holds (k - 1 above
    MAX_ENGINE_DEPTH): the engine deepens to its deepest search rather than
    stopping after its first, and certifies wherever the leaf budget of its
    best tree fits that depth (the same tree as under a cap of 17, which does
    not bind either); at lam = 0 it ends by itself ('search_limit') with a
    tree within the cap, re-scored, and a bound at most its objective."""
    from fst._engine import MAX_ENGINE_DEPTH
    certified = 0
    for kind in ("random", "unbounded"):
        for seed in range(30):
            X, y, cost, lam, depth, w, ml, _ = _problem(kind, seed)
            if depth is not None:
                continue
            y_idx, full = problem_cost(y, cost)
            fits = {}
            for k in (MAX_ENGINE_DEPTH + 1, MAX_ENGINE_DEPTH + 2, 40):
                clf = FastSmallTreeClassifier(regularization=lam, cost_matrix=cost,
                                              min_samples_leaf=ml, max_leaf_nodes=k,
                                              time_limit=None)
                clf._overrides = {"cap_probe": False}
                _stopped_fit(clf, X, y, w, k, y_idx, full, lam)
                assert clf.lower_bound_ <= clf.objective_ + 1e-9
                fits[k] = clf
            small, *large = fits.values()
            if small.optimal_ and small.n_leaves_ < MAX_ENGINE_DEPTH + 1 and lam > 0:
                for clf in large:
                    assert clf.optimal_, (kind, seed)
                    assert (clf.search_stats_["depth_searched"]
                            == small.search_stats_["depth_searched"])
                    _assert_same_fit(small, clf)
                certified += 1
            for clf in large:
                assert clf.optimal_ or clf.status_ == "search_limit"
    assert certified >= 10, certified
