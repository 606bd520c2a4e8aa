"""Command line: fit the certified tree on a bundled data set or a CSV file.

    python -m fst                          # monk_2 at regularization 0.02
    python -m fst --dataset car_evaluation --regularization 0.005
    python -m fst --csv data.csv --regularization 0.02 --max-depth 4
    python -m fst --dpdt --max-depth 3     # DPDT: the accuracy/complexity front
"""
import argparse
import sys
import time
import warnings

import numpy as np
from sklearn.tree import export_text

from . import DPDTClassifier, FastSmallTreeClassifier, __version__
from .datasets import list_datasets, load_dataset


def _load_csv(path):
    """Numeric features, label in the last column; 'NA', '?' and '' are missing."""
    import csv

    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    missing = {"", "NA", "?", "nan", "NaN"}
    X = np.array([[np.nan if v in missing else float(v) for v in r[:-1]] for r in body])
    y = np.array([r[-1] for r in body])
    return X, y, header[:-1]


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m fst", description="Fit the provably optimal sparse decision tree.")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--dataset", default="monk_2", choices=list_datasets(),
                     help="bundled data set (default: monk_2)")
    src.add_argument("--csv", help="CSV file: numeric features, label in the last column")
    parser.add_argument("--regularization", "-l", type=float, default=0.02,
                        help="price of one leaf (default: 0.02)")
    parser.add_argument("--max-depth", type=int, default=None)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds")
    parser.add_argument("--dpdt", action="store_true",
                        help="fit DPDTClassifier instead and print its front "
                             "(--max-depth defaults to 3, --cart-depth to 4)")
    parser.add_argument("--cart-depth", type=int, default=4,
                        help="DPDT: depth of the generating CART (default: 4)")
    parser.add_argument("--version", action="version", version=f"fst {__version__}")
    args = parser.parse_args(argv)

    if args.csv:
        X, y, names = _load_csv(args.csv)
        source = args.csv
    else:
        X, y, names = load_dataset(args.dataset)
        source = f"bundled data set {args.dataset}"
    if args.dpdt:
        return _dpdt(args, X, y, names, source)
    clf = FastSmallTreeClassifier(regularization=args.regularization,
                                  max_depth=args.max_depth, time_limit=args.time_limit)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    seconds = time.perf_counter() - t0
    print(f"fst {__version__}: {source}, {X.shape[0]} rows, {X.shape[1]} features, "
          f"regularization {args.regularization}")
    print(export_text(clf.estimator_, feature_names=list(names)))
    print(f"objective   {clf.objective_:.6f}  (loss/n + {args.regularization} x "
          f"{clf.n_leaves_} leaves)")
    print(f"optimal_    {clf.optimal_}  (status {clf.status_}, lower bound "
          f"{clf.lower_bound_:.6f})")
    print(f"accuracy    {clf.score(X, y):.4f}")
    print(f"time        {seconds:.3f} s  ({clf.search_stats_['nodes_created']} subproblems)")
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    return 0


def _dpdt(args, X, y, names, source):
    depth = 3 if args.max_depth is None else args.max_depth
    clf = DPDTClassifier(max_depth=depth, cart_depth=args.cart_depth)
    t0 = time.perf_counter()
    clf.fit(X, y)
    seconds = time.perf_counter() - t0
    print(f"fst {__version__} DPDT: {source}, {X.shape[0]} rows, {X.shape[1]} features, "
          f"max_depth {depth}, cart_depth {args.cart_depth}")
    f = clf.pareto_front_
    print("  alpha from    alpha to   accuracy  expected tests  leaves  depth")
    for i in range(len(clf.trees_)):
        print(f"  {f['alpha_min'][i]:10.5f}  {f['alpha_max'][i]:10.5f}  "
              f"{f['accuracy'][i]:9.4f}  {f['expected_tests'][i]:14.3f}  "
              f"{f['n_leaves'][i]:6d}  {f['depth'][i]:5d}")
    print("most accurate tree (alpha = 0):")
    print(export_text(clf.estimator_, feature_names=list(names)))
    print(f"time        {seconds:.3f} s  ({clf.n_states_} states, "
          f"{clf.mdp_stats_['states_saved']} saved by sharing)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
