"""The certified regularization path: every tree optimal for some lam in a range,
with the exact values of lam at which the optimum changes.

R(lam) = min over trees T of loss(T) + lam * leaves(T) is the lower envelope of
one line per tree, so it is concave and piecewise linear, and each tree of the
envelope is optimal on one interval of lam.  Given the optima A at lam_a and B at
lam_b (lam_a < lam_b, A with more leaves), their lines cross at
lam* = (loss_B - loss_A) / (leaves_A - leaves_B).  A fit at lam* either finds a
tree C below both lines there (a third tree of the envelope, with fewer leaves
than A and more than B; the two halves are explored in turn), or proves that
R(lam*) is the lines' common value: R is then A's line on [lam_a, lam*] and B's on
[lam*, lam_b] (R is at most each line everywhere, equals it at both ends, and is
concave), so lam* is the breakpoint.  A tree's interval is certified when the fits
at both of its ends were.
"""
import time

import numpy as np

from ._classifier import FastSmallTreeClassifier
from ._core._config import TOL
from ._regressor import FastSmallTreeRegressor
from ._plot import draw_front
from ._utils import check_class_weight, check_cost_matrix, fit_params, warn_at_caller
from .exceptions import NotCertifiedWarning

__all__ = ["RegularizationPath", "regularization_path"]

# Two objectives closer than this are equal on the path: each fit's objective is
# within a few of the search's TOL of the optimum, and a breakpoint is exact to
# within this over the slopes.
_PATH_TOL = 10 * TOL


class DeadlinePassed(Exception):
    """A fit of `grid_fits` asked for after its deadline (the value it was for)."""


class _Fit:
    """One certified (or stopped) fit of the path: its lam, its tree's line
    (loss, leaves), whether it was certified, and the fitted estimator;
    ``from_front``: a count of a leaves front read at lam
    (`fst._selection`)."""

    from_front = False

    def __init__(self, lam, clf):
        self.lam = lam
        self.clf = clf
        self.leaves = int(clf.n_leaves_)
        self.loss = float(clf.objective_ - lam * clf.n_leaves_)
        self.optimal = bool(clf.optimal_)

    def at(self, lam):
        return self.loss + lam * self.leaves


