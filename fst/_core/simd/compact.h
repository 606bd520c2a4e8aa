/* Compaction of a node's row sets for the pair stage: the rows of X become bits
 * 0 .. |X| - 1 in row order, and a subset S of X the bits of its rows, so every
 * count of an intersection of such sets is the same over ceil(|X| / 64) words as
 * over the nw words of all rows.  With BMI2's PEXT, one instruction a word; where
 * the CPU lacks it the pair stage keeps the full words (fst_compact_ok 0).
 * Dispatch (whether the CPU has BMI2): simd.h. */
#ifndef FST_SIMD_COMPACT_H
#define FST_SIMD_COMPACT_H

#include "common.h"

#if FST_X86_VECTOR
/* Which words of X hold rows and how many depends on X alone, so for the many sets
 * compacted at one node `fst_compact_plan` lists them once (word index and row
 * count; returns how many) and `fst_compact_at` extracts each set over those words
 * only, with no popcount in its loop (the counts are the plan's).  src
 * need not lie inside X: PEXT keeps only its bits at X's rows, so src may be a
 * split's rows whole (the bits of X & S). */
static inline int fst_compact_plan(const uint64_t* X, int nw, int32_t* nzw,
                                   int32_t* nzk)
{
    int nnz = 0;
    for (int w = 0; w < nw; w++) {
        uint64_t x = X[w];
        if (x == 0)
            continue;
        nzw[nnz] = w;
        nzk[nnz] = (int32_t)FST_POPCNT64(x);
        nnz++;
    }
    return nnz;
}

__attribute__((target("bmi2")))
static inline void fst_compact_at(const uint64_t* src, const uint64_t* X,
                                  const int32_t* nzw, const int32_t* nzk, int nnz,
                                  uint64_t* out, int nwc)
{
    uint64_t acc = 0;
    int nb = 0, o = 0;          /* bits held in acc (< 64), words written */
    for (int j = 0; j < nnz; j++) {
        int w = nzw[j];
        uint64_t v = _pext_u64(src[w], X[w]);
        int k = nzk[j];
        acc |= v << nb;
        if (nb + k >= 64) {
            out[o++] = acc;
            acc = nb ? (v >> (64 - nb)) : 0;
            nb = nb + k - 64;
        } else {
            nb += k;
        }
    }
    if (nb > 0)
        out[o++] = acc;
    while (o < nwc)
        out[o++] = 0;
}
#else
static inline int fst_compact_plan(const uint64_t* X, int nw, int32_t* nzw,
                                   int32_t* nzk)
{
    (void)X; (void)nw; (void)nzw; (void)nzk;   /* never called */
    return 0;
}
static inline void fst_compact_at(const uint64_t* src, const uint64_t* X,
                                  const int32_t* nzw, const int32_t* nzk, int nnz,
                                  uint64_t* out, int nwc)
{
    (void)src; (void)X; (void)nzw; (void)nzk; (void)nnz; (void)out; (void)nwc;
}
#endif

#endif
