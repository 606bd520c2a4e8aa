"""Command line: fit the certified tree on a bundled data set or a CSV file.

    fst                                    # monk_2 at regularization 0.02
    fst data.csv                           # the CSV's last column is the label
    fst --dataset car_evaluation --regularization 0.005
    fst data.csv --target label --max-depth 4 --save model.joblib
    fst data.csv --min-samples-leaf 10     # every leaf holds 10 rows or more
    fst data.csv --max-leaf-nodes 4        # the best tree of at most 4 leaves
    fst train.csv --test test.csv --cv 5 --lambdas 0.005,0.01,0.02,0.05
    fst data.csv --path 0.005,0.1          # the certified path
    fst data.csv --front 6                 # the least loss of each size to 6 leaves
    fst --dpdt --max-depth 3               # DPDT: the accuracy/complexity front
    fst prices.csv --task regression       # FastSmallTreeRegressor (a target of
                                           # non-integer numbers is regression too)
"""
import argparse
import csv
import os
import sys
import time
import warnings

import numpy as np

from . import (DPDTClassifier, FastSmallTreeClassifier, FastSmallTreeClassifierCV,
               FastSmallTreeRegressor, FastSmallTreeRegressorCV, __version__,
               leaves_front, regularization_path)
from .datasets import list_datasets, load_dataset

_MISSING = {"", "NA", "?", "nan", "NaN"}


class CommandError(Exception):
    """A problem with the command's input, printed as one line."""


def _load_csv(path, target=None, sep=","):
    """(X, y, feature names) from a CSV file with a header row: the label is the
    column named `target` (the last one when None), every other column numeric;
    'NA', '?', 'nan' and '' are missing."""
    if not os.path.isfile(path):
        raise CommandError(f"no such file: {path}")
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f, delimiter=sep) if r]
    if len(rows) < 2:
        raise CommandError(f"{path}: needs a header row and at least one data row")
    header, body = rows[0], rows[1:]
    if target is None:
        t = len(header) - 1
    elif target in header:
        t = header.index(target)
    else:
        raise CommandError(f"{path}: no column named {target!r} (columns: "
                           f"{', '.join(header)})")
    names = [h for k, h in enumerate(header) if k != t]
    X = np.empty((len(body), len(names)))
    for i, r in enumerate(body, start=2):
        if len(r) != len(header):
            raise CommandError(f"{path}, line {i}: {len(r)} fields, the header has "
                               f"{len(header)}")
        vals = [v for k, v in enumerate(r) if k != t]
        for k, v in enumerate(vals):
            v = v.strip()
            if v in _MISSING:
                X[i - 2, k] = np.nan
                continue
            try:
                X[i - 2, k] = float(v)
            except ValueError:
                raise CommandError(
                    f"{path}, line {i}: column {names[k]!r} holds {v!r}, not a number "
                    "(encode text columns as numbers first, e.g. one column per "
                    "category)") from None
    y = np.array([r[t].strip() for r in body])
    return X, y, names


def _print_warnings(caught):
    """The warnings a fit gave, one line each on stderr, after its output."""
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)


def main(argv=None):
    try:
        return _main(argv)
    except (CommandError, ValueError) as exc:
        # ValueError: what an estimator refuses (a parameter or the data), named
        # by its message
        print(f"fst: error: {exc}", file=sys.stderr)
        return 2


def _time_limit(text):
    """--time-limit: seconds > 0, or 'none' for no limit."""
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"wants seconds > 0 or 'none', not {text!r}") from None
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"wants seconds > 0 or 'none' for no limit, not {text!r}")
    return value


def _min_samples_leaf(text):
    """--min-samples-leaf: a whole number >= 1, or a fraction of the rows in (0, 1)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value >= 1 and value == int(value):
        return int(value)
    if 0 < value < 1:
        return value
    raise argparse.ArgumentTypeError(
        f"wants a whole number >= 1 or a fraction in (0, 1), not {text!r}")


def _lambdas(text):
    """--lambdas: a comma-separated list of regularizations."""
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"wants numbers separated by commas (0.005,0.01,0.02), not {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("wants at least one value")
    if not all(np.isfinite(v) and v >= 0 for v in values):
        raise argparse.ArgumentTypeError(f"wants values >= 0, not {text!r}")
    return values


class _Parser(argparse.ArgumentParser):
    """argparse's parser with a short error: the problem and a pointer to --help
    instead of the whole usage text."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (fst --help lists the options)\n")


