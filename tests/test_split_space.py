"""A split space too big for the memory limit: the row bitsets of every threshold
take n_splits x n / 8 bytes, so a large continuous X can need more than the
machine holds before the search starts.  Then only some thresholds per column
(row quantiles) are searched, the fit returns that search's best tree, never
certified, with a lower bound that holds for the whole space."""
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier, NotCertifiedWarning
from fst._spaces import max_splits as _max_splits, split_space_bytes as _split_space_bytes
from fst._core._columns import row_groups
from fst._core._problem import (_kept_gaps, _pack_rows, _quota, build_problem,
                                column_split_counts as _split_counts, rank_space)
from fst._core._problem import distinct_columns
from oracle import rescore

UNIT = np.ones((2, 2)) - np.eye(2)


def column_split_counts(X):
    return _split_counts(rank_space(X).values)


def _groups(X):
    ranked = rank_space(X)
    return row_groups(ranked.row_rank, ranked.n_ranks)


def _continuous(n, p, seed, nan=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).round(2).astype(np.float32)
    y = ((X[:, 0] + 0.7 * X[:, 1 % p] + 0.8 * rng.normal(size=n)) > 0).astype(int)
    if nan:
        X[rng.random((n, p)) < nan] = np.nan
    return X, y


def _full_thresholds(col):
    """The thresholds of the full space of one float32 column."""
    values = np.unique(col[~np.isnan(col)]).astype(np.float64)
    thr = list(values[:-1] / 2.0 + values[1:] / 2.0)
    if np.isnan(col).any() and len(values):
        thr.append(np.inf)
    return np.asarray(thr)


@pytest.mark.parametrize("counts, max_splits", [
    ([1, 1, 100, 5000], 50), ([3, 1, 0, 7], 5), ([10, 10, 10], 2), ([5, 5], 100),
    ([1] * 30, 27), ([100, 1, 1], 3), ([7, 0, 9], 0), ([400, 3, 2, 1], 8)])
def test_quota_fits_and_keeps_every_column_it_can(counts, max_splits):
    keep = _quota(counts, max_splits)
    counts = np.asarray(counts)
    assert keep.sum() == min(max_splits, counts.sum())
    assert np.all((keep >= 0) & (keep <= counts))
    if max_splits >= (counts > 0).sum():
        assert np.all(keep[counts > 0] >= 1)


def test_kept_gaps_are_distinct_row_quantiles():
    rng = np.random.default_rng(1)
    for _ in range(50):
        n_values = int(rng.integers(2, 60))
        rank = rng.integers(0, n_values, size=int(rng.integers(n_values, 400)))
        rank[: n_values] = np.arange(n_values)     # every value present
        for k in range(0, n_values + 1):
            gaps = _kept_gaps(rank, n_values, k)
            assert len(gaps) == min(k, n_values - 1)
            assert np.all(np.diff(gaps) > 0)
            assert gaps.min(initial=0) >= 0 and gaps.max(initial=0) <= n_values - 2


