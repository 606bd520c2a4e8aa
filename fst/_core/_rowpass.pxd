# The depth-one pass over rows sorted per column (`column_pass`): the best split
# on one column of a node's rows, or of each side of a given split of them at
# once, each side's rows counted per class up to every threshold.  The
# depth-limited engine values its depth-one subproblems and its depth-two splits
# with it (`_depth._depth_one`), DPDT its last levels (`_cart.rows_column_scan`).
# Its forms: class sums of row weights and any cost matrix, whole rows of two
# classes under a unit cost (`_column_pass_unit2`), the engine's most common
# case, counted in integers, and squared error (`_column_pass_squares`, the
# regressor's: a set's counts are its weight, weighted target sum and weighted
# sum of squares).
#
# Everything here is inline: each module that cimports it compiles its own copy,
# so the pass inlines into its callers' loops (written once, here).

from libc.string cimport memset

from ._typedefs cimport int32_t, int64_t, TOL, INF
from ._config cimport RULE_EXCHANGE
from ._bounds cimport (rows_moved_bound, leaf_support, split_supported,
                       unit_rows_to_wait)


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
    int min_leaf               # rows each side of a split holds at least
                               # (min_samples_leaf; 0 or 1: any)
    const double* target       # n: each row's target (regression: y holds row
                               # ids, K = 3 and a set's counts are (sum w,
                               # sum w z, sum w z^2)); NULL: classification
    int slot                   # doubles a slot of the sums' tables holds
                               # (`_squares`, binary columns): SLOT_NARROW under
                               # squared error or up to three classes, SLOT_WIDE
                               # up to seven, SLOT_WIDEST up to fifteen; the
                               # rows in its last


# Class counts as whole rows (int64_t: the depth-one pass without row weights)
# or sums of weights (double); a whole count converts to a double exactly, so
# both forms give the same losses to the last bit.
ctypedef fused count_t:
    int64_t
    double

# Rows' weights in a loop compiled twice: `double`, each row's, or `NoWeights`,
# every row of weight 1 with no array behind it (the loop then reads none and
# tests for none).
cdef struct NoWeights:
    char none

ctypedef fused row_w:
    NoWeights
    double


cdef inline double squares_loss(double w, double s, double q) noexcept nogil:
    """The least squared error of one value for rows of weight w, weighted
    target sum s and weighted sum of squares q: q - s^2 / w at the weighted mean
    (0 for no weight; never below 0, which rounding could give)."""
    cdef double v
    if w <= 0.0:
        return 0.0
    v = q - s * s / w
    return v if v > 0.0 else 0.0


cdef inline double leaf_loss(const DSpace* sp, const count_t* c, int64_t m) noexcept nogil:
    """Least total cost of labelling rows with class sums c (m rows; the sums are
    whole rows without weights) by one label: min_j sum_k c_k C[k, j]; under a
    unit cost, (m - max_k c_k) * unit, from whole rows so that equal losses are
    equal to the last bit; under squared error (sp.target) `squares_loss`."""
    cdef int k, j, K = sp.K
    cdef double mx = 0.0
    cdef double s, best = INF
    if sp.unit > 0.0:
        for k in range(K):
            if c[k] > mx:
                mx = c[k]
        return (m - mx) * sp.unit
    if sp.target != NULL:
        return squares_loss(c[0], c[1], c[2])
    for j in range(K):
        s = 0.0
        for k in range(K):
            s += c[k] * sp.cost[k * K + j]
        if s < best:
            best = s
    return best


cdef inline double class_sum(const DSpace* sp, const count_t* c,
                             const double* per_row) noexcept nogil:
    """sum_k c_k per_row[k]: with mincost, the loss floor (every row costs at least
    its class's least cost); with maxcost, worst(S) (every row at its largest).
    Under squared error, 0: the floor of a squared error (the rules that read a
    worst cost are off for it)."""
    cdef int k
    cdef double s = 0.0
    if sp.target != NULL:
        return 0.0
    for k in range(sp.K):
        s += c[k] * per_row[k]
    return s


