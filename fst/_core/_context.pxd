# The state of one certified search, shared by its stages: the split space, the
# configuration, the memo store, the limits, the counters and the frame stack.
from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t, uint64_t
from ._problem cimport Space
from ._config cimport Config
from ._limits cimport Limits
from ._memo cimport Node, Memo
from ._table cimport fst_table_t

cdef extern from *:
    """
    /* The state the threads of a parallel search share (`fst_shared_t`): the
       best objective any thread's tree reaches, which only decreases, and the
       first stop.  Each is one aligned word written by compare-and-swap with
       release order and read with acquire order, so a thread that sees a value
       also sees every write its publisher made before it, on ARM as on x86. */
    typedef struct { double incumbent; int stop; } fst_shared_t;
    static inline double fst_shared_incumbent(fst_shared_t* s) {
        double v; __atomic_load(&s->incumbent, &v, __ATOMIC_ACQUIRE); return v;
    }
    static inline void fst_shared_lower(fst_shared_t* s, double v) {
        double cur; __atomic_load(&s->incumbent, &cur, __ATOMIC_ACQUIRE);
        while (v < cur && !__atomic_compare_exchange(&s->incumbent, &cur, &v, 1,
                                                      __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {}
    }
    static inline int fst_shared_stop(fst_shared_t* s) {
        return __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE);
    }
    /* the least split a thread found for the canonical root (an atomic min) */
    static inline int32_t fst_load_i32(int32_t* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline void fst_min_i32(int32_t* p, int32_t v) {
        int32_t cur = __atomic_load_n(p, __ATOMIC_ACQUIRE);
        while (v < cur && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELEASE,
                                                       __ATOMIC_ACQUIRE)) {}
    }
    /* the next of a sequence of shares a thread takes (an atomic counter) */
    static inline int32_t fst_claim(int32_t* p) {
        return __atomic_fetch_add(p, 1, __ATOMIC_ACQ_REL);
    }
    /* a thread's share's bound, for the progress lines */
    static inline void fst_store_double(double* p, double v) {
        __atomic_store(p, &v, __ATOMIC_RELEASE);
    }
    static inline double fst_load_double(double* p) {
        double v; __atomic_load(p, &v, __ATOMIC_ACQUIRE); return v;
    }
    static inline void fst_shared_set_stop(fst_shared_t* s, int code) {
        int zero = 0;
        __atomic_compare_exchange_n(&s->stop, &zero, code, 0, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED);
    }
    """
    ctypedef struct fst_shared_t:
        double incumbent
        int stop
    double fst_shared_incumbent(fst_shared_t* s) noexcept nogil
    void fst_shared_lower(fst_shared_t* s, double v) noexcept nogil
    int fst_shared_stop(fst_shared_t* s) noexcept nogil
    void fst_shared_set_stop(fst_shared_t* s, int code) noexcept nogil
    int32_t fst_load_i32(int32_t* p) noexcept nogil
    void fst_min_i32(int32_t* p, int32_t v) noexcept nogil
    int32_t fst_claim(int32_t* p) noexcept nogil
    void fst_store_double(double* p, double v) noexcept nogil
    double fst_load_double(double* p) noexcept nogil


cdef struct Stats:
    int64_t expansions       # nodes expanded (frames opened)
    int64_t pair_stages      # pair-count kernels run
    int64_t pair_skipped     # pair stages not run: they would pass the memory limit
    int64_t passes           # budget passes at a root (deepening and ladder rungs)
    int64_t transfers        # child bounds raised by the two-leaf transfer
    int64_t pair_rows        # rows of pair stages valued
    int64_t pair_rows_left   # rows left out by pair stages in rounds
    int ladder_depth         # deepest rung of the depth ladder run
    int64_t ladder_turns     # turns of the ladder
    int64_t shared_raises    # bounds raised from the threads' shared table
    int64_t shared_trees     # incumbents taken from it (trees in another store)


cdef struct Cand:
    # A valid split of the node being expanded, with its children.
    double lb        # lower bound on the best tree rooted at this split
    double pot_left  # potential of the left side (grows with the threshold)
    double worst_left   # cost of the left side's rows each at its class's largest cost
    double worst_right  # likewise the right side's
    double pair_leaf # value of the two-leaf tree on this split
    node_t left      # memo id of the left child (rows with x <= t), -1: not stored
    node_t right     # memo id of the right child
    int32_t split    # split index
    int32_t col      # column of the split
    uint8_t dropped  # never needed for R(X): dominated by a neighbouring threshold
                     # (exchange rule) or a side worth less than misclassifying it
    Node tl          # left child's creation record while it is not stored (left < 0)
    Node tr          # right child's, likewise


