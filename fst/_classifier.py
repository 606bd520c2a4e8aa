"""FastSmallTreeClassifier: the certified sparse decision tree."""
import numbers
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval

from ._core._limits import clock
from ._export import build_estimator
from ._plan import plan_fit
from ._spaces import split_space_bytes
from ._utils import (RESCORE_TOL, CertificateMixin, NativeClassifierMixin,
                     check_shared_params, fit_params, min_leaf_rows, obeys_min_leaf,
                     prepare_fit, resolve_memory_limit, shared_constraints, warn_at_caller)
from .exceptions import NotCertifiedWarning

__all__ = ["FastSmallTreeClassifier"]

class FastSmallTreeClassifier(ClassifierMixin, CertificateMixin, NativeClassifierMixin,
                              BaseEstimator):
    """The provably best sparse decision tree, as a native scikit-learn tree.

    Minimises ``loss / n_samples + regularization * n_leaves`` over every binary
    tree on all thresholds of the raw features (one split between each pair of
    consecutive distinct float32 values of each column), and proves it: the
    search returns a lower bound that meets the objective of the tree it returns.

    Parameters
    ----------
    regularization : float, default=0.05
        Price of one leaf (lambda), added to the mean loss per leaf. Must be
        finite and >= 0. With ``0`` and no ``max_depth`` the search is unbounded
        (a warning says so).
    cost_matrix : array-like of shape (n_classes, n_classes), default=None
        ``cost_matrix[i, j]`` is the cost of predicting ``classes_[j]`` for a row
        of class ``classes_[i]``. Nonnegative and finite; a nonzero diagonal is
        allowed. None means 0/1 loss.
    class_weight : dict, 'balanced' or None, default=None
        Weights per true class, as in scikit-learn. They scale the rows of the
        loss: the cost of a row of class c is ``weight[c] * cost_matrix[c, j]``
        (both given: they multiply). The loss is still divided by the number of
        rows, so 'balanced' keeps the scale of the unweighted loss.
    max_depth : int >= 1 or None, default=None
        Hard depth limit (a single leaf has depth 0); None means no limit.
        With it, ``regularization=0`` makes fst an exact depth-limited solver.
        Continuous columns (8 or more thresholds a column on average) then go
        to the depth-limited engine, which keeps the rows sorted per column
        (memory linear in rows x columns) and searches every threshold; a
        stopped fit returns at least CART's tree of that depth, and after a
        time stop at least DPDT's (grown in the last tenth of ``time_limit``).
    min_samples_leaf : int >= 1 or float in (0, 1), default=1
        The rows every leaf must hold, as in scikit-learn's trees: the optimum
        is then the best tree among those whose every leaf holds that many
        training rows (exact, and certified as without it). A float is a
        fraction of the rows, ``ceil(min_samples_leaf * n_rows)``. Rows are
        counted whatever their ``sample_weight`` (as scikit-learn's
        ``min_samples_leaf`` does), but rows of weight 0 are left out of the
        fit and so never count. The search runs without the rules that carry
        bounds between nested row sets, which the constraint breaks, so such a
        fit can take longer than the unconstrained one.
    max_leaf_nodes : int >= 2 or None, default=None
        The most leaves the tree may have: the optimum is then the best tree
        among those of at most that many leaves (exact and certified; not
        CART's best-first growth). None: any number. The depth-limited engine
        searches it (at most 64 classes), at depth at most
        ``max_leaf_nodes - 1`` (or ``max_depth`` when lower): small caps
        certify fast, a cap of 6 or more on many continuous columns can take
        long without ``max_depth``. With ``regularization=0`` it is the exact
        "best tree of k leaves" problem. A stopped fit returns at least CART's
        tree grown with the same ``max_leaf_nodes``.
    time_limit : float > 0 or None, default=60.0
        Seconds of the whole fit (preparation, search and export). On expiry
        the best tree found is returned with ``optimal_ = False``, its
        ``lower_bound_`` and ``gap_``, and a
        :class:`~fst.exceptions.NotCertifiedWarning`. None sets no limit: a hard
        problem at a small ``regularization`` can then run for hours.
    memory_limit : int, float, str, 'auto' or None, default='auto'
        Bytes of resident memory of the whole process, checked as the search
        runs: a number (``8e8``) or a string such as ``'2GB'`` or ``'1.5GiB'``
        (kB, MB, GB, TB are powers of 1000; KiB, MiB, GiB, TiB of 1024). On
        excess the search stops as for ``time_limit``. 'auto' is three quarters
        of the memory the process may use (the machine's, or its
        container's limit when lower, read when fst is imported), so a search
        too big for the machine stops
        with the best tree found instead of being killed by the system; None
        sets no limit. The bytes in effect are ``search_stats_['memory_limit']``
        (0: none). Under 'auto' the search takes the path it takes without a
        limit (an explicit limit also ends the depth ladder once the store
        passes half of it), so results do not depend on the machine's memory
        unless the limit stops the search. The search keeps a row bitset per
        threshold (``n_thresholds * n_samples / 8`` bytes, counted in
        ``search_stats_['n_splits']``): when those would take more than half of
        what the limit leaves above the process's present size, only some
        thresholds of each column are searched (row quantiles, as many as fit;
        ``search_stats_['n_splits_searched']``) and the fit ends as a memory stop,
        with that search's best tree, ``optimal_ = False`` and a lower bound valid
        for the whole space. On continuous columns (under ``max_depth``, or
        without it at a positive ``regularization``) the depth-limited engine
        runs instead, which keeps every threshold and no bitsets.
    n_jobs : int, default=1
        Threads of the search (None means 1, -1 all cores). Each thread of the
        certified search takes a share of the root's splits on its own memo
        store; the threads share the best objective found, a table of proven
        bounds and trees, and any stop. Each thread of the depth-limited engine
        values the root splits of the columns it takes. The results do not
        depend on it: a certified fit returns the canonical optimal tree (at
        every node the leaf when it is optimal, else the lowest split reaching
        the optimum), the same for every ``n_jobs``, row order and memo
        capacity. A parallel certified search holds a table of shared bounds of
        up to 512 MB (an eighth of ``memory_limit`` when that is less).
    verbose : int, default=0
        Print a summary of the search when > 0; at 2 or more, also a progress
        line every 5 s while it runs (seconds, proven lower bound, the best
        objective the root has recorded -- the trees of the depth ladder join it
        at the end --, gap).

    Attributes
    ----------
    estimator_ : DecisionTreeClassifier
        The certified tree as a native, fitted scikit-learn tree.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined only when X has string column names.
    optimal_ : bool
        True when the returned tree is proved optimal.
    objective_ : float
        Objective of ``estimator_`` re-scored on the training data.
    lower_bound_ : float
        Proven lower bound on the optimal objective (equals ``objective_`` up to
        1e-9 when ``optimal_``).
    gap_ : float
        ``objective_ - lower_bound_``.
    n_leaves_ : int
    status_ : {'optimal', 'time_limit', 'memory_limit', 'interrupted', 'search_limit'}
        'search_limit': without ``max_depth``, where the depth-limited engine
        searches alone, the trees that could beat the best one found are deeper
        than it searches (16 levels).
    search_stats_ : dict
        Nodes created, expansions, memo size and capacity, peak resident memory
        of the process and seconds of search; ``n_splits``, the thresholds of the
        full space, and ``n_splits_searched``, those searched (fewer only when
        their row bitsets do not fit ``memory_limit``).

    See Also
    --------
    sklearn.tree.DecisionTreeClassifier : CART, the greedy tree.

    Notes
    -----
    Missing values (NaN) are treated as larger than every number: they go right
    at every split, and the exported nodes say so (``missing_go_to_left = 0``).

    With a cost matrix the exported tree's ``value`` (and so ``predict_proba``)
    holds cost-based scores whose argmax is the least-cost label, not class
    frequencies; without one it holds the (weighted) class fractions.

    References
    ----------
    The FastSmallTree notes (certified sparse trees: bounds and proofs), and
    Hu, Rudin, Seltzer, "Optimal Sparse Decision Trees", NeurIPS 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from fst import FastSmallTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = FastSmallTreeClassifier(regularization=0.02).fit(X, y)
    >>> clf.optimal_, clf.n_leaves_
    (True, 3)
    """

    _parameter_constraints = {
        "regularization": [Interval(numbers.Real, 0, None, closed="left")],
        **shared_constraints("cost_matrix", "class_weight", "max_depth", "min_samples_leaf",
                             "max_leaf_nodes", "time_limit", "memory_limit", "n_jobs",
                             "verbose"),
    }

    def __init__(self, regularization=0.05, *, cost_matrix=None, class_weight=None,
                 max_depth=None, min_samples_leaf=1, max_leaf_nodes=None, time_limit=60.0,
                 memory_limit="auto", n_jobs=1, verbose=0):
        self.regularization = regularization
        self.cost_matrix = cost_matrix
        self.class_weight = class_weight
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
        return tags

    def _check_params(self):
        """Validate hyperparameters; returns the effective regularization."""
        self._validate_params()
        lam = float(self.regularization)
        if not np.isfinite(lam):
            raise ValueError(
                "The 'regularization' parameter of FastSmallTreeClassifier must be a "
                f"finite float >= 0. Got {self.regularization!r} instead.")
        check_shared_params(self)
        return lam

    def fit(self, X, y, sample_weight=None):
        """Find the optimal tree for (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; NaN is allowed (larger than every number), +-inf
            and values beyond float32 range are not.
        y : array-like of shape (n_samples,)
            Class labels of any type.
        sample_weight : array-like of shape (n_samples,), default=None
            Nonnegative, finite weights of the rows, not all zero. The loss is
            then ``sum_i w_i * cost(row i) / sum_i w_i``: a whole weight counts
            as that many copies of the row, and rows of weight 0 are left out
            (as if absent; no threshold is placed between their values). Any
            weights are exact: the depth-limited engine counts each row's weight;
            the bitset search makes each distinct (class, weight) pair one of its
            classes (at most 64), and a fit with more pairs runs on the engine
            alone (``max_depth`` at most 16, or by leaf budget without it; see
            the user guide). A constant weight is the unweighted problem.

        Returns
        -------
        self : FastSmallTreeClassifier
            The fitted estimator.
        """
        started = clock()           # the time limit holds for the whole fit
        lam = self._check_params()
        data = prepare_fit(self, X, y, sample_weight)
        return self._fit_prepared(data, lam, sample_weight, started)

    def _fit_prepared(self, data, lam, sample_weight, started):
        """The fit after its preamble: `data` from `prepare_fit` (which recorded
        ``classes_``, ``n_features_in_`` and ``feature_names_in_``), `lam` the
        checked regularization, `started` the fit's `clock` start.  The leaves
        front fits its counts on one preamble (`_front._Counts`)."""
        # the columns holding NaN, which `summary` says a split sends right
        self._nan_columns = np.isnan(data.X).any(axis=0)
        if lam == 0 and self.max_depth is None and self.max_leaf_nodes is None:
            warn_at_caller(
                "regularization=0 without max_depth: every leaf is free, so the search "
                "is unbounded and may take very long; set max_depth or a positive "
                "regularization.", UserWarning)
        memory_limit = resolve_memory_limit(self.memory_limit, type(self).__name__)
        plan = self._plan_and_search(
            lam,
            lambda: plan_fit(data, fit_params(self, regularization=lam),
                             getattr(self, "_overrides", None), memory_limit, started),
            lambda plan: plan.run(data.X, data.y, sample_weight),
            lambda plan, code: self._record(plan, code, data, lam),
            lambda code: self._stopped_unsearched(data, lam, code, started, memory_limit))
        if plan is None:
            return self
        if not self.optimal_:
            self._try_fallbacks(
                plan.fallback_trees(data.X, data.y, sample_weight, self.status_,
                                    FastSmallTreeClassifier),
                lambda est, name: self._keep_if_better(data, lam, est, name))
            if plan.depth_certificate is not None and plan.space.max_splits is None:
                self._take_depth_certificate(plan.depth_certificate)
        self._warn_if_not_certified(plan.space)
        if self.optimal_ and self.n_leaves_ == 1:
            # the classes' shares of the rows, for the single leaf's warning
            rows = slice(None) if data.row_weight is None else data.row_weight > 0
            counts = np.bincount(data.y_idx[rows], minlength=data.n_classes,
                                 weights=None if data.row_weight is None
                                 else data.row_weight[rows])
            counts = counts[counts > 0]
            self._warn_if_constant(lam, len(counts) > 1, counts / counts.sum())
        return self

    def _stopped_unsearched(self, data, lam, code, started, memory_limit):
        """A fit whose limit stopped it while its columns were ranked: the single
        leaf, with the bound of every tree of all the rows (min of the leaf and
        two leaves above the rows' least costs, as `fst._plan.creation_bound`
        without the equivalent points)."""
        rows = (np.ones(len(data.y_idx), bool) if data.row_weight is None
                else data.row_weight > 0)
        w = None if data.row_weight is None else data.row_weight[rows]
        y_rows = data.y_idx[rows]
        leaf = build_estimator(
            SimpleNamespace(y=y_rows, split_col=np.zeros(0, np.int32),
                            thresholds=np.zeros(0)),
            (np.array([-1]), np.array([-1]), np.array([-1]), np.array([0]),
             [np.arange(len(y_rows))]),
            self.classes_, np.arange(data.n_classes), data.class_w,
            None if self.cost_matrix is None else data.cost, self.n_features_in_,
            getattr(self, "feature_names_in_", None), row_weight=w)
        counts = np.bincount(y_rows, weights=w, minlength=data.n_classes)
        counts = counts / counts.sum()
        floor = float(counts @ data.weighted_cost.min(axis=1))
        bound = min(float((counts @ data.weighted_cost).min()) + lam,
                    float(np.nextafter(floor, -np.inf)) + 2.0 * lam)
        self._record_unsearched(
            leaf, code, self._score_objective(data, lam, leaf), bound, clock() - started,
            {"memory_limit": memory_limit, "max_leaves": int(self.max_leaf_nodes or 0),
             "min_leaf": min_leaf_rows(self.min_samples_leaf, int(rows.sum()))})
        self._warn_if_not_certified(None)

    def _take_depth_certificate(self, cert):
        """What a stopped fit's depth fallback proved (`FitPlan.depth_certificate`):
        where every tree as good as its depth's optimum is of that depth, that
        optimum is the fit's, certified, with the fallback's canonical tree;
        else its bound (the least of that optimum and the deeper trees' bound)
        raises the fit's where higher and still below the objective (a bound
        reaching it without the cover leaves the tie rule's choice among the
        deeper trees open)."""
        if cert.covers:
            if cert.value > self.objective_ + RESCORE_TOL:
                raise RuntimeError(
                    "fst internal error: a certified depth-limited optimum "
                    f"{cert.value!r} that covers every tree is above a tree found, "
                    f"{self.objective_!r}.")
            self.estimator_ = cert.estimator
            self.n_leaves_ = int(cert.estimator.tree_.n_leaves)
            self.objective_ = self.lower_bound_ = cert.value
            self.gap_ = 0.0
            self.status_, self.optimal_ = "optimal", True
            self.search_stats_["incumbent"] = "depth"
        elif self.lower_bound_ < cert.bound < self.objective_ - RESCORE_TOL:
            self.lower_bound_ = cert.bound
            self.gap_ = self.objective_ - self.lower_bound_

    def _keep_if_better(self, data, lam, est, name):
        rows = slice(None) if data.row_weight is None else data.row_weight > 0
        if not obeys_min_leaf(est, data.X, rows, self.search_stats_["min_leaf"],
                              self.max_leaf_nodes):
            return      # a fallback grown elsewhere that breaks a size constraint
        self._adopt_if_better(est, self._score_objective(data, lam, est), name)

    def _record(self, plan, code, data, lam):
        """The fitted attributes from a finished search: the exported tree, its
        objective re-scored on the training data (checked against the value the
        search recorded), the certificate, the bound and the statistics."""
        search, space = plan.search, plan.space
        # The exported counts are already class-weighted: the scores take the
        # user's cost matrix, so that their argmax is the label the search chose
        # (the weighted cost would apply the class weights twice).
        pc_label, pc_weight, row_weight = plan.tree_classes
        self.estimator_ = build_estimator(
            plan.tree_problem, search.extract(), self.classes_, pc_label, pc_weight,
            None if self.cost_matrix is None else data.cost, self.n_features_in_,
            getattr(self, "feature_names_in_", None), row_weight=row_weight)
        self._set_status(code, search.solved)
        if space.max_splits is not None:
            # Only part of the split space was searched: its tree is a real tree on
            # the raw features, but neither its certificate nor its bound holds
            # for the whole space.
            self.status_, self.optimal_ = "memory_limit", False
        self.n_leaves_ = int(self.estimator_.tree_.n_leaves)
        self.objective_ = self._score_objective(data, lam)
        # Invariant (ii): descendants may have improved since the root last summed
        # them (`_certify`)
        self._certify(search.upper_bound, plan.lower_bound())
        self.search_stats_ = plan.stats()

    def _warn_if_not_certified(self, space):
        """A NotCertifiedWarning when the fit is not certified, saying why (not
        for the fits of a path or cross-validation, which report their stops
        once themselves and may run in threads, where catching warnings is not
        safe)."""
        if not getattr(self, "_report_stops", True):
            return
        if space is not None and space.max_splits is not None:
            warn_at_caller(
                f"fst: the {space.n_splits:,} thresholds of X need "
                f"{split_space_bytes(space.n_splits, space.n_rows) / 1e9:.3g} GB of row "
                f"bitsets, more than memory_limit leaves room for; searched "
                f"{space.problem.n_splits:,} of them (row quantiles of each column) "
                f"instead. Returning that search's best tree, not certified (objective "
                f"{self.objective_:.6g}, lower bound {self.lower_bound_:.6g}); raise "
                "memory_limit (None: no limit) for the full search.",
                NotCertifiedWarning)
        elif not self.optimal_:
            self._warn_stopped()

    def _score_objective(self, data, lam, est=None):
        """loss / n + lam * leaves of estimator_ (or est), from its predictions on
        the fit's data (`prepare_fit`; with sample weights, the weighted loss over
        their sum)."""
        est = self.estimator_ if est is None else est
        pred = np.searchsorted(self.classes_, est.predict(data.X, check_input=False))
        cost = data.weighted_cost[data.y_idx, pred]
        if data.row_weight is None:
            loss = cost.sum() / data.X.shape[0]
        else:
            loss = (data.row_weight * cost).sum() / data.row_weight.sum()
        return float(loss + lam * est.tree_.n_leaves)
