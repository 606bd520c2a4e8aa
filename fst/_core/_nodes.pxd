# Node creation and the memo glue of the search: a node's class counts and
# creation record, its children's records from one pass over the words, finding a
# child in the store without building its rows, storing children and their small
# trees, and the valid splits of a node.
from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint64_t
from ._memo cimport Node, Memo, Slot, slot_tag
from ._context cimport Ctx, Cand

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define fst_prefetch(p) __builtin_prefetch((const void*)(p))
    #else
    #define fst_prefetch(p) ((void)0)
    #endif
    """
    void fst_prefetch(const void* p) noexcept nogil

cdef void class_counts(Ctx* c, const word_t* X, int64_t total, double* out) noexcept nogil
cdef int64_t marked_rows(Ctx* c, const word_t* X) noexcept nogil
cdef node_t node_get(Ctx* c, const word_t* X, int depth, node_t parent, int32_t s,
                     int side) noexcept nogil
cdef void node_fill(Ctx* c, Node* nd, const word_t* X, int depth) noexcept nogil
cdef int64_t scan_counts(Ctx* c, const word_t* X, int64_t eX, const word_t* S,
                         const double* cnt, double* cntL, double* cntR, uint64_t* hash_l,
                         double* ex_l, double* ex_r) noexcept nogil
cdef void fill_sides(Ctx* c, uint64_t hX, uint64_t hl, double exl, double exr,
                     const double* cntL, const double* cntR, int64_t nl, int64_t total,
                     int depth, Node* L, Node* R) noexcept nogil
cdef node_t find_child(Ctx* c, node_t xid, const word_t* X, int32_t s, bint right,
                       const Node* rec) noexcept nogil
cdef int store_children(Ctx* c, node_t xid, const word_t* X, Cand* cd) noexcept nogil
cdef int install_two_leaf(Ctx* c, node_t child, const word_t* rows, int32_t s,
                          double value, word_t* T) noexcept nogil
cdef int gather_valid(Ctx* c, const word_t* X, int64_t total, const double* cnt,
                      int child_depth, const int32_t* cand, int ncand, int32_t* valid,
                      Cand* cands, bint* one_column) noexcept nogil


cdef inline node_t node_get_whole(Ctx* c, const word_t* X, int depth) noexcept nogil:
    """`node_get` of a row set whose key, if it is new, is stored whole."""
    return node_get(c, X, depth, -1, 0, 0)


cdef inline void prefetch_slots(Memo* m, const Cand* cd) noexcept nogil:
    """Prefetch the home slots of a candidate's two children."""
    fst_prefetch(&m.table[cd.tl.hash & <uint64_t> (m.table_size - 1)])
    fst_prefetch(&m.table[cd.tr.hash & <uint64_t> (m.table_size - 1)])


cdef inline void prefetch_match(Memo* m, uint64_t h) noexcept nogil:
    """Prefetch the record behind hash h's home slot if its hash matches (a child's
    record usually holds its key as a path to the node being expanded)."""
    cdef Slot* sl = &m.table[h & <uint64_t> (m.table_size - 1)]
    if sl.id >= 0 and sl.tag == slot_tag(h):
        fst_prefetch(&m.nodes[sl.id])
