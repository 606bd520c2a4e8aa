"""Model selection read from a leaves front (`fst._selection`): the path's trees
and each fold's value at every lam are those of independent fits (re-scored from
the data), certified where they say so; the cover is the least lam it covers,
and a stopped anchor or front certifies nothing it has not proven."""
import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from fst import (FastSmallTreeClassifier, FastSmallTreeClassifierCV, FastSmallTreeRegressor,
                 NotCertifiedWarning, regularization_path)
from fst._path import _Fit
from fst._selection import FrontCover, front_grid

LAMS = np.array([0.006, 0.012, 0.025, 0.05, 0.1, 0.2])


@pytest.fixture(autouse=True)
def _front_after_any_fit(monkeypatch):
    """A front after any fit at the least lam: these problems' fits take
    milliseconds, below FRONT_AFTER_SECONDS, where no front is grown."""
    from fst import _selection

    monkeypatch.setattr(_selection, "FRONT_AFTER_SECONDS", 0.0)


def _data(n=150, seed=0, levels=5):
    """Ordinal columns (few thresholds each) and a noisy label: the fits
    without max_depth certify in a moment."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, 4)).astype(float)
    y = ((X[:, 0] >= 2) & (X[:, 1] <= 2) | (X[:, 2] == 4)).astype(int)
    flip = rng.random(n) < 0.12
    y[flip] = 1 - y[flip]
    return X, y


def _loss(clf, X, y, w=None):
    """The training loss / n re-scored from the data (0-1 loss, weighted)."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    return float((w * (clf.predict(X) != y)).sum() / w.sum())


def _independent(X, y, lam, w=None, **params):
    clf = FastSmallTreeClassifier(regularization=lam, time_limit=None, **params)
    clf.fit(X, y, sample_weight=w)
    assert clf.optimal_
    return clf.objective_


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_path_read_from_the_front_holds_the_optimum_at_every_lam(seed, weighted):
    X, y = _data(seed=seed)
    w = np.random.default_rng(seed).integers(1, 4, size=len(y)) if weighted else None
    path = regularization_path(X, y, lambda_min=0.006, lambda_max=0.2, sample_weight=w,
                               time_limit=None)
    assert path.optimal_
    assert path.front_fits_["max_leaf_nodes"].size > 0        # the front was grown
    f = path.pareto_front_
    assert np.all(np.diff(f["n_leaves"]) > 0)
    assert f["lambda_min"][-1] == pytest.approx(0.006)
    assert f["lambda_max"][0] == pytest.approx(0.2)
    for i, tree in enumerate(path.trees_):
        loss = _loss(tree, X, y, w)
        assert loss == pytest.approx(f["loss"][i], abs=1e-9)
        assert tree.get_n_leaves() == f["n_leaves"][i]
        lo, hi = f["lambda_min"][i], f["lambda_max"][i]
        for lam in {lo, hi, 0.5 * (lo + hi)}:
            assert loss + lam * tree.get_n_leaves() == pytest.approx(
                _independent(X, y, lam, w), abs=1e-9)
    # the intervals tile the range
    np.testing.assert_allclose(f["lambda_min"][:-1], f["lambda_max"][1:], atol=1e-12)


@pytest.mark.parametrize("seed", [0, 3])
def test_each_value_of_a_fold_is_the_optimum_with_fewer_fits(seed):
    X, y = _data(seed=seed)
    out, ok, log, _, counts = front_grid(X, y, LAMS, {"time_limit": None, "n_jobs": 1})
    assert all(ok)
    assert len(log) < len(LAMS)             # the least lam, and what the front leaves
    assert any(f.from_front for f in out)
    for lam, f in zip(LAMS, out):
        value = _loss(f.clf, X, y) + lam * f.clf.estimator_.get_n_leaves()
        assert value == pytest.approx(_independent(X, y, lam), abs=1e-9)
        assert f.at(lam) == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("seed", [4, 5])
