# Node creation of the general search under squared error: a node's creation
# record from its rows, and its splits' children's records from sums over its
# rows, beside `_nodes`' class counts (which dispatch here when the space has a
# target).
from ._typedefs cimport word_t, int32_t, int64_t
from ._memo cimport Node
from ._context cimport Ctx, Cand

cdef enum:
    # the sums a side of a split keeps, in this order: weight, weighted target,
    # weighted square, worst added error (`squares_row_worst`), floor share, rows
    SQ_FIELDS = 6

cdef int squares_scratch(Ctx* c) noexcept nogil
cdef void squares_scratch_free(Ctx* c) noexcept nogil
cdef void squares_fill(Ctx* c, Node* nd, const word_t* X, int depth) noexcept nogil
cdef int squares_valid(Ctx* c, const word_t* X, int64_t total, int child_depth,
                       const int32_t* cand, int ncand, int32_t* valid, Cand* cands,
                       bint* one_column) noexcept nogil
