"""Fit fst on one problem of the 70-problem suite with the search's tuning hooks set,
and print the result and the search statistics (for experiments on the budget
sequence; not a benchmark: no peer runs beside it).

    FST_SHARED=../shared python benchmarks/probe.py broward_general_2y 0.005 \
        --time-limit 60 --memory-limit 6e9 --deepening 0.1 --switch-work 3e9

The settings are the search's private overrides the tests use
(`FastSmallTreeClassifier._overrides`, keys of `fst._core._config.DEFAULTS`):
`deepening` and `deepening_close` (share of the gap added to the root's budget per
pass, and once the gap is small), `switch_work` (work of the first pass at the
incumbent), the ladder (`ladder_max`, `rung_work`, `ladder_bytes`, `ladder_gap`),
and the pair stage in rounds (`stage_min_rows`, `stage_rounds`).
"""
import argparse
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from _data import load_gosdt14  # noqa: E402

import fst  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("regularization", type=float)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--memory-limit", type=float, default=6e9, help="bytes")
    ap.add_argument("--deepening", type=float, nargs="+", default=None,
                    help="share of the gap per pass, then optionally the share once "
                         "the gap is small (one value sets both)")
    ap.add_argument("--switch-work", type=float, default=None)
    ap.add_argument("--ladder", type=float, nargs="+", default=None,
                    help="deepest rung, then optionally rung work, ladder bytes and the "
                         "gap (in lambdas) that ends the ladder")
    ap.add_argument("--staging", type=int, nargs="+", default=None,
                    help="rows from which a pair stage runs in rounds, then the rounds")
    args = ap.parse_args()
    X, y = load_gosdt14(args.dataset)
    clf = fst.FastSmallTreeClassifier(regularization=args.regularization,
                                      time_limit=args.time_limit,
                                      memory_limit=int(args.memory_limit))
    overrides = {}
    if args.deepening is not None:
        overrides["deepening"] = args.deepening[0]
        overrides["deepening_close"] = args.deepening[-1]
    if args.switch_work is not None:
        overrides["switch_work"] = int(args.switch_work)
    if args.ladder is not None:
        keys = ("ladder_max", "rung_work", "ladder_bytes", "ladder_gap")
        overrides.update((k, int(v) if k != "ladder_gap" else float(v))
                         for k, v in zip(keys, args.ladder))
    if args.staging is not None:
        overrides.update(zip(("stage_min_rows", "stage_rounds"), args.staging))
    clf._overrides = overrides
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fst.NotCertifiedWarning)
        clf.fit(X, y)
    seconds = time.perf_counter() - t0
    print(f"{args.dataset} {args.regularization:g}: {seconds:.2f} s {clf.status_} "
          f"objective {clf.objective_:.5f} lower bound {clf.lower_bound_:.5f} "
          f"leaves {clf.n_leaves_} depth {clf.estimator_.get_depth()}")
    print(" ".join(f"{k}={v}" for k, v in clf.search_stats_.items()))


if __name__ == "__main__":
    main()
