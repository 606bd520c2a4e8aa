"""FastSmallTreeClassifierCV and FastSmallTreeRegressorCV: the regularization
chosen by cross-validation over the certified path of each fold."""
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._classifier import FastSmallTreeClassifier
from ._path import grid_fits
from ._selection import front_grid
from ._regressor import FastSmallTreeRegressor
from ._utils import (NativeClassifierMixin, NativeTreeMixin, check_no_categorical,
                     check_shared_params, fit_params)

__all__ = ["FastSmallTreeClassifierCV", "FastSmallTreeRegressorCV"]

# The grid of regularizations when none is given.
_DEFAULT_LAMBDAS = np.geomspace(0.005, 0.1, 8)


class _PathCV:
    """What both cross-validations share: each fold's certified path along
    ``lambdas`` (`grid_fits`), GridSearchCV's results layout, the refit.  A
    subclass names the estimator it fits (``_fitted``) and checks its targets
    (``_targets``); it comes first among the bases, before the sklearn mixin
    whose ``score`` and tags it extends."""

    _parameter_constraints = {
        "lambdas": ["array-like", None],
        "cv": ["cv_object"],
        "scoring": [str, callable, None],
        "refit": ["boolean"],
        # the fits' own parameters, as the fitted estimator checks them
        **{k: FastSmallTreeRegressor._parameter_constraints[k]
           for k in ("max_depth", "min_samples_leaf", "max_leaf_nodes", "time_limit",
                     "memory_limit", "n_jobs", "verbose")},
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _lambdas(self):
        lams = _DEFAULT_LAMBDAS if self.lambdas is None else self.lambdas
        lams = np.asarray(lams, dtype=np.float64).reshape(-1)
        if lams.size == 0 or not np.all(np.isfinite(lams)) or np.any(lams < 0):
            raise ValueError(
                f"The 'lambdas' parameter of {type(self).__name__} must hold finite "
                f"values >= 0, at least one. Got {self.lambdas!r} instead.")
        if lams.min() == 0 and self.max_depth is None and self.max_leaf_nodes is None:
            raise ValueError(
                "lambdas holds 0 without max_depth or max_leaf_nodes: every leaf is free "
                "at 0 and the search is unbounded. Set max_depth, max_leaf_nodes or use "
                "values > 0.")
        return lams

    def _estimator(self, regularization):
        return self._fitted(regularization=regularization, **self._path_params())

    def fit(self, X, y, sample_weight=None):
        """Cross-validate the regularizations of ``lambdas`` and refit the best.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows in every fit (not in the scores).

        Returns
        -------
        self
        """
        self._validate_params()
        check_shared_params(self)
        lams = self._lambdas()
        check_no_categorical(X, type(self).__name__)
        X_in = X
        classifier = is_classifier(self)
        X, y = validate_data(self, X, y, dtype=np.float32, ensure_all_finite="allow-nan",
                             order="C", y_numeric=not classifier)
        y = self._targets(y)
        cv = check_cv(self.cv, y, classifier=classifier)
        scorer = check_scoring(self, scoring=self.scoring)
        folds = list(cv.split(X, y))
        sw = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        jobs = (delayed(_fold)(self._fitted, self._path_params(), lams, scorer, X, y, sw,
                               train, test, k, len(folds), self.verbose,
                               getattr(self, "_deadline", None))
                for k, (train, test) in enumerate(folds))
        # The fits release the GIL for their search, so threads run the folds side
        # by side without the seconds a process pool takes to start and to copy
        # the data; a joblib backend set by the caller (dask, loky) still wins.
        results = Parallel(n_jobs=self.n_jobs, prefer="threads")(jobs)
        self.n_fits_ = int(sum(r.n_fits for r in results))
        self.cv_results_ = _cv_results(lams, results)
        self.best_index_ = int(np.argmin(self.cv_results_["rank_test_score"]))
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        self.regularization_ = float(lams[self.best_index_])
        self.n_splits_ = len(folds)
        if self.refit:
            # the caller's X, so the refit records its column names as well
            self._refit(X_in, y, sample_weight)
        return self

    def _refit(self, X, y, sample_weight=None):
        """Fit the chosen regularization on all rows (``best_estimator_``)."""
        t0 = time.perf_counter()
        best = self._estimator(self.regularization_)
        best.set_params(n_jobs=1 if self.n_jobs is None else self.n_jobs)
        best._chosen_by_cv = True       # a constant tree's warning says so
        best.fit(X, y, sample_weight=sample_weight)
        self.refit_time_ = time.perf_counter() - t0
        self.best_estimator_ = best
        self.estimator_ = best.estimator_
        self.optimal_ = best.optimal_

    def _path_params(self):
        """Each fit's parameters (those the fitted estimator takes): the folds
        run side by side as joblib jobs, so each fit is one thread."""
        own = self._fitted._parameter_constraints
        return {k: v for k, v in fit_params({k: getattr(self, k, None) for k in own},
                                            n_jobs=1).items() if k in own}

    def _validate_X_predict(self, X):
        check_is_fitted(self, "estimator_")
        return super()._validate_X_predict(X)

    def score(self, X, y, sample_weight=None):
        """The score of ``scoring`` of the refit on (X, y): when None, accuracy
        for the classifier, R^2 for the regressor."""
        check_is_fitted(self, "estimator_")
        if self.scoring is None:
            return super().score(X, y, sample_weight=sample_weight)
        return check_scoring(self, scoring=self.scoring)(self, X, y)

    def __str__(self):
        if not hasattr(self, "regularization_"):
            return repr(self)
        head = (f"{type(self).__name__}: regularization_={self.regularization_:g} "
                f"(mean test score {self.best_score_:.4f} over {self.n_splits_} folds)")
        if hasattr(self, "best_estimator_"):
            return head + "\n" + str(self.best_estimator_)
        return head


class FastSmallTreeClassifierCV(_PathCV, ClassifierMixin, NativeClassifierMixin,
                                BaseEstimator):
    """FastSmallTreeClassifier with its regularization chosen by cross-validation.

    Each fold follows the regularization path of its training rows along
    ``lambdas``. Without ``max_depth`` it fits the least value, then grows a
    leaves front for at most half that fit's seconds (none where it did not
    certify or took under half a second) and reads from it every value it
    covers (as `regularization_path` does: a front certified to K leaves
    values every tree of at most K leaves, and the fit at the least value
    bounds every larger tree at every larger value). For the rest, the optimal
    objective is concave and piecewise linear in the regularization, so when
    the certified fits at two values return the same tree, that tree is
    optimal at every value between them and those need no fit. Each value's
    tree is scored on the fold's held-out rows, and the value of best mean
    score is refitted on all rows. The folds are joblib jobs: under
    ``with joblib.parallel_backend("dask"):`` they run on a dask.distributed
    cluster, which is the way to spread a search past one machine.

    Parameters
    ----------
    lambdas : array-like of float, default=None
        The regularizations compared; None means 8 values from 0.005 to 0.1,
        evenly spaced on a log scale.
    cv : int, cross-validation generator or iterable, default=5
        As for sklearn's GridSearchCV (stratified folds for an int).
    scoring : str, callable or None, default=None
        As for GridSearchCV; None is accuracy.
    max_depth, min_samples_leaf, max_leaf_nodes, cost_matrix, class_weight, memory_limit :
        As for FastSmallTreeClassifier, for every fit (a fractional
        ``min_samples_leaf`` is read on each fit's own rows, as sklearn does).
    time_limit : float > 0 or None, default=60.0
        Seconds for each fit of the paths and of the refit. A stopped fit's tree
        is still scored; ``cv_results_['optimal']`` says whether every fold's
        tree at that value was certified.
    n_jobs : int, default=None
        Folds run side by side as joblib jobs (None means 1 unless in a
        ``joblib.parallel_backend`` context, -1 all cores), in threads unless
        the context says otherwise: the search releases the GIL, so threads
        share the cores without the start-up of a process pool. Each fit runs
        one thread; the refit runs ``n_jobs`` threads.
    refit : bool, default=True
        Refit the best regularization on all rows (``best_estimator_``).
    verbose : int, default=0
        At 1 or more, one line per fold and value of ``lambdas`` as its tree is
        settled: the value, the held-out score, the leaves, whether the tree is
        certified, and the seconds of its fit (or that it was read from the
        leaves front, or that the path needed none).

    Attributes
    ----------
    regularization_ : float
        The value of ``lambdas`` of best mean test score (the first on ties).
    best_score_ : float
    best_index_ : int
    cv_results_ : dict of ndarray
        As GridSearchCV's: ``mean_fit_time``, ``std_fit_time``,
        ``mean_score_time``, ``std_score_time`` (seconds; a value read from the
        leaves front, or between two certified fits of the same tree, has fit
        time 0), ``param_regularization``,
        ``params``, ``split{k}_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``; besides, ``optimal`` (every
        fold's tree certified at that value), ``n_leaves`` (mean leaves of the
        folds' trees) and ``mean_path_time`` (seconds of a fold's whole path,
        its front's counts included).
    n_fits_ : int
        Fits run over all folds, each count of a fold's front one fit (a value
        read from the front, or between two certified fits of the same tree,
        needs none of its own).
    best_estimator_ : FastSmallTreeClassifier
        The refit on all rows.
    estimator_ : DecisionTreeClassifier
        The refit's native tree (predictions go through it).
    optimal_ : bool
        Whether the refit was certified.
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray
    refit_time_ : float

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from fst import FastSmallTreeClassifierCV
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = FastSmallTreeClassifierCV(lambdas=[0.005, 0.02, 0.05], max_depth=3).fit(X, y)
    >>> clf.regularization_ in (0.005, 0.02, 0.05)
    True
    """

    _fitted = FastSmallTreeClassifier
    _parameter_constraints = {
        **_PathCV._parameter_constraints,
        **{k: FastSmallTreeClassifier._parameter_constraints[k]
           for k in ("cost_matrix", "class_weight")},
    }

    def __init__(self, lambdas=None, *, cv=5, scoring=None, max_depth=None,
                 min_samples_leaf=1, max_leaf_nodes=None, cost_matrix=None,
                 class_weight=None, time_limit=60.0, memory_limit="auto", n_jobs=None,
                 refit=True, verbose=0):
        self.lambdas = lambdas
        self.cv = cv
        self.scoring = scoring
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.cost_matrix = cost_matrix
        self.class_weight = class_weight
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.n_jobs = n_jobs
        self.refit = refit
        self.verbose = verbose

    def _targets(self, y):
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        return y


class FastSmallTreeRegressorCV(_PathCV, RegressorMixin, NativeTreeMixin, BaseEstimator):
    """FastSmallTreeRegressor with its regularization chosen by cross-validation.

    As :class:`FastSmallTreeClassifierCV`, for the regressor: each fold follows
    the certified regularization path of its training rows along ``lambdas``
    (without ``max_depth`` read from a leaves front after a fit at the least
    value; values between two certified fits of the same tree need no fit), each
    value's tree is scored on the fold's held-out rows, and the value of best
    mean score is refitted on all rows. The regularization is in units of the
    training R^2 (see :class:`FastSmallTreeRegressor`).

    Parameters
    ----------
    lambdas : array-like of float, default=None
        The regularizations compared; None means 8 values from 0.005 to 0.1,
        evenly spaced on a log scale.
    cv : int, cross-validation generator or iterable, default=5
        As for sklearn's GridSearchCV (unshuffled k-fold for an int).
    scoring : str, callable or None, default=None
        As for GridSearchCV; None is R^2.
    max_depth, min_samples_leaf, max_leaf_nodes, memory_limit :
        As for FastSmallTreeRegressor, for every fit.
    time_limit : float > 0 or None, default=60.0
        Seconds for each fit of the paths and of the refit; a stopped fit's
        tree is still scored (``cv_results_['optimal']`` False at its value).
    n_jobs : int, default=None
        Folds run side by side as joblib jobs, in threads unless a joblib
        backend says otherwise; the refit runs ``n_jobs`` threads.
    refit : bool, default=True
        Refit the best regularization on all rows (``best_estimator_``).
    verbose : int, default=0
        At 1 or more, one line per fold and value of ``lambdas``.

    Attributes
    ----------
    regularization_ : float
        The value of ``lambdas`` of best mean test score (the first on ties).
    best_score_ : float
    best_index_ : int
    cv_results_ : dict of ndarray
        As for :class:`FastSmallTreeClassifierCV`.
    n_fits_ : int
    best_estimator_ : FastSmallTreeRegressor
        The refit on all rows.
    estimator_ : DecisionTreeRegressor
        The refit's native tree (predictions go through it).
    optimal_ : bool
        Whether the refit was certified.
    n_features_in_ : int
    feature_names_in_ : ndarray
    refit_time_ : float

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from fst import FastSmallTreeRegressorCV
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = FastSmallTreeRegressorCV(lambdas=[0.01, 0.02, 0.05], max_depth=2).fit(X, y)
    >>> reg.regularization_ in (0.01, 0.02, 0.05)
    True
    """

    _fitted = FastSmallTreeRegressor

    def __init__(self, lambdas=None, *, cv=5, scoring=None, max_depth=None,
                 min_samples_leaf=1, max_leaf_nodes=None, time_limit=60.0,
                 memory_limit="auto", n_jobs=None, refit=True, verbose=0):
        self.lambdas = lambdas
        self.cv = cv
        self.scoring = scoring
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.n_jobs = n_jobs
        self.refit = refit
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # sparse trees by design (as FastSmallTreeRegressor)
        tags.regressor_tags.poor_score = True
        return tags

    def _targets(self, y):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError(f"y of {type(self).__name__} must be finite (no NaN or "
                             "infinity).")
        return y


class _FoldResult:
    """One fold's fits, a value of lambdas each: test scores, whether certified,
    leaves, seconds of the fit (0 where the path needed none) and of scoring."""

    def __init__(self, n):
        self.n_fits = 0
        self.scores = np.empty(n)
        self.certified = np.zeros(n, bool)
        self.leaves = np.empty(n)
        self.fit_time = np.zeros(n)
        self.score_time = np.zeros(n)
        self.seconds = 0.0


def _fold(estimator, params, lams, scorer, X, y, sw, train, test, k, n_folds, verbose,
          deadline=None):
    """One fold: the optimum of its training rows at each of lams (`front_grid`,
    or `grid_fits` under max_depth: values read from a leaves front, or between
    two certified fits of the same tree, need no fit), each scored
    on the held-out rows as it is settled; at verbose >= 1 one line each.
    `deadline`: a time.perf_counter() value by which every fit of the folds
    stops (the command line's bounded try of deeper trees), or None."""
    t0 = time.perf_counter()
    order = np.argsort(lams, kind="stable")
    Xt, yt = _safe_indexing(X, train), _safe_indexing(y, train)
    Xv, yv = _safe_indexing(X, test), _safe_indexing(y, test)
    out = _FoldResult(len(lams))

    def settled(j, fit, seconds):
        i = order[j]
        s0 = time.perf_counter()
        out.scores[i] = float(scorer(fit.clf, Xv, yv))
        out.score_time[i] = time.perf_counter() - s0
        out.fit_time[i] = seconds
        out.certified[i] = fit.optimal
        out.leaves[i] = fit.leaves
        if verbose:
            how = "certified" if fit.optimal else f"not certified ({fit.clf.status_})"
            fitted = (f"fit {seconds:.2f}s" if seconds
                      else "no fit: read from the leaves front" if fit.from_front
                      else "no fit: same tree both sides")
            print(f"[CV {k + 1}/{n_folds}] regularization={lams[i]:.6g}; "
                  f"score={out.scores[i]:.4f} leaves={fit.leaves} {how}, {fitted}",
                  flush=True)

    args = (Xt, yt, lams[order], params, None if sw is None else sw[train])
    if params.get("max_depth") is None:
        _, _, log, _, counts = front_grid(*args, on_value=settled, estimator=estimator,
                                          deadline=deadline,
                                          regression=estimator is FastSmallTreeRegressor)
    else:
        # under max_depth each fit is the depth-limited engine's, which values
        # every lam faster than a front's leaf caps do
        (_, _, log, _), counts = grid_fits(*args, on_value=settled, estimator=estimator,
                                           deadline=deadline), []
    out.n_fits = len(log) + len(counts)
    out.seconds = time.perf_counter() - t0
    return out


def _cv_results(lams, results):
    """GridSearchCV's layout of the folds' results (lambdas as the one
    parameter), with ``optimal`` and ``n_leaves`` besides."""
    scores = np.array([r.scores for r in results])          # (folds, lambdas)
    mean = scores.mean(axis=0)
    # GridSearchCV's ranking: 1 for the best mean, ties share the smallest rank
    rank = np.array([1 + np.sum(mean > m) for m in mean], dtype=np.int32)
    fit_time = np.array([r.fit_time for r in results])
    score_time = np.array([r.score_time for r in results])
    res = {
        "mean_fit_time": fit_time.mean(axis=0),
        "std_fit_time": fit_time.std(axis=0),
        "mean_score_time": score_time.mean(axis=0),
        "std_score_time": score_time.std(axis=0),
        "param_regularization": np.ma.MaskedArray(lams.astype(object), mask=False),
        "params": [{"regularization": float(v)} for v in lams],
    }
    for k in range(scores.shape[0]):
        res[f"split{k}_test_score"] = scores[k]
    res["mean_test_score"] = mean
    res["std_test_score"] = scores.std(axis=0)
    res["rank_test_score"] = rank
    res["optimal"] = np.array([r.certified for r in results]).all(axis=0)
    res["n_leaves"] = np.array([r.leaves for r in results]).mean(axis=0)
    res["mean_path_time"] = np.full(len(lams), float(np.mean([r.seconds for r in results])))
    return res
