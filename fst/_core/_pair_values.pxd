# The pair stage's values: from one row of pair counts, one child's exact best
# two-leaf tree and its three-leaf bound.
from ._typedefs cimport int32_t
from ._context cimport Ctx

cdef void pair_values(Ctx* c, const double* cc, const int32_t* A, int m, const double* cl,
                      const int32_t* cli, bint right, double* best2, double* peel,
                      int* arg) noexcept nogil
