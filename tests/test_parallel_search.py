"""The parallel certified search (n_jobs > 1): each thread searches a share of the
root's splits on its own store, with a shared incumbent, a shared stop and a
shared table of proven bounds and trees.  Whatever the threads' timing, a
certified fit returns the canonical optimum: the same tree, objective and bound
for every n_jobs; a stopped fit returns a real tree and a valid bound, with every
thread stopped."""
import os
import signal
import threading
import time
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier, NotCertifiedWarning
from fst._core._limits import effective_n_threads
from fst.datasets import load_dataset

THREADS = effective_n_threads(2) == 2
needs_threads = pytest.mark.skipif(not THREADS, reason="built without OpenMP")


def _same_fit(a, b):
    assert a.optimal_ and b.optimal_
    assert a.objective_ == b.objective_
    assert a.lower_bound_ == b.lower_bound_
    for attr in ("feature", "threshold", "children_left", "children_right", "value"):
        np.testing.assert_array_equal(getattr(a.estimator_.tree_, attr),
                                      getattr(b.estimator_.tree_, attr))


def _hard_problem(n=300):
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(n, 8))
    y = rng.randint(0, 2, size=n)
    return X, y


def _check_stopped(clf, X, y, status, n_jobs):
    assert clf.status_ == status
    assert clf.optimal_ is False
    assert clf.lower_bound_ <= clf.objective_
    leaf_objective = min(np.mean(y == 0), np.mean(y == 1)) + clf.regularization
    assert clf.objective_ <= leaf_objective + 1e-12
    st = clf.search_stats_
    assert st["threads"] == n_jobs
    assert len(st["expansions_per_thread"]) == n_jobs
    assert st["open_levels"] == 0        # every thread unwound its frames


@needs_threads
@pytest.mark.parametrize("name, lam", [("monk_2", 0.01), ("tic-tac-toe", 0.01),
                                       ("car_evaluation", 0.005), ("monk_2", 0.005)])
def test_bundled_sets_give_the_serial_tree_for_every_n_jobs(name, lam):
    X, y, _ = load_dataset(name)
    fits = [FastSmallTreeClassifier(regularization=lam, n_jobs=j).fit(X, y)
            for j in (1, 2, 4)]
    for clf in fits[1:]:
        _same_fit(clf, fits[0])
        assert sum(clf.search_stats_["expansions_per_thread"]) == clf.search_stats_["expansions"]


