"""Results do not depend on n_jobs: the pair stage's threads fill disjoint cells,
the threads of the search each take a share of the root's splits, and the tree
returned is the canonical optimum, whatever the order the threads found it in."""
import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from fst._core._limits import effective_n_threads


@pytest.mark.parametrize("seed", range(4))
def test_identical_trees_for_every_n_jobs(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 8, size=(400, 5)).astype(float)
    y = ((X[:, 0] > 3) ^ (X[:, 1] > 5) | (rng.random(400) < 0.15)).astype(int)
    fits = [FastSmallTreeClassifier(regularization=0.01, n_jobs=j).fit(X, y)
            for j in (1, 2, -1, None)]
    base = fits[0]
    assert base.optimal_
    for other in fits[1:]:
        assert other.objective_ == base.objective_
        for attr in ("feature", "threshold", "children_left", "children_right"):
            np.testing.assert_array_equal(getattr(other.estimator_.tree_, attr),
                                          getattr(base.estimator_.tree_, attr))
        assert other.lower_bound_ == base.lower_bound_


def test_effective_n_threads():
    assert effective_n_threads(1) == 1
    assert effective_n_threads(None) == 1
    assert effective_n_threads(-1) >= 1
    assert effective_n_threads(3) in (1, 3)  # 1 when built without OpenMP
    with pytest.raises(ValueError):
        effective_n_threads(0)


def test_threaded_pair_stage_matches_serial():
    """A stage large enough for the threads (2000 rows x 500 splits at the root),
    with the same tree for any n_jobs."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 51, size=(2000, 10)).astype(float)
    y = ((X[:, 0] > 20) ^ (X[:, 3] > 35) | (rng.random(2000) < 0.1)).astype(int)
    fits = []
    for n_jobs in (1, 2):
        clf = FastSmallTreeClassifier(regularization=0.001, max_depth=2, n_jobs=n_jobs)
        clf._overrides = {"depth_engine": False}    # test hook: the bitset search
        fits.append(clf.fit(X, y))
    serial, threaded = fits
    assert serial.optimal_ and threaded.optimal_
    assert threaded.search_stats_["threads"] in (1, 2)
    assert serial.search_stats_["pair_stages"] > 0
    assert threaded.objective_ == serial.objective_
    np.testing.assert_array_equal(threaded.estimator_.tree_.threshold,
                                  serial.estimator_.tree_.threshold)
    np.testing.assert_array_equal(threaded.estimator_.tree_.feature,
                                  serial.estimator_.tree_.feature)


@pytest.mark.slow
def test_identical_budget_sequence_and_tree_for_every_n_jobs():
    """The switch from the first pass to the depth ladder and deepening is timed in
    work, not seconds: with a switch early in the search and rungs cut short (so
    the ladder and deepening take turns), two serial fits walk the same path,
    stages in rounds leaving out the same rows; threaded fits (whose shares meet
    each other's incumbents as timing has it) certify the same tree."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 51, size=(2000, 6)).astype(float)
    y = ((X[:, 0] > 20) ^ (X[:, 3] > 35) | (rng.random(2000) < 0.1)).astype(int)
    fits = []
    for j in (1, 1, 3):
        clf = FastSmallTreeClassifier(regularization=0.01, n_jobs=j)
        # test hooks: switch early, rungs cut short
        clf._overrides = {"switch_work": 2_000_000, "ladder_max": 6, "rung_work": 4_000_000,
                          "ladder_bytes": -1, "ladder_gap": 0.0}
        fits.append(clf.fit(X, y))
    base, again = fits[:2]
    assert base.optimal_
    assert base.search_stats_["ladder_depth"] >= 2
    assert base.search_stats_["root_passes"] > 1
    assert base.search_stats_["pair_rows_left_out"] > 0
    for key in ("nodes_created", "expansions", "work", "root_passes", "ladder_depth",
                "ladder_turns", "pair_rows", "pair_rows_left_out"):
        assert again.search_stats_[key] == base.search_stats_[key]
    for other in fits[1:]:
        assert other.optimal_
        assert other.objective_ == base.objective_
        assert other.lower_bound_ == base.lower_bound_
        for attr in ("feature", "threshold", "children_left", "children_right"):
            np.testing.assert_array_equal(getattr(other.estimator_.tree_, attr),
                                          getattr(base.estimator_.tree_, attr))
