"""Results do not depend on row order, column order, or the memo store's size."""
import numpy as np
import pytest

from fst import FastSmallTreeClassifier


def _problem(seed, n=80, p=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, p)).astype(float)
    X[rng.random((n, p)) < 0.05] = np.nan
    y = (np.nansum(X[:, :2], axis=1) + rng.integers(0, 3, n) > 5).astype(int)
    return X, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_depth", [None, 2])
def test_row_and_column_order(seed, max_depth):
    X, y = _problem(seed)
    base = FastSmallTreeClassifier(regularization=0.02, max_depth=max_depth).fit(X, y)
    rng = np.random.default_rng(100 + seed)
    rows = rng.permutation(len(y))
    cols = rng.permutation(X.shape[1])
    by_rows = FastSmallTreeClassifier(regularization=0.02, max_depth=max_depth).fit(X[rows], y[rows])
    by_cols = FastSmallTreeClassifier(regularization=0.02, max_depth=max_depth).fit(X[:, cols], y)
    for other in (by_rows, by_cols):
        assert other.optimal_
        assert other.objective_ == pytest.approx(base.objective_, abs=1e-12)
    # the row-permuted fit predicts the same on the original rows
    np.testing.assert_array_equal(by_rows.predict(X), base.predict(X))


def test_refit_is_deterministic():
    X, y = _problem(9)
    a = FastSmallTreeClassifier(regularization=0.01).fit(X, y)
    b = FastSmallTreeClassifier(regularization=0.01).fit(X, y)
    assert a.objective_ == b.objective_
    np.testing.assert_array_equal(a.estimator_.tree_.threshold, b.estimator_.tree_.threshold)
