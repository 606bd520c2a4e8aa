"""Command line: fit the certified tree on a bundled data set or a CSV file.

    fst                                    # monk_2, the regularization chosen by CV
    fst data.csv                           # the CSV's last column is the label
    fst data.csv --one-hot                 # text columns as 0/1 columns
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
import threading
import time
import warnings

import numpy as np

from . import (DPDTClassifier, FastSmallTreeClassifier, FastSmallTreeClassifierCV,
               FastSmallTreeRegressor, FastSmallTreeRegressorCV, __version__,
               leaves_front, regularization_path)
from ._path import DeadlinePassed
from .datasets import list_datasets, load_dataset

_MISSING = {"", "NA", "?", "nan", "NaN"}

# The regularizations cross-validation compares when --lambdas does not say.
_CV_LAMBDAS = tuple(float(v) for v in np.geomspace(0.001, 0.1, 8))

# Seconds the cross-validation over trees of any depth may take, after the one
# over shallow trees, when the command does not set the depth.
_DEEPER_SECONDS = 10.0

# Seconds of work before its progress lines are printed.
_PROGRESS_AFTER = 3.0


class CommandError(Exception):
    """A problem with the command's input, printed as one line."""


def _read_csv(path, target=None, sep=","):
    """(header names of the features, their text columns, labels) of a CSV file
    with a header row: the label is the column named `target` (the last one
    when None)."""
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
    for i, r in enumerate(body, start=2):
        if len(r) != len(header):
            raise CommandError(f"{path}, line {i}: {len(r)} fields, the header has "
                               f"{len(header)}")
    names = [h for k, h in enumerate(header) if k != t]
    columns = [[r[k].strip() for r in body] for k in range(len(header)) if k != t]
    y = np.array([r[t].strip() for r in body])
    return names, columns, y


def _number(v):
    """A field's number: NaN when missing, None when it is text."""
    if v in _MISSING:
        return np.nan
    try:
        return float(v)
    except ValueError:
        return None


class _Encoding:
    """How the feature columns of a CSV file become numbers: each column is read
    as numbers, or with --one-hot a column holding text becomes one 0/1 column
    per category (one column for the second of two, as a yes/no column needs no
    more); a missing field is NaN in each of its column's indicators.  Learnt
    from the training file and applied unchanged to a --test file: a category
    the training rows lack is 0 in every indicator."""

    def __init__(self, path, names, columns, one_hot):
        self.n_columns = len(names)
        self.categories = {}          # column index -> its categories, sorted
        for k, (name, col) in enumerate(zip(names, columns)):
            for i, v in enumerate(col):
                if _number(v) is not None:
                    continue
                if not one_hot:
                    raise CommandError(
                        f"{path}, line {i + 2}: column {name!r} holds {v!r}, not a "
                        "number (--one-hot encodes text columns, one 0/1 column "
                        "per category)")
                self.categories[k] = sorted({v for v in col if v not in _MISSING})
                break
        self.names = []
        for k, name in enumerate(names):
            cats = self.categories.get(k)
            if cats is None:
                self.names.append(name)
            else:
                self.names.extend(f"{name}={c}" for c in self._kept(cats))

    @classmethod
    def numeric(cls, names):
        """The encoding of columns that are all numeric (a bundled data set's)."""
        return cls(None, names, [[] for _ in names], one_hot=False)

    @staticmethod
    def _kept(cats):
        return cats[1:] if len(cats) == 2 else cats

    def transform(self, path, columns):
        if len(columns) != self.n_columns:
            raise CommandError(f"{path}: {len(columns)} feature columns, the "
                               f"training data has {self.n_columns}")
        n = len(columns[0]) if columns else 0
        X = np.empty((n, len(self.names)))
        j = 0
        for k, col in enumerate(columns):
            cats = self.categories.get(k)
            if cats is None:
                for i, v in enumerate(col):
                    x = _number(v)
                    if x is None:
                        raise CommandError(
                            f"{path}, line {i + 2}: column {self.names[j]!r} holds "
                            f"{v!r}, not a number")
                    X[i, j] = x
                j += 1
                continue
            kept = self._kept(cats)
            missing = np.array([v in _MISSING for v in col])
            for c in kept:
                X[:, j] = np.where(missing, np.nan,
                                   np.array([v == c for v in col], dtype=np.float64))
                j += 1
        return X


