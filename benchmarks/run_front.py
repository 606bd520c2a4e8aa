"""The least training error for each number of leaves: fst's leaves_front beside
STreeD under a node budget, on the same binary columns, side by side.

    python benchmarks/run_front.py
    python benchmarks/run_front.py --datasets monk_2,tic-tac-toe --leaves 8 --time-limit 60

fst: ``leaves_front(X, y, max_leaf_nodes=K, time_limit=T)``, one process for
the whole front (every count k = 1 .. K, each certified by its own search under
the leaf cap k; T is for all of them).  STreeD (``STreeDClassifier``, accuracy,
``cost_complexity=0``): one process for each k = 2 .. K with
``max_num_nodes = k - 1`` branch nodes and ``max_depth = k - 1`` (a tree of k
leaves has depth at most k - 1, so this is the same problem), each with T
seconds.  Its fits' times are summed.  Every tree is re-scored here from its
predictions: the certified error counts of both must agree.  The gosdt14 sets
whose columns are all 0/1, so that both solvers get the identical matrix.
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
from _data import load_gosdt14  # noqa: E402
from _proc import peak_rss, run_one  # noqa: E402

BINARY_SETS = ["monk_1", "monk_2", "monk_3", "tic-tac-toe", "car_evaluation", "coupon_bar"]


def one(solver, name, leaves, time_limit):
    X, y = load_gosdt14(name)
    if solver == "fst":
        from fst import leaves_front
    else:
        from pystreed import STreeDClassifier
    from sklearn.tree import DecisionTreeClassifier
    DecisionTreeClassifier().fit(X[:2], y[:2])     # sklearn's lazy set-up, off the clock
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        if solver == "fst":
            front = leaves_front(X, y, max_leaf_nodes=leaves, time_limit=time_limit)
            seconds = time.perf_counter() - t0
            errors = [int(round((t.predict(X.astype(np.float32)) != y).sum()))
                      for t in front.trees_]
            certified = front.front_["optimal"].tolist()
        else:
            k = leaves
            m = STreeDClassifier(max_depth=k - 1, max_num_nodes=k - 1, cost_complexity=0.0,
                                 time_limit=time_limit).fit(X, y)
            seconds = time.perf_counter() - t0
            errors = [int((m.predict(X) != y).sum())]
            certified = [bool(m.fit_result.is_optimal())]
    return {"solver": solver, "dataset": name, "leaves": leaves, "seconds": seconds,
            "errors": errors, "certified": certified, "peak_mb": peak_rss() / 1e6}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(BINARY_SETS))
    ap.add_argument("--leaves", type=int, default=8)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "front.jsonl"))
    ap.add_argument("--one", nargs=4, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        s, name, k, tl = args.one
        print(json.dumps(one(s, name, int(k), float(tl))))
        return
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    K, T = args.leaves, args.time_limit
    print(f"| data | fst: errors for k = 1..{K} (certified) | fst s | STreeD: errors for "
          f"k = 2..{K} | STreeD s (summed) | agree |")
    print("|---|---|---|---|---|---|")
    with open(args.out, "w") as fh:
        for name in args.datasets.split(","):
            failed = {"seconds": float("nan"), "errors": [], "certified": []}
            f = run_one([sys.executable, __file__, "--one", "fst", name, str(K), str(T)],
                        2 * T + 60, dict(failed, solver="fst", dataset=name))
            fh.write(json.dumps(f) + "\n")
            peers = []
            for k in range(2, K + 1):
                r = run_one([sys.executable, __file__, "--one", "streed", name, str(k), str(T)],
                            2 * T + 60, dict(failed, solver="streed", dataset=name, leaves=k))
                fh.write(json.dumps(r) + "\n")
                peers.append(r)
            fh.flush()
            ours = ", ".join(f"{e}{'' if c else '?'}" for e, c in zip(f["errors"], f["certified"]))
            theirs = ", ".join(f"{r['errors'][0] if r['errors'] else 'x'}"
                               f"{'' if r['certified'] and r['certified'][0] else '?'}"
                               for r in peers)
            agree = all(not (r["certified"] and r["certified"][0] and k - 1 < len(f["errors"])
                             and f["certified"][k - 1])
                        or r["errors"][0] == f["errors"][k - 1]
                        for k, r in zip(range(2, K + 1), peers))
            print(f"| {name} | {ours} | {f['seconds']:.2f} | {theirs} | "
                  f"{sum(r['seconds'] for r in peers):.2f} | {'yes' if agree else 'NO'} |",
                  flush=True)
    print("\n(?: not certified)")


if __name__ == "__main__":
    main()
