# Inline word operations on row bitsets.  Every function takes the number of
# words `nw`; bits past the last row are always zero, so popcounts are exact.
from libc.string cimport memcmp, memcpy
from ._typedefs cimport word_t, int32_t, int64_t, uint64_t

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int fst_popcount(unsigned long long x) { return (int)__popcnt64(x); }
    static inline int fst_ctz(unsigned long long x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
    #else
    static inline int fst_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int fst_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    #endif
    """
    int fst_popcount(unsigned long long x) noexcept nogil
    int fst_ctz(unsigned long long x) noexcept nogil   # x != 0


cdef inline int64_t bs_count(const word_t* a, int nw) noexcept nogil:
    cdef int64_t c = 0
    cdef int i
    for i in range(nw):
        c += fst_popcount(a[i])
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


cdef inline uint64_t bs_hash_linear(const word_t* a, int nw) noexcept nogil:
    """The linear part of bs_hash: sum over words of lo32(word) * key(2i) +
    hi32(word) * key(2i + 1), mod 2**64.  Row sets that are disjoint add up as
    integers word by word, so lin(X & ~S) = lin(X) - lin(X & S): a split's second
    side costs nothing.  Splitting words in halves keeps a swap of two rows from
    cancelling unless 33 bits of the keys agree."""
    cdef uint64_t h = 0
    cdef int i
    for i in range(nw):
        h += ((a[i] & 0xFFFFFFFFULL) * bs_hash_key(2 * i)
              + (a[i] >> 32) * bs_hash_key(2 * i + 1))
    return h


cdef inline uint64_t bs_hash(const word_t* a, int nw, int64_t salt) noexcept nogil:
    """A 64-bit hash of the words and a salt (the depth left): the linear sum of
    bs_hash_linear, then a final mix.  Equal keys always hash equal; a lookup
    compares the full key, so a collision only costs a comparison."""
    return bs_hash_final(bs_hash_linear(a, nw), salt)


cdef inline int64_t bs_rows(const word_t* a, int nw, int32_t* out) noexcept nogil:
    """The rows of a (its set bits) into out, increasing; returns their number."""
    cdef int64_t k = 0
    cdef int w
    cdef word_t x
    for w in range(nw):
        x = a[w]
        while x:
            out[k] = <int32_t> ((w << 6) + fst_ctz(x))
            k += 1
            x &= x - 1
    return k
