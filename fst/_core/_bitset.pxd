# Inline word operations on row bitsets.  Every function takes the number of
# words `nw`; bits past the last row are always zero, so popcounts are exact.
from libc.string cimport memcmp, memcpy
from ._typedefs cimport word_t, int64_t, uint64_t

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int fst_popcount(unsigned long long x) { return (int)__popcnt64(x); }
    #else
    static inline int fst_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    #endif
    """
    int fst_popcount(unsigned long long x) noexcept nogil


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


cdef inline uint64_t bs_hash(const word_t* a, int nw, int64_t salt) noexcept nogil:
    """A 64-bit mixing hash of the words and a salt (the depth left)."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t> salt
    cdef uint64_t w
    cdef int i
    for i in range(nw):
        w = a[i] * 0xBF58476D1CE4E5B9ULL
        h = (h ^ (w ^ (w >> 31))) * 0x94D049BB133111EBULL
        h ^= h >> 29
    return h
