/* The pair stage's loops, with vector versions chosen at run time.
 *
 * Counts: fst_pair_row2 (two classes) and fst_pair_row_k (3 to 16) fill, for the
 * chosen split `a` (its rows as X & s_a) and every split j, the cell X & s_a & s_j:
 * its class counts and its total; fst_pair_row_t and fst_pair_rows2_t do the same
 * from the splits transposed, several cells side by side.  The counts are
 * integers, so every version gives the same result.  Values: fst_pair_values2 and
 * fst_pair_values_k (doubles, bit-identical to the scalar loops), and under a unit
 * cost fst_pair_values2u and fst_pair_values_ku (whole rows).  Scans: fst_scan2, one
 * side of a split's counts and hash for the search's two-class scan, and
 * fst_and_counts2, a two-class pair stage's row sets and their counts; fst_and_count,
 * the rows of X & S.  The vector versions
 * only run where the CPU reports AVX-512 (with VPOPCNTDQ for the counts), and the
 * build needs no flag beyond what the compiler accepts as a function attribute.
 *
 * fst_set_simd(-1) picks by the CPU (the default), 0 forces the scalar loop and 1
 * asks for the vector one (granted only if the CPU has it); it returns the choice
 * in effect.  Tests compare the two.
 */
#ifndef FST_SIMD_H
#define FST_SIMD_H

#include <stdint.h>

#if defined(_MSC_VER)
#include <intrin.h>
#define FST_POPCNT64(x) ((int64_t)__popcnt64(x))
#else
#define FST_POPCNT64(x) ((int64_t)__builtin_popcountll(x))
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) \
    && !defined(FST_NO_SIMD)
#define FST_HAVE_AVX512 1
#include <immintrin.h>
#else
#define FST_HAVE_AVX512 0
#endif

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

#if FST_HAVE_AVX512
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

#if FST_HAVE_AVX512
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

/* -1: not decided yet; 0: scalar; 1: AVX-512; 2: AVX2 (only the loops that have
 * an AVX2 version: fst_pair_row2, fst_pair_values2u, fst_peel3_2u and, rows
 * sorted by class, fst_scan2; the others run scalar) */
static int fst_simd_mode = -1;

static inline int fst_cpu_has_avx512(void)
{
#if FST_HAVE_AVX512
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
#else
    return 0;
#endif
}

/* 1 when the CPU also has AVX-512 DQ (64-bit products: fst_scan2) */
static int fst_simd_dq = 0;

static inline int fst_cpu_has_avx2(void)
{
#if FST_HAVE_AVX512
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* mode -1: the best the CPU has (AVX-512, else AVX2, else scalar); 0: scalar;
 * 1: AVX-512 and 2: AVX2, each granted only where the CPU has it (else 0). */
static inline int fst_set_simd(int mode)
{
    int have = fst_cpu_has_avx512();
    int have2 = fst_cpu_has_avx2();
    if (mode < 0)
        fst_simd_mode = have ? 1 : (have2 ? 2 : 0);
    else if (mode == 1)
        fst_simd_mode = have;
    else if (mode == 2)
        fst_simd_mode = have2 ? 2 : 0;
    else
        fst_simd_mode = 0;
#if FST_HAVE_AVX512
    fst_simd_dq = have && __builtin_cpu_supports("avx512dq");
#endif
    return fst_simd_mode;
}

/* Compaction of a node's row sets for the pair stage: the rows of X become bits
 * 0 .. |X| - 1 in row order, and a subset S of X the bits of its rows, so every
 * count of an intersection of such sets is the same over ceil(|X| / 64) words as
 * over the nw words of all rows.  With BMI2's PEXT, one instruction a word; where
 * the CPU lacks it the pair stage keeps the full words (fst_compact_ok 0). */
static int fst_compact_cpu = -1;    /* -1: not asked yet */

static inline int fst_compact_ok(void)
{
#if FST_HAVE_AVX512
    if (fst_compact_cpu < 0) {
        __builtin_cpu_init();
        fst_compact_cpu = __builtin_cpu_supports("bmi2") ? 1 : 0;
    }
    return fst_compact_cpu;
#else
    return 0;
#endif
}

#if FST_HAVE_AVX512
/* Which words of X hold rows and how many depends on X alone, so for the many sets
 * compacted at one node `fst_compact_plan` lists them once (word index and row
 * count; returns how many) and `fst_compact_at` extracts each set over those words
 * only, with no popcount in its loop: 60 to 80 ns a set of 42 words here, against
 * 350 ns for the former AND, count and compaction with a popcount a word.  src
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

/* Rows sorted by class (`build_problem`): the rows of class 0 among the bits of
 * a row set are its bits below nb0, so a cell's class-0 count is the popcount of
 * its words below word nb0 / 64 plus the low bits of that word, and its total
 * adds the rest: one popcount a word instead of two (the total and X & class 0).
 * The word holding bit nb0 is split by mask. */
static inline void fst_prefix_split(int nb0, int nw, int* w0, uint64_t* mb)
{
    if ((int64_t)nb0 >= (int64_t)nw * 64) {
        *w0 = nw;                     /* every bit is class 0: no boundary word */
        *mb = 0;
    } else {
        *w0 = nb0 >> 6;
        *mb = (((uint64_t)1) << (nb0 & 63)) - 1u;
    }
}

#if FST_HAVE_AVX512
/* Per 64-bit lane, the popcount of x (PSHUFB table per half byte, PSADBW). */
__attribute__((target("avx2"))) __attribute__((always_inline))
static inline __m256i fst_popcount_lanes_avx2(__m256i x, __m256i lut, __m256i low4)
{
    return _mm256_sad_epu8(_mm256_add_epi8(
        _mm256_shuffle_epi8(lut, _mm256_and_si256(x, low4)),
        _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), low4))),
        _mm256_setzero_si256());
}

#endif

/* One side of a split in one pass over its words, for two classes and marked rows
 * (the search's common case: `scan_counts`): of a = X & S, the rows, the rows of
 * class 0, the marked rows (out[0..2]) and the linear hash (bs_hash_linear: the sum
 * over words of lo32(a_w) * key[2w] + hi32(a_w) * key[2w + 1], mod 2**64).  Integer
 * sums, so every version gives the same result. */
static inline void fst_scan2_scalar(const uint64_t* X, const uint64_t* S,
                                    const uint64_t* cb0, const uint64_t* eqm,
                                    const uint64_t* hkey, int nw, int64_t* out,
                                    uint64_t* hash)
{
    int64_t nl = 0, c0 = 0, el = 0;
    uint64_t h = 0;
    for (int w = 0; w < nw; w++) {
        uint64_t a = X[w] & S[w];
        nl += FST_POPCNT64(a);
        c0 += FST_POPCNT64(a & cb0[w]);
        el += FST_POPCNT64(a & eqm[w]);
        h += (a & 0xFFFFFFFFULL) * hkey[2 * w] + (a >> 32) * hkey[2 * w + 1];
    }
    out[0] = nl;
    out[1] = c0;
    out[2] = el;
    *hash = h;
}

#if FST_HAVE_AVX512

