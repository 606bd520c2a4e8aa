"""The certified regularization path: every tree is the oracle's optimum at both
ends of its interval and inside it, the breakpoints are where neighbouring trees'
lines cross (to 1e-9), `tree_at` returns each interval's tree, and no tree is
missing (the oracle on a fine grid of lam agrees with the path everywhere)."""
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier, NotCertifiedWarning, regularization_path
from fst.exceptions import ConstantTreeWarning
from oracle import optimal_objective, problem_cost, random_problem, sample_weights


def _objective(tree, classes, X, y_idx, cost, lam, w=None):
    pred = np.searchsorted(classes, tree.predict(np.asarray(X, dtype=np.float32)))
    w = np.ones(len(y_idx)) if w is None else np.asarray(w, dtype=float)
    return (w * cost[y_idx, pred]).sum() / w.sum() + lam * tree.get_n_leaves()


def _check_path(X, y, cost, depth, lo, hi, w=None, grid=41):
    y_idx, full = problem_cost(y, cost)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        path = regularization_path(X, y, lambda_min=lo, lambda_max=hi, max_depth=depth,
                                   cost_matrix=cost, sample_weight=w, time_limit=None)
    f = path.pareto_front_
    assert path.optimal_ and f["optimal"].all()
    n = path.n_trees_
    assert len(path.trees_) == n == len(f["n_leaves"]) == len(path.estimators_)
    # simplest first, intervals tiling [lo, hi] from the top down
    assert np.all(np.diff(f["n_leaves"]) > 0)
    assert f["lambda_max"][0] == pytest.approx(path.lambda_max, abs=0)
    assert f["lambda_min"][-1] == lo
    assert np.allclose(f["lambda_min"][:-1], f["lambda_max"][1:], rtol=0, atol=0)
    oracle = {}

    def best(lam):
        if lam not in oracle:
            oracle[lam] = optimal_objective(X, y_idx, full, lam, depth, weights=w)
        return oracle[lam]

    for i, tree in enumerate(path.trees_):
        a, b = f["lambda_min"][i], f["lambda_max"][i]
        mid = 0.5 * (a + b)
        for lam in (a, mid, b):
            value = _objective(tree, path.classes_, X, y_idx, full, lam, w)
            assert value == pytest.approx(best(lam), abs=1e-9)
        assert f["n_leaves"][i] == tree.get_n_leaves()
        assert f["loss"][i] == pytest.approx(
            _objective(tree, path.classes_, X, y_idx, full, 0.0, w), abs=1e-12)
        assert path.tree_at(mid) is tree
        if i > 0:
            # a breakpoint: the two neighbours' lines cross there, to 1e-9
            simpler = path.trees_[i - 1]
            assert (_objective(simpler, path.classes_, X, y_idx, full, b, w)
                    == pytest.approx(_objective(tree, path.classes_, X, y_idx, full, b, w),
                                     abs=1e-9))
            assert path.tree_at(b) is simpler      # the simpler at a shared end
    # no tree missing: on a fine grid the path's tree is the oracle's optimum
    for lam in np.linspace(lo, path.lambda_max, grid):
        value = _objective(path.tree_at(lam), path.classes_, X, y_idx, full, lam, w)
        assert value == pytest.approx(best(float(lam)), abs=1e-9)
    return path


@pytest.mark.parametrize("seed", range(24))
def test_path_matches_the_oracle(seed):
    X, y, cost, _, depth = random_problem(seed)
    lo = 0.0 if depth is not None and seed % 2 else 0.01
    _check_path(X, y, cost, depth, lo, None)


@pytest.mark.parametrize("seed", range(6))
def test_path_with_sample_weights_matches_the_oracle(seed):
    X, y, cost, _, depth = random_problem(seed)
    _check_path(X, y, cost, depth, 0.01, 0.4, w=sample_weights(seed, y))


def test_path_ends_and_a_single_tree():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    path = regularization_path(X, y, lambda_min=0.01, lambda_max=0.2)
    # one split separates the classes: the same two-leaf tree over the whole range
    assert path.n_trees_ == 1 and path.optimal_
    assert path.pareto_front_["n_leaves"].tolist() == [2]
    assert path.pareto_front_["accuracy"].tolist() == [1.0]
    assert path.tree_at(0.1) is path.trees_[0]
    with pytest.raises(ValueError, match="outside the path's range"):
        path.tree_at(0.5)
    # the default upper end: the single leaf's loss, where the leaf is optimal
    path = regularization_path(X, y, lambda_min=0.01)
    assert path.lambda_max == pytest.approx(0.5)
    assert path.pareto_front_["n_leaves"][0] == 1


def test_path_refuses_bad_ranges():
    X, y = np.arange(8.0).reshape(-1, 1), np.array([0, 1] * 4)
    with pytest.raises(ValueError, match="lambda_min=0 needs max_depth"):
        regularization_path(X, y, lambda_min=0.0)
    with pytest.raises(ValueError, match="below lambda_min"):
        regularization_path(X, y, lambda_min=0.1, lambda_max=0.05)
    with pytest.raises(ValueError, match="lambda_min must be a finite number"):
        regularization_path(X, y, lambda_min=-1.0)
    with pytest.raises(ValueError, match="lambda_max must be a finite number"):
        regularization_path(X, y, lambda_min=0.1, lambda_max=float("nan"))


def test_path_trees_agree_with_independent_fits():
    """At lam inside each interval, an independent fit reaches the same objective."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    path = regularization_path(X, y, lambda_min=0.005, max_depth=3)
    y_idx, full = problem_cost(y)
    for i, tree in enumerate(path.trees_):
        lam = 0.5 * (path.pareto_front_["lambda_min"][i] + path.pareto_front_["lambda_max"][i])
        clf = FastSmallTreeClassifier(regularization=lam, max_depth=3).fit(X, y)
        assert clf.optimal_
        assert (_objective(tree, path.classes_, X, y_idx, full, lam)
                == pytest.approx(clf.objective_, abs=1e-9))


def test_a_stopped_path_marks_its_trees_not_certified():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 10))
    y = (X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.5 * rng.normal(size=3000) > 0).astype(int)
    with pytest.warns(NotCertifiedWarning, match="stopped before certifying"):
        path = regularization_path(X, y, lambda_min=0.001, lambda_max=0.05,
                                   time_limit=0.05)
    assert not path.optimal_
    assert not path.pareto_front_["optimal"].all()
    assert (~path.fits_["optimal"]).any()
    # every tree is still a real tree, re-scored
    y_idx, full = problem_cost(y)
    for i, tree in enumerate(path.trees_):
        assert path.pareto_front_["loss"][i] == pytest.approx(
            _objective(tree, path.classes_, X, y_idx, full, 0.0), abs=1e-12)


def test_plot_front_draws_every_tree():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    path = regularization_path(X, y, lambda_min=0.01)
    ax = path.plot_front()
    xs = np.concatenate([line.get_xdata() for line in ax.lines if line.get_marker() == "o"])
    assert sorted(xs.tolist()) == sorted(path.pareto_front_["n_leaves"].tolist())
    f = path.pareto_front_
    labels = sorted(t.get_text() for t in ax.texts)
    assert labels == sorted(f"λ ∈ [{a:.3g}, {b:.3g}]"
                            for a, b in zip(f["lambda_min"], f["lambda_max"]))
    ax.figure.canvas.draw()
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
