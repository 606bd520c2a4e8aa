/* The pair stage's counts: for one chosen split a (its rows as X & s_a) and
 * every split j, the cell X & s_a & s_j's class counts and its total.
 *
 * Two classes: fst_pair_row2_* (class 0 as a bitset XC) and fst_pair_row2p_*
 * (class 0 as the bits below nb0), out[(r*m + j)*2] the class-0 rows and
 * out[(r*m + j)*2 + 1] all of them; 3 to 64 classes: fst_pair_row_k_*,
 * out[(r*m + j)*K + k] class k for k < K - 1, then the total.  The transposed
 * kernels (fst_pair_row_t_*, fst_pair_rows2_t_*) count eight or sixteen cells
 * side by side from the splits transposed.  Every count is an integer, so every
 * loop gives the same result; the scalar loop is the reference the tests compare
 * the others with.  Dispatch: simd.h. */
#ifndef FST_SIMD_COUNTS_H
#define FST_SIMD_COUNTS_H

#include "common.h"

static inline void fst_pair_row2_scalar(const uint64_t* a, const uint64_t* XS, int m,
                                        const uint64_t* XC, int nw, int r, int32_t* out,
                                        const int32_t* colrow)
{
    for (int j = 0; j < m; j++) {
        if (colrow != 0 && colrow[j] < r)
            continue;           /* the cell is row colrow[j]'s: copied from there */
        const uint64_t* b = XS + (int64_t)j * nw;
        int64_t total = 0, c0 = 0;
        for (int w = 0; w < nw; w++) {
            uint64_t x = a[w] & b[w];
            total += FST_POPCNT64(x);
            c0 += FST_POPCNT64(x & XC[w]);
        }
        out[((int64_t)r * m + j) * 2] = (int32_t)c0;
        out[((int64_t)r * m + j) * 2 + 1] = (int32_t)total;
    }
}

#if FST_X86_VECTOR
__attribute__((target("avx512f,avx512vpopcntdq")))
static void fst_pair_row2_avx512(const uint64_t* a, const uint64_t* XS, int m,
                                 const uint64_t* XC, int nw, int r, int32_t* out,
                                 const int32_t* colrow)
{
    int full = nw & ~7;
    __mmask8 tail = (__mmask8)((1u << (nw & 7)) - 1u);
    /* One accumulator per j: the cell's total in the low 32 bits of each lane and
     * its class-0 count in the high 32 bits, so one horizontal sum gives both.  A
     * cell has fewer than 2**31 rows (the search takes fewer), so the low half never
     * carries into the high one. */
    for (int j = 0; j < m; j++) {
        if (colrow != 0 && colrow[j] < r)
            continue;           /* the cell is row colrow[j]'s: copied from there */
        const uint64_t* b = XS + (int64_t)j * nw;
        __m512i acc = _mm512_setzero_si512();
        int w = 0;
        for (; w < full; w += 8) {
            __m512i x = _mm512_and_si512(_mm512_loadu_si512((const void*)(a + w)),
                                         _mm512_loadu_si512((const void*)(b + w)));
            __m512i z = _mm512_and_si512(x, _mm512_loadu_si512((const void*)(XC + w)));
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
            acc = _mm512_add_epi64(acc, _mm512_slli_epi64(_mm512_popcnt_epi64(z), 32));
        }
        if (tail) {
            __m512i x = _mm512_and_si512(_mm512_maskz_loadu_epi64(tail, a + w),
                                         _mm512_maskz_loadu_epi64(tail, b + w));
            __m512i z = _mm512_and_si512(x, _mm512_maskz_loadu_epi64(tail, XC + w));
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
            acc = _mm512_add_epi64(acc, _mm512_slli_epi64(_mm512_popcnt_epi64(z), 32));
        }
        uint64_t s = (uint64_t)_mm512_reduce_add_epi64(acc);
        out[((int64_t)r * m + j) * 2] = (int32_t)(s >> 32);
        out[((int64_t)r * m + j) * 2 + 1] = (int32_t)(s & 0xFFFFFFFFu);
    }
}
#endif

