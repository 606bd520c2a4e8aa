# The sorted-column search of a depth-limited node (depth two or more left): its
# rows sorted on each column, root splits by bisection along a column, each
# valued exactly at depth two or by its children's search deeper.  It resumes
# where it stopped (`sorted_run`) after the caller solved a child for it.
from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t
from ._context cimport Ctx

cdef struct Sorted:
    # Scratch of `sorted_run`, one allocation per call.
    int m                  # rows of the node
    int ncu                # columns with a candidate split
    int32_t* cols          # ncu: those columns, increasing
    int32_t* order         # ncu x m: the node's rows sorted on each column
    int32_t* rank          # ncu x m: the rank of each of those rows' value
    uint8_t* side          # n: 0 left of the root split, 1 right (node rows only)
    int32_t* ycls          # ncu x m: the class of each of those rows
    double* tcnt           # 2 K: class counts of the two sides
    int64_t* icnt          # 2 K: the counts of each side up to a threshold
    int64_t* isnap         # 2 K: icnt at each side's last valuation
    double* dcnt           # K: scratch, those counts as doubles
    double* rest           # K: scratch, a side's counts beyond a threshold
    int32_t* tpos          # m: a column's thresholds (last row left of each)
    double* evl            # m: R(L, 1) of each valued threshold of the column
    double* evr            # m: R(R, 1) likewise
    int32_t* stack         # 4 m + 8: queue of intervals of thresholds still open
    double* worst          # m + 1: worst cost of a column's first rows


cdef enum:
    # Where a sorted-column search resumes (`SortedRun.phase`)
    P_COLUMN = 0     # at the next column (ui)
    P_PICK = 1       # at the next threshold of the column's queue
    P_FIRST = 2      # the valued split's first child was asked for
    P_SECOND = 3     # ... its second child


cdef struct SortedRun:
    # A sorted-column search (`sorted_run`) between its steps: its scratch and
    # every local that lives across a child's solve, so that it resumes where
    # it stopped when the child's frame is done.
    node_t nid               # the node (set by the caller)
    const word_t* X          # its rows (the caller's, nw words)
    const double* cnt        # its class counts (the caller's)
    const int32_t* cand      # its candidate splits (a superset of its valid ones)
    int ncand
    double B                 # its budget
    node_t child             # when waiting: the child to solve ...
    double child_B           # ... within this budget, over cand
    Sorted d
    word_t* T                # 2 nw words: a side's rows
    int32_t* perm            # depth two: the columns in search order
    double* key              # depth two: each column's best two-leaf loss
    int32_t* ends            # depth two: each column's supported thresholds
    bint two                 # the node has depth two left
    int depth
    int m                    # the node's rows
    double best              # the search's incumbent
    double lbmin             # least bound over the root splits so far
    int32_t arg1, argL, argR # depth two: the best root split and its sides' splits
    double vL, vR            # ... and its sides' values
    int ui                   # position of the column being searched
    int u                    # that column (in d)
    int nt, j0, j1           # its thresholds in X, its supported ones
    int nst, head, step, jm  # the queue of intervals; the threshold valued
    int64_t ntot[2]          # depth two: rows left and right of the root split
    int32_t s                # the split being valued
    double sweep_cap         # its children's cap (`_sweep_begin`)
    node_t l, r              # deeper: its children
    node_t first, second     # ... the order they are searched in
    double bl                # the first child's budget
    int ret                  # 1 when the split's value is exact, 0 a bound
    double v2[2]             # the sides' values or bounds
    int32_t s2[2]            # depth two: the sides' best splits
    int phase                # P_*


cdef int sorted_start(Ctx* c, SortedRun* r) noexcept nogil
cdef int sorted_run(Ctx* c, SortedRun* r) noexcept nogil
cdef void sorted_release(SortedRun* r) noexcept nogil
