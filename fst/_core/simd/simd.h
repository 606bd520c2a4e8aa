/* The vector loops of the core and the one place that chooses among them.
 *
 * Every kernel has a scalar reference loop beside its vector forms, in the
 * header of its stage: counts.h (the pair stage's cell counts), values.h (its
 * two-leaf values and three-leaf peels), scan.h (the search's word scans),
 * compact.h (a node's rows renumbered) and rows.h (the engine's rows of one
 * side of a split).  Every loop of a kernel gives the same
 * integers and the same doubles (integer counts; doubles by the same operations
 * in the same order, with -ffp-contract=off), so the choice changes the time,
 * never a result; the tests compare them.
 *
 * A fit resolves once, with fst_simd_resolve, what it may use (`vec`: the
 * FST_VEC_* bits the CPU has among those asked for), and passes `vec` to every
 * entry point below; nothing here is kept between calls, so concurrent fits may
 * choose differently.  AVX-512 needs F and VPOPCNTDQ (DQ besides for the scan);
 * AVX2 has loops for the two-class counts, whole-row values and scan; BMI2 gives
 * the compaction (its own bit: it is chosen with the pair stage's compaction,
 * not with the vector loops).
 */
#ifndef FST_SIMD_H
#define FST_SIMD_H

#include "common.h"
#include "counts.h"
#include "values.h"
#include "scan.h"
#include "compact.h"
#include "rows.h"

enum {
    FST_VEC_AVX512 = 1,     /* AVX-512 F + VPOPCNTDQ loops */
    FST_VEC_AVX2 = 2,       /* AVX2 loops (where AVX-512 is not used) */
    FST_VEC_DQ = 4,         /* AVX-512 DQ as well (64-bit products of the scan) */
    FST_VEC_BMI2 = 8        /* PEXT (compaction of a node's rows) */
};

/* The loops a fit may use.  requested: -1 the best the CPU has (AVX-512, else
 * AVX2, else scalar), 0 scalar, 1 AVX-512, 2 AVX2, each granted only where the
 * CPU has it (else scalar); BMI2 is reported whatever is asked. */
static inline int fst_simd_resolve(int requested)
{
    int vec = 0;
#if FST_X86_VECTOR
    __builtin_cpu_init();
    int have512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
    int have2 = __builtin_cpu_supports("avx2");
    if (requested < 0)
        vec = have512 ? FST_VEC_AVX512 : (have2 ? FST_VEC_AVX2 : 0);
    else if (requested == 1)
        vec = have512 ? FST_VEC_AVX512 : 0;
    else if (requested == 2)
        vec = have2 ? FST_VEC_AVX2 : 0;
    if ((vec & FST_VEC_AVX512) && __builtin_cpu_supports("avx512dq"))
        vec |= FST_VEC_DQ;
    if (__builtin_cpu_supports("bmi2"))
        vec |= FST_VEC_BMI2;
#else
    (void)requested;
#endif
    return vec;
}

/* The vector loops in effect (0 scalar, 1 AVX-512, 2 AVX2), for reports. */
static inline int fst_simd_mode(int vec)
{
    return (vec & FST_VEC_AVX512) ? 1 : ((vec & FST_VEC_AVX2) ? 2 : 0);
}

/* ------------------------------------------------------------------ counts */

/* The two-class row of the pair stage: out[(r*m + j)*2] the rows of class 0 of
 * a & s_j, out[(r*m + j)*2 + 1] all its rows.  nb0 >= 0: the rows of class 0 are
 * the bits below nb0 (rows sorted by class; XC, the same rows, is read only by
 * the AVX-512 loop); nb0 < 0: they are XC.  colrow: NULL, or per split j the
 * earlier chosen row that counts the cell (its copy comes later). */
static inline void fst_pair_row2(int vec, const uint64_t* a, const uint64_t* XS, int m,
                                 const uint64_t* XC, int nw, int r, int32_t* out,
                                 const int32_t* colrow, int nb0)
{
#if FST_X86_VECTOR
    if (vec & FST_VEC_AVX512) {
        fst_pair_row2_avx512(a, XS, m, XC, nw, r, out, colrow);
        return;
    }
    if (vec & FST_VEC_AVX2) {
        if (nb0 >= 0)
            fst_pair_row2p_avx2(a, XS, m, nb0, nw, r, out, colrow);
        else
            fst_pair_row2_avx2(a, XS, m, XC, nw, r, out, colrow);
        return;
    }
#endif
    (void)vec;
    if (nb0 >= 0)
        fst_pair_row2p_scalar(a, XS, 0, m, nb0, nw, r, out, colrow);
    else
        fst_pair_row2_scalar(a, XS, m, XC, nw, r, out, colrow);
}