#if FST_X86_VECTOR
/* fst_pair_row2 in AVX2, which has no vector popcount: four words at a time,
 * each byte's bits counted by a 16-entry table lookup per half byte (PSHUFB),
 * the byte counts summed in bytes for up to 31 blocks (at most 8 a block, so
 * never past 255) and then per 64-bit lane (PSADBW); the words past the last
 * whole block by POPCNT.  Integer counts, so the same as the scalar loop. */
__attribute__((target("avx2,popcnt")))
static void fst_pair_row2_avx2(const uint64_t* a, const uint64_t* XS, int m,
                               const uint64_t* XC, int nw, int r, int32_t* out,
                               const int32_t* colrow)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i zero = _mm256_setzero_si256();
    int full = nw & ~3;
    for (int j = 0; j < m; j++) {
        if (colrow != 0 && colrow[j] < r)
            continue;           /* the cell is row colrow[j]'s: copied from there */
        const uint64_t* b = XS + (int64_t)j * nw;
        /* per 64-bit lane: the cell's rows in the low 32 bits, its rows of class 0
           in the high 32 (a cell has fewer than 2**31 rows: no carry) */
        __m256i sum = zero;
        int w = 0;
        while (w < full) {
            int stop = (full - w > 4 * 31) ? w + 4 * 31 : full;
            __m256i cx = zero, cz = zero;
            for (; w < stop; w += 4) {
                __m256i x = _mm256_and_si256(_mm256_loadu_si256((const __m256i*)(a + w)),
                                             _mm256_loadu_si256((const __m256i*)(b + w)));
                __m256i z = _mm256_and_si256(x, _mm256_loadu_si256((const __m256i*)(XC + w)));
                cx = _mm256_add_epi8(cx, _mm256_add_epi8(
                    _mm256_shuffle_epi8(lut, _mm256_and_si256(x, low4)),
                    _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), low4))));
                cz = _mm256_add_epi8(cz, _mm256_add_epi8(
                    _mm256_shuffle_epi8(lut, _mm256_and_si256(z, low4)),
                    _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(z, 4), low4))));
            }
            sum = _mm256_add_epi64(sum, _mm256_sad_epu8(cx, zero));
            sum = _mm256_add_epi64(sum, _mm256_slli_epi64(_mm256_sad_epu8(cz, zero), 32));
        }
        uint64_t lanes[4];
        _mm256_storeu_si256((__m256i*)lanes, sum);
        uint64_t s = lanes[0] + lanes[1] + lanes[2] + lanes[3];
        int64_t total = (int64_t)(s & 0xFFFFFFFFu), c0 = (int64_t)(s >> 32);
        for (; w < nw; w++) {
            uint64_t x = a[w] & b[w];
            total += FST_POPCNT64(x);
            c0 += FST_POPCNT64(x & XC[w]);
        }
        out[((int64_t)r * m + j) * 2] = (int32_t)c0;
        out[((int64_t)r * m + j) * 2 + 1] = (int32_t)total;
    }
}
#endif

/* The two-class row with class 0 the bits below nb0 (fst_prefix_split), for the
 * splits j0 .. m - 1 (j0 = 0: the whole row). */
static inline void fst_pair_row2p_scalar(const uint64_t* a, const uint64_t* XS, int j0,
                                         int m, int nb0, int nw, int r, int32_t* out,
                                         const int32_t* colrow)
{
    int w0;
    uint64_t mb;
    fst_prefix_split(nb0, nw, &w0, &mb);
    for (int j = j0; j < m; j++) {
        if (colrow != 0 && colrow[j] < r)
            continue;           /* the cell is row colrow[j]'s: copied from there */
        const uint64_t* b = XS + (int64_t)j * nw;
        int64_t c0 = 0, c1 = 0;
        int w = 0;
        for (; w < w0; w++)
            c0 += FST_POPCNT64(a[w] & b[w]);
        if (w < nw) {
            uint64_t x = a[w] & b[w];
            c0 += FST_POPCNT64(x & mb);
            c1 += FST_POPCNT64(x & ~mb);
            w++;
        }
        for (; w < nw; w++)
            c1 += FST_POPCNT64(a[w] & b[w]);
        out[((int64_t)r * m + j) * 2] = (int32_t)c0;
        out[((int64_t)r * m + j) * 2 + 1] = (int32_t)(c0 + c1);
    }
}

