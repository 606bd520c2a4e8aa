"""FastSmallTreeRegressor: the certified sparse regression tree."""
import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import validate_data

from ._core._limits import clock
from ._export import build_regressor, native_regressor, node_array
from ._plan import plan_regression
from ._utils import (REGRESSION_FIT_PARAMS, CertificateMixin, NativeTreeMixin,
                     check_no_categorical, check_row_weights, check_shared_params,
                     fit_params, min_leaf_rows, obeys_min_leaf, resolve_memory_limit,
                     shared_constraints, weighted_moments)

__all__ = ["FastSmallTreeRegressor"]


class FastSmallTreeRegressor(RegressorMixin, CertificateMixin, NativeTreeMixin, BaseEstimator):
    """The provably best sparse regression tree, as a native scikit-learn tree.

    Minimises ``sum_i w_i (y_i - leaf mean)^2 / sum_i w_i / Var_w(y) +
    regularization * n_leaves`` over every binary tree on all thresholds of the
    raw features, each leaf predicting the weighted mean of its rows, and proves
    it. Dividing by the variance makes the single leaf's loss 1 and the
    regularization scale-free: the loss term is ``1 - R^2`` on the training
    data, so a split belongs to the optimal tree only if it raises the training
    R^2 by more than ``regularization``.

    Parameters
    ----------
    regularization : float, default=0.01
        Price of one leaf (lambda), in units of the training R^2. Finite and
        >= 0; at 0 ``max_depth`` or ``max_leaf_nodes`` is needed.
    max_depth : int >= 1 or None, default=None
        Hard depth limit (a single leaf has depth 0); None means no limit.
    min_samples_leaf : int >= 1 or float in (0, 1), default=1
        The rows every leaf must hold, as in scikit-learn's trees (a float is a
        fraction of the rows, ``ceil(f * n_rows)``); exact.
    max_leaf_nodes : int >= 2 or None, default=None
        The most leaves the tree may have; exact.
    time_limit : float > 0 or None, default=60.0
        Seconds of the whole fit. On expiry the best tree found is returned with
        ``optimal_ = False``, its ``lower_bound_`` and ``gap_``, and a
        :class:`~fst.exceptions.NotCertifiedWarning`. None sets no limit.
    memory_limit : int, float, str, 'auto' or None, default='auto'
        Bytes of resident memory of the whole process, as for
        :class:`FastSmallTreeClassifier`.
    n_jobs : int, default=1
        Threads of the search (None means 1, -1 all cores); the result does not
        depend on it.
    verbose : int, default=0
        A summary line after the fit when > 0; at 2 or more, progress lines.

    Attributes
    ----------
    estimator_ : DecisionTreeRegressor
        The tree as a native, fitted scikit-learn regressor: ``value`` the leaf
        means, ``impurity`` the leaf variances (weighted), the weighted counts.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined only when X has string column names.
    optimal_ : bool
        True when the returned tree is proved optimal.
    objective_ : float
        Objective of ``estimator_`` re-scored on the training data.
    lower_bound_ : float
        Proven lower bound on the optimal objective.
    gap_ : float
        ``objective_ - lower_bound_``.
    n_leaves_ : int
    status_ : {'optimal', 'time_limit', 'memory_limit', 'interrupted', 'search_limit'}
        'search_limit': without ``max_depth`` the trees that could beat the best
        one found are deeper than the engine searches (16 levels).
    search_stats_ : dict

    Notes
    -----
    The search is the depth-limited engine on the rows sorted per column
    (memory linear in rows x columns), under ``max_depth``, or without it by
    leaf budget: a tree worth at most the best objective found ``U`` has at
    most ``(U - floor) / regularization`` leaves, so a bounded depth. Without
    ``max_depth`` or ``max_leaf_nodes`` on binary or binned columns (fewer
    than eight thresholds a column on average) a general search over every
    tree shape, with the engine's depth-four tree as its first incumbent,
    follows it. Missing values (NaN) go right at every split.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from fst import FastSmallTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = FastSmallTreeRegressor(regularization=0.02, max_depth=2).fit(X, y)
    >>> reg.optimal_, reg.n_leaves_
    (True, 4)
    """

    _parameter_constraints = {
        "regularization": [Interval(numbers.Real, 0, None, closed="left")],
        **shared_constraints("max_depth", "min_samples_leaf", "max_leaf_nodes", "time_limit",
                             "memory_limit", "n_jobs", "verbose"),
    }

    _LOSS_NAME = "loss (1 - R^2)"

    def __init__(self, regularization=0.01, *, max_depth=None, min_samples_leaf=1,
                 max_leaf_nodes=None, time_limit=60.0, memory_limit="auto", n_jobs=1,
                 verbose=0):
        self.regularization = regularization
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        # a sparse tree by design: at a large regularization a few leaves fit a
        # smooth target poorly (sklearn's checks then skip their R^2 > 0.5 test)
        tags.regressor_tags.poor_score = True
        return tags

    def fit(self, X, y, sample_weight=None):
        """Find the optimal regression tree for (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; NaN is allowed (larger than every number).
        y : array-like of shape (n_samples,)
            Finite numeric targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Nonnegative, finite weights, not all zero: the loss is
            ``sum_i w_i (y_i - leaf mean)^2 / sum_i w_i / Var_w(y)`` with
            weighted means and variance; rows of weight 0 are left out.

        Returns
        -------
        self : FastSmallTreeRegressor
        """
        started = clock()
        owner = type(self).__name__
        self._validate_params()
        lam = float(self.regularization)
        if not np.isfinite(lam):
            raise ValueError(f"The 'regularization' parameter of {owner} must be a finite "
                             f"float >= 0. Got {self.regularization!r} instead.")
        check_shared_params(self)
        check_no_categorical(X, owner)
        X, y = validate_data(self, X, y, dtype=np.float32, ensure_all_finite="allow-nan",
                             order="C", y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        # the columns holding NaN, which `summary` says a split sends right
        self._nan_columns = np.isnan(X).any(axis=0)
        if not np.all(np.isfinite(y)):
            raise ValueError(f"y of {owner} must be finite (no NaN or infinity).")
        w = check_row_weights(sample_weight, X, owner)
        mean, var = weighted_moments(y, w)
        self._y_mean, self._y_scale = mean, var
        if not var > 1e-300 * max(mean * mean, 1.0):
            # a constant target: the single leaf predicts it exactly
            self._fit_constant(X, y, w, lam)
            return self
        memory_limit = resolve_memory_limit(self.memory_limit, owner)
        params = fit_params(self, REGRESSION_FIT_PARAMS, regularization=lam)
        plan = self._plan_and_search(
            lam,
            lambda: plan_regression(X, y, w, (mean, var), params,
                                    getattr(self, "_overrides", None), memory_limit, started),
            lambda plan: plan.run(),
            lambda plan, code: self._record(plan, code, X, y, w, lam),
            lambda code: self._stopped_unsearched(X, y, w, lam, code, started, memory_limit))
        if plan is None:
            return self
        if not self.optimal_:
            rows = slice(None) if w is None else w > 0

            def keep(est, name):
                if obeys_min_leaf(est, X, rows, self.search_stats_["min_leaf"],
                                  self.max_leaf_nodes):
                    self._adopt_if_better(est, self._score_objective(X, y, w, lam, est),
                                          name)

            self._try_fallbacks(plan.fallback_trees(X, y, w), keep)
            if getattr(self, "_report_stops", True):
                self._warn_stopped()
        # (a constant target returned above, with its exact single leaf)
        self._warn_if_constant(lam, True)
        return self

    def _single_leaf(self, y, w, value, impurity):
        """The tree of one leaf over the rows of positive weight, predicting
        `value`, of variance `impurity`."""
        rows = np.ones(len(y), bool) if w is None else w > 0
        leaf = np.full(1, -1, dtype=np.intp)
        weight = float(rows.sum()) if w is None else float(w[rows].sum())
        nodes = node_array(leaf, leaf, leaf, np.array([[weight]]),
                           np.array([rows.sum()], dtype=np.intp),
                           np.zeros(0, dtype=np.int32), np.zeros(0))
        nodes["impurity"] = impurity
        return native_regressor(nodes, np.array([[[float(value)]]]), self.n_features_in_, 0,
                                getattr(self, "feature_names_in_", None))

    def _fit_constant(self, X, y, w, lam):
        """The single leaf of a constant target: certified, loss 0."""
        rows = np.ones(len(y), bool) if w is None else w > 0
        self.estimator_ = self._single_leaf(y, w, y[rows][0], 0.0)
        self.status_, self.optimal_ = "optimal", True
        self.n_leaves_ = 1
        self.objective_ = self.lower_bound_ = lam
        self.gap_ = 0.0
        self.search_stats_ = {"engine": "none", "seconds": 0.0}

    def _stopped_unsearched(self, X, y, w, lam, code, started, memory_limit):
        """A fit whose limit stopped it while its columns were ranked: the single
        leaf (scaled loss 1), with the bound of every tree of all the rows, min
        of the leaf and two leaves losing at least 0."""
        rows = np.ones(len(y), bool) if w is None else w > 0
        leaf = self._single_leaf(y, w, self._y_mean, self._y_scale)
        bound = min(1.0 + lam, 2.0 * lam)
        self._record_unsearched(
            leaf, code, self._score_objective(X, y, w, lam, leaf), bound,
            clock() - started,
            {"memory_limit": memory_limit, "max_leaves": int(self.max_leaf_nodes or 0),
             "min_leaf": min_leaf_rows(self.min_samples_leaf, int(rows.sum()))})
        if getattr(self, "_report_stops", True):
            self._warn_stopped()

    def _record(self, plan, code, X, y, w, lam):
        """The fitted attributes from a finished search: the exported tree, its
        objective re-scored on the training data (checked against the value the
        search recorded), the certificate, the bound and the statistics."""
        search = plan.search
        self.estimator_ = build_regressor(plan.space, search.extract(), y, w,
                                          self.n_features_in_,
                                          getattr(self, "feature_names_in_", None))
        self._set_status(code, search.solved)
        self.n_leaves_ = int(self.estimator_.get_n_leaves())
        self.objective_ = self._score_objective(X, y, w, lam)
        self._certify(search.upper_bound, plan.lower_bound())
        self.search_stats_ = plan.stats()

    def _score_objective(self, X, y, w, lam, est=None):
        """Weighted squared error over the weights' sum and the target's
        weighted variance, plus lam a leaf, of estimator_ (or est) on the
        training data."""
        est = self.estimator_ if est is None else est
        err = (y - est.predict(X, check_input=False)) ** 2
        loss = err.mean() if w is None else (w * err).sum() / w.sum()
        return float(loss / self._y_scale + lam * est.get_n_leaves())
