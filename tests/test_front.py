"""The leaves front: each count's least loss against the brute force of the trees
of at most that many leaves (classification with costs, weights, NaN,
min_samples_leaf and depth caps; regression), every tree re-scored from the raw
data; the floor against the brute force without a cap; the regularization path
read from the front against the oracle at every lam it covers and against the
path fitted lam by lam; a stopped front; bad input."""
import time
import warnings

import numpy as np
import pytest

from fst import (FastSmallTreeClassifier, LeavesFront, NotCertifiedWarning, leaves_front,
                 regularization_path)
from fst._front import _loss_floor
from fst.exceptions import ConstantTreeWarning
from oracle import (continuous_problem, optimal_objective, optimal_regression,
                    problem_cost, random_problem, regression_problem, sample_weights,
                    unbounded_problem)

K = 5


def _loss(tree, classes, X, y_idx, cost, w=None):
    pred = np.searchsorted(classes, tree.predict(np.asarray(X, dtype=np.float32)))
    w = np.ones(len(y_idx)) if w is None else np.asarray(w, dtype=float)
    return float((w * cost[y_idx, pred]).sum() / w.sum())


def _r2_loss(tree, X, y, w=None):
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    live = w > 0
    pred = tree.predict(np.asarray(X, dtype=np.float32))
    mean = (w[live] * y[live]).sum() / w[live].sum()
    return float((w * (y - pred) ** 2).sum() / (w[live] * (y[live] - mean) ** 2).sum())


def _problem(kind, seed):
    """(X, y, cost, max_depth, weights, min_leaf): binary, small-integer and NaN
    columns (`random`), many values a column under a depth cap
    (`continuous`), many values without one (`unbounded`); weights on every
    third seed, min_samples_leaf 2 on every fifth."""
    if kind == "random":
        X, y, cost, _, depth = random_problem(8000 + seed)
    elif kind == "continuous":
        X, y, cost, _, depth = continuous_problem(8000 + seed)
    else:
        X, y, cost, _ = unbounded_problem(8000 + seed)
        depth = None
    w = sample_weights(seed, y) if seed % 3 == 2 else None
    return X, y, cost, depth, w, 2 if seed % 5 == 4 else 1


def _check_front(front, X, y, cost, depth, w, min_leaf):
    y_idx, full = problem_cost(y, cost)
    f = front.front_
    assert front.optimal_ and f["optimal"].all()
    assert f["n_leaves"].tolist() == list(range(1, K + 1))
    assert np.all(np.diff(f["loss"]) <= 1e-12)
    for k in range(1, K + 1):
        tree = front.trees_[k - 1]
        truth = optimal_objective(X, y_idx, full, 0.0, depth, weights=w, min_leaf=min_leaf,
                                  max_leaves=k)
        assert f["loss"][k - 1] == pytest.approx(truth, abs=1e-9)
        assert f["lower_bound"][k - 1] == pytest.approx(truth, abs=1e-9)
        # the tree itself, from the raw data
        assert _loss(tree, front.classes_, X, y_idx, full, w) == pytest.approx(truth, abs=1e-9)
        assert tree.get_n_leaves() == f["tree_leaves"][k - 1] <= k
        assert depth is None or tree.get_depth() <= depth
    # the floor is the least loss of every tree
    unlimited = optimal_objective(X, y_idx, full, 0.0, None, weights=w)
    assert front.loss_floor_ <= unlimited + 1e-12
    if min_leaf == 1:
        assert front.loss_floor_ == pytest.approx(unlimited, rel=1e-8, abs=1e-9)


