# The depth-limited engine's store of searched subproblems under a leaf cap or
# without max_depth.
#
# A node below the root is fixed by its rows, its depth d and its leaf cap kc:
# R(X, d, kc) depends on nothing else (the data, lam and the rules are the
# search's), and an exact answer of `_depth._solve` is the canonical optimal
# tree whatever its budget and the order its splits were met in (`_takes`).
# Under a leaf cap the same (X, d, kc) is searched again and again: each
# allocation of a split's leaves searches its children at another cap, and two
# orders of the same splits reach the same rows.  The store keeps each exact
# answer (value and tree) and each bound proven above a budget, so that a repeat
# is answered at once: the exact answer itself (as a bound above the budget when
# its value is above it), or the bound when it is above the new budget.  An
# entry only ever says what a search of the same subproblem would prove, and an
# exact answer is the one it would find, so the trees, values and certificates
# do not depend on what the store holds (a full store only stops adding).
#
# A node's rows are its first column's order (`ord[0 .. m)`: by rank, then row
# index, as every column is kept), the same sequence for the same set however
# it was reached, so that sequence is the key.  One store an engine (each
# thread its own), freed with the search.
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memcmp, memset

from libc.stdint cimport uint32_t
from libc.math cimport INFINITY

from ._typedefs cimport int32_t, int64_t, uint64_t
from ._bounds cimport similar_node_bound
from ._rowpass cimport DSpace, row_worst


cdef struct MemoEntry:
    uint64_t hash       # 0: an empty slot
    int32_t m           # the node's rows
    int32_t d           # its depth
    int32_t kc          # its leaf cap
    int32_t leaves      # exact: its tree's leaves
    bint exact          # value is R(X, d, kc) (tree its canonical tree), else a
    double value        # lower bound proven on it
    int32_t* rows       # the m rows, first column's order (owned, unless
    bint shares_rows    # shares_rows: another entry's of the same rows)
    int32_t* tree       # exact: the tree, heap order of depth d (owned; else NULL)


# The nodes searched last at each depth left and leaf cap (RULE_SIMILAR,
# `memo_similar_bound`): a node is bounded by any node of the same depth and
# cap whose rows are nearly its own (`similar_node_bound`), and the nodes met
# one after another are the likeliest such: a split's children at the
# neighbouring thresholds of other columns, the same side below two orders of
# splits.  A ring a (depth, cap), of the latest SIM_MOST nodes at most (fewer
# where the rows are many: SIM_ROWS rows read at most a node), each its rows
# (the store's own copy, shared), its value or bound and its class sums (the
# engine runs the rule in classification only).
cdef enum:
    SIM_DEPTHS = 16     # depths left with a ring (0 .. 15)
    SIM_CAPS = 33       # caps with a ring (0 .. 32)
    SIM_MOST = 512      # entries a ring holds at most
    SIM_ROWS = 1 << 18  # ... and at most this many rows over all of them


cdef struct SimRing:
    const int32_t** rows  # size: each node's rows (the store's copy), first
    int32_t* m            # column's order; its row count
    double* value         # size: its value, or a lower bound proven on it
    double* sums          # size x n_sums: its class sums
    int size              # entries (0: not allocated yet)
    int used              # entries held
    int next              # the entry the next node takes


cdef struct DMemo:
    MemoEntry* slots    # capacity slots, open addressing, linear probing
    int64_t capacity    # a power of two
    int64_t count       # slots in use (at most half the capacity)
    int64_t bytes       # bytes held (slots and every entry's arrays)
    int64_t max_bytes   # past this, nothing is added
    int64_t hits        # subproblems answered from the store
    int64_t larger_cap_hits  # ... of them, by a bound at a larger cap
                             # (RULE_LARGER_CAP, `memo_larger_cap`)
    SimRing* rings      # SIM_DEPTHS x SIM_CAPS (NULL until the first is used)
    uint32_t* mark      # n: each row's stamp, the node whose rows are marked
    uint32_t stamp      # (`memo_similar_bound`)
    int64_t similar_hits     # nodes answered by `similar_node_bound`


