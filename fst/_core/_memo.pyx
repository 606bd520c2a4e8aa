"""The memo store of the certified search.

# Notes:
# - Open addressing with linear probing; load factor kept at or below 1/2.
# - Growth doubles the node array, the key pool and the table independently, so a
#   store created with 4 slots behaves exactly like a large one (tested).
# - Path keys (see _memo.pxd): a path's parent is never removed and its rows never
#   change, so a path names one row set for good.  Chains are short (the search
#   makes a node whole before it expands it), and since the rows of a chain are the
#   AND of its sides, `memo_key` applies them in any order.
# - Allocation failure returns -1 to the caller, which stops the search as a memory
#   stop (the best tree found is still returned); nothing here raises.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint64_t

cdef extern from "_platform.h":
    long long fst_process_rss() noexcept nogil


cdef bint _growth_allowed(Memo* m, int64_t extra) noexcept nogil:
    """A growth of `extra` bytes must not take the process past the memory limit."""
    cdef long long rss
    if m.memory_limit <= 0:
        return True
    rss = fst_process_rss()
    if rss < 0:
        rss = memo_bytes(m)
    return rss + extra <= m.memory_limit


cdef int memo_init(Memo* m, int nwords, int64_t capacity) noexcept nogil:
    """Allocate a store for `capacity` nodes; returns -1 if out of memory."""
    cdef int64_t ts = 8
    if capacity < 1:
        capacity = 1
    while ts < 2 * capacity:
        ts *= 2
    m.nwords = nwords
    m.memory_limit = 0
    m.table_frozen = 0
    m.touch = 0
    m.n_nodes = 0
    m.cap_nodes = capacity
    m.n_keys = 0
    m.cap_keys = capacity
    m.split_bits = NULL
    m.table_size = ts
    m.nodes = <Node*> malloc(capacity * sizeof(Node))
    m.keys = <word_t*> malloc(capacity * nwords * sizeof(word_t))
    m.table = <Slot*> malloc(ts * sizeof(Slot))
    m.scratch = <word_t*> malloc(nwords * sizeof(word_t) + 8)
    if m.nodes == NULL or m.keys == NULL or m.table == NULL or m.scratch == NULL:
        memo_free(m)
        return -1
    memset(m.table, 0xFF, ts * sizeof(Slot))  # every id -1
    return 0


cdef void memo_free(Memo* m) noexcept nogil:
    free(m.nodes)
    free(m.keys)
    free(m.table)
    free(m.scratch)
    m.nodes = NULL
    m.keys = NULL
    m.table = NULL
    m.scratch = NULL
    m.n_nodes = 0
    m.cap_nodes = 0
    m.n_keys = 0
    m.cap_keys = 0


cdef void memo_touch(Memo* m) noexcept nogil:
    """From now on write every array's capacity when it is allocated, this one's
    now: its pages are then resident at once, so the process's resident size,
    which growth is checked against (`_growth_allowed`), already counts the
    capacity not yet used (otherwise it would become resident later, unseen by
    any check, and could take the process past the limit)."""
    m.touch = 1
    memset(m.nodes, 0, m.cap_nodes * sizeof(Node))
    memset(m.keys, 0, m.cap_keys * m.nwords * sizeof(word_t))


cdef int64_t memo_bytes(const Memo* m) noexcept nogil:
    return (m.cap_nodes * <int64_t> sizeof(Node)
            + m.cap_keys * m.nwords * <int64_t> sizeof(word_t)
            + m.table_size * <int64_t> sizeof(Slot))


cdef const word_t* memo_key(Memo* m, node_t nid) noexcept nogil:
    """The rows of node nid: in the pool when whole, else rebuilt into m.scratch
    (valid until the next call of memo_key, memo_key_is or memo_find: copy it
    before passing it to them) as the AND of its path's sides and the first whole
    ancestor's key."""
    cdef int nw = m.nwords
    cdef int w, s
    cdef const word_t* S
    cdef word_t* out = m.scratch
    cdef const Node* nd = &m.nodes[nid]
    if nd.key_split < 0:
        return m.keys + <int64_t> nd.key_ref * nw
    for w in range(nw):
        out[w] = ~(<word_t> 0)
    while nd.key_split >= 0:
        s = nd.key_split >> 1
        S = m.split_bits + <int64_t> s * nw
        if nd.key_split & 1:
            for w in range(nw):
                out[w] &= ~S[w]
        else:
            for w in range(nw):
                out[w] &= S[w]
        nd = &m.nodes[nd.key_ref]
    S = m.keys + <int64_t> nd.key_ref * nw
    for w in range(nw):
        out[w] &= S[w]
    return out