def _parser():
    parser = _Parser(
        prog="fst", description="Fit the provably optimal sparse decision tree.")
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="CSV file with a header row: numeric features and the label "
                             "(the same as --csv FILE)")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--dataset", choices=list_datasets(),
                     help="bundled data set (default: monk_2)")
    src.add_argument("--csv", help="CSV file with a header row: numeric features and "
                                   "the label")
    parser.add_argument("--target", help="the label's column (default: the last)")
    parser.add_argument("--sep", default=",", help="field separator (default: ,)")
    parser.add_argument("--task", choices=("auto", "classification", "regression"),
                        default="auto",
                        help="auto (default): regression when every label is a number "
                             "and some are not whole numbers, else classification")
    parser.add_argument("--regularization", "-l", type=float, default=None,
                        help="price of one leaf (default: 0.02; for regression 0.01, "
                             "in units of the training R^2)")
    parser.add_argument("--max-depth", type=int, default=None)
    parser.add_argument("--min-samples-leaf", type=_min_samples_leaf, default=1,
                        metavar="N",
                        help="rows every leaf holds at least: a whole number, or a "
                             "fraction of the rows below 1 (default: 1)")
    parser.add_argument("--max-leaf-nodes", type=int, default=None, metavar="K",
                        help="the most leaves the tree may have (at least 2)")
    parser.add_argument("--time-limit", type=_time_limit, default=60.0,
                        help="seconds a fit, or 'none' for no limit (default: 60)")
    parser.add_argument("--path", metavar="MIN,MAX",
                        help="print the certified regularization path over [MIN, MAX]")
    parser.add_argument("--front", type=int, metavar="K",
                        help="print the least training loss of a tree of at most k "
                             "leaves for k = 1 .. K, each certified (--time-limit: for "
                             "all of them), and the regularization path read from it")
    parser.add_argument("--cv", type=int, metavar="K",
                        help="choose the regularization by K-fold cross-validation, "
                             "printing each fold's score at each value as it is fitted")
    parser.add_argument("--lambdas", type=_lambdas, metavar="A,B,...",
                        help="with --cv: the regularizations compared (default: 8 from "
                             "0.005 to 0.1)")
    parser.add_argument("--test", metavar="FILE",
                        help="CSV file of held-out rows (same columns) to score on")
    parser.add_argument("--save", metavar="FILE",
                        help="save the fitted model with joblib")
    parser.add_argument("--dpdt", action="store_true",
                        help="fit DPDTClassifier instead and print its front "
                             "(--max-depth defaults to 3, --cart-depth to 4)")
    parser.add_argument("--cart-depth", type=int, default=None,
                        help="with --dpdt: depth of the generating CART (default: 4)")
    parser.add_argument("--version", action="version", version=f"fst {__version__}")
    return parser


def _check_options(args):
    """Options that cannot go together are an error, never silently ignored."""
    modes = [name for name, on in (("--cv", args.cv is not None),
                                   ("--path", args.path is not None),
                                   ("--front", args.front is not None),
                                   ("--dpdt", args.dpdt)) if on]
    if len(modes) > 1:
        raise CommandError(f"{' and '.join(modes)} cannot go together: choose one")
    if args.regularization is not None and modes:
        raise CommandError(f"--regularization does not apply to {modes[0]}"
                           + (" (give the values with --lambdas)" if modes[0] == "--cv"
                              else ""))
    if args.lambdas is not None and args.cv is None:
        raise CommandError("--lambdas applies to --cv")
    if args.cart_depth is not None and not args.dpdt:
        raise CommandError("--cart-depth applies to --dpdt")
    if args.min_samples_leaf != 1 and args.dpdt:
        raise CommandError("--min-samples-leaf does not apply to --dpdt")
    if args.max_leaf_nodes is not None and args.dpdt:
        raise CommandError("--max-leaf-nodes does not apply to --dpdt")
    if args.max_leaf_nodes is not None and args.front is not None:
        raise CommandError("--max-leaf-nodes does not apply to --front (K is its cap)")
    if args.front is not None and args.front < 1:
        raise CommandError(f"--front must be at least 1, not {args.front}")
    if args.max_leaf_nodes is not None and args.max_leaf_nodes < 2:
        raise CommandError(f"--max-leaf-nodes must be at least 2, not {args.max_leaf_nodes}")
    for name, value in (("--max-depth", args.max_depth), ("--cart-depth", args.cart_depth)):
        if value is not None and value < 1:
            raise CommandError(f"{name} must be at least 1, not {value}")
    if args.regularization is not None and not (np.isfinite(args.regularization)
                                                and args.regularization >= 0):
        raise CommandError("--regularization must be a number >= 0")
    if args.cv is not None and args.cv < 2:
        raise CommandError("--cv needs at least 2 folds")
    if args.file and (args.csv or args.dataset):
        raise CommandError(f"give the data once: {args.file} or "
                           f"{'--csv' if args.csv else '--dataset'}")


def _task(args, y):
    """'classification' or 'regression': as --task says, or for 'auto' from the
    labels (regression when all are numbers and some are not whole), with the
    line that states the choice (None when --task gave it)."""
    if args.task != "auto":
        return args.task, None
    try:
        values = np.asarray(y, dtype=np.float64)
    except ValueError:
        return "classification", None
    if np.all(np.isfinite(values)) and np.any(values != np.round(values)):
        return "regression", ("task        regression (the labels are numbers, not all "
                              "whole; --task classification to override)")
    return "classification", None


