"""Validation shared by the estimators: the parameters they have in common,
declared once, and the preamble of every fit."""
import numbers
import os
import re
import sys
import warnings
from types import SimpleNamespace

import numpy as np
from sklearn.utils import compute_class_weight
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ._core._columns import PreparationStopped
from ._core._config import TOL
from ._core._limits import STATUS_NAMES, process_rss
from ._export import tree_text
from .exceptions import ConstantTreeWarning, NotCertifiedWarning

# fst's own directory: a warning is attributed to the first caller outside it
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

# Below this share of the rows (weighted) a class is rare enough for a constant
# tree's warning to suggest class_weight='balanced'.
RARE_CLASS_SHARE = 0.2


def warn_at_caller(message, category):
    """`warnings.warn`, attributed to the first frame outside fst: the user's
    line that called fit (or sklearn's, when sklearn called it), however deep
    in fst the warning was raised."""
    level = 2
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


# The parameters the estimators share, with their constraints (sklearn's
# `_parameter_constraints` form), declared once: each estimator takes the ones it
# has from here, so a parameter is validated the same way everywhere.
SHARED_CONSTRAINTS = {
    "cost_matrix": ["array-like", None],
    "class_weight": [dict, StrOptions({"balanced"}), None],
    # an integer >= 1 or None, as sklearn's trees take it (depth 0 would allow
    # the single leaf alone, which a large regularization gives anyway)
    "max_depth": [Interval(numbers.Integral, 1, None, closed="left"), None],
    # rows each leaf holds at least: an integer >= 1, or a fraction of the rows
    # in (0, 1), as sklearn's trees take it (`min_leaf_rows`)
    "min_samples_leaf": [Interval(numbers.Integral, 1, None, closed="left"),
                         Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    # the most leaves a tree may have: an integer >= 2 or None, as sklearn's
    # trees take it
    "max_leaf_nodes": [Interval(numbers.Integral, 2, None, closed="left"), None],
    # seconds; 0 is refused by check_shared_params with the way to say "no limit"
    "time_limit": [Interval(numbers.Real, 0, None, closed="left"), None],
    # bytes as a number (8e8 as people type it) or a string ('2GB', '512MiB'),
    # 'auto', or None; strings are read by `resolve_memory_limit`
    "memory_limit": [Interval(numbers.Real, 1, None, closed="left"), str, None],
    "n_jobs": [numbers.Integral, None],
    "verbose": ["verbose"],
}

# The parameters of a FastSmallTreeClassifier fit other than its regularization:
# what the path and cross-validation forward to each of their fits.
FIT_PARAMS = ("max_depth", "min_samples_leaf", "max_leaf_nodes", "cost_matrix",
              "class_weight", "time_limit", "memory_limit", "n_jobs")


def shared_constraints(*names):
    """The constraints of the shared parameters `names`."""
    return {k: SHARED_CONSTRAINTS[k] for k in names}


# The parameters of a regressor's fit the plan reads (`plan_regression`): the
# classifier's without its costs.
REGRESSION_FIT_PARAMS = tuple(k for k in FIT_PARAMS
                              if k not in ("cost_matrix", "class_weight"))


def fit_params(source, names=FIT_PARAMS, **changes):
    """The fit's parameters `names` (the classifier's FIT_PARAMS, or
    REGRESSION_FIT_PARAMS) of an estimator (its attributes) or of a mapping,
    with `changes` applied: the one place a fit's parameters are forwarded
    from."""
    get = source.get if isinstance(source, dict) else (lambda k: getattr(source, k))
    out = {k: get(k) for k in names}
    out.update(changes)
    return out


def weighted_moments(y, w):
    """(mean, variance) of the targets y over the rows of positive weight,
    weighted by w (None: each row once), the weights scaled to a mean of one as
    the regressor's search takes them: computed once a fit, here."""
    keep = slice(None) if w is None else w > 0
    ys = y[keep]
    n = len(ys)
    ws = np.ones(n) if w is None else w[keep] * (n / w[keep].sum())
    mean = float((ws * ys).sum() / n)
    return mean, float((ws * (ys - mean) ** 2).sum() / n)


def min_leaf_rows(min_samples_leaf, n_rows):
    """The rows each leaf must hold for a ``min_samples_leaf`` (validated): the
    integer itself, or ``ceil(fraction * n_rows)`` (at least 1) as sklearn reads
    a float; n_rows counts the rows of positive weight, the rows the search
    sees."""
    if isinstance(min_samples_leaf, numbers.Integral):
        return int(min_samples_leaf)
    return max(int(np.ceil(float(min_samples_leaf) * n_rows)), 1)


def obeys_min_leaf(tree, X, rows, min_leaf, max_leaves=None):
    """Whether every leaf of a fitted sklearn tree holds at least min_leaf of the
    training rows X[rows], and it has at most max_leaves leaves (None: any
    number): a fallback tree grown elsewhere is kept only then."""
    t = tree.tree_
    if max_leaves is not None and t.n_leaves > max_leaves:
        return False
    if min_leaf <= 1 or t.node_count == 1:
        return True     # (the root alone is a tree whatever its rows)
    leaves = np.flatnonzero(t.children_left == -1)
    counts = np.bincount(tree.apply(X[rows]), minlength=t.node_count)
    return bool(np.all(counts[leaves] >= min_leaf))


def check_shared_params(est):
    """What the constraints cannot say of the shared parameters: a finite time
    limit above 0 (None is the one way to ask for no limit), a memory limit that
    reads as bytes, and n_jobs nonzero."""
    owner = type(est).__name__
    time_limit = getattr(est, "time_limit", None)
    if time_limit is not None and not (np.isfinite(float(time_limit))
                                       and float(time_limit) > 0):
        raise ValueError(
            f"The 'time_limit' parameter of {owner} must be a finite number of seconds "
            f"> 0, or None for no limit. Got {time_limit!r} instead.")
    if hasattr(est, "memory_limit"):
        memory_bytes(est.memory_limit, owner)
    if getattr(est, "n_jobs", None) == 0:
        raise ValueError(
            f"The 'n_jobs' parameter of {owner} must be a nonzero integer or None. "
            "Got 0 instead.")


def prepare_fit(est, X, y, sample_weight):
    """The preamble of a classifier's fit, after its parameters are validated:
    X (numeric columns, float32, NaN allowed) and y checked and recorded
    (``classes_``, ``n_features_in_``, ``feature_names_in_``), the cost matrix
    (``cost``: the user's, 0/1 loss when None), the class weights (``class_w``),
    the class-weighted cost (``weighted_cost``) and the sample weights
    (``row_weight``, None when absent or constant)."""
    owner = type(est).__name__
    check_no_categorical(X, owner)
    X, y = validate_data(est, X, y, dtype=np.float32, ensure_all_finite="allow-nan",
                         order="C")
    check_classification_targets(y)
    est.classes_, y_idx = np.unique(y, return_inverse=True)
    y_idx = y_idx.reshape(-1)
    K = len(est.classes_)
    cost = check_cost_matrix(est.cost_matrix, K, owner)
    class_w = check_class_weight(est.class_weight, est.classes_, y, owner)
    return SimpleNamespace(X=X, y=y, y_idx=y_idx, n_classes=K, cost=cost, class_w=class_w,
                           weighted_cost=class_w[:, None] * cost,
                           row_weight=check_row_weights(sample_weight, X, owner))


# Share of the memory the process may use that memory_limit='auto' allows.
_AUTO_MEMORY_SHARE = 0.75


def _read_memory_available():
    """Bytes of memory this process may use: the machine's physical memory, or
    its cgroup's limit (v2, then v1) when lower; 0 when it cannot be read."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        total = 0
    for path in ("/sys/fs/cgroup/memory.max",
                 "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) > 0 and (total <= 0 or int(text) < total):
            total = int(text)
    return max(int(total), 0)


# The machine's memory and the process's cgroup limit, read once, when fst is
# imported: both are fixed for the process's life, so no fit reads the
# cgroup's files again.
_MEMORY_AVAILABLE = _read_memory_available()


def _memory_available():
    """Bytes of memory this process may use (`_read_memory_available`, read when
    fst was imported)."""
    return _MEMORY_AVAILABLE


def _auto_memory_limit():
    """memory_limit='auto': a share of `_memory_available`, or 0 (no limit) when
    that cannot be read."""
    return int(_AUTO_MEMORY_SHARE * _memory_available())


# Units of a memory_limit string: decimal (kB, MB, GB, TB: powers of 1000, as
# disks and cloud machines are sold) and binary (KiB, MiB, GiB, TiB).
_MEMORY_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6,
                 "g": 10**9, "gb": 10**9, "t": 10**12, "tb": 10**12,
                 "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_MEMORY_TEXT = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def memory_bytes(memory_limit, owner):
    """The bytes of a ``memory_limit`` other than 'auto' and None: a number (8e8
    is 800,000,000 bytes; a fraction of a byte is dropped) or a string such as
    '2GB', '1.5 GiB' or '800000000'. A clear error names what does not read."""
    if memory_limit is None or (isinstance(memory_limit, str) and memory_limit == "auto"):
        return None
    if isinstance(memory_limit, str):
        m = _MEMORY_TEXT.match(memory_limit)
        unit = m and _MEMORY_UNITS.get(m.group(2).lower())
        if not unit:
            raise ValueError(
                f"The 'memory_limit' parameter of {owner} must be a number of bytes, a "
                "string such as '2GB', '512MB' or '1.5GiB' (kB/MB/GB/TB are powers of "
                "1000, KiB/MiB/GiB/TiB of 1024), 'auto' or None. Got "
                f"{memory_limit!r} instead.")
        value = float(m.group(1)) * unit
    else:
        value = float(memory_limit)
    if not (np.isfinite(value) and value >= 1):
        raise ValueError(
            f"The 'memory_limit' parameter of {owner} must be at least 1 byte and "
            f"finite. Got {memory_limit!r} instead.")
    return int(value)


def resolve_memory_limit(memory_limit, owner="FastSmallTreeClassifier"):
    """The bytes of an estimator's ``memory_limit``: 'auto' (`_auto_memory_limit`),
    None (0: no limit), or a number of bytes or a string `memory_bytes` reads."""
    if isinstance(memory_limit, str) and memory_limit == "auto":
        return _auto_memory_limit()
    return 0 if memory_limit is None else memory_bytes(memory_limit, owner)


def check_cost_matrix(cost_matrix, n_classes, owner):
    """The validated cost matrix, 0/1 loss when None.

    ``owner`` is the estimator's class name, used in the error messages."""
    if cost_matrix is None:
        return np.ones((n_classes, n_classes)) - np.eye(n_classes)
    try:
        cost = np.asarray(cost_matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"The 'cost_matrix' parameter of {owner} must be a numeric array. Got "
            f"{cost_matrix!r} instead.") from exc
    if cost.shape != (n_classes, n_classes):
        raise ValueError(
            f"The 'cost_matrix' parameter of {owner} must have shape (n_classes, "
            f"n_classes) = ({n_classes}, {n_classes}). Got shape {cost.shape} instead.")
    if not np.all(np.isfinite(cost)) or np.any(cost < 0):
        raise ValueError(
            f"The 'cost_matrix' parameter of {owner} must hold finite values >= 0. Got "
            f"{cost.tolist()!r} instead.")
    return cost


def check_class_weight(class_weight, classes, y, owner):
    """The weight of each class (ones when None), finite and >= 0.

    Class weights scale the rows of the cost matrix, and every bound of the
    search assumes nonnegative costs: a negative weight would make a certificate
    wrong, and NaN or inf no objective at all, so both are refused here."""
    if class_weight is None:
        return np.ones(len(classes))
    weights = np.asarray(compute_class_weight(class_weight, classes=classes, y=y),
                         dtype=np.float64)
    bad = ~np.isfinite(weights) | (weights < 0)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"The 'class_weight' parameter of {owner} must give every class a finite "
            f"weight >= 0. Got {float(weights[i])!r} for class "
            f"{np.asarray(classes).tolist()[i]!r}.")
    return weights