class RegularizationPath:
    """The trees of a certified regularization path (`regularization_path`).

    Attributes
    ----------
    trees_ : list of DecisionTreeClassifier
        Each distinct tree optimal on some interval of the range, simplest first
        (fewest leaves, largest lam).
    estimators_ : list of FastSmallTreeClassifier or FastSmallTreeRegressor
        The fit that found each tree of ``trees_`` (its ``objective_``,
        ``lower_bound_`` and ``search_stats_`` at the lam it was fitted at).
    pareto_front_ : dict of ndarray
        One entry per tree of ``trees_``: ``lambda_min`` and ``lambda_max`` (the
        interval where it is optimal; at a breakpoint shared by two trees both
        are, and ``tree_at`` returns the simpler), ``loss`` (training loss / n,
        as the objective counts it), ``accuracy`` (training accuracy, weighted by
        the sample weights; for a regression path ``r2``, the training R^2,
        weighted), ``n_leaves``, ``depth`` and ``optimal`` (True when
        the fits at both ends of its interval were certified, so that the tree is
        proven optimal on the whole interval). ``pandas.DataFrame(pareto_front_)``
        gives a table.
    fits_ : dict of ndarray
        Every fit the path ran at a value of lam, in order: ``lambda``,
        ``objective``, ``optimal``, ``seconds``.
    front_fits_ : dict of ndarray
        The searches of the leaves front the path read its trees from, one a
        count, in order: ``max_leaf_nodes``, ``loss``, ``optimal``, ``seconds``
        (empty when no front was grown: under ``max_depth``).  A tree read
        from the front is the fit of that count's search (``estimators_``:
        regularization 0 under ``max_leaf_nodes``; the single leaf's, a
        regularization above its loss).
    lambda_min, lambda_max : float
        The range searched.
    classes_ : ndarray or None
        None for a regression path.
    """

    def __init__(self, lambda_min, lambda_max, trees, classes, accuracy, log,
                 score_name="accuracy", counts=()):
        self.lambda_min = lambda_min
        self.lambda_max = lambda_max
        self.classes_ = classes
        self._score = score_name
        # trees: (fit, lo, hi, optimal) from the largest tree to the smallest
        trees = trees[::-1]
        self.estimators_ = [f.clf for f, _, _, _ in trees]
        self.trees_ = [f.clf.estimator_ for f, _, _, _ in trees]
        self.pareto_front_ = {
            "lambda_min": np.array([lo for _, lo, _, _ in trees], dtype=float),
            "lambda_max": np.array([hi for _, _, hi, _ in trees], dtype=float),
            "loss": np.array([f.loss for f, _, _, _ in trees], dtype=float),
            score_name: np.array([accuracy(f.clf) for f, _, _, _ in trees], dtype=float),
            "n_leaves": np.array([f.leaves for f, _, _, _ in trees], dtype=np.intp),
            "depth": np.array([f.clf.estimator_.get_depth() for f, _, _, _ in trees],
                              dtype=np.intp),
            "optimal": np.array([ok for _, _, _, ok in trees], dtype=bool),
        }
        self.fits_ = {
            "lambda": np.array([r[0] for r in log], dtype=float),
            "objective": np.array([r[1] for r in log], dtype=float),
            "optimal": np.array([r[2] for r in log], dtype=bool),
            "seconds": np.array([r[3] for r in log], dtype=float),
        }
        self.front_fits_ = {
            "max_leaf_nodes": np.array([r[0] for r in counts], dtype=np.intp),
            "loss": np.array([r[1] for r in counts], dtype=float),
            "optimal": np.array([r[2] for r in counts], dtype=bool),
            "seconds": np.array([r[3] for r in counts], dtype=float),
        }

    @property
    def n_trees_(self):
        return len(self.trees_)

    @property
    def optimal_(self):
        """True when every tree of the path is certified on its whole interval."""
        return bool(self.pareto_front_["optimal"].all())

    def _index_at(self, lam):
        lam = float(lam)
        if not np.isfinite(lam) or lam < self.lambda_min - _PATH_TOL \
                or lam > self.lambda_max + _PATH_TOL:
            raise ValueError(
                f"lam={lam!r} is outside the path's range [{self.lambda_min!r}, "
                f"{self.lambda_max!r}].")
        # simplest first: the first tree whose interval reaches down to lam (at a
        # shared breakpoint, the simpler tree)
        lo = self.pareto_front_["lambda_min"]
        return int(np.flatnonzero(lo <= lam + _PATH_TOL)[0])

    def tree_at(self, lam):
        """The tree optimal at ``lam`` (at a breakpoint, the simpler of the two)."""
        return self.trees_[self._index_at(lam)]

    def estimator_at(self, lam):
        """The FastSmallTreeClassifier fit whose tree ``tree_at(lam)`` returns."""
        return self.estimators_[self._index_at(lam)]

    def __repr__(self):
        f = self.pareto_front_
        lines = [f"RegularizationPath({self.n_trees_} trees on lambda in "
                 f"[{self.lambda_min:g}, {self.lambda_max:g}], "
                 f"{'certified' if self.optimal_ else 'not all certified'})"]
        for i in range(self.n_trees_):
            lines.append(f"  [{f['lambda_min'][i]:.6g}, {f['lambda_max'][i]:.6g}]  "
                         f"leaves={f['n_leaves'][i]}  loss={f['loss'][i]:.6g}  "
                         f"{self._score}={f[self._score][i]:.4f}"
                         + ("" if f["optimal"][i] else "  (not certified)"))
        return "\n".join(lines)

    def plot_front(self, ax=None):
        """Training accuracy (R^2 for regression) of the trees of ``trees_``
        against their leaves,
        each point labelled with its lambda interval (hollow: not certified).

        Returns
        -------
        ax : matplotlib Axes
        """
        f = self.pareto_front_
        return draw_front(ax, f["n_leaves"], f[self._score], f["lambda_min"],
                          f["lambda_max"], symbol="λ", xlabel="leaves",
                          title="FastSmallTree regularization path", integer_x=True,
                          certified=f["optimal"],
                          ylabel="training R²" if self._score == "r2"
                          else "training accuracy")