def _load_csv(path, target=None, sep=",", one_hot=False):
    """(X, y, feature names, the encoding) of a CSV file with a header row; 'NA',
    '?', 'nan' and '' are missing."""
    names, columns, y = _read_csv(path, target, sep)
    encoding = _Encoding(path, names, columns, one_hot)
    return encoding.transform(path, columns), y, encoding.names, encoding


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


def _max_depth(text):
    """--max-depth: a whole number, or 'none' for no limit."""
    if text.strip().lower() == "none":
        return "none"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"wants a whole number >= 1 or 'none', not {text!r}") from None
    return value        # below 1: refused with the other options' checks


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
    parser.add_argument("--one-hot", action="store_true",
                        help="encode each text column as one 0/1 column per category "
                             "(one column for a column of two), named column=category")
    parser.add_argument("--task", choices=("auto", "classification", "regression"),
                        default="auto",
                        help="auto (default): regression when every label is a number "
                             "and some are not whole numbers, else classification")
    parser.add_argument("--regularization", "-l", type=float, default=None,
                        help="price of one leaf, in units of the training accuracy "
                             "(for regression of the training R^2); without it, the "
                             "price is chosen by 5-fold cross-validation")
    parser.add_argument("--max-depth", type=_max_depth, default=None, metavar="D",
                        help="the deepest a leaf may be, or 'none' (default: none; "
                             "where cross-validation chooses the regularization "
                             "and no size is given, depth 3, then any depth "
                             "where that certifies within "
                             f"{_DEEPER_SECONDS:g} s and scores higher)")
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
                        help="choose the regularization by K-fold cross-validation "
                             "(without --regularization it is chosen by 5-fold), "
                             "printing each fold's score at each value as it is fitted")
    parser.add_argument("--lambdas", type=_lambdas, metavar="A,B,...",
                        help="the regularizations cross-validation compares (default: "
                             f"{len(_CV_LAMBDAS)} from {_CV_LAMBDAS[0]:g} to "
                             f"{_CV_LAMBDAS[-1]:g})")
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
    if args.lambdas is not None and (modes or args.regularization is not None) \
            and args.cv is None:
        raise CommandError("--lambdas applies where the regularization is chosen by "
                           "cross-validation (without --regularization, or with --cv)")
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
    if args.max_depth == "none" and args.dpdt:
        raise CommandError("--dpdt needs a depth: --max-depth none does not apply")
    depth = None if args.max_depth == "none" else args.max_depth
    for name, value in (("--max-depth", depth), ("--cart-depth", args.cart_depth)):
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
        X, y, names, encoding = _load_csv(csv_path, args.target, args.sep, args.one_hot)
        source = csv_path
    else:
        if args.target is not None:
            raise CommandError("--target applies to CSV files")
        if args.one_hot:
            raise CommandError("--one-hot applies to CSV files")
        dataset = args.dataset or "monk_2"
        X, y, names = load_dataset(dataset)
        names = list(names)
        source = f"bundled data set {dataset}"
        encoding = _Encoding.numeric(names)     # a --test file's columns
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
    print(f"fst {__version__}: {source}, {X.shape[0]} rows, {X.shape[1]} features"
          + (f" ({len(encoding.categories)} text columns one-hot encoded)"
             if encoding.categories else ""), flush=True)
    if stated:
        print(stated, flush=True)
    if args.path:
        return _path(args, X, y, time_limit, task)
    if args.front is not None:
        return _front(args, X, y, time_limit, task)
    regression = task == "regression"
    if args.test:       # read first: a bad file is refused before the fit
        Xt, yt = _load_test(args, encoding, y, regression)
    score_name = "R^2     " if regression else "accuracy"
    cross_validate = args.regularization is None
    # the regularization chosen by cross-validation, among trees of depth 3 or
    # less unless the command sets a size: the depth-limited search certifies
    # each fold's path in seconds, where an unlimited one at the grid's small
    # values can take minutes on a noisy table
    max_depth = _depth(args.max_depth,
                       3 if cross_validate and args.max_leaf_nodes is None else None)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        size = dict(max_depth=max_depth, min_samples_leaf=args.min_samples_leaf,
                    max_leaf_nodes=args.max_leaf_nodes, time_limit=time_limit)
        if cross_validate:
            folds = _folds(args.cv, y, regression)
            lambdas = _CV_LAMBDAS if args.lambdas is None else args.lambdas
            print(f"choosing the regularization by {folds}-fold cross-validation over "
                  f"{_grid_text(lambdas)}, "
                  + ("trees of any depth" if max_depth is None
                     else f"trees of depth {max_depth} or less")
                  + (f" and at most {args.max_leaf_nodes} leaves"
                     if args.max_leaf_nodes else "")
                  + ("" if args.cv else " (--regularization fixes it)"), flush=True)
            cv_class = FastSmallTreeRegressorCV if regression else FastSmallTreeClassifierCV
            # --cv prints every fold's line; the default only when it lasts
            with _LateOutput(0.0 if args.cv else _PROGRESS_AFTER):
                model = cv_class(lambdas=lambdas, cv=folds, verbose=1, n_jobs=-1,
                                 **size).fit(X, y)
            model.set_params(verbose=0)
            print(_cv_line(model, score_name, folds), flush=True)
            if args.max_depth is None and args.max_leaf_nodes is None:
                model = _try_any_depth(model, cv_class, X, y, lambdas, folds, size,
                                       score_name, bool(args.cv))
            clf = model.best_estimator_
        else:
            estimator = FastSmallTreeRegressor if regression else FastSmallTreeClassifier
            with _LateOutput(_PROGRESS_AFTER):
                # verbose=2: a progress line every few seconds, held back unless
                # the fit lasts past _PROGRESS_AFTER
                clf = model = estimator(regularization=args.regularization, verbose=2,
                                        **size).fit(X, y)
            clf.set_params(verbose=0)
    seconds = time.perf_counter() - t0
    print(clf.summary(feature_names=names))
    print(f"optimal_    {clf.optimal_}")
    print(f"{score_name}    {clf.score(X, y):.4f}  (training)")
    if args.test:
        print(f"{score_name}    {model.score(Xt, yt):.4f}  (test, {Xt.shape[0]} rows)")
    print(f"time        {seconds:.3f} s  ({clf.search_stats_['nodes_created']} subproblems"
          + (f" in the refit; {model.n_fits_} fits in the folds" if cross_validate else "")
          + ")")
    if args.save:
        import joblib
        joblib.dump(model, args.save)
        print(f"saved       {args.save}")
    _print_warnings(caught)
    return 0


