/* A side's rows of a column's order for the engine's depth-one pass over that
 * side alone (`_depth_columns._side_rows`, `_sides_rows`): of m rows in one
 * column's order (rk their ranks, yk their classes), those whose position
 * pos[i] in the order of the column of the split being valued is below t
 * (side 0) or at least t (side 1), their ranks and classes in the same order.  The scalar
 * loop writes each row and moves its count on by the row's side, without a
 * branch; AVX-512 compresses sixteen rows at a time (VPCOMPRESSD into a
 * register, then a whole store), AVX2 eight through a table of lane
 * permutations.  Every loop stores whole blocks past the rows it keeps but
 * never past index i + block - 1 of the block it reads (i the block's first
 * row), so never past m - 1: an output of m entries holds it.  Dispatch:
 * simd.h. */
#ifndef FST_SIMD_ROWS_H
#define FST_SIMD_ROWS_H

#include "common.h"

static inline int fst_side_rows_scalar(const int32_t* rk, const int32_t* yk,
                                       const int32_t* pos, int i, int m, int32_t t,
                                       int side, int32_t* ork, int32_t* oyk, int k)
{
    for (; i < m; i++) {
        ork[k] = rk[i];
        oyk[k] = yk[i];
        k += (pos[i] >= t) == side;
    }
    return k;
}

/* Both sides at once (side 0's rows into r0, y0 and side 1's into r1, y1, each
 * output of m entries); returns side 0's count. */
static inline int fst_sides_rows_scalar(const int32_t* rk, const int32_t* yk,
                                        const int32_t* pos, int i, int m, int32_t t,
                                        int32_t* r0, int32_t* y0, int32_t* r1,
                                        int32_t* y1, int k0, int k1)
{
    for (; i < m; i++) {
        int s = pos[i] >= t;
        r0[k0] = rk[i];
        y0[k0] = yk[i];
        r1[k1] = rk[i];
        y1[k1] = yk[i];
        k0 += 1 - s;
        k1 += s;
    }
    return k0;
}

#if FST_X86_VECTOR
__attribute__((target("avx512f")))
static inline int fst_side_rows_avx512(const int32_t* rk, const int32_t* yk,
                                       const int32_t* pos, int m, int32_t t, int side,
                                       int32_t* ork, int32_t* oyk)
{
    int i = 0, k = 0;
    __m512i tv = _mm512_set1_epi32(t);
    for (; i + 16 <= m; i += 16) {
        __mmask16 ge = _mm512_cmpge_epi32_mask(_mm512_loadu_si512((const void*)(pos + i)), tv);
        __mmask16 keep = side ? ge : (__mmask16)~ge;
        _mm512_storeu_si512((void*)(ork + k), _mm512_maskz_compress_epi32(
            keep, _mm512_loadu_si512((const void*)(rk + i))));
        _mm512_storeu_si512((void*)(oyk + k), _mm512_maskz_compress_epi32(
            keep, _mm512_loadu_si512((const void*)(yk + i))));
        k += __builtin_popcount((unsigned)keep);
    }
    return fst_side_rows_scalar(rk, yk, pos, i, m, t, side, ork, oyk, k);
}

__attribute__((target("avx512f")))
static inline int fst_sides_rows_avx512(const int32_t* rk, const int32_t* yk,
                                        const int32_t* pos, int m, int32_t t,
                                        int32_t* r0, int32_t* y0, int32_t* r1, int32_t* y1)
{
    int i = 0, k0 = 0, k1 = 0;
    __m512i tv = _mm512_set1_epi32(t);
    for (; i + 16 <= m; i += 16) {
        __mmask16 ge = _mm512_cmpge_epi32_mask(_mm512_loadu_si512((const void*)(pos + i)), tv);
        __mmask16 lt = (__mmask16)~ge;
        __m512i r = _mm512_loadu_si512((const void*)(rk + i));
        __m512i y = _mm512_loadu_si512((const void*)(yk + i));
        _mm512_storeu_si512((void*)(r0 + k0), _mm512_maskz_compress_epi32(lt, r));
        _mm512_storeu_si512((void*)(y0 + k0), _mm512_maskz_compress_epi32(lt, y));
        _mm512_storeu_si512((void*)(r1 + k1), _mm512_maskz_compress_epi32(ge, r));
        _mm512_storeu_si512((void*)(y1 + k1), _mm512_maskz_compress_epi32(ge, y));
        k1 += __builtin_popcount((unsigned)ge);
        k0 = i + 16 - k1;
    }
    return fst_sides_rows_scalar(rk, yk, pos, i, m, t, r0, y0, r1, y1, k0, k1);
}