def _check_path(front, X, y, cost, depth, w, min_leaf):
    """The path read from the front is the oracle's optimum at both ends and
    the middle of every interval, and on a grid of the lam it covers."""
    y_idx, full = problem_cost(y, cost)
    path = front.regularization_path()
    assert path.lambda_min == front.lambda_cover_
    assert len(path.fits_["lambda"]) == 0          # no fit
    oracle = {}

    def best(lam):
        if lam not in oracle:
            oracle[lam] = optimal_objective(X, y_idx, full, lam, depth, weights=w,
                                            min_leaf=min_leaf)
        return oracle[lam]

    def value(tree, lam):
        return _loss(tree, path.classes_, X, y_idx, full, w) + lam * tree.get_n_leaves()

    fr = path.pareto_front_
    assert np.all(np.diff(fr["n_leaves"]) > 0)
    assert np.allclose(fr["lambda_min"][:-1], fr["lambda_max"][1:], rtol=0, atol=0)
    assert fr["optimal"].all()
    for i, tree in enumerate(path.trees_):
        a, b = fr["lambda_min"][i], fr["lambda_max"][i]
        for lam in (a, 0.5 * (a + b), b):
            assert value(tree, lam) == pytest.approx(best(float(lam)), abs=1e-9)
    for lam in np.linspace(path.lambda_min, path.lambda_max, 17):
        assert value(path.tree_at(lam), lam) == pytest.approx(best(float(lam)), abs=1e-9)
    return path


@pytest.mark.parametrize("kind", ["random", "continuous", "unbounded"])
@pytest.mark.parametrize("seed", range(10))
def test_front_matches_the_oracle_and_its_path_too(kind, seed):
    X, y, cost, depth, w, min_leaf = _problem(kind, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        front = leaves_front(X, y, max_leaf_nodes=K, max_depth=depth,
                             min_samples_leaf=min_leaf, cost_matrix=cost, sample_weight=w,
                             time_limit=None)
    assert isinstance(front, LeavesFront)
    _check_front(front, X, y, cost, depth, w, min_leaf)
    _check_path(front, X, y, cost, depth, w, min_leaf)
    # a count at or past the floor, or past 2^depth, is not searched
    searched = front.fits_["max_leaf_nodes"]
    assert searched.tolist() == sorted(set(searched.tolist()))
    if depth is not None:
        assert searched.max() <= 2 ** depth


@pytest.mark.parametrize("seed", range(12))
def test_regression_front_matches_the_oracle(seed):
    X, y, _, depth = regression_problem(seed)
    w = sample_weights(seed, y) if seed % 3 == 1 else None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        front = leaves_front(X, y, max_leaf_nodes=4, max_depth=depth, sample_weight=w,
                             time_limit=None, task="regression")
    assert front.classes_ is None and front.optimal_
    for k in range(1, 5):
        truth = optimal_regression(X, y, 0.0, depth, weights=w, max_leaves=k)
        tree = front.trees_[k - 1]
        assert front.front_["loss"][k - 1] == pytest.approx(truth, abs=1e-9)
        assert _r2_loss(tree, X, y, w) == pytest.approx(truth, abs=1e-9)
        assert front.front_["r2"][k - 1] == pytest.approx(1.0 - truth, abs=1e-9)
        assert tree.get_n_leaves() <= k
    unlimited = optimal_regression(X, y, 0.0, None, weights=w)
    assert front.loss_floor_ == pytest.approx(unlimited, rel=1e-8, abs=1e-9)
    assert front.loss_floor_ <= unlimited
    path = front.regularization_path()
    for lam in np.linspace(path.lambda_min, path.lambda_max, 9):
        tree = path.tree_at(lam)
        assert (_r2_loss(tree, X, y, w) + lam * tree.get_n_leaves()
                == pytest.approx(optimal_regression(X, y, float(lam), depth, weights=w),
                                 abs=1e-9))


def test_the_path_read_from_the_front_is_the_fitted_path():
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True)
    front = leaves_front(X, y, max_leaf_nodes=6)
    # the docstring's example
    assert (front.front_["loss"] * len(y)).round().astype(int).tolist()[:4] == [100, 50, 6, 3]
    read = front.regularization_path()
    fitted = regularization_path(X, y, lambda_min=front.lambda_cover_)
    for key in ("lambda_min", "lambda_max", "loss", "n_leaves", "accuracy", "optimal"):
        assert np.allclose(read.pareto_front_[key], fitted.pareto_front_[key], atol=1e-12)
    assert len(read.fits_["lambda"]) == 0 and len(fitted.fits_["lambda"]) > 0
    text = repr(front)
    assert "certified" in text and "leaves<=6" in text


