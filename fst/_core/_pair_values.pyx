"""The pair stage's values: from one row of pair counts (split i against every
valid split j) and one child of split i, its exact best two-leaf loss over the
splits j that separate it (and the first j achieving it), and the cheapest cell
any j peels off that can be the leaf of a three-leaf tree, raised to the
three-leaf bound (`_bounds.three_leaf_peel`) under RULE_PEEL3.

# Notes:
# - The loops are in simd/values.h, a scalar reference beside each vector form,
#   chosen by `Ctx.vec`; every loop gives the same doubles (or integers).
# - Under a unit cost (0/1 loss, or balanced class weights) a cell loses u times
#   its rows less its largest class and has potential u times its rows, so every
#   comparison is on integers (ties exact) and the values are u times integer
#   sums.
# - The capacity tests (`_bounds.capacity_unit`) decide which cells may peel off:
#   one that can hold one leaf beside one that can hold two.
"""
from libc.math cimport ceil

from ._typedefs cimport int32_t, int64_t, INF
from ._config cimport RULE_PEEL3
from ._context cimport Ctx
from ._bounds cimport (leaf_loss, potential, worst_loss, three_leaf_peel, capacity_unit)
from ._simd cimport fst_pair_values2, fst_pair_values_k, fst_pair_values_u, fst_peel3_u

cdef enum:
    CELL_CACHE = 1024    # splits whose cells `_pair_values_u` keeps (24 KiB of stack)


cdef inline int32_t rows_reaching(double t, double u) noexcept nogil:
    """The fewest rows whose potential (u each) reaches t: ceil(t / u).  t is the
    capacity unit, already lam less a relative 1e-9 (`capacity_unit`), so
    rounding in the division never excludes a cell whose true potential reaches
    lam."""
    cdef double r = ceil(t / u)
    if r >= 2147483647.0:
        return 2147483647
    return <int32_t> r


cdef void pair_values(Ctx* c, const double* cc, const int32_t* A, int m, const double* cl,
                      const int32_t* cli, bint right, double* best2, double* peel,
                      int* arg) noexcept nogil:
    """From one row of pair counts A (split i against every split j: classes
    0..K-2, then the cell's rows), for one child of split i with class counts cc
    (the right one, X & ~s_i, when `right`; cl: the counts of X & s_j, cli the
    same in whole rows, classes 0..K-2 then the rows, under a unit cost): the
    best two-leaf loss and the split position achieving it (INF and -1 when
    none separates the child), and the cheapest cell any split peels off,
    raised to the three-leaf bound under RULE_PEEL3 (INF: none)."""
    if c.sp.unit > 0.0:
        _pair_values_u(c, cc, A, m, cli, right, best2, peel, arg)
        return
    _pair_values_d(c, cc, A, m, cl, right, best2, peel, arg)
    if (c.cfg.rules & RULE_PEEL3) and best2[0] < INF and peel[0] < INF:
        peel[0] = _peel_bound(c, cc, A, m, cl, right, best2[0], peel[0])


cdef void _pair_values_u(Ctx* c, const double* cc, const int32_t* A, int m,
                         const int32_t* cli, bint right, double* best2, double* peel,
                         int* arg) noexcept nogil:
    """`pair_values` under a unit cost, in whole rows; under RULE_PEEL3 the peel
    is the three-leaf bound (`fst_peel3_u`: loss(A) + max(0, best2 - rows(A)),
    a cell's worst cost being its rows)."""
    cdef double u = c.sp.unit
    cdef double t1 = capacity_unit(c.cfg.rules, c.cfg.lam)
    cdef int32_t T1 = rows_reaching(t1, u)
    cdef int32_t T2 = rows_reaching(2.0 * t1, u)
    cdef int K = c.sp.K
    cdef int32_t ci[64]
    cdef int32_t ct = 0
    cdef int32_t ib, ip
    cdef int k, ia
    # the cells the two-class AVX2 loop computed, for the three-leaf pass (read
    # back instead of recomputed: the same integers); up to CELL_CACHE splits
    cdef int32_t cache[6 * CELL_CACHE]
    cdef int32_t* cells = cache if K == 2 and m <= CELL_CACHE else NULL
    for k in range(K):
        ci[k] = <int32_t> cc[k]
        ct += ci[k]
    fst_pair_values_u(c.vec, A, m, K, cli, right, ci, ct, T1, T2, &ib, &ip, &ia, cells)
    if (c.cfg.rules & RULE_PEEL3) and ia >= 0 and ip < 2147483647:
        ip = fst_peel3_u(c.vec, A, m, K, cli, right, ci, ct, T1, T2, ib, ip, cells)
    arg[0] = ia
    best2[0] = u * ib if ia >= 0 else INF
    peel[0] = u * ip if ip < 2147483647 else INF


