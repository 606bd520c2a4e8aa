# Single-column segmentation: the dynamic programme, and the segmentation rule at a
# node of the search (every valid split on one column).
from libc.stdint cimport int32_t
from ._typedefs cimport word_t, node_t
from ._context cimport Ctx

cdef int segment_blocks(const double* prefix, int m, int K, const double* cost,
                        const int32_t* cols, int ncols, double lam,
                        int max_segments, int* ends, double* value) noexcept nogil
cdef int solve_single_column(Ctx* c, node_t nid, const word_t* X, int col) noexcept nogil