__attribute__((target("avx512f,avx512vpopcntdq,avx512dq")))
static void fst_scan2_avx512(const uint64_t* X, const uint64_t* S, const uint64_t* cb0,
                             const uint64_t* eqm, const uint64_t* hkey, int nw,
                             int64_t* out, uint64_t* hash)
{
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    const __m512i lo32 = _mm512_set1_epi64(0xFFFFFFFFLL);
    __m512i vn = _mm512_setzero_si512(), vc = _mm512_setzero_si512();
    __m512i ve = _mm512_setzero_si512(), vh = _mm512_setzero_si512();
    for (int w = 0; w < nw; w += 8) {
        int rest = nw - w;
        __mmask8 mk = (__mmask8)(rest >= 8 ? 0xFF : ((1u << rest) - 1u));
        /* the keys of words w .. w+7, two per word: the second load covers words
           w+4 .. w+7, masked to the words that exist */
        __mmask8 k0 = (__mmask8)(rest >= 4 ? 0xFF : ((1u << (2 * rest)) - 1u));
        __mmask8 k1 = (__mmask8)(rest >= 8 ? 0xFF
                                 : (rest <= 4 ? 0u : ((1u << (2 * (rest - 4))) - 1u)));
        __m512i a = _mm512_and_si512(_mm512_maskz_loadu_epi64(mk, X + w),
                                     _mm512_maskz_loadu_epi64(mk, S + w));
        __m512i h0 = _mm512_maskz_loadu_epi64(k0, hkey + 2 * w);
        __m512i h1 = _mm512_maskz_loadu_epi64(k1, hkey + 2 * w + 8);
        vn = _mm512_add_epi64(vn, _mm512_popcnt_epi64(a));
        vc = _mm512_add_epi64(vc, _mm512_popcnt_epi64(
            _mm512_and_si512(a, _mm512_maskz_loadu_epi64(mk, cb0 + w))));
        ve = _mm512_add_epi64(ve, _mm512_popcnt_epi64(
            _mm512_and_si512(a, _mm512_maskz_loadu_epi64(mk, eqm + w))));
        vh = _mm512_add_epi64(vh, _mm512_mullo_epi64(
            _mm512_and_si512(a, lo32), _mm512_permutex2var_epi64(h0, even, h1)));
        vh = _mm512_add_epi64(vh, _mm512_mullo_epi64(
            _mm512_srli_epi64(a, 32), _mm512_permutex2var_epi64(h0, odd, h1)));
    }
    out[0] = _mm512_reduce_add_epi64(vn);
    out[1] = _mm512_reduce_add_epi64(vc);
    out[2] = _mm512_reduce_add_epi64(ve);
    *hash = (uint64_t)_mm512_reduce_add_epi64(vh);
}
#endif

#if FST_HAVE_AVX512
/* The block of four words holding the class boundary (bit nb0): its index in
 * *bb, and the mask of its class-0 bits, returned (whole words below the boundary
 * word, that word's low bits; none past it). */
__attribute__((target("avx2")))
static inline __m256i fst_boundary_block_avx2(int nb0, int nw, int* bb)
{
    int w0;
    uint64_t mb, m0[4];
    fst_prefix_split(nb0, nw, &w0, &mb);
    *bb = w0 >> 2;
    for (int l = 0; l < 4; l++) {
        int wd = 4 * *bb + l;
        m0[l] = wd < w0 ? ~(uint64_t)0 : (wd == w0 ? mb : 0);
    }
    return _mm256_loadu_si256((const __m256i*)m0);
}

/* The hash terms of four words a (lanes w .. w+3) with their keys at k (2 a
 * word), as 64-bit lanes: lo32(a_w) * k[2w] + hi32(a_w) * k[2w + 1] mod 2**64,
 * each 32 x 64-bit product from two 32 x 32 ones (AVX2 multiplies 32 bits). The
 * keys are regrouped in lane order w, w+2, w+1, w+3, and the words with them. */
__attribute__((target("avx2"))) __attribute__((always_inline))
static inline __m256i fst_hash4_avx2(__m256i a, __m256i ka, __m256i kb)
{
    __m256i k0 = _mm256_unpacklo_epi64(ka, kb), k1 = _mm256_unpackhi_epi64(ka, kb);
    __m256i lo = _mm256_permute4x64_epi64(a, 0xD8);       /* lanes 0, 2, 1, 3 */
    __m256i hi = _mm256_srli_epi64(lo, 32);
    __m256i t = _mm256_add_epi64(
        _mm256_mul_epu32(lo, k0),
        _mm256_slli_epi64(_mm256_mul_epu32(lo, _mm256_srli_epi64(k0, 32)), 32));
    return _mm256_add_epi64(t, _mm256_add_epi64(
        _mm256_mul_epu32(hi, k1),
        _mm256_slli_epi64(_mm256_mul_epu32(hi, _mm256_srli_epi64(k1, 32)), 32)));
}

/* fst_scan2 in AVX2 with rows sorted by class (class 0: the bits below nb0),
 * four words a block: per lane the rows (class-0 blocks shifted into the high 32
 * bits, as in fst_pair_row2p_avx2), the marked rows and the hash terms; the
 * block holding bit nb0 split by mask, the last block's missing words loaded as
 * zero (they add nothing to any sum).  Integer sums: the same results. */
__attribute__((target("avx2")))
static void fst_scan2p_avx2(const uint64_t* X, const uint64_t* S, int nb0,
                            const uint64_t* eqm, const uint64_t* hkey, int nw,
                            int64_t* out, uint64_t* hash)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    int bb;
    __m256i M0 = fst_boundary_block_avx2(nb0, nw, &bb);
    __m256i acc = _mm256_setzero_si256(), ve = acc, vh = acc;
    for (int w = 0; w < nw; w += 4) {
        int bi = w >> 2;
        __m256i a, e, ka, kb;
        if (w + 4 <= nw) {
            a = _mm256_and_si256(_mm256_loadu_si256((const __m256i*)(X + w)),
                                 _mm256_loadu_si256((const __m256i*)(S + w)));
            e = _mm256_loadu_si256((const __m256i*)(eqm + w));
            ka = _mm256_loadu_si256((const __m256i*)(hkey + 2 * w));
            kb = _mm256_loadu_si256((const __m256i*)(hkey + 2 * w + 4));
        } else {
            int rest = nw - w;
            __m256i keep = _mm256_cmpgt_epi64(_mm256_set1_epi64x(rest), lane);
            a = _mm256_and_si256(_mm256_maskload_epi64((const long long*)(X + w), keep),
                                 _mm256_maskload_epi64((const long long*)(S + w), keep));
            e = _mm256_maskload_epi64((const long long*)(eqm + w), keep);
            /* keys of words w .. w + rest - 1: 2 * rest of them */
            ka = _mm256_maskload_epi64((const long long*)(hkey + 2 * w),
                                       _mm256_cmpgt_epi64(_mm256_set1_epi64x(2 * rest), lane));
            kb = _mm256_maskload_epi64((const long long*)(hkey + 2 * w + 4),
                                       _mm256_cmpgt_epi64(_mm256_set1_epi64x(2 * rest - 4), lane));
        }
        if (bi < bb) {
            acc = _mm256_add_epi64(acc, _mm256_slli_epi64(fst_popcount_lanes_avx2(a, lut, low4), 32));
        } else if (bi == bb) {
            acc = _mm256_add_epi64(acc, _mm256_slli_epi64(fst_popcount_lanes_avx2(
                _mm256_and_si256(a, M0), lut, low4), 32));
            acc = _mm256_add_epi64(acc, fst_popcount_lanes_avx2(
                _mm256_andnot_si256(M0, a), lut, low4));
        } else {
            acc = _mm256_add_epi64(acc, fst_popcount_lanes_avx2(a, lut, low4));
        }
        ve = _mm256_add_epi64(ve, fst_popcount_lanes_avx2(_mm256_and_si256(a, e), lut, low4));
        vh = _mm256_add_epi64(vh, fst_hash4_avx2(a, ka, kb));
    }
    uint64_t la[4], le[4], lh[4];
    _mm256_storeu_si256((__m256i*)la, acc);
    _mm256_storeu_si256((__m256i*)le, ve);
    _mm256_storeu_si256((__m256i*)lh, vh);
    uint64_t t = la[0] + la[1] + la[2] + la[3];
    int64_t c0 = (int64_t)(t >> 32);
    out[0] = c0 + (int64_t)(t & 0xFFFFFFFFu);
    out[1] = c0;
    out[2] = (int64_t)(le[0] + le[1] + le[2] + le[3]);
    *hash = lh[0] + lh[1] + lh[2] + lh[3];
}
#endif

