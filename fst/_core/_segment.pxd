# Single-column segmentation dynamic programme.
cdef int segment_blocks(const double* prefix, int m, int K, const double* cost, double lam,
                        int max_segments, int* ends, double* value) noexcept nogil
