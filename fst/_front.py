"""The leaves front: for each number of leaves k up to a cap K, the least
training loss L_k of a tree of at most k leaves, each proven by a search under
that leaf cap at regularization 0 (the depth-limited engine under
``max_leaf_nodes``, a tree of k leaves having depth at most k - 1).

What holds between the counts:

* L_k does not increase with k: a tree of at most k - 1 leaves has at most k,
  so the tree found for k - 1 serves k where the search for k stopped at a
  worse one, and a bound proven for k bounds every smaller count.
* Every tree loses at least the floor m: rows with identical features (as
  float32, the values a fitted tree compares) share every leaf, so each such
  group costs at least its cheapest prediction (`_loss_floor`).  Once L_k = m
  is proven, every larger count has the same least loss.

The regularization path read from the front: the optimum at lam is
R(lam) = min over trees T of loss(T) + lam * leaves(T).  A tree of at most K
leaves is worth at least L_k + lam * k for its count k, and a tree of more
than K leaves at least m + (K + 1) lam.  Where the front's best line
min_k L_k + lam * k is at most that, R(lam) is the front's lower convex hull
at lam (`lambda_cover_` is the least such lam), so every tree of the path over
those lam comes from the front without a fit at any lam.  A tree of the path is
certified on its interval when, at both of its ends, its line is at most every
count's proven bound plus lam a leaf, and at most m + (K + 1) lam: the excess
of a line over the least of those lines is convex in lam, so it is at most 0
between two points where it is.
"""
import numbers
import time

import numpy as np
from sklearn.utils import check_array

from ._classifier import FastSmallTreeClassifier
from ._core._limits import clock
from ._engine import MemoShare
from ._path import _PATH_TOL, RegularizationPath, _check_lambda, _Fit, check_task
from ._plot import draw_front
from ._regressor import FastSmallTreeRegressor
from ._utils import (check_row_weights, fit_params, floor_below, group_loss_floor,
                     prepare_fit, warn_at_caller)
from .exceptions import NotCertifiedWarning

__all__ = ["LeavesFront", "leaves_front"]