/* The row of the pair stage for 3 to 64 classes (AVX-512 for 3 to 16). */
static inline void fst_pair_row_k(int vec, const uint64_t* a, const uint64_t* XS, int m,
                                  const uint64_t* XC, int nw, int K, int r, int32_t* out)
{
#if FST_X86_VECTOR
    if ((vec & FST_VEC_AVX512) && K >= 3 && K <= 16) {
        fst_pair_row_k_avx512(a, XS, m, XC, nw, K, r, out);
        return;
    }
#endif
    (void)vec;
    fst_pair_row_k_scalar(a, XS, m, XC, nw, K, r, out);
}

/* 1 when the transposed kernels can run (AVX-512, 2 to 16 classes), else 0: the
 * caller uses the row kernels, which give the same counts. */
static inline int fst_pair_transposed_ok(int vec, int K)
{
#if FST_X86_VECTOR
    return (vec & FST_VEC_AVX512) && K >= 2 && K <= 16;
#else
    (void)vec;
    (void)K;
    return 0;
#endif
}

/* Only where fst_pair_transposed_ok: one row, or two rows (two classes). */
static inline void fst_pair_row_t(const uint64_t* a, const uint64_t* XT, int m, int mp,
                                  const uint64_t* XC, int nw, int K, int r, int32_t* out)
{
#if FST_X86_VECTOR
    fst_pair_row_t_avx512(a, XT, m, mp, XC, nw, K, r, out);
#else
    (void)a; (void)XT; (void)m; (void)mp; (void)XC; (void)nw; (void)K; (void)r; (void)out;
#endif
}

static inline void fst_pair_rows2_t(const uint64_t* a, const uint64_t* c,
                                    const uint64_t* XT, int m, int mp,
                                    const uint64_t* XC, int nw, int r, int32_t* out)
{
#if FST_X86_VECTOR
    fst_pair_rows2_t_avx512(a, c, XT, m, mp, XC, nw, r, out);
#else
    (void)a; (void)c; (void)XT; (void)m; (void)mp; (void)XC; (void)nw; (void)r; (void)out;
#endif
}

/* ------------------------------------------------------------------ values */

/* Two classes in doubles (fst_pair_values2_scalar). */
static inline void fst_pair_values2(int vec, const int32_t* A, int m, const double* cl,
                                    int right, double cc0, double cc1, const double* cost,
                                    const double* potc, double t1, double t2,
                                    double* best2, double* peel, int* arg)
{
#if FST_X86_VECTOR
    if (vec & FST_VEC_AVX512) {
        fst_pair_values2_avx512(A, m, cl, right, cc0, cc1, cost, potc, t1, t2, best2,
                                peel, arg);
        return;
    }
#endif
    (void)vec;
    fst_pair_values2_scalar(A, m, cl, right, cc0, cc1, cost, potc, t1, t2, best2, peel, arg);
}

/* 3 to 64 classes in doubles (fst_pair_values_k_scalar). */
static inline void fst_pair_values_k(int vec, const int32_t* A, int m, int K,
                                     const double* cl, int right, const double* cc,
                                     const double* cost, const int32_t* cols, int ncols,
                                     const double* potc, double t1, double t2,
                                     double* best2, double* peel, int* arg)
{
#if FST_X86_VECTOR
    if ((vec & FST_VEC_AVX512) && K >= 3 && K <= 16 && (int64_t)m * K < 2147483647) {
        fst_pair_values_k_avx512(A, m, K, cl, right, cc, cost, cols, ncols, potc, t1, t2,
                                 best2, peel, arg);
        return;
    }
#endif
    (void)vec;
    fst_pair_values_k_scalar(A, m, K, cl, right, cc, cost, cols, ncols, potc, t1, t2,
                             best2, peel, arg);
}

/* Under a unit cost, in whole rows (fst_pair_values_u_scalar), any K.  cache:
 * NULL, or room for 6 * (m rounded up to 8) int32 where the two-class AVX2 loop
 * leaves each block's cells for fst_peel3_u (the other loops leave nothing, and
 * fst_peel3_u reads it only under the same loop). */
static inline void fst_pair_values_u(int vec, const int32_t* A, int m, int K,
                                     const int32_t* cli, int right, const int32_t* ci,
                                     int32_t ct, int32_t T1, int32_t T2, int32_t* ib,
                                     int32_t* ip, int* ia, int32_t* cache)
{
#if FST_X86_VECTOR
    if (K == 2 && (vec & FST_VEC_AVX512)) {
        fst_pair_values2u_avx512(A, m, cli, right, ci[0], ct, T1, T2, ib, ip, ia);
        return;
    }
    if (K == 2 && (vec & FST_VEC_AVX2)) {
        fst_pair_values2u_avx2(A, m, cli, right, ci[0], ct, T1, T2, ib, ip, ia, cache);
        return;
    }
    if (K > 2 && (vec & FST_VEC_AVX512)) {
        fst_pair_values_ku_avx512(A, m, K, cli, right, ci, ct, T1, T2, ib, ip, ia);
        return;
    }
#endif
    (void)vec;
    (void)cache;
    fst_pair_values_u_scalar(A, m, K, cli, right, ci, ct, T1, T2, ib, ip, ia);
}

/* The three-leaf bound in whole rows of fst_pair_values_u's child
 * (fst_peel3_u_scalar); cache as there, for the same vec, K and child. */