/* nb0 >= 0: the rows of class 0 are the bits below nb0 (rows sorted by class);
 * cb0 holds the same rows (the loops that take a bitset read it). */
static inline void fst_scan2(const uint64_t* X, const uint64_t* S, const uint64_t* cb0,
                             const uint64_t* eqm, const uint64_t* hkey, int nw,
                             int64_t* out, uint64_t* hash, int nb0)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1 && fst_simd_dq) {
        fst_scan2_avx512(X, S, cb0, eqm, hkey, nw, out, hash);
        return;
    }
    if (fst_simd_mode == 2 && nb0 >= 0) {
        fst_scan2p_avx2(X, S, nb0, eqm, hkey, nw, out, hash);
        return;
    }
#endif
    fst_scan2_scalar(X, S, cb0, eqm, hkey, nw, out, hash);
}

/* A pair stage's row set X & S written to out, with its rows and its rows of
 * class 0 in sums[0..1] (two classes): one pass instead of three. */
static inline void fst_and_counts2_scalar(const uint64_t* X, const uint64_t* S,
                                          const uint64_t* cb0, int nw, uint64_t* out,
                                          int64_t* sums)
{
    int64_t n = 0, c0 = 0;
    for (int w = 0; w < nw; w++) {
        uint64_t a = X[w] & S[w];
        out[w] = a;
        n += FST_POPCNT64(a);
        c0 += FST_POPCNT64(a & cb0[w]);
    }
    sums[0] = n;
    sums[1] = c0;
}

#if FST_HAVE_AVX512
__attribute__((target("avx512f,avx512vpopcntdq")))
static void fst_and_counts2_avx512(const uint64_t* X, const uint64_t* S,
                                   const uint64_t* cb0, int nw, uint64_t* out,
                                   int64_t* sums)
{
    __m512i vn = _mm512_setzero_si512(), vc = _mm512_setzero_si512();
    for (int w = 0; w < nw; w += 8) {
        int rest = nw - w;
        __mmask8 mk = (__mmask8)(rest >= 8 ? 0xFF : ((1u << rest) - 1u));
        __m512i a = _mm512_and_si512(_mm512_maskz_loadu_epi64(mk, X + w),
                                     _mm512_maskz_loadu_epi64(mk, S + w));
        _mm512_mask_storeu_epi64(out + w, mk, a);
        vn = _mm512_add_epi64(vn, _mm512_popcnt_epi64(a));
        vc = _mm512_add_epi64(vc, _mm512_popcnt_epi64(
            _mm512_and_si512(a, _mm512_maskz_loadu_epi64(mk, cb0 + w))));
    }
    sums[0] = _mm512_reduce_add_epi64(vn);
    sums[1] = _mm512_reduce_add_epi64(vc);
}
#endif

static inline void fst_and_counts2(const uint64_t* X, const uint64_t* S,
                                   const uint64_t* cb0, int nw, uint64_t* out,
                                   int64_t* sums)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1) {
        fst_and_counts2_avx512(X, S, cb0, nw, out, sums);
        return;
    }
#endif
    fst_and_counts2_scalar(X, S, cb0, nw, out, sums);
}

/* The rows of X & S (the search's class counts, and its test for a threshold that
 * leaves the previous one's partition, `gather_valid`).  Integer sums, so every
 * version agrees. */
static inline int64_t fst_and_count_scalar(const uint64_t* X, const uint64_t* S, int nw)
{
    int64_t n = 0;
    for (int w = 0; w < nw; w++)
        n += FST_POPCNT64(X[w] & S[w]);
    return n;
}

#if FST_HAVE_AVX512
__attribute__((target("avx512f,avx512vpopcntdq")))
static int64_t fst_and_count_avx512(const uint64_t* X, const uint64_t* S, int nw)
{
    __m512i acc = _mm512_setzero_si512();
    int w = 0;
    for (; w + 8 <= nw; w += 8)
        acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(
            _mm512_loadu_si512((const void*)(X + w)),
            _mm512_loadu_si512((const void*)(S + w)))));
    if (w < nw) {
        __mmask8 tail = (__mmask8)((1u << (nw - w)) - 1u);
        acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(
            _mm512_maskz_loadu_epi64(tail, X + w), _mm512_maskz_loadu_epi64(tail, S + w))));
    }
    return (int64_t)_mm512_reduce_add_epi64(acc);
}
#endif

static inline int64_t fst_and_count(const uint64_t* X, const uint64_t* S, int nw)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1 && nw >= 8)
        return fst_and_count_avx512(X, S, nw);
#endif
    return fst_and_count_scalar(X, S, nw);
}

#if FST_HAVE_AVX512
/* The row of the pair stage for 3 to 16 classes: for every split j, the cell
 * X & s_a & s_j's counts of classes 0 .. K-2 and its total, in out[(r*m + j)*K ..].
 * The K counts are packed two to a 64-bit lane (the first of a pair in the low
 * 32 bits: a cell has fewer than 2**31 rows, so the halves never carry), so a
 * cell takes ceil(K / 2) horizontal sums instead of K.  Two classes keep their own
 * kernel above: this one with K = 2 (inlined, K known) took 2.34 ns a pair of
 * 16 words against 1.65 ns. */
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

/* 1 when the vector row for 3 to 16 classes ran, else 0 (the caller's loop). */
static inline int fst_pair_row_k(const uint64_t* a, const uint64_t* XS, int m,
                                 const uint64_t* XC, int nw, int K, int r, int32_t* out)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1 && K >= 3 && K <= 16) {
        fst_pair_row_k_avx512(a, XS, m, XC, nw, K, r, out);
        return 1;
    }
#endif
    return 0;
}

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

#if FST_HAVE_AVX512
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

/* The two-class row of the pair stage: out[(r*m + j)*2] the rows of class 0 of
 * a & s_j, out[(r*m + j)*2 + 1] all its rows.  nb0 >= 0: the rows of class 0 are
 * the bits below nb0 (rows sorted by class; XC unused except by the AVX-512 loop,
 * which reads XC, the same rows); nb0 < 0: they are XC. */
static inline void fst_pair_row2(const uint64_t* a, const uint64_t* XS, int m,
                                 const uint64_t* XC, int nw, int r, int32_t* out,
                                 const int32_t* colrow, int nb0)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1) {
        fst_pair_row2_avx512(a, XS, m, XC, nw, r, out, colrow);
        return;
    }
    if (fst_simd_mode == 2) {
        if (nb0 >= 0)
            fst_pair_row2p_avx2(a, XS, m, nb0, nw, r, out, colrow);
        else
            fst_pair_row2_avx2(a, XS, m, XC, nw, r, out, colrow);
        return;
    }
#endif
    if (nb0 >= 0)
        fst_pair_row2p_scalar(a, XS, 0, m, nb0, nw, r, out, colrow);
    else
        fst_pair_row2_scalar(a, XS, m, XC, nw, r, out, colrow);
}


#if FST_HAVE_AVX512
/* One block of the value loops below: keep, per lane, the smallest l1 + l2 over
 * the separating splits (its first j on ties: strictly smaller replaces) and the
 * cheapest cell that may peel off -- one that can hold one leaf while the other
 * holds two (the potentials q against t1, t2; see _search._pair_values). */
