"""The depth-limited engine's squared-error parts that need no column orders:
the k-segmentation floor of a set of rows' sorted targets (`segment_bound`, the
programme behind `_bounds.segmentation_lower_bound`), and the nodes solved from
their column sums on binary columns (`by_sums`, `solve_sums`: every tree of
depth two, three or four from the sums over the rows left of each pair,
triple and quadruple of splits).  docs/how_it_works.md, "Squared error",
gives the argument; the engine calls them from `_depth._solve` and
`_depth._value_deeper`.

# Notes:
# - The limits are polled through the engine's `poll` (`_depth.engine_poll`),
#   so this module needs nothing of `_depth` at run time.
"""
from libc.stdlib cimport qsort
from libc.string cimport memcpy, memset
from libc.stdint cimport uint8_t, uint32_t, uint64_t

from ._typedefs cimport int32_t, int64_t, TOL, INF
from ._rowpass cimport DSpace, squares_loss, leaf_loss
from ._bounds cimport segmentation_lower_bound
from ._depth cimport DEngine, DLevel, SetBest, _heap_size, _wins, POLL_ROWS


# ------------------------------------------------------------ k-segmentation

cdef int _by_target(const void* a, const void* b) noexcept nogil:
    """qsort's order of (target, weight) pairs: by target."""
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    return (x > y) - (x < y)


cdef inline double _run_loss(const double* P, int a, int b) noexcept nogil:
    """The squared error of the sorted targets a .. b - 1 about their weighted mean,
    from the prefix sums P (weight, weighted target, weighted square; 3 a row)."""
    return squares_loss(P[3 * b] - P[3 * a], P[3 * b + 1] - P[3 * a + 1],
                        P[3 * b + 2] - P[3 * a + 2])


cdef void _segment_layer(const double* P, const double* prev, double* cur, int lo, int hi,
                         int olo, int ohi) noexcept nogil:
    """cur[i] = min over j in [olo, min(ohi, i - 1)] of prev[j] + the loss of the
    run j .. i - 1, for i in [lo, hi]: the least loss of the first i sorted targets
    in one group more than prev counts.  The least j is nondecreasing in i (the
    run losses satisfy the quadrangle inequality), so the middle i's least j
    bounds the search of the two halves (divide and conquer)."""
    cdef int mid, j, top, arg
    cdef double v, best
    if lo > hi:
        return
    mid = (lo + hi) // 2
    top = ohi if ohi < mid - 1 else mid - 1
    best = INF
    arg = olo
    for j in range(olo, top + 1):
        v = prev[j] + _run_loss(P, j, mid)
        if v < best:
            best = v
            arg = j
    cur[mid] = best
    _segment_layer(P, prev, cur, lo, mid - 1, olo, arg)
    _segment_layer(P, prev, cur, mid + 1, hi, arg, ohi)


cdef double segment_bound(const DSpace* sp, double* buf, const int32_t* rows, int m,
                          int kmax) noexcept nogil:
    """`segmentation_lower_bound` of the set of m rows `rows` (any order) whose
    trees have at most kmax leaves: its targets sorted with their weights, the
    k-segmentation floors seg_k for k <= min(kmax, m) by the layered programme
    (`_segment_layer`; a tree has at most m nonempty leaves), about the set's
    weighted mean (no cancellation against a distant mean).  The layers stop
    once k lam alone reaches the least value found: every larger k is worth
    more.  buf: 8 m + 8 doubles of scratch."""
    cdef double* zw = buf                       # 2 m: (target, weight) pairs
    cdef double* P = buf + 2 * <int64_t> m      # 3 (m + 1): prefix sums
    cdef double* prev = P + 3 * (<int64_t> m + 1)
    cdef double* cur = prev + (m + 1)
    cdef double* seg = cur + (m + 1)
    cdef double* tmp
    cdef double w, z, sw = 0.0, swz = 0.0, mean, low
    cdef int i, k, kk
    cdef int32_t r
    for i in range(m):
        r = rows[i]
        w = 1.0 if sp.w == NULL else sp.w[r]
        zw[2 * i] = sp.target[r]
        zw[2 * i + 1] = w
        sw += w
        swz += w * sp.target[r]
    qsort(zw, m, 2 * sizeof(double), _by_target)
    mean = swz / sw if sw > 0.0 else 0.0
    P[0] = 0.0; P[1] = 0.0; P[2] = 0.0
    for i in range(m):
        w = zw[2 * i + 1]
        z = zw[2 * i] - mean
        P[3 * i + 3] = P[3 * i] + w
        P[3 * i + 4] = P[3 * i + 1] + w * z
        P[3 * i + 5] = P[3 * i + 2] + w * z * z
    kk = kmax if kmax < m else m
    for i in range(m + 1):
        prev[i] = _run_loss(P, 0, i)
    seg[0] = prev[m]
    low = seg[0] + sp.lam
    k = 2
    while k <= kk and k * sp.lam < low:
        _segment_layer(P, prev, cur, k, m, k - 1, m - 1)
        seg[k - 1] = cur[m]
        if cur[m] + k * sp.lam < low:
            low = cur[m] + k * sp.lam
        tmp = prev
        prev = cur
        cur = tmp
        k += 1
    return segmentation_lower_bound(seg, k - 1, sp.lam)


# ---------------------------------------------------------- the sums' solvers

cdef bint segment_prune(DEngine* e, int d, const int32_t** rows, const int* mm, int ck,
                       double cap, double* lb0) noexcept nogil:
    """Squared error (RULE_SEGMENT): each child of a split of a node of depth
    d raised to its k-segmentation floor over the leaves its depth and cap ck
    allow (`segment_bound`); True when the two floors exceed the cap, the split
    then proven above it without a search."""
    cdef DLevel* L = &e.lv[d]
    cdef int j, k
    cdef double v
    for j in range(2):
        k = 1 << (d - 1)
        if ck < k:
            k = ck
        v = segment_bound(&e.sp, L.seg, rows[j], mm[j], k)
        e.segment_bounds += 1
        if v > lb0[j]:
            lb0[j] = v
    if lb0[0] + lb0[1] > cap + TOL:
        e.segment_prunes += 1
        return True
    return False


