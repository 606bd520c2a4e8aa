"""The columns ranked once per fit (`fst._core._columns`): each row's rank, the
rows by rank, the groups of identical rows, against naive numpy references, and
a fit stopped by its time limit while they are computed."""
import time
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier, FastSmallTreeRegressor, NotCertifiedWarning
from fst._core._columns import PreparationStopped, order_by_rank, rank_columns, row_groups
from fst._core._limits import clock


def _naive(X):
    """(values, row_rank, col_order) as np.unique, np.searchsorted and a stable
    argsort give them."""
    values, ranks, orders = [], [], []
    for j in range(X.shape[1]):
        col = X[:, j]
        nan = np.isnan(col)
        uniq = np.unique(col[~nan])
        rank = np.searchsorted(uniq, col).astype(np.int32)
        rank[nan] = len(uniq)
        values.append((uniq, bool(nan.any())))
        ranks.append(rank)
        orders.append(np.argsort(rank, kind="stable").astype(np.int32))
    n, p = X.shape
    return (values, np.array(ranks, dtype=np.int32).reshape(p, n),
            np.array(orders, dtype=np.int32).reshape(p, n))


def _data(rng, kind, n, p):
    if kind == 0:
        return rng.normal(size=(n, p)).astype(np.float32)
    if kind == 1:
        return rng.integers(-2, 3, size=(n, p)).astype(np.float32)
    if kind == 2:
        pool = np.array([-0.0, 0.0, 1.5, -3.0, np.nan, 1e30, -1e-30, -1e30], np.float32)
        return rng.choice(pool, size=(n, p))
    X = rng.integers(0, 2, size=(n, p)).astype(np.float32)
    X[rng.random((n, p)) < 0.2] = np.nan
    return X


@pytest.mark.parametrize("seed", range(40))
def test_ranks_orders_and_groups_match_numpy(seed):
    """Values, ranks (NaN above every number, -0.0 as 0.0), rows by rank with
    ties by row index, the same after a row permutation (`order_by_rank`'s
    take), and the groups of identical rows numbered as np.unique numbers them."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(0, 70)), int(rng.integers(1, 5))
    X = np.ascontiguousarray(_data(rng, seed % 4, n, p))
    values, rank, order = rank_columns(X)
    ref_values, ref_rank, ref_order = _naive(X)
    for (v, nan), (rv, rnan) in zip(values, ref_values):
        assert v.dtype == np.float32 and nan == rnan
        np.testing.assert_array_equal(v, rv)
    np.testing.assert_array_equal(rank, ref_rank)
    np.testing.assert_array_equal(order, ref_order)
    n_ranks = np.array([len(v) + nan for v, nan in values], dtype=np.int32)
    np.testing.assert_array_equal(order_by_rank(rank, n_ranks), ref_order)
    take = rng.permutation(n).astype(np.int64)
    taken, taken_order = order_by_rank(rank, n_ranks, take=take)
    np.testing.assert_array_equal(taken, rank[:, take])
    np.testing.assert_array_equal(taken_order, _naive(X[take])[2])
    groups = row_groups(rank, n_ranks)
    if n:
        expected = np.unique(np.where(np.isnan(X), np.inf, X), axis=0,
                             return_inverse=True)[1].reshape(-1)
        np.testing.assert_array_equal(groups, expected)


@pytest.mark.parametrize("seed", range(6))
def test_large_groups_are_sorted_by_radix(seed):
    """Groups of more than 32 rows are split by radix passes over their ranks'
    bytes (one, two or three of them): the same groups as np.unique."""
    rng = np.random.default_rng(seed)
    high = (3, 300, 70_000)[seed % 3]
    n = 3000 if high < 70_000 else 140_000
    X = rng.integers(0, high, size=(n, 3)).astype(np.float32)
    X[:, 1] = X[:, 1] % 2
    values, rank, _ = rank_columns(X)
    n_ranks = np.array([len(v) + nan for v, nan in values], dtype=np.int32)
    expected = np.unique(rank.T, axis=0, return_inverse=True)[1].reshape(-1)
    np.testing.assert_array_equal(row_groups(rank, n_ranks), expected)


def test_a_passed_deadline_stops_the_ranking():
    X = np.zeros((10, 3), dtype=np.float32)
    with pytest.raises(PreparationStopped) as stop:
        rank_columns(X, clock() - 1.0)
    assert stop.value.code == 1
    values, rank, _ = rank_columns(X, clock() + 60.0)
    assert len(values) == 3 and rank.shape == (3, 10)


@pytest.mark.parametrize("make", [
    lambda: FastSmallTreeClassifier(0.01, max_depth=3, time_limit=1e-4),
    lambda: FastSmallTreeClassifier(0.01, time_limit=1e-4),
    lambda: FastSmallTreeRegressor(0.01, max_depth=3, time_limit=1e-4),
])
def test_a_fit_stopped_while_ranking_returns_the_leaf_in_time(make):
    """A time limit shorter than the ranking of the columns: the fit returns the
    single leaf within the limit (and a little), not certified, with a warning,
    a bound below the leaf's objective, and the statistics every fit has."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 200)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    est = make()
    if isinstance(est, FastSmallTreeRegressor):
        y = X[:, 0] + rng.normal(size=len(y))
    started = time.perf_counter()
    with pytest.warns(NotCertifiedWarning, match="time_limit"):
        est.fit(X, y)
    assert time.perf_counter() - started < 2.0
    assert est.status_ == "time_limit" and not est.optimal_
    assert est.n_leaves_ == 1 and est.estimator_.tree_.node_count == 1
    assert est.search_stats_["stopped_in"] == "preparation"
    assert 0 <= est.lower_bound_ <= est.objective_
    assert est.gap_ == pytest.approx(est.objective_ - est.lower_bound_)
    pred = est.predict(X[:5])
    assert len(set(np.asarray(pred).tolist())) == 1
    if isinstance(est, FastSmallTreeRegressor):
        assert est.objective_ == pytest.approx(1.0 + 0.01)
        assert pred[0] == pytest.approx(y.mean())
    else:
        assert est.objective_ == pytest.approx(min(y.mean(), 1 - y.mean()) + 0.01)


def test_the_classifier_leaf_of_a_stop_takes_the_cost_matrix_and_weights():
    """The leaf of a fit stopped while ranking predicts the least-cost label of
    the weighted rows, and its objective is re-scored with them."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20_000, 200)).astype(np.float32)
    y = (X[:, 0] > -0.8).astype(int)           # mostly class 1
    w = np.where(y == 0, 1.0, 0.5)
    cost = np.array([[0.0, 5.0], [1.0, 0.0]])  # calling a 0 a 1 costs 5
    est = FastSmallTreeClassifier(0.01, max_depth=2, cost_matrix=cost, time_limit=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        est.fit(X, y, sample_weight=w)
    assert est.search_stats_["stopped_in"] == "preparation"
    share = np.bincount(y, weights=w) / w.sum()
    leaf_costs = share @ cost
    assert est.predict(X[:1])[0] == int(np.argmin(leaf_costs))
    assert est.objective_ == pytest.approx(leaf_costs.min() + 0.01)
    assert est.lower_bound_ <= est.objective_