cdef inline double weight_at(const double* wk, int64_t i) noexcept nogil:
    """The weight of the i-th row of a gathered order (wk NULL: 1)."""
    return 1.0 if wk == NULL else wk[i]


cdef inline void add_rows(const DSpace* sp, double* c, const int32_t* yk,
                          const double* wk, int64_t a, int64_t b) noexcept nogil:
    """Add rows a .. b - 1 of a gathered order (yk their classes, or their row
    ids under squared error; wk their weights or NULL) to the counts c: class
    sums of weights, or (sum w, sum w z, sum w z^2)."""
    cdef int64_t i
    cdef double w, z
    if sp.target == NULL:
        for i in range(a, b):
            c[yk[i]] += weight_at(wk, i)
        return
    for i in range(a, b):
        w = weight_at(wk, i)
        z = sp.target[yk[i]]
        c[0] += w
        c[1] += w * z
        c[2] += w * z * z


cdef inline double row_worst(const DSpace* sp, int32_t y, double w) noexcept nogil:
    """A row's worst cost (its class's largest times its weight): what it adds
    at most to a set it joins.  Under squared error 0: the engine reads a row's
    worst added error from its node's target range there (`_depth._node_row_worst`),
    and a budget widened by nothing stays sound."""
    if sp.target != NULL:
        return 0.0
    return sp.maxcost[y] * w


cdef extern from *:
    """
    /* The best value of a side shared by the threads of a depth-one pass: read
       relaxed (a stale value only skips fewer thresholds), lowered by
       compare-and-swap. */
    static inline double fst_shared_load(const double* p) {
    #if defined(__GNUC__)
        double v; __atomic_load(p, &v, __ATOMIC_RELAXED); return v;
    #else
        return *(volatile const double*)p;
    #endif
    }
    static inline void fst_shared_min(double* p, double v) {
    #if defined(__GNUC__)
        double cur; __atomic_load(p, &cur, __ATOMIC_RELAXED);
        while (v < cur && !__atomic_compare_exchange(p, &cur, &v, 1, __ATOMIC_RELAXED,
                                                      __ATOMIC_RELAXED)) {}
    #else
        #pragma omp critical(fst_shared_min)
        { if (v < *p) *p = v; }
    #endif
    }
    """
    double fst_shared_load(const double* p) noexcept nogil
    void fst_shared_min(double* p, double v) noexcept nogil


cdef inline int64_t _errors_to_beat(const DSpace* sp, double best) noexcept nogil:
    """The most errors e of a split whose value e u + 2 lam is below best - TOL
    (-1: none), as the doubles compare."""
    cdef double x = (best - TOL - 2.0 * sp.lam) / sp.unit
    cdef int64_t e
    if x > 4e18:
        return <int64_t> 4e18
    if x <= 0.0:
        return -1
    e = <int64_t> x
    while e >= 0 and e * sp.unit + 2.0 * sp.lam >= best - TOL:
        e -= 1
    while (e + 1) * sp.unit + 2.0 * sp.lam < best - TOL:
        e += 1
    return e


