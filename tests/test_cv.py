"""FastSmallTreeClassifierCV: the same choice and cv_results_ as a GridSearchCV over
the same regularizations, with fewer fits; fold jobs on any joblib backend (dask's
LocalCluster gives the same result as the local run)."""
import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from fst import FastSmallTreeClassifier, FastSmallTreeClassifierCV, NotCertifiedWarning

LAMS = [0.004, 0.01, 0.02, 0.04, 0.08, 0.16]


def _data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = ((X[:, 0] > 0.2) ^ (X[:, 1] * X[:, 2] > 0.3)).astype(int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


def _grid(X, y, scoring=None, **params):
    return GridSearchCV(FastSmallTreeClassifier(**params), {"regularization": LAMS},
                        cv=StratifiedKFold(4), scoring=scoring).fit(X, y)


@pytest.mark.parametrize("scoring", [None, "balanced_accuracy", "neg_log_loss"])
def test_cv_matches_grid_search(scoring):
    X, y = _data()
    cv = FastSmallTreeClassifierCV(LAMS, cv=StratifiedKFold(4), scoring=scoring,
                                   max_depth=3).fit(X, y)
    gs = _grid(X, y, scoring, max_depth=3)
    for k in range(4):
        np.testing.assert_allclose(cv.cv_results_[f"split{k}_test_score"],
                                   gs.cv_results_[f"split{k}_test_score"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(cv.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    assert cv.cv_results_["rank_test_score"].tolist() == gs.cv_results_["rank_test_score"].tolist()
    assert cv.cv_results_["params"] == gs.cv_results_["params"]
    assert cv.regularization_ == gs.best_params_["regularization"]
    assert cv.best_index_ == gs.best_index_
    assert cv.best_score_ == pytest.approx(gs.best_score_, abs=1e-12)
    assert cv.cv_results_["optimal"].all()
    # values between two certified fits of one tree need no fit
    assert cv.n_fits_ <= 4 * len(LAMS)
    # the refit is the grid search's
    assert cv.optimal_
    assert np.array_equal(cv.predict(X), gs.best_estimator_.predict(X))
    assert cv.best_estimator_.regularization == cv.regularization_
    assert cv.score(X, y) == pytest.approx(gs.score(X, y))


def test_cv_skips_fits_inside_a_tree_s_interval():
    X, y = _data()
    lams = np.linspace(0.05, 0.06, 12)        # two trees a fold at most here
    cv = FastSmallTreeClassifierCV(lams, cv=StratifiedKFold(3), max_depth=2).fit(X, y)
    assert cv.n_fits_ <= 3 * 5
    gs = GridSearchCV(FastSmallTreeClassifier(max_depth=2), {"regularization": lams},
                      cv=StratifiedKFold(3)).fit(X, y)
    for k in range(3):
        np.testing.assert_allclose(cv.cv_results_[f"split{k}_test_score"],
                                   gs.cv_results_[f"split{k}_test_score"], rtol=0, atol=1e-12)


def test_cv_on_dask_matches_the_local_run():
    pytest.importorskip("distributed")
    import joblib
    from distributed import Client, LocalCluster

    X, y = _data(160, seed=1)
    local = FastSmallTreeClassifierCV(LAMS, cv=StratifiedKFold(4), max_depth=2,
                                      n_jobs=1).fit(X, y)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        with joblib.parallel_backend("dask"):
            remote = FastSmallTreeClassifierCV(LAMS, cv=StratifiedKFold(4), max_depth=2,
                                               n_jobs=-1).fit(X, y)
    for key in ("mean_test_score", "std_test_score", "rank_test_score", "n_leaves"):
        np.testing.assert_array_equal(remote.cv_results_[key], local.cv_results_[key])
    assert remote.regularization_ == local.regularization_
    assert np.array_equal(remote.predict(X), local.predict(X))


def test_cv_refuses_bad_grids_and_reports_stopped_folds():
    X, y = _data()
    with pytest.raises(ValueError, match="lambdas holds 0 without max_depth"):
        FastSmallTreeClassifierCV([0.0, 0.1]).fit(X, y)
    with pytest.raises(ValueError, match="finite values >= 0"):
        FastSmallTreeClassifierCV([-0.1]).fit(X, y)
    rng = np.random.default_rng(0)
    Xb = rng.normal(size=(2000, 8))
    yb = (Xb[:, 0] * Xb[:, 1] + np.sin(Xb[:, 2]) + rng.normal(size=2000) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        cv = FastSmallTreeClassifierCV([0.001, 0.002], cv=2, time_limit=0.05).fit(Xb, yb)
    assert not cv.cv_results_["optimal"].all()
    assert not cv.optimal_


def test_cv_prints_its_choice():
    X, y = _data()
    cv = FastSmallTreeClassifierCV([0.02, 0.05], cv=3, max_depth=2).fit(X, y)
    text = str(cv)
    assert f"regularization_={cv.regularization_:g}" in text
    assert "3 folds" in text


def test_cv_keeps_column_names_times_like_grid_search_and_prints_each_value(capsys):
    pd = pytest.importorskip("pandas")
    X, y = _data(120)
    df = pd.DataFrame(X, columns=["age", "income", "debt", "score"])
    lams = [0.01, 0.05]
    cv = FastSmallTreeClassifierCV(lams, cv=3, max_depth=2, verbose=1).fit(df, y)
    out = capsys.readouterr().out.splitlines()
    lines = [l for l in out if l.startswith("[CV ")]
    assert len(lines) == 3 * len(lams)          # one line per fold and value
    assert {l.split("]")[0] for l in lines} == {"[CV 1/3", "[CV 2/3", "[CV 3/3"}
    assert all("score=" in l and "leaves=" in l for l in lines)
    assert list(cv.feature_names_in_) == list(df.columns)
    assert list(cv.best_estimator_.feature_names_in_) == list(df.columns)
    assert any(name in str(cv) for name in df.columns)
    assert "feature_" not in str(cv)
    gs_keys = GridSearchCV(FastSmallTreeClassifier(max_depth=2), {"regularization": lams},
                           cv=3).fit(X, y).cv_results_.keys()
    assert set(gs_keys) <= set(cv.cv_results_)
    for key in ("mean_fit_time", "std_fit_time", "mean_score_time", "std_score_time"):
        assert cv.cv_results_[key].shape == (len(lams),)
        assert np.all(cv.cv_results_[key] >= 0)
    assert np.all(cv.cv_results_["mean_fit_time"] > 0)   # both ends are always fitted


def test_cv_in_threads_gives_the_one_job_result():
    X, y = _data(200, seed=2)
    one = FastSmallTreeClassifierCV(LAMS, cv=4, max_depth=2, n_jobs=1).fit(X, y)
    many = FastSmallTreeClassifierCV(LAMS, cv=4, max_depth=2, n_jobs=-1).fit(X, y)
    for key in ("mean_test_score", "rank_test_score", "n_leaves", "optimal"):
        np.testing.assert_array_equal(many.cv_results_[key], one.cv_results_[key])
    assert many.n_fits_ == one.n_fits_
    assert np.array_equal(many.predict(X), one.predict(X))