class LeavesFront:
    """The least training loss for each number of leaves (`leaves_front`).

    Attributes
    ----------
    front_ : dict of ndarray
        One entry per leaf count ``k = 1 .. max_leaf_nodes``: ``n_leaves`` (k),
        ``loss`` (the training loss / n, as the objective counts it, of the best
        tree found of at most k leaves: ``trees_[k - 1]``), ``lower_bound`` (a
        proven lower bound on the least loss of any tree of at most k leaves),
        ``optimal`` (the two meet: ``loss`` is the least), ``tree_leaves``
        (that tree's leaves, at most k), ``depth``, and ``accuracy`` (``r2``
        for regression; training scores, weighted by the sample weights).
        ``pandas.DataFrame(front_)`` gives a table.
    trees_ : list of DecisionTreeClassifier or DecisionTreeRegressor
        The tree of each count (the same tree where a count adds nothing).
    estimators_ : list of FastSmallTreeClassifier or FastSmallTreeRegressor
        The fit that found each tree of ``trees_``.
    fits_ : dict of ndarray
        Every fit run, in order: ``max_leaf_nodes``, ``loss``, ``optimal``,
        ``seconds``.
    loss_floor_ : float
        The least loss of any tree (rows with identical features share a leaf).
    lambda_cover_ : float
        The least regularization from which no tree of more leaves than the
        front's cap is better than the front's best: from there up, the optimum
        over every tree is one of ``trees_`` where the front is certified, and
        ``regularization_path()`` starts there.
    classes_ : ndarray or None
        None for a regression front.
    """

    def __init__(self, entries, floor, most, log, classes, score_name):
        self._most = most            # no tree has more leaves (None: no cap known)
        self.classes_ = classes
        self._score = score_name
        self.loss_floor_ = float(floor)
        self.trees_ = [e["fit"].clf.estimator_ for e in entries]
        self.estimators_ = [e["fit"].clf for e in entries]
        self._fits = [e["fit"] for e in entries]
        self._log = log
        self.front_ = {
            "n_leaves": np.arange(1, len(entries) + 1, dtype=np.intp),
            "loss": np.array([e["fit"].loss for e in entries], dtype=float),
            "lower_bound": np.array([e["lower"] for e in entries], dtype=float),
            "optimal": np.array([e["fit"].loss - e["lower"] <= _PATH_TOL for e in entries],
                                dtype=bool),
            "tree_leaves": np.array([e["fit"].leaves for e in entries], dtype=np.intp),
            "depth": np.array([t.get_depth() for t in self.trees_], dtype=np.intp),
            score_name: np.array([e["score"] for e in entries], dtype=float),
        }
        self.fits_ = {
            "max_leaf_nodes": np.array([r[0] for r in log], dtype=np.intp),
            "loss": np.array([r[1] for r in log], dtype=float),
            "optimal": np.array([r[2] for r in log], dtype=bool),
            "seconds": np.array([r[3] for r in log], dtype=float),
        }
        self.lambda_cover_ = self._cover()

    @property
    def max_leaf_nodes(self):
        """The front's largest number of leaves."""
        return len(self.trees_)

    @property
    def optimal_(self):
        """True when the least loss of every count is proven."""
        return bool(self.front_["optimal"].all())

    def _beyond(self, lam):
        """A lower bound on every tree of more than max_leaf_nodes leaves at lam
        (inf where no such tree exists)."""
        K = self.max_leaf_nodes
        if self._most is not None and self._most <= K:
            return np.inf
        return self.loss_floor_ + (K + 1) * lam

    def _cover(self):
        """The least lam >= 0 at which the front's best line is at most the
        bound of the trees beyond it: min over k of (L_k - m) / (K + 1 - k)."""
        if not np.isfinite(self._beyond(0.0)):
            return 0.0
        K = self.max_leaf_nodes
        k = self.front_["n_leaves"]
        excess = np.maximum(self.front_["loss"] - self.loss_floor_, 0.0)
        return float(max((excess / (K + 1 - k)).min(), 0.0))

    def _certified_at(self, fit, lam):
        """Whether fit's line is the least of every tree's at lam, from the
        proven bounds (each count's, and the trees beyond the cap)."""
        f = self.front_
        least = min(float((f["lower_bound"] + lam * f["n_leaves"]).min()), self._beyond(lam))
        return fit.at(lam) <= least + _PATH_TOL

    def regularization_path(self, lambda_min=None, lambda_max=None):
        """The regularization path read from the front, without a fit: the
        front's lower convex hull over [lambda_min, lambda_max].

        Parameters
        ----------
        lambda_min : float, default=None
            None: ``lambda_cover_``. Below it a tree of more leaves than the
            front holds may be better; the path is still drawn from the front's
            trees there, and its trees are not certified.
        lambda_max : float, default=None
            None: the single leaf's loss, above which the single leaf is optimal.

        Returns
        -------
        path : RegularizationPath
            As `regularization_path` returns, with ``fits_`` empty.  Each tree is
            optimal on its interval where ``pareto_front_['optimal']``; where
            several trees are optimal at some lam it may be another of them than
            a fit at that lam returns (a fit compares leaves node by node).
        """
        lo = self.lambda_cover_ if lambda_min is None else _check_lambda(lambda_min,
                                                                         "lambda_min")
        hi = (max(float(self.front_["loss"][0]), lo) if lambda_max is None
              else _check_lambda(lambda_max, "lambda_max"))
        if hi < lo:
            raise ValueError(f"lambda_max={hi!r} is below lambda_min={lo!r}.")
        out = envelope(self._fits, lo, hi)
        trees = [(f, a, b, self._certified_at(f, a) and self._certified_at(f, b))
                 for f, a, b in out]
        # each tree's training score, as the front measured it
        scores = {id(e): v for e, v in zip(self.estimators_, self.front_[self._score])}
        return RegularizationPath(lo, hi, trees, self.classes_,
                                  lambda est: scores[id(est)], [], self._score, self._log)

    def __repr__(self):
        f = self.front_
        lines = [f"LeavesFront(1 to {self.max_leaf_nodes} leaves, "
                 f"{'certified' if self.optimal_ else 'not all certified'}, "
                 f"lambda_cover={self.lambda_cover_:.6g})"]
        for i in range(self.max_leaf_nodes):
            state = ("" if f["optimal"][i]
                     else f"  (not certified: lower bound {f['lower_bound'][i]:.6g})")
            lines.append(f"  leaves<={f['n_leaves'][i]}  loss={f['loss'][i]:.6g}  "
                         f"{self._score}={f[self._score][i]:.4f}  "
                         f"tree: {f['tree_leaves'][i]} leaves, depth {f['depth'][i]}"
                         + state)
        return "\n".join(lines)

    def plot_front(self, ax=None):
        """Training accuracy (R^2 for regression) of the best tree of at most
        each number of leaves, hollow where its loss is not proven least.

        Returns
        -------
        ax : matplotlib Axes
        """
        f = self.front_
        return draw_front(ax, f["n_leaves"], f[self._score], None, None, symbol="",
                          xlabel="at most this many leaves",
                          title="FastSmallTree leaves front", integer_x=True,
                          certified=f["optimal"],
                          ylabel="training R²" if self._score == "r2"
                          else "training accuracy")