cdef inline void _column_pass_unit2(const DSpace* sp, const int32_t* rk, const int32_t* yk,
                             const int32_t* pos, int32_t t, int m, int nsides,
                             const double* tot, const int64_t* ntot,
                             const double* lowest, int32_t base, bint* done,
                             double* best, int32_t* arg, double* shared) noexcept nogil:
    """`column_pass` for two classes under a unit cost u (no row weights: the
    class sums are whole rows), in integers: a split's value is (min(l0, l1) +
    min(t0 - l0, t1 - l1)) u + 2 lam, it beats the best when its errors are at
    most `_errors_to_beat`, and the moved-rows bound counts the rows to wait
    (`unit_rows_to_wait`)."""
    cdef int s, i
    cdef int64_t l[4]          # class counts so far, side-major
    cdef int64_t tc[4]         # the sides' class counts
    cdef int64_t nn[2]
    cdef int32_t prev[2]
    cdef int64_t next_at[2]    # the row count at which side s is next valued
    cdef int64_t beat[2]       # the most errors a split of side s may have to win
    cdef int64_t e0, e1, err, wait, sb
    cdef bint moved_rule = (sp.rules & RULE_EXCHANGE) != 0
    cdef bint capped = sp.min_leaf > 1     # min_samples_leaf: the splits are a window
    cdef double u = sp.unit, two = 2.0 * sp.lam
    l[0] = 0; l[1] = 0; l[2] = 0; l[3] = 0
    for s in range(2):
        nn[s] = 0
        prev[s] = -1
        next_at[s] = 1
        beat[s] = _errors_to_beat(sp, best[s]) if s < nsides else -1
        tc[2 * s] = <int64_t> tot[2 * s] if s < nsides else 0
        tc[2 * s + 1] = <int64_t> tot[2 * s + 1] if s < nsides else 0
    for i in range(m):
        s = (pos[i] >= t) if nsides == 2 else 0
        if done[s]:
            continue
        if nn[s] >= next_at[s] and rk[i] != prev[s] and (
                not capped or (nn[s] >= sp.min_leaf and ntot[s] - nn[s] >= sp.min_leaf)):
            e0 = l[2 * s] if l[2 * s] < l[2 * s + 1] else l[2 * s + 1]
            e1 = tc[2 * s] - l[2 * s]
            if tc[2 * s + 1] - l[2 * s + 1] < e1:
                e1 = tc[2 * s + 1] - l[2 * s + 1]
            err = e0 + e1
            next_at[s] = nn[s] + 1
            if sp.sup_lam > 0.0 and not split_supported(
                    leaf_support(nn[s] * u, e0 * u),
                    leaf_support((ntot[s] - nn[s]) * u, e1 * u), sp.sup_lam):
                # a leaf of too little support: never optimal (under a unit
                # cost a set's worst is its rows, its support its majority)
                pass
            else:
                if err <= beat[s]:
                    best[s] = err * u + two
                    arg[s] = base + prev[s]
                    beat[s] = _errors_to_beat(sp, best[s])
                    if best[s] <= lowest[s] + TOL:
                        done[s] = True
                    if shared != NULL:
                        fst_shared_min(shared + s, best[s])
                if moved_rule:
                    sb = beat[s]
                    if shared != NULL:
                        sb = _errors_to_beat(sp, fst_shared_load(shared + s))
                        if sb > beat[s]:
                            sb = beat[s]
                    wait = unit_rows_to_wait(err, sb)
                    if wait > 1:
                        next_at[s] = nn[s] + wait
                    if wait > ntot[s] - nn[s]:
                        done[s] = True      # no later threshold can do better
            if done[0] and done[1]:
                return
        l[2 * s + yk[i]] += 1
        nn[s] += 1
        prev[s] = rk[i]


cdef inline bint _unit_one(const DSpace* sp) noexcept nogil:
    """Whether a side's depth-one pass may be `_column_pass_unit_one`: two
    classes at a unit cost, no min_leaf (and, as `column_pass` checks, one
    side passed alone, no best shared with other threads)."""
    return sp.K == 2 and sp.unit > 0.0 and sp.target == NULL and sp.min_leaf <= 1