def regularization_path(X, y, *, lambda_min=0.005, lambda_max=None, max_depth=None,
                        min_samples_leaf=1, max_leaf_nodes=None, cost_matrix=None,
                        class_weight=None, sample_weight=None, time_limit=60.0,
                        memory_limit="auto", n_jobs=1, task="classification"):
    """Every optimal tree for lam in [lambda_min, lambda_max], with the exact
    values of lam where the optimum changes.

    The optimal objective ``R(lam) = min_T loss(T) + lam * leaves(T)`` is
    concave and piecewise linear in lam; the path fits FastSmallTreeClassifier
    (FastSmallTreeRegressor with ``task='regression'``) at both ends of the
    range, then at the point where the lines of two neighbouring trees cross:
    either a third tree is better there (and both halves are explored), or that
    point is the breakpoint between the two. With
    every fit certified, the path is exact: each tree is proven optimal on its
    whole interval, and no tree is missing between two breakpoints.

    Without ``max_depth``, after the fit at ``lambda_min`` the path grows a
    leaves front (`leaves_front`'s searches, one count after another) for at
    most half that fit's seconds (none where it did not certify or took under
    half a second; at most ``time_limit``): where
    its counts are certified, every tree of at most their leaves is valued at
    every lam, and the fit at ``lambda_min`` bounds every larger tree above it
    (a tree of more leaves gains no ground as lam rises), so from the least
    lam the front covers up to ``lambda_max`` the path is read from the front
    with no fit; usually that is the whole range once the front reaches the
    leaves of ``lambda_min``'s tree. Below it, the path fits as above, about
    two fits a tree.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    lambda_min : float, default=0.005
        The smallest regularization of the range (> 0 without ``max_depth`` or
        ``max_leaf_nodes``: at 0 every leaf is free and the search is
        unbounded).
    lambda_max : float, default=None
        The largest; None means the loss of the single leaf, above which the
        single leaf is optimal.
    max_depth, min_samples_leaf, max_leaf_nodes, cost_matrix, class_weight :
        As for FastSmallTreeClassifier (under ``max_leaf_nodes`` the path holds
        the optimal trees of at most that many leaves).
    sample_weight : array-like of shape (n_samples,), default=None
    time_limit : float or None, default=60.0
        Seconds for each fit. A fit stopped at it leaves the trees whose
        intervals end there not certified (``pareto_front_['optimal']``), and a
        NotCertifiedWarning is issued once for the path.
    memory_limit, n_jobs :
        As for FastSmallTreeClassifier, for each fit.
    task : {'classification', 'regression'}, default='classification'
        'regression': the path of FastSmallTreeRegressor (loss ``1 - R^2``; the
        single leaf's is 1, the default ``lambda_max``); ``cost_matrix`` and
        ``class_weight`` do not apply.

    Returns
    -------
    path : RegularizationPath
        ``trees_`` (native scikit-learn trees, simplest first),
        ``pareto_front_``, ``tree_at(lam)``, ``plot_front()``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from fst import regularization_path
    >>> X, y = load_iris(return_X_y=True)
    >>> path = regularization_path(X, y, lambda_min=0.01)
    >>> path.pareto_front_["n_leaves"].tolist()
    [1, 2, 3, 4]
    """
    regression = check_task(task, cost_matrix, class_weight)
    lambda_min = _check_lambda(lambda_min, "lambda_min")
    if lambda_min == 0 and max_depth is None and max_leaf_nodes is None:
        raise ValueError(
            "lambda_min=0 needs max_depth or max_leaf_nodes: without a size limit every "
            "leaf is free at lam=0 and the search is unbounded. Set lambda_min > 0, "
            "max_depth or max_leaf_nodes.")
    params = fit_params(dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                             max_leaf_nodes=max_leaf_nodes,
                             cost_matrix=cost_matrix,
                             class_weight=class_weight, time_limit=time_limit,
                             memory_limit=memory_limit, n_jobs=n_jobs))
    if regression:
        del params["cost_matrix"], params["class_weight"]
    log = []
    uncertified = []
    estimator = FastSmallTreeRegressor if regression else FastSmallTreeClassifier
    fit = _fitter(X, y, sample_weight, params, log, uncertified, estimator)

    low = fit(lambda_min)
    lambda_max = _upper_lambda(lambda_max, lambda_min, low, y, cost_matrix, class_weight,
                               sample_weight, regression)
    out, counts = None, []
    if max_depth is None and lambda_max > lambda_min:
        # above the least lam a leaves front covers, its trees need no fit
        # (`fst._selection`; imported here, as it reads this module)
        from ._selection import front_path

        out, counts = front_path(low, log[0][3], lambda_max, fit, estimator, params, X, y,
                                 sample_weight, regression)
    if out is None:
        high = fit(lambda_max) if lambda_max > lambda_min else low
        # breakpoints: (lam, certified) between consecutive trees, found left to right
        trees = [low]
        cuts = []
        _explore(low, high, fit, trees, cuts)
        out = _intervals(trees, [(lambda_min, low.optimal)] + cuts
                         + [(lambda_max, high.optimal)])
    if uncertified:
        warn_at_caller(
            f"{len(set(uncertified))} of the path's {len(log)} fits stopped before "
            f"certifying (time_limit={time_limit!r}); the trees whose intervals end "
            f"at them are marked optimal=False in pareto_front_. Raise time_limit "
            f"(None: no limit) to certify them.", NotCertifiedWarning)
    return _path(lambda_min, lambda_max, out, low, log, counts, X, y, sample_weight,
                 regression)


