"""What a fit warns of, and where: a certified single leaf on a target that
varies says why and what to try (a ConstantTreeWarning), the fits a path, a
front or a cross-validation run to choose a size do not, and every warning
points at the caller's line, however deep in fst it is raised."""
import warnings

import numpy as np
from sklearn.datasets import make_classification

from fst import (ConstantTreeWarning, FastSmallTreeClassifier, FastSmallTreeClassifierCV,
                 FastSmallTreeRegressor, NotCertifiedWarning, leaves_front,
                 regularization_path)


def _imbalanced():
    """600 rows, 7 % positives: the default regularization gives one leaf."""
    return make_classification(600, n_features=6, weights=[0.94], flip_y=0.02,
                               class_sep=0.8, random_state=1)


def _caught(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fit()
    return out, caught


def test_a_single_leaf_on_imbalanced_classes_says_why_and_what_to_try():
    X, y = _imbalanced()
    clf, caught = _caught(lambda: FastSmallTreeClassifier().fit(X, y))
    assert clf.optimal_ and clf.n_leaves_ == 1
    (w,) = [w for w in caught if w.category is ConstantTreeWarning]
    text = str(w.message)
    assert "regularization=0.05" in text and "FastSmallTreeClassifierCV" in text
    assert "7.2% of the rows" in text and "class_weight='balanced'" in text
    assert w.filename == __file__                 # the caller's line, not fst's
    # what it suggests works: the balanced classes split, with no such warning
    # (under max_depth, which the unbalanced fit's single leaf keeps)
    clf, caught = _caught(lambda: FastSmallTreeClassifier(max_depth=2).fit(X, y))
    assert clf.n_leaves_ == 1 and [w for w in caught if w.category is ConstantTreeWarning]
    balanced, caught = _caught(
        lambda: FastSmallTreeClassifier(class_weight="balanced", max_depth=2).fit(X, y))
    assert balanced.optimal_ and balanced.n_leaves_ >= 2
    assert not [w for w in caught if w.category is ConstantTreeWarning]


def test_balanced_classes_and_a_weighting_get_no_balanced_hint():
    X, y = make_classification(300, n_features=5, random_state=0)
    clf, caught = _caught(lambda: FastSmallTreeClassifier(regularization=0.6).fit(X, y))
    (w,) = [w for w in caught if w.category is ConstantTreeWarning]
    assert "balanced" not in str(w.message)
    X, y = _imbalanced()
    weights = {0: 1.0, 1: 1.5}
    clf, caught = _caught(
        lambda: FastSmallTreeClassifier(class_weight=weights).fit(X, y))
    assert clf.n_leaves_ == 1
    (w,) = [w for w in caught if w.category is ConstantTreeWarning]
    assert "balanced" not in str(w.message)


def test_a_tree_that_splits_or_a_target_of_one_class_gets_none():
    X, y = make_classification(300, n_features=5, random_state=0)
    clf, caught = _caught(lambda: FastSmallTreeClassifier(regularization=0.01).fit(X, y))
    assert clf.n_leaves_ >= 2 and not caught
    one = np.zeros(len(y), int)
    clf, caught = _caught(lambda: FastSmallTreeClassifier().fit(X, one))
    assert clf.n_leaves_ == 1 and not caught
    # rows of weight 0 take no part: the rows left are of one class
    w = (y == 1).astype(float)
    clf, caught = _caught(lambda: FastSmallTreeClassifier().fit(X, y, sample_weight=w))
    assert clf.n_leaves_ == 1 and not caught


def test_at_zero_regularization_the_hint_is_a_larger_tree():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    y = (rng.random(200) < 0.05).astype(int)      # 5 % positives, no signal
    # no leaf of 40 rows or more holds a majority of positives
    clf, caught = _caught(lambda: FastSmallTreeClassifier(
        regularization=0.0, max_depth=2, min_samples_leaf=40).fit(X, y))
    assert clf.optimal_ and clf.n_leaves_ == 1
    (w,) = [w for w in caught if w.category is ConstantTreeWarning]
    assert "max_depth" in str(w.message) and "class_weight='balanced'" in str(w.message)


def test_the_regressor_warns_of_a_single_leaf_but_not_of_a_constant_target():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=200)
    reg, caught = _caught(lambda: FastSmallTreeRegressor(regularization=1.5,
                                                         max_depth=2).fit(X, y))
    assert reg.optimal_ and reg.n_leaves_ == 1
    (w,) = [w for w in caught if w.category is ConstantTreeWarning]
    assert "FastSmallTreeRegressorCV" in str(w.message) and w.filename == __file__
    reg, caught = _caught(lambda: FastSmallTreeRegressor(max_depth=2).fit(X, np.ones(200)))
    assert reg.n_leaves_ == 1 and not caught


