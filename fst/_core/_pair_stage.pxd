# The row-count pair stage of an expansion (`expand_pairs`), and the two-leaf
# transfer from a node to its children that runs before it.
from ._typedefs cimport word_t, node_t, int32_t
from ._memo cimport Node
from ._context cimport Ctx, Cand

cdef void transfer_to_children(Ctx* c, Node* nd, Cand* cands, int nvalid) noexcept nogil
cdef int expand_pairs(Ctx* c, node_t nid, const word_t* X, const double* cnt,
                      const int32_t* valid, int nvalid, Cand* cands, double B) noexcept nogil