def test_the_cv_from_fronts_scores_the_optima_and_refits_the_choice(seed):
    X, y = _data(200, seed=seed)
    cv = FastSmallTreeClassifierCV(LAMS, cv=StratifiedKFold(3), time_limit=None).fit(X, y)
    assert cv.cv_results_["optimal"].all()
    # the same choice as a grid search of independent fits: where several trees
    # are optimal, the front's count and the fit both keep the fewest leaves, then
    # the lowest root split, and agree on these data
    gs = GridSearchCV(FastSmallTreeClassifier(time_limit=None), {"regularization": LAMS},
                      cv=StratifiedKFold(3)).fit(X, y)
    np.testing.assert_allclose(cv.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    assert cv.regularization_ == gs.best_params_["regularization"]
    assert cv.n_fits_ > 0
    assert cv.optimal_
    assert cv.best_estimator_.regularization == cv.regularization_
    # each fold's tree at each value is worth the independent fit's optimum there
    for k, (train, test) in enumerate(StratifiedKFold(3).split(X, y)):
        out, ok, _, _, _ = front_grid(X[train], y[train], LAMS,
                                      {"time_limit": None, "n_jobs": 1})
        for i, lam in enumerate(LAMS):
            clf = out[i].clf
            assert np.mean(clf.predict(X[test]) == y[test]) == pytest.approx(
                cv.cv_results_[f"split{k}_test_score"][i], abs=1e-12)
            value = _loss(clf, X[train], y[train]) + lam * clf.estimator_.get_n_leaves()
            assert value == pytest.approx(_independent(X[train], y[train], lam), abs=1e-9)


def test_the_regression_path_read_from_the_front():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(120, 3)).astype(float)
    y = X[:, 0] * (X[:, 1] > 1) + 0.3 * rng.normal(size=120)
    path = regularization_path(X, y, lambda_min=0.01, lambda_max=0.3, task="regression",
                               time_limit=None)
    assert path.optimal_
    assert path.front_fits_["max_leaf_nodes"].size > 0
    f = path.pareto_front_
    total = ((y - y.mean()) ** 2).sum()
    for i, tree in enumerate(path.trees_):
        loss = ((y - tree.predict(X)) ** 2).sum() / total
        lo, hi = f["lambda_min"][i], f["lambda_max"][i]
        for lam in (lo, hi):
            reg = FastSmallTreeRegressor(regularization=lam, time_limit=None).fit(X, y)
            assert reg.optimal_
            assert loss + lam * tree.get_n_leaves() == pytest.approx(reg.objective_, abs=1e-9)