cdef inline DMemo* memo_new(int64_t max_bytes) noexcept nogil:
    """An empty store of at most max_bytes (NULL when even its table does not
    fit: the search then runs without one)."""
    cdef DMemo* M
    cdef int64_t cap = 1024
    if max_bytes < cap * <int64_t> sizeof(MemoEntry) * 4:
        return NULL
    M = <DMemo*> calloc(1, sizeof(DMemo))
    if M == NULL:
        return NULL
    M.slots = <MemoEntry*> calloc(cap, sizeof(MemoEntry))
    if M.slots == NULL:
        free(M)
        return NULL
    M.capacity = cap
    M.bytes = cap * sizeof(MemoEntry)
    M.max_bytes = max_bytes
    return M


cdef inline void _ring_free(SimRing* r) noexcept nogil:
    """Free a ring's arrays (NULL where not made) and leave it unmade."""
    free(r.rows)
    free(r.m)
    free(r.value)
    free(r.sums)
    r.rows = NULL
    r.m = NULL
    r.value = NULL
    r.sums = NULL
    r.size = 0


cdef inline void memo_free(DMemo* M) noexcept nogil:
    cdef int64_t i
    if M == NULL:
        return
    if M.rings != NULL:
        for i in range(SIM_DEPTHS * SIM_CAPS):
            _ring_free(&M.rings[i])
        free(M.rings)
    free(M.mark)
    for i in range(M.capacity):
        if M.slots[i].hash != 0:
            if not M.slots[i].shares_rows:
                free(M.slots[i].rows)
            free(M.slots[i].tree)
    free(M.slots)
    free(M)


cdef inline uint64_t memo_hash(const int32_t* rows, int m, int d) noexcept nogil:
    """FNV-1a over the rows and the depth (never 0: 0 marks an empty slot).  The
    cap is left out, so that the entries of one node at every cap share a hash
    and lie on one probe run (`memo_larger_cap`)."""
    cdef uint64_t h = 1469598103934665603ULL
    cdef int i
    for i in range(m):
        h = (h ^ <uint64_t> <uint32_t> rows[i]) * 1099511628211ULL
    h = (h ^ <uint64_t> d) * 1099511628211ULL
    return h if h != 0 else 1


cdef inline MemoEntry* memo_find(DMemo* M, uint64_t h, const int32_t* rows, int m, int d,
                                 int kc) noexcept nogil:
    """The entry of (rows, d, kc), or the empty slot where it would go."""
    cdef int64_t mask = M.capacity - 1
    cdef int64_t i = <int64_t> (h & <uint64_t> mask)
    cdef MemoEntry* x
    while True:
        x = &M.slots[i]
        if x.hash == 0:
            return x
        if (x.hash == h and x.m == m and x.d == d and x.kc == kc
                and memcmp(x.rows, rows, m * sizeof(int32_t)) == 0):
            return x
        i = (i + 1) & mask


cdef inline double memo_larger_cap(DMemo* M, uint64_t h, const int32_t* rows, int m, int d,
                                   int kc) noexcept nogil:
    """The greatest value (exact or a bound) the store holds for (rows, d) at a
    cap above kc, -INFINITY for none.  Every entry of (rows, d) has the hash h
    and sits on the probe run from h's slot to the first empty slot (linear
    probing, no deletions), so one walk of that run finds them all."""
    cdef int64_t mask = M.capacity - 1
    cdef int64_t i = <int64_t> (h & <uint64_t> mask)
    cdef MemoEntry* x
    cdef double v = -INFINITY
    while True:
        x = &M.slots[i]
        if x.hash == 0:
            return v
        if (x.hash == h and x.kc > kc and x.value > v and x.m == m and x.d == d
                and memcmp(x.rows, rows, m * sizeof(int32_t)) == 0):
            v = x.value
        i = (i + 1) & mask