def _path(lambda_min, lambda_max, intervals, low, log, counts, X, y, sample_weight,
          regression):
    """The `RegularizationPath` of the intervals found (training R^2 under
    regression, accuracy else)."""
    score = _training_score(X, y, sample_weight, regression)
    if regression:
        return RegularizationPath(lambda_min, lambda_max, intervals, None, score, log, "r2",
                                  counts)
    return RegularizationPath(lambda_min, lambda_max, intervals, low.clf.classes_, score,
                              log, counts=counts)


def _upper_lambda(lambda_max, lambda_min, low, y, cost_matrix, class_weight, sample_weight,
                  regression):
    """The path's largest lam: `lambda_max` checked, or by default the single
    leaf's loss (the regressor's is 1 by its scaling), above which the single
    leaf is optimal; `low` is the fit at `lambda_min`."""
    if lambda_max is None:
        leaf = (1.0 if regression
                else _leaf_loss(low.clf, y, cost_matrix, class_weight, sample_weight))
        return max(leaf, lambda_min)
    lambda_max = _check_lambda(lambda_max, "lambda_max")
    if lambda_max < lambda_min:
        raise ValueError(f"lambda_max={lambda_max!r} is below lambda_min={lambda_min!r}.")
    return lambda_max


def _training_score(X, y, sample_weight, regression):
    """The path's score of a fitted tree on its training rows: R^2 for the
    regressor, the (weighted) accuracy for the classifier."""
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    if regression:
        def r2(reg):
            return float(reg.score(X, y, sample_weight=w))

        return r2

    def accuracy(clf):
        right = clf.predict(X) == np.asarray(y)
        return float(np.mean(right) if w is None else (w * right).sum() / w.sum())

    return accuracy


