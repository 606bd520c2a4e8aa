# The row-count pair stage kernel: class counts of X & s_i & s_j for chosen splits
# i against every split j (`pair_counts`).
from ._typedefs cimport word_t, int32_t

cdef enum:
    TRANSPOSE_ROWS = 8   # rows of a stage from which the splits are transposed

cdef void pair_counts(int vec, const word_t* XS, const int32_t* rows, int n_rows, int m,
                      int K, const word_t* XC, int nw, int32_t* out, int n_threads,
                      int nb0) noexcept nogil

cdef word_t* transposed_splits(int vec, const word_t* XS, int m, int K, int nw) noexcept nogil

cdef void pair_counts_xt(int vec, const word_t* XS, const word_t* XT, const int32_t* rows,
                         int n_rows, int m, int K, const word_t* XC, int nw, int32_t* out,
                         int n_threads, int nb0) noexcept nogil
