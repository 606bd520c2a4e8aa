"""The certified regularization path against independent fits, on the gosdt14 data.

For each data set: `fst.regularization_path` over [0.005, 0.1] with a per-fit time
limit (the number of distinct trees, how many are certified on their whole
interval, the fits it ran and its time), and five independent
FastSmallTreeClassifier fits at the gosdt14 penalties 0.1, 0.05, 0.02, 0.01 and
0.005 with the same limit (their time, how many certified, and whether the path's
tree at each penalty has the independent fit's objective).

    FST_SHARED=../shared python benchmarks/run_path.py --time-limit 10
"""
import argparse
import json
import time
import warnings

import numpy as np

from _data import PENALTIES, gosdt14_names, load_gosdt14
from fst import (ConstantTreeWarning, FastSmallTreeClassifier, NotCertifiedWarning,
                 regularization_path)


def one(name, time_limit):
    X, y = load_gosdt14(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotCertifiedWarning)
        warnings.simplefilter("ignore", ConstantTreeWarning)
        t0 = time.perf_counter()
        path = regularization_path(X, y, lambda_min=min(PENALTIES),
                                   lambda_max=max(PENALTIES), time_limit=time_limit)
        path_s = time.perf_counter() - t0
        fits_s, certified, agree = 0.0, 0, 0
        for lam in PENALTIES:
            t0 = time.perf_counter()
            clf = FastSmallTreeClassifier(regularization=lam, time_limit=time_limit).fit(X, y)
            fits_s += time.perf_counter() - t0
            certified += bool(clf.optimal_)
            est = path.estimator_at(lam)
            value = est.objective_ - est.regularization * est.n_leaves_ + lam * est.n_leaves_
            agree += abs(value - clf.objective_) <= 1e-9
    f = path.pareto_front_
    return {"data": name, "rows": X.shape[0], "trees": path.n_trees_,
            "certified_trees": int(f["optimal"].sum()), "path_fits": len(path.fits_["lambda"]),
            "path_fits_certified": int(path.fits_["optimal"].sum()),
            "path_s": path_s, "five_fits_s": fits_s, "five_certified": certified,
            "same_objective_at_the_five": agree}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=None)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--out", default="path_results.json")
    args = ap.parse_args()
    names = args.datasets.split(",") if args.datasets else gosdt14_names()
    rows = []
    for name in names:
        r = one(name, args.time_limit)
        rows.append(r)
        print(f"{name:22s} trees={r['trees']:3d} certified={r['certified_trees']:3d} "
              f"fits={r['path_fits']:3d} path={r['path_s']:8.2f}s "
              f"five fits={r['five_fits_s']:8.2f}s ({r['five_certified']}/5 certified) "
              f"same objective at the five: {r['same_objective_at_the_five']}/5", flush=True)
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    print("| data | trees | certified trees | path fits | path s | five fits s | "
          "five certified | same objective at the five |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['data']} | {r['trees']} | {r['certified_trees']} | {r['path_fits']} | "
              f"{r['path_s']:.2f} | {r['five_fits_s']:.2f} | {r['five_certified']}/5 | "
              f"{r['same_objective_at_the_five']}/5 |")
    tp = sum(r["path_s"] for r in rows)
    tf = sum(r["five_fits_s"] for r in rows)
    print(f"\nsummed: path {tp:.1f} s, five fits {tf:.1f} s, ratio {tp / max(tf, 1e-9):.2f}; "
          f"trees {sum(r['trees'] for r in rows)}, certified "
          f"{sum(r['certified_trees'] for r in rows)}")


if __name__ == "__main__":
    main()