def test_paths_and_fronts_do_not_warn_of_their_single_leaves():
    X, y = make_classification(200, n_features=4, random_state=0)
    path, caught = _caught(lambda: regularization_path(X, y, lambda_min=0.05, max_depth=2))
    assert path.pareto_front_["n_leaves"][0] == 1 and not caught
    front, caught = _caught(lambda: leaves_front(X, y, max_leaf_nodes=3))
    assert not caught


def test_cross_validation_says_it_chose_a_single_leaf():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 2, size=200)              # no signal
    cv, caught = _caught(lambda: FastSmallTreeClassifierCV(
        lambdas=[0.02, 0.2], max_depth=2).fit(X, y))
    assert cv.regularization_ == 0.2 and cv.best_estimator_.n_leaves_ == 1
    (w,) = [w for w in caught if w.category is ConstantTreeWarning]
    assert "cross-validation chose" in str(w.message)
    assert w.filename == __file__


def test_a_stopped_refit_of_cross_validation_points_at_the_caller():
    X, y = make_classification(400, n_features=8, random_state=0)
    cv, caught = _caught(lambda: FastSmallTreeClassifierCV(
        lambdas=[0.001, 0.002], time_limit=0.01).fit(X, y))
    stops = [w for w in caught if w.category is NotCertifiedWarning]
    assert stops and all(w.filename == __file__ for w in stops)


def test_the_fits_of_a_stopped_fit_are_quiet():
    """A stopped fit's fallbacks (a depth-limited fit and DPDT, each stopped
    at its own share of the time) are quiet by attribute, in threads too: the
    quiet fits of two threads let nothing through while the caller records."""
    import threading

    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)

    def quiet():
        clf = FastSmallTreeClassifier(regularization=0.001, time_limit=0.5)
        clf._report_stops = False
        return clf

    fits = [quiet(), quiet()]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=c.fit, args=(X, y)) for c in fits]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        loud = FastSmallTreeClassifier(regularization=0.001, time_limit=0.5).fit(X, y)
    for clf in fits:
        assert not clf.optimal_ and clf.status_ == "time_limit"
        assert clf.score(X, y) >= 0.9         # a fallback's tree, not the leaf
    assert not loud.optimal_
    (w,) = caught                             # the loud fit's stop, nothing else
    assert w.category is NotCertifiedWarning and w.filename == __file__


def test_no_fit_changes_the_warning_filters():
    """The filters are the process's, not a thread's: changed inside a fit that
    runs in a thread (a fold of a cross-validation), they would let another
    fold's warnings through or swallow the caller's. Only the command line,
    which owns its process, records warnings."""
    import pathlib

    import fst
    root = pathlib.Path(fst.__file__).parent
    changing = [p.name for p in root.rglob("*.py") if p.name != "__main__.py"
                and ("catch_warnings" in p.read_text() or "simplefilter" in p.read_text())]
    assert changing == []


def test_a_stopped_fit_whose_tree_reaches_the_bound_says_it_is_not_the_canonical_one():
    """Stopped at once (a work limit) on rows that CART of depth 4 separates
    without error: its tree reaches the proven bound (0, the floor at
    regularization 0), so it is as good as any, but not the canonical optimum a
    certified fit returns; the warning says that, not 'before proving
    optimality'.  A stop whose tree is above its bound keeps that wording."""
    rng = np.random.RandomState(0)
    X = rng.rand(60, 40)
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.3)).astype(int)
    clf = FastSmallTreeClassifier(regularization=0.0, max_depth=4, time_limit=None)
    clf._overrides = {"work_limit": 3}
    clf, caught = _caught(lambda: clf.fit(X, y))
    (w,) = [w for w in caught if w.category is NotCertifiedWarning]
    assert not clf.optimal_ and clf.status_ == "time_limit"
    assert clf.search_stats_["incumbent"] == "cart"
    assert clf.objective_ == clf.lower_bound_ == clf.gap_ == 0.0
    assert np.all(clf.predict(X) == y)
    assert "before it found the canonical optimal tree" in str(w.message)
    assert "(CART's) reaches the proven lower bound 0" in str(w.message)
    # the same rows with labels no depth-4 tree fits: the usual wording
    y_noisy = rng.randint(0, 2, 60)
    clf = FastSmallTreeClassifier(regularization=0.0, max_depth=4, time_limit=None)
    clf._overrides = {"work_limit": 3}
    clf, caught = _caught(lambda: clf.fit(X, y_noisy))
    (w,) = [w for w in caught if w.category is NotCertifiedWarning]
    assert clf.gap_ > 0
    assert "before proving optimality" in str(w.message)