#if FST_X86_VECTOR
/* fst_pair_row2p_scalar in AVX2, four words a block: the blocks below the
 * boundary word's block count to class 0, those above to class 1, and that block
 * is split by a mask of its class-0 bits (two counts); the last block's missing
 * words load as zero.  Integer counts, the same as every other loop's. */
__attribute__((target("avx2")))
static void fst_pair_row2p_avx2(const uint64_t* a, const uint64_t* XS, int m, int nb0,
                                int nw, int r, int32_t* out, const int32_t* colrow)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    int bb;
    __m256i M0 = fst_boundary_block_avx2(nb0, nw, &bb);
    int full = nw >> 2, nblk = (nw + 3) >> 2;
    int e0 = bb < full ? bb : full;            /* whole blocks all of class 0 */
    __m256i tail = _mm256_cmpgt_epi64(_mm256_set1_epi64x(nw - 4 * full), lane);
    int j = 0;
    /* four cells at once: each loaded block of a serves four splits, and one
       transposing sum gives the four cells.  A cell the mirror will copy is
       counted anyway when its neighbours are not (the copy writes the same). */
    for (; j + 4 <= m; j += 4) {
        if (colrow != 0 && colrow[j] < r && colrow[j + 1] < r && colrow[j + 2] < r
            && colrow[j + 3] < r)
            continue;
        const uint64_t* b = XS + (int64_t)j * nw;
        __m256i acc[4];
        for (int q = 0; q < 4; q++)
            acc[q] = _mm256_setzero_si256();
        /* class 0 in the high 32 bits of each lane, class 1 in the low */
        int bi = 0;
        for (; bi < e0; bi++) {
            __m256i xa = _mm256_loadu_si256((const __m256i*)(a + 4 * bi));
            for (int q = 0; q < 4; q++)
                acc[q] = _mm256_add_epi64(acc[q], _mm256_slli_epi64(fst_popcount_lanes_avx2(
                    _mm256_and_si256(xa, _mm256_loadu_si256(
                        (const __m256i*)(b + (int64_t)q * nw + 4 * bi))), lut, low4), 32));
        }
        if (bb < nblk) {
            __m256i xa = bb < full ? _mm256_loadu_si256((const __m256i*)(a + 4 * bb))
                                   : _mm256_maskload_epi64((const long long*)(a + 4 * bb), tail);
            __m256i x0 = _mm256_and_si256(xa, M0), x1 = _mm256_andnot_si256(M0, xa);
            for (int q = 0; q < 4; q++) {
                const uint64_t* bq = b + (int64_t)q * nw + 4 * bb;
                __m256i vb = bb < full ? _mm256_loadu_si256((const __m256i*)bq)
                                       : _mm256_maskload_epi64((const long long*)bq, tail);
                acc[q] = _mm256_add_epi64(acc[q], _mm256_slli_epi64(fst_popcount_lanes_avx2(
                    _mm256_and_si256(x0, vb), lut, low4), 32));
                acc[q] = _mm256_add_epi64(acc[q], fst_popcount_lanes_avx2(
                    _mm256_and_si256(x1, vb), lut, low4));
            }
            bi = bb + 1;
        }
        for (; bi < full; bi++) {
            __m256i xa = _mm256_loadu_si256((const __m256i*)(a + 4 * bi));
            for (int q = 0; q < 4; q++)
                acc[q] = _mm256_add_epi64(acc[q], fst_popcount_lanes_avx2(
                    _mm256_and_si256(xa, _mm256_loadu_si256(
                        (const __m256i*)(b + (int64_t)q * nw + 4 * bi))), lut, low4));
        }
        if (bi == full && full < nblk) {        /* the last block, after the boundary */
            __m256i xa = _mm256_maskload_epi64((const long long*)(a + 4 * full), tail);
            for (int q = 0; q < 4; q++)
                acc[q] = _mm256_add_epi64(acc[q], fst_popcount_lanes_avx2(
                    _mm256_and_si256(xa, _mm256_maskload_epi64(
                        (const long long*)(b + (int64_t)q * nw + 4 * full), tail)), lut, low4));
        }
        /* lane q of v: cell j + q's sum over its four lanes */
        __m256i t0 = _mm256_add_epi64(_mm256_unpacklo_epi64(acc[0], acc[1]),
                                      _mm256_unpackhi_epi64(acc[0], acc[1]));
        __m256i t1 = _mm256_add_epi64(_mm256_unpacklo_epi64(acc[2], acc[3]),
                                      _mm256_unpackhi_epi64(acc[2], acc[3]));
        __m256i v = _mm256_add_epi64(_mm256_permute2x128_si256(t0, t1, 0x20),
                                     _mm256_permute2x128_si256(t0, t1, 0x31));
        /* (class 0, total) as two int32: class 0 = v >> 32, total = its sum with
           the low 32 bits */
        __m256i c0 = _mm256_srli_epi64(v, 32);
        _mm256_storeu_si256((__m256i*)(out + ((int64_t)r * m + j) * 2),
                            _mm256_or_si256(c0, _mm256_slli_epi64(_mm256_add_epi64(v, c0), 32)));
    }
    /* the last m % 4 splits: the scalar loop (a few cells a row) */
    fst_pair_row2p_scalar(a, XS, j, m, nb0, nw, r, out, colrow);
}
#endif

