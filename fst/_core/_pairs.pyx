"""The row-count pair stage: class counts of X & s_i & s_j for every pair of splits.

From these counts the search derives, for each child of each split, its exact best
two-leaf tree and the cheapest cell any split peels off (see `_search.pair_stage`).

# Notes:
# - One pass over the words per pair computes every class at once: the total of
#   the cell and the counts of classes 0 .. K-2 (the last class by difference).
# - Parallel over rows i of the pair matrix with OpenMP; each (i, j) and (j, i) with
#   i < j is written by the thread of row i only, so threads never share a slot
#   and the result does not depend on the number of threads.
"""
from cython.parallel cimport prange

from ._bitset cimport fst_popcount
from ._typedefs cimport word_t, int32_t, int64_t


cdef inline void _pair_row(const word_t* XS, const word_t* XC, Py_ssize_t i, int m, int K,
                           int nw, int32_t* out) noexcept nogil:
    cdef Py_ssize_t j, w, k
    cdef const word_t* a = XS + i * nw
    cdef const word_t* b
    cdef word_t x
    cdef int64_t total
    cdef int32_t* cell
    cdef int32_t* mirror
    for j in range(i + 1, m):
        b = XS + j * nw
        cell = out + (i * m + j) * K
        for k in range(K):
            cell[k] = 0
        total = 0
        for w in range(nw):
            x = a[w] & b[w]
            if x:
                total += fst_popcount(x)
                for k in range(K - 1):
                    cell[k] += fst_popcount(x & XC[k * nw + w])
        cell[K - 1] = <int32_t> total
        mirror = out + (j * m + i) * K
        for k in range(K):
            mirror[k] = cell[k]


cdef void pair_counts(const word_t* XS,   # IN m x nw: rows of X & s_i
                      const word_t* XC,   # IN (K - 1) x nw: rows of X & class k
                      int m,              # IN number of splits
                      int K,              # IN number of classes
                      int nw,             # IN words per bitset
                      int32_t* out,       # OUT m x m x K: classes 0..K-2, then the total
                      int n_threads,      # IN OpenMP threads
                      ) noexcept nogil:
    """Fill out[(i*m + j)*K + k] for i != j (the diagonal is left untouched)."""
    cdef Py_ssize_t i
    if n_threads > 1 and m > 16:
        for i in prange(m, schedule="dynamic", num_threads=n_threads):
            _pair_row(XS, XC, i, m, K, nw, out)
    else:
        for i in range(m):
            _pair_row(XS, XC, i, m, K, nw, out)
