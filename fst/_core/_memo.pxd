# The memo store: subproblem key (row bitset, depth left) -> node record.
#
# Nodes live in one growable array and are referred to by id, never by pointer
# across an insert (an insert may move the array).  A node's key is held one of
# two ways: whole, in a word pool of `nwords` words per key (key_split < 0,
# key_ref = the key's index in the pool); or as a path, its parent's rows and one
# side of one split (key_split = 2 * split + side, side 1 = the rows not in the
# split; key_ref = the parent's id), rebuilt by `memo_key` when needed.  Most
# stored nodes are children valued by the pair stage and never searched, so a
# path of 12 bytes replaces a key of nwords words.  The hash table is open
# addressing with linear probing over node ids; a lookup compares the whole key
# word for word, so a hash collision can never alias two subproblems.
from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdint cimport uint32_t, int16_t

cdef struct Node:
    double lb           # proven lower bound on R(X, depth left), admissible
    double ub           # objective of a real tree: rebuilt by following best_split
    double leaf         # objective of the best single leaf: loss(X)/n + lambda
    double pot          # potential: most that relabelling X can change the loss
    double g2           # pair stage: exact best two-leaf value (inf: none separates)
    double g3           # pair stage: lower bound on every three-leaf tree
    uint64_t hash       # hash of (key, depth)
    int32_t count       # number of rows in X (the search takes fewer than 2^31 rows)
    int32_t best_split  # root split of the tree achieving ub; -1 for a leaf;
                        # SPLIT_ELSEWHERE: in another thread's store
    int32_t key_split   # < 0: key whole in the pool; else 2 * split + side of a path
    int32_t key_ref     # the key's index in the pool, or the path's parent id
    float floor         # m(X), the equivalent-points floor of the loss, rounded down
                        # to float32 (a smaller floor is still a floor); 0 when unused
    int16_t depth       # depth left; -1 means unlimited (at most MAX_DEPTH_LEFT)
    uint8_t solved      # 1 when lb == ub is proven (R(X) is known exactly)
    uint8_t pair_done   # 1 once the pair stage has valued this node's small trees
                        # (80 bytes in all)

cdef struct Slot:
    uint32_t tag        # high half of the key's hash (the low bits chose the slot),
                        # compared before the record and the key
    int32_t id          # node id, -1 when empty (so at most 2^31 - 1 nodes)

cdef struct Memo:
    Node* nodes         # node records, n_nodes used of cap_nodes
    word_t* keys        # whole keys, nwords words each, n_keys used of cap_keys
    Slot* table         # open-addressing slots: hash and node id (-1 empty)
    int64_t n_nodes     # nodes stored
    int64_t cap_nodes   # allocated node records
    int64_t table_size  # slots in table, a power of two
    int nwords          # words per key
    int64_t memory_limit  # bytes of the process a growth may not pass (<= 0: none)
    int table_frozen    # the table may not grow any more (memory limit near)
    int touch           # write new capacity at once (`memo_touch`)
    int64_t n_keys      # whole keys stored
    int64_t cap_keys    # allocated whole keys
    const word_t* split_bits  # rows of each split, for path keys (NULL: none used)
    word_t* scratch     # nwords words: where memo_key rebuilds a path key

# The largest depth left a node record holds (int16_t); deeper limits are refused
# by the callers (a search or a DPDT fit), never truncated into a wrong key.
cdef enum:
    MAX_DEPTH_LEFT = 32766

# `best_split` of a node whose incumbent is a tree another thread's store holds
# for the same rows and depth (a parallel search, `_bounds.adopt_shared_tree`):
# extraction reads it there.
cdef enum:
    SPLIT_ELSEWHERE = -3

cdef int memo_init(Memo* m, int nwords, int64_t capacity) noexcept nogil
cdef void memo_free(Memo* m) noexcept nogil
cdef node_t memo_find(Memo* m, const word_t* key, int depth, uint64_t h) noexcept nogil
cdef node_t memo_insert(Memo* m, const word_t* key, int depth, uint64_t h) noexcept nogil
cdef node_t memo_insert_path(Memo* m, node_t parent, int32_t split, int side, int depth,
                             uint64_t h) noexcept nogil
cdef const word_t* memo_key(Memo* m, node_t nid) noexcept nogil
cdef bint memo_key_is(Memo* m, node_t nid, const word_t* X, const word_t* S,
                      bint right) noexcept nogil
cdef int memo_make_whole(Memo* m, node_t nid) noexcept nogil
cdef int64_t memo_bytes(const Memo* m) noexcept nogil
cdef void memo_touch(Memo* m) noexcept nogil

# glibc's largest mmap threshold on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX): a block
# below it may live in the heap, where realloc moves it by copying.
cdef enum:
    REALLOC_COPY_MAX = 33554432


cdef inline int64_t growth_cost(int64_t old_bytes, int64_t extra) noexcept nogil:
    """Resident bytes that growing a malloc'ed block of `old_bytes` by `extra` can
    add to the process: a heap block is moved by copying into fresh pages (the
    old ones stay with the allocator), so its whole new size; a block above the
    largest mmap threshold is remapped in place, so the growth alone."""
    return extra + (old_bytes if old_bytes < REALLOC_COPY_MAX else 0)


cdef inline uint32_t slot_tag(uint64_t h) noexcept nogil:
    return <uint32_t> (h >> 32)
