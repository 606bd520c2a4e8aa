# Inline word operations on row bitsets.  Every function takes the number of
# words `nw`; bits past the last row are always zero, so popcounts are exact.
from libc.string cimport memcmp, memcpy
from ._typedefs cimport word_t, int64_t, uint64_t

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int fst_popcount(unsigned long long x) { return (int)__popcnt64(x); }
    static inline unsigned long long fst_mix_word(unsigned long long a, unsigned long long k) {
        unsigned long long hi, lo = _umul128(a, k, &hi); return lo ^ hi; }
    #else
    static inline int fst_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline unsigned long long fst_mix_word(unsigned long long a, unsigned long long k) {
        unsigned __int128 m = (unsigned __int128)a * k;
        return (unsigned long long)m ^ (unsigned long long)(m >> 64); }
    #endif
    """
    int fst_popcount(unsigned long long x) noexcept nogil
    # Both halves of the 128-bit product a * k, folded: every bit of a reaches
    # every bit of the result; a zero word gives zero.
    uint64_t fst_mix_word(uint64_t a, uint64_t k) noexcept nogil


cdef inline int64_t bs_count(const word_t* a, int nw) noexcept nogil:
    cdef int64_t c = 0
    cdef int i
    for i in range(nw):
        c += fst_popcount(a[i])
    return c


cdef inline int64_t bs_and_count(const word_t* a, const word_t* b, int nw) noexcept nogil:
    cdef int64_t c = 0
    cdef int i
    for i in range(nw):
        c += fst_popcount(a[i] & b[i])
    return c


cdef inline void bs_and(word_t* out, const word_t* a, const word_t* b, int nw) noexcept nogil:
    cdef int i
    for i in range(nw):
        out[i] = a[i] & b[i]


cdef inline void bs_andnot(word_t* out, const word_t* a, const word_t* b, int nw) noexcept nogil:
    """out = a & ~b"""
    cdef int i
    for i in range(nw):
        out[i] = a[i] & ~b[i]


cdef inline bint bs_test(const word_t* a, int64_t i) noexcept nogil:
    return (a[i >> 6] >> (i & 63)) & 1


cdef inline void bs_set(word_t* a, int64_t i) noexcept nogil:
    a[i >> 6] |= (<word_t> 1) << (i & 63)


cdef inline uint64_t bs_hash_key(int64_t w) noexcept nogil:
    """The random odd multiplier of word w (splitmix64 of its index)."""
    cdef uint64_t z = (<uint64_t> (w + 1)) * 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return (z ^ (z >> 31)) | 1


cdef inline uint64_t bs_hash_final(uint64_t h, int64_t salt) noexcept nogil:
    """Fold the salt (the depth left) into a word sum and mix the result."""
    h ^= (<uint64_t> salt) * 0xD6E8FEB86659FD93ULL
    h = (h ^ (h >> 32)) * 0xD6E8FEB86659FD93ULL
    h = (h ^ (h >> 32)) * 0xD6E8FEB86659FD93ULL
    return h ^ (h >> 32)


cdef inline uint64_t bs_hash(const word_t* a, int nw, int64_t salt) noexcept nogil:
    """A 64-bit hash of the words and a salt (the depth left): the sum over words
    of fst_mix_word(word, bs_hash_key(index)), then a final mix.  Words are mixed
    independently (no dependency chain) and zero words add nothing, so a fused
    scan can sum the same terms from a table of keys."""
    cdef uint64_t h = 0
    cdef int i
    for i in range(nw):
        if a[i]:
            h += fst_mix_word(a[i], bs_hash_key(i))
    return bs_hash_final(h, salt)
