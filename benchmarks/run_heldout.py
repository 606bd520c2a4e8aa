"""Held-out accuracy of the tree whose size cross-validation chose: fst against
CART tuned the same way, on the same folds.

Each data set is split by an outer 5-fold stratified cross-validation. On each
outer training part, both estimators choose their size by the same inner 5-fold
stratified cross-validation, are refitted on the whole part and scored on the
outer held-out part:

* fst: `FastSmallTreeClassifierCV` over its leaf price (8 values from 0.001 to
  0.1) at `max_depth` D, every fit certified;
* CART: `GridSearchCV` of `DecisionTreeClassifier(max_depth=D)` over
  `ccp_alpha` (0 and 16 values from 1e-4 to 0.1) and, as a second CART,
  over `max_leaf_nodes` (2 to 2^D).

The table gives the mean held-out accuracy, its standard deviation over the outer
folds, the mean leaves of the refitted trees and the whole time of each.

    FST_SHARED=../shared python benchmarks/run_heldout.py --max-depth 3
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from _data import load_gosdt14
from fst import FastSmallTreeClassifierCV
from fst.datasets import load_dataset

DATASETS = ("sklearn-breast_cancer", "sklearn-wine", "monk_2", "car_evaluation",
            "tic-tac-toe", "compas_processed", "fico_1k", "broward_general_2y",
            "coupon_bar")
LAMBDAS = np.geomspace(0.001, 0.1, 8)


def load(name):
    if name in ("monk_2", "car_evaluation", "tic-tac-toe"):
        X, y, _ = load_dataset(name)
        return X, y
    return load_gosdt14(name)


def estimators(depth, inner):
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0)
    return {
        "fst": FastSmallTreeClassifierCV(lambdas=LAMBDAS, cv=inner, max_depth=depth,
                                         n_jobs=-1),
        "CART ccp_alpha": GridSearchCV(
            cart, {"ccp_alpha": np.concatenate([[0.0], np.geomspace(1e-4, 0.1, 16)])},
            cv=inner, n_jobs=-1),
        "CART max_leaf_nodes": GridSearchCV(
            cart, {"max_leaf_nodes": list(range(2, 2 ** depth + 1))}, cv=inner,
            n_jobs=-1),
    }


def leaves(model):
    best = model.best_estimator_
    return best.get_n_leaves()


def run(name, depth):
    X, y = load(name)
    outer = StratifiedKFold(5, shuffle=True, random_state=0)
    inner = StratifiedKFold(5, shuffle=True, random_state=1)
    scores = {k: [] for k in estimators(depth, inner)}
    sizes = {k: [] for k in scores}
    seconds = dict.fromkeys(scores, 0.0)
    certified = True
    for train, test in outer.split(X, y):
        for key, model in estimators(depth, inner).items():
            t0 = time.perf_counter()
            model.fit(X[train], y[train])
            seconds[key] += time.perf_counter() - t0
            scores[key].append(model.score(X[test], y[test]))
            sizes[key].append(leaves(model))
            if key == "fst":
                certified &= bool(model.cv_results_["optimal"].all() and model.optimal_)
    return scores, sizes, seconds, certified


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-depth", type=int, default=3)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    keys = ("fst", "CART ccp_alpha", "CART max_leaf_nodes")
    print(f"| data set | rows | {' | '.join(keys)} | leaves (same order) | seconds "
          "(same order) | every fst fit certified |")
    print("|---|---|" + "---|" * len(keys) + "---|---|---|")
    for name in args.datasets.split(","):
        X, _ = load(name)
        scores, sizes, seconds, certified = run(name, args.max_depth)
        acc = " | ".join(f"{np.mean(scores[k]):.4f} ± {np.std(scores[k]):.4f}" for k in keys)
        lv = " / ".join(f"{np.mean(sizes[k]):.1f}" for k in keys)
        sec = " / ".join(f"{seconds[k]:.1f}" for k in keys)
        print(f"| {name} | {X.shape[0]} | {acc} | {lv} | {sec} | {certified} |",
              flush=True)


if __name__ == "__main__":
    main()