cdef inline void _column_pass_unit_one(const DSpace* sp, const int32_t* rk,
                                       const int32_t* yk, int m, const double* tot,
                                       int64_t ntot, double lowest, int32_t base,
                                       double* best, int32_t* arg) noexcept nogil:
    """`_column_pass_unit2` over one side (every row of the order), without
    min_leaf or threads: the same valuations in the same order, to the last
    bit.  Where the moved-rows bound (`unit_rows_to_wait`) skips thresholds,
    the rows up to the next one valued are taken in as one sum of their
    classes (0 or 1) rather than row by row."""
    cdef int i = 0, j
    cdef int64_t l1 = 0        # class-1 rows among the first i
    cdef int64_t t0 = <int64_t> tot[0], t1 = <int64_t> tot[1]
    cdef int64_t next_at = 1   # the row count at which the side is next valued
    cdef int64_t beat = _errors_to_beat(sp, best[0])
    cdef int64_t l0, e0, e1, err, wait
    cdef int32_t prev = -1
    cdef bint moved_rule = (sp.rules & RULE_EXCHANGE) != 0
    cdef double u = sp.unit, two = 2.0 * sp.lam
    while i < m:
        if i < next_at:
            j = <int> (next_at if next_at < m else m)
            while i < j:
                l1 += yk[i]
                i += 1
            prev = rk[i - 1]
            continue
        if rk[i] != prev:
            l0 = i - l1
            e0 = l0 if l0 < l1 else l1
            e1 = t0 - l0
            if t1 - l1 < e1:
                e1 = t1 - l1
            err = e0 + e1
            next_at = i + 1
            if sp.sup_lam > 0.0 and not split_supported(
                    leaf_support(i * u, e0 * u), leaf_support((ntot - i) * u, e1 * u),
                    sp.sup_lam):
                # a leaf of too little support: never optimal
                pass
            else:
                if err <= beat:
                    best[0] = err * u + two
                    arg[0] = base + prev
                    beat = _errors_to_beat(sp, best[0])
                    if best[0] <= lowest + TOL:
                        return
                if moved_rule:
                    wait = unit_rows_to_wait(err, beat)
                    if wait > 1:
                        next_at = i + wait
                    if wait > ntot - i:
                        return      # no later threshold can do better
        l1 += yk[i]
        prev = rk[i]
        i += 1


cdef inline double _cost2_loss(const double* C, double c0, double c1) noexcept nogil:
    """`leaf_loss` of two classes under the cost C (2 x 2, no unit cost), the
    same sums in the same order: the least over the labels j of c0 C[0, j] +
    c1 C[1, j], the first label on a tie."""
    cdef double a = c0 * C[0] + c1 * C[2]
    cdef double b = c0 * C[1] + c1 * C[3]
    return b if b < a else a


cdef inline void _column_pass_cost2_one(const DSpace* sp, const int32_t* rk,
                                        const int32_t* yk, const row_w* wk, int m,
                                        const double* tot, int64_t ntot, double lowest,
                                        int32_t base, double* best,
                                        int32_t* arg) noexcept nogil:
    """The general loop of `column_pass` over one side (every row of the
    order) for two classes under a cost matrix (class weights; no unit cost),
    without min_leaf or threads: the same valuations in the same order, to
    the last bit (`_value_threshold`, `_two_leaves`, `leaf_loss`), with the
    side's counts and the moved-rows state in locals rather than arrays
    indexed by side and class.  Without row weights (`NoWeights`) the classes
    are counted in whole rows, in integers, as there; with them (wk, each
    row's) each class's left sum of weights is added in the order of the
    rows, and the right's is the side's sum less it."""
    cdef const double* C = sp.cost
    cdef int64_t l1 = 0, it0 = <int64_t> tot[0], it1 = <int64_t> tot[1], l0, seen = 0
    cdef double w0 = 0.0, w1 = 0.0, wy, c0, c1, r0, r1
    cdef int i
    cdef int32_t prev = -1
    cdef double need = 0.0, b = best[0], v, ll, lr, pmax = sp.pmax
    cdef double two = 2.0 * sp.lam
    cdef bint moved_rule = (sp.rules & RULE_EXCHANGE) != 0
    cdef bint support = sp.sup_lam > 0.0
    for i in range(m):
        if i > 0 and rk[i] != prev and (
                not moved_rule or rows_moved_bound(i - seen, pmax) + TOL >= need):
            seen = i
            if row_w is double:
                c0 = w0
                c1 = w1
                r0 = tot[0] - w0
                r1 = tot[1] - w1
            else:
                l0 = i - l1
                c0 = <double> l0
                c1 = <double> l1
                r0 = <double> (it0 - l0)
                r1 = <double> (it1 - l1)
            ll = _cost2_loss(C, c0, c1)
            lr = _cost2_loss(C, r0, r1)
            v = ll + lr + two
            if support and not split_supported(
                    leaf_support(c0 * sp.maxcost[0] + c1 * sp.maxcost[1], ll),
                    leaf_support(r0 * sp.maxcost[0] + r1 * sp.maxcost[1], lr),
                    sp.sup_lam):
                v = INF         # a leaf of too little support: never optimal
            if v < b - TOL:
                b = v
                best[0] = v
                arg[0] = base + prev
                if v <= lowest + TOL:
                    return
            need = v - b if v < INF and b < INF else 0.0
            if moved_rule and rows_moved_bound(ntot - seen, pmax) + TOL < need:
                return      # no later threshold can do better
        if row_w is double:
            # without a branch on the class: the weight goes to one sum and
            # 0.0, which changes no sum, to the other
            wy = wk[i] * yk[i]
            w1 += wy
            w0 += wk[i] - wy
        else:
            l1 += yk[i]
        prev = rk[i]


