# Single-column segmentation dynamic programme.
from libc.stdint cimport int32_t

cdef int segment_blocks(const double* prefix, int m, int K, const double* cost,
                        const int32_t* cols, int ncols, double lam,
                        int max_segments, int* ends, double* value) noexcept nogil