__attribute__((target("avx512f")))
static inline void fst_take_pairs(__m512d l1, __m512d l2, __m512d q1, __m512d q2,
                                  __mmask8 sep, __m512d vt1, __m512d vt2, __m512i lane,
                                  __m512d* vbest, __m512i* vidx, __m512d* vpeel)
{
    __m512d v = _mm512_mask_blend_pd(sep, _mm512_set1_pd(__builtin_inf()),
                                     _mm512_add_pd(l1, l2));
    __mmask8 better = _mm512_cmp_pd_mask(v, *vbest, _CMP_LT_OQ);
    *vbest = _mm512_mask_blend_pd(better, *vbest, v);
    *vidx = _mm512_mask_blend_epi64(better, *vidx, lane);
    __mmask8 one1 = _mm512_cmp_pd_mask(q1, vt1, _CMP_GE_OQ);
    __mmask8 two1 = _mm512_cmp_pd_mask(q1, vt2, _CMP_GE_OQ);
    __mmask8 one2 = _mm512_cmp_pd_mask(q2, vt1, _CMP_GE_OQ);
    __mmask8 two2 = _mm512_cmp_pd_mask(q2, vt2, _CMP_GE_OQ);
    *vpeel = _mm512_mask_min_pd(*vpeel, sep & one1 & two2, l1, *vpeel);
    *vpeel = _mm512_mask_min_pd(*vpeel, sep & one2 & two1, l2, *vpeel);
}

/* The lanes' results of a value loop, combined: best2 the smallest value and arg
 * its first j (-1 if none), peel the smallest peel. */
__attribute__((target("avx512f")))
static inline void fst_finish_pairs(__m512d vbest, __m512i vidx, __m512d vpeel,
                                    double* best2, double* peel, int* arg)
{
    double b[8], p[8];
    int64_t ix[8];
    _mm512_storeu_pd(b, vbest);
    _mm512_storeu_pd(p, vpeel);
    _mm512_storeu_si512((void*)ix, vidx);
    double bb = __builtin_inf(), pp = __builtin_inf();
    int64_t ii = -1;
    for (int k = 0; k < 8; k++) {
        if (p[k] < pp)
            pp = p[k];
        /* each lane kept its first j; across lanes the first j of the smallest */
        if (ix[k] >= 0 && (b[k] < bb || (b[k] == bb && ix[k] < ii))) {
            bb = b[k];
            ii = ix[k];
        }
    }
    *best2 = bb;
    *peel = pp;
    *arg = (int)ii;
}

/* The two-class values of one row of pair counts (see _search._pair_values): for
 * each split j that separates the child, the leaf losses l1, l2 of its two cells,
 * with the same operations in the same order as the scalar loop (products, then
 * the sum; the smaller by the same comparison), so the same doubles.  best2 is the
 * smallest l1 + l2 and arg its first j (-1 if no j separates); peel the smallest
 * cell that can be a leaf of a three-leaf tree.  AVX-512 has FMA, so the build passes -ffp-contract=off (setup.py): no
 * product is fused into a sum, here or in the scalar loop. */
__attribute__((target("avx512f")))
static void fst_pair_values2_avx512(const int32_t* A, int m, const double* cl, int right,
                                    double cc0, double cc1, const double* cost,
                                    const double* potc, double t1, double t2,
                                    double* best2, double* peel, int* arg)
{
    const __m512d inf = _mm512_set1_pd(__builtin_inf());
    const __m512d k00 = _mm512_set1_pd(cost[0]), k01 = _mm512_set1_pd(cost[1]);
    const __m512d k10 = _mm512_set1_pd(cost[2]), k11 = _mm512_set1_pd(cost[3]);
    const __m512d zero = _mm512_setzero_pd();
    const __m512d vc0 = _mm512_set1_pd(cc0), vc1 = _mm512_set1_pd(cc1);
    const __m512d p0 = _mm512_set1_pd(potc[0]), p1 = _mm512_set1_pd(potc[1]);
    const __m512d vt1 = _mm512_set1_pd(t1), vt2 = _mm512_set1_pd(t2);
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    __m512d vbest = inf, vpeel = inf;
    __m512i vidx = _mm512_set1_epi64(-1);
    __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i eight = _mm512_set1_epi64(8);
    for (int j = 0; j < m; j += 8) {
        int rest = m - j;
        __mmask8 live = (__mmask8)(rest >= 8 ? 0xFF : ((1u << rest) - 1u));
        __m512i pr = _mm512_maskz_loadu_epi64(live, (const void*)(A + 2 * (int64_t)j));
        __m512d x0 = _mm512_cvtepi32_pd(_mm512_cvtepi64_epi32(pr));
        __m512d x1 = _mm512_sub_pd(
            _mm512_cvtepi32_pd(_mm512_cvtepi64_epi32(_mm512_srli_epi64(pr, 32))), x0);
        if (right) {
            __mmask8 lo = (__mmask8)(rest >= 4 ? 0xFF : ((1u << (2 * rest)) - 1u));
            __mmask8 hi = (__mmask8)(rest >= 8 ? 0xFF : (rest <= 4 ? 0 : ((1u << (2 * (rest - 4))) - 1u)));
            __m512d a = _mm512_maskz_loadu_pd(lo, cl + 2 * (int64_t)j);
            __m512d b = _mm512_maskz_loadu_pd(hi, cl + 2 * (int64_t)j + 8);
            x0 = _mm512_sub_pd(_mm512_permutex2var_pd(a, even, b), x0);
            x1 = _mm512_sub_pd(_mm512_permutex2var_pd(a, odd, b), x1);
        }
        __m512d y0 = _mm512_sub_pd(vc0, x0);
        __m512d y1 = _mm512_sub_pd(vc1, x1);
        __mmask8 sep = live
            & _mm512_cmp_pd_mask(_mm512_add_pd(x0, x1), zero, _CMP_NEQ_UQ)
            & _mm512_cmp_pd_mask(_mm512_add_pd(y0, y1), zero, _CMP_NEQ_UQ);
        __m512d s0 = _mm512_add_pd(_mm512_mul_pd(x0, k00), _mm512_mul_pd(x1, k10));
        __m512d s1 = _mm512_add_pd(_mm512_mul_pd(x0, k01), _mm512_mul_pd(x1, k11));
        __m512d l1 = _mm512_min_pd(s1, s0);      /* s1 < s0 ? s1 : s0 */
        s0 = _mm512_add_pd(_mm512_mul_pd(y0, k00), _mm512_mul_pd(y1, k10));
        s1 = _mm512_add_pd(_mm512_mul_pd(y0, k01), _mm512_mul_pd(y1, k11));
        __m512d l2 = _mm512_min_pd(s1, s0);
        __m512d q1 = _mm512_add_pd(_mm512_mul_pd(x0, p0), _mm512_mul_pd(x1, p1));
        __m512d q2 = _mm512_add_pd(_mm512_mul_pd(y0, p0), _mm512_mul_pd(y1, p1));
        fst_take_pairs(l1, l2, q1, q2, sep, vt1, vt2, lane, &vbest, &vidx, &vpeel);
        lane = _mm512_add_epi64(lane, eight);
    }
    fst_finish_pairs(vbest, vidx, vpeel, best2, peel, arg);
}

/* The values of one row of pair counts for 3 to 16 classes (see the scalar loop
 * of _search._pair_values): 8 splits at a time, each count gathered from the
 * row's [split][class] layout, with the same operations in the same order as the
 * scalar loop -- sums started at 0 and taken over the classes in order, the
 * leaf's cost the smallest label sum by the same comparison, over the same
 * labels `cols` -- so the same doubles, the same first split and the same peel. */