cdef inline void _column_pass_squares(const DSpace* sp, const int32_t* rk,
                                     const int32_t* yk, const double* wk,
                                     const int32_t* pos, int32_t t, int m, int nsides,
                                     const double* tot, const int64_t* ntot,
                                     const double* lowest, int32_t base, bint* done,
                                     double* best, int32_t* arg,
                                     double* shared) noexcept nogil:
    """`column_pass` under squared error: each side's left sums (weight, weighted
    target, weighted square) up to every threshold, a split's value the two
    leaves' `squares_loss` and 2 lam.  (No moved-rows skip: the exchange rule is
    off under squared error.)"""
    cdef int s, i
    cdef double l[6]           # each side's left sums, side-major
    cdef int64_t nn[2]
    cdef int32_t prev[2]
    cdef double v, w, z, two = 2.0 * sp.lam
    cdef bint capped = sp.min_leaf > 1
    for i in range(6):
        l[i] = 0.0
    for s in range(2):
        nn[s] = 0
        prev[s] = -1
    for i in range(m):
        s = (pos[i] >= t) if nsides == 2 else 0
        if done[s]:
            continue
        if nn[s] > 0 and rk[i] != prev[s] and (
                not capped or (nn[s] >= sp.min_leaf and ntot[s] - nn[s] >= sp.min_leaf)):
            v = (squares_loss(l[3 * s], l[3 * s + 1], l[3 * s + 2])
                 + squares_loss(tot[3 * s] - l[3 * s], tot[3 * s + 1] - l[3 * s + 1],
                                tot[3 * s + 2] - l[3 * s + 2]) + two)
            if v < best[s] - TOL:
                best[s] = v
                arg[s] = base + prev[s]
                if best[s] <= lowest[s] + TOL:
                    done[s] = True
                    if done[0] and done[1]:
                        return
            if shared != NULL and best[s] < INF:
                fst_shared_min(shared + s, best[s])
        w = weight_at(wk, i)
        z = sp.target[yk[i]]
        l[3 * s] += w
        l[3 * s + 1] += w * z
        l[3 * s + 2] += w * z * z
        nn[s] += 1
        prev[s] = rk[i]