def envelope(fits, lo, hi):
    """The lower envelope over [lo, hi] of the lines of `fits` (`_Fit`, each
    loss + lam * leaves): (fit, a, b) for each tree optimal among them on [a, b],
    from lo up.  Among equal lines the first of `fits` is kept; at a crossing the
    simpler tree holds the point, and a tree optimal at no more than one point
    is kept only at hi."""
    lines = {}
    for fit in fits:
        if fit.leaves not in lines or fit.loss < lines[fit.leaves].loss - _PATH_TOL:
            lines[fit.leaves] = fit
    lines = [lines[j] for j in sorted(lines)]

    def best_at(lam):
        value = min(f.at(lam) for f in lines)
        return next(f for f in lines if f.at(lam) <= value + _PATH_TOL)

    # walk the lower envelope from hi down to lo: the next tree takes over
    # where the line of more leaves crossing the current one highest does
    out = []
    cur, top = best_at(hi), hi
    while True:
        nxt, at = None, lo
        for f in lines:
            if f.leaves > cur.leaves:
                cross = (cur.loss - f.loss) / (f.leaves - cur.leaves)
                if cross > at + _PATH_TOL or (nxt is not None and cross >= at - _PATH_TOL
                                              and f.leaves > nxt.leaves):
                    nxt, at = f, cross
        if nxt is None:
            out.append((cur, lo, top))
            break
        if at >= top - _PATH_TOL:
            # cur is optimal at top alone: kept there only at hi (below, the
            # simpler tree before it holds that point)
            if not out:
                out.append((cur, top, top))
            cur = nxt
            continue
        out.append((cur, at, top))
        cur, top = nxt, at
    return out[::-1]