def check_task(task, cost_matrix, class_weight):
    """Whether `task` (a path's or a front's) is 'regression', where
    cost_matrix and class_weight do not apply; a ValueError for any other task
    than 'classification'."""
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression'; got {task!r}.")
    regression = task == "regression"
    if regression and (cost_matrix is not None or class_weight is not None):
        raise ValueError("cost_matrix and class_weight do not apply to task='regression'.")
    return regression


def _intervals(trees, ends):
    """(fit, lo, hi, certified) for each tree of the path: its interval between
    its two ends (lam, certified), the first tree's end at lambda_min and the
    last's at lambda_max, certified when the fits at both ends are."""
    out = []
    for i, f in enumerate(trees):
        (lo, lo_ok), (hi, hi_ok) = ends[i], ends[i + 1]
        if hi - lo <= _PATH_TOL and i + 1 < len(trees):
            # a tree optimal on no more than a point (two trees of equal loss,
            # tied at lam = lo): the simpler next one takes its end, as at any
            # end two trees share
            ends[i + 1] = (lo, lo_ok and hi_ok)
            continue
        out.append((f, lo, hi, lo_ok and hi_ok))
    return out


def _fitter(X, y, sample_weight, params, log, uncertified,
            estimator=FastSmallTreeClassifier, deadline=None):
    """fit(lam) -> _Fit: a fit of `estimator` (FastSmallTreeClassifier or
    FastSmallTreeRegressor) at lam, logged as (lam, objective, certified,
    seconds); a stopped fit's lam goes to `uncertified` (the fit does not warn:
    the caller warns once).  `deadline` (a time.perf_counter() value): every fit
    stops by then, its time limit cut to the seconds left; a fit asked for
    after it raises DeadlinePassed."""

    def fit(lam):
        clf = estimator(regularization=lam, **params)
        if deadline is not None:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise DeadlinePassed(lam)
            limit = clf.time_limit
            clf.set_params(time_limit=left if limit is None else min(limit, left))
        clf._report_stops = False
        t0 = time.perf_counter()
        clf.fit(X, y, sample_weight=sample_weight)
        if not clf.optimal_:
            uncertified.append(lam)
        log.append((lam, float(clf.objective_), bool(clf.optimal_),
                    time.perf_counter() - t0))
        return _Fit(lam, clf)

    return fit


def grid_fits(X, y, lams, params, sample_weight=None, on_value=None,
              estimator=FastSmallTreeClassifier, deadline=None, front=None):
    """The optimum at each value of the sorted grid `lams`, with fewer fits where
    the path allows: when the fits at lams[i] < lams[j] are certified and return
    the same line, that tree is optimal on all of [lams[i], lams[j]] (R is at most
    its line everywhere, equals it at both ends, and is concave), so the values
    between need no fit; otherwise the middle value is fitted and both halves
    follow.  `on_value(i, fit, seconds)` is called as each value's tree is
    settled (seconds: of the fit at lams[i], 0 when it needed none).  Returns
    (one _Fit per value, certified at it; the fit log; the lams of stopped fits).
    `estimator`: FastSmallTreeClassifier or FastSmallTreeRegressor; `deadline`
    as for `_fitter`; `front`: None, or `front(low, seconds)` called after the
    fit at the least value (`low`, which took `seconds`), returning a
    `fst._selection.FrontCover` whose covered values are settled from it
    before any other fit."""
    log, uncertified = [], []
    fit = _fitter(X, y, sample_weight, params, log, uncertified, estimator, deadline)
    n = len(lams)
    out = [None] * n
    ok = [False] * n

    def settle(i, f, fitted):
        out[i], ok[i] = f, f.optimal
        if on_value is not None:
            on_value(i, f, log[-1][3] if fitted else 0.0)

    settle(0, fit(float(lams[0])), True)
    if n > 1 and front is not None:
        cover = front(out[0], log[-1][3])
        for i in range(1, n):
            f = cover.at(float(lams[i])) if cover.K else None
            if f is not None and f.optimal:          # the front covers lams[i]
                settle(i, f, False)
    if n > 1 and out[-1] is None:
        settle(n - 1, fit(float(lams[-1])), True)
    settled = [i for i in range(n) if out[i] is not None]
    for i, j in zip(settled, settled[1:]):
        fill_between(i, j, out, lams, fit, settle)
    return out, ok, log, uncertified