def test_the_floor_groups_identical_rows_and_nan():
    X = np.array([[0.0, np.nan], [0.0, np.nan], [0.0, 1.0], [1.0, 1.0]], dtype=np.float32)
    y_idx = np.array([0, 1, 1, 1])
    cost = 1.0 - np.eye(2)
    # rows 0 and 1 (NaN alike) share a leaf: one of them is lost
    assert _loss_floor(X, np.ones(4), y_idx=y_idx, cost=cost) == pytest.approx(0.25)
    assert _loss_floor(X, np.array([3.0, 1.0, 1.0, 1.0]), y_idx=y_idx,
                       cost=cost) == pytest.approx(1.0 / 6.0)
    target = np.array([1.0, 3.0, 5.0, 7.0])
    # within the pair: 2 of the total 20
    assert _loss_floor(X, np.ones(4), target=target) == pytest.approx(0.1)


def test_a_stopped_front_keeps_its_bounds_sound_and_warns():
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    t0 = time.perf_counter()
    with pytest.warns(NotCertifiedWarning, match="leaves front stopped"):
        front = leaves_front(X, y, max_leaf_nodes=7, time_limit=2.0)
    assert time.perf_counter() - t0 < 6.0
    f = front.front_
    assert not front.optimal_ and not f["optimal"][-1]
    assert f["optimal"][:3].all()                # one to three leaves are quick
    assert np.all(np.diff(f["loss"]) <= 1e-12)
    assert np.all(np.diff(f["lower_bound"]) <= 1e-12)
    assert np.all(f["lower_bound"] <= f["loss"] + 1e-12)
    assert np.all(f["lower_bound"] >= front.loss_floor_)
    # the depth-3 optimum (8 leaves) bounds the counts up to 4 from below
    y_idx, full = problem_cost(y)
    for k in range(1, 8):
        tree = front.trees_[k - 1]
        assert tree.get_n_leaves() <= k
        assert f["loss"][k - 1] == pytest.approx(
            _loss(tree, front.classes_, X, y_idx, full), abs=1e-12)
    path = front.regularization_path()
    assert not path.optimal_                    # the uncertified counts leave it open


def test_a_depth_cap_covers_every_lam():
    X, y, cost, _, _ = random_problem(8003)
    front = leaves_front(X, y, max_leaf_nodes=4, max_depth=2, cost_matrix=cost,
                         time_limit=None)
    assert front.lambda_cover_ == 0.0
    assert front.fits_["max_leaf_nodes"].max() <= 4


@pytest.mark.parametrize("kwargs, message", [
    (dict(max_leaf_nodes=0), "max_leaf_nodes must be an integer >= 1"),
    (dict(max_leaf_nodes=True), "max_leaf_nodes must be an integer >= 1"),
    (dict(max_leaf_nodes=2.5), "max_leaf_nodes must be an integer >= 1"),
    (dict(task="ranking"), "task must be"),
    (dict(task="regression", cost_matrix=[[0, 1], [1, 0]]), "do not apply"),
    (dict(time_limit=-1), "time_limit must be a positive number"),
    (dict(time_limit="soon"), "time_limit must be a positive number"),
])
def test_bad_input_is_named(kwargs, message):
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1, 0, 1, 1, 0])
    with pytest.raises(ValueError, match=message):
        leaves_front(X, y, **kwargs)


def test_bad_ranges_of_the_path_are_named():
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1, 0, 1, 1, 0])
    front = leaves_front(X, y, max_leaf_nodes=3)
    with pytest.raises(ValueError, match="below lambda_min"):
        front.regularization_path(lambda_min=0.2, lambda_max=0.1)
    with pytest.raises(ValueError, match="lambda_min must be a finite number"):
        front.regularization_path(lambda_min=-1.0)