/* 3 to 64 classes, the reference loop: one pass over the words per cell, every
 * class at once (the last count is the cell's total). */
static inline void fst_pair_row_k_scalar(const uint64_t* a, const uint64_t* XS, int m,
                                         const uint64_t* XC, int nw, int K, int r,
                                         int32_t* out)
{
    for (int j = 0; j < m; j++) {
        const uint64_t* b = XS + (int64_t)j * nw;
        int32_t* cell = out + ((int64_t)r * m + j) * K;
        for (int k = 0; k < K; k++)
            cell[k] = 0;
        int64_t total = 0;
        for (int w = 0; w < nw; w++) {
            uint64_t x = a[w] & b[w];
            if (x) {
                total += FST_POPCNT64(x);
                for (int k = 0; k < K - 1; k++)
                    cell[k] += (int32_t)FST_POPCNT64(x & XC[(int64_t)k * nw + w]);
            }
        }
        cell[K - 1] = (int32_t)total;
    }
}

#if FST_X86_VECTOR
/* The row of the pair stage for 3 to 16 classes: for every split j, the cell
 * X & s_a & s_j's counts of classes 0 .. K-2 and its total, in out[(r*m + j)*K ..].
 * The K counts are packed two to a 64-bit lane (the first of a pair in the low
 * 32 bits: a cell has fewer than 2**31 rows, so the halves never carry), so a
 * cell takes ceil(K / 2) horizontal sums instead of K.  Two classes keep their own
 * kernel above, which packs the class-0 count beside the total in each lane. */
__attribute__((target("avx512f,avx512vpopcntdq")))
static void fst_pair_row_k_avx512(const uint64_t* a, const uint64_t* XS, int m,
                                  const uint64_t* XC, int nw, int K, int r, int32_t* out)
{
    int full = nw & ~7;
    __mmask8 tail = (__mmask8)((1u << (nw & 7)) - 1u);
    int np = (K + 1) / 2;
    for (int j = 0; j < m; j++) {
        const uint64_t* b = XS + (int64_t)j * nw;
        __m512i acc[8];
        for (int p = 0; p < np; p++)
            acc[p] = _mm512_setzero_si512();
        for (int w = 0; w < nw; w += 8) {
            __mmask8 mk = w < full ? (__mmask8)0xFF : tail;
            __m512i x = _mm512_and_si512(_mm512_maskz_loadu_epi64(mk, a + w),
                                         _mm512_maskz_loadu_epi64(mk, b + w));
            /* count k of the cell: class k for k < K - 1, the total for K - 1 */
            for (int k = 0; k < K; k++) {
                __m512i z = k < K - 1
                    ? _mm512_and_si512(x, _mm512_maskz_loadu_epi64(
                          mk, XC + (int64_t)k * nw + w))
                    : x;
                __m512i c = _mm512_popcnt_epi64(z);
                acc[k >> 1] = _mm512_add_epi64(acc[k >> 1],
                                               (k & 1) ? _mm512_slli_epi64(c, 32) : c);
            }
        }
        int32_t* cell = out + ((int64_t)r * m + j) * K;
        for (int p = 0; p < np; p++) {
            uint64_t v = (uint64_t)_mm512_reduce_add_epi64(acc[p]);
            cell[2 * p] = (int32_t)(v & 0xFFFFFFFFu);
            if (2 * p + 1 < K)
                cell[2 * p + 1] = (int32_t)(v >> 32);
        }
    }
}
#endif

