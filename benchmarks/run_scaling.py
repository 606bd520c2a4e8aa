"""Exact depth-limited trees on continuous data as the rows grow: fst against
ConTree (pycontree) and pytrees-rs's ConTree, side by side.

    python benchmarks/run_scaling.py --rows 2000,8000,32000,128000 --depths 2,3 --time-limit 120
    python benchmarks/run_scaling.py --one SOLVER ROWS DEPTH TIME_LIMIT

The data: sklearn's ``make_classification`` with 8 continuous features (4
informative, 2 redundant, 10% of labels flipped, seed 0), every value distinct,
so a column has as many thresholds as rows.  The problem: the fewest training
errors among trees of depth at most d (fst with ``regularization=0`` and
``max_depth=d``).  Each fit runs in its own process, one at a time; reported:
fit seconds (imports and data excluded), the process's peak resident memory
(interpreter included), whether the solver proved its tree optimal, and the
tree's error re-scored here from its predictions on the raw data.  Certified
errors must agree.

Install the peers with ``pip install pycontree pytrees-rs``.
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
from _proc import peak_rss, run_one  # noqa: E402
SOLVERS = ("fst", "contree", "pytrees")


def make_data(rows):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=rows, n_features=8, n_informative=4,
                               n_redundant=2, flip_y=0.1, class_sep=1.0, random_state=0)
    return X, y


def one(solver, rows, depth, time_limit, n_jobs=1):
    X, y = make_data(rows)
    if solver.startswith("fst"):
        from fst import FastSmallTreeClassifier
    elif solver == "contree":
        from pycontree import ConTree
    elif solver == "pytrees":
        from pytrees import ConTreeClassifier
    else:
        raise ValueError(solver)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        if solver.startswith("fst"):
            m = FastSmallTreeClassifier(regularization=0.0, max_depth=depth,
                                        time_limit=time_limit, n_jobs=n_jobs).fit(X, y)
            cert = bool(m.optimal_)
        elif solver == "contree":
            m = ConTree(max_depth=depth, time_limit=time_limit).fit(X, y)
            cert = bool(m._config.is_within_time_limit())
        else:
            m = ConTreeClassifier(max_depth=depth, max_time=time_limit).fit(X, y)
            cert = m.status_ == "optimal"
        seconds = time.perf_counter() - t0
    pred = np.asarray(m.predict(X))
    errors = int(np.sum(pred.astype(np.int64) != y))
    return {"solver": solver, "rows": rows, "depth": depth, "seconds": seconds,
            "certified": cert, "errors": errors, "peak_rss": peak_rss(), "n_jobs": n_jobs}


def run(solver, rows, depth, time_limit, n_jobs):
    cmd = [sys.executable, os.path.abspath(__file__), "--one", solver, str(rows), str(depth),
           str(time_limit), "--n-jobs", str(n_jobs)]
    return run_one(cmd, 3 * time_limit + 120,
                   {"solver": solver, "rows": rows, "depth": depth, "seconds": float("nan"),
                    "certified": False, "errors": -1, "peak_rss": 0, "n_jobs": n_jobs})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="2000,8000,32000,128000")
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--solvers", default=",".join(SOLVERS))
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--n-jobs", type=int, default=1, help="fst's n_jobs")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "scaling.jsonl"))
    ap.add_argument("--one", nargs=4, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        s, rows, d, tl = args.one
        print(json.dumps(one(s, int(rows), int(d), float(tl), args.n_jobs)))
        return
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    results = []
    with open(args.out, "w") as fh:
        for d in [int(v) for v in args.depths.split(",")]:
            for rows in [int(v) for v in args.rows.split(",")]:
                for s in args.solvers.split(","):
                    r = run(s, rows, d, args.time_limit, args.n_jobs)
                    results.append(r)
                    fh.write(json.dumps(r) + "\n")
                    fh.flush()
                    print(f"{s:8s} d={d} rows={rows:<8d} {r['seconds']:8.2f} s "
                          f"{'CERT' if r['certified'] else 'open'} errors={r['errors']} "
                          f"rss={r['peak_rss'] / 1e6:.0f} MB", flush=True)
    summarise(results, args.solvers.split(","))


def summarise(results, solvers):
    by = {}
    for r in results:
        by.setdefault((r["depth"], r["rows"]), {})[r["solver"]] = r
    head = " | ".join(f"{s} s" for s in solvers) + " | " + " | ".join(
        f"{s} RSS MB" for s in solvers)
    print(f"\n| depth | rows | {head} | errors |")
    print("|---|---|" + "---|" * (2 * len(solvers) + 1))
    bad = []
    for (d, rows), v in sorted(by.items()):
        cells = []
        for s in solvers:
            r = v.get(s)
            cells.append("" if r is None else
                         f"{'**C** ' if r['certified'] else ''}{r['seconds']:.2f}")
        for s in solvers:
            r = v.get(s)
            cells.append("" if r is None else f"{r['peak_rss'] / 1e6:.0f}")
        errs = sorted({r["errors"] for r in v.values() if r["errors"] >= 0})
        cert = {r["errors"] for r in v.values() if r["certified"]}
        if len(cert) > 1:
            bad.append((d, rows, cert))
        print(f"| {d} | {rows:,} | " + " | ".join(cells) + f" | {'/'.join(map(str, errs))} |")
    print("\n**C**: certified optimal.  Certified error counts that disagree: "
          f"{bad if bad else 'none'}")


if __name__ == "__main__":
    main()