def _load_test(args, encoding, y, regression):
    """(X, y) of the --test file, encoded as the training data was, its labels
    read as the training labels are (numbers for regression, and for a bundled
    data set's numeric classes)."""
    _, columns, yt = _read_csv(args.test, args.target, args.sep)
    Xt = encoding.transform(args.test, columns)
    if regression:
        try:
            return Xt, np.asarray(yt, dtype=np.float64)
        except ValueError:
            raise CommandError(f"{args.test}: the labels must be numbers for "
                               "regression") from None
    if np.issubdtype(np.asarray(y).dtype, np.number):
        # a bundled data set's classes are numbers, a file's labels text
        try:
            return Xt, np.asarray(yt, dtype=np.float64).astype(np.asarray(y).dtype)
        except ValueError:
            raise CommandError(f"{args.test}: the labels must be the training "
                               "data's classes (numbers)") from None
    return Xt, yt


def _cv_line(model, score_name, folds):
    depth = model.max_depth
    return (f"cross-validation: regularization {model.regularization_:g}, mean "
            f"{score_name.strip()} {model.best_score_:.4f} over {folds} folds, "
            + ("trees of any depth" if depth is None else f"depth <= {depth}")
            + f" ({model.n_fits_} fits"
            + ("" if model.cv_results_["optimal"].all() else ", not all certified")
            + ")")


