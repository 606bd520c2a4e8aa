"""Sample weights against no weights: each fit in its own process, the weighted and
the unweighted one of a pair run one after the other, their search seconds and
whole-process peak memory side by side.

    python benchmarks/run_weights.py [--repeats 3]

Pairs: breast_cancer at lambda = 0.05 without max_depth, with
``sample_weight = default_rng(0).random(569)`` (every row its own weight, so the
depth-limited engine counts them by leaf budget) and without; and the
make_classification problem of the leaf-budget benchmarks at 128,000 rows,
``max_depth=2``, lambda = 0.01, the same random weights against none.
"""
import argparse
import json
import sys

from _proc import run_one

PAIRS = [("sklearn-breast_cancer", None, 0.05), ("synthetic-128000", 2, 0.01)]


def worker(name, depth, lam, weighted):
    import time
    import warnings

    import numpy as np

    from _data import load_gosdt14
    from _proc import peak_rss
    from fst import FastSmallTreeClassifier

    X, y = load_gosdt14(name)
    w = np.random.default_rng(0).random(len(y)) if weighted else None
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = FastSmallTreeClassifier(regularization=lam, max_depth=depth,
                                      time_limit=600).fit(X, y, sample_weight=w)
    print(json.dumps({"optimal": bool(clf.optimal_), "objective": clf.objective_,
                      "leaves": int(clf.n_leaves_), "engine": clf.search_stats_["engine"],
                      "search_s": clf.search_stats_["seconds"],
                      "fit_s": time.perf_counter() - t, "peak_mb": peak_rss() / 1e6}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        name, depth, lam, weighted = a.worker
        worker(name, None if depth == "none" else int(depth), float(lam), weighted == "1")
        return
    print("| data | max_depth | lambda | weights | certified | leaves | search s (median) "
          "| peak MB | weighted / unweighted |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, depth, lam in PAIRS:
        med = {}
        for weighted in (0, 1):
            runs = []
            for _ in range(a.repeats):
                runs.append(run_one([sys.executable, __file__, "--worker", name,
                                     "none" if depth is None else str(depth), str(lam),
                                     str(weighted)], 900, {"search_s": float("nan")}))
            runs.sort(key=lambda r: r["search_s"])
            r = runs[len(runs) // 2]
            med[weighted] = r["search_s"]
            ratio = f"{med[1] / med[0]:.2f}" if weighted else ""
            print(f"| {name} | {depth} | {lam} | {'random' if weighted else 'none'} | "
                  f"{r.get('optimal')} | {r.get('leaves')} | {r['search_s']:.3f} | "
                  f"{r.get('peak_mb', float('nan')):.0f} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