cdef inline word_t _side(const word_t* S, int key_split, int w) noexcept nogil:
    return ~S[w] if key_split & 1 else S[w]


cdef bint memo_key_is(Memo* m, node_t nid, const word_t* X, const word_t* S,
                      bint right) noexcept nogil:
    """Whether node nid's rows are X & S (X & ~S when `right`; X alone when S is
    NULL), compared word for word in one pass when the node's key is whole or a
    path of at most two steps (the usual case), else through `memo_key`."""
    cdef int nw = m.nwords
    cdef int w
    cdef const Node* nd = &m.nodes[nid]
    cdef const Node* p1
    cdef const word_t* K
    cdef const word_t* A
    cdef const word_t* B
    cdef word_t t
    cdef int ka, kb
    if nd.key_split >= 0:
        p1 = &m.nodes[nd.key_ref]
        if p1.key_split < 0 or m.nodes[p1.key_ref].key_split < 0:
            ka = nd.key_split
            A = m.split_bits + <int64_t> (ka >> 1) * nw
            if p1.key_split < 0:
                kb = -1
                B = NULL
                K = m.keys + <int64_t> p1.key_ref * nw
            else:
                kb = p1.key_split
                B = m.split_bits + <int64_t> (kb >> 1) * nw
                K = m.keys + <int64_t> m.nodes[p1.key_ref].key_ref * nw
            for w in range(nw):
                t = X[w]
                if S != NULL:
                    t = t & (~S[w] if right else S[w])
                if B != NULL:
                    if (K[w] & _side(A, ka, w) & _side(B, kb, w)) != t:
                        return False
                elif (K[w] & _side(A, ka, w)) != t:
                    return False
            return True
    K = memo_key(m, nid)
    for w in range(nw):
        t = X[w]
        if S != NULL:
            t = t & (~S[w] if right else S[w])
        if K[w] != t:
            return False
    return True


cdef int64_t _growth_step(Memo* m, int64_t cap, int64_t per_item) noexcept nogil:
    """How many items an array of `cap` items of `per_item` bytes grows by: double;
    near the memory limit, what still fits, down to 1/16; 0 if not even that."""
    cdef int64_t step = cap
    while step > 0 and not _growth_allowed(m, growth_cost(cap * per_item, step * per_item)):
        step = step // 2 if step > cap // 16 else 0
    return step


cdef int _reserve_key(Memo* m) noexcept nogil:
    """Room for one more whole key.  Returns -1 if out of memory."""
    cdef int64_t step, cap
    cdef int64_t per_key = m.nwords * <int64_t> sizeof(word_t)
    cdef word_t* nk
    if m.n_keys < m.cap_keys:
        return 0
    step = _growth_step(m, m.cap_keys, per_key)
    if step == 0:
        return -1
    cap = m.cap_keys + step
    nk = <word_t*> realloc(m.keys, cap * per_key)
    if nk == NULL:
        return -1
    if m.touch:
        memset(nk + m.cap_keys * m.nwords, 0, step * per_key)
    m.keys = nk
    m.cap_keys = cap
    return 0


cdef int memo_make_whole(Memo* m, node_t nid) noexcept nogil:
    """Give node nid a whole key (a no-op when it has one), so that its children's
    paths end at it.  Returns -1 if out of memory (the node keeps its path)."""
    cdef const word_t* key
    if m.nodes[nid].key_split < 0:
        return 0
    if _reserve_key(m) != 0:
        return -1
    key = memo_key(m, nid)
    memcpy(m.keys + m.n_keys * m.nwords, key, m.nwords * sizeof(word_t))
    m.nodes[nid].key_ref = <int32_t> m.n_keys
    m.nodes[nid].key_split = -1
    m.n_keys += 1
    return 0