def _main(argv):
    args = _parser().parse_args(argv)
    _check_options(args)
    csv_path = args.file or args.csv
    if csv_path:
        X, y, names = _load_csv(csv_path, args.target, args.sep)
        source = csv_path
    else:
        if args.target is not None:
            raise CommandError("--target applies to CSV files")
        dataset = args.dataset or "monk_2"
        X, y, names = load_dataset(dataset)
        names = list(names)
        source = f"bundled data set {dataset}"
    time_limit = args.time_limit
    task, stated = _task(args, y)
    if task == "regression":
        if args.dpdt:
            raise CommandError("--dpdt is a classifier: it does not take a regression "
                               "target")
        try:
            y = np.asarray(y, dtype=np.float64)
        except ValueError:
            raise CommandError("--task regression needs numeric labels") from None
    if args.dpdt:
        return _dpdt(args, X, y, names, source, time_limit)
    print(f"fst {__version__}: {source}, {X.shape[0]} rows, {X.shape[1]} features",
          flush=True)
    if stated:
        print(stated, flush=True)
    if args.path:
        return _path(args, X, y, time_limit, task)
    if args.front is not None:
        return _front(args, X, y, time_limit, task)
    regression = task == "regression"
    score_name = "R^2     " if regression else "accuracy"
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        size = dict(max_depth=args.max_depth, min_samples_leaf=args.min_samples_leaf,
                    max_leaf_nodes=args.max_leaf_nodes, time_limit=time_limit)
        if args.cv:
            cv_class = FastSmallTreeRegressorCV if regression else FastSmallTreeClassifierCV
            model = cv_class(lambdas=args.lambdas, cv=args.cv, verbose=1, **size).fit(X, y)
            clf = model.best_estimator_
            print(f"cross-validation: regularization {model.regularization_:g}, mean "
                  f"{score_name.strip()} {model.best_score_:.4f} over {args.cv} folds "
                  f"({model.n_fits_} fits)")
        else:
            lam = args.regularization
            if regression:
                clf = model = FastSmallTreeRegressor(
                    regularization=0.01 if lam is None else lam, **size).fit(X, y)
            else:
                clf = model = FastSmallTreeClassifier(
                    regularization=0.02 if lam is None else lam, **size).fit(X, y)
    seconds = time.perf_counter() - t0
    print(clf.summary(feature_names=names))
    print(f"optimal_    {clf.optimal_}")
    print(f"{score_name}    {clf.score(X, y):.4f}  (training)")
    if args.test:
        Xt, yt, _ = _load_csv(args.test, args.target, args.sep)
        if Xt.shape[1] != X.shape[1]:
            raise CommandError(f"{args.test}: {Xt.shape[1]} feature columns, the "
                               f"training data has {X.shape[1]}")
        if regression:
            try:
                yt = np.asarray(yt, dtype=np.float64)
            except ValueError:
                raise CommandError(f"{args.test}: the labels must be numbers for "
                                   "regression") from None
        print(f"{score_name}    {model.score(Xt, yt):.4f}  (test, {Xt.shape[0]} rows)")
    print(f"time        {seconds:.3f} s  ({clf.search_stats_['nodes_created']} subproblems)")
    if args.save:
        import joblib
        joblib.dump(model, args.save)
        print(f"saved       {args.save}")
    _print_warnings(caught)
    return 0


def _path(args, X, y, time_limit, task):
    try:
        lo, hi = (float(v) for v in args.path.split(","))
    except ValueError:
        raise CommandError(f"--path wants MIN,MAX (two numbers), not {args.path!r}") from None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            path = regularization_path(X, y, lambda_min=lo, lambda_max=hi,
                                       max_depth=args.max_depth,
                                       min_samples_leaf=args.min_samples_leaf,
                                       max_leaf_nodes=args.max_leaf_nodes,
                                       time_limit=time_limit, task=task)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    print(path)
    _print_warnings(caught)
    return 0


def _front(args, X, y, time_limit, task):
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        front = leaves_front(X, y, max_leaf_nodes=args.front, max_depth=args.max_depth,
                             min_samples_leaf=args.min_samples_leaf,
                             time_limit=time_limit, task=task)
        path = front.regularization_path()
    print(front)
    print(path)
    print(f"time        {time.perf_counter() - t0:.3f} s  "
          f"({len(front.fits_['max_leaf_nodes'])} searches)")
    _print_warnings(caught)
    return 0


def _dpdt(args, X, y, names, source, time_limit):
    depth = 3 if args.max_depth is None else args.max_depth
    cart_depth = 4 if args.cart_depth is None else args.cart_depth
    clf = DPDTClassifier(max_depth=depth, cart_depth=cart_depth, time_limit=time_limit)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    seconds = time.perf_counter() - t0
    print(f"fst {__version__} DPDT: {source}, {X.shape[0]} rows, {X.shape[1]} features, "
          f"max_depth {depth}, cart_depth {cart_depth}")
    print(clf.summary(feature_names=names))
    print(f"time        {seconds:.3f} s  ({clf.n_states_} states, "
          f"{clf.mdp_stats_['states_saved']} saved by sharing)")
    _print_warnings(caught)
    return 0


if __name__ == "__main__":
    sys.exit(main())