cdef inline void _column_pass_squares_one(const DSpace* sp, const int32_t* rk,
                                         const int32_t* yk, const row_w* wk, int m,
                                         const double* tot,
                                         double lowest, int32_t base, double* best,
                                         int32_t* arg) noexcept nogil:
    """`_column_pass_squares` over one side (every row of the order, of
    weights wk, or of weight 1 as `NoWeights`), without min_leaf or threads:
    the same valuations in the same order, to the last bit (a row's sums take
    w, w z and w z z as there), with the side's sums in locals rather than an
    array indexed by side, so that the adds carry from one row to the next
    in registers.

    A threshold is valued only when a test without division lets it through.
    Its value, before clamping and rounding, is tq - G + 2 lam with
    G = lz^2 / lw + rz^2 / rw (the two leaves' q - s^2 / w, whose q add up to
    tq), so it is below b - TOL only if G > tq + 2 lam - b + TOL, that is
    lz^2 rw + rz^2 lw > (tq + 2 lam - b + TOL) lw rw (lw, rw > 0: the search
    holds only rows of positive weight).  Clamping a leaf's loss at 0 only
    raises the value.  G is at most lq + rq = tq (Cauchy-Schwarz), and b at
    most the side's leaf, so every term of both forms is at most a few tq,
    and their rounding errors a few ulps of tq: the test's bound is taken
    1e-12 (tq + 1) low, far above them, so a threshold it rejects is one the
    valuation would not take."""
    cdef int i
    cdef double lw = 0.0, lz = 0.0, lq = 0.0, w, z, two = 2.0 * sp.lam
    cdef double tw = tot[0], tz = tot[1], tq = tot[2]
    cdef double b = best[0]
    cdef double slack = 1e-12 * (tq + 1.0)
    cdef double need = tq + two - b + TOL - slack
    cdef const double* target = sp.target
    cdef int32_t prev = -1
    cdef double rw, rz, v
    for i in range(m):
        if i > 0 and rk[i] != prev:
            rw = tw - lw
            rz = tz - lz
            if lz * lz * rw + rz * rz * lw > need * lw * rw:
                v = squares_loss(lw, lz, lq) + squares_loss(rw, rz, tq - lq) + two
                if v < b - TOL:
                    b = v
                    best[0] = v
                    arg[0] = base + prev
                    if v <= lowest + TOL:
                        return
                    need = tq + two - b + TOL - slack
        if row_w is double:
            w = wk[i]
        else:
            w = 1.0
        z = target[yk[i]]
        lw += w
        lz += w * z
        lq += w * z * z
        prev = rk[i]


cdef inline double _two_leaves(const DSpace* sp, const count_t* left,
                               const count_t* total, count_t* right, int64_t nl,
                               int64_t nr) noexcept nogil:
    """The value of a split whose left side has class counts `left` (nl rows)
    out of `total`, its right side the rest (written to `right`, nr rows): the
    two leaves' losses and 2 lam, INF when a leaf has too little support to be
    optimal (`split_supported`)."""
    cdef int k
    cdef double ll, lr
    for k in range(sp.K):
        right[k] = total[k] - left[k]
    ll = leaf_loss(sp, left, nl)
    lr = leaf_loss(sp, right, nr)
    if sp.sup_lam > 0.0 and not split_supported(
            leaf_support(class_sum(sp, left, sp.maxcost), ll),
            leaf_support(class_sum(sp, right, sp.maxcost), lr), sp.sup_lam):
        return INF          # a leaf of too little support: never optimal
    return ll + lr + 2.0 * sp.lam