def leaves_front(X, y, *, max_leaf_nodes=8, max_depth=None, min_samples_leaf=1,
                 cost_matrix=None, class_weight=None, sample_weight=None,
                 time_limit=60.0, memory_limit="auto", n_jobs=1, task="classification"):
    """The least training loss of a tree of at most k leaves, for every k up to
    ``max_leaf_nodes``, each proven by a search under that leaf cap.

    The count k is searched by FastSmallTreeClassifier (FastSmallTreeRegressor
    with ``task='regression'``) at ``regularization=0`` with
    ``max_leaf_nodes=k``, from 2 up (the single leaf needs no search).  A count
    whose search stopped keeps the best tree of a smaller count where that is
    better, and the bound of a larger count where that is higher (the least
    loss does not increase with the leaves).  Once a count reaches the least
    loss any tree has (``loss_floor_``), the larger counts take its tree
    without a search; under ``max_depth = d`` no tree has more than 2^d leaves.

    From the front, ``LeavesFront.regularization_path()`` reads the optimal
    tree of every regularization from ``lambda_cover_`` up, with no further fit.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    max_leaf_nodes : int >= 1, default=8
        The largest number of leaves of the front.
    max_depth, min_samples_leaf, cost_matrix, class_weight :
        As for FastSmallTreeClassifier (the front of the trees of at most that
        depth).
    sample_weight : array-like of shape (n_samples,), default=None
    time_limit : float or None, default=60.0
        Seconds for the whole front: each count's search gets an equal share of
        what is left when it starts, so the time a small count does not use goes
        to the larger ones. A count stopped by it is not certified
        (``front_['optimal']``), and a NotCertifiedWarning is issued once.
    memory_limit, n_jobs :
        As for FastSmallTreeClassifier, for each search.
    task : {'classification', 'regression'}, default='classification'
        'regression': the loss is FastSmallTreeRegressor's (``1 - R^2``);
        ``cost_matrix`` and ``class_weight`` do not apply.

    Returns
    -------
    front : LeavesFront
        ``front_``, ``trees_``, ``regularization_path()``, ``plot_front()``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from fst import leaves_front
    >>> X, y = load_iris(return_X_y=True)
    >>> front = leaves_front(X, y, max_leaf_nodes=4)
    >>> (front.front_["loss"] * len(y)).round().astype(int).tolist()
    [100, 50, 6, 3]
    >>> front.optimal_
    True
    """
    regression, K, time_limit = _check_front_args(task, cost_matrix, class_weight,
                                                  max_leaf_nodes, time_limit)
    started = time.perf_counter()
    params = fit_params(dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                             max_leaf_nodes=None, cost_matrix=cost_matrix,
                             class_weight=class_weight, time_limit=time_limit,
                             memory_limit=memory_limit, n_jobs=n_jobs))
    estimator = FastSmallTreeRegressor if regression else FastSmallTreeClassifier
    if regression:
        del params["cost_matrix"], params["class_weight"]
    counts = _Counts(estimator, params, X, y, sample_weight, regression)
    data = counts.data
    log = []

    def fit(k, seconds):
        t0 = time.perf_counter()
        out, lower = counts(k, seconds)
        log.append((k, out.loss, bool(out.clf.optimal_), time.perf_counter() - t0))
        return out, lower

    most = None if max_depth is None else 2 ** int(max_depth)
    entries = _front_counts(fit, K, most, data.floor, time_limit, started)
    _tighten(entries, data)
    if not all(e["lower"] >= e["fit"].loss - _PATH_TOL for e in entries):
        warn_at_caller(
            f"the leaves front stopped before proving every count's least loss "
            f"(time_limit={time_limit!r}); see front_['optimal'] and "
            f"front_['lower_bound']. Raise time_limit (None: no limit) to certify them.",
            NotCertifiedWarning)
    return LeavesFront(entries, data.floor, most, log,
                       None if regression else entries[0]["fit"].clf.classes_,
                       "r2" if regression else "accuracy")


