"""fst's regressor against STreeD and OSRT on the same binarised inputs, side by side.

    python benchmarks/run_regression.py
    python benchmarks/run_regression.py --datasets diabetes --depths 2,3 --penalties 0.02 --time-limit 30
    python benchmarks/run_regression.py --depths none --solvers fst,osrt
    python benchmarks/run_regression.py --one SOLVER DATASET DEPTH LAMBDA TIME_LIMIT

Every solver gets the identical 0/1 matrix: for each raw column, one column
``x <= q`` per distinct quantile q at k / (T + 1), k = 1 .. T (T thresholds a
column, 5 by default as STreeD's own binarisation).  The objective is fst's:
``sum (y - leaf mean)^2 / n / Var(y) + lambda * leaves``.  STreeD
(``STreeDRegressor``, cost-complex-regression, ``cost_complexity = lambda``) and
OSRT (``regularization = lambda``, ``depth_budget = depth + 1``: it counts the root
as depth one; 0, no limit, at depth ``none``) minimise the same objective up to a constant (a branch node adds
one leaf), so the three certified optima must agree.  Each fit is its own process
(one thread, the time limit given), its fit time excludes imports and loading,
and every returned tree is re-scored here from its predictions.  Depth
``none`` is the search without a depth cap (fst's ``max_depth=None``, OSRT's
``depth_budget = 0``); STreeD needs a depth and is not run there.  The peers come
from their installed packages (``pip install pystreed osrt``); fst's tests never
need them.

Data: sklearn's diabetes (442 x 10), ``make_friedman1(n_samples=5000, noise=1.0,
random_state=0)``, ``make_friedman2(n_samples=2000, noise=10, random_state=0)``
and ``make_friedman3(n_samples=2000, noise=0.1, random_state=0)``.
"""
import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _proc import run_one  # noqa: E402

NAMES = ["diabetes", "friedman1", "friedman2", "friedman3"]


def load(name):
    from sklearn import datasets as ds
    if name == "diabetes":
        return ds.load_diabetes(return_X_y=True)
    if name == "friedman1":
        return ds.make_friedman1(n_samples=5000, noise=1.0, random_state=0)
    if name == "friedman2":
        return ds.make_friedman2(n_samples=2000, noise=10.0, random_state=0)
    if name == "friedman3":
        return ds.make_friedman3(n_samples=2000, noise=0.1, random_state=0)
    raise ValueError(f"unknown data set {name!r}")


def binarise(X, thresholds):
    """One 0/1 column x <= q for each distinct quantile q of each column."""
    qs = np.arange(1, thresholds + 1) / (thresholds + 1)
    cols = [X[:, j] <= q for j in range(X.shape[1]) for q in np.unique(np.quantile(X[:, j], qs))]
    return np.column_stack(cols).astype(np.int8)


