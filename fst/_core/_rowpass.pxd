# The depth-one pass over rows sorted per column: one column's best split of a
# node's rows (of each side of a given split at once), the kernel the
# depth-limited engine (`_depth`) and DPDT's last levels (`_cart`, `_mdp`) share,
# with the problem it reads (`DSpace`) and the leaf values it uses.
from ._typedefs cimport int32_t, int64_t, INF


cdef struct DSpace:
    # The problem, read only during a search.
    int n                      # rows
    int p                      # columns
    int K                      # classes of the search (labels a leaf tries)
    const int32_t* rank        # p x n: rank of each row's value on each column
                               # (NaN above every number); split k of column u
                               # sends ranks <= k left
    const int32_t* col_start   # p + 1: the first global split id of each column
    const int32_t* y           # n: the class of each row
    const double* w            # n: the weight of each row, or NULL: each row
                               # weighs 1 (class counts are then whole rows)
    const double* cost         # K x K: cost of a unit weight of class k labelled
                               # j (the engine's divided by n)
    const double* maxcost      # K: each class's largest cost (a row's worst)
    const double* mincost      # K: each class's least cost (the loss floor)
    double pmax                # the largest potential of a row, its weight times
                               # max_k (maxcost - mincost): what one row's move
                               # changes at most
    double unit                # > 0: cost is unit * (k != j) and no row weights
                               # (w NULL): losses are whole rows times unit
    double quantum             # > 0: every objective is a whole number of it
                               # (a unit cost and lam a whole number of units)
    double lam                 # the price of a leaf
    int rules                  # RULE_* bits (_config.pxd) the engine applies
    bint ties                  # fewest leaves decide between equal trees (`_takes`):
                               # lam > 0; at lam = 0 the least root split id alone
    double sup_lam             # > 0 (RULE_SUPPORT): a side of a split needs this
                               # much support (`split_supported`)


cdef inline double leaf_loss(const DSpace* sp, const double* c, int64_t m) noexcept nogil:
    """Least total cost of labelling rows with class sums c (m rows; the sums are
    whole rows without weights) by one label: min_j sum_k c_k C[k, j]; under a
    unit cost, (m - max_k c_k) * unit, from whole rows so that equal losses are
    equal to the last bit."""
    cdef int k, j, K = sp.K
    cdef double mx = 0.0
    cdef double s, best = INF
    if sp.unit > 0.0:
        for k in range(K):
            if c[k] > mx:
                mx = c[k]
        return (m - mx) * sp.unit
    for j in range(K):
        s = 0.0
        for k in range(K):
            s += c[k] * sp.cost[k * K + j]
        if s < best:
            best = s
    return best


cdef inline double class_sum(const DSpace* sp, const double* c,
                             const double* per_row) noexcept nogil:
    """sum_k c_k per_row[k]: with mincost, the loss floor (every row costs at least
    its class's least cost); with maxcost, worst(S) (every row at its largest)."""
    cdef int k
    cdef double s = 0.0
    for k in range(sp.K):
        s += c[k] * per_row[k]
    return s


cdef inline double weight_at(const double* wk, int64_t i) noexcept nogil:
    """The weight of the i-th row of a gathered order (wk NULL: 1)."""
    return 1.0 if wk == NULL else wk[i]


cdef void column_pass(const DSpace* sp, const int32_t* rk, const int32_t* yk,
                      const double* wk, const int32_t* pos, int32_t t, int m,
                      int nsides, const double* tot, const int64_t* ntot,
                      const double* lowest, int32_t base, double* ic, double* best,
                      int32_t* arg, double* shared) noexcept nogil
