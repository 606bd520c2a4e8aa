/* What every kernel header of the SIMD folder shares: the popcount, the x86
 * vector switch, and the helpers of the loops that count class 0 as the bits
 * below a boundary (rows sorted by class, `_problem.build_problem`).
 *
 * FST_X86_VECTOR is 1 where the compiler takes x86 target attributes (GCC,
 * clang on x86-64): the vector loops are then compiled into every build, each
 * with the instruction set of its own `target` attribute, and chosen at run
 * time (simd.h); elsewhere, and with FST_NO_SIMD, only the scalar loops exist.
 */
#ifndef FST_SIMD_COMMON_H
#define FST_SIMD_COMMON_H

#include <stdint.h>

#if defined(_MSC_VER)
#include <intrin.h>
#define FST_POPCNT64(x) ((int64_t)__popcnt64(x))
#else
#define FST_POPCNT64(x) ((int64_t)__builtin_popcountll(x))
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) \
    && !defined(FST_NO_SIMD)
#define FST_X86_VECTOR 1
#include <immintrin.h>
#else
#define FST_X86_VECTOR 0
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

#if FST_X86_VECTOR
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

#if FST_X86_VECTOR
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
#endif

#endif