cdef inline bint _value_threshold(const DSpace* sp, int s, int64_t* wc,
                                  const int64_t* tw, double* ic, bint whole,
                                  const double* tot, const int64_t* ntot,
                                  const int64_t* nn, int64_t* seen, double* need,
                                  bint* done, const double* lowest, int32_t split,
                                  double* best, int32_t* arg,
                                  double* shared) noexcept nogil:
    """`column_pass`'s valuation of side s's split `split`: its first nn[s] rows
    left (class counts wc in whole rows when `whole`, else class sums ic), the
    rest right.  Updates the side's best, the value the rows to come must gain
    (need, `rows_moved_bound`) and whether the side is done; True when both
    sides are."""
    cdef int K = sp.K
    cdef int k
    cdef double* rc = ic + 2 * K
    cdef int64_t* wrc = wc + 4 * K
    cdef double v, ll, lr, ref, u = sp.unit
    cdef int64_t ml, mr
    if sp.min_leaf > 1 and (nn[s] < sp.min_leaf or ntot[s] - nn[s] < sp.min_leaf):
        # min_samples_leaf: not a split of this side (checked here, where a
        # threshold is valued, not in the pass's loop over every row); the
        # moved-rows bound still counts from the last threshold valued
        return False
    seen[s] = nn[s]
    if u > 0.0:
        # a unit cost (whole rows): each leaf loses its rows less its largest
        # class, counted in integers; a leaf's worst is its rows
        ml = 0
        mr = 0
        for k in range(K):
            if wc[s * K + k] > ml:
                ml = wc[s * K + k]
            if tw[s * K + k] - wc[s * K + k] > mr:
                mr = tw[s * K + k] - wc[s * K + k]
        ll = (nn[s] - ml) * u
        lr = (ntot[s] - nn[s] - mr) * u
        v = ll + lr + 2.0 * sp.lam
        if sp.sup_lam > 0.0 and not split_supported(
                leaf_support(nn[s] * u, ll),
                leaf_support((ntot[s] - nn[s]) * u, lr), sp.sup_lam):
            v = INF         # a leaf of too little support: never optimal
    elif whole:
        # whole rows in integers, the right side's too (wc's last K)
        v = _two_leaves(sp, wc + s * K, tw + s * K, wrc, nn[s], ntot[s] - nn[s])
    else:
        v = _two_leaves(sp, ic + s * K, tot + s * K, rc, nn[s], ntot[s] - nn[s])
    if v < best[s] - TOL:
        best[s] = v
        arg[s] = split
        if best[s] <= lowest[s] + TOL:
            done[s] = True
    if shared != NULL and v < INF:
        if best[s] < INF:
            fst_shared_min(shared + s, best[s])
        ref = fst_shared_load(shared + s)
        need[s] = v - (ref if ref < best[s] else best[s])
    else:
        need[s] = v - best[s] if v < INF and best[s] < INF else 0.0
    if (sp.rules & RULE_EXCHANGE) and rows_moved_bound(ntot[s] - seen[s], sp.pmax) + TOL < need[s]:
        done[s] = True      # no later threshold of this side can do better
    return done[0] and done[1]