class _Counts:
    """The searches of a front's counts on one data set: ``counts(k, seconds)``
    fits `estimator` at regularization 0 under ``max_leaf_nodes=k`` (the single
    leaf for k = 1) for at most `seconds` (None: no limit) and returns its
    `_Fit` and the proven bound on the least loss of a tree of at most k
    leaves.  The counts share one store of the engine's searched nodes: a node
    below the root is the subproblem (rows, depth left, leaf cap) whatever the
    root's cap, so each count answers from the nodes of the counts before.
    ``data`` holds the single leaf's loss, the floor and the training score
    (`_prepare`)."""

    def __init__(self, estimator, params, X, y, sample_weight, regression):
        self._estimator = estimator
        self._params = params
        self._Xy = (X, y, sample_weight)
        first = estimator(regularization=0.0, **params)
        self.data = _prepare(first, X, y, sample_weight, regression)
        # a classifier's counts are fitted on the preamble `_prepare` ran once
        # (X and y checked, the classes and costs read): the same data for each
        self._first = None if regression else first
        self._share = MemoShare()

    def __call__(self, k, seconds):
        X, y, sample_weight = self._Xy
        # the single leaf: any lam above its loss makes it the optimum (a split
        # pays two leaves)
        lam = 0.0 if k > 1 else 2.0 * self.data.leaf + 1.0
        est = self._estimator(regularization=lam, **dict(
            self._params, max_leaf_nodes=k if k > 1 else None, time_limit=seconds))
        est._report_stops = False
        est._overrides = {"engine_memo": self._share}
        if self._first is None:
            est.fit(X, y, sample_weight=sample_weight)
        else:
            started = clock()
            lam = est._check_params()
            for name in ("classes_", "n_features_in_", "feature_names_in_"):
                if hasattr(self._first, name):
                    setattr(est, name, getattr(self._first, name))
            est._fit_prepared(self.data.prepared, lam, sample_weight, started)
        del est._overrides          # the shared store is the front's, not the fit's
        # at lam = 0 the bound is on the loss itself; no tree of one leaf loses
        # less than the single leaf's least loss (its tree's loss, to within a
        # rounding: `_tighten` takes the lesser)
        lower = self.data.leaf if k == 1 else float(est.lower_bound_)
        return _Fit(lam, est), lower


def _check_front_args(task, cost_matrix, class_weight, max_leaf_nodes, time_limit):
    """`leaves_front`'s own arguments checked: whether it is a regression, the
    largest count K and the time limit as a float (or None)."""
    regression = check_task(task, cost_matrix, class_weight)
    if (not isinstance(max_leaf_nodes, numbers.Integral) or isinstance(max_leaf_nodes, bool)
            or max_leaf_nodes < 1):
        raise ValueError(f"max_leaf_nodes must be an integer >= 1. Got {max_leaf_nodes!r}.")
    if time_limit is not None:
        try:
            time_limit = float(time_limit)
        except (TypeError, ValueError):
            time_limit = np.nan
        if not time_limit > 0 or not np.isfinite(time_limit):
            raise ValueError(f"time_limit must be a positive number of seconds or None. "
                             f"Got {time_limit!r}.")
    return regression, int(max_leaf_nodes), time_limit


def _front_counts(fit, K, most, floor, time_limit, started):
    """The front's entries for the counts 1 to K, each {"fit": _Fit, "lower":
    its bound}: `fit(k, seconds)` searches count k with an equal share of the
    time left; a count needs no search once the count before reached the
    floor (proven) or past `most` (2^max_depth) leaves, and after Ctrl-C or the
    time limit it keeps the count before's tree with the floor as its bound."""
    entries = []
    interrupted = False
    for k in range(1, K + 1):
        prev = entries[-1] if entries else None
        if interrupted:
            # Ctrl-C ends the front: the larger counts keep the last tree
            entries.append(dict(prev, lower=floor))
            continue
        if prev is not None and (
                (prev["lower"] >= prev["fit"].loss - _PATH_TOL
                 and prev["fit"].loss <= floor + _PATH_TOL)
                or (most is not None and k > most)):
            # no tree does better than the floor, or has more leaves than 2^d
            entries.append(dict(prev))
            continue
        left = None
        if time_limit is not None:
            left = time_limit - (time.perf_counter() - started)
            if left <= 0 and prev is not None:
                entries.append(dict(prev, lower=floor))
                continue
            left = max(left, 1e-3) / (K - k + 1)
        f, lower = fit(k, left)
        interrupted = f.clf.status_ == "interrupted"
        if prev is not None and prev["fit"].loss < f.loss - _PATH_TOL:
            f = prev["fit"]         # a stopped search: the smaller count's tree is better
        entries.append({"fit": f, "lower": max(lower, floor)})
    return entries


