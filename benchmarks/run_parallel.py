"""fst with n_jobs threads beside the same fit on one thread, one process per fit,
run one after the other (a threaded fit needs the cores to itself): time, whether
certified, the objective, the work of each thread (expansions of the certified
search, root-split valuations of the depth-limited engine), and whether the
trees are identical.

    FST_SHARED=../shared python benchmarks/run_parallel.py --time-limit 60 --out par.csv
    FST_SHARED=../shared python benchmarks/run_parallel.py --problems spiral:0.02,fico_1k:0.05
    FST_SHARED=../shared python benchmarks/run_parallel.py --quantbnb 3 --time-limit 300

Without --problems it runs the 70 gosdt14 problems (the certified search); with
--quantbnb D, the quantbnb training sets at max_depth D and lambda 0 (the
depth-limited engine).  The summary gives, over the problems the serial fit
takes more than --slow seconds to certify, the summed times and their ratio,
and the certified counts of both.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _data import PENALTIES, QUANTBNB, gosdt14_names  # noqa: E402


def quantbnb_names():
    return sorted(f[:-10] for f in os.listdir(QUANTBNB) if f.endswith("_train.csv"))

FIT = r"""
import json, sys, time, warnings
sys.path.insert(0, {here!r})
import numpy as np
from _data import load_gosdt14, QUANTBNB
from fst import FastSmallTreeClassifier
depth = {depth!r}
if depth is None:
    X, y = load_gosdt14({name!r})
else:
    import os, pandas as pd
    df = pd.read_csv(os.path.join(QUANTBNB, {name!r} + "_train.csv"))
    X = df.iloc[:, :-1].to_numpy(dtype=float)
    y = df.iloc[:, -1].to_numpy()
clf = FastSmallTreeClassifier(regularization={lam!r}, n_jobs={jobs!r},
                              time_limit={tl!r}, max_depth=depth)
t = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    clf.fit(X, y)
el = time.perf_counter() - t
st = clf.search_stats_
tree = clf.estimator_.tree_
print(json.dumps({{"seconds": el, "optimal": bool(clf.optimal_),
                  "objective": float(clf.objective_), "bound": float(clf.lower_bound_),
                  "expansions": st.get("expansions_per_thread",
                                       st.get("evaluations_per_thread", [0])),
                  "canonical_expansions": st.get("canonical_expansions", 0),
                  "tree": [tree.feature.tolist(), tree.threshold.tolist()]}}))
"""


def fit(name, lam, jobs, time_limit, depth=None):
    code = FIT.format(here=os.path.dirname(os.path.abspath(__file__)), name=name, lam=lam,
                      jobs=jobs, tl=time_limit, depth=depth)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=3 * time_limit + 120)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--problems", default=None,
                    help="comma-separated name:lambda pairs (default: all of gosdt14)")
    ap.add_argument("--quantbnb", type=int, default=None, metavar="DEPTH",
                    help="the quantbnb training sets at this max_depth, lambda 0")
    ap.add_argument("--slow", type=float, default=2.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if a.problems:
        probs = [(p.split(":")[0], float(p.split(":")[1])) for p in a.problems.split(",")]
    elif a.quantbnb is not None:
        probs = [(n, 0.0) for n in quantbnb_names()]
    else:
        probs = [(n, lam) for n in gosdt14_names() for lam in PENALTIES]
    rows = []
    print("| problem | 1 thread s | %d threads s | ratio | certified 1 / %d | "
          "expansions per thread | same tree |" % (a.jobs, a.jobs))
    print("|---|---|---|---|---|---|---|")
    for name, lam in probs:
        one = fit(name, lam, 1, a.time_limit, a.quantbnb)
        par = fit(name, lam, a.jobs, a.time_limit, a.quantbnb)
        same = one["tree"] == par["tree"]
        ratio = par["seconds"] / one["seconds"]
        if one["optimal"] and par["optimal"] and abs(one["objective"] - par["objective"]) > 1e-9:
            print(f"ERROR: {name} {lam}: certified objectives differ", file=sys.stderr)
        rows.append(dict(problem=name, lam=lam, s1=one["seconds"], sn=par["seconds"],
                         c1=one["optimal"], cn=par["optimal"], obj1=one["objective"],
                         objn=par["objective"], exp1=one["expansions"][0],
                         expn=" ".join(map(str, par["expansions"])), same=same))
        print(f"| {name} {lam} | {one['seconds']:.2f} | {par['seconds']:.2f} | {ratio:.2f} | "
              f"{'C' if one['optimal'] else '-'} / {'C' if par['optimal'] else '-'} | "
              f"{one['expansions'][0]} / {' + '.join(map(str, par['expansions']))} | "
              f"{'yes' if same else ('no' if one['optimal'] and par['optimal'] else 'n/a')} |",
              flush=True)
    slow = [r for r in rows if r["c1"] and r["s1"] > a.slow]
    s1 = sum(r["s1"] for r in slow)
    sn = sum(r["sn"] for r in slow)
    print(f"\nserial fits certified in more than {a.slow:g} s: {len(slow)}; summed "
          f"{s1:.2f} s on 1 thread, {sn:.2f} s on {a.jobs} (ratio "
          f"{sn / s1 if s1 else float('nan'):.2f})")
    print(f"certified: {sum(r['c1'] for r in rows)} / {len(rows)} on 1 thread, "
          f"{sum(r['cn'] for r in rows)} / {len(rows)} on {a.jobs}")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
