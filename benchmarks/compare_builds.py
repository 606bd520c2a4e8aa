"""Compare two builds of fst problem by problem: objectives, trees, bounds and search
statistics must be identical; fit times are reported side by side.

    FST_SHARED=../shared python benchmarks/compare_builds.py BEFORE AFTER \
        [--suites oracle,gosdt14,quantbnb] [--jobs 2] [--out results/compare.jsonl]

BEFORE and AFTER are checkouts of fst built in place (``python setup.py build_ext
--inplace``); each problem is fitted once by each build, in its own process with
that checkout first on ``PYTHONPATH``, the two at the same time (one a core) so
that both see the same machine.  Suites:

* ``oracle``: the problems of the exhaustive oracle tests (``tests/oracle.py``:
  random small problems with costs, NaN, depth limits and sample weights, the
  medium problems, the threshold runs, continuous columns), as shipped and, on
  continuous columns, with the bitset search forced instead of the engine;
* ``gosdt14``: the 70 problems of ``shared/datasets/gosdt14`` (five penalties);
* ``quantbnb``: the twelve quantbnb training sets at ``max_depth`` 2 and 3,
  penalties 0.01 and 0;
* ``dpdt``: DPDTClassifier on the twelve quantbnb sets at depth 3 (and at depth
  5 with the greedy tail from depth 3), its whole front and every tree compared;
* ``regression``: FastSmallTreeRegressor on diabetes and 500 rows of
  ``make_friedman1``, raw (continuous) and binarised at quartiles (binary
  columns), at ``max_depth`` 2 and 3 (penalties 0 and 0.01), without it
  (penalties 0.05 and 0.02) and under ``max_leaf_nodes=5`` at penalty 0;
* ``front``: ``leaves_front`` to six leaves on monk_1, monk_2, monk_3,
  car_evaluation and iris, to five on 125 rows of continuous synthetic data, and
  the regressor's to four on diabetes: every count's tree, loss, bound and
  certificate.

A problem that does not certify is stopped by a work limit (the search's
machine-free clock, ``--work-limit``), not by time, so that both builds stop at the
same point of the same path.  Statistics compared: every entry of
``search_stats_`` but the wall-clock and resident-memory ones.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests")

# search_stats_ entries that measure the machine, not the path
UNSTABLE = {"seconds", "peak_rss_bytes", "threads", "memory_limit"}
# work limits (the search's clock: about 2e9 a second on the bitset search) at which
# an uncertified problem is stopped
WORK_LIMIT = {"gosdt14": 5e10, "quantbnb": 2e9, "oracle": 1e9, "dpdt": 0,
              "regression": 1e6, "front": 0}
REGRESSION_SETS = ["diabetes", "friedman1", "diabetes-binary", "friedman1-binary"]
REGRESSION_SETTINGS = [(2, None, 0.0), (2, None, 0.01), (3, None, 0.0), (3, None, 0.01),
                       (None, None, 0.05), (None, None, 0.02), (None, 5, 0.0)]
FRONT_SETS = ["monk_1", "monk_2", "monk_3", "car_evaluation", "iris", "continuous125",
              "diabetes"]
QUANTBNB_NAMES = ["bank", "bidding", "fault", "htru", "magic", "occupancy", "page",
                  "raisin", "rice", "room", "segment", "wilt"]


def _fit_record(X, y, params, overrides, fit_kw=None, regressor=False):
    """Fit with `params` and the private overrides; the record to compare."""
    from fst import FastSmallTreeClassifier, FastSmallTreeRegressor

    clf = (FastSmallTreeRegressor if regressor else FastSmallTreeClassifier)(**params)
    clf._overrides = dict(overrides)
    _legacy_hooks(clf, overrides)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y, **(fit_kw or {}))
    seconds = time.perf_counter() - t0
    digest = hashlib.sha1()
    _tree_digest(clf.estimator_, digest)
    stats = {k: v for k, v in clf.search_stats_.items() if k not in UNSTABLE}
    return {"objective": float(clf.objective_), "lower_bound": float(clf.lower_bound_),
            "optimal": bool(clf.optimal_), "status": clf.status_, "tree": digest.hexdigest(),
            "stats": stats, "seconds": seconds}


def _legacy_hooks(clf, overrides):
    """The same settings as attributes, for a build older than the overrides mapping
    (which read `_work_limit`, `_switch_work` and `_ladder`); a build
    that has the mapping never reads these attributes."""
    if "work_limit" in overrides:
        clf._work_limit = int(overrides["work_limit"])
    if "switch_work" in overrides:
        clf._switch_work = int(overrides["switch_work"])
        clf._ladder = (int(overrides.get("ladder_max", 6)),
                       int(overrides.get("rung_work", -1)))


def _oracle_problems():
    """(name, X, y, params, overrides, fit keywords) of the oracle tests' problems."""
    sys.path.insert(0, TESTS)
    import oracle as o

    for seed in range(360):
        X, y, cost, lam, depth = o.random_problem(seed)
        p = dict(regularization=lam, cost_matrix=cost, max_depth=depth)
        yield f"random-{seed}", X, y, p, {}, None
        if seed < 120:
            yield f"random-{seed}-ladder", X, y, p, {"switch_work": 1, "ladder_max": 6,
                                                     "rung_work": 20_000}, None
    for seed in range(120):
        X, y, cost, lam, depth = o.random_problem(3000 + seed)
        w = o.sample_weights(seed, y)
        p = dict(regularization=lam, cost_matrix=cost, max_depth=depth)
        yield f"weighted-{seed}", X, y, p, {}, {"sample_weight": w}
    for seed in range(24):
        X, y = o.medium_problem(seed)
        lam, depth = o.medium_setting(seed)
        yield f"medium-{seed}", X, y, dict(regularization=lam, max_depth=depth), {}, None
    for seed in range(8):
        X, y = o.threshold_problem(seed)
        for lam in (0.01, 0.02):
            yield f"threshold-{seed}-{lam}", X, y, dict(regularization=lam), {}, None
    for seed in range(150):
        X, y, cost, lam, depth = o.continuous_problem(seed)
        p = dict(regularization=lam, cost_matrix=cost, max_depth=depth)
        yield f"continuous-{seed}", X, y, p, {}, None
        yield f"continuous-{seed}-bitset", X, y, p, {"depth_engine": False}, None


