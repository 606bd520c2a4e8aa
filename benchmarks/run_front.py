"""The least training error for each number of leaves: fst's leaves_front beside
STreeD under a node budget, on the same binary columns, side by side.

    python benchmarks/run_front.py
    python benchmarks/run_front.py --datasets monk_2,tic-tac-toe --leaves 8 --time-limit 60
    python benchmarks/run_front.py --cap            # one fit of max_leaf_nodes=K each
    python benchmarks/run_front.py --datasets coupon_carryout,quantiles-fico_1k

With ``--cap`` each solver makes one fit of at most K leaves instead of the
front (fst: ``FastSmallTreeClassifier(regularization=0, max_leaf_nodes=K)``);
with ``--cap --lam L`` fst's alone at regularization L (the error rate plus L a
leaf; the table in objectives): STreeD takes a node budget or a cost
complexity, not both ("Either set the number of nodes below the limited imposed
by the maximum depth ... or set the cost-complexity to non-zero, but not
both"), and no other peer takes a leaf cap.  To compare two builds, run it
with each checkout first on PYTHONPATH.
A name ``quantiles-<set>`` is a gosdt14 set (or ``sklearn-<set>``, ``r-<set>``,
``quantbnb-<set>``: `_data.load_gosdt14`) binarised here, so that both solvers
get the identical 0/1 matrix: ``x <= q`` for q its
column's quartiles (each distinct cut once; a column of two values is kept as
its indicator).

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


def quantile_columns(X):
    """0/1 columns x <= q for q each column's distinct quartiles (NaN rows on
    the right side); a column of at most two values gives its one cut."""
    cols = []
    for j in range(X.shape[1]):
        x = X[:, j]
        vals = np.unique(x[~np.isnan(x)])
        cuts = vals[:1] if len(vals) <= 2 else np.unique(np.nanquantile(x, [0.25, 0.5, 0.75]))
        for q in cuts:
            c = np.where(np.isnan(x), 0.0, (x <= q).astype(float))
            if 0 < c.sum() < len(c):
                cols.append(c)
    return np.column_stack(cols)


def load(name):
    """(X, y) of a benchmark set: a gosdt14 set, or one binarised here; the
    labels as 0 .. K - 1 (STreeD takes only whole-number labels)."""
    if name.startswith("quantiles-"):
        X, y = load_gosdt14(name[len("quantiles-"):])
        X = quantile_columns(np.asarray(X, dtype=float))
    else:
        X, y = load_gosdt14(name)
    return X, np.unique(y, return_inverse=True)[1]


def one(solver, name, leaves, time_limit, cap=False, lam=0.0):
    X, y = load(name)
    if solver == "fst":
        from fst import FastSmallTreeClassifier, leaves_front
    else:
        from pystreed import STreeDClassifier
    from sklearn.tree import DecisionTreeClassifier
    DecisionTreeClassifier().fit(X[:2], y[:2])     # sklearn's lazy set-up, off the clock
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        if solver == "fst" and cap:
            clf = FastSmallTreeClassifier(regularization=lam, max_leaf_nodes=leaves,
                                          time_limit=time_limit).fit(X, y)
            seconds = time.perf_counter() - t0
            errors = [int((clf.predict(X) != y).sum())]
            certified = [bool(clf.optimal_)]
            n_leaves = clf.n_leaves_
        elif solver == "fst":
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
            n_leaves = m.get_n_leaves()
    out = {"solver": solver, "dataset": name, "leaves": leaves, "seconds": seconds,
           "errors": errors, "certified": certified, "peak_mb": peak_rss() / 1e6}
    if cap:
        # the objective of the tree, re-scored: its error rate plus lam a leaf
        out["objective"] = errors[0] / len(y) + lam * int(n_leaves)
        out["n_leaves"] = int(n_leaves)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(BINARY_SETS))
    ap.add_argument("--leaves", type=int, default=8)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--cap", action="store_true",
                    help="one fit of at most --leaves leaves each, not the front")
    ap.add_argument("--lam", type=float, default=0.0,
                    help="with --cap: the regularization of both solvers' fits")
    ap.add_argument("--out", default=None)
    ap.add_argument("--one", nargs=6, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        s, name, k, tl, cap, lam = args.one
        print(json.dumps(one(s, name, int(k), float(tl), cap == "cap", float(lam))))
        return
    if args.lam and not args.cap:
        ap.error("--lam goes with --cap (the front is at regularization 0)")
    if args.out is None:
        args.out = os.path.join(HERE, "results", "cap.jsonl" if args.cap else "front.jsonl")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    K, T = args.leaves, args.time_limit
    mode = "cap" if args.cap else "front"
    if args.cap:
        cap_table(args, K, T)
        return
    print(f"| data | fst: errors for k = 1..{K} (certified) | fst s | STreeD: errors for "
          f"k = 2..{K} | STreeD s (summed) | agree |")
    print("|---|---|---|---|---|---|")
    with open(args.out, "w") as fh:
        for name in args.datasets.split(","):
            f = fit_in_process(fh, "fst", name, K, T, mode, 0.0)
            peers = [fit_in_process(fh, "streed", name, k, T, mode, 0.0)
                     for k in range(2, K + 1)]
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


def fit_in_process(fh, solver, name, k, time_limit, mode, lam):
    """One solver's fit (the front to k, or one fit of at most k leaves) in its
    own process, its record written to fh and returned (a failure's record
    when it crashed or ran out of time)."""
    failed = {"seconds": float("nan"), "errors": [], "certified": [], "solver": solver,
              "dataset": name, "leaves": k}
    r = run_one([sys.executable, __file__, "--one", solver, name, str(k), str(time_limit),
                 mode, repr(lam)], 2 * time_limit + 60, failed)
    fh.write(json.dumps(r) + "\n")
    return r


def cap_table(args, K, T):
    """One fit of at most K leaves each, side by side, a table row a set (at
    --lam, the trees' objectives in place of their errors)."""
    if args.lam:
        lam_table(args, K, T)
        return
    print("| data | rows x columns | fst errors | fst s | STreeD errors | STreeD s | "
          "ratio | agree |")
    print("|---|---|---|---|---|---|---|---|")
    with open(args.out, "w") as fh:
        for name in args.datasets.split(","):
            f, s = (fit_in_process(fh, solver, name, K, T, "cap", 0.0)
                    for solver in ("fst", "streed"))
            shape = "x".join(str(v) for v in load(name)[0].shape)

            def cell(r):
                return (f"{r['errors'][0]}{'' if r['certified'][0] else '?'}"
                        if r["errors"] else "x")
            agree = (not (f["errors"] and s["errors"] and f["certified"][0]
                          and s["certified"][0]) or f["errors"][0] == s["errors"][0])
            print(f"| {name} | {shape} | {cell(f)} | {f['seconds']:.2f} | {cell(s)} | "
                  f"{s['seconds']:.2f} | {f['seconds'] / s['seconds']:.2f} | "
                  f"{'yes' if agree else 'NO'} |", flush=True)
    print("\n(?: not certified; ratio: fst's seconds over STreeD's)")


def lam_table(args, K, T):
    """fst's fit of at most K leaves at regularization --lam, a row a set."""
    print("| data | rows x columns | objective | leaves | certified | fst s |")
    print("|---|---|---|---|---|---|")
    with open(args.out, "w") as fh:
        for name in args.datasets.split(","):
            f = fit_in_process(fh, "fst", name, K, T, "cap", args.lam)
            shape = "x".join(str(v) for v in load(name)[0].shape)
            print(f"| {name} | {shape} | {f.get('objective', float('nan')):.5f} | "
                  f"{f.get('n_leaves', '')} | {f['certified'][0] if f['certified'] else 'x'} | "
                  f"{f['seconds']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