def _try_any_depth(shallow, cv_class, X, y, lambdas, folds, size, score_name, loud):
    """The same cross-validation over trees of any depth, every fit stopped
    within _DEEPER_SECONDS of its start: its choice replaces the shallow one
    when every fit of its folds is certified and its mean score is higher.  A
    binary table's unlimited search often certifies in a second or two and
    wins clearly (monk_2: 0.83 against 0.62); a noisy continuous one's
    seldom certifies the grid's small values in time, and the shallow choice
    stands.  Returns the cross-validation chosen."""
    print(f"trying trees of any depth for at most {_DEEPER_SECONDS:g} s "
          "(--max-depth fixes the depth)", flush=True)
    deep = cv_class(lambdas=lambdas, cv=folds, verbose=1, refit=False, n_jobs=-1,
                    **dict(size, max_depth=None))
    deep._deadline = time.perf_counter() + _DEEPER_SECONDS
    try:
        with _LateOutput(0.0 if loud else _PROGRESS_AFTER):
            deep.fit(X, y)
        certified = deep.cv_results_["optimal"].all()
    except DeadlinePassed:
        certified = False
    deep.set_params(verbose=0)
    if not certified:
        print(f"trees of any depth: not every fold's fit certified within "
              f"{_DEEPER_SECONDS:g} s; depth <= {shallow.max_depth} kept", flush=True)
        return shallow
    print(_cv_line(deep, score_name, folds), flush=True)
    if deep.best_score_ <= shallow.best_score_:
        print(f"no better than depth <= {shallow.max_depth}: the shallower kept",
              flush=True)
        return shallow
    deep._refit(X, y)
    return deep


def _depth(given, default):
    """The fit's max_depth from --max-depth: the number given, None for 'none',
    the default when not given."""
    if given == "none":
        return None
    return default if given is None else given


def _folds(asked, y, regression):
    """The folds of the cross-validation: --cv's number, else 5 (fewer when the
    rarest class or the rows are too few for 5)."""
    if asked is not None:
        return asked
    if regression:
        most = len(y) // 2
    else:
        most = int(np.unique(y, return_counts=True)[1].min())
    if most < 2:
        raise CommandError(
            "too few rows to choose the regularization by cross-validation"
            + ("" if regression else " (a class has a single row)")
            + ": give one with --regularization")
    return min(5, most)


def _grid_text(lambdas):
    lambdas = sorted(lambdas)
    if len(lambdas) == 1:
        return f"the value {lambdas[0]:g}"
    return f"{len(lambdas)} values from {lambdas[0]:g} to {lambdas[-1]:g}"


class _LateOutput:
    """Holds back what is printed inside the block until it has lasted `seconds`:
    a quick run prints nothing of its progress, a long one prints the lines held
    so far when the time is up and every line after as it comes.  The progress
    lines come from the estimators' `verbose` output on this thread or the
    fold threads, all through sys.stdout."""

    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        self.out = sys.stdout
        self.held = []
        self.live = self.seconds <= 0
        self.lock = threading.Lock()
        self.timer = threading.Timer(self.seconds, self._release)
        self.timer.daemon = True
        sys.stdout = self
        self.timer.start()
        return self

    def _release(self):
        with self.lock:
            if not self.live:
                self.live = True
                self.out.write("".join(self.held))
                self.out.flush()
                self.held = []

    def write(self, text):
        with self.lock:
            if self.live:
                self.out.write(text)
            else:
                self.held.append(text)
        return len(text)

    def flush(self):
        with self.lock:
            if self.live:
                self.out.flush()

    def __exit__(self, *exc):
        self.timer.cancel()
        with self.lock:
            self.live = True        # a line written after the block passes straight
            self.held = []
        sys.stdout = self.out
        return False


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