def _regression_data(name):
    """diabetes or 500 rows of make_friedman1, raw or ("-binary") one 0/1
    column a quartile of each column."""
    from sklearn.datasets import load_diabetes, make_friedman1

    base = name.replace("-binary", "")
    if base == "diabetes":
        X, y = load_diabetes(return_X_y=True)
    else:
        X, y = make_friedman1(n_samples=500, noise=1.0, random_state=0)
    if name.endswith("-binary"):
        cols = [X[:, j] <= q for j in range(X.shape[1])
                for q in np.unique(np.quantile(X[:, j], [0.25, 0.5, 0.75]))]
        X = np.column_stack(cols).astype(float)
    return X, y


def _front_record(name):
    """leaves_front on one set: every count's tree, loss, bound and certificate."""
    from fst import leaves_front

    kw = {}
    if name == "iris":
        from sklearn.datasets import load_iris
        X, y = load_iris(return_X_y=True)
        K = 6
    elif name == "continuous125":
        from sklearn.datasets import make_classification
        X, y = make_classification(2000, n_features=8, n_informative=5, n_redundant=1,
                                   flip_y=0.05, class_sep=0.8, random_state=0)
        keep = np.random.default_rng(0).permutation(len(y))[:125]
        X, y, K = X[keep], y[keep], 5
    elif name == "diabetes":
        X, y = _regression_data("diabetes")
        K, kw = 4, {"task": "regression"}
    else:
        sys.path.insert(0, HERE)
        from _data import load_gosdt14
        X, y = load_gosdt14(name)
        K = 6
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        front = leaves_front(X, y, max_leaf_nodes=K, time_limit=None, **kw)
    seconds = time.perf_counter() - t0
    digest = hashlib.sha1()
    for est in front.trees_:
        _tree_digest(est, digest)
    f = front.front_
    loss = [float(v) for v in f["loss"]]
    bound = [float(v) for v in f["lower_bound"]]
    return {"objective": loss, "lower_bound": bound, "optimal": bool(front.optimal_),
            "status": "optimal" if front.optimal_ else "stopped",
            "tree": digest.hexdigest(), "stats": {}, "seconds": seconds}