def test_a_stopped_least_lam_grows_no_front_and_certifies_what_the_fits_do():
    X, y = _data(400, seed=6, levels=12)
    lams = np.array([0.001, 0.01, 0.05, 0.2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        out, ok, log, _, counts = front_grid(X, y, lams, {"time_limit": 0.05, "n_jobs": 1})
    assert not ok[0]                    # the least lam stopped: no front
    assert counts == []
    assert not any(f.from_front for f in out)
    for lam, f, good in zip(lams, out, ok):
        if good:
            value = _loss(f.clf, X, y) + lam * f.clf.estimator_.get_n_leaves()
            assert value == pytest.approx(_independent(X, y, lam), abs=1e-9)


def test_a_stopped_fit_s_bound_covers_from_where_it_proves():
    # FrontCover reads a stopped fit's bound as it reads a certified one's: a
    # front certified to K leaves and a bound b at lam_a prove the front's best
    # tree wherever its value is at most b + (K + 1) (lam - lam_a); checked here
    # on a real front against independent fits
    X, y = _data(seed=2)
    from fst._front import _Counts

    counts = _Counts(FastSmallTreeClassifier, {"time_limit": None, "n_jobs": 1}, X, y,
                     None, False)
    fits = [counts(k, None)[0] for k in range(1, 4)]
    lam_a = 0.004
    exact = _independent(X, y, lam_a)
    for gap in (0.0, 0.01, 0.03):
        cover = FrontCover(fits, counts.data.floor, False, [(lam_a, exact - gap)])
        c = cover.cover()
        for lam in np.linspace(0.004, 0.3, 25):
            if cover.covers(lam):
                assert lam >= c - 1e-12
                assert cover.best(lam).at(lam) == pytest.approx(
                    _independent(X, y, lam), abs=1e-9)


class _Line:
    """A _Fit's line alone (FrontCover reads loss, leaves and at)."""

    def __init__(self, loss, leaves):
        self.loss, self.leaves = loss, leaves

    at = _Fit.at


@pytest.mark.parametrize("anchors", [[], [(0.01, 0.2)], [(0.01, 0.2), (0.05, 0.31)],
                                     [(0.02, -np.inf)]])
def test_the_cover_is_the_least_lam_covered(anchors):
    # (the count of four leaves found no better tree than one of three)
    lines = [_Line(0.5, 1), _Line(0.3, 2), _Line(0.22, 3), _Line(0.2, 3), _Line(0.18, 5)]
    cover = FrontCover(lines, 0.05, False, anchors)
    c = cover.cover()
    grid = np.linspace(0, 0.5, 2001)
    covered = np.array([cover.covers(lam) for lam in grid])
    # a half-line: covered from c up, not below
    assert covered[grid >= c + 1e-9].all()
    assert not covered[grid < c - 1e-9].any()
    # each anchor's bound only holds from its own lam
    if anchors == [(0.01, 0.2)]:
        assert cover.beyond(0.005) == pytest.approx(0.05 + 6 * 0.005)
    assert FrontCover(lines, 0.05, True, anchors).cover() == 0.0


@pytest.mark.parametrize("counts", [1, 2, 3])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_a_front_stopped_early_leaves_the_rest_of_the_path_to_fits(monkeypatch, counts,
                                                                   task):
    # the front's count after `counts` stops unproven (its bound below its loss):
    # the path reads the front above the lam it covers and fits below it
    from fst import _front

    search = _front._Counts.__call__

    def stopped_after(self, k, seconds):
        fit, lower = search(self, k, seconds)
        return fit, (lower if k <= counts else -np.inf)

    monkeypatch.setattr(_front._Counts, "__call__", stopped_after)
    X, y = _data(seed=1)
    if task == "regression":
        y = y + 0.5 * X[:, 3]
    path = regularization_path(X, y, lambda_min=0.006, lambda_max=0.2, time_limit=None,
                               task=task)
    assert path.optimal_
    assert path.front_fits_["max_leaf_nodes"].size == counts + 1
    f = path.pareto_front_
    np.testing.assert_allclose(f["lambda_min"][:-1], f["lambda_max"][1:], atol=1e-12)
    assert np.all(np.diff(f["n_leaves"]) > 0)
    assert len(path.fits_["lambda"]) > 1           # the lam below the cover were fitted
    est = FastSmallTreeRegressor if task == "regression" else FastSmallTreeClassifier
    for i, tree in enumerate(path.trees_):
        for lam in (f["lambda_min"][i], f["lambda_max"][i]):
            ref = est(regularization=lam, time_limit=None).fit(X, y)
            assert f["loss"][i] + lam * tree.get_n_leaves() == pytest.approx(
                ref.objective_, abs=1e-9)
        if task == "classification":
            assert _loss(tree, X, y) == pytest.approx(f["loss"][i], abs=1e-9)


def test_the_regressor_cv_from_fronts_matches_a_grid_search(capsys):
    from sklearn.model_selection import KFold

    from fst import FastSmallTreeRegressorCV

    rng = np.random.default_rng(7)
    X = rng.integers(0, 4, size=(150, 3)).astype(float)
    y = X[:, 0] * (X[:, 1] > 1) + 0.4 * rng.normal(size=150)
    lams = [0.005, 0.02, 0.08]
    cv = FastSmallTreeRegressorCV(lams, cv=KFold(3), time_limit=None, verbose=1).fit(X, y)
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[CV ")]
    assert len(lines) == 3 * len(lams)
    assert any("read from the leaves front" in line for line in lines)
    gs = GridSearchCV(FastSmallTreeRegressor(time_limit=None), {"regularization": lams},
                      cv=KFold(3)).fit(X, y)
    assert cv.cv_results_["optimal"].all()
    np.testing.assert_allclose(cv.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    assert cv.regularization_ == gs.best_params_["regularization"]


def test_no_front_after_a_quick_fit(monkeypatch):
    from fst import _selection

    monkeypatch.setattr(_selection, "FRONT_AFTER_SECONDS", 3600.0)
    X, y = _data(seed=1)
    out, ok, log, _, counts = front_grid(X, y, LAMS, {"time_limit": None, "n_jobs": 1})
    assert counts == [] and all(ok)
    assert not any(f.from_front for f in out)
    path = regularization_path(X, y, lambda_min=0.006, lambda_max=0.2, time_limit=None)
    assert path.front_fits_["max_leaf_nodes"].size == 0
    assert path.optimal_


def test_the_cv_from_fronts_in_threads_gives_the_one_job_result():
    X, y = _data(200, seed=8)
    one = FastSmallTreeClassifierCV(LAMS, cv=4, n_jobs=1, time_limit=None).fit(X, y)
    many = FastSmallTreeClassifierCV(LAMS, cv=4, n_jobs=-1, time_limit=None).fit(X, y)
    for key in ("mean_test_score", "rank_test_score", "n_leaves", "optimal"):
        np.testing.assert_array_equal(many.cv_results_[key], one.cv_results_[key])
    assert np.array_equal(many.predict(X), one.predict(X))


def test_under_a_leaf_cap_the_front_closes_at_the_cap():
    # at lam = 0 under max_leaf_nodes=4, the first fit is the cap's optimum; the
    # front to four leaves holds every tree there is, and covers every lam
    X, y = _data(seed=3)
    path = regularization_path(X, y, lambda_min=0.0, lambda_max=0.2, max_leaf_nodes=4,
                               time_limit=None)
    assert path.optimal_
    assert path.fits_["lambda"].tolist() == [0.0]
    assert path.front_fits_["max_leaf_nodes"].tolist() == [1, 2, 3, 4]
    f = path.pareto_front_
    for i, tree in enumerate(path.trees_):
        assert tree.get_n_leaves() <= 4
        for lam in (f["lambda_min"][i], f["lambda_max"][i]):
            ref = FastSmallTreeClassifier(regularization=lam, max_leaf_nodes=4,
                                          time_limit=None).fit(X, y)
            assert _loss(tree, X, y) + lam * tree.get_n_leaves() == pytest.approx(
                ref.objective_, abs=1e-9)