__attribute__((target("avx512f")))
static void fst_pair_values_k_avx512(const int32_t* A, int m, int K, const double* cl,
                                     int right, const double* cc, const double* cost,
                                     const int32_t* cols, int ncols,
                                     const double* potc, double t1, double t2,
                                     double* best2, double* peel, int* arg)
{
    const __m512d inf = _mm512_set1_pd(__builtin_inf());
    const __m512d zero = _mm512_setzero_pd();
    const __m512d vt1 = _mm512_set1_pd(t1), vt2 = _mm512_set1_pd(t2);
    const __m512i lane16 = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8,
                                            7, 6, 5, 4, 3, 2, 1, 0);
    __m512d vbest = inf, vpeel = inf;
    __m512i vidx = _mm512_set1_epi64(-1);
    __m512d c1[16], c2[16];
    for (int j = 0; j < m; j += 8) {
        int rest = m - j;
        __mmask8 live = (__mmask8)(rest >= 8 ? 0xFF : ((1u << rest) - 1u));
        /* positions of the 8 splits' first class in the row (lanes 8-15 unused:
         * AVX-512F gathers 32-bit values 16 at a time) */
        __m512i base = _mm512_mullo_epi32(_mm512_add_epi32(_mm512_set1_epi32(j), lane16),
                                          _mm512_set1_epi32(K));
        __m512d n1 = zero, n2 = zero;
        for (int k = 0; k < K - 1; k++) {
            __m512i ix = _mm512_add_epi32(base, _mm512_set1_epi32(k));
            __m512i a = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)live,
                                                    ix, (const void*)A, 4);
            c1[k] = _mm512_cvtepi32_pd(_mm512_castsi512_si256(a));
            n1 = _mm512_add_pd(n1, c1[k]);
        }
        {
            __m512i ix = _mm512_add_epi32(base, _mm512_set1_epi32(K - 1));
            __m512i a = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)live,
                                                    ix, (const void*)A, 4);
            /* the total less the other classes */
            c1[K - 1] = _mm512_sub_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(a)), n1);
        }
        if (right) {
            for (int k = 0; k < K; k++) {
                __m256i ix = _mm512_castsi512_si256(
                    _mm512_add_epi32(base, _mm512_set1_epi32(k)));
                __m512d b = _mm512_mask_i32gather_pd(zero, live, ix, (const void*)cl, 8);
                c1[k] = _mm512_sub_pd(b, c1[k]);
            }
        }
        n1 = zero;
        for (int k = 0; k < K; k++) {
            c2[k] = _mm512_sub_pd(_mm512_set1_pd(cc[k]), c1[k]);
            n1 = _mm512_add_pd(n1, c1[k]);
            n2 = _mm512_add_pd(n2, c2[k]);
        }
        __mmask8 sep = live & _mm512_cmp_pd_mask(n1, zero, _CMP_NEQ_UQ)
                       & _mm512_cmp_pd_mask(n2, zero, _CMP_NEQ_UQ);
        __m512d l1 = zero, l2 = zero, q1 = zero, q2 = zero;
        for (int t = 0; t < ncols; t++) {
            int kk = cols[t];
            __m512d s1 = zero, s2 = zero;
            for (int y = 0; y < K; y++) {
                __m512d w = _mm512_set1_pd(cost[y * K + kk]);
                s1 = _mm512_add_pd(s1, _mm512_mul_pd(c1[y], w));
                s2 = _mm512_add_pd(s2, _mm512_mul_pd(c2[y], w));
            }
            l1 = t == 0 ? s1 : _mm512_min_pd(s1, l1);   /* s < best ? s : best */
            l2 = t == 0 ? s2 : _mm512_min_pd(s2, l2);
        }
        for (int y = 0; y < K; y++) {
            __m512d w = _mm512_set1_pd(potc[y]);
            q1 = _mm512_add_pd(q1, _mm512_mul_pd(c1[y], w));
            q2 = _mm512_add_pd(q2, _mm512_mul_pd(c2[y], w));
        }
        __m512i lane = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(
            _mm512_add_epi32(_mm512_set1_epi32(j), lane16)));
        fst_take_pairs(l1, l2, q1, q2, sep, vt1, vt2, lane, &vbest, &vidx, &vpeel);
    }
    fst_finish_pairs(vbest, vidx, vpeel, best2, peel, arg);
}
#endif

/* 1 when the vector version for 3 to 16 classes ran, else 0 (the scalar loop). */
static inline int fst_pair_values_k(const int32_t* A, int m, int K, const double* cl,
                                    int right, const double* cc, const double* cost,
                                    const int32_t* cols, int ncols,
                                    const double* potc, double t1, double t2,
                                    double* best2, double* peel, int* arg)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1 && K >= 3 && K <= 16 && (int64_t)m * K < 2147483647) {
        fst_pair_values_k_avx512(A, m, K, cl, right, cc, cost, cols, ncols, potc, t1, t2,
                                 best2, peel, arg);
        return 1;
    }
#endif
    return 0;
}

/* 1 when the vector version ran (the caller's scalar loop is skipped), else 0. */
static inline int fst_pair_values2(const int32_t* A, int m, const double* cl, int right,
                                   double cc0, double cc1, const double* cost,
                                   const double* potc, double t1, double t2,
                                   double* best2, double* peel, int* arg)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1) {
        fst_pair_values2_avx512(A, m, cl, right, cc0, cc1, cost, potc, t1, t2,
                                best2, peel, arg);
        return 1;
    }
#endif
    return 0;
}

#if FST_HAVE_AVX512
/* One step of the whole-row loops: cells of losses l1, l2 and rows xt, yt (in the
   live lanes; a lane with an empty cell does not separate the child) update the
   best sum (first split per lane on ties) and the cheapest peel (a cell of t1 rows
   beside one of t2). */
__attribute__((target("avx512f")))
static inline void fst_take_pairs_u(__m512i l1, __m512i l2, __m512i xt, __m512i yt,
                                    __mmask16 live, __m512i vt1, __m512i vt2, __m512i lane,
                                    __m512i* vbest, __m512i* vidx, __m512i* vpeel)
{
    const __m512i zero = _mm512_setzero_si512();
    __mmask16 sep = live & _mm512_cmpneq_epi32_mask(xt, zero)
                         & _mm512_cmpneq_epi32_mask(yt, zero);
    __m512i v = _mm512_add_epi32(l1, l2);
    __mmask16 better = sep & _mm512_cmplt_epi32_mask(v, *vbest);
    *vbest = _mm512_mask_mov_epi32(*vbest, better, v);
    *vidx = _mm512_mask_mov_epi32(*vidx, better, lane);
    __mmask16 one1 = _mm512_cmpge_epi32_mask(xt, vt1);
    __mmask16 two1 = _mm512_cmpge_epi32_mask(xt, vt2);
    __mmask16 one2 = _mm512_cmpge_epi32_mask(yt, vt1);
    __mmask16 two2 = _mm512_cmpge_epi32_mask(yt, vt2);
    *vpeel = _mm512_mask_min_epi32(*vpeel, sep & one1 & two2, l1, *vpeel);
    *vpeel = _mm512_mask_min_epi32(*vpeel, sep & one2 & two1, l2, *vpeel);
}

/* The lanes of the whole-row loops reduced: the smallest peel, and the smallest
   best with, on ties, the first split (each lane kept its first). */
__attribute__((target("avx512f")))
static inline void fst_finish_pairs_u(__m512i vbest, __m512i vidx, __m512i vpeel,
                                      int32_t* best2, int32_t* peel, int* arg)
{
    int32_t bv[16], pv[16], ix[16];
    _mm512_storeu_si512((void*)bv, vbest);
    _mm512_storeu_si512((void*)pv, vpeel);
    _mm512_storeu_si512((void*)ix, vidx);
    int32_t bb = INT32_MAX, pp = INT32_MAX, ii = -1;
    for (int k = 0; k < 16; k++) {
        if (pv[k] < pp)
            pp = pv[k];
        if (ix[k] >= 0 && (bv[k] < bb || (bv[k] == bb && ix[k] < ii))) {
            bb = bv[k];
            ii = ix[k];
        }
    }
    *best2 = bb;
    *peel = pp;
    *arg = ii;
}

/* Block j (16 splits) of a two-class row of pair counts in whole rows: the rows
   and losses of the two cells each split cuts the child into (class-0 count c0,
   ct rows), as 32-bit lanes; *live masks the splits that exist.  A holds (class-0
   count, row count) per split, cli the same for X & s_j. */