cdef inline void column_pass(const DSpace* sp, const int32_t* rk, const int32_t* yk,
                      const double* wk, const int32_t* pos, int32_t t, int m,
                      int nsides, const double* tot, const int64_t* ntot,
                      const double* lowest, int32_t base, double* ic, int64_t* wc,
                      double* best, int32_t* arg, double* shared) noexcept nogil:
    """One column's pass over m rows in its order (rk their ranks, yk their
    classes, wk their weights or NULL for ones): best[s] and arg[s] improve (by
    more than TOL) with the column's splits of each side s, arg the split's id
    (base + the rank of its last row sent left).  With two sides a row is on
    side 1 when pos[i] >= t; side s holds ntot[s] rows of class sums
    tot[s * K ...], and is not scanned when it has fewer than two rows or its
    best is already at lowest[s].  ic (3 K) and wc (5 K) are scratch:
    each side's left class sums, in whole rows where there are no weights; `shared` (threads, or
    NULL) holds each side's best over every column so far, which the moved-rows
    bound may measure against: a threshold it skips is worse than a real split
    by more than TOL, so never the best nor a tie.

    Every partition of a side by one split of the column is a prefix of this
    order at a change of rank (split k sends ranks <= k left), so the least over
    them is the side's best split on the column; under min_leaf only the
    prefixes that leave min_leaf rows on each side are splits.  With RULE_EXCHANGE a threshold
    is skipped while the rows that crossed since the side's last valuation could
    not lower its value below the best (`rows_moved_bound`)."""
    cdef int K = sp.K
    cdef int s, k, i
    cdef int64_t* tw = wc + 2 * K   # without weights: each side's whole rows a class
    cdef int64_t nn[2]
    cdef int32_t prev[2]
    cdef int64_t seen[2]
    cdef double need[2]
    cdef bint done[2]
    cdef double u = sp.unit
    cdef bint moved_rule = (sp.rules & RULE_EXCHANGE) != 0
    for s in range(2):
        nn[s] = 0
        prev[s] = -1
        seen[s] = 0
        need[s] = 0.0
        done[s] = s >= nsides or ntot[s] < 2 or best[s] <= lowest[s] + TOL
    if done[0] and done[1]:
        return
    if sp.target != NULL:
        if nsides == 1 and shared == NULL and sp.min_leaf <= 1:
            if wk == NULL:
                _column_pass_squares_one(sp, rk, yk, <const NoWeights*> NULL, m, tot,
                                         lowest[0], base, best, arg)
            else:
                _column_pass_squares_one(sp, rk, yk, wk, m, tot, lowest[0], base, best,
                                         arg)
            return
        _column_pass_squares(sp, rk, yk, wk, pos, t, m, nsides, tot, ntot, lowest, base,
                             done, best, arg, shared)
        return
    if nsides == 1 and shared == NULL and _unit_one(sp):
        _column_pass_unit_one(sp, rk, yk, m, tot, ntot[0], lowest[0], base, best, arg)
        return
    if nsides == 1 and shared == NULL and K == 2 and u <= 0.0 and sp.min_leaf <= 1:
        if wk == NULL:
            _column_pass_cost2_one(sp, rk, yk, <const NoWeights*> NULL, m, tot, ntot[0],
                                   lowest[0], base, best, arg)
        else:
            _column_pass_cost2_one(sp, rk, yk, wk, m, tot, ntot[0], lowest[0], base, best,
                                   arg)
        return
    if K == 2 and u > 0.0:
        _column_pass_unit2(sp, rk, yk, pos, t, m, nsides, tot, ntot, lowest, base,
                           done, best, arg, shared)
        return
    # (the scratch sums of the general loops below; the loops above keep theirs
    # in locals)
    memset(ic, 0, 2 * K * sizeof(double))
    memset(wc, 0, 2 * K * sizeof(int64_t))
    if wk == NULL:
        # whole rows: each side's counts in integers
        for k in range(nsides * K):
            tw[k] = <int64_t> tot[k]
    # two loops, the one without weights counting whole rows in integers (an
    # integer increment carries no floating-point latency from one row to the
    # next); the same valuation (`_value_threshold`)
    if wk == NULL:
        for i in range(m):
            s = (pos[i] >= t) if nsides == 2 else 0
            if done[s]:
                continue
            if nn[s] > 0 and rk[i] != prev[s] and (
                    not moved_rule
                    or rows_moved_bound(nn[s] - seen[s], sp.pmax) + TOL >= need[s]):
                if _value_threshold(sp, s, wc, tw, ic, True, tot, ntot, nn, seen, need,
                                    done, lowest, base + prev[s], best, arg, shared):
                    return
            wc[s * K + yk[i]] += 1
            nn[s] += 1
            prev[s] = rk[i]
    else:
        for i in range(m):
            s = (pos[i] >= t) if nsides == 2 else 0
            if done[s]:
                continue
            if nn[s] > 0 and rk[i] != prev[s] and (
                    not moved_rule
                    or rows_moved_bound(nn[s] - seen[s], sp.pmax) + TOL >= need[s]):
                if _value_threshold(sp, s, wc, tw, ic, False, tot, ntot, nn, seen, need,
                                    done, lowest, base + prev[s], best, arg, shared):
                    return
            ic[s * K + yk[i]] += wk[i]
            nn[s] += 1
            prev[s] = rk[i]
