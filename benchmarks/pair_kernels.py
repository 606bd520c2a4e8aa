"""Time the pair stage's count kernels per cell (not a benchmark against peers: it
sets the thresholds TRANSPOSE_ROWS and TRANSPOSE_MAX_WORDS2 in fst/_core/_pair_counts.pyx).

    python benchmarks/pair_kernels.py --words 2,8,16,24,32 --classes 2,3

For each width (words per bitset) and number of classes, random bitsets of 1000
splits: 64 rows in one call (the transposed kernels, used from TRANSPOSE_ROWS rows,
and for two classes up to TRANSPOSE_MAX_WORDS2 words),
against the same 64 rows two at a time (the row kernels; the ratio also carries
the extra Python calls, about 10% at 32 words). Each figure is the fastest of 7
passes after one untimed pass. Needs a CPU with AVX-512 to compare the vector
kernels; run it on an idle machine and repeat it.

With --chosen N (N > 64) it times instead one call of N chosen rows against N
splits, where the two-class row kernels count each cell of two chosen rows once
and copy it into the other row (`pair_counts`); the split count is then N:

    python benchmarks/pair_kernels.py --chosen 300 --words 16,32,100,194 --classes 2

With --boundary it times, under the loops this CPU picks, the two-class row
kernels with class 0 given as a bitset against class 0 as the bits below a
boundary (rows sorted by class, as `build_problem` orders them;
`fst_pair_row2p_*`): one call of 64 rows against the splits, the two settings
interleaved, the fastest of 31 passes each (the hook checks the boundary in
Python, about 0.1 ns a cell here). The row kernels run on CPUs without AVX-512;
with it the transposed kernels take 64 rows either way:

    python benchmarks/pair_kernels.py --boundary --words 4,8,16,24,32,64
"""
import argparse
import time

import numpy as np

from fst._core import _testing


def per_cell(XS, rows, K, XC, step, repeat=7, simd=1):
    """The fastest of `repeat` timed passes over the rows, after one untimed pass."""
    m = XS.shape[0]
    best = float("inf")
    for turn in range(repeat + 1):
        t = time.perf_counter()
        for r in range(0, len(rows), step):
            _testing.pair_counts_for_tests(XS, rows[r:r + step], K, XC, 1, simd=simd)
        if turn:
            best = min(best, time.perf_counter() - t)
    return best / (len(rows) * m) * 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", default="1,2,3,4,6,8,12,16,24,32,48")
    ap.add_argument("--classes", default="2,3,10")
    ap.add_argument("--splits", type=int, default=1000)
    ap.add_argument("--chosen", type=int, default=64,
                    help="rows of one call; above 64, every split is chosen")
    ap.add_argument("--boundary", action="store_true",
                    help="two classes: class 0 as a bitset against as a boundary")
    args = ap.parse_args()
    if args.boundary:
        return boundary(args)
    if _testing.simd_choice(1) != 1:
        print("no AVX-512 on this CPU: every setting runs the scalar loops")
    if args.chosen > 64:
        print("classes words  all of N splits chosen, one call: ns/cell")
        for K in (int(v) for v in args.classes.split(",")):
            for nw in (int(v) for v in args.words.split(",")):
                rng = np.random.default_rng(nw)
                XS = rng.integers(0, 2**63, size=(args.chosen, nw), dtype=np.uint64)
                XC = rng.integers(0, 2**63, size=(max(K - 1, 1), nw), dtype=np.uint64)
                rows = np.arange(args.chosen, dtype=np.int32)
                print(f"{K:7d} {nw:5d} {per_cell(XS, rows, K, XC, args.chosen):10.2f}")
        return
    m = args.splits
    rows = np.arange(64, dtype=np.int32)
    print("classes words  64-row call ns/cell  2-row calls ns/cell  ratio")
    for K in (int(v) for v in args.classes.split(",")):
        for nw in (int(v) for v in args.words.split(",")):
            rng = np.random.default_rng(nw)
            XS = rng.integers(0, 2**63, size=(m, nw), dtype=np.uint64)
            XC = rng.integers(0, 2**63, size=(max(K - 1, 1), nw), dtype=np.uint64)
            big = per_cell(XS, rows, K, XC, 64)
            small = per_cell(XS, rows, K, XC, 2)
            print(f"{K:7d} {nw:5d} {big:20.2f} {small:20.2f} {big / small:6.2f}")


def boundary(args):
    mode = _testing.simd_choice(-1)
    print(f"loops: {['scalar', 'AVX-512', 'AVX2'][mode]}; {args.splits} splits, 64 rows")
    print("words  class-0 bitset ns/cell  boundary ns/cell  ratio")
    rows = np.arange(64, dtype=np.int32)
    for nw in (int(v) for v in args.words.split(",")):
        rng = np.random.default_rng(nw)
        XS = rng.integers(0, 2**63, size=(args.splits, nw), dtype=np.uint64)
        nb0 = int(0.4 * 64 * nw) + 5
        bits = np.zeros(64 * nw, dtype=bool)
        bits[:nb0] = True
        XC = np.packbits(bits, bitorder="little").view("<u8").reshape(1, nw).copy()
        best = {-1: float("inf"), nb0: float("inf")}
        for turn in range(32):
            for b in best:
                t = time.perf_counter()
                _testing.pair_counts_for_tests(XS, rows, 2, XC, 1, b)
                if turn:
                    best[b] = min(best[b], time.perf_counter() - t)
        cells = len(rows) * args.splits / 1e9
        print(f"{nw:5d} {best[-1] / cells:23.2f} {best[nb0] / cells:17.2f} "
              f"{best[nb0] / best[-1]:6.2f}")


if __name__ == "__main__":
    main()