__attribute__((target("avx512f")))
static inline void fst_cells2u_block(const int32_t* A, const int32_t* cli, int right,
                                     int m, int j, __m512i vc0, __m512i vct,
                                     __m512i* xt, __m512i* yt, __m512i* l1,
                                     __m512i* l2, __mmask16* live)
{
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16,
                                          14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17,
                                         15, 13, 11, 9, 7, 5, 3, 1);
    int rest = m - j;
    int ints = rest >= 16 ? 32 : 2 * rest;
    *live = (__mmask16)(rest >= 16 ? 0xFFFF : ((1u << rest) - 1u));
    __mmask16 lo = (__mmask16)(ints >= 16 ? 0xFFFF : ((1u << ints) - 1u));
    __mmask16 hi = (__mmask16)(ints >= 32 ? 0xFFFF : (ints <= 16 ? 0 : ((1u << (ints - 16)) - 1u)));
    const int32_t* p = A + 2 * (int64_t)j;
    __m512i a = _mm512_maskz_loadu_epi32(lo, (const void*)p);
    __m512i b = _mm512_maskz_loadu_epi32(hi, (const void*)(p + 16));
    __m512i x0 = _mm512_permutex2var_epi32(a, even, b);
    __m512i xr = _mm512_permutex2var_epi32(a, odd, b);
    if (right) {
        const int32_t* q = cli + 2 * (int64_t)j;
        __m512i ca = _mm512_maskz_loadu_epi32(lo, (const void*)q);
        __m512i cb = _mm512_maskz_loadu_epi32(hi, (const void*)(q + 16));
        x0 = _mm512_sub_epi32(_mm512_permutex2var_epi32(ca, even, cb), x0);
        xr = _mm512_sub_epi32(_mm512_permutex2var_epi32(ca, odd, cb), xr);
    }
    __m512i x1 = _mm512_sub_epi32(xr, x0);
    __m512i y0 = _mm512_sub_epi32(vc0, x0);
    __m512i yr = _mm512_sub_epi32(vct, xr);
    __m512i y1 = _mm512_sub_epi32(yr, y0);
    *xt = xr;
    *yt = yr;
    *l1 = _mm512_min_epi32(x0, x1);
    *l2 = _mm512_min_epi32(y0, y1);
}

/* Two classes under a symmetric 0/1-type cost (u for an error, 0 on the diagonal):
   fst_pair_values2's values counted in whole rows (the caller multiplies by u;
   the doubles may differ from its sums in the last bit).  A cell's loss is the
   smaller of its two class counts and its potential is its row count, so the
   loop runs on 32-bit integers, 16 pairs at a time, and ties are exact.  A holds
   (class-0 count, row count) per split; cli the same for X & s_j; t1, t2 are the
   capacity thresholds in rows.  Returns the best two-leaf loss and the cheapest
   peel in rows (INT32_MAX: none) and the first split achieving the best. */
__attribute__((target("avx512f")))
static void fst_pair_values2u_avx512(const int32_t* A, int m, const int32_t* cli,
                                     int right, int32_t c0, int32_t ct, int32_t t1,
                                     int32_t t2, int32_t* best2, int32_t* peel,
                                     int* arg)
{
    const __m512i big = _mm512_set1_epi32(INT32_MAX);
    const __m512i vc0 = _mm512_set1_epi32(c0), vct = _mm512_set1_epi32(ct);
    const __m512i vt1 = _mm512_set1_epi32(t1), vt2 = _mm512_set1_epi32(t2);
    const __m512i sixteen = _mm512_set1_epi32(16);
    __m512i vbest = big, vpeel = big, vidx = _mm512_set1_epi32(-1);
    __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (int j = 0; j < m; j += 16) {
        __m512i xt, yt, l1, l2;
        __mmask16 live;
        fst_cells2u_block(A, cli, right, m, j, vc0, vct, &xt, &yt, &l1, &l2, &live);
        fst_take_pairs_u(l1, l2, xt, yt, live, vt1, vt2, lane, &vbest, &vidx, &vpeel);
        lane = _mm512_add_epi32(lane, sixteen);
    }
    fst_finish_pairs_u(vbest, vidx, vpeel, best2, peel, arg);
}
#endif

#if FST_HAVE_AVX512
/* The three-leaf bound of fst_pair_values2u's child (two classes, whole rows):
   the least, over the cells A that may peel off as the leaf of a three-leaf tree
   (the same capacity masks), of loss(A) + max(0, ib - rows(A)), ib being the
   child's best two-leaf loss.  Every cell's value is at least its loss, so the
   loop ends once the least reaches `low`, the cheapest peel (the caller's).
   INT32_MAX: no cell peels off.  The argument is at `_peel_bound`. */
__attribute__((target("avx512f")))
static int32_t fst_peel3_2u_avx512(const int32_t* A, int m, const int32_t* cli,
                                   int right, int32_t c0, int32_t ct, int32_t t1,
                                   int32_t t2, int32_t ib, int32_t low)
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i vc0 = _mm512_set1_epi32(c0), vct = _mm512_set1_epi32(ct);
    const __m512i vt1 = _mm512_set1_epi32(t1), vt2 = _mm512_set1_epi32(t2);
    const __m512i vib = _mm512_set1_epi32(ib);
    __m512i vpeel = _mm512_set1_epi32(INT32_MAX);
    for (int j = 0; j < m; j += 16) {
        __m512i xt, yt, l1, l2;
        __mmask16 live;
        fst_cells2u_block(A, cli, right, m, j, vc0, vct, &xt, &yt, &l1, &l2, &live);
        __mmask16 sep = live & _mm512_cmpneq_epi32_mask(xt, zero)
                             & _mm512_cmpneq_epi32_mask(yt, zero);
        __mmask16 one1 = _mm512_cmpge_epi32_mask(xt, vt1);
        __mmask16 two1 = _mm512_cmpge_epi32_mask(xt, vt2);
        __mmask16 one2 = _mm512_cmpge_epi32_mask(yt, vt1);
        __mmask16 two2 = _mm512_cmpge_epi32_mask(yt, vt2);
        __m512i v1 = _mm512_add_epi32(l1, _mm512_max_epi32(zero, _mm512_sub_epi32(vib, xt)));
        __m512i v2 = _mm512_add_epi32(l2, _mm512_max_epi32(zero, _mm512_sub_epi32(vib, yt)));
        vpeel = _mm512_mask_min_epi32(vpeel, sep & one1 & two2, v1, vpeel);
        vpeel = _mm512_mask_min_epi32(vpeel, sep & one2 & two1, v2, vpeel);
        if (_mm512_reduce_min_epi32(vpeel) <= low)
            break;
    }
    return _mm512_reduce_min_epi32(vpeel);
}
#endif

#if FST_HAVE_AVX512
/* AVX2 versions of the two-class whole-row loops, for CPUs without AVX-512: 8
   splits at a time in 32-bit lanes, with the same integer values, the same first
   split on ties and the same peel as the scalar loops (the comparisons are exact);
   the last block's missing splits load as empty cells, which separate nothing. */

/* Block j (up to 8 splits, m in all) of a two-class row of pair counts: as
   fst_cells2u_block, and sep, all ones in the lanes whose split separates the
   child.  Past m the counts load as 0: an empty cell, so those lanes separate
   nothing. */