cdef inline int64_t _triple_at(int a, int b, int c) noexcept nogil:
    """The slot of the column triple a < b < c in a dense table of all of them
    (the combinatorial number system: C(c, 3) + C(b, 2) + a)."""
    return (<int64_t> c * (c - 1) * (c - 2)) // 6 + (<int64_t> b * (b - 1)) // 2 + a


cdef inline int64_t _quad_at(int a, int b, int c, int f) noexcept nogil:
    """The slot of the column quadruple a < b < c < f in a dense table of all of
    them (C(f, 4) + `_triple_at(a, b, c)`)."""
    return (<int64_t> f * (f - 1) * (f - 2) * (f - 3)) // 24 + _triple_at(a, b, c)


cdef inline double _sums_loss(const DSpace* sp, const double* x) noexcept nogil:
    """The least loss of one leaf over the rows whose slot of sums is x: under
    squared error (weight, weighted target, weighted square, rows) their
    squared error about the weighted mean; for classes (each class's weight,
    then rows in the slot's last, `DSpace.slot`) the best label's cost
    (`leaf_loss`, from whole rows without weights, so equal losses are equal
    to the last bit)."""
    if sp.target != NULL:
        return squares_loss(x[0], x[1], x[2])
    return leaf_loss(sp, x, <int64_t> x[sp.slot - 1])


# The three widths of a slot as types, so that the loops adding a row's sums
# are compiled once for each with the width fixed (`_add_row`).
cdef struct NarrowSlot:
    char unused
cdef struct WideSlot:
    char unused
cdef struct WidestSlot:
    char unused
ctypedef fused slot_kind:
    NarrowSlot
    WideSlot
    WidestSlot


cdef inline void _add_fixed(slot_kind* kind, double* q, const double* v) noexcept nogil:
    """Add a row's slot of sums v (narrow: weight, weighted target and square,
    one, or each class's weight, then one; wide: each class's weight, then
    one in the last, of eight or sixteen) to a slot q of a sums' table; v is
    the caller's own array, so the adds can be whole vectors'."""
    cdef int k
    q[0] += v[0]
    q[1] += v[1]
    q[2] += v[2]
    q[3] += v[3]
    if slot_kind is not NarrowSlot:
        q[4] += v[4]
        q[5] += v[5]
        q[6] += v[6]
        q[7] += v[7]
    if slot_kind is WidestSlot:
        for k in range(8, SLOT_WIDEST):
            q[k] += v[k]


cdef inline void _add_row(slot_kind* kind, double* P, double* T, double* Q,
                          uint64_t* Tl, const int32_t* A, int na, int p, const double* v,
                          const uint64_t* linc) noexcept nogil:
    """`_sum_rows`' adds of one row's sums v to the pairs P of the columns A[0 ..
    na) that count it, with T (not NULL) to their triples, with Q (not NULL) to
    their quadruples; with Tl (not NULL) to their triples counted in 16-bit
    lanes (TRI_LANES), linc (a slot's one, two or four words, four lanes
    each) to each triple's slot."""
    cdef int S = (SLOT_NARROW if slot_kind is NarrowSlot
                  else SLOT_WIDE if slot_kind is WideSlot else SLOT_WIDEST)
    cdef int W = S // 4
    cdef int a, b, c, f, k
    cdef double* q
    cdef uint64_t* ql
    for a in range(na):
        for b in range(a, na):
            _add_fixed(kind, P + S * (<int64_t> A[a] * p + A[b]), v)
    if T != NULL:
        for c in range(2, na):
            for b in range(1, c):
                q = T + S * (_triple_at(0, A[b], A[c]))
                for a in range(b):
                    _add_fixed(kind, q + S * A[a], v)
    if Q != NULL:
        for f in range(3, na):
            for c in range(2, f):
                for b in range(1, c):
                    q = Q + S * (_quad_at(0, A[b], A[c], A[f]))
                    for a in range(b):
                        _add_fixed(kind, q + S * A[a], v)
    if Tl != NULL:
        for c in range(2, na):
            for b in range(1, c):
                ql = Tl + W * _triple_at(0, A[b], A[c])
                for a in range(b):
                    for k in range(W):
                        ql[W * A[a] + k] += linc[k]


cdef inline void _copy_slot(double* o, const double* t, int S) noexcept nogil:
    """o = t, a slot of S doubles (four, eight or sixteen: the copies unrolled
    by four)."""
    cdef int k
    for k in range(0, S, 4):
        o[k] = t[k]
        o[k + 1] = t[k + 1]
        o[k + 2] = t[k + 2]
        o[k + 3] = t[k + 3]


cdef inline void _less_slot(double* o, const double* q, const double* t, int S) noexcept nogil:
    """o = q - t, slots of S doubles (unrolled by four)."""
    cdef int k
    for k in range(0, S, 4):
        o[k] = q[k] - t[k]
        o[k + 1] = q[k + 1] - t[k + 1]
        o[k + 2] = q[k + 2] - t[k + 2]
        o[k + 3] = q[k + 3] - t[k + 3]