def check_row_weights(sample_weight, X, owner):
    """The validated sample weights, or None when they are absent or constant
    (a constant weight cancels in a loss normalised by the weights' sum).

    ``owner`` is the estimator's class name, used in the error messages."""
    if sample_weight is None:
        return None
    w = _check_sample_weight(sample_weight, X, dtype=np.float64)
    if np.any(w < 0):
        raise ValueError(
            f"sample_weight of {owner} must be >= 0. Got "
            f"{w[w < 0][0]!r} at row {int(np.flatnonzero(w < 0)[0])}.")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not total > 0:
        raise ValueError(f"sample_weight of {owner} must not be all zero.")
    if not np.isfinite(total):
        raise ValueError(f"sample_weight of {owner} sums beyond the float range.")
    if np.all(w == w[0]):
        return None
    return w


def check_no_categorical(X, owner):
    """Refuse pandas category and text columns by name, saying what to do: the
    search splits numbers by thresholds only, and an order a category does not have
    would be silently made up."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return
    bad = [str(c) for c, t in zip(X.columns, dtypes)
           if str(t) == "category" or str(t) in ("object", "string", "str")
           or str(t).startswith("string")]
    if bad:
        raise ValueError(
            f"{owner} needs numeric columns; {', '.join(repr(c) for c in bad)} "
            f"{'is' if len(bad) == 1 else 'are'} categorical or text. Encode them as "
            "numbers first: one 0/1 column per category (pandas.get_dummies or "
            "sklearn's OneHotEncoder), or codes ordered by the label's rate in each "
            "category (sklearn's TargetEncoder) when an order is wanted.")


class NativeTreeMixin:
    """Prediction through the fitted native tree ``estimator_``.

    X is validated once here (feature names, float32, NaN allowed, inf
    rejected); the native tree is then called with check_input=False."""

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float32, ensure_all_finite="allow-nan",
                             reset=False)

    def predict(self, X):
        """Predict with ``estimator_``: class labels, or a regressor's leaf means
        (NaN goes right)."""
        X = self._validate_X_predict(X)
        return self.estimator_.predict(X, check_input=False)

    def apply(self, X):
        """Index of the leaf each row reaches in ``estimator_.tree_``."""
        X = self._validate_X_predict(X)
        return self.estimator_.apply(X, check_input=False)

    @property
    def feature_importances_(self):
        """Impurity-based importances of ``estimator_`` (sklearn's formula), so
        tools that read them off the model (SelectFromModel) work on it."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.feature_importances_

    def get_depth(self):
        """Depth of ``estimator_`` (a single leaf has depth 0)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.get_depth()

    def get_n_leaves(self):
        """Number of leaves of ``estimator_``."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.get_n_leaves()

    def decision_path(self, X):
        """Node indicator matrix of the path of each row in ``estimator_.tree_``."""
        X = self._validate_X_predict(X)
        return self.estimator_.decision_path(X, check_input=False)


class NativeClassifierMixin(NativeTreeMixin):
    """`NativeTreeMixin` with a classifier's class scores."""

    def predict_proba(self, X):
        """Class scores of the leaf of ``estimator_`` each row reaches."""
        X = self._validate_X_predict(X)
        return self.estimator_.predict_proba(X, check_input=False)

    def predict_log_proba(self, X):
        """Logarithm of `predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


# Seconds between progress lines at verbose >= 2.
PROGRESS_SECONDS = 5.0


def progress_printer(lam):
    """The progress line of verbose >= 2: time, proven bound, best objective, gap."""
    def report(progress):
        seconds, lower, best, expansions = progress
        gap = best - lower
        in_lam = f" ({gap / lam:.2f} lambda)" if lam > 0 else ""
        print(f"[fst] {seconds:8.1f} s  lower bound {lower:.6f}  best {best:.6f}  "
              f"gap {gap:.6f}{in_lam}  expansions {expansions:,}", flush=True)
    return report


# Agreement required between a search's value and its exported tree re-scored on
# the training data: sums of the same terms in another order, each within TOL
# of the other's objective when the search's comparisons chain (threshold
# exchange along a column: docs/how_it_works.md, "Invariants and the
# tolerance"), so a few TOL apart.
RESCORE_TOL = 10 * TOL


def floor_below(x):
    """x taken a little low (by a relative 1e-9 and 1e-12), never below 0: the
    one margin of every loss floor and bound computed in Python from sums that
    the search's own, in another order, could exceed by a rounding."""
    return max(x * (1.0 - 1e-9) - 1e-12, 0.0)


def group_loss_floor(group, w, y_idx=None, cost=None, target=None):
    """The equivalent-points floor: rows with identical features (the same
    `group`) reach the same leaf of every tree, so each group costs at least
    its cheapest label (`cost[k, j]` of a unit weight of class `y_idx` labelled
    j), or under squared error (`target` given) its weighted squared error
    about its own weighted mean.  The sum over the groups, unscaled and exact
    up to rounding (callers scale it and take it `floor_below`).  w: each row's
    weight (> 0 rows only count)."""
    group = np.asarray(group).reshape(-1)
    n_groups = int(group.max()) + 1 if group.size else 0
    if target is not None:
        ws = np.bincount(group, weights=w, minlength=n_groups)
        mean = np.bincount(group, weights=w * target, minlength=n_groups) / np.where(
            ws > 0, ws, 1.0)
        live = w > 0
        return float((w[live] * (target[live] - mean[group[live]]) ** 2).sum())
    counts = np.zeros((n_groups, cost.shape[0]))
    np.add.at(counts, (group, y_idx), w)
    return float((counts @ cost).min(axis=1).sum()) if n_groups else 0.0

# What a NotCertifiedWarning suggests, by the stop.
# How a stop's warning names the source of a fallback tree
# (``search_stats_['incumbent']``).
_INCUMBENT_NAMES = {"cart": "CART", "dpdt": "DPDT", "depth": "the depth-limited optimum"}

HOW_TO_GO_ON = {
    "time_limit": "To certify, raise time_limit (None: no limit), raise regularization "
                  "or set max_depth; verbose=2 shows the gap closing.",
    "memory_limit": "To certify, raise memory_limit (None: no limit), raise "
                    "regularization or set max_depth.",
    "interrupted": "The fit was interrupted; fit again to certify.",
    "search_limit": "The leaf budget allows trees deeper than the engine searches (16 "
                    "levels): raise regularization, or set max_depth or "
                    "max_leaf_nodes.",
}


class CertificateMixin:
    """The certificate of a certified estimator's fit (``objective_``,
    ``lower_bound_``, ``gap_``), set one way by every such estimator, and its
    printing (`summary`).  ``_LOSS_NAME``: how the summary names the loss."""

    _LOSS_NAME = "loss"

    def summary(self, feature_names=None):
        """The fitted tree as text (as ``sklearn.tree.export_text`` draws it, with
        the side a missing value goes to said: `fst._export.tree_text`) under a
        header: the status, the objective split into loss and leaves, its lower
        bound and the gap, the leaves and depth. ``feature_names`` default to
        ``feature_names_in_`` when X had column names."""
        check_is_fitted(self, "estimator_")
        names = (getattr(self, "feature_names_in_", None) if feature_names is None
                 else feature_names)
        extras = "".join(f", {k}={getattr(self, k)}" for k, default in
                         (("max_depth", None), ("min_samples_leaf", 1),
                          ("max_leaf_nodes", None)) if getattr(self, k) != default)
        head = [
            f"{type(self).__name__}(regularization={self.regularization:g}{extras})",
            f"  status     {self.status_}"
            + ("  (certified optimal)" if self.optimal_ else "  (not certified)"),
            f"  objective  {self.objective_:.6g}  = {self._LOSS_NAME} "
            f"{self.objective_ - self.regularization * self.n_leaves_:.6g} + "
            f"{self.regularization:g} x {self.n_leaves_} leaves",
            f"  bound      {self.lower_bound_:.6g}  (gap {self.gap_:.3g})",
            f"  tree       {self.n_leaves_} leaves, depth {self.get_depth()}, "
            f"{self.search_stats_.get('seconds', float('nan')):.3g} s",
        ]
        text = tree_text(self.estimator_, names, getattr(self, "_nan_columns", None))
        return "\n".join(head) + "\n" + text.rstrip("\n")

    def __str__(self):
        if not hasattr(self, "estimator_"):
            return repr(self)
        return self.summary()

    def _plan_and_search(self, lam, make_plan, run, record, stopped):
        """The steps of a fit that both estimators take in this order: its plan
        (`make_plan()`), the progress lines at verbose >= 2, its search
        (`run(plan)`, which returns the stop code), the fitted attributes
        (`record(plan, code)`, the estimator's own) and, at verbose >= 1, the
        result's line.  A limit that stops the fit before any search ran (while
        the columns are ranked, or Ctrl-C before the first search:
        `PreparationStopped`) calls `stopped(code)` instead, which records the
        single leaf, and the plan returned is then None."""
        try:
            plan = make_plan()
            if self.verbose >= 2:
                plan.search.set_reporter(progress_printer(lam), PROGRESS_SECONDS)
            code = run(plan)
        except PreparationStopped as stop:
            stopped(stop.code)
            return None
        record(plan, code)
        if self.verbose:
            nodes = self.search_stats_.get("nodes_created")
            print(f"[fst] status={self.status_} objective={self.objective_:.6f} "
                  f"lower_bound={self.lower_bound_:.6f} leaves={self.n_leaves_} "
                  + ("" if nodes is None else f"nodes={nodes} ")
                  + f"seconds={self.search_stats_['seconds']:.3f}")
        return plan

    def _set_status(self, code, solved):
        """``status_`` from a finished search's stop code and ``optimal_`` from
        its certificate; a search that ended by itself without one (the engine
        alone, deepened as far as it goes) is a 'search_limit'."""
        self.status_ = STATUS_NAMES[code]
        self.optimal_ = bool(solved)
        if not self.optimal_ and self.status_ == "optimal":
            self.status_ = "search_limit"

    def _certify(self, recorded, bound):
        """The bound and gap once ``objective_`` (the exported tree re-scored from
        the data) and ``optimal_`` are set.  The recorded value is that of a real
        tree, and the search's tree can only have improved since it was summed:
        the exported tree is never worse, and equal when certified.  Certified,
        the bound is the re-scored objective (the search's own sum may differ in
        the last bit with the order it added in, and so with n_jobs)."""
        if (self.objective_ > recorded + RESCORE_TOL
                or (self.optimal_ and abs(self.objective_ - recorded) > RESCORE_TOL)):
            raise RuntimeError(
                "fst internal error: the exported tree scores "
                f"{self.objective_!r} but the search recorded {recorded!r}.")
        self.lower_bound_ = self.objective_ if self.optimal_ else min(bound, self.objective_)
        self.gap_ = self.objective_ - self.lower_bound_

    def _try_fallbacks(self, trees, keep):
        """Offer each fallback tree of a stopped fit, as (name, estimator) from
        `trees`, to `keep`.  Ctrl-C while they grow (Python code and sklearn's
        CART, where no search polls for it) ends the offers: the best tree so
        far stands, and the fit says it was interrupted."""
        try:
            for name, est in trees:
                keep(est, name)
        except KeyboardInterrupt:
            self.status_ = "interrupted"

    def _adopt_if_better(self, est, objective, name):
        """Return `est` (a fallback tree of `objective`) instead when it is
        better; ``search_stats_['incumbent']`` names it."""
        if objective < self.objective_ - TOL:
            self.estimator_ = est
            self.n_leaves_ = int(est.tree_.n_leaves)
            self.objective_ = objective
            self.lower_bound_ = min(self.lower_bound_, objective)
            self.gap_ = self.objective_ - self.lower_bound_
            self.search_stats_["incumbent"] = name

    def _record_unsearched(self, est, code, objective, bound, seconds, limits):
        """The fitted attributes of a fit stopped (stop `code`) while its columns
        were being ranked, before any search: the single leaf `est` of
        `objective` (re-scored from the data), not certified, above `bound`;
        the statistics every fit reports (`fst._plan.COMMON_STATS`), with no
        search work, and ``limits`` (memory_limit, min_leaf, max_leaves)."""
        self.estimator_ = est
        self.status_ = STATUS_NAMES[code]
        self.optimal_ = False
        self.n_leaves_ = 1
        self.objective_ = objective
        self.lower_bound_ = min(bound, objective)
        self.gap_ = self.objective_ - self.lower_bound_
        self.search_stats_ = {
            "engine": "none", "stopped_in": "preparation", "nodes_created": 0,
            "expansions": 0, "threads": 1, "expansions_per_thread": [0],
            "nodes_per_thread": [0], "seconds": float(seconds),
            "peak_rss_bytes": process_rss(), "n_splits": None, "n_splits_searched": 0,
            **limits}

    def _warn_stopped(self):
        """The NotCertifiedWarning of a fit that stopped before its proof.  A
        tree that reaches the proven bound (a fallback tree can) is as good as
        any, but a certified fit returns the canonical one among equally good
        trees, which the stopped search did not reach: the warning says so."""
        if self.gap_ <= RESCORE_TOL:
            source = _INCUMBENT_NAMES.get(self.search_stats_.get("incumbent"), "the search")
            warn_at_caller(
                f"fst stopped ({self.status_}) before it found the canonical optimal "
                f"tree: the tree returned ({source}'s) reaches the "
                f"proven lower bound {self.lower_bound_:.6g}, so no tree is better, but "
                f"a certified fit returns the canonical one among equally good trees "
                f"(the same for any n_jobs or row order), so optimal_ stays False. "
                + HOW_TO_GO_ON.get(self.status_, ""), NotCertifiedWarning)
            return
        warn_at_caller(
            f"fst stopped ({self.status_}) before proving optimality: returning the best "
            f"tree found (objective {self.objective_:.6g}, lower bound "
            f"{self.lower_bound_:.6g}, gap {self.gap_:.3g}). "
            + HOW_TO_GO_ON.get(self.status_, ""), NotCertifiedWarning)

    def _warn_if_constant(self, lam, varies, shares=None):
        """A ConstantTreeWarning when the certified tree is a single leaf while
        the target varies (`varies`), saying why and what to try; `shares`, a
        classifier's classes' shares of the (weighted) rows, adds
        class_weight='balanced' when one is rare and no class_weight is set.
        (A certified tree predicts differently in each leaf: leaves that agree
        cost the same loss as one leaf and more leaves.)  Not for a stopped
        fit, which says why it stopped, nor for the fits of a path, a front or
        a cross-validation's folds (`_report_stops`), which choose among sizes."""
        if not (varies and self.optimal_ and self.n_leaves_ == 1
                and getattr(self, "_report_stops", True)):
            return
        cv = type(self).__name__ + "CV"
        if getattr(self, "_chosen_by_cv", False):
            why = (f"cross-validation chose regularization={lam:g}, where the optimal tree "
                   f"is a single leaf: no tree of more leaves scored better on the "
                   f"held-out rows. ")
            todo = "Smaller values among the lambdas may give a tree that splits"
        elif lam > 0:
            why = (f"at regularization={lam:g} no split lowers the loss by more than the "
                   f"{lam:g} each leaf it adds costs. ")
            todo = (f"Try a smaller regularization, or let {cv} choose it "
                    f"(fst.leaves_front shows the least loss of each number of leaves)")
        else:
            why = "no tree within the limits given loses less than the single leaf. "
            todo = "A larger max_depth or max_leaf_nodes may split"
        if (shares is not None and getattr(self, "class_weight", None) is None
                and min(shares) < RARE_CLASS_SHARE):
            todo += (f"; the rarest class is {min(shares):.1%} of the rows, and "
                     f"class_weight='balanced' weighs the classes equally")
        warn_at_caller(f"fst: the fitted tree is a single leaf, which predicts the same "
                       f"for every row: {why}{todo}.", ConstantTreeWarning)