__attribute__((target("avx2")))
static inline void fst_cells2u_block_avx2(const int32_t* A, const int32_t* cli, int right,
                                          int m, int j, __m256i vc0, __m256i vct,
                                          __m256i* xt, __m256i* yt, __m256i* l1,
                                          __m256i* l2, __m256i* sep)
{
    const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i pos = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int ints = m - j >= 8 ? 16 : 2 * (m - j);    /* the block's counts that exist */
    __m256i lo = _mm256_cmpgt_epi32(_mm256_set1_epi32(ints), pos);
    __m256i hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(ints - 8), pos);
    const int32_t* p = A + 2 * (int64_t)j;
    /* (class 0, rows) pairs of splits j..j+3 and j+4..j+7, each regrouped as four
       class-0 counts then four row counts */
    __m256i a = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(p, lo), split);
    __m256i b = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(p + 8, hi), split);
    __m256i x0 = _mm256_permute2x128_si256(a, b, 0x20);
    __m256i xr = _mm256_permute2x128_si256(a, b, 0x31);
    if (right) {
        const int32_t* q = cli + 2 * (int64_t)j;
        __m256i ca = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(q, lo), split);
        __m256i cb = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(q + 8, hi), split);
        x0 = _mm256_sub_epi32(_mm256_permute2x128_si256(ca, cb, 0x20), x0);
        xr = _mm256_sub_epi32(_mm256_permute2x128_si256(ca, cb, 0x31), xr);
    }
    __m256i x1 = _mm256_sub_epi32(xr, x0);
    __m256i y0 = _mm256_sub_epi32(vc0, x0);
    __m256i yr = _mm256_sub_epi32(vct, xr);
    __m256i y1 = _mm256_sub_epi32(yr, y0);
    *xt = xr;
    *yt = yr;
    *l1 = _mm256_min_epi32(x0, x1);
    *l2 = _mm256_min_epi32(y0, y1);
    *sep = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpeq_epi32(xr, zero),
                                               _mm256_cmpeq_epi32(yr, zero)),
                               _mm256_set1_epi32(-1));
}

/* The least of eight 32-bit lanes. */
__attribute__((target("avx2")))
static inline int32_t fst_hmin_avx2(__m256i v)
{
    v = _mm256_min_epi32(v, _mm256_permute2x128_si256(v, v, 1));
    v = _mm256_min_epi32(v, _mm256_shuffle_epi32(v, 0x4E));
    v = _mm256_min_epi32(v, _mm256_shuffle_epi32(v, 0xB1));
    return _mm256_cvtsi256_si32(v);
}

/* fst_pair_values2u_avx512 in AVX2 (8 lanes; x >= t tested as x > t - 1, the
   thresholds being row counts >= 0). */
__attribute__((target("avx2")))
static void fst_pair_values2u_avx2(const int32_t* A, int m, const int32_t* cli,
                                   int right, int32_t c0, int32_t ct, int32_t t1,
                                   int32_t t2, int32_t* best2, int32_t* peel, int* arg,
                                   int32_t* cache)
{
    const __m256i big = _mm256_set1_epi32(INT32_MAX);
    const __m256i vc0 = _mm256_set1_epi32(c0), vct = _mm256_set1_epi32(ct);
    const __m256i vt1 = _mm256_set1_epi32(t1 - 1), vt2 = _mm256_set1_epi32(t2 - 1);
    const __m256i eight = _mm256_set1_epi32(8);
    __m256i vbest = big, vpeel = big, vidx = _mm256_set1_epi32(-1);
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int j = 0; j < m; j += 8) {
        __m256i xt, yt, l1, l2, sep;
        fst_cells2u_block_avx2(A, cli, right, m, j, vc0, vct, &xt, &yt, &l1, &l2, &sep);
        __m256i v = _mm256_add_epi32(l1, l2);
        /* strictly smaller replaces: each lane keeps its first split on ties */
        __m256i better = _mm256_and_si256(sep, _mm256_cmpgt_epi32(vbest, v));
        vbest = _mm256_blendv_epi8(vbest, v, better);
        vidx = _mm256_blendv_epi8(vidx, lane, better);
        __m256i one1 = _mm256_cmpgt_epi32(xt, vt1), two1 = _mm256_cmpgt_epi32(xt, vt2);
        __m256i one2 = _mm256_cmpgt_epi32(yt, vt1), two2 = _mm256_cmpgt_epi32(yt, vt2);
        __m256i p1 = _mm256_and_si256(sep, _mm256_and_si256(one1, two2));
        __m256i p2 = _mm256_and_si256(sep, _mm256_and_si256(one2, two1));
        vpeel = _mm256_blendv_epi8(vpeel, _mm256_min_epi32(vpeel, l1), p1);
        vpeel = _mm256_blendv_epi8(vpeel, _mm256_min_epi32(vpeel, l2), p2);
        lane = _mm256_add_epi32(lane, eight);
        if (cache) {        /* the block's cells, for fst_peel3_2u_avx2 */
            __m256i* cb = (__m256i*)(cache + 6 * (int64_t)j);
            _mm256_storeu_si256(cb, xt);
            _mm256_storeu_si256(cb + 1, yt);
            _mm256_storeu_si256(cb + 2, l1);
            _mm256_storeu_si256(cb + 3, l2);
            _mm256_storeu_si256(cb + 4, p1);
            _mm256_storeu_si256(cb + 5, p2);
        }
    }
    int32_t bv[8], pv[8], ix[8];
    _mm256_storeu_si256((__m256i*)bv, vbest);
    _mm256_storeu_si256((__m256i*)pv, vpeel);
    _mm256_storeu_si256((__m256i*)ix, vidx);
    int32_t bb = INT32_MAX, pp = INT32_MAX, ii = -1;
    for (int k = 0; k < 8; k++) {
        if (pv[k] < pp)
            pp = pv[k];
        /* each lane kept its first split; across lanes the first of the smallest */
        if (ix[k] >= 0 && (bv[k] < bb || (bv[k] == bb && ix[k] < ii))) {
            bb = bv[k];
            ii = ix[k];
        }
    }
    *best2 = bb;
    *peel = pp;
    *arg = ii;
}

/* fst_peel3_2u_avx512 in AVX2.  The loop may end at any point once the least
   reaches `low`: no cell's value is below it, so the result is `low` wherever the
   loop ends (the scalar loop ends at a split, this one at a block). */
__attribute__((target("avx2")))
static int32_t fst_peel3_2u_avx2(const int32_t* A, int m, const int32_t* cli,
                                 int right, int32_t c0, int32_t ct, int32_t t1,
                                 int32_t t2, int32_t ib, int32_t low,
                                 const int32_t* cache)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i vc0 = _mm256_set1_epi32(c0), vct = _mm256_set1_epi32(ct);
    const __m256i vt1 = _mm256_set1_epi32(t1 - 1), vt2 = _mm256_set1_epi32(t2 - 1);
    const __m256i vib = _mm256_set1_epi32(ib);
    __m256i vpeel = _mm256_set1_epi32(INT32_MAX);
    for (int j = 0; j < m; j += 8) {
        __m256i xt, yt, l1, l2, p1, p2;
        if (cache) {        /* the cells fst_pair_values2u_avx2 left: the same */
            const __m256i* cb = (const __m256i*)(cache + 6 * (int64_t)j);
            xt = _mm256_loadu_si256(cb);
            yt = _mm256_loadu_si256(cb + 1);
            l1 = _mm256_loadu_si256(cb + 2);
            l2 = _mm256_loadu_si256(cb + 3);
            p1 = _mm256_loadu_si256(cb + 4);
            p2 = _mm256_loadu_si256(cb + 5);
        } else {
            __m256i sep;
            fst_cells2u_block_avx2(A, cli, right, m, j, vc0, vct, &xt, &yt, &l1, &l2, &sep);
            __m256i one1 = _mm256_cmpgt_epi32(xt, vt1), two1 = _mm256_cmpgt_epi32(xt, vt2);
            __m256i one2 = _mm256_cmpgt_epi32(yt, vt1), two2 = _mm256_cmpgt_epi32(yt, vt2);
            p1 = _mm256_and_si256(sep, _mm256_and_si256(one1, two2));
            p2 = _mm256_and_si256(sep, _mm256_and_si256(one2, two1));
        }
        __m256i v1 = _mm256_add_epi32(l1, _mm256_max_epi32(zero, _mm256_sub_epi32(vib, xt)));
        __m256i v2 = _mm256_add_epi32(l2, _mm256_max_epi32(zero, _mm256_sub_epi32(vib, yt)));
        vpeel = _mm256_blendv_epi8(vpeel, _mm256_min_epi32(vpeel, v1), p1);
        vpeel = _mm256_blendv_epi8(vpeel, _mm256_min_epi32(vpeel, v2), p2);
        if (fst_hmin_avx2(vpeel) <= low)
            return fst_hmin_avx2(vpeel);
    }
    return fst_hmin_avx2(vpeel);
}
#endif