def _tree_digest(est, digest):
    t = est.tree_
    for a in (t.feature, t.threshold, t.children_left, t.children_right, t.value):
        digest.update(np.ascontiguousarray(a).tobytes())


def _dpdt_record(X, y, params):
    """Fit DPDTClassifier; its front, trees and MDP statistics as a record."""
    from fst import DPDTClassifier

    clf = DPDTClassifier(**params)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    seconds = time.perf_counter() - t0
    digest = hashlib.sha1()
    for est in clf.trees_:
        _tree_digest(est, digest)
    front = {k: [float(v) for v in vals] for k, vals in clf.pareto_front_.items()}
    digest.update(json.dumps(front, sort_keys=True).encode())
    stats = {k: v for k, v in clf.mdp_stats_.items() if k not in UNSTABLE}
    loss = front.get("loss", [0.0])
    return {"objective": float(min(loss)), "lower_bound": float(min(loss)),
            "optimal": clf.status_ == "optimal", "status": clf.status_,
            "tree": digest.hexdigest(), "stats": stats, "seconds": seconds}


def _worker(suite, spec, work_limit):
    """Records of one task of a suite, as a list."""
    if suite == "oracle":
        out = []
        for name, X, y, p, ov, kw in _oracle_problems():
            r = _fit_record(X, y, p, {"work_limit": int(work_limit), **ov}, kw)
            r["problem"] = name
            out.append(r)
        return out
    sys.path.insert(0, HERE)
    if suite == "dpdt":
        from _data import QUANTBNB
        import pandas as pd

        name, depth = spec.split(":")
        df = pd.read_csv(os.path.join(QUANTBNB, f"{name}_train.csv"))
        X = df.iloc[:, :-1].to_numpy(dtype=float)
        y = df.iloc[:, -1].to_numpy()
        params = dict(max_depth=int(depth))
        if int(depth) > 3:
            params["greedy_below"] = 3
        r = _dpdt_record(X, y, params)
        r["problem"] = spec
        return [r]
    if suite == "regression":
        name, depth, cap, lam = spec.split(":")
        X, y = _regression_data(name)
        params = dict(regularization=float(lam),
                      max_depth=None if depth == "none" else int(depth),
                      max_leaf_nodes=None if cap == "none" else int(cap))
        r = _fit_record(X, y, params, {"work_limit": int(work_limit)}, regressor=True)
        r["problem"] = spec
        return [r]
    if suite == "front":
        r = _front_record(spec)
        r["problem"] = spec
        return [r]
    if suite == "gosdt14":
        from _data import load_gosdt14

        name, lam = spec.split(":")
        X, y = load_gosdt14(name)
        params = dict(regularization=float(lam))
    else:
        from _data import QUANTBNB
        import pandas as pd

        name, depth, lam = spec.split(":")
        df = pd.read_csv(os.path.join(QUANTBNB, f"{name}_train.csv"))
        X = df.iloc[:, :-1].to_numpy(dtype=float)
        y = df.iloc[:, -1].to_numpy()
        params = dict(regularization=float(lam), max_depth=int(depth))
    r = _fit_record(X, y, params, {"work_limit": int(work_limit)})
    r["problem"] = spec
    return [r]


def _tasks(suites):
    from _data import PENALTIES, gosdt14_names

    for suite in suites:
        if suite == "oracle":
            yield suite, "all"
        elif suite == "gosdt14":
            for name in gosdt14_names():
                for lam in PENALTIES:
                    yield suite, f"{name}:{lam}"
        elif suite == "quantbnb":
            for lam in (0.01, 0.0):
                for depth in (2, 3):
                    for name in QUANTBNB_NAMES:
                        yield suite, f"{name}:{depth}:{lam}"
        elif suite == "regression":
            for name in REGRESSION_SETS:
                for depth, cap, lam in REGRESSION_SETTINGS:
                    yield suite, f"{name}:{depth or 'none'}:{cap or 'none'}:{lam}"
        elif suite == "front":
            for name in FRONT_SETS:
                yield suite, name
        elif suite == "dpdt":
            for depth in (3, 5):
                for name in QUANTBNB_NAMES:
                    yield suite, f"{name}:{depth}"
        else:
            raise ValueError(f"unknown suite {suite!r}")