@needs_threads
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_large_problems_give_the_serial_tree_for_every_n_jobs(seed):
    """Problems where the threads meet each other's bounds and trees: 1,000 rows,
    a hidden tree of depth three on 12 binary and ordinal columns, 10% noise."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 2, size=(1000, 8)),
                         rng.integers(0, 6, size=(1000, 4))]).astype(float)
    y = (((X[:, 0] == 1) & (X[:, 8] > 2)) | ((X[:, 1] == 0) & (X[:, 9] > 3))
         ^ (X[:, 2] == 1) & (X[:, 3] == 1)).astype(int)
    y[rng.random(1000) < 0.1] ^= 1
    fits = [FastSmallTreeClassifier(regularization=0.01, n_jobs=j, time_limit=120).fit(X, y)
            for j in (1, 2, 4)]
    assert fits[0].get_n_leaves() >= 4
    for clf in fits[1:]:
        _same_fit(clf, fits[0])
    shared = fits[1].search_stats_
    assert shared["shared_bounds"] > 0 and shared["shared_raises"] > 0


@needs_threads
def test_row_order_does_not_change_the_threaded_tree():
    X, y, _ = load_dataset("tic-tac-toe")
    X = np.asarray(X, dtype=float)
    rows = np.random.default_rng(0).permutation(len(y))
    a = FastSmallTreeClassifier(regularization=0.01, n_jobs=2).fit(X, y)
    b = FastSmallTreeClassifier(regularization=0.01, n_jobs=2).fit(X[rows], np.asarray(y)[rows])
    _same_fit(a, b)


@needs_threads
@pytest.mark.parametrize("n_jobs", [2, 4])
def test_time_limit_stops_every_thread(n_jobs):
    X, y = _hard_problem()
    clf = FastSmallTreeClassifier(regularization=0.005, time_limit=0.3, n_jobs=n_jobs)
    t0 = time.perf_counter()
    with pytest.warns(NotCertifiedWarning, match="time_limit"):
        clf.fit(X, y)
    assert time.perf_counter() - t0 < 5.0
    _check_stopped(clf, X, y, "time_limit", n_jobs)


@needs_threads
def test_memory_limit_stops_every_thread():
    X, y = _hard_problem()
    clf = FastSmallTreeClassifier(regularization=0.005, memory_limit=1, time_limit=30,
                                  n_jobs=2)
    clf._overrides = {"split_bytes": 1 << 30}   # test hook: room for the split space
    with pytest.warns(NotCertifiedWarning, match="memory_limit"):
        clf.fit(X, y)
    _check_stopped(clf, X, y, "memory_limit", 2)


@needs_threads
@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name == "nt", reason="POSIX signal")
def test_keyboard_interrupt_stops_every_thread():
    X, y = _hard_problem(120)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.perf_counter()
    try:
        with pytest.warns(NotCertifiedWarning, match="interrupted"):
            clf = FastSmallTreeClassifier(regularization=0.002, time_limit=30,
                                          n_jobs=2).fit(X, y)
    finally:
        timer.cancel()
    assert time.perf_counter() - t0 < 10.0
    _check_stopped(clf, X, y, "interrupted", 2)


@needs_threads
def test_stopped_threads_return_a_real_tree_and_a_valid_bound():
    """Stopped at many points of the search, with trees held in several threads'
    stores (the recorded tree is read from the store holding each node's best):
    the returned tree re-scores to at most what the search recorded (the fit
    checks it) and at least the optimum, and the bound stays below the optimum."""
    rng = np.random.RandomState(1)
    X = rng.randint(0, 4, size=(300, 6)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.randint(0, 3, 300) > 4).astype(int)
    full = FastSmallTreeClassifier(regularization=0.003).fit(X, y)
    assert full.optimal_
    for limit in [1e-9, 0.001, 0.005, 0.01, 0.02, 0.05]:
        for n_jobs in (2, 3):
            part = FastSmallTreeClassifier(regularization=0.003, time_limit=limit,
                                           n_jobs=n_jobs)
            part._overrides = {"memo_capacity": 4}
            with warnings.catch_warnings():   # it may certify, or stop with a warning
                warnings.simplefilter("ignore", NotCertifiedWarning)
                part.fit(X, y)
            assert part.lower_bound_ <= full.objective_ + 1e-12
            assert part.objective_ >= full.objective_ - 1e-12
            if part.optimal_:
                _same_fit(part, full)


@needs_threads
def test_a_pass_without_progress_is_reported_with_threads():
    """Contract (iii) holds for every thread's share: the test hook that breaks it
    is reported as an internal error, not repeated."""
    X, y = _hard_problem(120)
    clf = FastSmallTreeClassifier(regularization=0.02, max_depth=3, n_jobs=2)
    clf._overrides = {"depth_engine": False, "switch_work": 0, "break_contract": True}
    with pytest.raises(RuntimeError, match=r"contract \(iii\)"):
        clf.fit(X, y)
    clf._overrides = {"depth_engine": False, "switch_work": 0}
    assert clf.fit(X, y).optimal_


@needs_threads
def test_memo_capacity_does_not_change_the_threaded_tree():
    X, y, _ = load_dataset("monk_2")
    a = FastSmallTreeClassifier(regularization=0.005, n_jobs=2).fit(X, y)
    b = FastSmallTreeClassifier(regularization=0.005, n_jobs=2)
    b._overrides = {"memo_capacity": 4}
    _same_fit(a, b.fit(X, y))
