"""The memo store of the certified search.

# Notes:
# - Open addressing with linear probing; load factor kept at or below 1/2.
# - Growth doubles the node array, the key pool and the table independently, so a
#   store created with 4 slots behaves exactly like a large one (tested).
# - Allocation failure returns -1 to the caller, which stops the search as a memory
#   stop (the best tree found is still returned); nothing here raises.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcmp, memcpy, memset

from ._typedefs cimport word_t, node_t, int64_t, uint64_t

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
    m.n_nodes = 0
    m.cap_nodes = capacity
    m.table_size = ts
    m.nodes = <Node*> malloc(capacity * sizeof(Node))
    m.keys = <word_t*> malloc(capacity * nwords * sizeof(word_t))
    m.table = <Slot*> malloc(ts * sizeof(Slot))
    if m.nodes == NULL or m.keys == NULL or m.table == NULL:
        memo_free(m)
        return -1
    memset(m.table, 0xFF, ts * sizeof(Slot))  # every id -1
    return 0


cdef void memo_free(Memo* m) noexcept nogil:
    free(m.nodes)
    free(m.keys)
    free(m.table)
    m.nodes = NULL
    m.keys = NULL
    m.table = NULL
    m.n_nodes = 0
    m.cap_nodes = 0


cdef int64_t memo_bytes(const Memo* m) noexcept nogil:
    return (m.cap_nodes * (<int64_t> sizeof(Node) + m.nwords * <int64_t> sizeof(word_t))
            + m.table_size * <int64_t> sizeof(Slot))


cdef node_t memo_find(Memo* m, const word_t* key, int depth, uint64_t h) noexcept nogil:
    cdef uint64_t mask = <uint64_t> (m.table_size - 1)
    cdef uint64_t slot = h & mask
    cdef node_t nid
    cdef size_t kbytes = m.nwords * sizeof(word_t)
    while True:
        nid = m.table[slot].id
        if nid < 0:
            return -1
        if (m.table[slot].hash == h and m.nodes[nid].depth == depth
                and memcmp(m.keys + nid * m.nwords, key, kbytes) == 0):
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
        t[slot].id = i
        t[slot].hash = m.nodes[i].hash
    free(m.table)
    m.table = t
    m.table_size = ts
    return 0


cdef node_t memo_insert(Memo* m, const word_t* key, int depth, uint64_t h) noexcept nogil:
    """Store a new key (known to be absent); returns its id, or -1 if out of memory.

    The record's fields other than hash and depth are left for the caller to set.
    """
    cdef int64_t cap, step, per_node
    cdef Node* nn
    cdef word_t* nk
    cdef uint64_t mask, slot
    cdef node_t nid
    if m.n_nodes == m.cap_nodes:
        # Double; near the memory limit, grow by what still fits (down to 1/16).
        per_node = <int64_t> sizeof(Node) + m.nwords * <int64_t> sizeof(word_t)
        step = m.cap_nodes
        while step > 0 and not _growth_allowed(m, step * per_node):
            step = step // 2 if step > m.cap_nodes // 16 else 0
        if step == 0:
            return -1
        cap = m.cap_nodes + step
        nn = <Node*> realloc(m.nodes, cap * sizeof(Node))
        if nn == NULL:
            return -1
        m.nodes = nn
        nk = <word_t*> realloc(m.keys, cap * m.nwords * sizeof(word_t))
        if nk == NULL:
            return -1
        m.keys = nk
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
    memcpy(m.keys + nid * m.nwords, key, m.nwords * sizeof(word_t))
    m.nodes[nid].hash = h
    m.nodes[nid].depth = depth
    mask = <uint64_t> (m.table_size - 1)
    slot = h & mask
    while m.table[slot].id >= 0:
        slot = (slot + 1) & mask
    m.table[slot].id = nid
    m.table[slot].hash = h
    m.n_nodes += 1
    return nid
