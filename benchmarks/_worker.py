"""Run one solver on one gosdt14 problem and print one JSON line.

    python benchmarks/_worker.py SOLVER DATASET LAMBDA TIME_LIMIT MEMORY_LIMIT

Solvers: fst, fst-general (fst's general search alone: no leaf budget first on
continuous columns), fst-engine and fst-both (without max_depth on continuous
columns, the engine by leaf budget alone, or followed by the general search,
whatever the size of its row bitsets), fst-deepen (that engine always searches
depth 3 before the general search follows), imodels (the reference FastSmallTree, numba), gosdt (exact mode on
the exact binarisation), streed (pystreed, cost-complex-accuracy on the exact
binarisation with a depth cap, recorded as `depth_cap`: its certificate is for the
depth-capped problem only), contree (pycontree's ConTree on the raw features, NaN
above each column's maximum as in fst, complexity_cost = lambda, with a depth cap
recorded likewise), cart (sklearn, for scale).  Every returned tree is
re-scored here from the raw data: loss/n + lambda * leaves.  Only fst's own code
is part of fst; the peers are imported from their installed packages.
"""
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _data import load_gosdt14  # noqa: E402
from _proc import peak_rss as _peak_rss  # noqa: E402


STREED_DEPTH_CAP = int(os.environ.get("FST_STREED_DEPTH", "6"))
CONTREE_DEPTH_CAP = int(os.environ.get("FST_CONTREE_DEPTH", "4"))




def exact_binarisation(X):
    """One 0/1 column per split of fst's split space: x <= t for every midpoint t
    between consecutive distinct float32 values (NaN > everything, so NaN -> 0)."""
    cols, desc = [], []
    X32 = X.astype(np.float32).astype(np.float64)
    for j in range(X.shape[1]):
        col = X32[:, j]
        vals = np.unique(col[~np.isnan(col)])
        for u, v in zip(vals[:-1], vals[1:]):
            t = u / 2 + v / 2
            cols.append(np.nan_to_num(col, nan=np.inf) <= t)
            desc.append((j, t))
        if np.isnan(col).any() and len(vals):
            cols.append(~np.isnan(col))
            desc.append((j, np.inf))
    return np.column_stack(cols).astype(np.int8), desc


def nan_above_max(X):
    """NaN replaced by a value above the column's maximum (fst's rule)."""
    X = X.copy()
    for j in range(X.shape[1]):
        nan = np.isnan(X[:, j])
        if nan.any():
            finite = X[~nan, j]
            X[nan, j] = (finite.max() + 1.0) if len(finite) else 0.0
    return X


def _memory_watchdog(limit):
    """Stop this process (exit code 137) once its resident memory passes `limit`:
    the same cap for every solver, whether or not it polices its own memory."""
    import threading

    def watch():
        page = os.sysconf("SC_PAGE_SIZE")
        while True:
            with open("/proc/self/statm") as f:
                if int(f.read().split()[1]) * page > limit:
                    sys.stdout.write(json.dumps({"status": "memory_killed"}) + "\n")
                    sys.stdout.flush()
                    os._exit(137)
            time.sleep(0.05)

    if os.path.exists("/proc/self/statm"):
        threading.Thread(target=watch, daemon=True).start()


def _gosdt_leaves(node):
    if hasattr(node, "left_child"):
        return _gosdt_leaves(node.left_child) + _gosdt_leaves(node.right_child)
    return 1


def _fit_quietly(m, X, y, t0):
    """Fit a peer with its warnings silenced; the seconds since t0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(X, y)
    return time.perf_counter() - t0


def _depth_capped(out, cap, certified):
    """A depth-capped peer's result: its certificate is for the capped problem."""
    out.update(certified=bool(certified), reported=np.nan, lower_bound=np.nan,
               status="depth<=%d" % cap, depth_cap=cap)


