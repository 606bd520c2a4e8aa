"""The 70-problem suite: fst (and optionally peers) side by side, one process per
problem, with a time limit and a memory limit.  Writes a CSV and prints a table.

    python benchmarks/run_gosdt14.py --time-limit 60 --solvers fst
    python benchmarks/run_gosdt14.py --time-limit 60 --solvers fst,imodels,gosdt,streed --jobs 2

Each run is one process (`_worker.py`); a run that outlives 2 x the time limit
+ 60 s is killed and reported as 'killed'.  A process over the memory limit is
stopped by the solver itself where it can (fst, at --memory-limit) and otherwise
by this harness, which reads each worker's resident memory every 20 ms and kills
it past the limit ('memory_killed').  Every tree is re-scored from the
raw data; certified objectives of different solvers are compared and any
disagreement is printed as an ERROR.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _data import PENALTIES, gosdt14_names  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _rss(pid):
    """Resident bytes of a process (Linux), or 0 if unknown or gone."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def run_one(solver, name, lam, time_limit, memory_limit, pin):
    cmd = [sys.executable, os.path.join(HERE, "_worker.py"), solver, name, str(lam),
           str(time_limit), str(memory_limit)]
    if pin is not None and hasattr(os, "sched_setaffinity"):
        cmd = ["taskset", "-c", str(pin)] + cmd
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    # The worker's own watchdog is a thread, which a peer's compiled code can starve
    # by holding the GIL (GOSDT reached 24 GB and the system's OOM killer in one
    # run, stalling the process beside it); so this side also stops a worker past
    # the limit (fst, which stops itself at the limit, gets 5% of slack).
    cap = memory_limit * (1.05 if solver == "fst" else 1.0)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env)
    out = err = ""
    status = None
    while True:
        try:
            out, err = p.communicate(timeout=0.02)
            break
        except subprocess.TimeoutExpired:
            if time.perf_counter() - t0 > 2 * time_limit + 60:
                status = "killed"
            elif _rss(p.pid) > cap:
                status = "memory_killed"
            if status is not None:
                p.kill()
                out, err = p.communicate()
                break
    wall = time.perf_counter() - t0
    if status is not None:
        res = {"status": status}
    else:
        line = out.strip().splitlines()[-1] if out.strip() else ""
        if line.startswith("{"):
            res = json.loads(line)
        else:
            res = {"status": f"crash rc={p.returncode}: {err.strip()[-200:]}"}
    res.update(solver=solver, dataset=name, **{"lambda": lam}, wall=wall)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solvers", default="fst")
    ap.add_argument("--datasets", default=",".join(gosdt14_names()))
    ap.add_argument("--penalties", default=",".join(map(str, PENALTIES)))
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--memory-limit", type=float, default=6e9, help="bytes")
    ap.add_argument("--jobs", type=int, default=1, help="processes at once (each pinned)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "gosdt14.csv"))
    args = ap.parse_args()
    solvers = args.solvers.split(",")
    tasks = [(s, d, float(l)) for d in args.datasets.split(",")
             for l in args.penalties.split(",") for s in solvers]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    fields = ["solver", "dataset", "lambda", "certified", "objective", "reported",
              "lower_bound", "leaves", "seconds", "wall", "peak_rss", "status", "nodes",
              "depth_cap"]
    results = []
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [None]

    def work(i_task):
        i, (s, d, l) = i_task
        pin = cpus[i % len(cpus)] if args.jobs > 1 else None
        return run_one(s, d, l, args.time_limit, int(args.memory_limit), pin)

    with open(args.out, "w", newline="") as f, ThreadPoolExecutor(args.jobs) as ex:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in ex.map(work, enumerate(tasks)):
            results.append(r)
            w.writerow(r)
            f.flush()
            print(f"{r['solver']:8s} {r['dataset']:20s} {r['lambda']:6} "
                  f"{'CERT' if r.get('certified') else '    '} "
                  f"obj={r.get('objective', float('nan')):.5f} "
                  f"leaves={r.get('leaves')} {r.get('seconds', r['wall']):8.2f}s "
                  f"{r.get('status', '')}", flush=True)
    summarise(results, solvers)


def summarise(results, solvers):
    by_problem = {}
    for r in results:
        by_problem.setdefault((r["dataset"], r["lambda"]), {})[r["solver"]] = r
    print("\nsolver    certified  sum-time-certified  median-time-certified")
    for s in solvers:
        cert = [r for r in results if r["solver"] == s and r.get("certified")]
        times = [r["seconds"] for r in cert]
        print(f"{s:8s}  {len(cert):9d}  {sum(times):18.2f}  "
              f"{(np.median(times) if times else float('nan')):21.3f}")
    errors = 0
    for key, rs in by_problem.items():
        # a depth-capped certificate (streed) is for a restricted problem: it only
        # disagrees if it is *below* an unrestricted certificate
        certs = {s: r["objective"] for s, r in rs.items()
                 if r.get("certified") and r.get("depth_cap") in (None, "")}
        capped = {s: r["objective"] for s, r in rs.items()
                  if r.get("certified") and r.get("depth_cap") not in (None, "")}
        if len(certs) > 1 and max(certs.values()) - min(certs.values()) > 1e-9:
            print(f"ERROR: certified objectives disagree on {key}: {certs}")
            errors += 1
        if certs and capped and min(capped.values()) < min(certs.values()) - 1e-9:
            print(f"ERROR: a depth-capped certificate beats an unrestricted one on "
                  f"{key}: {capped} vs {certs}")
            errors += 1
        best = min((r["objective"] for r in rs.values() if r.get("objective") is not None
                    and np.isfinite(r.get("objective", np.nan))), default=np.nan)
        f = rs.get("fst")
        if f and f.get("objective") is not None and f["objective"] > best + 1e-9:
            print(f"note: fst's tree is worse than a peer's on {key}: "
                  f"{f['objective']:.5f} vs {best:.5f}")
    if "fst" in solvers:
        for s in solvers:
            if s == "fst":
                continue
            both = [(rs["fst"]["seconds"], rs[s]["seconds"]) for rs in by_problem.values()
                    if s in rs and "fst" in rs and rs[s].get("certified")
                    and rs["fst"].get("certified")]
            if both:
                a, b = map(sum, zip(*both))
                print(f"fst vs {s}: {len(both)} problems both certify; summed time "
                      f"{a:.2f}s vs {b:.2f}s (ratio {a / b:.3f})")
    print(f"certificate disagreements: {errors}")


if __name__ == "__main__":
    main()