cdef inline bint _memo_grow(DMemo* M) noexcept nogil:
    """Double the table (its entries moved, their arrays kept); False when that
    would pass max_bytes or memory is short."""
    cdef int64_t cap = M.capacity * 2, i, j, mask = cap - 1
    cdef MemoEntry* slots
    if M.bytes + cap * <int64_t> sizeof(MemoEntry) > M.max_bytes:
        return False
    slots = <MemoEntry*> calloc(cap, sizeof(MemoEntry))
    if slots == NULL:
        return False
    for i in range(M.capacity):
        if M.slots[i].hash != 0:
            j = <int64_t> (M.slots[i].hash & <uint64_t> mask)
            while slots[j].hash != 0:
                j = (j + 1) & mask
            slots[j] = M.slots[i]
    free(M.slots)
    M.bytes += (cap - M.capacity) * <int64_t> sizeof(MemoEntry)
    M.slots = slots
    M.capacity = cap
    return True


cdef inline const int32_t* memo_put(DMemo* M, uint64_t h, const int32_t* rows, int m, int d,
                                    int kc, bint exact, double value, const int32_t* tree,
                                    int tree_size, int leaves,
                                    const int32_t* held_rows) noexcept nogil:
    """Record what a search of (rows, d, kc) proved: its exact answer (value,
    tree of tree_size entries, leaves), or a lower bound (kept where it is
    above the bound held and the entry is not exact).  held_rows (else NULL):
    the store's own copy of the same rows, which a new entry then shares.  The
    store's copy of the rows when the entry holds them now, else NULL."""
    cdef MemoEntry* x = memo_find(M, h, rows, m, d, kc)
    cdef int64_t need
    if x.hash != 0:
        if x.exact:
            return x.rows
        if not exact:
            if value > x.value:
                x.value = value
            return x.rows
        if M.bytes + tree_size * <int64_t> sizeof(int32_t) > M.max_bytes:
            return x.rows
        x.tree = <int32_t*> malloc(tree_size * sizeof(int32_t))
        if x.tree == NULL:
            return x.rows
        memcpy(x.tree, tree, tree_size * sizeof(int32_t))
        M.bytes += tree_size * sizeof(int32_t)
        x.exact = True
        x.value = value
        x.leaves = leaves
        return x.rows
    need = ((0 if held_rows != NULL else m) + (tree_size if exact else 0)) * <int64_t> sizeof(int32_t)
    if M.bytes + need > M.max_bytes:
        return NULL
    if 2 * (M.count + 1) > M.capacity:
        if not _memo_grow(M):
            return NULL
        x = memo_find(M, h, rows, m, d, kc)
    x.shares_rows = held_rows != NULL
    x.rows = <int32_t*> held_rows if held_rows != NULL else <int32_t*> malloc(m * sizeof(int32_t))
    x.tree = <int32_t*> malloc(tree_size * sizeof(int32_t)) if exact else NULL
    if x.rows == NULL or (exact and x.tree == NULL):
        if not x.shares_rows:
            free(x.rows)
        free(x.tree)
        x.rows = NULL
        x.tree = NULL
        x.shares_rows = False
        return NULL
    if not x.shares_rows:
        memcpy(x.rows, rows, m * sizeof(int32_t))
    if exact:
        memcpy(x.tree, tree, tree_size * sizeof(int32_t))
    x.hash = h
    x.m = m
    x.d = d
    x.kc = kc
    x.exact = exact
    x.value = value
    x.leaves = leaves
    M.count += 1
    M.bytes += need
    return x.rows