def run(solver, name, lam, time_limit, memory_limit):
    X, y = load_gosdt14(name)
    classes, y_idx = np.unique(y, return_inverse=True)
    out = {"solver": solver, "dataset": name, "lambda": lam, "n": len(y)}
    if solver in ("fst", "fst-general", "fst-engine", "fst-both", "fst-deepen"):
        from fst import FastSmallTreeClassifier

        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = FastSmallTreeClassifier(regularization=lam, time_limit=time_limit,
                                        memory_limit=memory_limit)
            if solver == "fst-general":
                # fst's general search alone, without the engine's leaf budget
                # first (continuous columns without max_depth)
                m._overrides = {"leaf_budget_stage": False}
            elif solver in ("fst-engine", "fst-both"):
                m._overrides = {"general_search": solver == "fst-both"}
            elif solver == "fst-deepen":
                m._overrides = {"leaf_budget_deepen": 3}
            m.fit(X, y_idx)
        fit_s = time.perf_counter() - t0
        pred = m.predict(X)
        leaves = m.n_leaves_
        out.update(certified=bool(m.optimal_), reported=m.objective_,
                   lower_bound=m.lower_bound_, status=m.status_,
                   nodes=m.search_stats_["nodes_created"])
    elif solver == "imodels":
        from imodels.tree.optimal_tree.fast_small_tree import FastSmallTreeClassifier

        t0 = time.perf_counter()
        Xn = nan_above_max(X)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = FastSmallTreeClassifier(regularization=lam, time_limit=time_limit,
                                        memory_limit=0).fit(Xn, y_idx)
        fit_s = time.perf_counter() - t0
        pred = m.predict(Xn)
        leaves = m.n_leaves_
        out.update(certified=bool(m.optimal_), reported=float(m.objective_),
                   lower_bound=float(m.lowerbound_), status=str(m.stop_reason_),
                   own_seconds=float(m.time_))
    elif solver == "gosdt":
        from gosdt import GOSDTClassifier

        t0 = time.perf_counter()
        Xb, _ = exact_binarisation(X)
        m = GOSDTClassifier(regularization=lam, allow_small_reg=True,
                            time_limit=int(max(1, time_limit)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(Xb, y_idx)
        fit_s = time.perf_counter() - t0
        tree = m.trees_[0]
        pred = tree.predict(Xb)  # its classifier's predict fails on sklearn >= 1.8
        res = m.result_
        leaves = _gosdt_leaves(tree.tree)
        status = str(getattr(res, "status", ""))
        out.update(certified=status.endswith("CONVERGED"),
                   reported=float(getattr(res, "upperbound", np.nan)),
                   lower_bound=float(getattr(res, "lowerbound", np.nan)), status=status)
    elif solver == "streed":
        from pystreed import STreeDClassifier

        t0 = time.perf_counter()
        Xb, _ = exact_binarisation(X)
        # its cost_complexity prices a branch node (= a leaf beyond the first) as a
        # fraction of n, so its objective is fst's minus lambda
        cap = STREED_DEPTH_CAP
        m = STreeDClassifier(optimization_task="cost-complex-accuracy", max_depth=cap,
                             cost_complexity=lam, time_limit=max(1.0, time_limit))
        fit_s = _fit_quietly(m, Xb, y_idx, t0)
        pred = m.predict(Xb)
        leaves = m.get_n_leaves()
        _depth_capped(out, cap, m.fit_result.is_optimal())
    elif solver == "contree":
        from pycontree import ConTree

        t0 = time.perf_counter()
        Xn = nan_above_max(X)
        # ConTree searches every threshold of the raw features (fst's split space,
        # with NaN above the maximum as fst sends it right); its complexity_cost
        # prices a branch node as a fraction of n, so its objective is fst's minus
        # lambda (the same trees are optimal)
        cap = CONTREE_DEPTH_CAP
        m = ConTree(max_depth=cap, complexity_cost=lam, time_limit=max(1.0, time_limit))
        fit_s = _fit_quietly(m, Xn, y_idx, t0)
        pred = m.predict(Xn)
        leaves = m.get_num_leaf_nodes()
        _depth_capped(out, cap, m._config.is_within_time_limit())
    elif solver == "cart":
        from sklearn.tree import DecisionTreeClassifier

        t0 = time.perf_counter()
        best = None
        for leaves_cap in range(2, 65):
            c = DecisionTreeClassifier(max_leaf_nodes=leaves_cap, random_state=0)
            c.fit(nan_above_max(X), y_idx)
            obj = np.mean(c.predict(nan_above_max(X)) != y_idx) + lam * c.get_n_leaves()
            if best is None or obj < best[0]:
                best = (obj, c)
        one_leaf = 1 - np.bincount(y_idx).max() / len(y_idx) + lam
        fit_s = time.perf_counter() - t0
        m = best[1]
        pred = m.predict(nan_above_max(X))
        leaves = m.get_n_leaves()
        if one_leaf < best[0]:
            pred = np.full_like(y_idx, np.bincount(y_idx).argmax())
            leaves = 1
        out.update(certified=False, reported=np.nan, lower_bound=np.nan, status="greedy")
    else:
        raise ValueError(solver)
    pred = np.asarray(pred).astype(np.int64)
    out["leaves"] = int(leaves) if leaves is not None else None
    out["objective"] = (float(np.mean(pred != y_idx) + lam * leaves)
                        if leaves is not None else float("nan"))
    out["seconds"] = fit_s
    out["peak_rss"] = _peak_rss()
    if solver == "fst":
        import fst
        out["fst_path"] = os.path.dirname(fst.__file__)
    return out


if __name__ == "__main__":
    solver, name, lam, tl, ml = sys.argv[1:6]
    # fst stops itself at the limit; the watchdog is its backstop and every peer's cap
    _memory_watchdog(float(ml) * (1.05 if solver == "fst" else 1.0))
    print(json.dumps(run(solver, name, float(lam), float(tl), int(float(ml)))))