#if FST_X86_VECTOR
/* Store the first n (at most 8) of eight two-class cells, lanes of class-0 counts
   z and totals t, as (class 0, total) pairs at o. */
__attribute__((target("avx512f")))
static inline void fst_store_cells2(int32_t* o, int n, __m512i z, __m512i t)
{
    const __m512i idx = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4,
                                         19, 3, 18, 2, 17, 1, 16, 0);
    __mmask16 keep = (__mmask16)(n >= 8 ? 0xFFFF : ((1u << (2 * n)) - 1u));
    _mm512_mask_storeu_epi32((void*)o, keep, _mm512_permutex2var_epi32(
        _mm512_castsi256_si512(_mm512_cvtepi64_epi32(z)), idx,
        _mm512_castsi256_si512(_mm512_cvtepi64_epi32(t))));
}

/* The row of the pair stage from the splits transposed: XT holds word w of split j
 * at XT[w * mp + j] (mp = m rounded up to 16, zero-padded), so eight cells are
 * counted side by side, one per 64-bit lane, with word w of split a broadcast; no
 * horizontal sums.  Same counts as the row kernels above: for 2 to 16 classes,
 * out[(r*m + j)*K + k] = class k (k < K - 1), then the total.  Pays when the
 * transposition is shared by several rows and when few words leave the row
 * kernels mostly summing lanes (wine: 3 words, 3 classes). */
__attribute__((target("avx512f,avx512vpopcntdq"))) __attribute__((always_inline))
static inline void fst_pair_row_t_body(const uint64_t* a, const uint64_t* XT, int m,
                                       int mp, const uint64_t* XC, int nw, int K, int r,
                                       int32_t* out)
{
    __m512i acc[16];
    int64_t lanes[16][8];
    for (int j = 0; j < m; j += 8) {
        for (int k = 0; k < K; k++)
            acc[k] = _mm512_setzero_si512();
        for (int w = 0; w < nw; w++) {
            uint64_t aw = a[w];
            if (!aw)
                continue;                 /* no row of split a in this word */
            __m512i x = _mm512_and_si512(
                _mm512_loadu_si512((const void*)(XT + (int64_t)w * mp + j)),
                _mm512_set1_epi64((long long)aw));
            acc[K - 1] = _mm512_add_epi64(acc[K - 1], _mm512_popcnt_epi64(x));
            for (int k = 0; k < K - 1; k++) {
                __m512i z = _mm512_and_si512(x, _mm512_set1_epi64((long long)XC[(int64_t)k * nw + w]));
                acc[k] = _mm512_add_epi64(acc[k], _mm512_popcnt_epi64(z));
            }
        }
        int n = m - j < 8 ? m - j : 8;
        int32_t* o = out + ((int64_t)r * m + j) * K;
        if (K == 2) {
            fst_store_cells2(o, n, acc[0], acc[1]);
        } else {
            for (int k = 0; k < K; k++)
                _mm512_storeu_si512((void*)lanes[k], acc[k]);
            for (int l = 0; l < n; l++)
                for (int k = 0; k < K; k++)
                    o[l * K + k] = (int32_t)lanes[k][l];
        }
    }
}

/* The body with K known at compile time, so that the accumulators stay in
   registers (with K a variable they spill to memory). */
