"""sample_weight: validation, the weighted tree as scikit-learn stores it, and
results that do not depend on row order, n_jobs or how a weight is spelled.
(The optimum itself is checked against brute force in test_oracle.py.)"""
import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from oracle import optimal_objective, rescore


def _problem(seed, n=120, p=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, p)).astype(float)
    X[rng.random((n, p)) < 0.05] = np.nan
    y = (np.nansum(X[:, :2], axis=1) + rng.integers(0, 4, n) > 6).astype(int)
    w = rng.choice([0.0, 0.25, 1.0, 2.0, 7.5], size=n)
    return X, y, w


def _same_tree(a, b):
    for attr in ("feature", "threshold", "children_left", "children_right"):
        np.testing.assert_array_equal(getattr(a.estimator_.tree_, attr),
                                      getattr(b.estimator_.tree_, attr))


X0 = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
y0 = np.array([0, 1, 0, 1])


@pytest.mark.parametrize("w, match", [
    ([1.0, -1.0, 1.0, 1.0], "must be >= 0"),
    ([1.0, np.nan, 1.0, 1.0], "NaN"),
    ([1.0, np.inf, 1.0, 1.0], "infinity"),
    ([0.0, 0.0, 0.0, 0.0], "zero"),
    ([1.0, 1.0, 1.0], "shape|samples"),
    ([1e308, 1e308, 1.0, 1.0], "float range"),
])
def test_bad_sample_weight(w, match):
    with pytest.raises(ValueError, match=match):
        FastSmallTreeClassifier(regularization=0.1).fit(X0, y0, sample_weight=w)


@pytest.mark.parametrize("seed", range(6))
def test_any_real_weights_are_exact(seed):
    """Weights of every row distinct (far more (class, weight) pairs than the
    bitset search's classes): the depth-limited engine counts each row's
    weight, with max_depth and by leaf budget without it; the optimum is the
    brute force's, the tree re-scores to it, and the root's weighted count is
    the weights' sum as sklearn stores it."""
    rng = np.random.default_rng(seed)
    n = 90
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    K = 2 + seed % 2
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    w = rng.random(n) * 3
    w[rng.random(n) < 0.1] = 0.0
    cost = np.ones((K, K)) - np.eye(K)
    if seed % 3 == 1:
        cost = rng.uniform(0, 2, (K, K))
    lam = [0.01, 0.03][seed % 2]
    depth = [2, None, 3][seed % 3]
    clf = FastSmallTreeClassifier(regularization=lam, max_depth=depth,
                                  cost_matrix=None if seed % 3 != 1 else cost)
    clf.fit(X, y, sample_weight=w)
    expected = optimal_objective(X, y, cost, lam, depth, weights=w)
    assert clf.optimal_
    assert clf.search_stats_["engine"] == "depth"
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert rescore(clf, X, y, cost, lam, w) == pytest.approx(expected, abs=1e-9)
    assert clf.estimator_.tree_.weighted_n_node_samples[0] == pytest.approx(w.sum())
    assert clf.estimator_.tree_.n_node_samples[0] == np.count_nonzero(w)


def test_weights_beyond_the_general_search_above_the_engine_s_depth_are_a_clear_error():
    rng = np.random.default_rng(0)
    X = rng.random((200, 2))
    y = rng.integers(0, 2, 200)
    w = rng.random(200) + 0.1                      # 200 distinct weights
    with pytest.raises(ValueError, match="distinct .class, weight. pairs.*max_depth <= 16"):
        FastSmallTreeClassifier(regularization=0.1, max_depth=17).fit(X, y, sample_weight=w)
    clf = FastSmallTreeClassifier(regularization=0.0, max_depth=17)
    with pytest.raises(ValueError, match="distinct .class, weight. pairs"):
        clf.fit(X, y, sample_weight=w)
    # 32 distinct weights per class, 64 pairs: the bitset search's classes
    w = 1.0 + (np.arange(200) % 32)
    Xs = np.floor(X * 6)
    clf = FastSmallTreeClassifier(regularization=0.02).fit(Xs, y, sample_weight=w)
    assert clf.optimal_
    assert clf.search_stats_["engine"] == "general"
    assert clf.objective_ == pytest.approx(
        FastSmallTreeClassifier(regularization=0.02).fit(
            np.repeat(Xs, w.astype(int), axis=0), np.repeat(y, w.astype(int))).objective_,
        abs=1e-12)