/* 1 when the vector version ran (*out set), else 0: the caller's scalar loop. */
/* cache: NULL, or the cells fst_pair_values2u left there for this child under
 * the same loops (AVX2 only; the other loops ignore it) */
static inline int fst_peel3_2u(const int32_t* A, int m, const int32_t* cli, int right,
                               int32_t c0, int32_t ct, int32_t t1, int32_t t2,
                               int32_t ib, int32_t low, int32_t* out,
                               const int32_t* cache)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1) {
        *out = fst_peel3_2u_avx512(A, m, cli, right, c0, ct, t1, t2, ib, low);
        return 1;
    }
    if (fst_simd_mode == 2) {
        *out = fst_peel3_2u_avx2(A, m, cli, right, c0, ct, t1, t2, ib, low, cache);
        return 1;
    }
#endif
    (void)A; (void)m; (void)cli; (void)right; (void)c0; (void)ct; (void)t1; (void)t2;
    (void)ib; (void)low; (void)out; (void)cache;
    return 0;
}

#if FST_HAVE_AVX512
/* fst_pair_values2u for 3 or more classes: A and cli hold K counts per split
   (classes 0..K-2, then the rows), gathered 16 splits at a time; a cell loses its
   rows less its largest class.  cc: the child's K class counts, ct their sum. */
__attribute__((target("avx512f")))
static void fst_pair_values_ku_avx512(const int32_t* A, int m, int K, const int32_t* cli,
                                      int right, const int32_t* cc, int32_t ct,
                                      int32_t t1, int32_t t2, int32_t* best2,
                                      int32_t* peel, int* arg)
{
    const __m512i big = _mm512_set1_epi32(INT32_MAX);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i vct = _mm512_set1_epi32(ct);
    const __m512i vt1 = _mm512_set1_epi32(t1), vt2 = _mm512_set1_epi32(t2);
    const __m512i sixteen = _mm512_set1_epi32(16);
    const __m512i step = _mm512_mullo_epi32(
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
        _mm512_set1_epi32(K));
    __m512i vbest = big, vpeel = big, vidx = _mm512_set1_epi32(-1);
    __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (int j = 0; j < m; j += 16) {
        int rest = m - j;
        __mmask16 live = (__mmask16)(rest >= 16 ? 0xFFFF : ((1u << rest) - 1u));
        const int32_t* p = A + (int64_t)j * K;
        const int32_t* q = cli + (int64_t)j * K;
        __m512i xt = _mm512_mask_i32gather_epi32(zero, live, step, p + K - 1, 4);
        if (right)
            xt = _mm512_sub_epi32(_mm512_mask_i32gather_epi32(zero, live, step, q + K - 1, 4), xt);
        __m512i yt = _mm512_sub_epi32(vct, xt);
        __m512i sx = zero, mx = zero, my = zero;
        for (int k = 0; k < K - 1; k++) {
            __m512i xk = _mm512_mask_i32gather_epi32(zero, live, step, p + k, 4);
            if (right)
                xk = _mm512_sub_epi32(_mm512_mask_i32gather_epi32(zero, live, step, q + k, 4), xk);
            sx = _mm512_add_epi32(sx, xk);
            mx = _mm512_max_epi32(mx, xk);
            my = _mm512_max_epi32(my, _mm512_sub_epi32(_mm512_set1_epi32(cc[k]), xk));
        }
        __m512i xl = _mm512_sub_epi32(xt, sx);
        mx = _mm512_max_epi32(mx, xl);
        my = _mm512_max_epi32(my, _mm512_sub_epi32(_mm512_set1_epi32(cc[K - 1]), xl));
        fst_take_pairs_u(_mm512_sub_epi32(xt, mx), _mm512_sub_epi32(yt, my), xt, yt,
                         live, vt1, vt2, lane, &vbest, &vidx, &vpeel);
        lane = _mm512_add_epi32(lane, sixteen);
    }
    fst_finish_pairs_u(vbest, vidx, vpeel, best2, peel, arg);
}
#endif

/* 1 when the vector version ran (the caller's scalar loop is skipped), else 0. */
static inline int fst_pair_values_ku(const int32_t* A, int m, int K, const int32_t* cli,
                                     int right, const int32_t* cc, int32_t ct,
                                     int32_t t1, int32_t t2, int32_t* best2,
                                     int32_t* peel, int* arg)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1) {
        fst_pair_values_ku_avx512(A, m, K, cli, right, cc, ct, t1, t2, best2, peel, arg);
        return 1;
    }
#endif
    return 0;
}

/* 1 when the vector version ran (the caller's scalar loop is skipped), else 0. */
/* cache: NULL, or room for 6 * (m rounded up to 8) int32 where the AVX2 loop
 * leaves each block's cells for fst_peel3_2u (the other loops leave nothing) */
static inline int fst_pair_values2u(const int32_t* A, int m, const int32_t* cli,
                                    int right, int32_t c0, int32_t ct, int32_t t1,
                                    int32_t t2, int32_t* best2, int32_t* peel, int* arg,
                                    int32_t* cache)
{
#if FST_HAVE_AVX512
    if (fst_simd_mode == 1) {
        fst_pair_values2u_avx512(A, m, cli, right, c0, ct, t1, t2, best2, peel, arg);
        return 1;
    }
    if (fst_simd_mode == 2) {
        fst_pair_values2u_avx2(A, m, cli, right, c0, ct, t1, t2, best2, peel, arg, cache);
        return 1;
    }
#endif
    return 0;
}

#if FST_HAVE_AVX512
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
   registers (3 classes, 3 words: 0.80 ns a cell against 3.0 ns with K a variable,
   `benchmarks/pair_kernels.py`). */
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

#if FST_HAVE_AVX512
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

static inline void fst_pair_rows2_t(const uint64_t* a, const uint64_t* c,
                                    const uint64_t* XT, int m, int mp,
                                    const uint64_t* XC, int nw, int r, int32_t* out)
{
#if FST_HAVE_AVX512
    fst_pair_rows2_t_avx512(a, c, XT, m, mp, XC, nw, r, out);
#else
    (void)a; (void)c; (void)XT; (void)m; (void)mp; (void)XC; (void)nw; (void)r; (void)out;
#endif
}

/* 1 when the transposed kernel can run (the AVX-512 loops are on, 2 to 16
   classes), else 0: the caller uses the row kernels. */
static inline int fst_pair_transposed_ok(int K)
{
#if FST_HAVE_AVX512
    return fst_simd_mode == 1 && K >= 2 && K <= 16;
#else
    (void)K;
    return 0;
#endif
}

static inline void fst_pair_row_t(const uint64_t* a, const uint64_t* XT, int m, int mp,
                                  const uint64_t* XC, int nw, int K, int r, int32_t* out)
{
#if FST_HAVE_AVX512
    fst_pair_row_t_avx512(a, XT, m, mp, XC, nw, K, r, out);
#else
    (void)a; (void)XT; (void)m; (void)mp; (void)XC; (void)nw; (void)K; (void)r; (void)out;
#endif
}

#endif