/* For each mask of eight lanes, the lanes it keeps in order, a byte each. */
static const uint64_t fst_keep_lanes8[256] = {
    0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000001ULL, 0x0000000000000100ULL,
    0x0000000000000002ULL, 0x0000000000000200ULL, 0x0000000000000201ULL, 0x0000000000020100ULL,
    0x0000000000000003ULL, 0x0000000000000300ULL, 0x0000000000000301ULL, 0x0000000000030100ULL,
    0x0000000000000302ULL, 0x0000000000030200ULL, 0x0000000000030201ULL, 0x0000000003020100ULL,
    0x0000000000000004ULL, 0x0000000000000400ULL, 0x0000000000000401ULL, 0x0000000000040100ULL,
    0x0000000000000402ULL, 0x0000000000040200ULL, 0x0000000000040201ULL, 0x0000000004020100ULL,
    0x0000000000000403ULL, 0x0000000000040300ULL, 0x0000000000040301ULL, 0x0000000004030100ULL,
    0x0000000000040302ULL, 0x0000000004030200ULL, 0x0000000004030201ULL, 0x0000000403020100ULL,
    0x0000000000000005ULL, 0x0000000000000500ULL, 0x0000000000000501ULL, 0x0000000000050100ULL,
    0x0000000000000502ULL, 0x0000000000050200ULL, 0x0000000000050201ULL, 0x0000000005020100ULL,
    0x0000000000000503ULL, 0x0000000000050300ULL, 0x0000000000050301ULL, 0x0000000005030100ULL,
    0x0000000000050302ULL, 0x0000000005030200ULL, 0x0000000005030201ULL, 0x0000000503020100ULL,
    0x0000000000000504ULL, 0x0000000000050400ULL, 0x0000000000050401ULL, 0x0000000005040100ULL,
    0x0000000000050402ULL, 0x0000000005040200ULL, 0x0000000005040201ULL, 0x0000000504020100ULL,
    0x0000000000050403ULL, 0x0000000005040300ULL, 0x0000000005040301ULL, 0x0000000504030100ULL,
    0x0000000005040302ULL, 0x0000000504030200ULL, 0x0000000504030201ULL, 0x0000050403020100ULL,
    0x0000000000000006ULL, 0x0000000000000600ULL, 0x0000000000000601ULL, 0x0000000000060100ULL,
    0x0000000000000602ULL, 0x0000000000060200ULL, 0x0000000000060201ULL, 0x0000000006020100ULL,
    0x0000000000000603ULL, 0x0000000000060300ULL, 0x0000000000060301ULL, 0x0000000006030100ULL,
    0x0000000000060302ULL, 0x0000000006030200ULL, 0x0000000006030201ULL, 0x0000000603020100ULL,
    0x0000000000000604ULL, 0x0000000000060400ULL, 0x0000000000060401ULL, 0x0000000006040100ULL,
    0x0000000000060402ULL, 0x0000000006040200ULL, 0x0000000006040201ULL, 0x0000000604020100ULL,
    0x0000000000060403ULL, 0x0000000006040300ULL, 0x0000000006040301ULL, 0x0000000604030100ULL,
    0x0000000006040302ULL, 0x0000000604030200ULL, 0x0000000604030201ULL, 0x0000060403020100ULL,
    0x0000000000000605ULL, 0x0000000000060500ULL, 0x0000000000060501ULL, 0x0000000006050100ULL,
    0x0000000000060502ULL, 0x0000000006050200ULL, 0x0000000006050201ULL, 0x0000000605020100ULL,
    0x0000000000060503ULL, 0x0000000006050300ULL, 0x0000000006050301ULL, 0x0000000605030100ULL,
    0x0000000006050302ULL, 0x0000000605030200ULL, 0x0000000605030201ULL, 0x0000060503020100ULL,
    0x0000000000060504ULL, 0x0000000006050400ULL, 0x0000000006050401ULL, 0x0000000605040100ULL,
    0x0000000006050402ULL, 0x0000000605040200ULL, 0x0000000605040201ULL, 0x0000060504020100ULL,
    0x0000000006050403ULL, 0x0000000605040300ULL, 0x0000000605040301ULL, 0x0000060504030100ULL,
    0x0000000605040302ULL, 0x0000060504030200ULL, 0x0000060504030201ULL, 0x0006050403020100ULL,
    0x0000000000000007ULL, 0x0000000000000700ULL, 0x0000000000000701ULL, 0x0000000000070100ULL,
    0x0000000000000702ULL, 0x0000000000070200ULL, 0x0000000000070201ULL, 0x0000000007020100ULL,
    0x0000000000000703ULL, 0x0000000000070300ULL, 0x0000000000070301ULL, 0x0000000007030100ULL,
    0x0000000000070302ULL, 0x0000000007030200ULL, 0x0000000007030201ULL, 0x0000000703020100ULL,
    0x0000000000000704ULL, 0x0000000000070400ULL, 0x0000000000070401ULL, 0x0000000007040100ULL,
    0x0000000000070402ULL, 0x0000000007040200ULL, 0x0000000007040201ULL, 0x0000000704020100ULL,
    0x0000000000070403ULL, 0x0000000007040300ULL, 0x0000000007040301ULL, 0x0000000704030100ULL,
    0x0000000007040302ULL, 0x0000000704030200ULL, 0x0000000704030201ULL, 0x0000070403020100ULL,
    0x0000000000000705ULL, 0x0000000000070500ULL, 0x0000000000070501ULL, 0x0000000007050100ULL,
    0x0000000000070502ULL, 0x0000000007050200ULL, 0x0000000007050201ULL, 0x0000000705020100ULL,
    0x0000000000070503ULL, 0x0000000007050300ULL, 0x0000000007050301ULL, 0x0000000705030100ULL,
    0x0000000007050302ULL, 0x0000000705030200ULL, 0x0000000705030201ULL, 0x0000070503020100ULL,
    0x0000000000070504ULL, 0x0000000007050400ULL, 0x0000000007050401ULL, 0x0000000705040100ULL,
    0x0000000007050402ULL, 0x0000000705040200ULL, 0x0000000705040201ULL, 0x0000070504020100ULL,
    0x0000000007050403ULL, 0x0000000705040300ULL, 0x0000000705040301ULL, 0x0000070504030100ULL,
    0x0000000705040302ULL, 0x0000070504030200ULL, 0x0000070504030201ULL, 0x0007050403020100ULL,
    0x0000000000000706ULL, 0x0000000000070600ULL, 0x0000000000070601ULL, 0x0000000007060100ULL,
    0x0000000000070602ULL, 0x0000000007060200ULL, 0x0000000007060201ULL, 0x0000000706020100ULL,
    0x0000000000070603ULL, 0x0000000007060300ULL, 0x0000000007060301ULL, 0x0000000706030100ULL,
    0x0000000007060302ULL, 0x0000000706030200ULL, 0x0000000706030201ULL, 0x0000070603020100ULL,
    0x0000000000070604ULL, 0x0000000007060400ULL, 0x0000000007060401ULL, 0x0000000706040100ULL,
    0x0000000007060402ULL, 0x0000000706040200ULL, 0x0000000706040201ULL, 0x0000070604020100ULL,
    0x0000000007060403ULL, 0x0000000706040300ULL, 0x0000000706040301ULL, 0x0000070604030100ULL,
    0x0000000706040302ULL, 0x0000070604030200ULL, 0x0000070604030201ULL, 0x0007060403020100ULL,
    0x0000000000070605ULL, 0x0000000007060500ULL, 0x0000000007060501ULL, 0x0000000706050100ULL,
    0x0000000007060502ULL, 0x0000000706050200ULL, 0x0000000706050201ULL, 0x0000070605020100ULL,
    0x0000000007060503ULL, 0x0000000706050300ULL, 0x0000000706050301ULL, 0x0000070605030100ULL,
    0x0000000706050302ULL, 0x0000070605030200ULL, 0x0000070605030201ULL, 0x0007060503020100ULL,
    0x0000000007060504ULL, 0x0000000706050400ULL, 0x0000000706050401ULL, 0x0000070605040100ULL,
    0x0000000706050402ULL, 0x0000070605040200ULL, 0x0000070605040201ULL, 0x0007060504020100ULL,
    0x0000000706050403ULL, 0x0000070605040300ULL, 0x0000070605040301ULL, 0x0007060504030100ULL,
    0x0000070605040302ULL, 0x0007060504030200ULL, 0x0007060504030201ULL, 0x0706050403020100ULL,
};

