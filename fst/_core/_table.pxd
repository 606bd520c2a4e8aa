# The table of proven lower bounds the threads of a parallel search share.
from ._typedefs cimport word_t, int32_t, int64_t, uint64_t

cdef extern from *:
    """
    /* A fixed table of slots, each keyed by a row set's words, its row count, its
       depth left and its hash, and holding a lower bound some thread proved for
       R(X, depth) and the value of a tree some thread's store holds for it.  Lock-free: a writer claims an empty slot by compare-and-swap
       (state 0 -> 1), writes key, count, depth, hash and bound, then publishes it
       with a release store (state 2); a reader loads the state with acquire order
       and reads nothing of a slot not yet published, so it sees the whole key
       its writer wrote, on ARM as on x86.  A published bound only rises (an
       atomic max) and a published tree value only falls (an atomic min); every
       bound ever stored was proved for exactly that key, and every tree value is
       that of a tree a store holds for it (stores only ever lower a node's
       value, and are freed with the table), so any value a reader sees is
       admissible, or real.  The table is made for one
       fit and freed with it: nothing is left from another problem. */
    #include <stdint.h>
    #include <string.h>
    #include <math.h>
    typedef struct {
        uint64_t hash; int32_t count; int32_t depth; double lb; double ub; int state;
    } fst_slot_t;
    typedef struct {
        fst_slot_t* slots; uint64_t* keys; int64_t mask; int nw;
        int64_t published;
    } fst_table_t;
    #define FST_TABLE_PROBES 16

    /* the bound of the key, -inf when it is not in the table; its tree's value
       in *ub (inf when not) */
    static inline double fst_table_get(fst_table_t* t, uint64_t h, int32_t count,
                                       int32_t depth, const uint64_t* X, double* ub) {
        int64_t p;
        double v;
        *ub = INFINITY;
        if (t == NULL) return -INFINITY;
        for (p = 0; p < FST_TABLE_PROBES; p++) {
            int64_t i = (int64_t)((h + (uint64_t)p) & (uint64_t)t->mask);
            fst_slot_t* s = &t->slots[i];
            int st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
            if (st == 0) return -INFINITY;
            if (st == 2 && s->hash == h && s->count == count && s->depth == depth
                    && memcmp(t->keys + i * t->nw, X, t->nw * sizeof(uint64_t)) == 0) {
                __atomic_load(&s->ub, ub, __ATOMIC_ACQUIRE);
                __atomic_load(&s->lb, &v, __ATOMIC_ACQUIRE);
                return v;
            }
        }
        return -INFINITY;
    }

    static inline void fst_table_put(fst_table_t* t, uint64_t h, int32_t count,
                                     int32_t depth, const uint64_t* X, double lb,
                                     double ub) {
        int64_t p;
        double cur;
        if (t == NULL) return;
        for (p = 0; p < FST_TABLE_PROBES; p++) {
            int64_t i = (int64_t)((h + (uint64_t)p) & (uint64_t)t->mask);
            fst_slot_t* s = &t->slots[i];
            int st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
            if (st == 0) {
                int zero = 0;
                if (__atomic_compare_exchange_n(&s->state, &zero, 1, 0, __ATOMIC_ACQ_REL,
                                                __ATOMIC_ACQUIRE)) {
                    s->hash = h;
                    s->count = count;
                    s->depth = depth;
                    memcpy(t->keys + i * t->nw, X, t->nw * sizeof(uint64_t));
                    __atomic_store(&s->lb, &lb, __ATOMIC_RELAXED);
                    __atomic_store(&s->ub, &ub, __ATOMIC_RELAXED);
                    __atomic_store_n(&s->state, 2, __ATOMIC_RELEASE);
                    __atomic_fetch_add(&t->published, 1, __ATOMIC_RELAXED);
                    return;
                }
                st = zero;   /* another writer claimed it first */
            }
            if (st == 2 && s->hash == h && s->count == count && s->depth == depth
                    && memcmp(t->keys + i * t->nw, X, t->nw * sizeof(uint64_t)) == 0) {
                __atomic_load(&s->lb, &cur, __ATOMIC_ACQUIRE);
                while (lb > cur && !__atomic_compare_exchange(&s->lb, &cur, &lb, 1,
                                                              __ATOMIC_RELEASE,
                                                              __ATOMIC_ACQUIRE)) {}
                __atomic_load(&s->ub, &cur, __ATOMIC_ACQUIRE);
                while (ub < cur && !__atomic_compare_exchange(&s->ub, &cur, &ub, 1,
                                                              __ATOMIC_RELEASE,
                                                              __ATOMIC_ACQUIRE)) {}
                return;
            }
        }
        /* every probed slot holds another key: the bound is not shared */
    }
    """
    ctypedef struct fst_table_t:
        void* slots
        uint64_t* keys
        int64_t mask
        int nw
        int64_t published
    int64_t FST_SLOT_BYTES "sizeof(fst_slot_t)"
    double fst_table_get(fst_table_t* t, uint64_t h, int32_t count, int32_t depth,
                         const word_t* X, double* ub) noexcept nogil
    void fst_table_put(fst_table_t* t, uint64_t h, int32_t count, int32_t depth,
                       const word_t* X, double lb, double ub) noexcept nogil