cdef inline SimRing* memo_ring(DMemo* M, int d, int kc, int n, int n_sums) noexcept nogil:
    """The ring of the nodes of depth d and cap kc searched last (`SimRing`), its
    arrays made on first use for n rows and n_sums class sums a node, within
    the store's bytes; NULL out of range or of room (the rule then reads
    nothing)."""
    cdef SimRing* r
    cdef int size
    cdef int64_t need
    if d >= SIM_DEPTHS or kc >= SIM_CAPS or n <= 0:
        return NULL
    if M.rings == NULL:
        need = SIM_DEPTHS * SIM_CAPS * <int64_t> sizeof(SimRing) + n * <int64_t> sizeof(uint32_t)
        if M.bytes + need > M.max_bytes:
            return NULL
        M.rings = <SimRing*> calloc(SIM_DEPTHS * SIM_CAPS, sizeof(SimRing))
        M.mark = <uint32_t*> calloc(n, sizeof(uint32_t))
        if M.rings == NULL or M.mark == NULL:
            free(M.rings)
            free(M.mark)
            M.rings = NULL
            M.mark = NULL
            return NULL
        M.bytes += need
    r = &M.rings[d * SIM_CAPS + kc]
    if r.size == 0:
        size = SIM_ROWS // n
        size = SIM_MOST if size > SIM_MOST else (1 if size < 1 else size)
        need = size * <int64_t> (sizeof(int32_t*) + sizeof(int32_t) + sizeof(double)
                                 * (1 + n_sums))
        if M.bytes + need > M.max_bytes:
            return NULL
        r.rows = <const int32_t**> calloc(size, sizeof(int32_t*))
        r.m = <int32_t*> calloc(size, sizeof(int32_t))
        r.value = <double*> calloc(size, sizeof(double))
        r.sums = <double*> calloc(size * n_sums + 1, sizeof(double))
        if r.rows == NULL or r.m == NULL or r.value == NULL or r.sums == NULL:
            _ring_free(r)
            return NULL
        r.size = size
        M.bytes += need
    return r


cdef inline void memo_ring_put(SimRing* r, const int32_t* rows, int m, double value,
                               const double* sums, int n_sums) noexcept nogil:
    """Hold a node searched (its rows the store's copy, which lives as long as
    the store) in its ring, in place of the oldest when the ring is full."""
    cdef int q = r.next, k
    r.rows[q] = rows
    r.m[q] = m
    r.value[q] = value
    for k in range(n_sums):
        r.sums[q * n_sums + k] = sums[k]
    r.next = q + 1 if q + 1 < r.size else 0
    if r.used < r.size:
        r.used += 1


cdef inline double memo_similar_bound(DMemo* M, const SimRing* ring, const DSpace* sp,
                                      const int32_t* ord, int m, const double* cnt,
                                      double level) noexcept nogil:
    """The greatest `similar_node_bound` above `level` that the nodes held in
    `ring` give a node of rows ord[0 .. m) and class sums cnt (the rows and
    costs of sp); -INFINITY where none is above it.  A node held is passed over
    without reading its rows where its value is not above the level already
    reached, or where the rows it must lose by its class sums alone (at least
    its sum of a class less the node's) already bring it there; else its rows
    not in the node are summed at their worst cost (`row_worst`) until they
    do."""
    cdef uint32_t stamp = 0
    cdef int q, i, k
    cdef double best = -INFINITY, lose, v
    cdef const double* s
    cdef const int32_t* rows
    cdef int32_t r
    cdef bint marked = False
    for q in range(ring.used):
        v = ring.value[q]
        if not v > level:
            continue
        s = ring.sums + q * sp.K
        lose = 0.0
        for k in range(sp.K):
            if s[k] > cnt[k]:
                lose += (s[k] - cnt[k]) * sp.maxcost[k]
        if not v - lose > level:
            continue
        if not marked:
            # the node's rows marked, once it is read against a node held
            M.stamp += 1
            if M.stamp == 0:
                # the stamps wrapped: clear the marks
                memset(M.mark, 0, sp.n * sizeof(uint32_t))
                M.stamp = 1
            stamp = M.stamp
            for i in range(m):
                M.mark[ord[i]] = stamp
            marked = True
        rows = ring.rows[q]
        lose = 0.0
        for i in range(ring.m[q]):
            r = rows[i]
            if M.mark[r] != stamp:
                lose += row_worst(sp, sp.y[r], sp.w[r] if sp.w != NULL else 1.0)
                if not v - lose > level:
                    break
        v = similar_node_bound(v, lose)
        if v > level:
            level = v
            best = v
    return best
