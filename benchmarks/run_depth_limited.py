"""fst against ConTree on depth-limited problems of continuous data, side by side.

    FST_SHARED=../shared python benchmarks/run_depth_limited.py --depths 2,3 --penalties 0.01,0
    FST_SHARED=../shared python benchmarks/run_depth_limited.py --depths 2,3,4 --penalties 0 --solvers fst,contree,pytrees --time-limit 120
    python benchmarks/run_depth_limited.py --one SOLVER DATASET DEPTH LAMBDA TIME_LIMIT

``pytrees`` is pytrees-rs's ConTreeClassifier (lambda = 0 only: it minimises
errors).

ConTree (pycontree) is an exact solver for trees of a given depth on continuous
features; with ``complexity_cost=lambda`` it minimises fst's objective under a depth
cap (it prices branch nodes, so its objective is fst's less lambda: the same trees
are optimal).  Here both solve the same problem: the quantbnb training sets (the
DPDT paper's Table 1 data, raw continuous features), ``max_depth`` = d, penalty
lambda per leaf.  Each run is its own process (one thread, the time limit
given); the fit time excludes imports and loading.  Every returned tree is
re-scored from the raw data (error / n + lambda * leaves); certified objectives of
the two must agree.
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
from _data import QUANTBNB  # noqa: E402
from _proc import run_one  # noqa: E402

NAMES = ["bank", "bidding", "fault", "htru", "magic", "occupancy", "page", "raisin",
         "rice", "room", "segment", "wilt"]


def _load(name):
    import pandas as pd

    df = pd.read_csv(os.path.join(QUANTBNB, f"{name}_train.csv"))
    X = df.iloc[:, :-1].to_numpy(dtype=float)
    _, y = np.unique(df.iloc[:, -1].to_numpy(), return_inverse=True)
    return X, y


def one(solver, name, depth, lam, time_limit):
    X, y = _load(name)
    # imports before the clock: the fit time excludes them
    if solver == "fst":
        from fst import FastSmallTreeClassifier
    elif solver == "contree":
        from pycontree import ConTree
    elif solver == "pytrees":
        from pytrees import ConTreeClassifier
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        if solver == "fst":
            m = FastSmallTreeClassifier(regularization=lam, max_depth=depth,
                                        time_limit=time_limit).fit(X, y)
            fit_s = time.perf_counter() - t0
            pred, leaves, cert = m.predict(X), m.n_leaves_, bool(m.optimal_)
        elif solver == "contree":
            m = ConTree(max_depth=depth, complexity_cost=lam,
                        time_limit=max(1.0, time_limit)).fit(X, y)
            fit_s = time.perf_counter() - t0
            pred, leaves = m.predict(X), m.get_num_leaf_nodes()
            cert = bool(m._config.is_within_time_limit())
        elif solver == "pytrees":
            if lam != 0:
                raise ValueError("pytrees-rs's ConTree minimises errors: lambda 0 only")
            m = ConTreeClassifier(max_depth=depth, max_time=time_limit).fit(X, y)
            fit_s = time.perf_counter() - t0
            pred, cert = m.predict(X), m.status_ == "optimal"
            leaves = int(np.sum(m.tree_.children_left < 0)) if hasattr(m.tree_, "children_left") else 0
        else:
            raise ValueError(solver)
    err = float(np.mean(np.asarray(pred).astype(np.int64) != y))
    return {"solver": solver, "dataset": name, "depth": depth, "lambda": lam,
            "rows": len(y), "seconds": fit_s, "certified": cert, "leaves": int(leaves),
            "objective": err + lam * leaves}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(NAMES))
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--penalties", default="0.01")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--solvers", default="fst,contree")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "depth_limited.jsonl"))
    ap.add_argument("--one", nargs=5, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        s, name, d, lam, tl = args.one
        print(json.dumps(one(s, name, int(d), float(lam), float(tl))))
        return
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    rows = []
    with open(args.out, "w") as fh:
        for lam in [float(v) for v in args.penalties.split(",")]:
            for d in [int(v) for v in args.depths.split(",")]:
                for name in args.datasets.split(","):
                    for s in args.solvers.split(","):
                        cmd = [sys.executable, __file__, "--one", s, name, str(d), str(lam),
                               str(args.time_limit)]
                        r = run_one(cmd, 2 * args.time_limit + 60,
                                    {"solver": s, "dataset": name, "depth": d, "lambda": lam,
                                     "seconds": float("nan"), "certified": False,
                                     "objective": float("nan"), "leaves": -1})
                        rows.append(r)
                        fh.write(json.dumps(r) + "\n")
                        fh.flush()
                        print(f"{s:8s} {name:10s} d={d} lambda={lam:<6g} "
                              f"{r['seconds']:8.2f}s {'CERT' if r['certified'] else 'open'} "
                              f"obj={r['objective']:.5f}", flush=True)
    summarise(rows)


def summarise(rows):
    by = {}
    solvers = []
    for r in rows:
        by.setdefault((r["dataset"], r["depth"], r["lambda"]), {})[r["solver"]] = r
        if r["solver"] not in solvers:
            solvers.append(r["solver"])
    print("\n| data | depth | lambda | " + " | ".join(f"{s} s" for s in solvers)
          + " | objective |")
    print("|---|---|---|" + "---|" * (len(solvers) + 1))
    cert = {s: 0 for s in solvers}
    dis = 0
    for (name, d, lam), v in by.items():
        for s, r in v.items():
            cert[s] += bool(r["certified"])
        objs = {r["objective"] for r in v.values() if r["certified"]}
        dis += len(objs) > 1 and max(objs) - min(objs) > 1e-9
        cell = lambda r: ("" if r is None else  # noqa: E731
                          f"{'**C** ' if r['certified'] else ''}{r['seconds']:.2f}")
        best = min(r["objective"] for r in v.values())
        print(f"| {name} | {d} | {lam:g} | " + " | ".join(cell(v.get(s)) for s in solvers)
              + f" | {best:.5f} |")
    print("\n* certified: " + ", ".join(f"{s} {cert[s]}" for s in solvers)
          + f" of {len(by)}; certified objectives that disagree: {dis}")
    for peer in solvers[1:]:
        both = [(v[solvers[0]], v[peer]) for v in by.values()
                if solvers[0] in v and peer in v and v[solvers[0]]["certified"]
                and v[peer]["certified"]]
        if both:
            a = sum(f["seconds"] for f, _ in both)
            b = sum(c["seconds"] for _, c in both)
            print(f"* {solvers[0]} against {peer}: {len(both)} problems both certify; "
                  f"summed fit time {a:.2f} s against {b:.2f} s, ratio {a / b:.3f}")
        worse = [k for k, v in by.items() if solvers[0] in v and peer in v
                 and v[solvers[0]]["objective"] > v[peer]["objective"] + 1e-9]
        print(f"* problems where {solvers[0]}'s tree is worse than {peer}'s: {worse or 'none'}")


if __name__ == "__main__":
    main()