__attribute__((target("avx512f,avx512vpopcntdq")))
static void fst_pair_row_t_avx512(const uint64_t* a, const uint64_t* XT, int m, int mp,
                                  const uint64_t* XC, int nw, int K, int r,
                                  int32_t* out)
{
    switch (K) {
#define FST_ROW_T_CASE(k) case k: fst_pair_row_t_body(a, XT, m, mp, XC, nw, k, r, out); break;
    FST_ROW_T_CASE(2) FST_ROW_T_CASE(3) FST_ROW_T_CASE(4) FST_ROW_T_CASE(5)
    FST_ROW_T_CASE(6) FST_ROW_T_CASE(7) FST_ROW_T_CASE(8) FST_ROW_T_CASE(9)
    FST_ROW_T_CASE(10) FST_ROW_T_CASE(11) FST_ROW_T_CASE(12) FST_ROW_T_CASE(13)
    FST_ROW_T_CASE(14) FST_ROW_T_CASE(15) FST_ROW_T_CASE(16)
#undef FST_ROW_T_CASE
    default:
        fst_pair_row_t_body(a, XT, m, mp, XC, nw, K, r, out);
    }
}
#endif

#if FST_X86_VECTOR
/* Two classes, two rows (splits a and c, out rows r and r + 1) from the transposed
   splits: each loaded word of sixteen splits serves both rows. */
__attribute__((target("avx512f,avx512vpopcntdq")))
static void fst_pair_rows2_t_avx512(const uint64_t* a, const uint64_t* c,
                                    const uint64_t* XT, int m, int mp,
                                    const uint64_t* XC, int nw, int r, int32_t* out)
{
    for (int j = 0; j < m; j += 16) {
        __m512i ta0 = _mm512_setzero_si512(), za0 = _mm512_setzero_si512();
        __m512i ta1 = _mm512_setzero_si512(), za1 = _mm512_setzero_si512();
        __m512i tc0 = _mm512_setzero_si512(), zc0 = _mm512_setzero_si512();
        __m512i tc1 = _mm512_setzero_si512(), zc1 = _mm512_setzero_si512();
        const uint64_t* col = XT + j;
        for (int w = 0; w < nw; w++, col += mp) {
            __m512i b0 = _mm512_loadu_si512((const void*)col);
            __m512i b1 = _mm512_loadu_si512((const void*)(col + 8));
            __m512i aw = _mm512_set1_epi64((long long)a[w]);
            __m512i ac = _mm512_set1_epi64((long long)(a[w] & XC[w]));
            __m512i cw = _mm512_set1_epi64((long long)c[w]);
            __m512i cc = _mm512_set1_epi64((long long)(c[w] & XC[w]));
            ta0 = _mm512_add_epi64(ta0, _mm512_popcnt_epi64(_mm512_and_si512(b0, aw)));
            za0 = _mm512_add_epi64(za0, _mm512_popcnt_epi64(_mm512_and_si512(b0, ac)));
            ta1 = _mm512_add_epi64(ta1, _mm512_popcnt_epi64(_mm512_and_si512(b1, aw)));
            za1 = _mm512_add_epi64(za1, _mm512_popcnt_epi64(_mm512_and_si512(b1, ac)));
            tc0 = _mm512_add_epi64(tc0, _mm512_popcnt_epi64(_mm512_and_si512(b0, cw)));
            zc0 = _mm512_add_epi64(zc0, _mm512_popcnt_epi64(_mm512_and_si512(b0, cc)));
            tc1 = _mm512_add_epi64(tc1, _mm512_popcnt_epi64(_mm512_and_si512(b1, cw)));
            zc1 = _mm512_add_epi64(zc1, _mm512_popcnt_epi64(_mm512_and_si512(b1, cc)));
        }
        int n = m - j;
        int32_t* o = out + ((int64_t)r * m + j) * 2;
        int32_t* p = out + ((int64_t)(r + 1) * m + j) * 2;
        fst_store_cells2(o, n, za0, ta0);
        fst_store_cells2(p, n, zc0, tc0);
        if (n > 8) {
            fst_store_cells2(o + 16, n - 8, za1, ta1);
            fst_store_cells2(p + 16, n - 8, zc1, tc1);
        }
    }
}
#endif

#endif