def fill_between(i, j, out, lams, fit, settle):
    """Settle the values of `lams` strictly between i and j, whose fits `out[i]`
    and `out[j]` are settled: all of them by out[i]'s tree when the two are
    certified and return the same line (R is at most that line everywhere,
    equals it at both ends, and is concave), else the middle value fitted
    (`fit(lam)`; `settle(k, fit, fitted)`) and both halves in turn."""
    if j - i <= 1:
        return
    if _same(out[i], out[j]) and out[i].optimal and out[j].optimal:
        for k in range(i + 1, j):
            settle(k, out[i], False)
        return
    m = (i + j) // 2
    settle(m, fit(float(lams[m])), True)
    fill_between(i, m, out, lams, fit, settle)
    fill_between(m, j, out, lams, fit, settle)


def _explore(a, b, fit, trees, cuts):
    """The envelope from a (fitted at the smaller lam; trees[-1] on entry) to b:
    appends the trees after a, b last, to `trees` and the breakpoint between
    each two to `cuts` as (lam, certified)."""
    if _same(a, b):
        return          # one line: a's interval reaches b's fit
    if a.leaves <= b.leaves:
        # only a stopped fit breaks the envelope's order: the cut is placed at
        # b's fit, not certified
        cuts.append((b.lam, False))
        trees.append(b)
        return
    lam = (b.loss - a.loss) / (a.leaves - b.leaves)
    if not a.lam + _PATH_TOL < lam < b.lam - _PATH_TOL:
        # the lines of two optima cross between their fits: at one of them, that
        # fit is the breakpoint (both trees are optimal there); only a stopped
        # fit puts the crossing further out (the cut is then clamped)
        inside = a.lam - _PATH_TOL <= lam <= b.lam + _PATH_TOL
        cuts.append((min(max(lam, a.lam), b.lam), inside and a.optimal and b.optimal))
        trees.append(b)
        return
    c = fit(lam)
    if c.at(lam) < a.at(lam) - _PATH_TOL and b.leaves < c.leaves < a.leaves:
        _explore(a, c, fit, trees, cuts)
        _explore(c, b, fit, trees, cuts)
        return
    # no tree below both lines at their crossing: it is the breakpoint, proven
    # when that fit and the two at the ends were certified
    cuts.append((lam, c.optimal and a.optimal and b.optimal))
    trees.append(b)


def _same(a, b):
    """The same line: equal leaves and loss (a tree and its equals on the path)."""
    return a.leaves == b.leaves and abs(a.loss - b.loss) <= _PATH_TOL


def _leaf_loss(clf, y, cost_matrix, class_weight, sample_weight):
    """The single leaf's loss / n under the fit's costs and weights: from this lam
    on the leaf is optimal (any split costs two leaves, and no loss is below 0)."""
    classes = clf.classes_
    y_idx = np.searchsorted(classes, np.asarray(y).reshape(-1))
    K = len(classes)
    cost = check_cost_matrix(cost_matrix, K, "regularization_path")
    cost = check_class_weight(class_weight, classes, np.asarray(y).reshape(-1),
                              "regularization_path")[:, None] * cost
    w = (np.ones(len(y_idx)) if sample_weight is None
         else np.asarray(sample_weight, dtype=float).reshape(-1))
    per_label = np.array([(w * cost[y_idx, j]).sum() for j in range(K)]) / w.sum()
    return float(per_label.min())


def _check_lambda(value, name):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number >= 0. Got {value!r}.") from None
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0. Got {value!r}.")
    return value