cdef node_t memo_find(Memo* m, const word_t* key, int depth, uint64_t h) noexcept nogil:
    cdef uint64_t mask = <uint64_t> (m.table_size - 1)
    cdef uint64_t slot = h & mask
    cdef node_t nid
    while True:
        nid = m.table[slot].id
        if nid < 0:
            return -1
        if (m.table[slot].tag == slot_tag(h) and m.nodes[nid].hash == h
                and m.nodes[nid].depth == depth and memo_key_is(m, nid, key, NULL, False)):
            return nid
        slot = (slot + 1) & mask


cdef int _grow_table(Memo* m) noexcept nogil:
    cdef int64_t ts = m.table_size * 2
    cdef Slot* t = <Slot*> malloc(ts * sizeof(Slot))
    cdef uint64_t mask = <uint64_t> (ts - 1)
    cdef uint64_t slot
    cdef node_t i
    if t == NULL:
        return -1
    memset(t, 0xFF, ts * sizeof(Slot))
    for i in range(m.n_nodes):
        slot = m.nodes[i].hash & mask
        while t[slot].id >= 0:
            slot = (slot + 1) & mask
        t[slot].id = <int32_t> i
        t[slot].tag = slot_tag(m.nodes[i].hash)
    free(m.table)
    m.table = t
    m.table_size = ts
    return 0


cdef node_t _new_node(Memo* m, int depth, uint64_t h) noexcept nogil:
    """Room for one more node and its slot: returns the new id (hash and depth set,
    the key and the rest for the caller), or -1 if out of memory."""
    cdef int64_t cap, step
    cdef Node* nn
    cdef uint64_t mask, slot
    cdef node_t nid
    if m.n_nodes >= 2147483647:
        return -1           # a slot holds a 32-bit id
    if m.n_nodes == m.cap_nodes:
        step = _growth_step(m, m.cap_nodes, <int64_t> sizeof(Node))
        if step == 0:
            return -1
        cap = m.cap_nodes + step
        nn = <Node*> realloc(m.nodes, cap * sizeof(Node))
        if nn == NULL:
            return -1
        if m.touch:
            memset(nn + m.cap_nodes, 0, step * sizeof(Node))
        m.nodes = nn
        m.cap_nodes = cap
    if 2 * (m.n_nodes + 1) > m.table_size:
        # Keep the load at most 1/2; near the memory limit accept up to 7/8.
        if not m.table_frozen and _growth_allowed(m, 2 * m.table_size * <int64_t> sizeof(Slot)):
            if _grow_table(m) != 0:
                return -1
        else:
            m.table_frozen = 1  # do not ask the system again at every insert
            if 8 * (m.n_nodes + 1) > 7 * m.table_size:
                return -1
    nid = m.n_nodes
    m.nodes[nid].hash = h
    m.nodes[nid].depth = depth
    mask = <uint64_t> (m.table_size - 1)
    slot = h & mask
    while m.table[slot].id >= 0:
        slot = (slot + 1) & mask
    m.table[slot].id = <int32_t> nid
    m.table[slot].tag = slot_tag(h)
    m.n_nodes += 1
    return nid


cdef node_t memo_insert(Memo* m, const word_t* key, int depth, uint64_t h) noexcept nogil:
    """Store a new key (known to be absent), whole; returns its id, or -1 if out of
    memory.  The record's fields other than hash, depth and the key's are left for
    the caller to set."""
    cdef node_t nid
    if _reserve_key(m) != 0:
        return -1
    nid = _new_node(m, depth, h)
    if nid < 0:
        return -1
    memcpy(m.keys + m.n_keys * m.nwords, key, m.nwords * sizeof(word_t))
    m.nodes[nid].key_split = -1
    m.nodes[nid].key_ref = <int32_t> m.n_keys
    m.n_keys += 1
    return nid


cdef node_t memo_insert_path(Memo* m, node_t parent, int32_t split, int side, int depth,
                             uint64_t h) noexcept nogil:
    """Store a new key (known to be absent) as a path: the rows of node `parent` on
    one side of `split` (side 1: not in the split).  Needs m.split_bits.  Returns
    its id, or -1 if out of memory; the other fields are the caller's to set."""
    cdef node_t nid = _new_node(m, depth, h)
    if nid < 0:
        return -1
    m.nodes[nid].key_split = 2 * split + (1 if side else 0)
    m.nodes[nid].key_ref = <int32_t> parent
    return nid
