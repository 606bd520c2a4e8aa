"""Markdown summary of a run_gosdt14.py CSV: certificates per solver, time over the
problems each certifies, fst's time ratio against each peer on the problems both
certify, and per problem the best objective found and who certified it.

    python benchmarks/summarise.py benchmarks/results/gosdt14.csv
"""
import sys

import numpy as np
import pandas as pd


def main(path):
    d = pd.read_csv(path)
    d["certified"] = d["certified"].fillna(False).astype(bool)
    if "depth_cap" not in d:
        d["depth_cap"] = np.nan
    # a depth-capped certificate (streed) proves the optimum of a restricted problem;
    # it counts for the unrestricted problem only where it equals an unrestricted one
    free = d[d.certified & d.depth_cap.isna()]
    free_opt = free.groupby(["dataset", "lambda"]).objective.min()
    capped = d.certified & d.depth_cap.notna()
    key_opt = pd.Series([free_opt.get((a, b), np.nan) for a, b in zip(d.dataset, d["lambda"])],
                        index=d.index)
    d["capped_below"] = capped & (d.objective < key_opt - 1e-9)
    d.loc[capped, "certified"] = (d.objective - key_opt).abs()[capped] <= 1e-9
    solvers = list(dict.fromkeys(d["solver"]))
    print("| solver | certified | summed fit s (certified) | median fit s | max peak RSS GB |")
    print("|---|---|---|---|---|")
    for s in solvers:
        x = d[d.solver == s]
        c = x[x.certified]
        print(f"| {s} | {len(c)} / {len(x)} | {c.seconds.sum():.2f} | "
              f"{c.seconds.median():.3f} | {x.peak_rss.max() / 1e9:.2f} |")
    f = d[d.solver == "fst"].set_index(["dataset", "lambda"])
    print()
    for s in solvers:
        if s == "fst":
            continue
        p = d[d.solver == s].set_index(["dataset", "lambda"])
        both = f.certified & p.certified.reindex(f.index, fill_value=False)
        a, b = f.seconds[both].sum(), p.seconds.reindex(f.index)[both].sum()
        if not both.any():
            continue
        print(f"* fst vs {s}: {both.sum()} problems both certify; summed fit time "
              f"{a:.2f} s vs {b:.2f} s, ratio {a / b:.3f}")
    if capped.any():
        print(f"* depth-capped certificates: {int(capped.sum())}, of which "
              f"{int(d.certified[capped].sum())} equal an unrestricted certificate (only "
              f"those count as certified above)")
    cert = d[d.certified]
    dis = cert.groupby(["dataset", "lambda"]).objective.agg(lambda v: v.max() - v.min())
    print(f"* certificate disagreements (> 1e-9): "
          f"{(dis > 1e-9).sum() + int(d.capped_below.sum())}")
    best = d.groupby(["dataset", "lambda"]).objective.min()
    worse = (f.objective - best)[(f.objective - best) > 1e-9]
    print(f"* problems where fst's tree is worse than the best tree any solver returned: "
          f"{len(worse)} {dict(worse) if len(worse) else ''}")
    peer_cert = set(map(tuple, cert[cert.solver != "fst"][["dataset", "lambda"]].values))
    fst_cert = set(f[f.certified].index)
    print(f"* certified by a peer but not by fst: {sorted(peer_cert - fst_cert)}")
    print(f"* certified by fst and by no peer: {sorted(fst_cert - peer_cert)}")
    print()
    print("| problem | best objective | fst | " + " | ".join(s for s in solvers if s != "fst") + " |")
    print("|---|---|---|" + "---|" * (len(solvers) - 1))
    for key in f.index:
        cells = []
        for s in solvers:
            r = d[(d.solver == s) & (d.dataset == key[0]) & (d["lambda"] == key[1])]
            if r.empty or not np.isfinite(r.objective.iloc[0]):
                cells.append(str(r.status.iloc[0]) if not r.empty else "")
                continue
            r = r.iloc[0]
            cells.append(f"{'**C** ' if r.certified else ''}{r.seconds:.2f}s")
        print(f"| {key[0]} {key[1]} | {best[key]:.5f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/gosdt14.csv")