def test_plot_front_draws_every_count(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from sklearn.datasets import load_wine
    X, y = load_wine(return_X_y=True)
    front = leaves_front(X, y, max_leaf_nodes=4)
    ax = front.plot_front()
    xs = np.concatenate([line.get_xdata() for line in ax.get_lines()[1:]])
    assert sorted(xs.tolist()) == [1, 2, 3, 4]
    ax.figure.savefig(tmp_path / "front.png")


def test_ctrl_c_ends_the_front_with_what_it_proved(monkeypatch):
    """Ctrl-C in a count's search ends the front there: that count keeps its
    best tree, the larger counts are not searched, and the front warns."""
    import fst._engine as engine
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    original = engine.EngineSearch._search
    calls = []

    def patched(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(engine.EngineSearch, "_search", patched)
    with pytest.warns(NotCertifiedWarning, match="leaves front stopped"):
        front = leaves_front(X, y, max_leaf_nodes=6, time_limit=30)
    searched = front.fits_["max_leaf_nodes"].tolist()
    last = searched[-1]
    assert last < 6 and not front.fits_["optimal"][-1]
    f = front.front_
    assert not f["optimal"][last - 1:].any()
    assert all(t is front.trees_[last - 1] for t in front.trees_[last:])
    assert np.all(f["lower_bound"] <= f["loss"] + 1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_the_front_does_not_depend_on_threads_or_row_order(seed):
    """The same losses, bounds and trees with two threads, and the same losses
    and bounds with the rows shuffled (each tree re-scored on its own rows)."""
    X, y, cost, depth, w, ml = _problem("unbounded" if seed % 2 else "continuous", seed)
    kw = dict(max_leaf_nodes=K, max_depth=depth, min_samples_leaf=ml, cost_matrix=cost,
              time_limit=None)
    one = leaves_front(X, y, sample_weight=w, **kw)
    two = leaves_front(X, y, sample_weight=w, n_jobs=2, **kw)
    perm = np.random.default_rng(seed).permutation(len(y))
    moved = leaves_front(X[perm], y[perm], sample_weight=None if w is None else w[perm],
                         **kw)
    for other in (two, moved):
        for key in ("loss", "lower_bound", "tree_leaves", "optimal"):
            np.testing.assert_allclose(one.front_[key], other.front_[key], atol=1e-12)
    for a, b in zip(one.trees_, two.trees_):
        for attr in ("feature", "threshold", "children_left", "children_right"):
            np.testing.assert_array_equal(getattr(a.tree_, attr), getattr(b.tree_, attr))
    assert one.lambda_cover_ == pytest.approx(moved.lambda_cover_, abs=1e-12)


def test_a_front_pickles_and_its_path_reads_the_same_after():
    import pickle
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True)
    front = leaves_front(X, y, max_leaf_nodes=5)
    back = pickle.loads(pickle.dumps(front))
    for key in ("loss", "lower_bound", "accuracy", "optimal"):
        np.testing.assert_array_equal(back.front_[key], front.front_[key])
    a, b = front.regularization_path(), back.regularization_path()
    for key in ("lambda_min", "lambda_max", "loss", "accuracy", "optimal"):
        np.testing.assert_array_equal(a.pareto_front_[key], b.pareto_front_[key])
    np.testing.assert_array_equal(back.trees_[2].predict(X), front.trees_[2].predict(X))


def test_each_count_is_the_fit_of_its_cap_on_a_data_frame():
    """The counts are fitted on one check of the data (`_front._Counts`): each
    count's tree is node for node the estimator's own fit under that cap at
    lam = 0, and it keeps the data frame's column names and classes."""
    pd = pytest.importorskip("pandas")
    X, y, cost, _, _ = random_problem(4242)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    labels = np.array(["no", "yes", "maybe"])[np.asarray(y) % 3]
    front = leaves_front(frame, labels, max_leaf_nodes=K, class_weight="balanced",
                         time_limit=None)
    assert list(front.classes_) == sorted(set(labels))
    compared = 0
    for k, tree in zip(range(2, K + 1), front.trees_[1:]):
        fit = FastSmallTreeClassifier(regularization=0.0, max_leaf_nodes=k,
                                      class_weight="balanced", time_limit=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConstantTreeWarning)
            fit.fit(frame, labels)
        if not front.front_["tree_leaves"][k - 1] == fit.n_leaves_:
            continue        # (a count whose search found no better tree keeps the one before)
        np.testing.assert_array_equal(tree.feature_names_in_, frame.columns)
        np.testing.assert_array_equal(tree.classes_, fit.classes_)
        for attr in ("feature", "threshold", "children_left", "children_right", "value"):
            np.testing.assert_array_equal(getattr(tree.tree_, attr),
                                          getattr(fit.estimator_.tree_, attr))
        compared += 1
    assert compared >= 3, compared