cdef struct Key:
    # A candidate's place in the search order.
    double ord       # the sort key: the candidate's lower bound (in a ladder rung,
                     # its incumbent)
    int32_t split    # tie-break: lowest split index first
    int32_t idx      # position in the candidate array


cdef struct Ctx:
    Space sp                 # the split space (read only, but for split rows filled
                             # on first use)
    Config cfg               # the fit's configuration
    Memo memo                # the store of subproblems
    Limits lim               # time, memory and Ctrl-C; lim.stop ends the search
    Stats st                 # counters for `search_stats_`
    int vec                  # the vector loops in effect (simd.h, FST_VEC_* bits)
    # scratch of the node stages
    double* cnt_scratch      # 3 K: node counts, then left and right counts
    int64_t* icnt            # K: integer class counts of `scan_counts`
    uint64_t* hkey           # 2 nw: bs_hash_key of each half-word index
    word_t* tmp              # nw: a row set
    # scratch of squared error's node stage (`_squares_nodes`; NULL for classes)
    int32_t* sq_rows         # n: a node's rows, increasing
    double* sq_vals          # SQ_FIELDS x n: what each of them adds to a side's sums
    uint64_t* sq_hrow        # n: what each adds to a side's linear hash
    double* sq_gsum          # 3 n_groups: a group's sums, zero between uses
    double* sq_sums          # SQ_FIELDS a rank of one column, or a column on binary
                             # columns: the sums of a node's rows there
    uint64_t* sq_hash        # likewise: their linear hash
    # the search and its schedule
    int64_t work             # word-work of the scans and pair stages, plus a fixed
                             # charge per expansion (a machine-free clock)
    int64_t work_stop        # > 0: end the running pass (first pass or rung) past this
    int order_ub             # sort candidates by incumbent, not bound (ladder rungs)
    int contract_broken      # a complete pass left the root unsolved at or below its budget
    double seed              # a tree of this value exists outside the store (another
                             # search's; INF: none): the root searches below it only
    void* frames             # the frame stack: Frame* (_search.pxd, `solve`)
    int n_frames             # frames open
    int cap_frames           # frames allocated
    # progress, read at the polls
    node_t prog_root         # the root once made, else -1 (then the bounds are 0, inf)
    double prog_t0           # when the run started (fst_now)
    double prog_lb, prog_ub  # the root's bounds at the last poll
    void* reporter           # a Python callable for progress lines, or NULL
    double report_every      # seconds between its calls
    double next_report       # when it is next due
    # the parallel search (`_solver.Search` with n_jobs > 1); sh is NULL alone
    fst_shared_t* sh         # the threads' shared incumbent and stop
    int tid                  # this thread's number, 0 .. n_workers - 1
    int n_workers            # threads: split s of the root belongs to s % n_workers
    double si_seen           # the least shared incumbent the root's loop capped at
    fst_table_t* table       # the threads' shared bounds (`_table.pxd`), or NULL
    double* share_lbs        # n_workers: each share's bound at its last poll


cdef inline Node* cand_node(Ctx* c, Cand* cd, int right) noexcept nogil:
    """A candidate's child record: in the memo when stored, else its creation record."""
    if right:
        return &c.memo.nodes[cd.right] if cd.right >= 0 else &cd.tr
    return &c.memo.nodes[cd.left] if cd.left >= 0 else &cd.tl


cdef void check_limits(Ctx* c) noexcept nogil
cdef void check_memory_now(Ctx* c) noexcept nogil
cdef bint scan_stopped(Ctx* c, double* next_signal) noexcept nogil


cdef inline bint owns(const Ctx* c, int32_t split) noexcept nogil:
    """Whether this thread searches root split `split`: every root split belongs
    to exactly one thread (split % n_workers), the leaf to all."""
    return c.sh == NULL or split % c.n_workers == c.tid


cdef inline bint restricted(const Ctx* c, int64_t count) noexcept nogil:
    """A node of all rows -- the root, or a depth ladder rung's -- searched by one
    of several threads: its split loop runs over this thread's splits only."""
    return c.sh != NULL and count == c.sp.n
