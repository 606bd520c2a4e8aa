# The hull of a DPDT state: its (complexity, loss) points optimal for some
# trade-off alpha >= 0, sorted and reduced to the lower convex hull.
from ._typedefs cimport int32_t, int64_t

cdef struct Point:
    double c          # complexity: rows through tests ('tests') or leaves ('leaves')
    double l          # loss: summed row costs (not yet divided by n)
    int32_t split     # global split of the root test, -1 for a leaf
    int32_t pad
    int64_t left      # pool index of the left subtree's point, -1 for a leaf
    int64_t right


cdef struct Buf:
    # A growable array of points (one per level: the candidates of a state).
    Point* p
    int64_t n
    int64_t cap


cdef void sort_points(Point* a, int64_t n, Point* tmp) noexcept nogil
cdef int64_t lower_hull(Point* a, int64_t n) noexcept nogil