def one(solver, name, depth, lam, time_limit, thresholds):
    X, y = load(name)
    B = binarise(X, thresholds)
    # imports before the clock: the fit time excludes them
    if solver == "fst":
        from fst import FastSmallTreeRegressor
    elif solver == "streed":
        from pystreed import STreeDRegressor
    elif solver == "osrt":
        import pandas as pd
        from osrt import OSRT
        frame = pd.DataFrame(B, columns=[f"b{k}" for k in range(B.shape[1])])
    else:
        raise ValueError(solver)
    # sklearn's one-time lazy set-up (its dataframe libraries' plugin discovery,
    # about 8 ms on the first validation of a process) before the clock too, for
    # every solver: a two-row tree
    from sklearn.tree import DecisionTreeRegressor
    DecisionTreeRegressor().fit(B[:2], y[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        if solver == "fst":
            m = FastSmallTreeRegressor(regularization=lam, max_depth=depth,
                                       time_limit=time_limit).fit(B, y)
            fit_s = time.perf_counter() - t0
            pred, leaves, cert = m.predict(B), m.n_leaves_, bool(m.optimal_)
        elif solver == "streed":
            m = STreeDRegressor(max_depth=depth, cost_complexity=lam,
                                time_limit=time_limit).fit(B, y)
            fit_s = time.perf_counter() - t0
            pred, leaves = m.predict(B), m.get_n_leaves()
            cert = bool(m.fit_result.is_optimal())
        else:
            m = OSRT({"regularization": lam, "depth_budget": 0 if depth is None else depth + 1,
                      "metric": "L2",
                      "weights": [], "verbose": False, "time_limit": time_limit})
            # OSRT prints its own progress; it goes to stderr so that the
            # record stays the last line of stdout
            out = sys.stdout
            sys.stdout = sys.stderr
            try:
                m.fit(frame, pd.DataFrame(y))
            finally:
                sys.stdout = out
            fit_s = time.perf_counter() - t0
            pred, leaves, cert = np.asarray(m.predict(frame)).ravel(), m.leaves(), not m.timeout
    loss = float(np.mean((y - pred) ** 2) / np.var(y))
    return {"solver": solver, "dataset": name, "depth": depth, "lambda": lam,
            "rows": len(y), "columns": int(B.shape[1]), "seconds": fit_s,
            "certified": cert, "leaves": int(leaves), "objective": loss + lam * leaves}


def _depth(text):
    """A depth of the command line: a number, or 'none' (no depth cap)."""
    return None if str(text).lower() == "none" else int(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(NAMES))
    ap.add_argument("--depths", default="2,3,4")
    ap.add_argument("--penalties", default="0.05,0.02,0.01")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--thresholds", type=int, default=5)
    ap.add_argument("--solvers", default="fst,streed,osrt")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "regression.jsonl"))
    ap.add_argument("--one", nargs=6, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        s, name, d, lam, tl, t = args.one
        print(json.dumps(one(s, name, _depth(d), float(lam), float(tl), int(t))))
        return
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    rows = []
    with open(args.out, "w") as fh:
        for name in args.datasets.split(","):
            for d in [_depth(v) for v in args.depths.split(",")]:
                for lam in [float(v) for v in args.penalties.split(",")]:
                    for s in args.solvers.split(","):
                        if s == "streed" and d is None:
                            continue
                        cmd = [sys.executable, __file__, "--one", s, name, str(d), str(lam),
                               str(args.time_limit), str(args.thresholds)]
                        r = run_one(cmd, 2 * args.time_limit + 60,
                                    {"solver": s, "dataset": name, "depth": d, "lambda": lam,
                                     "seconds": float("nan"), "certified": False,
                                     "objective": float("nan"), "leaves": -1})
                        rows.append(r)
                        fh.write(json.dumps(r) + "\n")
                        fh.flush()
                        print(f"{s:7s} {name:10s} d={d} lambda={lam:<5g} "
                              f"{r['seconds']:8.2f}s {'CERT' if r['certified'] else 'open'} "
                              f"obj={r['objective']:.6f}", flush=True)
    summarise(rows)


def summarise(rows):
    by, solvers = {}, []
    for r in rows:
        by.setdefault((r["dataset"], r["depth"], r["lambda"]), {})[r["solver"]] = r
        if r["solver"] not in solvers:
            solvers.append(r["solver"])
    print("\n| data | depth | lambda | " + " | ".join(f"{s} s" for s in solvers)
          + " | optimum |")
    print("|---|---|---|" + "---|" * (len(solvers) + 1))
    dis = 0
    for (name, d, lam), v in by.items():
        objs = [r["objective"] for r in v.values() if r["certified"]]
        dis += bool(objs) and max(objs) - min(objs) > 1e-9
        cell = lambda r: ("" if r is None else  # noqa: E731
                          f"{'**C** ' if r['certified'] else ''}{r['seconds']:.2f}")
        print(f"| {name} | {d} | {lam:g} | " + " | ".join(cell(v.get(s)) for s in solvers)
              + f" | {min(r['objective'] for r in v.values()):.5f} |")
    print(f"\n* certified objectives that disagree: {dis}")
    first = solvers[0]
    for peer in solvers[1:]:
        peer_cert = [v for v in by.values() if peer in v and v[peer]["certified"]]
        ours = [v for v in peer_cert if first in v and v[first]["certified"]]
        half = [v for v in ours if v[first]["seconds"] <= 0.5 * v[peer]["seconds"]]
        print(f"* {peer} certifies {len(peer_cert)}; {first} certifies {len(ours)} of "
              f"those, {len(half)} in at most half {peer}'s time")
        if ours:
            a = sum(v[first]["seconds"] for v in ours)
            b = sum(v[peer]["seconds"] for v in ours)
            print(f"  summed fit time on them: {first} {a:.2f} s, {peer} {b:.2f} s "
                  f"(ratio {a / b:.2f})")


if __name__ == "__main__":
    main()