@pytest.mark.parametrize("seed", range(12))
def test_coarse_split_bits_hold_the_rows_of_each_threshold(seed):
    """Each kept threshold is one of the full space's (a midpoint of consecutive
    distinct values, or +inf for NaN), and its row bitset holds exactly the rows
    with x <= threshold (NaN never): the search scores a tree as the exported
    tree routes the rows."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 300))
    p = int(rng.integers(1, 5))
    X = rng.integers(0, int(rng.integers(2, 60)), size=(n, p)).astype(np.float32)
    X[rng.random((n, p)) < rng.choice([0.0, 0.1, 0.5])] = np.nan
    full = int(column_split_counts(X).sum())
    for max_splits in sorted({0, 1, p, full // 3, max(full - 1, 0)}):
        y = rng.integers(0, 2, n)
        pr = build_problem(X, y, 2, UNIT, max_splits)
        assert pr.n_splits <= max_splits
        X_sorted = X[_row_order(X, y)]
        np.testing.assert_array_equal(pr.y, y[_row_order(X, y)])
        for j in range(p):
            allowed = _full_thresholds(X[:, j])
            for s in range(pr.col_start[j], pr.col_start[j + 1]):
                t = pr.thresholds[s]
                assert np.any(allowed == t)
                left = X_sorted[:, j].astype(np.float64) <= t   # NaN compares False
                expected = _pack_rows(left[None, :], pr.n_words)[0]
                np.testing.assert_array_equal(pr.split_bits[s], expected)


def _row_order(X, y):
    """build_problem's row order: by label, then equivalence group (identical
    rows, NaN equal to NaN)."""
    key = np.where(np.isnan(X), np.inf, X)
    _, group = np.unique(key, axis=0, return_inverse=True)
    return np.lexsort((group.reshape(-1), y))


def test_max_splits_from_the_memory_limit():
    per = _split_space_bytes(1, 1000)
    assert per == 16 * 8
    assert _max_splits(100, 1000, 0) is None                   # no limit
    assert _max_splits(100, 1000, 0, split_bytes=100 * per) is None
    assert _max_splits(100, 1000, 0, split_bytes=99 * per) == 99
    assert _max_splits(100, 1000, 0, split_bytes=-5) == 0
    assert _max_splits(100, 1000, 1) == 0                      # below the process's size
    assert _max_splits(100, 1000, 1 << 50) is None


@pytest.mark.parametrize("budget", [0, 40, 400])
@pytest.mark.parametrize("nan", [0.0, 0.2])
def test_fit_over_the_split_space_returns_a_real_tree_never_certified(budget, nan):
    X, y = _continuous(240, 3, seed=7, nan=nan)
    lam = 0.02
    full = FastSmallTreeClassifier(regularization=lam, max_depth=3).fit(X, y)
    assert full.optimal_
    per = _split_space_bytes(1, len(y))
    clf = FastSmallTreeClassifier(regularization=lam, max_depth=3)
    clf._overrides = {"depth_engine": False, "split_bytes": budget * per}
    with pytest.warns(NotCertifiedWarning, match="thresholds of X need"):
        clf.fit(X, y)
    assert clf.status_ == "memory_limit" and clf.optimal_ is False
    assert clf.search_stats_["n_splits"] == full.search_stats_["n_splits"]
    assert clf.search_stats_["n_splits_searched"] <= budget
    assert rescore(clf, X, y, UNIT, lam) == pytest.approx(clf.objective_, abs=1e-12)
    # bound valid for the whole space, tree no better than the certified optimum
    assert clf.lower_bound_ <= full.objective_ + 1e-12 <= clf.objective_ + 2e-12
    assert clf.gap_ == pytest.approx(clf.objective_ - clf.lower_bound_)
    tree = clf.estimator_.tree_
    for node in np.flatnonzero(tree.children_left >= 0):
        allowed = _full_thresholds(X[:, tree.feature[node]])
        assert np.any(allowed == tree.threshold[node])
    if budget == 0:
        assert clf.n_leaves_ == 1


def test_fit_over_the_split_space_does_not_depend_on_row_order():
    X, y = _continuous(300, 4, seed=3, nan=0.1)
    perm = np.random.default_rng(0).permutation(len(y))
    fits = []
    for idx in (np.arange(len(y)), perm):
        clf = FastSmallTreeClassifier(regularization=0.01, max_depth=3)
        clf._overrides = {"depth_engine": False, "split_bytes": 60 * _split_space_bytes(1, len(y))}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotCertifiedWarning)
            clf.fit(X[idx], y[idx])
        fits.append(clf)
    assert fits[0].objective_ == fits[1].objective_
    assert fits[0].lower_bound_ == fits[1].lower_bound_
    np.testing.assert_array_equal(fits[0].predict(X), fits[1].predict(X))


def test_fit_over_the_split_space_with_sample_weights():
    X, y = _continuous(200, 3, seed=5)
    w = np.random.default_rng(2).integers(0, 3, size=len(y)).astype(float)
    lam = 0.02
    full = FastSmallTreeClassifier(regularization=lam, max_depth=2).fit(X, y, sample_weight=w)
    clf = FastSmallTreeClassifier(regularization=lam, max_depth=2)
    clf._overrides = {"depth_engine": False, "split_bytes": 30 * _split_space_bytes(1, int((w > 0).sum()))}
    with pytest.warns(NotCertifiedWarning, match="thresholds of X need"):
        clf.fit(X, y, sample_weight=w)
    assert clf.search_stats_["n_splits_searched"] <= 30
    assert rescore(clf, X, y, UNIT, lam, w) == pytest.approx(clf.objective_, abs=1e-12)
    assert clf.lower_bound_ <= full.objective_ + 1e-12 <= clf.objective_ + 2e-12


def test_the_full_space_is_searched_when_it_fits():
    X, y = _continuous(200, 3, seed=9)
    clf = FastSmallTreeClassifier(regularization=0.05, max_depth=2)
    clf._overrides = {"depth_engine": False, "split_bytes": _split_space_bytes(int(column_split_counts(X).sum()),
                                                       len(y))}
    clf.fit(X, y)
    assert clf.optimal_
    assert clf.search_stats_["n_splits_searched"] == clf.search_stats_["n_splits"]


def _fit_stats(clf):
    """What a fit decided, without its clock and memory readings."""
    stats = {k: v for k, v in clf.search_stats_.items()
             if k not in ("seconds", "peak_rss_bytes", "memory_limit")}
    tree = clf.estimator_.tree_
    return (clf.objective_, clf.lower_bound_, clf.optimal_, stats,
            tree.feature.tolist(), tree.threshold.tolist(), tree.value.tolist())


@pytest.mark.parametrize("max_depth", [None, 1, 2, 3])
@pytest.mark.parametrize("seed", range(8))
def test_bits_filled_on_first_use_change_nothing(seed, max_depth):
    """The search fills a split's row bitset when it first reads it (`split_row`,
    a whole column at once in the loops over many splits): the same tree, bounds
    and every search statistic as with every bitset filled before the search."""
    n = int(np.random.default_rng(seed).integers(30, 400 if max_depth else 80))
    X, y = _continuous(n, 1 + seed % 4, seed, nan=0.1 if seed % 3 == 0 else 0.0)
    if seed % 2:
        y = y + (X[:, 0] > 0.5)
    fits = []
    for eager in (False, True):
        lam = [0.01, 0.02, 0.05][seed % 3] if max_depth else [0.05, 0.1][seed % 2]
        clf = FastSmallTreeClassifier(regularization=lam,
                                      max_depth=max_depth, time_limit=120)
        clf._overrides = {"eager_bits": eager}
        fits.append(_fit_stats(clf.fit(X, y)))
    assert fits[0][2]
    assert fits[0] == fits[1]


@pytest.mark.slow
def test_bits_filled_on_first_use_hold_the_rows_of_each_threshold():
    """After a search, every split it filled holds exactly the rows of its
    threshold, every column it filled whole, and no other split was written."""
    from fst._core._config import make_config
    from fst._core._solver import Search

    for n, depth, lam in ((600, 2, 0.01), (300, 3, 0.01), (200, -1, 0.05)):
        X, y = _continuous(n, 4, 7)
        eager = build_problem(X, y, 2, UNIT)
        lazy = build_problem(X, y, 2, UNIT, fill=False)
        assert not lazy.split_filled.any() and not lazy.split_bits.any()
        search = Search(lazy, make_config(regularization=lam,
                                          max_depth=None if depth < 0 else depth,
                                          time_limit=60.0))
        search.run()
        assert search.solved
        filled = lazy.split_filled.astype(bool)
        np.testing.assert_array_equal(lazy.split_bits[filled], eager.split_bits[filled])
        assert not lazy.split_bits[~filled].any()
        assert filled.any()
        for j in np.flatnonzero(lazy.col_filled):
            assert filled[lazy.col_start[j]:lazy.col_start[j + 1]].all()


@pytest.mark.parametrize("seed", range(40))
def test_row_groups_and_distinct_columns_number_as_np_unique(seed):
    """The equivalence groups (`_columns.row_groups`) and the labels a leaf tries
    (`distinct_columns`) are what np.unique over rows gives: the same group ids
    (rank among the distinct rows, column 0 first) and the first label of each
    set of identical cost columns."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(1, 80)), int(rng.integers(1, 5))
    if seed % 2:
        X = rng.integers(-2, 3, size=(n, p)).astype(np.float32)
        X[rng.random((n, p)) < 0.15] = np.nan
    else:
        X = rng.normal(size=(n, p)).astype(np.float32)
        X[rng.random(n) < 0.3] = X[0]          # repeated rows
    key = np.where(np.isnan(X), np.inf, X)
    expected = np.unique(key, axis=0, return_inverse=True)[1].reshape(-1)
    assert np.array_equal(_groups(X), expected)
    K = int(rng.integers(2, 10))
    cost = rng.integers(0, 3, size=(K, K)).astype(float)
    cost[:, rng.integers(0, K, size=K // 2)] = cost[:, [0]]      # repeated columns
    first = np.sort(np.unique(cost.T, axis=0, return_index=True)[1])
    got = distinct_columns(cost)
    assert got.dtype == np.int32 and np.array_equal(got, first)


def test_row_groups_treat_minus_zero_as_zero():
    X = np.array([[0.0, 1.0], [-0.0, 1.0], [0.0, 2.0]], dtype=np.float32)
    assert np.array_equal(_groups(X), [0, 0, 1])
