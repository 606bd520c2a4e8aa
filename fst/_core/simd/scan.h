/* The search's word scans: fst_scan2_* (one side of a split at a node, two
 * classes: its rows, class-0 rows, marked rows and linear hash in one pass),
 * fst_and_counts2_* (a pair stage's row set X & S with its two counts) and
 * fst_and_count_* (the rows of X & S).  Integer sums: every loop agrees with the
 * scalar reference.  Dispatch: simd.h. */
#ifndef FST_SIMD_SCAN_H
#define FST_SIMD_SCAN_H

#include "common.h"

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

#if FST_X86_VECTOR

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

#if FST_X86_VECTOR
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

#if FST_X86_VECTOR
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

#if FST_X86_VECTOR
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

#endif