cdef inline void _pair_values_d(Ctx* c, const double* cc, const int32_t* A, int m,
                                const double* cl, bint right, double* best2, double* peel,
                                int* arg) noexcept nogil:
    """`pair_values` in doubles (no unit cost), before the three-leaf bound."""
    cdef int K = c.sp.K
    cdef double t1 = capacity_unit(c.cfg.rules, c.cfg.lam)
    cdef double t2 = 2.0 * t1
    if K == 2:
        fst_pair_values2(c.vec, A, m, cl, right, cc[0], cc[1], c.sp.cost, c.sp.potc, t1, t2,
                         best2, peel, arg)
    else:
        fst_pair_values_k(c.vec, A, m, K, cl, right, cc, c.sp.cost, c.sp.pcols, c.sp.n_pcols,
                          c.sp.potc, t1, t2, best2, peel, arg)


cdef inline bint _cells(const int32_t* A, const double* cl, bint right, const double* cc,
                        int K, int j, double* c1, double* c2) noexcept nogil:
    """The class counts c1, c2 of the two cells split j cuts a child of class
    counts cc into, from its row of pair counts A (cl: the counts of X & s_j).
    Returns False when s_j does not separate the child (simd/values.h's
    `fst_cells_k`, the same doubles)."""
    cdef const int32_t* a = A + <int64_t> j * K
    cdef double n1 = 0.0, n2 = 0.0
    cdef int k
    for k in range(K - 1):
        c1[k] = a[k]
        n1 += a[k]
    c1[K - 1] = a[K - 1] - n1           # the total minus the other classes
    if right:                            # R_i & s_j = (X & s_j) - (X & s_i & s_j)
        for k in range(K):
            c1[k] = cl[j * K + k] - c1[k]
    n1 = 0.0
    for k in range(K):
        c2[k] = cc[k] - c1[k]
        n1 += c1[k]
        n2 += c2[k]
    return n1 != 0.0 and n2 != 0.0


cdef double _peel_bound(Ctx* c, const double* cc, const int32_t* A, int m,
                        const double* cl, bint right, double best2,
                        double peel) noexcept nogil:
    """The three-leaf bound of one child of split i from its row of pair counts,
    in doubles (`_pair_values_d`'s child; best2 and peel are what it returned):
    the least over the cells A that may peel off (the same capacity tests) of
    `three_leaf_peel`: loss(A) + max(0, best2 - worst(A)).  Never below peel
    (each cell's value is at least its loss), so the loop ends once it reaches
    it."""
    cdef int K = c.sp.K
    cdef int j
    cdef double t1 = capacity_unit(c.cfg.rules, c.cfg.lam)
    cdef double t2 = 2.0 * t1
    cdef double c1[64]
    cdef double c2[64]
    cdef double l1, l2, q1, q2, v, best = INF
    for j in range(m):
        if not _cells(A, cl, right, cc, K, j, c1, c2):
            continue                     # s_j does not separate this child
        q1 = potential(c1, K, c.sp.potc)
        q2 = potential(c2, K, c.sp.potc)
        if q1 >= t1 and q2 >= t2:
            l1 = leaf_loss(c1, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL)
            v = three_leaf_peel(l1, best2, worst_loss(c1, K, c.sp.maxcost))
            if v < best:
                best = v
        if q2 >= t1 and q1 >= t2:
            l2 = leaf_loss(c2, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, NULL)
            v = three_leaf_peel(l2, best2, worst_loss(c2, K, c.sp.maxcost))
            if v < best:
                best = v
        if best <= peel:
            break                        # no cell goes below the cheapest peel
    # Both are bounds on the same trees; the larger stands (the loop's sums may
    # differ from `_pair_values_d`'s in the last bit).
    return best if best > peel else peel
