"""DPDTClassifier: Dynamic Programming Decision Trees, the whole front at once."""
import numbers
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from types import SimpleNamespace

from ._core._mdp import (COMPLEXITY_LEAVES, COMPLEXITY_TESTS, CRITERION_ENTROPY,
                         CRITERION_GINI, GROWTH_BEST_FIRST, GROWTH_DEPTH, MDP,
                         STOP_MEMORY_CODE, STOP_TIME_CODE, TESTS_ALL, fixed_bytes,
                         store_capacity)
from ._core._problem import build_space
from ._core._columns import PreparationStopped
from ._core._limits import STATUS_NAMES, clock, effective_n_threads, process_rss
from ._export import build_estimator, tree_text
from ._plot import draw_front
from ._utils import (RESCORE_TOL, NativeClassifierMixin, check_shared_params,
                     prepare_fit, resolve_memory_limit, shared_constraints,
                     warn_at_caller)
from .exceptions import IncompleteMDPWarning

__all__ = ["DPDTClassifier"]


class DPDTClassifier(ClassifierMixin, NativeClassifierMixin, BaseEstimator):
    """Dynamic Programming Decision Trees: every tree on the accuracy/complexity
    front of a depth-limited decision-tree MDP, from one fit.

    States of the MDP are (row set, depth); at each state the actions are its
    leaf and the tests of a CART tree of depth ``cart_depth`` grown on the
    state's rows (the tests generating function). The MDP is solved backwards for
    every trade-off ``alpha >= 0`` at once, minimising

        loss / n_samples + alpha * complexity

    where complexity is the expected number of tests a row goes through
    (``complexity='tests'``, the paper's measure) or the number of leaves
    (``'leaves'``, FastSmallTreeClassifier's measure). With ``sample_weight``
    the loss and the rows reaching a test are sums of weights, and
    ``n_samples`` is the weights' total.

    Parameters
    ----------
    max_depth : int >= 1, default=3
        Depth of the trees (a single leaf has depth 0).
    cart_depth : int, 'all' or list, default=4
        Depth of the CART tree whose test nodes are the tests offered at a state.
        A list gives one value per depth of the state (``max_depth`` values).
        ``'all'`` offers every split: exact, for small data only. At depth
        ``max_depth - 1`` every split is always offered, since there the best
        one is found in a single scan (the children are leaves).
    criterion : {'entropy', 'gini'}, default='entropy'
        Impurity of the CART tests generating function.
    cart_growth : {'depth', 'best_first'}, default='depth'
        How the generating CART tree is grown: depth first to depth
        ``cart_depth``, or best first (always splitting the leaf whose split
        lowers the weighted impurity most, as sklearn's ``max_leaf_nodes``) to
        ``2 ** cart_depth`` leaves, which is the generator of the DPDT authors'
        implementation; it reaches deeper, more varied tests for the same count.
    complexity : {'tests', 'leaves'}, default='tests'
        What ``alpha`` prices: the expected number of tests (each test weighted
        by the share of rows reaching it) or each leaf.
    alphas : int or array-like, default=1000
        The trade-offs whose optimal trees make up ``trees_``: a count for a grid
        on [0, 1], or the values (finite, >= 0).
    alpha : float, default=0.0
        The trade-off of ``estimator_``, used by predict.
    greedy_below : int, default=None
        From this depth of the state on, the tests are those of a depth-1 CART
        (the greedy split), which is how deep trees stay tractable.
    cost_matrix : array-like of shape (n_classes, n_classes), default=None
        ``cost_matrix[i, j]`` is the cost of predicting ``classes_[j]`` for a row
        of class ``classes_[i]`` (finite, >= 0). None means 0/1 loss.
    class_weight : dict, 'balanced' or None, default=None
        Weights per true class (finite, >= 0), as in scikit-learn: they scale the
        rows of the loss (the cost of a row of class c is ``weight[c] *
        cost_matrix[c, j]``, as in FastSmallTreeClassifier; the loss is still
        divided by the number of rows, or the sum of ``sample_weight``) and the
        class counts of the generating CART's impurities (as in sklearn's
        ``DecisionTreeClassifier(class_weight=...)``). The rows reaching a test,
        its price under ``complexity='tests'``, are not class-weighted.
    time_limit : float > 0 or None, default=None
        Seconds of the whole fit, from its start (the columns' ranking, the
        build, the export). When they run out (or on Ctrl-C) the build ends
        early and still returns: every state not yet reached becomes a leaf,
        the generating CART of a state stops growing, and every state being
        built keeps the tests it has tried (a stop while the columns are ranked
        leaves the single leaf), which is a smaller
        MDP solved exactly, so every tree returned is real and correctly scored
        (only the front may be worse, and Proposition 2 may not hold).
        ``status_`` then says why and an ``IncompleteMDPWarning`` is issued.
        None means no limit.
    memory_limit : int, float, str, 'auto' or None, default='auto'
        Bytes of resident memory of the whole process (a number, or a string such
        as ``'2GB'`` as for FastSmallTreeClassifier), which the build keeps
        within: its fixed buffers are checked before they are allocated (when
        they do not fit, the fit returns the single leaf as a memory stop); it
        ends early as for ``time_limit`` a little below the limit (by a
        sixteenth of the room left when it starts, at most 32 MB; the process
        is polled every 0.1 s); and every array it grows asks first. A growth
        refused at the limit itself makes the build wind down without it (a
        child becomes a leaf, a state keeps fewer candidate trees), so every
        tree returned is still real and correctly scored; only the front may
        be worse. The copies of X that fit makes before the build are not
        checked. 'auto' is three quarters of the memory the process may use
        (the machine's, or its container's limit when lower), as in
        FastSmallTreeClassifier; None sets no limit, and running out of memory
        then raises MemoryError. The bytes in effect are
        ``mdp_stats_['memory_limit']``.
    n_jobs : int, default=1
        Threads for the scans of the last test level (over columns; None means
        1, -1 all cores). The result does not depend on it: each column's best
        split is found on its own and they are compared in column order.
    verbose : int, default=0
        Print the MDP's size and time when > 0.

    Attributes
    ----------
    estimator_ : DecisionTreeClassifier
        The tree optimal at ``alpha``, as a native scikit-learn tree.
    trees_ : list of DecisionTreeClassifier
        Each distinct tree optimal at some value of ``alphas``, once, from the
        simplest to the most complex.
    pareto_front_ : dict of ndarray
        One entry per tree of ``trees_``: ``alpha_min`` and ``alpha_max`` (the
        interval of alpha where it is optimal; at an end shared by two trees the
        simpler one is returned), ``loss`` (training loss / n), ``accuracy``
        (training accuracy), ``expected_tests``, ``n_leaves``, ``depth``.
        ``pandas.DataFrame(pareto_front_)`` gives a table.
    n_states_ : int
        States of the MDP (distinct (row set, depth) pairs).
    status_ : {'optimal', 'time_limit', 'memory_limit', 'interrupted'}
        'optimal' when the whole MDP was solved (every tree of ``trees_`` is
        optimal for it), else the stop that ended the build early.
    mdp_stats_ : dict
        Size of the MDP: states, states saved by sharing identical row sets,
        states per depth, hull points, seconds, the memory limit in effect,
        the process's peak resident bytes seen, and the growths refused under
        the memory limit (each made a child a leaf, cut a state's candidates
        short or made its hull its leaf alone).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined only when X has string column names.

    Notes
    -----
    The backward pass is exact for every alpha at once: a state's value is a
    concave piecewise-linear function of alpha, kept as the hull of its optimal
    (complexity, loss) points, and Bellman's equation merges the children's
    hulls. Reading the root's hull at the values of ``alphas`` gives the trees
    a backup on that grid gives.

    The result is never worse, for any alpha, than CART grown with the same
    criterion to ``max_depth`` nor than any of its pruned subtrees (Proposition 2
    of the paper): their tests are all offered by the generating function.

    Missing values (NaN) are larger than every number and go right.

    References
    ----------
    Kohler, Akrour, Preux, "Breiman meets Bellman: Non-Greedy Decision Trees with
    MDPs" (the DPDT paper).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from fst import DPDTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DPDTClassifier(max_depth=3).fit(X, y)
    >>> round(clf.score(X, y), 3)
    0.993
    """

    _parameter_constraints = {
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "cart_depth": [Interval(numbers.Integral, 1, None, closed="left"),
                       StrOptions({"all"}), list, tuple],
        "criterion": [StrOptions({"entropy", "gini"})],
        "cart_growth": [StrOptions({"depth", "best_first"})],
        "complexity": [StrOptions({"tests", "leaves"})],
        "alphas": [Interval(numbers.Integral, 1, None, closed="left"), "array-like"],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "greedy_below": [Interval(numbers.Integral, 0, None, closed="left"), None],
        **shared_constraints("cost_matrix", "class_weight", "time_limit", "memory_limit",
                             "n_jobs", "verbose"),
    }

    def __init__(self, max_depth=3, *, cart_depth=4, criterion="entropy",
                 cart_growth="depth", complexity="tests", alphas=1000, alpha=0.0,
                 greedy_below=None, cost_matrix=None, class_weight=None,
                 time_limit=None, memory_limit="auto", n_jobs=1, verbose=0):
        self.max_depth = max_depth
        self.cart_depth = cart_depth
        self.criterion = criterion
        self.cart_growth = cart_growth
        self.complexity = complexity
        self.alphas = alphas
        self.alpha = alpha
        self.greedy_below = greedy_below
        self.cost_matrix = cost_matrix
        self.class_weight = class_weight
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    # ------------------------------------------------------------ parameters

    def _cart_depths(self):
        """CART depth per depth of a state (0 = every split)."""
        D = int(self.max_depth)
        name = type(self).__name__

        def one(v):
            if isinstance(v, str) and v == "all":
                return TESTS_ALL
            if isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1:
                return int(v)
            raise ValueError(
                f"The 'cart_depth' parameter of {name} must be an int >= 1, 'all', or "
                f"a list of those. Got {v!r} in {self.cart_depth!r}.")

        if isinstance(self.cart_depth, (list, tuple)):
            if len(self.cart_depth) != D:
                raise ValueError(
                    f"The 'cart_depth' parameter of {name} given as a list needs one "
                    f"value per depth, max_depth = {D} values. Got "
                    f"{len(self.cart_depth)}.")
            ks = [one(v) for v in self.cart_depth]
        else:
            ks = [one(self.cart_depth)] * D
        if self.greedy_below is not None:
            ks = [1 if d >= self.greedy_below else k for d, k in enumerate(ks)]
        return np.asarray(ks, dtype=np.int32)

    def _alpha_grid(self):
        name = type(self).__name__
        if isinstance(self.alphas, numbers.Integral) and not isinstance(self.alphas, bool):
            return np.linspace(0.0, 1.0, int(self.alphas))
        try:
            a = np.asarray(self.alphas, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"The 'alphas' parameter of {name} must be an int >= 1 or an array of "
                f"numbers. Got {self.alphas!r} instead.") from exc
        if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0):
            raise ValueError(
                f"The 'alphas' parameter of {name} must hold at least one finite value "
                f">= 0. Got {self.alphas!r} instead.")
        return np.unique(a)

    def _check_alpha(self, alpha, what="alpha"):
        try:
            a = float(alpha)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} must be a finite number >= 0. Got {alpha!r}.") from exc
        if not np.isfinite(a) or a < 0:
            raise ValueError(f"{what} must be a finite number >= 0. Got {alpha!r}.")
        return a

    # ------------------------------------------------------------------- fit

    def fit(self, X, y, sample_weight=None):
        """Build the MDP on (X, y) and solve it for every trade-off.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; NaN is allowed (larger than every number), +-inf
            and values beyond float32 range are not.
        y : array-like of shape (n_samples,)
            Class labels of any type.
        sample_weight : array-like of shape (n_samples,), default=None
            Nonnegative, finite weights of the rows, not all zero. Every count
            becomes a sum of weights: the loss is ``sum_i w_i * cost(row i) /
            sum_i w_i``, the tests generating function grows CART with weighted
            impurities (as sklearn's ``DecisionTreeClassifier`` does), and under
            ``complexity='tests'`` a test costs the share of the weight reaching
            it. A whole weight counts as that many copies of the row; rows of
            weight 0 are left out (as if absent; no threshold is placed between
            their values).

        Returns
        -------
        self : DPDTClassifier
            The fitted estimator.
        """
        started = clock()
        self._validate_params()
        alpha = self._check_alpha(self.alpha, "The 'alpha' parameter of DPDTClassifier")
        cart_k = self._cart_depths()
        grid = self._alpha_grid()
        check_shared_params(self)
        data = prepare_fit(self, X, y, sample_weight)
        # the columns holding NaN, which `summary` says a split sends right
        self._nan_columns = np.isnan(data.X).any(axis=0)
        X, y_idx, row_weight, K = data.X, data.y_idx, data.row_weight, data.n_classes
        # the class weights scale the rows of the loss (as in FastSmallTreeClassifier)
        cost, class_w = data.weighted_cost, data.class_w
        if row_weight is not None:
            keep = row_weight > 0
            X, y_idx, row_weight = np.ascontiguousarray(X[keep]), y_idx[keep], row_weight[keep]
        t0 = time.perf_counter()
        deadline = -1.0 if self.time_limit is None else started + float(self.time_limit)
        stopped = 0
        try:
            space = build_space(X, y_idx, deadline)
            if deadline >= 0 and clock() >= deadline:
                # ranked at the deadline: the MDP's buffers over every column
                # would overrun it
                raise PreparationStopped(STOP_TIME_CODE)
        except PreparationStopped as stop:
            # stopped while ranking the columns: the MDP of one constant column,
            # whose root is its only state (the single leaf)
            stopped = stop.code
            space = build_space(np.zeros((X.shape[0], 1), dtype=np.float32), y_idx)
        memory_limit = resolve_memory_limit(self.memory_limit, type(self).__name__)
        n_threads = effective_n_threads(self.n_jobs)
        capacity = store_capacity(X.shape[0])
        # The MDP's fixed buffers are allocated before its build can stop:
        # when they do not fit under the limit, only the root's leaf is built
        # (an MDP of depth 0) and the fit is a memory stop.
        no_room = memory_limit > 0 and process_rss() + fixed_bytes(
            X.shape[0], X.shape[1], cart_k, capacity, K, n_threads) > memory_limit
        mdp = MDP(space, K, cost, [] if no_room else cart_k,
                  CRITERION_ENTROPY if self.criterion == "entropy" else CRITERION_GINI,
                  COMPLEXITY_TESTS if self.complexity == "tests" else COMPLEXITY_LEAVES,
                  GROWTH_DEPTH if self.cart_growth == "depth" else GROWTH_BEST_FIRST,
                  n_threads, capacity=capacity, weights=row_weight,
                  class_weights=None if self.class_weight is None else class_w)
        mdp.refuse_after = getattr(self, "_refuse_growth_after", -1)   # test hook
        code = mdp.build(-1.0 if deadline < 0 else max(deadline - clock(), 0.0),
                         memory_limit, getattr(self, "_memory_reserve", -1))
        if no_room:
            code = STOP_MEMORY_CODE
        if stopped:
            code = stopped
        seconds = time.perf_counter() - t0
        # the MDP's counts are sums of weights: n is their total
        n = X.shape[0] if row_weight is None else row_weight.sum()
        c, l, points = mdp.root_hull()
        # Objective of hull point i at alpha: loss_i + alpha * complexity_i.
        self._hull_loss = l / n
        self._hull_complexity = c / n if self.complexity == "tests" else c
        # Point i is optimal for alpha in [beta_i, beta_{i-1}]; the betas decrease.
        self._betas = ((self._hull_loss[:-1] - self._hull_loss[1:])
                       / (self._hull_complexity[1:] - self._hull_complexity[:-1]))
        # what exporting the hull's trees reads; not kept on the estimator
        fit = SimpleNamespace(
            space=space, mdp=mdp, points=points, cost=cost, user_cost=data.cost,
            class_w=class_w, y_idx=y_idx, X=X,
            # the rows' weights (ones without sample weights: every sum below is
            # then of whole numbers, the unweighted values exactly)
            w=np.ones(X.shape[0]) if row_weight is None else row_weight)
        # Every tree of the root's hull is exported (and re-scored) now, so the
        # fitted estimator keeps no MDP and no training data, and pickles.
        self._hull_trees = [self._tree(fit, i) for i in range(len(points))]
        chosen = np.unique(self._select(grid))
        self.trees_ = [self._hull_trees[i] for i in chosen]
        self.estimator_ = self._hull_trees[self._select(np.array([alpha]))[0]]
        self.pareto_front_ = self._front(fit, chosen)
        stats = mdp.stats()
        stats["seconds"] = seconds
        stats["memory_limit"] = memory_limit
        self.mdp_stats_ = stats
        self.n_states_ = stats["states"]
        self.status_ = STATUS_NAMES[code]
        if self.verbose:
            print(f"[dpdt] states={stats['states']} saved={stats['states_saved']} "
                  f"hull={len(points)} trees={len(self.trees_)} seconds={seconds:.3f} "
                  f"status={self.status_}")
        if code != 0 and getattr(self, "_report_stops", True):
            # a fallback's DPDT (`_report_stops` False) is quiet: its caller
            # takes the trees it returns and reports its own stop
            warn_at_caller(
                f"DPDT stopped ({self.status_}) after {seconds:.3g} s, before its whole "
                f"MDP was built: the trees returned solve the part built "
                f"({stats['states']} states; states not reached are leaves).",
                IncompleteMDPWarning)
        return self

    def _select(self, alphas):
        """Index of the root hull point optimal at each alpha (ties: simpler)."""
        alphas = np.asarray(alphas, dtype=np.float64)
        return (self._betas[None, :] > alphas[:, None]).sum(axis=1)

    def _tree(self, fit, i):
        """The exported tree of root hull point i, re-scored (fit: what `fit`
        built)."""
        split, left, right, depth = fit.mdp.tree(int(fit.points[i]))
        sp = fit.space
        rows = [None] * len(split)
        rows[0] = np.arange(sp.n_rows)
        # Each test is written with CART's threshold: the float32 midpoint between
        # the largest value going left and the smallest going right among the rows
        # reaching the node (the same rows go each way; unseen values in between
        # are split in the middle rather than next to one side).
        feature = np.zeros(len(split), dtype=np.int32)
        threshold = np.zeros(len(split))
        node_split = np.where(split >= 0, np.arange(len(split)), -1)
        for v in range(len(split)):  # preorder: parents come first
            if split[v] < 0:
                continue
            f = sp.split_col[split[v]]
            go_left = sp.row_rank[f, rows[v]] <= split[v] - sp.col_start[f]
            rows[left[v]] = rows[v][go_left]
            rows[right[v]] = rows[v][~go_left]
            feature[v] = f
            threshold[v] = sp.thresholds[split[v]]
            if np.isfinite(threshold[v]):
                col = fit.X[:, f]
                u = np.float64(col[rows[left[v]]].max())
                right_vals = col[rows[right[v]]]
                right_vals = right_vals[~np.isnan(right_vals)]
                if right_vals.size:  # else only NaN goes right: keep the threshold
                    threshold[v] = u / 2.0 + np.float64(right_vals.min()) / 2.0
        tree_space = SimpleNamespace(split_col=feature, thresholds=threshold, y=sp.y)
        est = build_estimator(
            tree_space, (node_split, left, right, depth, rows), self.classes_,
            np.arange(len(self.classes_)), fit.class_w,
            # the counts are class-weighted already: the scores take the user's
            # costs (as in FastSmallTreeClassifier), so their argmax is the label
            # the MDP chose
            None if self.cost_matrix is None else fit.user_cost,
            self.n_features_in_, getattr(self, "feature_names_in_", None),
            row_weight=fit.w)
        # Re-score from the raw data: the exported tree must have the loss the MDP
        # recorded for it.
        pred = np.searchsorted(self.classes_, est.predict(fit.X, check_input=False))
        loss = (fit.w * fit.cost[fit.y_idx, pred]).sum() / fit.w.sum()
        if abs(loss - self._hull_loss[i]) > RESCORE_TOL * max(1.0, fit.cost.max()):
            raise RuntimeError(
                f"fst internal error: a DPDT tree scores {loss!r} but the MDP "
                f"recorded {self._hull_loss[i]!r}.")
        return est

    def _front(self, fit, chosen):
        hi = np.concatenate([[np.inf], self._betas])
        lo = np.concatenate([self._betas, [0.0]])
        trees = [self._hull_trees[i] for i in chosen]
        total = fit.w.sum()
        acc, tests, leaves, depth = [], [], [], []
        for est in trees:
            t = est.tree_
            right = est.predict(fit.X, check_input=False) == self.classes_[fit.y_idx]
            # (a masked sum, not np.dot: BLAS would wake its threads for this)
            acc.append(float(fit.w[right].sum() / total))
            internal = t.children_left >= 0
            # the sample weight reaching each test (the rows when unweighted; not
            # weighted_n_node_samples, which class weights also scale)
            through = fit.w @ est.decision_path(fit.X, check_input=False)
            tests.append(float(through[internal].sum()) / total)
            leaves.append(int(est.get_n_leaves()))
            depth.append(int(est.get_depth()))
        return {
            "alpha_min": lo[chosen],
            "alpha_max": hi[chosen],
            "loss": self._hull_loss[chosen],
            "accuracy": np.asarray(acc),
            "expected_tests": np.asarray(tests),
            "n_leaves": np.asarray(leaves, dtype=np.intp),
            "depth": np.asarray(depth, dtype=np.intp),
        }

    def tree_at(self, alpha):
        """The tree optimal at trade-off ``alpha`` (ties: the simpler tree)."""
        check_is_fitted(self)
        a = self._check_alpha(alpha)
        return self._hull_trees[self._select(np.array([a]))[0]]

    def summary(self, feature_names=None):
        """The front as a table (one row a tree of ``trees_``: its alpha
        interval, training accuracy, expected tests, leaves and depth) and the
        tree of ``estimator_`` (at ``alpha``) as ``export_text`` draws it, with the
        side a missing value goes to said (`fst._export.tree_text`).
        ``feature_names`` default to ``feature_names_in_`` when X had column
        names."""
        check_is_fitted(self, "estimator_")
        names = (getattr(self, "feature_names_in_", None) if feature_names is None
                 else feature_names)
        f = self.pareto_front_
        lines = [f"DPDTClassifier(max_depth={self.max_depth}, cart_depth={self.cart_depth})"
                 f": {len(self.trees_)} trees on the front, status {self.status_}",
                 "  alpha from    alpha to  accuracy  expected tests  leaves  depth"]
        for i in range(len(self.trees_)):
            lines.append(f"  {f['alpha_min'][i]:10.5f}  {f['alpha_max'][i]:10.5f}  "
                         f"{f['accuracy'][i]:8.4f}  {f['expected_tests'][i]:14.3f}  "
                         f"{f['n_leaves'][i]:6d}  {f['depth'][i]:5d}")
        lines.append(f"the tree at alpha = {self.alpha:g} (estimator_): "
                     f"{self.estimator_.get_n_leaves()} leaves, depth "
                     f"{self.estimator_.get_depth()}")
        text = tree_text(self.estimator_, names, getattr(self, "_nan_columns", None))
        return "\n".join(lines) + "\n" + text.rstrip("\n")

    def __str__(self):
        if not hasattr(self, "estimator_"):
            return repr(self)
        return self.summary()

    # ------------------------------------------------------------------ plot

    def plot_front(self, ax=None, complexity=None):
        """Training accuracy of the trees of ``trees_`` against their complexity.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        complexity : {'tests', 'leaves'}, default=None
            The x axis: expected number of tests or leaves; None means the
            estimator's ``complexity``.

        Returns
        -------
        ax : matplotlib Axes
        """
        check_is_fitted(self)
        complexity = self.complexity if complexity is None else complexity
        if complexity not in ("tests", "leaves"):
            raise ValueError(f"complexity must be 'tests' or 'leaves'. Got {complexity!r}.")
        f = self.pareto_front_
        tests = complexity == "tests"
        return draw_front(ax, f["expected_tests"] if tests else f["n_leaves"],
                          f["accuracy"], f["alpha_min"], f["alpha_max"], symbol="α",
                          xlabel="expected number of tests" if tests else "leaves",
                          title=f"DPDT front (max_depth={self.max_depth})",
                          integer_x=not tests)