def _run_build(build, suite, spec, work_limit):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(build), OMP_NUM_THREADS="1")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", suite, spec,
           str(work_limit)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=HERE)
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1:] or [f"exit {p.returncode}"]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _diff(a, b):
    """What differs between two records of one problem ('' when identical)."""
    keys = [k for k in ("objective", "lower_bound", "optimal", "status", "tree")
            if a[k] != b[k]]
    keys += [f"stats.{k}" for k in sorted(set(a["stats"]) | set(b["stats"]))
             if a["stats"].get(k) != b["stats"].get(k)]
    return ", ".join(keys)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", nargs="?")
    ap.add_argument("after", nargs="?")
    ap.add_argument("--suites", default="oracle,gosdt14,quantbnb")
    ap.add_argument("--only", default=None, help="comma-separated problems of the suites")
    ap.add_argument("--jobs", type=int, default=2, help="processes at once (even: pairs)")
    ap.add_argument("--work-limit", type=float, default=None,
                    help="work at which an uncertified fit stops (default per suite)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "compare_builds.jsonl"))
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        suite, spec, wl = args.worker
        print(json.dumps(_worker(suite, spec, float(wl))))
        return 0
    if not (args.before and args.after):
        ap.error("give the BEFORE and AFTER checkouts")
    sys.path.insert(0, HERE)
    suites = args.suites.split(",")
    tasks = list(_tasks(suites))
    if args.only:
        only = set(args.only.split(","))
        tasks = [t for t in tasks if t[1] in only]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    rows = []

    def pair(task):
        suite, spec = task
        wl = args.work_limit or WORK_LIMIT[suite]
        with ThreadPoolExecutor(2) as ex:
            fa = ex.submit(_run_build, args.before, suite, spec, wl)
            fb = ex.submit(_run_build, args.after, suite, spec, wl)
            return suite, spec, fa.result(), fb.result()

    with open(args.out, "w") as fh, ThreadPoolExecutor(max(1, args.jobs // 2)) as ex:
        for suite, spec, ra, rb in ex.map(pair, tasks):
            if isinstance(ra, dict) or isinstance(rb, dict):
                print(f"{suite} {spec}: error before={ra if isinstance(ra, dict) else 'ok'} "
                      f"after={rb if isinstance(rb, dict) else 'ok'}", flush=True)
                rows.append((suite, spec, None, None))
                continue
            for a, b in zip(ra, rb):
                rows.append((suite, a["problem"], a, b))
                fh.write(json.dumps({"suite": suite, "before": a, "after": b}) + "\n")
                d = _diff(a, b)
                if d or suite != "oracle":
                    print(f"{suite} {a['problem']}: {a['seconds']:.2f} s -> "
                          f"{b['seconds']:.2f} s{'  DIFFERS: ' + d if d else ''}",
                          flush=True)
    summarise(rows, suites)
    return 0


def summarise(rows, suites):
    print("\n| suite | problems | identical objectives | identical trees | "
          "identical bounds | identical statistics | certified before / after | "
          "fit s before | fit s after | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for suite in suites:
        rs = [r for r in rows if r[0] == suite]
        ok = [r for r in rs if r[2] is not None]
        same = lambda key: sum(a[key] == b[key] for _, _, a, b in ok)  # noqa: E731
        stats = sum(a["stats"] == b["stats"] for _, _, a, b in ok)
        ta = sum(a["seconds"] for _, _, a, _ in ok)
        tb = sum(b["seconds"] for _, _, _, b in ok)
        ca = sum(a["optimal"] for _, _, a, _ in ok)
        cb = sum(b["optimal"] for _, _, _, b in ok)
        print(f"| {suite} | {len(rs)} | {same('objective')} | {same('tree')} | "
              f"{same('lower_bound')} | {stats} | {ca} / {cb} | {ta:.1f} | {tb:.1f} | "
              f"{tb / ta if ta else float('nan'):.3f} |")
    bad = [(s, p, "failed" if a is None else _diff(a, b)) for s, p, a, b in rows
           if a is None or _diff(a, b)]
    for s, p, d in bad[:40]:
        print(f"* {s} {p}: {d or 'failed'}")
    print(f"\n{len(bad)} of {len(rows)} problems differ")


if __name__ == "__main__":
    sys.exit(main())
