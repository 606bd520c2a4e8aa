"""Float edge cases: the exported tree routes every training row exactly where
the solver did (float32 values, float64 midpoints, NaN right)."""
import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from oracle import optimal_objective, rescore

ZERO_ONE = np.ones((2, 2)) - np.eye(2)


def _check_against_oracle(X, y, lam, max_depth=None):
    clf = FastSmallTreeClassifier(regularization=lam, max_depth=max_depth).fit(X, y)
    _, y_idx = np.unique(y, return_inverse=True)
    expected = optimal_objective(X, y_idx, ZERO_ONE, lam, max_depth)
    assert clf.optimal_
    assert clf.objective_ == pytest.approx(expected, abs=1e-12)
    assert rescore(clf, X, y_idx, ZERO_ONE, lam) == pytest.approx(expected, abs=1e-12)
    _check_thresholds(clf, X)
    return clf


def _check_thresholds(clf, X):
    """Each threshold lies strictly between two consecutive float32 training values
    (or is +inf for the 'finite vs NaN' split), so x32 <= t <=> x32 <= u."""
    tree = clf.estimator_.tree_
    X32 = np.asarray(X, dtype=np.float32).astype(np.float64)
    for node in np.flatnonzero(tree.feature >= 0):
        col = X32[:, tree.feature[node]]
        t = tree.threshold[node]
        assert tree.missing_go_to_left[node] == 0
        if np.isinf(t):
            assert np.isnan(col).any()
            continue
        finite = col[~np.isnan(col)]
        assert not np.any(finite == t)
        assert np.any(finite < t) and np.any(finite > t)


def test_values_closer_than_float32_resolution_are_one_value():
    # 1.0 and 1.0 + 1e-8 are the same float32: they cannot be separated.
    X = np.array([[1.0], [1.0 + 1e-8], [1.0 + 1e-8], [2.0]])
    y = np.array([0, 1, 1, 0])
    clf = _check_against_oracle(X, y, 0.01)
    assert clf.n_leaves_ == 2  # {1.0, 1.0+1e-8} vs {2.0}: 1 error at best


def test_values_1e7_apart_near_zero_and_negative():
    X = np.array([[-1.0], [-1.0 + 1e-7], [0.0], [1e-7], [2e-7], [-0.0]])
    y = np.array([0, 1, 0, 1, 1, 0])
    _check_against_oracle(X, y, 0.01)


def test_huge_and_tiny_magnitudes():
    X = np.array([[-3e38, 1e-40], [3e38, -1e-40], [1e30, 0.0], [-1e30, 1e-38],
                  [3.4e38, 5e-41], [0.0, 0.0]])
    y = np.array([0, 1, 1, 0, 1, 0])
    _check_against_oracle(X, y, 0.01)


def test_ties_constant_columns_and_duplicates():
    rng = np.random.default_rng(3)
    X = np.hstack([np.full((30, 1), 7.0), rng.integers(0, 3, size=(30, 2)).astype(float)])
    X = np.vstack([X, X[:10]])  # duplicated rows, some with other labels
    y = np.concatenate([rng.integers(0, 2, 30), rng.integers(0, 2, 10)])
    clf = _check_against_oracle(X, y, 0.02)
    assert not np.any(clf.estimator_.tree_.feature == 0)  # a constant column never splits


def test_nan_goes_right_everywhere():
    X = np.array([[np.nan, 1.0], [0.0, np.nan], [1.0, 2.0], [np.nan, np.nan],
                  [2.0, 0.0], [0.5, 1.5], [np.nan, 0.5], [1.5, np.nan]])
    y = np.array([1, 0, 0, 1, 0, 0, 1, 1])
    clf = _check_against_oracle(X, y, 0.01)
    # a NaN row predicts what the rightmost path predicts
    tree = clf.estimator_.tree_
    node = 0
    while tree.children_right[node] != -1:
        node = tree.children_right[node]
    leaf_of_nan = clf.estimator_.apply(np.array([[np.nan, np.nan]], dtype=np.float32))[0]
    assert leaf_of_nan == node
    _check_against_oracle(X, y, 0.0, max_depth=2)


def test_all_nan_column():
    X = np.array([[np.nan, 0.0], [np.nan, 1.0], [np.nan, 2.0], [np.nan, 3.0]])
    y = np.array([0, 0, 1, 1])
    clf = _check_against_oracle(X, y, 0.01)
    assert clf.n_leaves_ == 2


def test_apply_partitions_training_rows_as_the_solver():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3)).astype(np.float32).astype(np.float64)
    X[rng.random((60, 3)) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0], nan=5.0) + rng.normal(scale=0.5, size=60) > 0).astype(int)
    clf = FastSmallTreeClassifier(regularization=0.03).fit(X, y)
    # The exported tree re-scores to the solver's value (fit raises otherwise),
    # and each leaf's recorded sample count equals the rows apply() sends there.
    leaves = clf.estimator_.apply(X)
    tree = clf.estimator_.tree_
    for leaf in np.flatnonzero(tree.children_left == -1):
        assert tree.n_node_samples[leaf] == np.sum(leaves == leaf)