cdef bint _sum_rows(DEngine* e, DLevel* L, const int32_t* ord, int m, double* tot,
                    double* T, double* Q) noexcept nogil:
    """One pass over the node's rows (`solve_sums`): tot the sums (weight,
    weighted target and square, rows; for classes each class's weight, then
    rows) of all of them, L.pair of those counted by both splits of each column
    pair a <= b (a = b: by one split), with T (not NULL) T of those counted by
    all three splits of each column triple a < b < c (`_triple_at`), and with Q
    (not NULL, T too) Q of those counted by all four of each quadruple
    (`_quad_at`).  A split counts the rows on its side e.sums_right[u] (0 its
    left, 1 its right: the side fewer of all rows are on), and a row adds to
    the pairs (triples, quadruples) of the columns that count it, so a row
    adds to fewer of them.  A slot is `DSpace.slot` doubles.  Without
    weights, with fewer than 2^16 rows and no quadruples, the triples of
    classes are counted in whole rows (L.tri_compact): with two classes one
    32-bit word a slot (TRI_WORD: its rows in the high half, its class-1 rows
    in the low; a row adds one word to each triple, an eighth of the four
    sums' memory), with more a slot's sums as 16-bit lanes (TRI_LANES: each
    class's rows, then the rows in the slot's last lane, four lanes to a
    64-bit word, so a row adds one to four words to each triple, a quarter of
    the doubles' memory); `_child_pairs` reads either back as the same sums
    (whole numbers, so equal to the last bit).  Polls the limits every
    POLL_ROWS rows: False when they stopped the search."""
    cdef DSpace* sp = &e.sp
    cdef int p = sp.p, n = sp.n, S = sp.slot
    cdef double* P = L.pair
    cdef int32_t* A = L.plist
    cdef int i, a, b, c, g, k, na
    cdef int32_t r
    cdef double w, z
    cdef double v[SLOT_MAX]
    cdef uint32_t* Tc = <uint32_t*> T
    cdef uint32_t* qc
    cdef uint32_t inc
    cdef uint64_t* Tl = <uint64_t*> T
    cdef double* Td
    cdef uint64_t linc[4]          # (SLOT_MAX / 4 words)
    cdef int words = S // 4                    # 64-bit words a slot of lanes
    cdef int compact = TRI_DOUBLES
    if (T != NULL and Q == NULL and sp.target == NULL and sp.w == NULL
            and m < 65536):
        compact = TRI_WORD if sp.K == 2 else TRI_LANES
    L.tri_compact = compact
    # the triples' table as _add_row fills it: of doubles, or of lanes
    Td = T if compact == TRI_DOUBLES else NULL
    if compact != TRI_LANES:
        Tl = NULL
    memset(P, 0, S * <int64_t> p * p * sizeof(double))
    if compact == TRI_WORD:
        memset(Tc, 0, (<int64_t> p * (p - 1) * (p - 2) // 6) * sizeof(uint32_t))
    elif compact == TRI_LANES:
        memset(Tl, 0, words * (<int64_t> p * (p - 1) * (p - 2) // 6) * sizeof(uint64_t))
    elif T != NULL:
        memset(T, 0, S * (<int64_t> p * (p - 1) * (p - 2) // 6) * sizeof(double))
    if Q != NULL:
        memset(Q, 0, S * (<int64_t> p * (p - 1) * (p - 2) * (p - 3) // 24) * sizeof(double))
    for k in range(S - 1):
        tot[k] = 0.0
    tot[S - 1] = m
    for k in range(SLOT_MAX):
        v[k] = 0.0
    for i in range(m):
        if (i & (POLL_ROWS - 1)) == POLL_ROWS - 1 and e.poll(e):
            return False
        r = ord[i]
        w = 1.0 if sp.w == NULL else sp.w[r]
        if sp.target != NULL:
            z = sp.target[r]
            v[0] = w
            v[1] = w * z
            v[2] = v[1] * z
        else:
            # classes: the row's weight on its class (at most S - 1 classes)
            for k in range(S - 1):
                v[k] = 0.0
            v[sp.y[r]] = w
        v[S - 1] = 1.0
        for k in range(S - 1):
            tot[k] += v[k]
        na = 0
        for g in range(p):
            if (sp.col_start[g + 1] > sp.col_start[g]
                    and (sp.rank[<int64_t> g * n + r] > 0) == e.sums_right[g]):
                A[na] = g
                na += 1
        if compact == TRI_LANES:
            # one in the row's class's lane and one in the rows' (the last)
            for k in range(words):
                linc[k] = 0
            linc[sp.y[r] // 4] += <uint64_t> 1 << (16 * (sp.y[r] % 4))
            linc[words - 1] += <uint64_t> 1 << 48
        if S == SLOT_NARROW:
            _add_row(<NarrowSlot*> NULL, P, Td, Q, Tl, A, na, p, v, linc)
        elif S == SLOT_WIDE:
            _add_row(<WideSlot*> NULL, P, Td, Q, Tl, A, na, p, v, linc)
        else:
            _add_row(<WidestSlot*> NULL, P, Td, Q, Tl, A, na, p, v, linc)
        if compact == TRI_WORD:
            inc = (<uint32_t> 1 << 16) | <uint32_t> sp.y[r]
            for c in range(2, na):
                for b in range(1, c):
                    qc = Tc + _triple_at(0, A[b], A[c])
                    for a in range(b):
                        qc[A[a]] += inc
    return True


cdef inline void _side_sums(const DSpace* sp, const uint8_t* R, const double* P,
                            const double* tot, int b, int s, double* side) noexcept nogil:
    """The sums of one side of root split b (s = 0 its left, 1 its right): the
    rows b counts (its side R[b], `_sum_rows`), or the others."""
    cdef const double* q = P + sp.slot * (<int64_t> b * sp.p + b)
    if s == R[b]:
        _copy_slot(side, q, sp.slot)
    else:
        _less_slot(side, tot, q, sp.slot)


cdef void _child_pairs(const DSpace* sp, const uint8_t* R, const double* P,
                       const double* T, int compact, int b, int s,
                       double* CP) noexcept nogil:
    """The pairs' sums CP of one child of root split b (s = 0 its left, 1 its
    right), from the node's pairs P and triples T (compact: in whole rows,
    `_sum_rows`): the pair (u, g) of the child on the side b counts (R[b]) is
    the node's sums over the rows counted by b, u and g (a triple, a pair or
    one column as the three are distinct or not); the other child's is the
    node's pair (u, g) less it (compact: the triples in whole rows,
    `_sum_rows`' TRI_WORD or TRI_LANES)."""
    cdef int p = sp.p, S = sp.slot
    cdef int u, g, k, lo, mi, hi
    cdef const double* t
    cdef double* o
    cdef uint32_t x
    cdef const uint64_t* xl
    cdef double tc[SLOT_MAX]
    for u in range(p):
        for g in range(u, p):
            o = CP + S * (<int64_t> u * p + g)
            if u == g:
                lo = b if b < u else u
                hi = u if b < u else b
                t = P + S * (<int64_t> lo * p + hi)
            elif b == u or b == g:
                t = P + S * (<int64_t> u * p + g)
            else:
                lo = b if b < u else u
                hi = g if g > b else b
                mi = b + u + g - lo - hi
                if compact == TRI_WORD:
                    x = (<const uint32_t*> T)[_triple_at(lo, mi, hi)]
                    tc[3] = <double> (x >> 16)
                    tc[1] = <double> (x & 0xFFFF)
                    tc[0] = tc[3] - tc[1]
                    tc[2] = 0.0
                    t = tc
                elif compact == TRI_LANES:
                    xl = (<const uint64_t*> T) + (S // 4) * _triple_at(lo, mi, hi)
                    for k in range(S):
                        tc[k] = <double> ((xl[k // 4] >> (16 * (k % 4))) & 0xFFFF)
                    t = tc
                else:
                    t = T + S * _triple_at(lo, mi, hi)
            if s == R[b]:
                _copy_slot(o, t, S)
            else:
                _less_slot(o, P + S * (<int64_t> u * p + g), t, S)


cdef void _child_triples(const DSpace* sp, const uint8_t* R, const double* T,
                         const double* Q, int a, int s, double* CT) noexcept nogil:
    """The triples' sums CT of one child of root split a (s = 0 its left, 1 its
    right), from the node's triples T and quadruples Q: the triple (u, g, h) of
    the child on the side a counts (R[a]) is the node's sums over the rows
    counted by a, u, g and h (a quadruple, or the triple itself when a is one of
    them); the other child's is the node's triple less it."""
    cdef int p = sp.p, S = sp.slot
    cdef int u, g, h, k
    cdef int64_t at
    cdef const double* t
    cdef const double* q
    cdef double* o
    for h in range(2, p):
        for g in range(1, h):
            for u in range(g):
                at = _triple_at(u, g, h)
                o = CT + S * at
                q = T + S * at
                if a == u or a == g or a == h:
                    t = q
                elif a < u:
                    t = Q + S * _quad_at(a, u, g, h)
                elif a < g:
                    t = Q + S * _quad_at(u, a, g, h)
                elif a < h:
                    t = Q + S * _quad_at(u, g, a, h)
                else:
                    t = Q + S * _quad_at(u, g, h, a)
                if s == R[a]:
                    _copy_slot(o, t, S)
                else:
                    _less_slot(o, q, t, S)


cdef inline double _unit_pair(const double* q, const double* dg, bint flip,
                              const double* side, double unit, double lam2,
                              int mlo) noexcept nogil:
    """`_one_best_both`'s value of the split on one other column (its pair's
    sums q, its own sums dg, read only with flip), INF where a side holds
    fewer than mlo rows."""
    cdef double x0 = q[0], x1 = q[1], x3 = q[3], y0, y1, y3
    if flip:
        x0 = dg[0] - x0
        x1 = dg[1] - x1
        x3 = dg[3] - x3
    y0 = side[0] - x0
    y1 = side[1] - x1
    y3 = side[3] - x3
    if x3 < mlo or y3 < mlo:
        return INF
    return ((x3 - (x0 if x0 > x1 else x1)) * unit + (y3 - (y0 if y0 > y1 else y1)) * unit
            + lam2)


cdef inline void _unit_run2(const DSpace* sp, const double* CP, const double* s0,
                            const double* s1, int g0, int g1, int64_t base, int64_t stride,
                            bint flip0, int mlo, double* best, int32_t* arg) noexcept nogil:
    """For both sides of a split (sums s0 and s1; flip0: side 0 is the side the
    split does not count, so its rows at column g are single(g) less pair(u, g))
    and the columns g0 <= g < g1, the pair of column g at CP + 4 (base + g
    stride), each read once: each side's first split better than its best by
    more than TOL, in column order, into best and arg.  A leaf of rows x loses
    (x[3] - max(x[0], x[1])) x unit, as `leaf_loss` computes it term for term,
    so the values, and the split chosen, are those of the general walk
    (`_one_best`) to the last bit.  Two classes: a narrow slot (four sums)."""
    cdef int p = sp.p
    cdef int g
    cdef double unit = sp.unit
    cdef double lam2 = 2.0 * sp.lam
    cdef double v
    cdef const double* q
    cdef const double* dg
    for g in range(g0, g1):
        if sp.col_start[g + 1] == sp.col_start[g]:
            continue
        q = CP + 4 * (base + g * stride)
        dg = CP + 4 * (<int64_t> g * p + g)
        v = _unit_pair(q, dg, flip0, s0, unit, lam2, mlo)
        if v < best[0] - TOL:
            best[0] = v
            arg[0] = g
        v = _unit_pair(q, dg, not flip0, s1, unit, lam2, mlo)
        if v < best[1] - TOL:
            best[1] = v
            arg[1] = g


cdef void _one_best_both(const DSpace* sp, const uint8_t* R, const double* CP,
                         const double* s0, const double* s1, int u, int mlo, double* best,
                         int32_t* arg) noexcept nogil:
    """`_one_best` of both sides of split u (sums s0 and s1) into best[0 .. 2)
    and arg[0 .. 2); for two classes at a unit cost, the most frequent case,
    both in one walk of the other columns (`_unit_run2`: the columns before u
    read their pair at (g, u), those after at (u, g), in column order as
    `_one_best` does)."""
    cdef int64_t p = sp.p
    cdef bint flip0 = R[u] != 0
    if sp.target == NULL and sp.unit > 0.0 and sp.K == 2:
        best[0] = _sums_loss(sp, s0) + sp.lam
        best[1] = _sums_loss(sp, s1) + sp.lam
        arg[0] = -1
        arg[1] = -1
        _unit_run2(sp, CP, s0, s1, 0, u, u, p, flip0, mlo, best, arg)
        _unit_run2(sp, CP, s0, s1, u + 1, sp.p, u * p, 1, flip0, mlo, best, arg)
        return
    best[0] = _one_best(sp, R, CP, s0, u, 0, mlo, arg)
    best[1] = _one_best(sp, R, CP, s1, u, 1, mlo, arg + 1)


cdef double _one_best(const DSpace* sp, const uint8_t* R, const double* CP,
                      const double* side, int u, int s, int mlo, int32_t* arg) noexcept nogil:
    """The best tree of depth one of the rows on side s of split u within a set
    S (sums `side`; CP the pairs' sums of S, `_child_pairs`): for each other
    column g the rows g counts are pair(u, g) on the side u counts, or
    single(g) less it on the other; the leaf, then the first split better by
    more than TOL in column order (as `_depth_one`; a split's value does not
    depend on which of its sides is counted).  arg: its column, -1 the leaf."""
    cdef int p = sp.p, S = sp.slot
    cdef int g, k
    cdef double v, best = _sums_loss(sp, side) + sp.lam
    cdef double x[SLOT_MAX]
    cdef double y[SLOT_MAX]
    arg[0] = -1
    for g in range(p):
        if g == u or sp.col_start[g + 1] == sp.col_start[g]:
            continue
        for k in range(S):
            x[k] = CP[S * (<int64_t> (u if u < g else g) * p + (g if u < g else u)) + k]
            if s != R[u]:
                x[k] = CP[S * (<int64_t> g * p + g) + k] - x[k]
            y[k] = side[k] - x[k]
        if x[S - 1] < mlo or y[S - 1] < mlo:
            continue
        v = (_sums_loss(sp, x) + _sums_loss(sp, y)
             + 2.0 * sp.lam)
        if v < best - TOL:
            best = v
            arg[0] = g
    return best


cdef inline int64_t _set_at(const int* cols, const int* sides, int k) noexcept nogil:
    """The slot of a set of k <= 3 sides of splits (columns increasing) in
    `DLevel.sets`: the sets of one split's side first (2 p of them, at 2 x +
    side), then of two (4 C(p, 2), at 4 C(y, 2) + 4 x + sides), then of three
    (8 C(p, 3)); the caller adds the table's offset (`_set_base`)."""
    if k == 1:
        return 2 * cols[0] + sides[0]
    if k == 2:
        return (4 * ((<int64_t> cols[1] * (cols[1] - 1)) // 2 + cols[0]) + 2 * sides[0]
                + sides[1])
    return (8 * _triple_at(cols[0], cols[1], cols[2]) + 4 * sides[0] + 2 * sides[1]
            + sides[2])


cdef inline int64_t _set_base(int p, int k) noexcept nogil:
    """Where the sets of k splits' sides start in `DLevel.sets`."""
    if k == 1:
        return 0
    if k == 2:
        return 2 * <int64_t> p
    return 2 * <int64_t> p + 2 * <int64_t> p * (p - 1)


cdef inline void _insert(const int* cols, const int* sides, int k, int u, int su,
                        int* c, int* t) noexcept nogil:
    """c, t: the set (cols, sides) of k splits' sides, columns increasing, with
    side su of split u (not among them) added in its place."""
    cdef int i, j = 0
    for i in range(k):
        if j == i and u < cols[i]:
            c[j] = u
            t[j] = su
            j += 1
        c[j] = cols[i]
        t[j] = sides[i]
        j += 1
    if j == k:
        c[j] = u
        t[j] = su


cdef inline SetBest* _set_with(SetBest* sets, int p, const int* cols, const int* sides,
                               int k, int u, int su) noexcept nogil:
    """The entry of the set (cols, sides) of k splits' sides with side su of
    split u added."""
    cdef int c[4]                # k <= 2 here; a fourth slot keeps the
    cdef int t[4]                # compiler's bounds check quiet
    _insert(cols, sides, k, u, su, c, t)
    return sets + _set_base(p, k + 1) + _set_at(c, t, k + 1)


cdef void _set_best(DEngine* e, SetBest* sets, SetBest* out, const int* cols,
                    const int* sides, int k, int mlo) noexcept nogil:
    """The best tree of a set of k sides of splits (out: its leaf on entry)
    from the best trees of the sets of k + 1 (one level shallower): each other
    column u in order, both its sides holding mlo rows or more, is valued as
    the sum of its sides' best trees and taken by `_wins` (a set's columns
    order its splits as their ids do: one split a column)."""
    cdef const DSpace* sp = &e.sp
    cdef int u, i
    cdef SetBest* a
    cdef SetBest* b
    cdef double v
    cdef bint member
    for u in range(sp.p):
        if sp.col_start[u + 1] == sp.col_start[u]:
            continue
        member = False
        for i in range(k):
            member = member or cols[i] == u
        if member:
            continue                    # one side of it is empty
        a = _set_with(sets, sp.p, cols, sides, k, u, 0)
        b = _set_with(sets, sp.p, cols, sides, k, u, 1)
        if a.rows < mlo or b.rows < mlo:
            continue
        e.evals += 1
        v = a.v + b.v
        if _wins(sp, v, a.leaves + b.leaves, u, out.v, out.leaves, out.col, False):
            out.v = v
            out.col = u
            out.leaves = a.leaves + b.leaves


cdef inline bint _root_sides(const DSpace* sp, SetBest* sets, int u, int mlo, SetBest** a,
                             SetBest** b) noexcept nogil:
    """The entries of column u's two sides among the sets of one split's side
    (a its left, b its right); False when u has no split or a side holds
    fewer than mlo rows."""
    cdef int cols[1]
    cdef int side[1]
    if sp.col_start[u + 1] == sp.col_start[u]:
        return False
    cols[0] = u
    side[0] = 0
    a[0] = sets + _set_at(cols, side, 1)
    side[0] = 1
    b[0] = sets + _set_at(cols, side, 1)
    return a[0].rows >= mlo and b[0].rows >= mlo


cdef void _set_best_three(DEngine* e, SetBest* sets, SetBest* out, int32_t* sides,
                          int mlo) noexcept nogil:
    """The best tree of at most three leaves and depth two of the node (out: its
    leaf on entry) from the sets of one split's side at depth one: each column
    u in order, both its sides holding mlo rows or more, is valued as its two
    sides' best trees when at most one of them splits, else as the better of
    the left side's tree beside the right leaf and the left leaf beside the
    right side's tree (on a tie the left leaf, the canonical order's first),
    and taken by `_wins`: the
    tree `_depth._value_depth_two` gives under a cap of three.  sides[0] and
    sides[1] get the root's sides' columns (-1: a leaf)."""
    cdef const DSpace* sp = &e.sp
    cdef int u, ca, cb, leaves
    cdef SetBest* a
    cdef SetBest* b
    cdef double v, vl, vr
    sides[0] = -1
    sides[1] = -1
    for u in range(sp.p):
        if not _root_sides(sp, sets, u, mlo, &a, &b):
            continue
        e.evals += 1
        v = a.v + b.v
        ca = a.col
        cb = b.col
        if ca >= 0 and cb >= 0:
            e.allocations += 1
            vl = a.v + b.leaf
            vr = a.leaf + b.v
            if vr <= vl + TOL:
                v = vr
                ca = -1
            else:
                v = vl
                cb = -1
        leaves = (2 if ca >= 0 else 1) + (2 if cb >= 0 else 1)
        if _wins(sp, v, leaves, u, out.v, out.leaves, out.col, False):
            out.v = v
            out.col = u
            out.leaves = leaves
            sides[0] = ca
            sides[1] = cb


cdef inline void _set_leaf(const DSpace* sp, SetBest* out, const double* sums) noexcept nogil:
    """A set's entry before its splits are valued: its leaf."""
    out.v = _sums_loss(sp, sums) + sp.lam
    out.leaf = out.v
    out.rows = sums[sp.slot - 1]
    out.col = -1
    out.leaves = 1


cdef void _set_tree(const DSpace* sp, SetBest* sets, const int* cols, const int* sides,
                    int k, int col, int depth, int pos, int32_t* tree) noexcept nogil:
    """Place at heap position `pos` of `tree` the best tree (root column col,
    -1 the leaf; `depth` levels) of the set (cols, sides) of k splits' sides,
    its subtrees those of the sets with each side of that split added."""
    cdef int c[4]                # k <= 2 here; a fourth slot keeps the
    cdef int t[4]                # compiler's bounds check quiet
    cdef int s
    cdef SetBest* child
    if col < 0 or depth == 0:
        return
    tree[pos] = sp.col_start[col]
    if depth == 1:
        return
    for s in range(2):
        child = _set_with(sets, sp.p, cols, sides, k, col, s)
        _insert(cols, sides, k, col, s, c, t)
        _set_tree(sp, sets, c, t, k + 1, child.col, depth - 1, 2 * pos + 1 + s, tree)


cdef inline void _sets_one(const DSpace* sp, const uint8_t* R, SetBest* sets, int k,
                          int* cols, int* sides, const double* CP, const double* within,
                          int mlo) noexcept nogil:
    """The entries at depth one of the two sets of k sides (`_set_at`) whose
    last is either side of split cols[k - 1] (sides[k - 1] is set here), within
    the set of the first k - 1 (its sums `within`, its pairs' sums CP): each
    one's leaf, then its best split, the two found together
    (`_one_best_both`)."""
    cdef int u = cols[k - 1]
    cdef int64_t base = _set_base(sp.p, k)
    cdef double sums[2 * SLOT_MAX]      # side 0's slot of sums, then side 1's
    cdef double best[2]
    cdef int32_t arg[2]
    cdef SetBest* ent
    cdef int s
    _side_sums(sp, R, CP, within, u, 0, sums)
    _side_sums(sp, R, CP, within, u, 1, sums + sp.slot)
    _one_best_both(sp, R, CP, sums, sums + sp.slot, u, mlo, best, arg)
    for s in range(2):
        sides[k - 1] = s
        ent = sets + base + _set_at(cols, sides, k)
        _set_leaf(sp, ent, sums + sp.slot * s)
        ent.v = best[s]
        ent.col = arg[s]
        ent.leaves = 2 if arg[s] >= 0 else 1


cdef double _sets_best(DEngine* e, DLevel* L, int d, int kc, const double* tot,
                       bint* stopped, double* caps, int32_t* caps_tree,
                       int* caps_leaves) noexcept nogil:
    """R(S, d) of a node S of depth d = 2, 3 or 4 from its sums (tot, L.pair,
    L.triple, L.quad), its tree in L.best.  Every subtree of a tree of S holds
    the rows of S on given sides of the splits above it, a set of at most
    d - 1 splits' sides; its best tree depends on that set alone, not on the
    order of the splits, so each set's best tree is found once (L.sets):
    1. the sets of d - 1 sides, at depth one: their pairs' sums by
       subtraction, split by split (`_child_pairs`, `_child_triples`), and
       each one's leaf and best split, a split's two sides at once
       (`_sets_one`);
    2. the sets of d - 2 sides down to one, then S itself: each other column's
       split valued as the sum of its two sides' entries (`_set_best`); at
       depth two S at caps of two, three and four leaves at once (`_two_caps`,
       into caps, caps_tree, caps_leaves), the answer the cap kc's.
    Each node's tree is the one `_takes` gives over its splits in column
    order, each side's depth-one tree the first best as `_depth_one`: the
    canonical tree the partitions and column passes give.  The limits are
    polled at every split of the passes; a stop sets stopped[0] and returns
    the node's leaf."""
    cdef DSpace* sp = &e.sp
    cdef int p = sp.p
    cdef int mlo = sp.min_leaf if sp.min_leaf > 1 else 1
    cdef SetBest* sets = L.sets
    cdef double* P = L.pair
    cdef double* CP1 = e.lv[d - 1].pair
    cdef double* CT1 = e.lv[d - 1].triple if d == 4 else NULL
    cdef double* CP2 = e.lv[d - 2].pair if d == 4 else NULL
    cdef double t1[SLOT_MAX]
    cdef double t2[SLOT_MAX]
    cdef int cols[3]
    cdef int sides[3]
    cdef int32_t* A = L.plist
    cdef int i, j, h, na = 0
    cdef int x, y, sx, sy, k, c
    cdef const uint8_t* R = e.sums_right
    cdef SetBest root
    _set_leaf(sp, &root, tot)
    memset(L.best, -1, _heap_size(d) * sizeof(int32_t))
    L.best_leaves = 1
    L.seeded = False
    # the columns with a split (the others send every row one way), in order
    for x in range(p):
        if sp.col_start[x + 1] > sp.col_start[x]:
            A[na] = x
            na += 1
    # 1. the sets of d - 1 sides, at depth one
    for i in range(na):
        if e.poll(e):
            stopped[0] = True
            return root.v
        x = cols[0] = A[i]
        if d == 2:
            _sets_one(sp, R, sets, 1, cols, sides, P, tot, mlo)
            continue
        for sx in range(2):
            sides[0] = sx
            _side_sums(sp, R, P, tot, x, sx, t1)
            _set_leaf(sp, sets + _set_at(cols, sides, 1), t1)
            _child_pairs(sp, R, P, L.triple, L.tri_compact, x, sx, CP1)
            if d == 4:
                _child_triples(sp, R, L.triple, L.quad, x, sx, CT1)
            for j in range(i + 1, na):
                y = cols[1] = A[j]
                if d == 3:
                    _sets_one(sp, R, sets, 2, cols, sides, CP1, t1, mlo)
                    continue
                for sy in range(2):
                    sides[1] = sy
                    _side_sums(sp, R, CP1, t1, y, sy, t2)
                    if e.poll(e):
                        stopped[0] = True
                        return root.v
                    _set_leaf(sp, sets + _set_base(p, 2) + _set_at(cols, sides, 2), t2)
                    _child_pairs(sp, R, CP1, CT1, TRI_DOUBLES, y, sy, CP2)
                    for h in range(j + 1, na):
                        cols[2] = A[h]
                        _sets_one(sp, R, sets, 3, cols, sides, CP2, t2, mlo)
    # 2. the sets of d - 2 sides down to one, each from the sets one side larger
    for k in range(d - 2, 0, -1):
        for i in range(na):
            if e.poll(e):
                stopped[0] = True
                return root.v
            cols[0] = A[i]
            for sx in range(2):
                sides[0] = sx
                if k == 1:
                    _set_best(e, sets, sets + _set_at(cols, sides, 1), cols, sides, 1, mlo)
                    continue
                for j in range(i + 1, na):
                    cols[1] = A[j]
                    for sy in range(2):
                        sides[1] = sy
                        _set_best(e, sets, sets + _set_base(p, 2) + _set_at(cols, sides, 2),
                                  cols, sides, 2, mlo)
    # ... and the node itself; at depth two its best trees of at most two,
    # three and four leaves, all from the same sets, the cap kc's its answer
    if d == 2:
        _two_caps(e, sets, &root, mlo, caps, caps_tree, caps_leaves)
        c = (kc if kc < 4 else 4) - 2
        memcpy(L.best, caps_tree + 7 * c, _heap_size(2) * sizeof(int32_t))
        L.best_leaves = caps_leaves[c]
        return caps[c]
    _set_best(e, sets, &root, cols, sides, 0, mlo)
    _set_tree(sp, sets, cols, sides, 0, root.col, d, 0, L.best)
    L.best_leaves = root.leaves
    return root.v


cdef void _two_caps(DEngine* e, SetBest* sets, const SetBest* leaf, int mlo, double* caps,
                    int32_t* caps_tree, int* caps_leaves) noexcept nogil:
    """A node of depth two's best trees of at most two, three and four leaves
    (values caps[0 .. 3), trees in heap order of depth two, 7 entries each, in
    caps_tree, leaves in caps_leaves) from the sets of one split's side at
    depth one (`_set_best_two`, `_set_best_three`, `_set_best`), leaf its own
    leaf's entry."""
    cdef const DSpace* sp = &e.sp
    cdef SetBest two = leaf[0]
    cdef SetBest three = leaf[0]
    cdef SetBest four = leaf[0]
    cdef int32_t sub[2]
    cdef int cols[3]
    cdef int sides[3]
    _set_best_two(e, sets, &two, mlo)
    caps[0] = two.v
    memset(caps_tree, -1, _heap_size(2) * sizeof(int32_t))
    if two.col >= 0:
        caps_tree[0] = sp.col_start[two.col]
    caps_leaves[0] = two.leaves
    _set_best_three(e, sets, &three, sub, mlo)
    caps[1] = three.v
    _three_tree(sp, &three, sub, caps_tree + 7)
    caps_leaves[1] = three.leaves
    _set_best(e, sets, &four, cols, sides, 0, mlo)
    caps[2] = four.v
    memset(caps_tree + 14, -1, _heap_size(2) * sizeof(int32_t))
    _set_tree(sp, sets, cols, sides, 0, four.col, 2, 0, caps_tree + 14)
    caps_leaves[2] = four.leaves


cdef void _set_best_two(DEngine* e, SetBest* sets, SetBest* out, int mlo) noexcept nogil:
    """The best tree of depth one of the node (out: its leaf on entry) from the
    sets of one split's side: each column u in order, both its sides holding
    mlo rows or more, valued as its two sides' leaves; the first better by more
    than TOL (as `_depth._depth_one`)."""
    cdef const DSpace* sp = &e.sp
    cdef int u
    cdef SetBest* a
    cdef SetBest* b
    cdef double v
    for u in range(sp.p):
        if not _root_sides(sp, sets, u, mlo, &a, &b):
            continue
        v = a.leaf + b.leaf
        if v < out.v - TOL:
            out.v = v
            out.col = u
            out.leaves = 2


cdef void _three_tree(const DSpace* sp, const SetBest* three, const int32_t* sub,
                      int32_t* tree) noexcept nogil:
    """The heap-order tree of depth two of `_set_best_three`'s answer: its root
    column (-1: the leaf) and its sides' columns sub[0], sub[1] (-1: a leaf)."""
    memset(tree, -1, _heap_size(2) * sizeof(int32_t))
    if three.col < 0:
        return
    tree[0] = sp.col_start[three.col]
    tree[1] = sp.col_start[sub[0]] if sub[0] >= 0 else -1
    tree[2] = sp.col_start[sub[1]] if sub[1] >= 0 else -1


cdef double solve_sums(DEngine* e, DLevel* L, int d, const int32_t* ord, int m,
                        double B, int kc, bint* exact, double* caps, int32_t* caps_tree,
                        int* caps_leaves) noexcept nogil:
    """R(S, d) of a node solved from its sums (`by_sums`: squared error on binary
    columns, d = 2, 3 or 4, no leaf cap under 2^d leaves): one pass over its
    rows sums them over each column pair, and at depth three or four each
    triple, at depth four each quadruple (`_sum_rows`); every tree of depth d
    follows from those sums by subtraction (`_sets_best`), the canonical one.
    Exact; above B + TOL it is returned as the bound.  A stop in the pass
    returns INF, and the leaf otherwise; either way the node is not exact.
    At depth two with `caps` (else NULL) it also gives the node's answers at
    caps of two, three and four leaves, which the same sets value: their
    values in caps[0 .. 3), their trees (heap order of depth two, 7 entries
    each) in caps_tree and their leaves in caps_leaves (unset when
    stopped)."""
    cdef double own[3]
    cdef int32_t own_tree[21]
    cdef int own_leaves[3]
    cdef double tot[SLOT_MAX]
    cdef double best
    cdef bint stopped = False
    e.nodes += 1
    if d == 2 and _parent_pairs(e, L, ord, tot, &stopped):
        if stopped:
            exact[0] = False
            return INF
    elif not _sum_rows(e, L, ord, m, tot, L.triple if d >= 3 else NULL,
                       L.quad if d >= 4 else NULL):
        exact[0] = False
        return INF
    if caps == NULL:
        caps = own
        caps_tree = own_tree
        caps_leaves = own_leaves
    best = _sets_best(e, L, d, kc, tot, &stopped, caps, caps_tree, caps_leaves)
    exact[0] = not stopped and best <= B + TOL
    return best


cdef bint _parent_pairs(DEngine* e, DLevel* L, const int32_t* ord, double* tot,
                        bint* stopped) noexcept nogil:
    """A node of depth two that is a child of the split its parent of depth
    three is valuing (its rows that split's side in e.lv[3].child, as
    `_depth_columns._partition` left them): its pairs' sums in L.pair and its total in
    tot from the parent's pairs and triples (`_child_pairs`, `_side_sums`), in
    work of the order of p^2, instead of a pass over its rows.  The parent's
    sums are taken once for all its splits' children (one pass over its rows
    with the triples, `_sum_rows`).  False (nothing done) for any other node or
    without triples; stopped[0] set when the limits stopped that pass."""
    cdef DLevel* P
    cdef int s
    if not e.triples or e.max_depth < 3:
        return False
    P = &e.lv[3]
    if P.child == NULL or P.lazy_ord == NULL:
        return False
    if ord == P.child:
        s = 0
    elif ord == P.child + <int64_t> e.sp.p * P.lazy_t:
        s = 1
    else:
        return False
    if not P.tri_ready:
        if not _sum_rows(e, P, P.lazy_ord, P.lazy_m, P.ptot, P.triple, NULL):
            stopped[0] = True
            return True
        P.tri_ready = True
    _child_pairs(&e.sp, e.sums_right, P.pair, P.triple, P.tri_compact, P.lazy_u, s,
                 L.pair)
    _side_sums(&e.sp, e.sums_right, P.pair, P.ptot, P.lazy_u, s, tot)
    e.parent_sums += 1
    return True


cdef bint by_sums(const DEngine* e, int d, int kc) noexcept nogil:
    """Whether a node of depth d (the root among them) and leaf cap kc is solved
    from its column pairs' (d = 2), triples' (d = 3) or quadruples' (d = 4)
    sums (`solve_sums`): squared error or at most fifteen classes on binary
    columns (`DEngine.pairs`, `DEngine.triples`, `DEngine.quads`) and no cap
    under the 2^d leaves a tree of depth d can have, but for caps of two and
    three at depth two (`_depth._solve` takes a node of depth two at a cap of
    two here only through the store, `_solve_kept`; else to depth one).  Such
    a node takes one pass over its rows; the root too, on one thread
    (`DepthSearch.run`)."""
    return ((d == 2 and e.pairs and kc >= 2) or (d == 3 and e.triples and kc >= 8)
            or (d == 4 and e.quads and kc >= 16))
