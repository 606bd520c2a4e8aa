"""Trees of five leaves and more on continuous columns: `max_leaf_nodes` fits and
leaves fronts at lam = 0, each case in its own process, one line a case.

Cases (`--cases`, all by default):

* ``synthetic125-5``, ``synthetic125-6``: the first 125 rows of a random
  permutation (``RandomState(0)``) of ``make_classification(2000, n_features=8,
  n_informative=5, n_redundant=1, flip_y=0.05, class_sep=0.8,
  random_state=0)``, ``max_leaf_nodes`` 5 and 6, 60 s;
* ``synthetic500-front``: its first 500 rows, ``leaves_front`` to 8 leaves, 30 s;
* ``breast_cancer-5`` (60 s), ``breast_cancer-5@120`` (120 s), ``breast_cancer-6``
  (20 s), ``breast_cancer-6@60`` (60 s): a case's time limit, where it is not
  the default, follows ``@`` (any case's name takes one);
* ``breast_cancer_balanced-5``: ``class_weight='balanced'`` (a cost matrix,
  not a unit cost), ``max_leaf_nodes=5``, 120 s;
* ``diabetes-5``: the regressor at ``max_leaf_nodes=5``, 120 s;
  ``diabetes-front``: its ``leaves_front`` to 8 leaves, 60 s;
* ``r-mroz-6``, ``r-participation-6``, ``r-train-6``: R's tables as a data
  scientist loads them (text columns one-hot, NaN kept: `_data.load_rtable`,
  raw values, not cut), ``max_leaf_nodes=6``, 30 s.

To compare two builds, run the script with each checkout first on PYTHONPATH at
the same time (one process each on a machine of two cores or more):

    python benchmarks/run_capped.py
"""
import argparse
import json
import sys
import time
import warnings

from _proc import run_one

CASES = ("synthetic125-5", "synthetic125-6", "synthetic500-front", "breast_cancer-5",
         "breast_cancer-5@120", "breast_cancer-6", "breast_cancer-6@60",
         "breast_cancer_balanced-5", "diabetes-5", "diabetes-front", "r-mroz-6",
         "r-participation-6", "r-train-6")


def _synthetic(n):
    import numpy as np
    from sklearn.datasets import make_classification
    X, y = make_classification(2000, n_features=8, n_informative=5, n_redundant=1,
                               flip_y=0.05, class_sep=0.8, random_state=0)
    p = np.random.RandomState(0).permutation(2000)
    return X[p[:n]], y[p[:n]]


def worker(case):
    """Fit one case and print its JSON record."""
    from sklearn.datasets import load_breast_cancer, load_diabetes
    from fst import FastSmallTreeClassifier, FastSmallTreeRegressor, leaves_front
    warnings.simplefilter("ignore")
    case, _, seconds = case.partition("@")
    name, what = case.rsplit("-", 1)
    t0 = time.perf_counter()
    if name == "diabetes":
        X, y = load_diabetes(return_X_y=True)
    elif name in ("breast_cancer", "breast_cancer_balanced"):
        X, y = load_breast_cancer(return_X_y=True)
    elif name.startswith("r-"):
        from _data import load_rtable
        X, y = load_rtable(name[len("r-"):])
    else:
        X, y = _synthetic(int(name[len("synthetic"):]))
    if what == "front":
        task = "regression" if name == "diabetes" else "classification"
        front = leaves_front(X, y, max_leaf_nodes=8, task=task,
                             time_limit=60.0 if name == "diabetes" else 30.0)
        rec = {"seconds": time.perf_counter() - t0,
               "certified": [int(k) for k, ok in zip(front.front_["n_leaves"],
                                                      front.front_["optimal"]) if ok],
               "loss": [float(v) for v in front.front_["loss"]],
               "lower_bound": [float(v) for v in front.front_["lower_bound"]]}
    else:
        k = int(what)
        limit = (float(seconds) if seconds
                 else 30.0 if name.startswith("r-")
                 else {"breast_cancer-6": 20.0, "diabetes-5": 120.0,
                       "breast_cancer_balanced-5": 120.0}.get(case, 60.0))
        if name == "diabetes":
            est = FastSmallTreeRegressor(regularization=0.0, max_leaf_nodes=k,
                                         time_limit=limit)
        else:
            est = FastSmallTreeClassifier(
                regularization=0.0, max_leaf_nodes=k, time_limit=limit,
                class_weight="balanced" if name == "breast_cancer_balanced" else None)
        est.fit(X, y)
        # the classifier's objective at lam = 0 is its error rate: as errors
        # (under class weights, a weighted error rate: as weighted errors)
        scale = 1.0 if name == "diabetes" else len(y)
        rec = {"seconds": time.perf_counter() - t0, "certified": bool(est.optimal_),
               "objective": est.objective_ * scale, "lower_bound": est.lower_bound_ * scale}
    print(json.dumps(rec))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    print("| case | seconds | certified | objective (errors or loss) | lower bound |")
    print("|---|---|---|---|---|")
    for case in args.cases.split(","):
        if case.partition("@")[0] not in CASES:
            sys.exit(f"unknown case {case!r}: one of {', '.join(CASES)} (any with @seconds)")
        rec = run_one([sys.executable, __file__, "--worker", case], 600,
                      {"seconds": float("nan"), "certified": "failed"})
        if isinstance(rec.get("certified"), list):
            print(f"| {case} | {rec['seconds']:.2f} | counts {rec['certified']} | "
                  f"{', '.join(f'{v:.4g}' for v in rec['loss'])} | "
                  f"{', '.join(f'{v:.4g}' for v in rec['lower_bound'])} |")
        else:
            print(f"| {case} | {rec['seconds']:.2f} | {rec['certified']} | "
                  f"{rec.get('objective', float('nan')):.4g} | "
                  f"{rec.get('lower_bound', float('nan')):.4g} |")


if __name__ == "__main__":
    main()
