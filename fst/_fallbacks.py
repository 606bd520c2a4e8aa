"""The trees a stopped fit returns where they are better than its search's:
CART's under the same constraints, DPDT's, and the depth-limited optimum of
FALLBACK_DEPTH, each run only where it is predicted to end before the fit's
deadline (the time limit holds for the whole fit).  The plans choose which
(`fst._plan.FitPlan.fallback_trees`, `fst._plan.RegressionPlan.fallback_trees`);
the fits are made here."""
import numpy as np
from sklearn.base import clone

from ._core._limits import clock

# The share of a time limit a fit on the engine keeps for DPDT's tree, returned
# when the search stops with a worse one: of max_depth under a depth cap, of
# LEAF_BUDGET_DEPTH without one (`FitPlan.fallback_trees`).
DPDT_TIME_SHARE = 0.1

# A stopped fit without max_depth whose engine by leaf budget did not reach this
# depth keeps this share of a time limit for the depth-limited optimum of the
# depth at lam, returned when it is better (the engine by leaf budget goes that
# deep only where it could certify there).
FALLBACK_TIME_SHARE = 0.1
FALLBACK_DEPTH = 3

# A fallback fit with less time than this left before the fit's deadline is not
# run: the time limit holds for the whole fit.
LEAST_FALLBACK_SECONDS = 0.01

# CART's fallback tree cannot be stopped once started, so it runs only when the
# time it is predicted to take fits before the deadline: it is timed on this
# many evenly spaced rows and columns, and scaled by n log n and by the columns
# (its splitter sorts a node's rows a column at a time, level after level).
CART_SAMPLE_ROWS = 2048
CART_SAMPLE_COLUMNS = 256


def time_left_after_trial(make, X, y, sample_weight, seconds):
    """The seconds a fallback fit that cannot be stopped once started (`make()`
    returns it unfitted) has left after a trial that predicts whether it ends
    within `seconds`: timed on CART_SAMPLE_ROWS evenly spaced rows and
    CART_SAMPLE_COLUMNS evenly spaced columns (all of them where there are no
    more), its time on all n rows and p columns is taken as that time scaled
    by n log n and by p (a table of few rows and many columns costs as much as
    its columns make it).  No trial where the table is no larger than the
    sample.  None without a limit; -1.0 when it would not end in time."""
    n, p = X.shape
    if seconds is None:
        return None
    if seconds < LEAST_FALLBACK_SECONDS:
        return -1.0
    r = min(n, CART_SAMPLE_ROWS)
    q = min(p, CART_SAMPLE_COLUMNS)
    if r == n and q == p:
        return seconds
    rows = np.linspace(0, n - 1, r).astype(np.intp)
    cols = np.linspace(0, p - 1, q).astype(np.intp)
    started = clock()
    # the fits made are quiet (`_report_stops`): warnings are not caught here,
    # which is not safe where fits run in threads
    make().fit(X[np.ix_(rows, cols)], y[rows],
               sample_weight=None if sample_weight is None else sample_weight[rows])
    spent = clock() - started
    scale = p / q
    if r < n:
        scale *= (n * np.log2(n)) / (r * np.log2(r))
    if spent * (1.0 + scale) > seconds:
        return -1.0
    return seconds - spent


def bounded_cart(tree, X, y, sample_weight, seconds):
    """`tree` (an unfitted sklearn tree) fitted on (X, y, sample_weight) when
    it is predicted to end within `seconds` (None: no limit,
    `time_left_after_trial`), else None."""
    left = time_left_after_trial(lambda: clone(tree), X, y, sample_weight, seconds)
    if left is not None and left < 0:
        return None
    return tree.fit(X, y, sample_weight=sample_weight)


def depth_fallback_fit(plan, estimator, X, y, sample_weight, seconds):
    """The fit by `estimator` (FastSmallTreeClassifier) of the depth-limited
    optimum of FALLBACK_DEPTH at the fit's lam, in the `seconds` of its time
    limit kept for it (`FitPlan.fallback_trees`)."""
    p = plan._params
    clf = estimator(
        regularization=plan.config["regularization"], max_depth=FALLBACK_DEPTH,
        min_samples_leaf=plan.config["min_leaf"],
        cost_matrix=p["cost_matrix"], class_weight=p["class_weight"],
        time_limit=seconds, memory_limit=plan.config["memory_limit"] or None,
        n_jobs=p["n_jobs"])
    clf._report_stops = False       # a stopped fit still returns a real tree
    clf.fit(X, y, sample_weight=sample_weight)
    return clf