static inline int32_t fst_peel3_u(int vec, const int32_t* A, int m, int K,
                                  const int32_t* cli, int right, const int32_t* ci,
                                  int32_t ct, int32_t T1, int32_t T2, int32_t ib,
                                  int32_t ip, const int32_t* cache)
{
#if FST_X86_VECTOR
    if (K == 2 && (vec & FST_VEC_AVX512))
        return fst_peel3_2u_avx512(A, m, cli, right, ci[0], ct, T1, T2, ib, ip);
    if (K == 2 && (vec & FST_VEC_AVX2))
        return fst_peel3_2u_avx2(A, m, cli, right, ci[0], ct, T1, T2, ib, ip, cache);
#endif
    (void)vec;
    (void)cache;
    return fst_peel3_u_scalar(A, m, K, cli, right, ci, ct, T1, T2, ib, ip);
}

/* ------------------------------------------------------------------- scans */

/* One side of a split at a node, two classes (fst_scan2_scalar): nb0 >= 0 when
 * the rows of class 0 are the bits below nb0; cb0 holds the same rows. */
static inline void fst_scan2(int vec, const uint64_t* X, const uint64_t* S,
                             const uint64_t* cb0, const uint64_t* eqm,
                             const uint64_t* hkey, int nw, int64_t* out, uint64_t* hash,
                             int nb0)
{
#if FST_X86_VECTOR
    if ((vec & FST_VEC_AVX512) && (vec & FST_VEC_DQ)) {
        fst_scan2_avx512(X, S, cb0, eqm, hkey, nw, out, hash);
        return;
    }
    if ((vec & FST_VEC_AVX2) && nb0 >= 0) {
        fst_scan2p_avx2(X, S, nb0, eqm, hkey, nw, out, hash);
        return;
    }
#endif
    (void)vec;
    (void)nb0;
    fst_scan2_scalar(X, S, cb0, eqm, hkey, nw, out, hash);
}

/* A two-class pair stage's row set X & S into out, its rows and class-0 rows. */
static inline void fst_and_counts2(int vec, const uint64_t* X, const uint64_t* S,
                                   const uint64_t* cb0, int nw, uint64_t* out,
                                   int64_t* sums)
{
#if FST_X86_VECTOR
    if (vec & FST_VEC_AVX512) {
        fst_and_counts2_avx512(X, S, cb0, nw, out, sums);
        return;
    }
#endif
    (void)vec;
    fst_and_counts2_scalar(X, S, cb0, nw, out, sums);
}

/* The rows of X & S. */
static inline int64_t fst_and_count(int vec, const uint64_t* X, const uint64_t* S, int nw)
{
#if FST_X86_VECTOR
    if ((vec & FST_VEC_AVX512) && nw >= 8)
        return fst_and_count_avx512(X, S, nw);
#endif
    (void)vec;
    return fst_and_count_scalar(X, S, nw);
}

/* ------------------------------------------------------------- compaction */

/* 1 when the rows of a node can be compacted (the CPU has BMI2). */
static inline int fst_compact_ok(int vec)
{
#if FST_X86_VECTOR
    return (vec & FST_VEC_BMI2) != 0;
#else
    (void)vec;
    return 0;
#endif
}

/* ------------------------------------------------------------------- rows */

/* The rows of one side of a split in a column's order (rows.h); returns how
 * many.  ork and oyk hold m entries. */
static inline int fst_side_rows(int vec, const int32_t* rk, const int32_t* yk,
                                const int32_t* pos, int m, int32_t t, int side,
                                int32_t* ork, int32_t* oyk)
{
#if FST_X86_VECTOR
    if (vec & FST_VEC_AVX512)
        return fst_side_rows_avx512(rk, yk, pos, m, t, side, ork, oyk);
    if (vec & FST_VEC_AVX2)
        return fst_side_rows_avx2(rk, yk, pos, m, t, side, ork, oyk);
#endif
    (void)vec;
    return fst_side_rows_scalar(rk, yk, pos, 0, m, t, side, ork, oyk, 0);
}

/* Both sides' rows at once (rows.h): side 0's into r0, y0, side 1's into r1,
 * y1, each of m entries; returns side 0's count (side 1's is m less it). */
static inline int fst_sides_rows(int vec, const int32_t* rk, const int32_t* yk,
                                 const int32_t* pos, int m, int32_t t, int32_t* r0,
                                 int32_t* y0, int32_t* r1, int32_t* y1)
{
#if FST_X86_VECTOR
    if (vec & FST_VEC_AVX512)
        return fst_sides_rows_avx512(rk, yk, pos, m, t, r0, y0, r1, y1);
    if (vec & FST_VEC_AVX2)
        return fst_sides_rows_avx2(rk, yk, pos, m, t, r0, y0, r1, y1);
#endif
    (void)vec;
    return fst_sides_rows_scalar(rk, yk, pos, 0, m, t, r0, y0, r1, y1, 0, 0);
}

#endif
