# The schedule of a certified search: seed, passes, depth ladder and deepening.
from ._typedefs cimport node_t, int32_t
from ._context cimport Ctx

cdef node_t schedule_run(Ctx* c, const int32_t* all_splits) noexcept nogil