def test_constant_and_scaled_weights():
    """A constant weight is the unweighted problem; scaling every weight changes
    nothing (the loss is divided by the weights' sum)."""
    X, y, w = _problem(1)
    base = FastSmallTreeClassifier(regularization=0.02).fit(X, y)
    const = FastSmallTreeClassifier(regularization=0.02).fit(X, y, sample_weight=np.full(len(y), 3.0))
    _same_tree(base, const)
    assert const.objective_ == base.objective_
    a = FastSmallTreeClassifier(regularization=0.02).fit(X, y, sample_weight=w)
    b = FastSmallTreeClassifier(regularization=0.02).fit(X, y, sample_weight=4.0 * w)
    assert a.optimal_ and b.optimal_
    _same_tree(a, b)
    assert a.objective_ == pytest.approx(b.objective_, abs=1e-12)


def test_zero_weight_rows_are_absent():
    """Rows of weight 0 are left out before the split space is built: the same
    tree, thresholds included, as the fit without them."""
    X, y, w = _problem(2)
    keep = w > 0
    a = FastSmallTreeClassifier(regularization=0.02).fit(X, y, sample_weight=w)
    b = FastSmallTreeClassifier(regularization=0.02).fit(X[keep], y[keep], sample_weight=w[keep])
    assert a.optimal_
    _same_tree(a, b)
    assert a.objective_ == pytest.approx(b.objective_, abs=1e-12)


def test_weighted_tree_as_sklearn_stores_it():
    """n_node_samples counts the rows of positive weight, weighted_n_node_samples
    sums sample weight times class weight, and value holds the weighted class
    fractions of the rows reaching each node."""
    X, y, w = _problem(3)
    cw = {0: 1.5, 1: 0.5}
    clf = FastSmallTreeClassifier(regularization=0.02, class_weight=cw).fit(X, y, sample_weight=w)
    tree = clf.estimator_.tree_
    leaf = clf.apply(X)
    rw = w * np.where(y == 1, cw[1], cw[0])
    assert tree.n_node_samples[0] == (w > 0).sum()
    assert tree.weighted_n_node_samples[0] == pytest.approx(rw.sum())
    for node in np.unique(leaf):
        at = (leaf == node) & (w > 0)
        assert tree.n_node_samples[node] == at.sum()
        frac = np.array([rw[at & (y == k)].sum() for k in (0, 1)]) / rw[at].sum()
        np.testing.assert_allclose(tree.value[node, 0], frac)
    # predict returns each leaf's label of least weighted loss
    for node in np.unique(leaf):
        at = (leaf == node) & (w > 0)
        best = np.argmax([rw[at & (y == k)].sum() for k in (0, 1)])
        assert np.all(clf.predict(X[leaf == node]) == best)


@pytest.mark.parametrize("seed", range(4))
def test_row_order_and_n_jobs(seed):
    X, y, w = _problem(10 + seed, n=300)
    base = FastSmallTreeClassifier(regularization=0.01).fit(X, y, sample_weight=w)
    assert base.optimal_
    rows = np.random.default_rng(seed).permutation(len(y))
    shuffled = FastSmallTreeClassifier(regularization=0.01).fit(X[rows], y[rows],
                                                                sample_weight=w[rows])
    two = FastSmallTreeClassifier(regularization=0.01, n_jobs=2).fit(X, y, sample_weight=w)
    for other in (shuffled, two):
        assert other.optimal_
        assert other.objective_ == pytest.approx(base.objective_, abs=1e-12)
        _same_tree(other, base)


def test_pandas_series_and_list_weights():
    pd = pytest.importorskip("pandas")
    X, y, w = _problem(4)
    a = FastSmallTreeClassifier(regularization=0.02).fit(X, y, sample_weight=w)
    b = FastSmallTreeClassifier(regularization=0.02).fit(X, y, sample_weight=pd.Series(w))
    c = FastSmallTreeClassifier(regularization=0.02).fit(X, y, sample_weight=list(w))
    _same_tree(a, b)
    _same_tree(a, c)
