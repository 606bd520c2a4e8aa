# DPDT's tests generating function: CART grown natively on a state's rows, over
# the rows' value ranks per column (the rows of a state kept as p lists sorted by
# rank), and the costs DPDT values a leaf with.
from libc.math cimport log
from ._typedefs cimport int32_t, int64_t, uint8_t
from ._rowpass cimport DSpace

cdef enum:
    C_GINI = 0
    C_ENTROPY = 1

cdef struct Rows:
    # The data of one DPDT fit, and the scratch its scans share.
    int n                    # rows
    int p                    # columns
    int K                    # classes
    const int32_t* rank      # (p, n): value rank of each row per column
    const int32_t* y         # (n): class of each row
    const double* w          # (n): weight of each row (ones without weights)
    int weighted             # 1: weights given (entropy from log, not xlogx)
    double* cw               # (K): class weights of CART's impurities, or NULL
    double* cost             # (K, K): row cost of class c predicted k
    double* mincost          # (K): least cost of a row of class c
    int unit_cost            # 1: 0/1 loss (a leaf loses its rows less its largest class)
    int criterion            # C_GINI or C_ENTROPY: CART's impurity
    double* xlogx            # (n + 1): c * log(c) for whole counts c (entropy)
    double* counts           # scratch: class counts, several rows of K
    int32_t* cs              # (p, n) scratch: a copy of a state's lists, partitioned
    int32_t* ctmp            # (n) scratch: the partition's buffer
    DSpace ps                # the leaf costs as the depth-one pass reads them
                             # (`_rowpass.column_pass`: no price of a leaf, no rules)
    double* maxcost          # (K): largest cost of a row of class c
    int32_t* gi              # (threads, 3 n) scratch: a column's ranks, classes
                             # and sides in its order, one block a thread
    double* gw               # (threads, n) scratch: ... and weights (weighted)
    int64_t* gc              # (threads, 5 K) scratch: the pass's whole-row counts

cdef int rows_pass_init(Rows* R, int n_threads) noexcept nogil
cdef void rows_pass_free(Rows* R) noexcept nogil
cdef void rows_column_scan(const Rows* R, const int32_t* lst, const int32_t* rnk, int64_t m,
                           const uint8_t* side, const int* need, const double* tot,
                           double* scratch, int tid, double* res) noexcept nogil
cdef void rows_left_sums(const Rows* R, const int32_t* lst, const int32_t* rnk, int64_t m,
                         const uint8_t* side, int sd, int32_t t, double* out) noexcept nogil
cdef int rows_best_split(Rows* R, const int32_t* L, int64_t m, int32_t* out_f,
                         int32_t* out_t, double* out_v) noexcept nogil
cdef int cart_grow(Rows* R, int64_t start, int64_t end, int64_t m, int depth, int kmax,
                   int32_t* tests, int64_t* n_tests, double deadline) noexcept nogil
cdef int cart_best_first(Rows* R, int64_t m, int kmax, int32_t* tests,
                         int64_t* n_tests, double deadline) noexcept nogil
cdef int64_t cart_all_tests(Rows* R, const int32_t* L, int64_t m,
                            int32_t* tests) noexcept nogil


cdef inline double rows_wt(const Rows* R, int32_t r) noexcept nogil:
    """Row r's weight: 1 without weights (no load in the count loops)."""
    return R.w[r] if R.weighted else 1.0

cdef inline double rows_leaf_loss(const Rows* R, const double* cnt) noexcept nogil:
    """Least total cost of one label for rows with class counts cnt."""
    cdef int k, c
    cdef double best = 0.0, s, tot
    if R.unit_cost:
        tot = 0.0
        best = 0.0
        for c in range(R.K):
            tot += cnt[c]
            if cnt[c] > best:
                best = cnt[c]
        return tot - best
    for k in range(R.K):
        s = 0.0
        for c in range(R.K):
            s += cnt[c] * R.cost[c * R.K + k]
        if k == 0 or s < best:
            best = s
    return best

cdef inline double rows_floor_loss(const Rows* R, const double* cnt) noexcept nogil:
    cdef int c
    cdef double s = 0.0
    for c in range(R.K):
        s += cnt[c] * R.mincost[c]
    return s

cdef inline double rows_impurity(const Rows* R, const double* cnt, double tot) noexcept nogil:
    """tot * impurity (gini or entropy in nats) of class counts (whole rows,
    or sums of weights; tot their sum).  Weighted entropy takes c * log(c)
    directly, the formula of the xlogx table, so whole weights give the
    values of repeated rows.  With class weights every count is first scaled
    by its class's weight (tot is then recomputed), as sklearn's CART does."""
    cdef int c
    cdef double s = 0.0, x
    if R.cw != NULL:
        # class weights (sklearn's class_weight): CART's counts are cw[c] * cnt[c]
        tot = 0.0
        for c in range(R.K):
            x = cnt[c] * R.cw[c]
            tot += x
            if R.criterion == C_ENTROPY:
                if x > 0:
                    s += x * log(x)
            else:
                s += x * x
        if tot <= 0:
            return 0.0
        if R.criterion == C_ENTROPY:
            return tot * log(tot) - s
        return tot - s / tot
    if tot <= 0:
        return 0.0
    if R.criterion == C_ENTROPY:
        if R.weighted:
            for c in range(R.K):
                if cnt[c] > 0:
                    s += cnt[c] * log(cnt[c])
            return tot * log(tot) - s
        for c in range(R.K):
            s += R.xlogx[<int64_t> cnt[c]]
        return R.xlogx[<int64_t> tot] - s
    for c in range(R.K):
        s += cnt[c] * cnt[c]
    return tot - s / tot
