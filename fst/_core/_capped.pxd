# A split of the depth-limited engine under a leaf cap, its leaves allocated
# between its children (`_capped.pyx`).
from ._typedefs cimport int32_t
from ._depth cimport DEngine


cdef bint _value_allocations(DEngine* e, int d, const int32_t** rows, const int* mm,
                             const double** cc, const double* lb0, int first, double cap,
                             double widen, int kc, int32_t split, double* best,
                             double* vs, double* kb) noexcept nogil
cdef bint _value_capped(DEngine* e, int d, const int32_t** rows, const int* mm,
                        const double** cc, int first, double cap, int kc, int32_t split,
                        double* best, double* vs, double* kb) noexcept nogil
cdef bint _peel_takes(DEngine* e, int d, double v, int leaves, double best) noexcept nogil
