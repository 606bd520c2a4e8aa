# The row-count pair stage kernel.
from ._typedefs cimport word_t, int32_t

cdef void pair_counts(const word_t* XS, const int32_t* rows, int n_rows, int m, int K,
                      const word_t* XC, int nw, int32_t* out,
                      int n_threads) noexcept nogil
