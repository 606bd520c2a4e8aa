"""Where a stopped fit is stuck: fit one problem of the 70-problem suite for a time,
then list the root splits whose two children are stored, lowest bound first, with
each child's rows, bound, incumbent, leaf value, floor and pair values (a
diagnostic for the open problems, not a benchmark).

    FST_SHARED=../shared python benchmarks/root_splits.py compas_processed 0.02 \
        --time-limit 60 --top 25

It reads the search's store through `Search._lookup` after the fit (the search
object is caught as `fit` makes it).
"""
import argparse
import collections
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _data import load_gosdt14  # noqa: E402

import fst  # noqa: E402
import fst._classifier as fc  # noqa: E402


def _fit_keeping_search(X, y, lam, time_limit):
    caught = {}
    make, build = fc.Search, fc.build_problem

    def keep_search(*args, **kwargs):
        caught["search"] = make(*args, **kwargs)
        return caught["search"]

    def keep_problem(*args, **kwargs):
        caught["problem"] = build(*args, **kwargs)
        return caught["problem"]

    fc.Search, fc.build_problem = keep_search, keep_problem
    try:
        clf = fst.FastSmallTreeClassifier(regularization=lam, time_limit=time_limit)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fst.NotCertifiedWarning)
            clf.fit(X, y)
    finally:
        fc.Search, fc.build_problem = make, build
    return clf, caught["search"], caught["problem"]


def _side(rec):
    return (f"{rec['count']:6d} rows lb {rec['lb']:.4f} ub {rec['ub']:.4f} "
            f"leaf {rec['leaf']:.4f} floor {rec['floor']:.4f} g2 {rec['g2']:.4f} "
            f"g3 {rec['g3']:.4f}{' solved' if rec['solved'] else ''}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("regularization", type=float)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    lam = args.regularization
    X, y = load_gosdt14(args.dataset)
    clf, search, problem = _fit_keeping_search(X, y, lam, args.time_limit)
    n, nw = problem.n_rows, problem.n_words
    full = np.packbits(np.ones(64 * nw, dtype=bool) & (np.arange(64 * nw) < n),
                       bitorder="little").view(np.uint64).copy()
    root = search._lookup(full)
    print(f"{args.dataset} {lam:g}: {clf.status_}, root lb {root['lb']:.5f} "
          f"ub {root['ub']:.5f} (gap {(root['ub'] - root['lb']) / lam:.2f} lambda)")
    rows = []
    bits = np.asarray(problem.split_bits)
    for s in range(problem.n_splits):
        left = search._lookup(np.ascontiguousarray(bits[s] & full))
        right = search._lookup(np.ascontiguousarray(full & ~bits[s]))
        if left is not None and right is not None:
            rows.append((left["lb"] + right["lb"], s, left, right))
    rows.sort(key=lambda r: (r[0], r[1]))
    print(f"{len(rows)} of {problem.n_splits} root splits have both children stored")
    gaps = collections.Counter(int((root["ub"] - r[0]) / lam) for r in rows)
    print("lambdas below the incumbent: splits "
          + ", ".join(f"{g}: {c}" for g, c in sorted(gaps.items())))
    for bound, s, left, right in rows[: args.top]:
        print(f"split {s:5d} (column {problem.split_col[s]}, <= {problem.thresholds[s]:g}) "
              f"bound {bound:.5f}\n    left  {_side(left)}\n    right {_side(right)}")


if __name__ == "__main__":
    main()