__attribute__((target("avx2")))
static inline int fst_side_rows_avx2(const int32_t* rk, const int32_t* yk,
                                     const int32_t* pos, int m, int32_t t, int side,
                                     int32_t* ork, int32_t* oyk)
{
    int i = 0, k = 0;
    __m256i tv = _mm256_set1_epi32(t - 1);
    for (; i + 8 <= m; i += 8) {
        __m256i gt = _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i*)(pos + i)), tv);
        unsigned ge = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(gt));
        unsigned keep = side ? ge : (~ge & 0xffu);
        __m256i perm = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)fst_keep_lanes8[keep]));
        _mm256_storeu_si256((__m256i*)(ork + k), _mm256_permutevar8x32_epi32(
            _mm256_loadu_si256((const __m256i*)(rk + i)), perm));
        _mm256_storeu_si256((__m256i*)(oyk + k), _mm256_permutevar8x32_epi32(
            _mm256_loadu_si256((const __m256i*)(yk + i)), perm));
        k += __builtin_popcount(keep);
    }
    return fst_side_rows_scalar(rk, yk, pos, i, m, t, side, ork, oyk, k);
}

__attribute__((target("avx2")))
static inline int fst_sides_rows_avx2(const int32_t* rk, const int32_t* yk,
                                      const int32_t* pos, int m, int32_t t,
                                      int32_t* r0, int32_t* y0, int32_t* r1, int32_t* y1)
{
    int i = 0, k0 = 0, k1 = 0;
    __m256i tv = _mm256_set1_epi32(t - 1);
    for (; i + 8 <= m; i += 8) {
        __m256i gt = _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i*)(pos + i)), tv);
        unsigned ge = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(gt));
        __m256i p0 = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(
            (long long)fst_keep_lanes8[~ge & 0xffu]));
        __m256i p1 = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)fst_keep_lanes8[ge]));
        __m256i r = _mm256_loadu_si256((const __m256i*)(rk + i));
        __m256i y = _mm256_loadu_si256((const __m256i*)(yk + i));
        _mm256_storeu_si256((__m256i*)(r0 + k0), _mm256_permutevar8x32_epi32(r, p0));
        _mm256_storeu_si256((__m256i*)(y0 + k0), _mm256_permutevar8x32_epi32(y, p0));
        _mm256_storeu_si256((__m256i*)(r1 + k1), _mm256_permutevar8x32_epi32(r, p1));
        _mm256_storeu_si256((__m256i*)(y1 + k1), _mm256_permutevar8x32_epi32(y, p1));
        k1 += __builtin_popcount(ge);
        k0 = i + 8 - k1;
    }
    return fst_sides_rows_scalar(rk, yk, pos, i, m, t, r0, y0, r1, y1, k0, k1);
}
#endif

#endif
