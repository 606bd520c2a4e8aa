# The depth-limited engine's parts that need no column orders: the
# k-segmentation floor (squared error) and the nodes solved from their column
# sums (squared error, or at most SUMS_MAX_CLASSES classes, on binary columns).
# Their argument is at `_squares`.
from ._typedefs cimport int32_t
from ._rowpass cimport DSpace
from ._depth cimport DEngine, DLevel

# The doubles a slot of the sums' tables holds (`DSpace.slot`): four under
# squared error (weight, weighted target and square, rows) or for at most three
# classes (each class's weight, then rows); eight for up to seven classes,
# sixteen for up to fifteen.
cdef enum:
    SLOT_NARROW = 4
    SLOT_WIDE = 8
    SLOT_WIDEST = 16
    SLOT_MAX = 16
    SUMS_MAX_CLASSES = 15

# How a node's triples' sums are held (`_squares._sum_rows`, DLevel.tri_compact):
# a slot of doubles; one 32-bit word (two classes, no weights: rows and class-1
# rows); 16-bit lanes (classes, no weights: each class's rows, then the rows).
cdef enum:
    TRI_DOUBLES = 0
    TRI_WORD = 1
    TRI_LANES = 2

cdef double segment_bound(const DSpace* sp, double* buf, const int32_t* rows, int m,
                          int kmax) noexcept nogil
cdef bint segment_prune(DEngine* e, int d, const int32_t** rows, const int* mm, int ck,
                       double cap, double* lb0) noexcept nogil
cdef bint by_sums(const DEngine* e, int d, int kc) noexcept nogil
cdef double solve_sums(DEngine* e, DLevel* L, int d, const int32_t* ord, int m,
                       double B, int kc, bint* exact, double* caps, int32_t* caps_tree,
                       int* caps_leaves) noexcept nogil