def _tighten(entries, data):
    """Each count's bound raised to the larger counts' (a bound of k bounds
    every smaller count) and lowered to its tree's loss; its training score."""
    for k in range(len(entries) - 2, -1, -1):
        entries[k]["lower"] = max(entries[k]["lower"], entries[k + 1]["lower"])
    for e in entries:
        e["lower"] = min(e["lower"], e["fit"].loss)
        e["score"] = data.score(e["fit"].clf)


class _Data:
    """The front's view of the data: the single leaf's loss, the loss floor
    and the training score of a fitted estimator."""


def _prepare(est, X, y, sample_weight, regression):
    """The single leaf's loss and the floor (`_loss_floor`), from the data as
    the estimator's fit validates it, and the training score."""
    out = _Data()
    if regression:
        X32 = check_array(X, dtype=np.float32, ensure_all_finite="allow-nan")
        target = np.asarray(y, dtype=np.float64).reshape(-1)
        if target.shape[0] != X32.shape[0] or not np.all(np.isfinite(target)):
            # the fit raises the clear error
            est.fit(X, y, sample_weight=sample_weight)
        w = check_row_weights(sample_weight, X32, type(est).__name__)
        w = np.ones(len(target)) if w is None else np.asarray(w, dtype=np.float64)
        live = w > 0
        # the single leaf's loss is 1 by the scaling, 0 for a constant target
        out.leaf = 1.0 if np.ptp(target[live]) > 0 else 0.0
        out.floor = _loss_floor(X32, w, target=target)

        def score(reg):
            return float(reg.score(X, y, sample_weight=sample_weight))
    else:
        data = out.prepared = prepare_fit(est, X, y, sample_weight)
        w = (np.ones(len(data.y_idx)) if data.row_weight is None
             else np.asarray(data.row_weight, dtype=np.float64))
        counts = np.bincount(data.y_idx, weights=w, minlength=data.n_classes)
        out.leaf = float((counts @ data.weighted_cost).min() / w.sum())
        out.floor = _loss_floor(data.X, w, y_idx=data.y_idx, cost=data.weighted_cost)
        sw = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
        y_arr = np.asarray(y)

        def score(clf):
            right = clf.predict(X) == y_arr
            return float(np.mean(right) if sw is None else (sw * right).sum() / sw.sum())
    out.score = score
    return out


def _loss_floor(X32, w, y_idx=None, cost=None, target=None):
    """The least loss / n of any tree: rows whose float32 features are all
    equal (NaN equal to NaN) reach the same leaf of every tree, so each group
    costs at least its cheapest label (under squared error, its own squared
    error about its mean, over the single leaf's).  Grouping finer than that
    only lowers the sum, so the floor holds however the values compare; it is
    taken a little low, so that no rounding raises it."""
    nan = np.isnan(X32)
    key = np.hstack([np.where(nan, 0.0, X32).astype(np.float64), nan.astype(np.float64)])
    group = np.unique(key, axis=0, return_inverse=True)[1].reshape(-1)
    if target is not None:
        live = w > 0
        mean = (w[live] * target[live]).sum() / w[live].sum()
        total = float((w[live] * (target[live] - mean) ** 2).sum())
        within = group_loss_floor(group, w, target=target)
        return floor_below(within / total if total > 0 else 0.0)
    return floor_below(group_loss_floor(group, w, y_idx=y_idx, cost=cost) / w.sum())
