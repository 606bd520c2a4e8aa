"""The budgeted certified search for the best sparse tree.

`solve(X, B)` either solves node X (R(X) known exactly, lb == ub) with R(X) <= B,
or leaves it with a proven lower bound lb(X) > B.  The driver deepens the budget
at the root until the root is solved or a limit stops it.  See shared/DESIGN.md
section 3 for the loop and the invariants every memo write keeps:

  (i)   lb(X) <= R(X): lower bounds are admissible;
  (ii)  ub(X) is the objective of a real tree, rebuilt by following best_split;
  (iii) a solved node has lb == ub; an unsolved answer carries lb > budget.

# Notes:
# - The search runs on an explicit stack of frames (`solve`), one per open node,
#   in one nogil loop: its depth, the depth of the tree being explored, is bounded
#   by memory, not by the C stack.  Each frame owns its scratch (copied row set,
#   candidates), so an insert that moves the memo store never invalidates a
#   frame's data: nodes are always re-read by id.
# - A stop (time, memory, Ctrl-C) unwinds every frame; each writes its best real
#   tree into its node on the way out (a flush of incumbents, never a bound), so
#   the root holds the best tree found.
# - Tolerance: a prune needs an excess of more than TOL and a solve accepts
#   equality within TOL, so the certified objective is within a small multiple
#   of TOL of the minimum (shared/reference/fastsmalltree-notes.txt, Tolerance).
"""
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_Clear

cdef extern from "Python.h":
    # Declared without Cython's `except -1`, so a pending KeyboardInterrupt is seen
    # as a return value here (and cleared) rather than printed as unraisable.
    int fst_check_signals "PyErr_CheckSignals"() noexcept
from libc.stdlib cimport malloc, calloc, realloc, free, qsort
from libc.string cimport memcpy, memset
from libc.math cimport ceil, nextafterf, INFINITY

from ._typedefs cimport word_t, idx_t, node_t, int32_t, int64_t, uint8_t, uint64_t
from ._bitset cimport (fst_popcount, bs_count, bs_and, bs_andnot,
                       bs_test, bs_set, bs_hash, bs_hash_key, bs_hash_final,
                       bs_hash_linear)
from ._memo cimport (MAX_DEPTH_LEFT, Node, Slot, Memo, memo_init, memo_free, memo_find, memo_insert,
                     memo_insert_path, memo_key, memo_key_is, memo_make_whole,
                     memo_bytes, slot_tag)
from libc.stdint cimport uint32_t
from ._bounds cimport (leaf_loss, potential, creation_lower_bound, leaf_is_optimal,
                       three_leaf_peel, split_supported, leaf_support, worst_loss,
                       side_not_worth)
from ._segment cimport segment_blocks
from ._pairs cimport pair_counts, pair_counts_xt, transposed_splits, TRANSPOSE_ROWS
from ._openmp cimport omp_get_max_threads, FST_OPENMP
from cython.parallel cimport prange

cnp.import_array()

cdef double TOL = 1e-10

# Status codes, shared with the Python front end.
cdef enum:
    RUNNING = 0
    STOP_TIME = 1
    STOP_MEMORY = 2
    STOP_INTERRUPT = 3
    STOP_SWITCH = 4      # internal: end the pass at the incumbent, go on deepening
# Optional rules, each with an on/off switch so the oracle tests can run every
# combination (results must be identical).  The core contract never depends on them.
cdef enum:
    RULE_EQUIVALENT = 1   # equivalent-points floor at node creation
    RULE_SUPPORT = 2      # leaf support: drop splits with a side of support < lam
    RULE_SEGMENT = 4      # single-column segmentation programme
    RULE_SUPERSET = 8     # superset bound from children
    RULE_EXCHANGE = 16    # threshold exchange between neighbouring thresholds
    RULE_TRANSFER = 32    # column transfer of bounds along a column
    RULE_GREEDY = 64      # greedy seed for the first incumbent (upper bounds only)
    RULE_PAIRS = 128      # row-count pair stage and shape relaxation
    RULE_CAPACITY = 256   # leaf capacity: a set of potential p holds < p / lam + 1 leaves
    RULE_WORTH = 512      # a split with a side worth less than misclassifying it is out
    RULE_SORTED = 1024    # depth-limited nodes searched over sorted columns (`_sorted_run`)
    RULE_PEEL3 = 2048     # the pair stage's three-leaf bound (`three_leaf_peel`) and the
                          # same argument's two-leaf transfer to children (`_transfer_two_leaf`)
    RULE_ALL = 4095
RULES = {"equivalent": 1, "support": 2, "segment": 4, "superset": 8, "exchange": 16,
         "transfer": 32, "greedy": 64, "pairs": 128, "capacity": 256, "worth": 512,
         "sorted": 1024, "peel3": 2048}
RULE_ALL_ON = RULE_ALL
# The depth ladder ends once the root's bound is within this many leaves' worth of
# lambda of its incumbent (see `run`).  Measured at 60 s (benchmarks/RESULTS.md,
# session 6): on broward lambda = 0.05 the ladder's turns doubled the time to the
# certificate (56 s against 32 s without them), and fico 0.05 ended at a bound of
# 0.361 against 0.376; on problems with gaps of many leaves the ladder supplies
# trees deepening does not find.
LADDER_GAP = 3.0
# Share of the gap added to the root's budget per deepening pass once the gap is
# below LADDER_GAP lambdas (see `run`): 1, a pass at the incumbent, which either
# certifies it or runs until a stop.
DEEPENING_CLOSE = 1.0
# The pair stage's word-work cap at the root of a pass, as a multiple of the cap at
# any other node (see `_expand`).
ROOT_PAIR_SHARE = 16

cdef double INF = float("inf")
# A node of depth two or more left, under the caller's max_depth, is searched over
# sorted columns (`_sorted_run`) when its columns hold at least this many
# thresholds on average; below that the pair stage's word-parallel counts are
# cheaper (binary columns: one threshold each).
SORTED_MIN = 8.0
STATUS_NAMES = {0: "optimal", 1: "time_limit", 2: "memory_limit", 3: "interrupted"}

cdef extern from "_simd.h":
    int fst_pair_values2(const int32_t* A, int m, const double* cl, int right,
                         double cc0, double cc1, const double* cost, const double* potc,
                         double t1, double t2, double* best2, double* peel,
                         int* arg) noexcept nogil
    int fst_pair_values_k(const int32_t* A, int m, int K, const double* cl, int right,
                          const double* cc, const double* cost, const int32_t* cols,
                          int ncols, const double* potc, double t1, double t2,
                          double* best2, double* peel, int* arg) noexcept nogil
    int fst_pair_values2u(const int32_t* A, int m, const int32_t* cli, int right,
                          int32_t c0, int32_t ct, int32_t t1, int32_t t2, int32_t* best2,
                          int32_t* peel, int* arg, int32_t* cache) noexcept nogil
    int fst_peel3_2u(const int32_t* A, int m, const int32_t* cli, int right, int32_t c0,
                     int32_t ct, int32_t t1, int32_t t2, int32_t ib, int32_t low,
                     int32_t* out, const int32_t* cache) noexcept nogil
    int fst_pair_values_ku(const int32_t* A, int m, int K, const int32_t* cli, int right,
                           const int32_t* cc, int32_t ct, int32_t t1, int32_t t2,
                           int32_t* best2, int32_t* peel, int* arg) noexcept nogil
    int fst_set_simd(int mode) noexcept nogil
    void fst_scan2(const word_t* X, const word_t* S, const word_t* cb0, const word_t* eqm,
                   const uint64_t* hkey, int nw, int64_t* out, uint64_t* hash,
                   int nb0) noexcept nogil
    void fst_and_counts2(const word_t* X, const word_t* S, const word_t* cb0, int nw,
                         word_t* out, int64_t* sums) noexcept nogil
    int64_t fst_and_count(const word_t* X, const word_t* S, int nw) noexcept nogil
    int fst_compact_ok() noexcept nogil
    int fst_compact_plan(const word_t* X, int nw, int32_t* nzw, int32_t* nzk) noexcept nogil
    void fst_compact_at(const word_t* src, const word_t* X, const int32_t* nzw,
                        const int32_t* nzk, int nnz, word_t* out, int nwc) noexcept nogil

cdef extern from "_platform.h":
    double fst_now() noexcept nogil
    long long fst_process_rss() noexcept nogil


cdef struct Cand:
    double lb        # lower bound on the best tree rooted at this split
    double pot_left  # potential of the left side (grows with the threshold)
    double worst_left   # cost of the left side's rows each at its class's largest cost
    double worst_right  # likewise the right side's
    double pair_leaf # value of the two-leaf tree on this split
    node_t left      # memo id of the left child (rows with x <= t)
    node_t right     # memo id of the right child
    int32_t split    # split index
    int32_t col      # column of the split
    uint8_t dropped  # never needed for R(X): dominated by a neighbouring threshold
                     # (exchange rule) or a side worth less than misclassifying it
    Node tl          # left child's creation record while it is not stored (left < 0)
    Node tr          # right child's, likewise


cdef struct Key:
    double ord       # the sort key: the candidate's lower bound when sorted (in a
                     # ladder rung, its incumbent)
    int32_t split    # tie-break: lowest split index first
    int32_t idx      # position in the candidate array


cdef struct Frame    # an open node of the search (declared with `solve`)


cdef struct Ctx:
    # --- the problem (read only, owned by Python arrays) ---
    int n                    # rows
    int nw                   # words per row bitset
    int K                    # classes
    int n_splits             # splits in the split space
    word_t* split_bits       # n_splits x nw: rows going left (x <= threshold); read
                             # only through `split_row` (or `split_row_bulk`), which
                             # fills a split's rows (its column's) on first use
    uint8_t* split_filled    # n_splits: 1 once a split's rows are filled
    uint8_t* col_filled      # n_cols: 1 once all of a column's splits are filled
    const word_t* class_bits # K x nw: rows of each class
    int n0_prefix            # two classes, rows sorted by class (`build_problem`):
                             # the rows of class 0 are rows 0 .. n0_prefix - 1; else -1
    const int32_t* split_col # column of each split
    const int32_t* col_start # first split index of each column
    const int32_t* col_order # n_cols x n: rows sorted by rank in each column
    const int32_t* row_rank  # n_cols x n: rank of each row's value (NaN: largest)
    const double* cost       # K x K: cost per row of class c predicted k, / n
    const int32_t* pcols     # the labels a leaf tries (`distinct_columns`)
    int n_pcols
    const double* potc       # K: max_k cost[c, k] - min_k cost[c, k]
    const double* maxcost    # K: max_k cost[c, k]
    const int32_t* y         # n: class index of each row
    double lam               # price of one leaf
    double unit              # > 0: every error costs unit, a right label 0 (the pair
                             # values run in whole rows: `unit_cost`)
    int max_depth            # -1: unlimited
    int rules                # RULE_* bits: which optional rules are on (tests switch them)
    int n_threads            # OpenMP threads for the pair stage
    int64_t pair_cap         # largest m * m * nw word-work of one pair stage
    int64_t pair_cap_root    # the same at the root of a pass
    int64_t pair_stages      # pair stages run (stats)
    int64_t passes           # budget-deepening passes at the root (stats)
    Frame* frames            # the search's stack of open frames (`solve`)
    int n_frames             # frames open
    int cap_frames           # frames allocated
    int64_t transfers        # child bounds raised by `_transfer_two_leaf`
    double deepening         # share of the gap added to the budget after a pass
    double deepening_close   # the share once the gap is below ladder_gap lam
    int64_t switch_work      # > 0: first root pass at the incumbent, for this much work
    int64_t work             # word-work of the scans and pair stages, plus a fixed
                             # charge per expansion (a machine-free clock)
    int ladder_max           # deepest rung of the depth ladder (< 2: no ladder)
    int64_t rung_work        # work allowed to one rung
    int64_t work_stop        # > 0: end the running pass (first pass or rung) past this work
    int64_t work_limit       # > 0: stop the search (as a time stop) past this work
    int ladder_depth         # deepest rung run (stats)
    int64_t ladder_turns     # turns of the ladder (stats)
    double ladder_gap        # no more turns once the root's gap is below this many lam
    int64_t ladder_bytes     # no more turns once the store is past this (0: no cap;
                             # < 0: half the memory limit)
    int order_ub             # sort candidates by incumbent, not bound (ladder rungs)
    int64_t keep_pair_words  # a pair stage this wide stores its children (KEEP_PAIR_WORDS)
    int stage_min_rows       # a pair stage of this many rows runs in rounds (`staged_pairs`)
    int stage_rounds         # at most this many rounds of midpoints before the rest
    int stage_min_run        # ... when its rows are at least this many a run on average
    int64_t pair_rows        # rows of pair stages valued (stats)
    int64_t pair_rows_left   # rows left out by stages in rounds (stats)
    int n_cols               # columns of the split space
    double sorted_min        # a depth-limited node goes to `_sorted_run` when its
                             # columns have at least this many thresholds on average
    int sorted_shrink        # intervals shrunk by the neighbour bound (test hook: 0 off)
    int64_t sorted_nodes     # calls of `_sorted_run` that searched a node (stats)
    int64_t sorted_splits_valued     # root splits valued there (stats)
    int64_t sorted_splits_set_aside  # root splits set aside by its bounds (stats)
    int64_t sorted_leaf_pairs  # two-leaf trees valued by its depth-one passes (stats)
    # --- state ---
    Memo memo
    const word_t* rep_rows   # one representative row per group mixing labels
    const double* row_excess # n: excess of the representative's group, else 0
    const word_t* eq_mask    # nw or NULL: e(g) marked rows per group (whole-unit excess)
    double eq_unit           # cost of one marked row
    const double* mincost    # K: min_k cost[c, k], the floor of a row alone
    double* cnt_scratch      # 3 x K scratch: node counts, then left and right counts
    int64_t* icnt            # K scratch: integer class counts of scan_counts
    uint64_t* hkey           # 2 nw: bs_hash_key of each half-word index
    word_t* tmp              # nw words scratch for lookups
    # --- limits and stats ---
    double deadline          # monotonic seconds; < 0: none
    int64_t memory_limit     # bytes of the process; <= 0: none
    double next_signal_check
    int64_t ticks
    int stop                 # RUNNING or a STOP_* code
    int64_t expansions
    int64_t peak_rss
    int contract_broken      # a complete pass left the root unsolved at or below its budget
    int test_break_contract  # test hook: the root's bound is lowered to the budget after a pass
    # --- progress, read by the caller's thread while the search runs ---
    node_t prog_root         # the root once made, else -1 (then the bounds are 0, inf)
    double prog_t0           # when the run started (fst_now)
    double prog_lb, prog_ub  # the root's bounds at the last poll (`check_limits`)
    void* reporter           # a Python callable for progress lines, or NULL
    double report_every      # seconds between its calls
    double next_report       # when it is next due


cdef void check_memory_now(Ctx* c) noexcept nogil:
    """Poll the memory limit at once: after a wide expansion's per-candidate records
    are written (children not yet stored live there, outside the memo store), so the
    process stops within about one level's records of the limit."""
    cdef long long rss = fst_process_rss()
    if rss > c.peak_rss:
        c.peak_rss = rss
    if c.memory_limit > 0 and rss > c.memory_limit:
        c.stop = STOP_MEMORY


cdef inline void check_limits(Ctx* c) noexcept nogil:
    """Poll the limits: time at every expansion (a clock read), memory and Ctrl-C
    every 64 expansions or 0.1 s."""
    cdef double now = fst_now()
    cdef long long rss
    c.ticks += 1
    if c.deadline >= 0 and now > c.deadline:
        c.stop = STOP_TIME
        return
    if c.work_limit > 0 and c.work > c.work_limit:
        c.stop = STOP_TIME
        return
    if c.work_stop > 0 and c.work > c.work_stop:
        c.stop = STOP_SWITCH
        return
    if (c.ticks & 63) != 0 and now < c.next_signal_check:
        return
    if c.prog_root >= 0:
        # Copies for `Search.progress`, which reads them from another thread
        # (never the memo itself, which may move as it grows): aligned 8-byte
        # stores, so a reader sees an old or a new value, not a mix.  Taken at
        # the polls (every 64 expansions or 0.1 s), not at every expansion.
        c.prog_lb = c.memo.nodes[c.prog_root].lb
        c.prog_ub = c.memo.nodes[c.prog_root].ub
    rss = fst_process_rss()
    if rss > c.peak_rss:
        c.peak_rss = rss
    if c.memory_limit > 0:
        if rss < 0:
            rss = memo_bytes(&c.memo)
        if rss > c.memory_limit:
            c.stop = STOP_MEMORY
            return
    if now >= c.next_signal_check:
        c.next_signal_check = now + 0.1
        with gil:
            if fst_check_signals() != 0:
                PyErr_Clear()
                c.stop = STOP_INTERRUPT
            elif c.reporter != NULL and now >= c.next_report:
                c.next_report = now + c.report_every
                _report(c, now)


cdef void _report(Ctx* c, double now) noexcept:
    """Call the fit's progress reporter (verbose >= 2) with (seconds, the root's
    lower bound and incumbent at the last poll, expansions).  Ctrl-C while it
    runs stops the search as an interrupt; any other error turns it off."""
    try:
        (<object> c.reporter)((now - c.prog_t0, c.prog_lb, c.prog_ub, c.expansions))
    except KeyboardInterrupt:
        c.stop = STOP_INTERRUPT
    except BaseException:
        c.reporter = NULL


cdef inline int64_t _rows_to_rank(word_t* out, const int32_t* order, const int32_t* rank,
                                  int64_t n, int64_t i, int64_t k) noexcept nogil:
    """Set in `out` the bits of a column's sorted rows from position i on while
    their rank is <= k; returns the first position past them."""
    cdef int32_t row
    while i < n and rank[order[i]] <= k:
        row = order[i]
        out[row >> 6] |= (<word_t> 1) << (row & 63)
        i += 1
    return i


cdef void fill_column(Ctx* c, int32_t j) noexcept nogil:
    """Fill the row bitsets of every split of column j: split k of the column
    holds the rows of rank <= k, so each is the previous one plus the rows of
    rank k, and one walk of the column's sorted rows fills them all (as
    `_fill_split_bits` of _problem does for every column of an eager problem)."""
    cdef int nw = c.nw
    cdef int64_t i = 0, k, s
    cdef const int32_t* order = c.col_order + <int64_t> j * c.n
    cdef const int32_t* rank = c.row_rank + <int64_t> j * c.n
    cdef word_t* out
    for k in range(c.col_start[j + 1] - c.col_start[j]):
        s = c.col_start[j] + k
        out = c.split_bits + s * nw
        if k > 0:
            memcpy(out, out - nw, nw * sizeof(word_t))
        else:
            memset(out, 0, nw * sizeof(word_t))
        i = _rows_to_rank(out, order, rank, c.n, i, k)
        c.split_filled[s] = 1
    c.col_filled[j] = 1


cdef void fill_split(Ctx* c, int32_t s) noexcept nogil:
    """Fill the row bitset of split s alone: the rows of rank <= k in its column
    (it is split k there), the first rows of the column's sorted order."""
    cdef int32_t j = c.split_col[s]
    cdef word_t* out = c.split_bits + <int64_t> s * c.nw
    memset(out, 0, c.nw * sizeof(word_t))
    _rows_to_rank(out, c.col_order + <int64_t> j * c.n, c.row_rank + <int64_t> j * c.n,
                  c.n, 0, s - c.col_start[j])
    c.split_filled[s] = 1


cdef inline const word_t* split_row(Ctx* c, int32_t s) noexcept nogil:
    """The rows split s sends left, filled on first use.

    The bitsets of a fit are allocated as zero pages, which the system maps only
    when written, and filled when the search first reads them: a search over
    sorted columns (`_sorted_run` at depth two) reads only the few splits it
    realises, so a fit of many rows never writes most of the n_splits x nw
    words.  Every read of `split_bits` goes through here or `split_row_bulk`, the
    memo store's path keys included (a key's splits were read here when its node
    was made).  Never called inside a parallel region (the pair stage's threads
    count the copies `pair_open` made), so no fill is concurrent."""
    if not c.split_filled[s]:
        fill_split(c, s)
    return c.split_bits + <int64_t> s * c.nw


cdef inline const word_t* split_row_bulk(Ctx* c, int32_t s) noexcept nogil:
    """`split_row` for a loop over many splits: fills the whole column of s at
    once on first use (one walk, instead of a walk of the column per split)."""
    cdef int32_t j
    if not c.split_filled[s]:
        j = c.split_col[s]
        if not c.col_filled[j]:
            fill_column(c, j)
        else:
            fill_split(c, s)
    return c.split_bits + <int64_t> s * c.nw


cdef inline void class_counts(Ctx* c, const word_t* X, int64_t total, double* out) noexcept nogil:
    """Class counts of X: K - 1 AND-popcounts, the last class by difference."""
    cdef int k
    cdef int64_t rest = total
    cdef int64_t v
    for k in range(c.K - 1):
        v = fst_and_count(X, c.class_bits + k * c.nw, c.nw)
        out[k] = <double> v
        rest -= v
    out[c.K - 1] = <double> rest


cdef inline int64_t marked_rows(Ctx* c, const word_t* X) noexcept nogil:
    """Rows of X in the whole-unit excess mask (0 without the mask)."""
    cdef int64_t w, pc = 0
    if c.eq_mask == NULL:
        return 0
    for w in range(c.nw):
        pc += fst_popcount(X[w] & c.eq_mask[w])
    return pc


cdef double equivalent_excess(Ctx* c, const word_t* X) noexcept nogil:
    """The mixed groups' part of m(X): the sum, in row order, of the excess of each
    mixed group inside X, read from the group's representative row.

    X is a union of whole groups (every split sends identical rows the same way),
    so m(X) = sum_c cnt_c * mincost_c + this excess (see _problem.build_problem).
    Rows are sorted there by label and group, an order that does not depend on
    the input's, so the sum runs in the same order for any input order;
    `scan_counts` sums in the same order, so both give the same value."""
    cdef int64_t w, row
    cdef word_t word
    cdef double s = 0.0
    if c.eq_mask != NULL:
        # Whole units: a popcount of the marked rows (exact, any order).
        return (<double> marked_rows(c, X)) * c.eq_unit
    for w in range(c.nw):
        word = X[w] & c.rep_rows[w]
        while word:
            row = (w << 6) + _ctz(word)
            word &= word - 1
            s += c.row_excess[row]
    return s


cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int fst_ctz(unsigned long long x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
    #else
    static inline int fst_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    #endif
    """
    int fst_ctz(unsigned long long x) noexcept nogil


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define fst_prefetch(p) __builtin_prefetch((const void*)(p))
    #else
    #define fst_prefetch(p) ((void)0)
    #endif
    """
    void fst_prefetch(const void* p) noexcept nogil


cdef inline int64_t _ctz(word_t w) noexcept nogil:
    return fst_ctz(w)


cdef int cmp_key(const void* pa, const void* pb) noexcept nogil:
    """Candidates by increasing sort key (the lower bound; in a ladder rung the
    incumbent), ties by split index (a fixed order)."""
    cdef const Key* a = <const Key*> pa
    cdef const Key* b = <const Key*> pb
    if a.ord < b.ord:
        return -1
    if a.ord > b.ord:
        return 1
    return (a.split > b.split) - (a.split < b.split)


cdef node_t node_get(Ctx* c, const word_t* X, int depth, node_t parent=-1,
                     int32_t s=0, int side=0) noexcept nogil:
    """Find the node of (X, depth) or create it with its creation bounds.  With a
    `parent`, X is that node's rows on one side of split s (side 1: not in it), and
    a new node keeps its key as that path; without, its key is stored whole.

    Returns -1 (and sets a memory stop) when the store cannot grow."""
    cdef uint64_t h = bs_hash(X, c.nw, depth)
    cdef node_t nid = memo_find(&c.memo, X, depth, h)
    if nid >= 0:
        return nid
    if parent >= 0:
        nid = memo_insert_path(&c.memo, parent, s, side, depth, h)
    else:
        nid = memo_insert(&c.memo, X, depth, h)
    if nid < 0:
        c.stop = STOP_MEMORY
        return -1
    node_fill(c, &c.memo.nodes[nid], X, depth)
    return nid


cdef inline float floor_f32(double m) noexcept nogil:
    """m rounded down to float32, so the stored floor never exceeds the true one
    (a lower floor is still a lower bound on the loss)."""
    cdef float f = <float> m
    if <double> f > m:
        f = nextafterf(f, -INFINITY)
    return f


cdef void node_fill(Ctx* c, Node* nd, const word_t* X, int depth) noexcept nogil:
    """The creation record of (X, depth) from its rows."""
    cdef double* cnt = c.cnt_scratch
    cdef int64_t total = bs_count(X, c.nw)
    class_counts(c, X, total, cnt)
    node_fill_counts(c, nd, cnt, total, equivalent_excess(c, X), depth)


cdef void node_fill_counts(Ctx* c, Node* nd, const double* cnt, int64_t total,
                           double excess, int depth) noexcept nogil:
    """The creation record of a node of `depth` with class counts `cnt` and mixed
    groups' excess `excess`: counts, leaf, potential, creation bounds.  A pure
    function of the rows, so a record may be recomputed instead of stored."""
    cdef double loss, floor
    cdef int k
    loss = leaf_loss(cnt, c.K, c.cost, c.pcols, c.n_pcols, NULL)
    nd.count = total
    nd.leaf = loss + c.lam
    nd.pot = potential(cnt, c.K, c.potc)
    nd.ub = nd.leaf             # (ii) the leaf is a real tree
    nd.best_split = -1
    nd.solved = 0
    nd.pair_done = 0
    nd.g2 = 0.0     # no two-leaf bound beyond 2 lam + floor yet (`_transfer_two_leaf`)
    nd.g3 = INF
    nd.floor = 0.0
    if depth == 0 or total <= 1 or (nd.pot < 2.0 * c.lam and (c.rules & RULE_SUPPORT)):
        # No depth left, a single row, or leaf support (pot < 2 lam): a leaf.
        nd.lb = nd.leaf
        nd.solved = 1
        return
    if not (c.rules & RULE_EQUIVALENT):
        # Without the floor: any tree with a split has >= 2 leaves, so R >= min(leaf, 2 lam).
        nd.lb = nd.leaf if nd.leaf < 2.0 * c.lam else 2.0 * c.lam
        return
    floor = 0.0
    for k in range(c.K):
        floor += cnt[k] * c.mincost[k]
    floor += excess
    nd.floor = floor_f32(floor)
    if leaf_is_optimal(loss, floor, nd.pot, c.lam, TOL):
        # Equivalent points: a split costs >= floor + 2 lam >= leaf.
        nd.lb = nd.leaf
        nd.solved = 1
        return
    # Equivalent points: R(X) >= min(leaf, floor + 2 lam).
    nd.lb = creation_lower_bound(nd.leaf, floor, c.lam)
    return


cdef inline void fill_sides(Ctx* c, uint64_t hX, uint64_t hl, double exl, double exr,
                            const double* cntL, const double* cntR, int64_t nl,
                            int64_t total, int depth, Node* L, Node* R) noexcept nogil:
    """The children's creation records from `scan_counts`' sums (the right side's
    hash by difference: the linear hash adds up over disjoint sets)."""
    L.hash = bs_hash_final(hl, depth)
    L.depth = depth
    node_fill_counts(c, L, cntL, nl, exl, depth)
    R.hash = bs_hash_final(hX - hl, depth)
    R.depth = depth
    node_fill_counts(c, R, cntR, total - nl, exr, depth)


cdef int64_t scan_counts(Ctx* c, const word_t* X, int64_t eX, const word_t* S,
                         const double* cnt, double* cntL, double* cntR, uint64_t* hash_l,
                         double* ex_l, double* ex_r) noexcept nogil:
    """One pass over the words of a split S at X (its children's records then
    follow from `fill_sides`, after the caller's leaf-support test): the rows of
    X & S (returned), both sides' class counts, the left side's linear hash and
    both sides' excess.  eX = marked rows of X (whole-unit excess; unused
    otherwise): the right side's counts and whole-unit excess follow by
    difference, exactly.  The sums are the same as bs_hash's and
    equivalent_excess's (a real excess in row order)."""
    cdef int nw = c.nw
    cdef int K = c.K
    cdef int64_t* ic = c.icnt
    cdef int64_t w, row, nl = 0, rest
    cdef int k
    cdef word_t a, b, ra, rb, rep
    cdef uint64_t hl = 0
    cdef const uint64_t* hkey = c.hkey
    cdef const word_t* cb0 = c.class_bits
    cdef int64_t c0 = 0, el = 0
    cdef const word_t* eqm = c.eq_mask
    cdef double exl = 0.0, exr = 0.0
    cdef int64_t sums[3]
    for k in range(K):
        ic[k] = 0
    if eqm != NULL and K == 2:
        # The common case (0/1 loss, two classes): one loop, 8 words to a vector
        # where the CPU has AVX-512, 4 with AVX2 and rows sorted by class
        # (fst_scan2, _simd.h; integer sums, the same).
        fst_scan2(X, S, cb0, eqm, hkey, nw, sums, &hl, c.n0_prefix)
        nl = sums[0]
        c0 = sums[1]
        el = sums[2]
    elif eqm != NULL:
        for w in range(nw):
            a = X[w] & S[w]
            nl += fst_popcount(a)
            c0 += fst_popcount(a & cb0[w])
            for k in range(1, K - 1):
                ic[k] += fst_popcount(a & c.class_bits[k * nw + w])
            el += fst_popcount(a & eqm[w])
            hl += (a & 0xFFFFFFFFULL) * hkey[2 * w] + (a >> 32) * hkey[2 * w + 1]
    else:
        for w in range(nw):
            a = X[w] & S[w]
            b = X[w] & ~S[w]
            nl += fst_popcount(a)
            c0 += fst_popcount(a & cb0[w])
            for k in range(1, K - 1):
                ic[k] += fst_popcount(a & c.class_bits[k * nw + w])
            hl += (a & 0xFFFFFFFFULL) * hkey[2 * w] + (a >> 32) * hkey[2 * w + 1]
            rep = c.rep_rows[w]
            ra = a & rep
            while ra:
                row = (w << 6) + _ctz(ra)
                ra &= ra - 1
                exl += c.row_excess[row]
            rb = b & rep
            while rb:
                row = (w << 6) + _ctz(rb)
                rb &= rb - 1
                exr += c.row_excess[row]
    ic[0] = c0
    if eqm != NULL:
        exl = (<double> el) * c.eq_unit
        exr = (<double> (eX - el)) * c.eq_unit   # whole units: exact by difference
    rest = nl
    for k in range(K - 1):
        cntL[k] = <double> ic[k]
        rest -= ic[k]
    cntL[K - 1] = <double> rest
    for k in range(K):
        cntR[k] = cnt[k] - cntL[k]
    hash_l[0] = hl
    ex_l[0] = exl
    ex_r[0] = exr
    return nl


cdef enum:
    # A pair stage of at least this many words a row (valid splits times words),
    # or over three or more classes, stores the children it values; cheaper ones
    # leave them in their candidates (see `_expand`).  Side by side at 60 s on
    # compas 0.02 (194 words, hundreds of splits): 360,328 expansions against
    # 248,000 when never stored; fico 0.05 and the coupon sets stay below it.
    # Wine 0.01 (3 classes, 3 words): 3.09 s storing against 3.52 s not.
    KEEP_PAIR_WORDS = 32768
    # A pair stage of at least STAGE_MIN_ROWS rows, STAGE_MIN_RUN a run on a column
    # on average, runs in rounds (`staged_pairs`), at most STAGE_ROUNDS rounds of
    # midpoints.  fico 0.05 alone: 28.3 s at 5 and at 8 rounds, 30.7 at 3, 32.9 at
    # 2, 29.6 with no limit (one build); 16 rows against 8 or 32: 30.8 either way.
    STAGE_MIN_ROWS = 16
    STAGE_ROUNDS = 5
    STAGE_MIN_RUN = 2

cdef enum:
    PF_SLOT = 16       # candidates ahead whose children's table slots are prefetched
    PF_MATCH = 8       # candidates ahead whose children's records are prefetched


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


cdef node_t find_child(Ctx* c, node_t xid, const word_t* X, int32_t s, bint right,
                       const Node* rec) noexcept nogil:
    """The memo id of child X & S (X & ~S when `right`; S the rows of split s, X the
    rows of node xid) whose creation record `rec` (hash, depth, count) is known, or
    -1.  A stored key that is this very path (xid, s, side) is the child; any other
    is compared word for word with the child's rows, which are not built."""
    cdef Memo* m = &c.memo
    cdef int nw = c.nw
    cdef uint64_t mask = <uint64_t> (m.table_size - 1)
    cdef uint64_t slot = rec.hash & mask
    cdef const word_t* S = split_row(c, s)
    cdef int32_t path = 2 * s + (1 if right else 0)
    cdef uint32_t tag = slot_tag(rec.hash)
    cdef node_t nid
    while True:
        nid = m.table[slot].id
        if nid < 0:
            return -1
        if (m.table[slot].tag == tag and m.nodes[nid].hash == rec.hash
                and m.nodes[nid].depth == rec.depth and m.nodes[nid].count == rec.count):
            if m.nodes[nid].key_split == path and m.nodes[nid].key_ref == xid:
                return nid
            if memo_key_is(m, nid, X, S, right):
                return nid
        slot = (slot + 1) & mask


cdef inline Node* cand_node(Ctx* c, Cand* cd, int right) noexcept nogil:
    """A candidate's child record: in the memo when stored, else its creation record."""
    if right:
        return &c.memo.nodes[cd.right] if cd.right >= 0 else &cd.tr
    return &c.memo.nodes[cd.left] if cd.left >= 0 else &cd.tl


cdef node_t store_record(Ctx* c, const word_t* T, const Node* rec, node_t parent,
                         int32_t s, int side, word_t* T2) noexcept nogil:
    """Store the node of rows T whose record `rec` is known, its key held as the
    path (parent, s, side): T is parent's rows on that side of split s.  The record
    is its creation record, or one the pair stage valued while it lived in its
    candidate (`pair_stage`): then its best two-leaf tree (rec.best_split) is
    installed through real grandchildren, so extraction can rebuild it.  If another
    path stored the node meanwhile, the record's bound and tree are merged into it
    (its pair values are not: the node values its own when needed).  T2:
    nw words of scratch.  Returns -1 and sets a memory stop when the store cannot
    grow."""
    cdef node_t nid = memo_find(&c.memo, T, rec.depth, rec.hash)
    cdef int32_t key_split, key_ref
    cdef Node* nd
    if nid < 0:
        nid = memo_insert_path(&c.memo, parent, s, side, rec.depth, rec.hash)
        if nid < 0:
            c.stop = STOP_MEMORY
            return -1
        key_split = c.memo.nodes[nid].key_split
        key_ref = c.memo.nodes[nid].key_ref
        c.memo.nodes[nid] = rec[0]
        nd = &c.memo.nodes[nid]
        nd.key_split = key_split
        nd.key_ref = key_ref
        # the incumbent is the leaf until the two-leaf tree's grandchildren exist,
        # and the node is solved again below only once its tree is in place
        nd.ub = nd.leaf
        nd.best_split = -1
        nd.solved = 0
    else:
        nd = &c.memo.nodes[nid]
        if not nd.solved:
            # the same rows and depth: the bound the record proved holds here (i)
            if rec.lb > nd.lb:
                nd.lb = rec.lb
    if rec.best_split >= 0 and _install_two_leaf(c, nid, T, rec.best_split, rec.ub, T2) < 0:
        return -1
    nd = &c.memo.nodes[nid]
    if nd.lb > nd.ub:
        nd.lb = nd.ub      # within TOL of it: lowering a bound keeps it admissible (i)
    if not nd.solved and nd.ub <= nd.lb + TOL:
        nd.lb = nd.ub      # the incumbent meets the proven bound: solved
        nd.solved = 1
    return nid


cdef int store_children(Ctx* c, node_t xid, const word_t* X, Cand* cd) noexcept nogil:
    """Store a candidate's children (of node xid, rows X) in the memo from their
    creation records.  Returns -1 on a memory stop."""
    cdef int nw = c.nw
    cdef word_t* T
    cdef const word_t* S = split_row(c, cd.split)
    if cd.left >= 0 and cd.right >= 0:
        return 0
    # the children's paths end at xid: its own key becomes whole (chains stay short)
    if c.memo.nodes[xid].key_split >= 0 and memo_make_whole(&c.memo, xid) < 0:
        c.stop = STOP_MEMORY
        return -1
    T = <word_t*> malloc(2 * nw * sizeof(word_t))
    if T == NULL:
        c.stop = STOP_MEMORY
        return -1
    if cd.left < 0:
        bs_and(T, X, S, nw)
        cd.left = store_record(c, T, &cd.tl, xid, cd.split, 0, T + nw)
    if cd.right < 0 and cd.left >= 0:
        bs_andnot(T, X, S, nw)
        cd.right = store_record(c, T, &cd.tr, xid, cd.split, 1, T + nw)
    free(T)
    return 0 if cd.left >= 0 and cd.right >= 0 else -1


cdef inline void mark_leaf(Node* nd) noexcept nogil:
    nd.ub = nd.leaf
    nd.lb = nd.leaf
    nd.best_split = -1
    nd.solved = 1


cdef node_t realise_segments(Ctx* c, const int32_t* rows, const int64_t* seg_row_end,
                             const int32_t* seg_split, int a, int b, int depth,
                             word_t* buf) noexcept nogil:
    """Create the balanced tree over segments [a, b) and mark each node solved.

    `rows` lists the node's rows sorted by the column; segment s covers
    rows[seg_row_end[s-1] : seg_row_end[s]]; `seg_split[s]` is the split that
    separates segment s from s + 1.  Each node of the realisation is solved: if a
    sub-range had a better tree within its depth, substituting it would improve
    the parent's optimal segmentation (every valid split of a descendant is on the
    same column, so its optimum is a segmentation too).  Returns -1 on a stop."""
    cdef int64_t r0 = 0 if a == 0 else seg_row_end[a - 1]
    cdef int64_t r1 = seg_row_end[b - 1]
    cdef int64_t i
    cdef node_t nid, lid, rid
    cdef int mid
    cdef int child_depth = depth - 1 if depth > 0 else -1
    cdef Node* nd
    memset(buf, 0, c.nw * sizeof(word_t))
    for i in range(r0, r1):
        bs_set(buf, rows[i])
    nid = node_get(c, buf, depth)
    if nid < 0:
        return -1
    if c.memo.nodes[nid].solved:
        return nid
    if b - a == 1:
        # Segmentation: a single segment is a leaf.
        mark_leaf(&c.memo.nodes[nid])
        return nid
    mid = a + (b - a + 1) // 2
    lid = realise_segments(c, rows, seg_row_end, seg_split, a, mid, child_depth, buf + c.nw)
    if lid < 0:
        return -1
    rid = realise_segments(c, rows, seg_row_end, seg_split, mid, b, child_depth, buf + c.nw)
    if rid < 0:
        return -1
    nd = &c.memo.nodes[nid]
    # Segmentation (optimal substructure, see above): solved at the realised value.
    nd.ub = c.memo.nodes[lid].ub + c.memo.nodes[rid].ub
    nd.lb = nd.ub
    nd.best_split = seg_split[mid - 1]
    nd.solved = 1
    return nid


cdef int solve_single_column(Ctx* c, node_t nid, const word_t* X, int col) noexcept nogil:
    """Single-column rule: every valid split of X is on `col`, so R(X) is the best
    segmentation of X's rows sorted on `col` (at most 2**depth segments)."""
    cdef int64_t count = c.memo.nodes[nid].count
    cdef int K = c.K
    cdef int32_t* rows = <int32_t*> malloc(count * sizeof(int32_t))
    cdef double* prefix = <double*> malloc((count + 1) * K * sizeof(double))
    cdef int64_t* block_end = <int64_t*> malloc(count * sizeof(int64_t))
    cdef int32_t* block_rank = <int32_t*> malloc(count * sizeof(int32_t))
    cdef int* ends = <int*> malloc((count + 1) * sizeof(int))
    cdef int64_t* seg_row_end = <int64_t*> malloc((count + 1) * sizeof(int64_t))
    cdef int32_t* seg_split = <int32_t*> malloc((count + 1) * sizeof(int32_t))
    cdef word_t* buf = <word_t*> malloc((<int64_t> 66) * c.nw * sizeof(word_t))
    cdef int ret = -1
    if (rows != NULL and prefix != NULL and block_end != NULL and block_rank != NULL
            and ends != NULL and seg_row_end != NULL and seg_split != NULL and buf != NULL):
        ret = _segment_node(c, nid, X, col, rows, prefix, block_end, block_rank, ends,
                            seg_row_end, seg_split, buf)
    if ret < 0 and c.stop == RUNNING:
        c.stop = STOP_MEMORY
    free(rows); free(prefix); free(block_end); free(block_rank); free(ends)
    free(seg_row_end); free(seg_split); free(buf)
    return ret


cdef int _segment_node(Ctx* c, node_t nid, const word_t* X, int col, int32_t* rows,
                       double* prefix, int64_t* block_end, int32_t* block_rank, int* ends,
                       int64_t* seg_row_end, int32_t* seg_split, word_t* buf) noexcept nogil:
    cdef int K = c.K
    cdef int depth = c.memo.nodes[nid].depth
    cdef const int32_t* order = c.col_order + <int64_t> col * c.n
    cdef const int32_t* rank = c.row_rank + <int64_t> col * c.n
    cdef int64_t i, p = 0
    cdef int m = 0, k, n_seg, max_seg, s
    cdef int32_t row, r
    cdef double value
    for k in range(K):
        prefix[k] = 0.0
    for i in range(c.n):
        row = order[i]
        if not bs_test(X, row):
            continue
        rows[p] = row
        r = rank[row]
        if m == 0 or block_rank[m - 1] != r:
            m += 1
            block_rank[m - 1] = r
            for k in range(K):
                prefix[m * K + k] = prefix[(m - 1) * K + k]
        prefix[m * K + c.y[row]] += 1.0
        p += 1
        block_end[m - 1] = p
    max_seg = 0
    if 0 <= depth < 30:
        max_seg = 1 << depth
    n_seg = segment_blocks(prefix, m, K, c.cost, c.pcols, c.n_pcols, c.lam, max_seg, ends,
                           &value)
    if n_seg < 0:
        return -1
    if n_seg == 1:
        # Segmentation: the best tree is one leaf.
        mark_leaf(&c.memo.nodes[nid])
        return 0
    for s in range(n_seg):
        seg_row_end[s] = block_end[ends[s] - 1]
        # split "rank <= r" of this column, r the rank of the segment's last block
        seg_split[s] = c.col_start[col] + block_rank[ends[s] - 1]
    if realise_segments(c, rows, seg_row_end, seg_split, 0, n_seg, depth, buf) < 0:
        return -1
    return 0


cdef int gather_valid(Ctx* c, const word_t* X, int64_t total, const double* cnt,
                      int child_depth, const int32_t* cand, int ncand, int32_t* valid,
                      Cand* cands, bint* one_column) noexcept nogil:
    """Valid splits of X among `cand`: separating, one per distinct partition,
    leaf-supported.  Fills valid[] and, per valid split, cands[].pot_left,
    .worst_left, .worst_right, .col,
    .pair_leaf (the two-leaf value leaf(L) + leaf(R)) and the children's creation
    records .tl, .tr (depth `child_depth`).  Returns how many."""
    cdef int nw = c.nw
    cdef int K = c.K
    cdef int i, k, col, prev_col = -1, nvalid = 0
    cdef int64_t nl, prev_cnt = -1
    cdef int32_t s
    cdef const word_t* S
    cdef double* cntL = c.cnt_scratch + K
    cdef double* cntR = c.cnt_scratch + 2 * K
    cdef double wL, wR, lossL, lossR
    cdef double sup_lam = c.lam * (1.0 - 1e-9)   # see `split_supported`
    cdef uint64_t hX = bs_hash_linear(X, nw)
    cdef int64_t eX = marked_rows(c, X)
    cdef uint64_t hl
    cdef double exl, exr
    one_column[0] = True
    for i in range(ncand):
        s = cand[i]
        S = split_row_bulk(c, s)
        col = c.split_col[s]
        if col == prev_col:
            nl = fst_and_count(X, S, nw)
            if nl == prev_cnt:
                # Same partition of X as the previous threshold of this column
                # (left sides are nested, equal counts mean equal sets).
                continue
        nl = scan_counts(c, X, eX, S, cnt, cntL, cntR, &hl, &exl, &exr)
        prev_col = col
        prev_cnt = nl
        if nl == 0 or nl == total:
            continue
        wL = worst_loss(cntL, K, c.maxcost)
        wR = worst_loss(cntR, K, c.maxcost)
        lossL = leaf_loss(cntL, K, c.cost, c.pcols, c.n_pcols, NULL)
        lossR = leaf_loss(cntR, K, c.cost, c.pcols, c.n_pcols, NULL)
        if (c.rules & RULE_SUPPORT) and not split_supported(
                leaf_support(wL, lossL), leaf_support(wR, lossR), sup_lam):
            continue  # leaf support: dropped here and in every descendant
        fill_sides(c, hX, hl, exl, exr, cntL, cntR, nl, total, child_depth,
                   &cands[nvalid].tl, &cands[nvalid].tr)
        if nvalid > 0 and c.split_col[valid[0]] != col:
            one_column[0] = False
        cands[nvalid].pot_left = potential(cntL, K, c.potc)
        cands[nvalid].worst_left = wL
        cands[nvalid].worst_right = wR
        cands[nvalid].col = col
        cands[nvalid].pair_leaf = lossL + lossR + 2.0 * c.lam
        valid[nvalid] = s
        nvalid += 1
    return nvalid


cdef struct SeedFrame:
    # One open node of the greedy seed (`greedy_seed`) on its own stack.
    node_t nid               # the node
    const int32_t* cand      # the splits it may use: its parent's valid splits
    int ncand
    int state                # 0: to grow; 1: its left child is being grown; 2: right
    word_t* X                # 2 nw words: its rows, then a child's
    int32_t* valid           # its valid splits
    Cand* cands
    double* cnt
    int nvalid
    int arg                  # the greedy split's position in valid
    node_t lid, rid          # the split's children
    double vl                # the left child's incumbent once grown


cdef bint _seed_push(Ctx* c, SeedFrame** stack, int* n, int* cap, node_t nid,
                     const int32_t* cand, int ncand) noexcept nogil:
    """Open node nid for the greedy seed unless it is solved or a stop is set
    (its incumbent then stands as it is).  False when nothing was pushed."""
    cdef SeedFrame* grown
    cdef SeedFrame* f
    if c.memo.nodes[nid].solved or c.stop:
        return False
    check_limits(c)
    if c.stop:
        return False           # the greedy seed only ever supplies incumbents
    if n[0] == cap[0]:
        grown = <SeedFrame*> realloc(stack[0], (2 * cap[0] + 16) * sizeof(SeedFrame))
        if grown == NULL:
            c.stop = STOP_MEMORY
            return False
        stack[0] = grown
        cap[0] = 2 * cap[0] + 16
    f = &stack[0][n[0]]
    n[0] += 1
    memset(f, 0, sizeof(SeedFrame))
    f.nid = nid
    f.cand = cand
    f.ncand = ncand
    f.arg = -1
    return True


cdef void _seed_grow(Ctx* c, SeedFrame* f) noexcept nogil:
    """The greedy split of f's node: the valid split of the best two-leaf value,
    if it beats the leaf; its two children are created (f.arg, f.lid, f.rid)."""
    cdef Node* nd = &c.memo.nodes[f.nid]
    cdef int nw = c.nw, i
    cdef bint one_column
    cdef double v
    cdef int child_depth = nd.depth - 1 if nd.depth > 0 else -1
    f.X = <word_t*> malloc(2 * nw * sizeof(word_t))
    f.valid = <int32_t*> malloc((f.ncand + 1) * sizeof(int32_t))
    f.cands = <Cand*> malloc((f.ncand + 1) * sizeof(Cand))
    f.cnt = <double*> malloc(c.K * sizeof(double))
    if f.X == NULL or f.valid == NULL or f.cands == NULL or f.cnt == NULL:
        c.stop = STOP_MEMORY
        return
    memcpy(f.X, memo_key(&c.memo, f.nid), nw * sizeof(word_t))
    class_counts(c, f.X, nd.count, f.cnt)
    f.nvalid = gather_valid(c, f.X, nd.count, f.cnt, child_depth, f.cand, f.ncand,
                            f.valid, f.cands, &one_column)
    v = nd.leaf
    for i in range(f.nvalid):
        if f.cands[i].pair_leaf < v:
            v = f.cands[i].pair_leaf
            f.arg = i
    if f.arg >= 0:
        bs_and(f.X + nw, f.X, split_row(c, f.valid[f.arg]), nw)
        f.lid = node_get(c, f.X + nw, child_depth)
        bs_andnot(f.X + nw, f.X, split_row(c, f.valid[f.arg]), nw)
        f.rid = node_get(c, f.X + nw, child_depth)
        if f.lid < 0 or f.rid < 0:
            f.arg = -1


cdef double greedy_seed(Ctx* c, node_t root, const int32_t* cand, int ncand) noexcept nogil:
    """Greedy seed: from `root`, grow the split with the best two-leaf value while
    it beats the leaf, depth first (a node's left subtree, then its right), and
    record the resulting real trees as upper bounds (ii) only -- never a bound or
    a solved flag.  Runs on its own explicit stack.  Returns the root's ub."""
    cdef SeedFrame* stack = NULL
    cdef SeedFrame* f
    cdef int n = 0, cap = 0
    cdef Node* nd
    cdef double v
    _seed_push(c, &stack, &n, &cap, root, cand, ncand)
    while n > 0:
        f = &stack[n - 1]
        if f.state == 0:
            _seed_grow(c, f)
            if f.arg >= 0:
                f.state = 1
                _seed_push(c, &stack, &n, &cap, f.lid, f.valid, f.nvalid)
                continue
        elif f.state == 1:
            f.vl = c.memo.nodes[f.lid].ub
            f.state = 2
            _seed_push(c, &stack, &n, &cap, f.rid, f.valid, f.nvalid)
            continue
        else:
            v = f.vl + c.memo.nodes[f.rid].ub
            nd = &c.memo.nodes[f.nid]
            if v < nd.ub:
                nd.ub = v              # (ii) a real tree: the greedy subtree
                nd.best_split = f.valid[f.arg]
        free(f.X)
        free(f.valid)
        free(f.cands)
        free(f.cnt)
        n -= 1
    free(stack)
    return c.memo.nodes[root].ub


cdef inline void _take_pair(double l1, double l2, bint peel1, bint peel2, int j,
                            double* best2, double* peel, int* arg) noexcept nogil:
    """Split j cuts the child into cells of leaf losses l1, l2: keep the best
    two-leaf loss (first j on ties) and the cheapest cell that may peel off as the
    leaf of a three-leaf tree (peel1, peel2)."""
    if l1 + l2 < best2[0]:
        best2[0] = l1 + l2
        arg[0] = j
    if peel1 and l1 < peel[0]:
        peel[0] = l1
    if peel2 and l2 < peel[0]:
        peel[0] = l2


cdef inline double capacity_lam(Ctx* c) noexcept nogil:
    """Leaf capacity (RULE_CAPACITY).  R(S) is always attained by a tree whose
    every leaf has potential >= lam (fastsmalltree-notes, "Leaf support": deleting
    a leaf of less and routing its rows to its sibling saves lam and adds at most
    its potential of loss; deleting never deepens a tree, so this holds under a
    depth limit too).  Potentials add over disjoint rows, so such a tree with a
    leaves needs pot(S) >= a * lam: a set of potential below a * lam holds no such
    tree with a or more leaves, and a three-leaf tree peels off a leaf of
    potential >= lam beside a side of potential >= 2 lam.  Returns the unit the
    tests compare potentials with: lam less a relative 1e-9, so that rounding in
    a computed potential never excludes a tree (a weaker bound, never a wrong
    one); 0 when the rule is off (every potential passes)."""
    if c.rules & RULE_CAPACITY:
        return c.lam * (1.0 - 1e-9)
    return 0.0


cdef double unit_cost(const double* cost, const double* potc, int K) noexcept nogil:
    """u > 0 when every error costs u and a right label 0 (0/1 loss, or balanced
    weights): a cell's leaf loss is then u times its rows outside its largest
    class and its potential u times its rows, so the pair values run on whole
    rows (`_pair_values_u`); else 0."""
    cdef double u = cost[1] if K > 1 else 0.0
    cdef int a, b
    if not u > 0.0:
        return 0.0
    for a in range(K):
        if potc[a] != u:
            return 0.0
        for b in range(K):
            if cost[a * K + b] != (0.0 if a == b else u):
                return 0.0
    return u


cdef inline int32_t rows_reaching(double t, double u) noexcept nogil:
    """The fewest rows whose potential (u each) reaches t: ceil(t / u).  t is the
    capacity unit, already lam less a relative 1e-9 (`capacity_lam`), so rounding
    in the division never excludes a cell whose true potential reaches lam."""
    cdef double r = ceil(t / u)
    if r >= 2147483647.0:
        return 2147483647
    return <int32_t> r


cdef inline bint _unit_cells(const int32_t* A, const int32_t* cli, bint right,
                             const int32_t* ci, int32_t ct, int K, int j, int32_t* xt,
                             int32_t* yt, int32_t* l1, int32_t* l2) noexcept nogil:
    """Under a unit cost, the two cells split j cuts a child of class counts ci
    (ct rows) into, from its row of pair counts A (cli: the counts of X & s_j):
    their rows xt, yt and their losses in rows l1, l2 (rows less the largest
    class).  Returns False when s_j does not separate the child."""
    cdef int32_t sx = 0, mx = 0, my = 0, xk
    cdef int k
    xt[0] = A[j * K + K - 1]
    if right:
        xt[0] = cli[j * K + K - 1] - xt[0]
    yt[0] = ct - xt[0]
    if xt[0] == 0 or yt[0] == 0:
        return False
    for k in range(K - 1):
        xk = A[j * K + k]
        if right:
            xk = cli[j * K + k] - xk
        sx += xk
        if xk > mx:
            mx = xk
        if ci[k] - xk > my:
            my = ci[k] - xk
    xk = xt[0] - sx                      # the last class: the rows less the others
    if xk > mx:
        mx = xk
    if ci[K - 1] - xk > my:
        my = ci[K - 1] - xk
    l1[0] = xt[0] - mx
    l2[0] = yt[0] - my
    return True


cdef inline bint _cells(const int32_t* A, const double* cl, bint right, const double* cc,
                        int K, int j, double* c1, double* c2) noexcept nogil:
    """The class counts c1, c2 of the two cells split j cuts a child of class
    counts cc into, from its row of pair counts A (cl: the counts of X & s_j).
    Returns False when s_j does not separate the child."""
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


cdef enum:
    CELL_CACHE = 1024    # splits whose cells `_pair_values_u` keeps (24 KiB of stack)


cdef void _pair_values_u(Ctx* c, const double* cc, const int32_t* A, int m,
                         const int32_t* cli, bint right, double* best2, double* peel,
                         int* arg) noexcept nogil:
    """`_pair_values` under a unit cost (`unit_cost`), in whole rows: a cell
    loses u * (its rows - its largest class) and has potential u * its rows, so
    every comparison is on integers (ties exact) and the values are u times
    integer sums.  cli holds the counts of X & s_j as A does (classes 0..K-2,
    then the rows).  Under RULE_PEEL3 the peel is the three-leaf bound
    (`_peel3_rows`)."""
    cdef double u = c.unit
    cdef double t1 = capacity_lam(c)
    cdef int32_t T1 = rows_reaching(t1, u)
    cdef int32_t T2 = rows_reaching(2.0 * t1, u)
    cdef int K = c.K
    cdef int32_t ci[64]
    cdef int32_t ct = 0
    cdef int32_t ib = 2147483647, ip = 2147483647
    cdef int32_t xt, yt, l1, l2
    cdef int j, k, ia = -1
    cdef bint ran
    # the cells the two-class vector loop computed, for the three-leaf pass
    # (read back instead of recomputed: the same integers); up to CELL_CACHE splits
    cdef int32_t cache[6 * CELL_CACHE]
    cdef int32_t* cells = cache if K == 2 and m <= CELL_CACHE else NULL
    for k in range(K):
        ci[k] = <int32_t> cc[k]
        ct += ci[k]
    if K == 2:
        ran = fst_pair_values2u(A, m, cli, right, ci[0], ct, T1, T2, &ib, &ip, &ia, cells)
    else:
        ran = fst_pair_values_ku(A, m, K, cli, right, ci, ct, T1, T2, &ib, &ip, &ia)
    if not ran:
        for j in range(m):
            if not _unit_cells(A, cli, right, ci, ct, K, j, &xt, &yt, &l1, &l2):
                continue                 # s_j does not separate this child
            if l1 + l2 < ib:
                ib = l1 + l2
                ia = j
            if xt >= T1 and yt >= T2 and l1 < ip:
                ip = l1
            if yt >= T1 and xt >= T2 and l2 < ip:
                ip = l2
    if (c.rules & RULE_PEEL3) and ia >= 0 and ip < 2147483647:
        ip = _peel3_rows(A, m, cli, right, ci, ct, K, T1, T2, ib, ip,
                         cells if ran else NULL)
    arg[0] = ia
    best2[0] = u * ib if ia >= 0 else INF
    peel[0] = u * ip if ip < 2147483647 else INF


cdef inline void _pair_values(Ctx* c, const double* cc, const int32_t* A,
                              int m, const double* cl, const int32_t* cli, bint right,
                              double* best2, double* peel, int* arg) noexcept nogil:
    """From one row of pair counts (split i against every split j), for one child of
    split i with class counts cc: the best two-leaf loss (and the split position
    achieving it, -1 if none separates the child) and the cheapest cell any split
    peels off the child, raised to the three-leaf bound under RULE_PEEL3
    (`_peel3_rows`, `_peel_bound`).  cli: cl in whole rows, when `c.unit` > 0."""
    if c.unit > 0.0:
        _pair_values_u(c, cc, A, m, cli, right, best2, peel, arg)
        return
    _pair_values_d(c, cc, A, m, cl, right, best2, peel, arg)
    if (c.rules & RULE_PEEL3) and best2[0] < INF and peel[0] < INF:
        peel[0] = _peel_bound(c, cc, A, m, cl, right, best2[0], peel[0])


cdef inline void _pair_values_d(Ctx* c, const double* cc, const int32_t* A, int m,
                                const double* cl, bint right, double* best2, double* peel,
                                int* arg) noexcept nogil:
    """`_pair_values` in doubles (no unit cost)."""
    cdef int K = c.K
    cdef int j, k
    cdef double c1[64]
    cdef double c2[64]
    cdef double l1, l2
    cdef double x0, x1, y0, y1, s0, s1, q1, q2
    cdef double k00 = c.cost[0], k01, k10, k11
    cdef double t1 = capacity_lam(c)
    cdef double t2 = 2.0 * t1
    arg[0] = -1
    best2[0] = INF
    peel[0] = INF
    if K == 2:
        if fst_pair_values2(A, m, cl, right, cc[0], cc[1], c.cost, c.potc, t1, t2,
                            best2, peel, arg):
            return                       # the vector loop, same values (_simd.h)
        # Two classes: the same sums as leaf_loss (so the same values), unrolled.
        k01 = c.cost[1]
        k10 = c.cost[2]
        k11 = c.cost[3]
        for j in range(m):
            x0 = A[2 * j]
            x1 = A[2 * j + 1] - x0
            if right:
                x0 = cl[2 * j] - x0
                x1 = cl[2 * j + 1] - x1
            y0 = cc[0] - x0
            y1 = cc[1] - x1
            if x0 + x1 == 0.0 or y0 + y1 == 0.0:
                continue                 # s_j does not separate this child
            s0 = x0 * k00 + x1 * k10
            s1 = x0 * k01 + x1 * k11
            l1 = s1 if s1 < s0 else s0
            s0 = y0 * k00 + y1 * k10
            s1 = y0 * k01 + y1 * k11
            l2 = s1 if s1 < s0 else s0
            q1 = x0 * c.potc[0] + x1 * c.potc[1]
            q2 = y0 * c.potc[0] + y1 * c.potc[1]
            _take_pair(l1, l2, q1 >= t1 and q2 >= t2, q2 >= t1 and q1 >= t2, j,
                       best2, peel, arg)
        return
    if fst_pair_values_k(A, m, K, cl, right, cc, c.cost, c.pcols, c.n_pcols, c.potc, t1,
                         t2, best2, peel, arg):
        return                           # the vector loop, same values (_simd.h)
    for j in range(m):
        if not _cells(A, cl, right, cc, K, j, c1, c2):
            continue                     # s_j does not separate this child
        l1 = leaf_loss(c1, K, c.cost, c.pcols, c.n_pcols, NULL)
        l2 = leaf_loss(c2, K, c.cost, c.pcols, c.n_pcols, NULL)
        q1 = potential(c1, K, c.potc)
        q2 = potential(c2, K, c.potc)
        _take_pair(l1, l2, q1 >= t1 and q2 >= t2, q2 >= t1 and q1 >= t2, j,
                   best2, peel, arg)


cdef int32_t _peel3_rows(const int32_t* A, int m, const int32_t* cli, bint right,
                        const int32_t* ci, int32_t ct, int K, int32_t T1, int32_t T2,
                        int32_t ib, int32_t ip, const int32_t* cells) noexcept nogil:
    """The three-leaf bound in whole rows (`_pair_values_u`'s child, best two-leaf
    loss ib, cheapest peel ip): the least over the cells that may peel off (the
    same capacity tests, T1 and T2 rows) of `three_leaf_peel`, a cell losing its
    rows less its largest class and worst(A) being its rows.  Never below ip
    (each cell's value is at least its loss), so the loops end once they reach
    it.  cells: NULL, or the cells `fst_pair_values2u` left for this child."""
    cdef int j
    cdef int32_t xt, yt, l1, l2, w1 = 2147483647, w2
    if K == 2 and fst_peel3_2u(A, m, cli, right, ci[0], ct, T1, T2, ib, ip, &w1, cells):
        return w1
    for j in range(m):
        if not _unit_cells(A, cli, right, ci, ct, K, j, &xt, &yt, &l1, &l2):
            continue                     # s_j does not separate this child
        if xt >= T1 and yt >= T2:
            w2 = l1 + (ib - xt if ib > xt else 0)
            if w2 < w1:
                w1 = w2
        if yt >= T1 and xt >= T2:
            w2 = l2 + (ib - yt if ib > yt else 0)
            if w2 < w1:
                w1 = w2
        if w1 <= ip:
            break                        # no cell goes below the cheapest peel
    return w1


cdef double _peel_bound(Ctx* c, const double* cc, const int32_t* A, int m,
                        const double* cl, bint right, double best2,
                        double peel) noexcept nogil:
    """The three-leaf bound of one child of split i from its row of pair counts,
    in doubles (`_pair_values_d`'s child; best2 and peel are what it returned):
    the least over the cells A that may peel off (the same capacity tests) of
    `three_leaf_peel`: loss(A) + max(0, best2 - worst(A)).  Never below peel
    (each cell's value is at least its loss), so the loop ends once it reaches
    it."""
    cdef int K = c.K
    cdef int j
    cdef double t1 = capacity_lam(c)
    cdef double t2 = 2.0 * t1
    cdef double c1[64]
    cdef double c2[64]
    cdef double l1, l2, q1, q2, v, best = INF
    for j in range(m):
        if not _cells(A, cl, right, cc, K, j, c1, c2):
            continue                     # s_j does not separate this child
        q1 = potential(c1, K, c.potc)
        q2 = potential(c2, K, c.potc)
        if q1 >= t1 and q2 >= t2:
            l1 = leaf_loss(c1, K, c.cost, c.pcols, c.n_pcols, NULL)
            v = three_leaf_peel(l1, best2, worst_loss(c1, K, c.maxcost))
            if v < best:
                best = v
        if q2 >= t1 and q1 >= t2:
            l2 = leaf_loss(c2, K, c.cost, c.pcols, c.n_pcols, NULL)
            v = three_leaf_peel(l2, best2, worst_loss(c2, K, c.maxcost))
            if v < best:
                best = v
        if best <= peel:
            break                        # no cell goes below the cheapest peel
    # Both are bounds on the same trees; the larger stands (the loop's sums may
    # differ from `_pair_values_d`'s in the last bit).
    return best if best > peel else peel


cdef inline void child_shapes(const Node* ch, double lam, double cap,
                              double* g) noexcept nogil:
    """g[a], a = 1..4: lower bounds on the trees with exactly a leaves (a >= 4 for
    g[4]) on a child, among the trees whose every leaf has potential >= lam (R is
    always attained by one: `capacity_lam`); infinite when its depth left or its
    potential cannot hold them (cap: `capacity_lam`, 0 when that rule is off).
    g1 = leaf (exact); g2 = 2 lam + m, or the exact best two-leaf value once the
    pair stage has run (before it, the bound `_transfer_two_leaf` carried from a
    superset when larger); g3 = 3 lam + m, or 3 lam + the pair stage's three-leaf
    bound when larger (a three-leaf tree has a leaf at depth one: the cheapest
    peeled cell, raised by `three_leaf_peel` under RULE_PEEL3); g4 = 4 lam + m.  Here m is
    the child's equivalent-points floor (`Node.floor`): a tree with a leaves costs
    a * lam plus its loss, and its loss is at least m, since rows with identical
    features share every leaf (fastsmalltree-notes, "Equivalent points"; the
    notes charge m only to trees with a split at creation, R >= min(leaf, m + 2
    lam), and the same floor holds for every size).  Each is also >= lb(child),
    since every tree on the child costs at least R(child)."""
    cdef int d = ch.depth
    cdef int a
    cdef double m = ch.floor
    g[1] = ch.leaf
    g[2] = INF if d == 0 else 2.0 * lam + m
    g[3] = INF if (d == 0 or d == 1 or ch.pot < 3.0 * cap) else 3.0 * lam + m
    g[4] = INF if (g[3] == INF or ch.pot < 4.0 * cap) else 4.0 * lam + m
    if ch.pair_done:
        g[2] = ch.g2 if d != 0 else INF
        if g[3] != INF and ch.g3 > g[3]:
            g[3] = ch.g3
    elif g[2] != INF and ch.g2 > g[2]:
        g[2] = ch.g2    # a superset's two-leaf value, transferred (`_transfer_two_leaf`)
    for a in range(2, 5):
        if g[a] != INF and ch.lb > g[a]:
            g[a] = ch.lb


cdef inline double split_shape_bound(const double* gl, const double* gr) noexcept nogil:
    """Lower bound on every tree rooted at this split: trees with <= 3 leaves (and
    (2,2)) cost >= min(g1, g2)(L) + min(g1, g2)(R) -- exact once both children have
    their pair values -- and a tree with a + b >= 4 leaves costs >= g_a(L) + g_b(R)
    (the shape relaxation)."""
    cdef double two = ((gl[1] if gl[1] < gl[2] else gl[2])
                       + (gr[1] if gr[1] < gr[2] else gr[2]))
    cdef double v = two, w
    cdef int a, b
    for a in range(1, 5):
        for b in range(1, 5):
            if a + b >= 4:
                w = gl[a] + gr[b]
                if w < v:
                    v = w
    return v


cdef int _install_two_leaf(Ctx* c, node_t child, const word_t* rows, int32_t s,
                           double value, word_t* T) noexcept nogil:
    """Record the child's best two-leaf tree (split s) as its incumbent when it is
    better: a real tree (ii) -- the grandchildren are created so that extraction
    can rebuild it.  Returns -1 on a memory stop."""
    cdef int nw = c.nw
    cdef int cd = c.memo.nodes[child].depth
    cdef int gd = cd - 1 if cd > 0 else -1
    cdef node_t ga, gb
    cdef Node* nd
    cdef double v
    if not (value < c.memo.nodes[child].ub):
        return 0
    bs_and(T, rows, split_row(c, s), nw)
    ga = node_get(c, T, gd, child, s, 0)
    bs_andnot(T, rows, split_row(c, s), nw)
    gb = node_get(c, T, gd, child, s, 1)
    if ga < 0 or gb < 0:
        return -1
    v = c.memo.nodes[ga].ub + c.memo.nodes[gb].ub
    nd = &c.memo.nodes[child]
    if v < nd.ub:
        nd.ub = v
        nd.best_split = s
    return 0


cdef int _install_side(Ctx* c, Cand* cd, int right, const word_t* X, int32_t s,
                       double value, word_t* RW, word_t* T) noexcept nogil:
    """`_install_two_leaf` on one side of a candidate of the node X (its rows
    built in RW, nw words, only then).  A side not yet stored keeps the tree in
    its record (ub, best_split): `store_record` creates its grandchildren if
    the record is ever stored, and otherwise the record is dropped with the
    candidate.  Returns -1 on a memory stop."""
    cdef node_t child = cd.right if right else cd.left
    cdef Node* rec
    if child >= 0:
        if right:
            bs_andnot(RW, X, split_row(c, cd.split), c.nw)
        else:
            bs_and(RW, X, split_row(c, cd.split), c.nw)
        return _install_two_leaf(c, child, RW, s, value, T)
    rec = &cd.tr if right else &cd.tl
    if value < rec.ub:
        rec.ub = value      # the two leaves of split s: a real tree, built when stored
        rec.best_split = s
    return 0


cdef void _pair_child(Ctx* c, Node* ch, double best2, double peel) noexcept nogil:
    """Store a child's pair values (in the memo, or in its candidate's record); its
    bound rises to min(g1, g2, g3, g4): any tree on it is a leaf, one split
    (exact: best2), or has >= 3 leaves."""
    ch.g2 = 2.0 * c.lam + best2 if best2 < INF else INF
    ch.g3 = 3.0 * c.lam + peel if peel < INF else INF
    ch.pair_done = 1
    _raise_to_shapes(c, ch)


cdef inline bint _raise_to_shapes(Ctx* c, Node* ch) noexcept nogil:
    """Raise a child's bound to min(g1, g2, g3, g4) (`child_shapes`): any tree on
    it is a leaf, one split, or has three, or four or more leaves.  Solved when
    its incumbent (a real tree) meets the bound.  Returns whether the bound rose."""
    cdef double g[5]
    cdef double v
    cdef int a
    cdef bint rose = False
    child_shapes(ch, c.lam, capacity_lam(c), g)
    v = g[1]
    for a in range(2, 5):
        if g[a] < v:
            v = g[a]
    if v > ch.lb:
        ch.lb = v
        rose = True
    if not ch.solved and ch.ub <= ch.lb + TOL:
        ch.lb = ch.ub   # the incumbent meets the proven bound: solved
        ch.solved = 1
    return rose


cdef inline void _transfer_two_leaf(Ctx* c, Node* ch, double v) noexcept nogil:
    """Raise a child C's two-leaf bound to v = g2(X) - worst(X minus C), X the node
    whose pair values are known (g2(X) = 2 lam + best2(X), exact), then its bound to
    min(g1, g2, g3, g4) (`child_shapes`), solved when its incumbent meets it.

    Monotonicity over rows, the argument of `three_leaf_peel` applied to the
    child: send all of X through a two-leaf tree of C (its split u, its two
    labels).  It loses loss_u(C) on C and at most worst(X minus C) on the other rows
    (each at its class's largest cost), and u separates X (it separates C), so
    best2(X) <= loss_u(C) + worst(X minus C): every two-leaf tree on C costs at
    least v.  The trees this bounds are those whose leaves have potential >= lam,
    which attain R (leaf support): u is then valid at C and at every superset,
    among the splits over which best2(X) was taken.  v depends on X's rows and
    C's only, so the raised record is still a bound whoever reads it; a pair
    stage on C later replaces v by the exact value, which is no smaller."""
    if ch.solved or ch.pair_done or not (v > ch.g2):
        return
    ch.g2 = v
    if _raise_to_shapes(c, ch):
        c.transfers += 1


cdef enum:
    PAR_VALUES_MIN = 1 << 14   # rows x splits of a chunk that pays for threads
    # A pair stage counts over the rows of its node compacted (`pair_open`) when
    # that leaves fewer than (COMPACT_SHARE - 1) / COMPACT_SHARE of the words.
    COMPACT_SHARE = 8

# Test hook (`set_compact_rows`): 0 keeps the pair stage on full words.
cdef bint COMPACT_ROWS = True


cdef void _pair_values_row(Ctx* c, int i, int r, const int32_t* A, int m, int K,
                           const double* cl, const int32_t* cli, const double* CR,
                           const uint8_t* NEED, double* VAL, int* ARG) noexcept nogil:
    """The pair values of row r (split position i) of a chunk of pair counts, for
    each side that needs them: VAL[4r..4r+3] and ARG[2r..2r+1]; reads only."""
    ARG[2 * r] = -1
    ARG[2 * r + 1] = -1
    if NEED[2 * r]:
        _pair_values(c, cl + i * K, A + <int64_t> r * m * K, m, cl, cli, False,
                     &VAL[4 * r], &VAL[4 * r + 1], &ARG[2 * r])
    if NEED[2 * r + 1]:
        _pair_values(c, CR + <int64_t> r * K, A + <int64_t> r * m * K, m, cl, cli, True,
                     &VAL[4 * r + 2], &VAL[4 * r + 3], &ARG[2 * r + 1])


cdef struct PairStage:
    # The buffers of one node's pair stage, set up once for all its rounds.
    int64_t chunk    # rows counted at once
    int nwc          # words of a row set in XS and XC: nw, or ceil(|X| / 64) when
                     # the rows of X are compacted (`fst_compact_at`)
    int nb0          # the rows of class 0 in XS are its bits below nb0 (two classes,
                     # Ctx.n0_prefix), or -1: they are XC
    word_t* XS       # m x nwc: X & s_j
    word_t* XT       # XS transposed (`transposed_splits`), or NULL: row kernels
    word_t* XC       # (K - 1) x nwc: X & class k
    int32_t* A       # chunk x m x K: the counts
    double* cl       # m x K: class counts of X & s_j
    int32_t* cli     # cl in whole rows (classes 0..K-2, rows), for a unit cost
    word_t* T
    word_t* RW
    double* VAL      # per row: left best2, left peel, right best2, right peel
    int* ARG         # per row: left and right best split position (-1 none)
    uint8_t* NEED    # per row: left and right lack pair values
    double* CR       # per row: the right child's class counts


cdef void pair_close(PairStage* ps) noexcept nogil:
    free(ps.XS); free(ps.XT); free(ps.XC); free(ps.A); free(ps.cl); free(ps.cli)
    free(ps.T); free(ps.RW); free(ps.VAL); free(ps.ARG); free(ps.NEED); free(ps.CR)
    memset(ps, 0, sizeof(PairStage))


cdef int pair_open(Ctx* c, const word_t* X, const int32_t* valid, int m, int n_rows,
                   bint rounds, PairStage* ps) noexcept nogil:
    """Set up the pair stage at node X for up to n_rows rows against the m valid
    splits; for a stage in rounds, the splits are transposed here once, when
    n_rows reaches TRANSPOSE_ROWS (otherwise `pair_counts` decides at each
    count).  Returns 1, 0 when there is nothing to count, -1 on no memory (then
    `pair_close`)."""
    cdef int K = c.K
    cdef int nw = c.nw
    cdef int i, k, nwc
    cdef int64_t sums[2]
    cdef int64_t total
    cdef bint compact
    cdef word_t* xs
    cdef int32_t* nzw = NULL
    cdef int32_t* nzk = NULL
    cdef int nnz = 0
    memset(ps, 0, sizeof(PairStage))
    if K > 64 or m < 1 or n_rows < 1:
        return 0
    ps.chunk = (<int64_t> 1 << 22) // (<int64_t> m * K) + 1
    if ps.chunk > n_rows:
        ps.chunk = n_rows
    # Compaction: the counts are the same over the rows of X renumbered 0 .. |X|-1
    # (every set counted is inside X), in fewer words when X is sparse.
    nwc = <int> ((bs_count(X, nw) + 63) // 64)
    compact = COMPACT_ROWS and nwc * COMPACT_SHARE < nw * (COMPACT_SHARE - 1) and fst_compact_ok()
    if not compact:
        nwc = nw
    ps.nwc = nwc
    ps.XS = <word_t*> malloc(<int64_t> m * nwc * sizeof(word_t))
    ps.XC = <word_t*> malloc((<int64_t> K * nwc + 1) * sizeof(word_t))
    ps.A = <int32_t*> malloc(ps.chunk * m * K * sizeof(int32_t))
    ps.cl = <double*> malloc(<int64_t> m * K * sizeof(double))
    if c.unit > 0.0:
        ps.cli = <int32_t*> malloc(<int64_t> m * K * sizeof(int32_t))
    ps.T = <word_t*> malloc(nw * sizeof(word_t))
    ps.RW = <word_t*> malloc(nw * sizeof(word_t))
    ps.VAL = <double*> malloc(ps.chunk * 4 * sizeof(double))
    ps.ARG = <int*> malloc(ps.chunk * 2 * sizeof(int))
    ps.NEED = <uint8_t*> malloc(ps.chunk * 2 * sizeof(uint8_t))
    ps.CR = <double*> malloc(ps.chunk * K * sizeof(double))
    if (ps.XS == NULL or ps.XC == NULL or ps.A == NULL or ps.cl == NULL or ps.T == NULL
            or ps.RW == NULL or ps.VAL == NULL or ps.ARG == NULL or ps.NEED == NULL
            or ps.CR == NULL or (c.unit > 0.0 and ps.cli == NULL)):
        return -1
    if compact:
        # Which words of X hold rows, and how many, found once for all the sets
        # compacted below (`fst_compact_plan`): each split's rows are extracted
        # from its whole words, and its class counts taken over the compacted ones.
        nzw = <int32_t*> malloc(2 * (nw + 1) * sizeof(int32_t))
        if nzw == NULL:
            return -1
        nzk = nzw + nw + 1
        nnz = fst_compact_plan(X, nw, nzw, nzk)
    for k in range(K - 1):
        if compact:
            fst_compact_at(c.class_bits + k * nw, X, nzw, nzk, nnz, ps.XC + k * nwc, nwc)
        else:
            bs_and(ps.XC + k * nw, X, c.class_bits + k * nw, nw)
    # Rows sorted by class: the rows of class 0 of X are the first of X, so in
    # the compacted words (row order kept) they are the bits below |X & class 0|,
    # and in the full words the bits below the problem's count of class 0 (every
    # set counted lies inside X).
    ps.nb0 = -1
    if c.n0_prefix >= 0:
        ps.nb0 = <int> bs_count(ps.XC, nwc) if compact else c.n0_prefix
    for i in range(m):
        if compact:
            xs = ps.XS + <int64_t> i * nwc
            fst_compact_at(split_row_bulk(c, valid[i]), X, nzw, nzk, nnz, xs, nwc)
            total = bs_count(xs, nwc)
            for k in range(K - 1):
                ps.cl[i * K + k] = <double> fst_and_count(xs, ps.XC + k * nwc, nwc)
                total -= <int64_t> ps.cl[i * K + k]
            ps.cl[i * K + K - 1] = <double> total
        elif K == 2:
            # one pass: the row set, its rows and its rows of class 0
            xs = ps.XS + <int64_t> i * nw
            fst_and_counts2(X, split_row_bulk(c, valid[i]), c.class_bits,
                            nw, xs, sums)
            ps.cl[2 * i] = <double> sums[1]
            ps.cl[2 * i + 1] = <double> (sums[0] - sums[1])
        else:
            xs = ps.XS + <int64_t> i * nw
            bs_and(xs, X, split_row_bulk(c, valid[i]), nw)
            class_counts(c, xs, bs_count(xs, nw), ps.cl + i * K)
        if c.unit > 0.0:
            ps.cli[i * K + K - 1] = 0
            for k in range(K):
                if k < K - 1:
                    ps.cli[i * K + k] = <int32_t> ps.cl[i * K + k]
                ps.cli[i * K + K - 1] += <int32_t> ps.cl[i * K + k]
    free(nzw)
    if rounds and n_rows >= TRANSPOSE_ROWS:
        ps.XT = transposed_splits(ps.XS, m, K, nwc)   # NULL: the row kernels
    return 1


cdef int pair_run(Ctx* c, PairStage* ps, const word_t* X, const double* cnt,
                  const int32_t* valid, int m, Cand* cands, const int32_t* rows,
                  int n_rows) noexcept nogil:
    """Count and value the rows `rows` of an open stage (`pair_open`, for at least
    n_rows rows): see `pair_stage`.  Returns -1 on a memory stop, or when the
    time limit passes between two chunks (a stage at the root of a fit of many
    classes can take seconds): the rows done keep their values, the others their
    bounds -- any subset is sound -- and the search unwinds as at any stop."""
    cdef int K = c.K
    cdef int nw = c.nw
    cdef int i, k, r0, r, nr, argl, argr, ret = 0
    r0 = 0
    while r0 < n_rows and ret == 0:
        nr = <int> (ps.chunk if r0 + ps.chunk <= n_rows else n_rows - r0)
        if ps.XT != NULL:
            pair_counts_xt(ps.XS, ps.XT, rows + r0, nr, m, K, ps.XC, ps.nwc, ps.A,
                           c.n_threads, ps.nb0)
        else:
            pair_counts(ps.XS, rows + r0, nr, m, K, ps.XC, ps.nwc, ps.A, c.n_threads,
                        ps.nb0)
        c.pair_stages += 1
        # The values of each row are a pure function of its counts: computed for
        # every side still lacking them (in parallel on a large stage, each row
        # by one thread), then installed in row order, which decides ties and
        # skips a side valued meanwhile (a child reached by two splits), as a
        # serial loop does.  So the result does not depend on the threads.
        for r in range(nr):
            i = rows[r0 + r]
            ps.NEED[2 * r] = not cand_node(c, &cands[i], 0).pair_done
            ps.NEED[2 * r + 1] = not cand_node(c, &cands[i], 1).pair_done
            for k in range(K):
                ps.CR[r * K + k] = cnt[k] - ps.cl[i * K + k]
        if c.n_threads > 1 and nr > 1 and <int64_t> nr * m >= PAR_VALUES_MIN:
            for r in prange(nr, num_threads=c.n_threads, schedule="dynamic"):
                _pair_values_row(c, rows[r0 + r], r, ps.A, m, K, ps.cl, ps.cli, ps.CR,
                                 ps.NEED, ps.VAL, ps.ARG)
        else:
            for r in range(nr):
                _pair_values_row(c, rows[r0 + r], r, ps.A, m, K, ps.cl, ps.cli, ps.CR,
                                 ps.NEED, ps.VAL, ps.ARG)
        for r in range(nr):
            i = rows[r0 + r]
            # (a pointer into the memo is taken after an install, which may grow it)
            if not cand_node(c, &cands[i], 0).pair_done:
                argl = ps.ARG[2 * r]
                if argl >= 0 and _install_side(c, &cands[i], 0, X, valid[argl],
                                               2.0 * c.lam + ps.VAL[4 * r], ps.RW,
                                               ps.T) < 0:
                    ret = -1
                    break
                _pair_child(c, cand_node(c, &cands[i], 0), ps.VAL[4 * r], ps.VAL[4 * r + 1])
            if not cand_node(c, &cands[i], 1).pair_done:
                argr = ps.ARG[2 * r + 1]
                if argr >= 0 and _install_side(c, &cands[i], 1, X, valid[argr],
                                               2.0 * c.lam + ps.VAL[4 * r + 2], ps.RW,
                                               ps.T) < 0:
                    ret = -1
                    break
                _pair_child(c, cand_node(c, &cands[i], 1), ps.VAL[4 * r + 2],
                            ps.VAL[4 * r + 3])
        r0 += nr
        if ret == 0 and r0 < n_rows and c.deadline >= 0 and fst_now() > c.deadline:
            c.stop = STOP_TIME
            ret = -1
    if ret < 0 and c.stop == RUNNING:
        c.stop = STOP_MEMORY
    return ret


cdef int pair_stage(Ctx* c, const word_t* X, const double* cnt, const int32_t* valid,
                    int m, Cand* cands, const int32_t* rows, int n_rows) noexcept nogil:
    """The row-count pair stage at node X for the splits `rows` (positions in the
    valid list) against every valid split: each child of each such split gets its
    exact best two-leaf tree (installed as its incumbent, a real tree), its pair
    values g2, g3 and its bound raised to min(g1, g2, g3, g4).  Every value uses
    only splits valid at X: an optimal tree uses only splits valid where it stands,
    and validity at a child implies validity at X.  Returns -1 on a memory stop."""
    cdef PairStage ps
    cdef int ret = pair_open(c, X, valid, m, n_rows, False, &ps)
    if ret > 0:
        ret = pair_run(c, &ps, X, cnt, valid, m, cands, rows, n_rows)
    elif ret < 0 and c.stop == RUNNING:
        c.stop = STOP_MEMORY
    pair_close(&ps)
    return ret if ret < 0 else 0


cdef inline double _split_bound(Ctx* c, Cand* cd, double cap_unit) noexcept nogil:
    """The bound a split gets from its children (RULE_PAIRS): the sum of their
    bounds, or the shape relaxation when larger."""
    cdef double gl[5]
    cdef double gr[5]
    cdef Node* L = cand_node(c, cd, 0)
    cdef Node* R = cand_node(c, cd, 1)
    cdef double v = L.lb + R.lb, w
    child_shapes(L, c.lam, cap_unit, gl)
    child_shapes(R, c.lam, cap_unit, gr)
    w = split_shape_bound(gl, gr)
    return w if w > v else v


cdef int staged_pairs(Ctx* c, const word_t* X, const double* cnt, const int32_t* valid,
                      int m, Cand* cands, int32_t* rows, int* n_rows, double B,
                      double leaf) noexcept nogil:
    """The pair stage of `rows` in rounds: each round values the middle row of every
    run of rows (consecutive on one column) that column transfer does not yet put
    above the budget, so that the bounds it proves spread along the column
    (`column_transfer`: |R(t) - R(t')| <= the potential between them).  A row is
    left out once the transferred bound of its split exceeds B and is no lower
    than the leaf and every bound already known at this node, so the node's bound
    after the stage is the same as if it were valued.  After `c.stage_rounds`
    rounds the rows left are valued together.  Leaving a row out is sound as
    leaving it out under the stage's cap is: its children keep their bounds, and
    the split's bound is the transfer `_expand` applies anyway.  On return `rows`
    holds the rows valued (n_rows of them).  Returns -1 on a memory stop.

    Leaving any row out is sound, so the order and the test only change the
    work: fico 0.05's stages (its first 20,000 expansions, counters not kept)
    had 94% of their rows end above the budget within the transfer of a
    neighbour's bound, and a replay of their bounds valued 27% of the rows in
    rounds.  Side by side: fico 0.05 certified in 30.6 s against 48.8 s, the same
    path (172,390 expansions against 170,856); broward 0.05 9.05 s against 9.12
    (41% of the rows left out, but 7% more expansions: children left without
    pair values are valued later); compas 0.02 558,082 expansions in 60 s
    against 506,771.  A stage whose rows are one a column (the coupon sets'
    binary features) runs whole: rounds could leave nothing out."""
    cdef int n = n_rows[0]
    cdef uint8_t* st = <uint8_t*> calloc(m + 1, sizeof(uint8_t))  # 1 pending, 2 valued
    cdef double* lbs = <double*> malloc((m + 1) * sizeof(double))
    cdef int32_t* pick = <int32_t*> malloc((n + 1) * sizeof(int32_t))
    cdef int32_t* done = <int32_t*> malloc((n + 1) * sizeof(int32_t))
    cdef double mk, cap_unit = capacity_lam(c)
    cdef int i, k, ndone = 0, npick, nleft, round_no = 0
    cdef int ret = 0
    cdef PairStage ps
    cdef int opened = pair_open(c, X, valid, m, n, True, &ps)
    if opened < 0 or st == NULL or lbs == NULL or pick == NULL or done == NULL:
        ret = -1
        if c.stop == RUNNING:
            c.stop = STOP_MEMORY
    elif opened > 0:
        for k in range(n):
            st[rows[k]] = 1
        # Each split's own bound, kept in lbs: after a round only the rows valued
        # change (a child shared with another split keeps the bound it had, lower
        # and still sound, until the end of the stage).
        mk = leaf
        for i in range(m):
            lbs[i] = _split_bound(c, &cands[i], cap_unit)
            if st[i] != 1 and lbs[i] < mk:
                mk = lbs[i]
        while True:
            # Transfer along each column, in the candidates' bounds (`_expand`
            # sets them afresh after the stage).
            for i in range(m):
                cands[i].lb = lbs[i]
            column_transfer(cands, m)
            # Rows left: pending and not above both B and mk; the others are left
            # out for good (bounds only rise and mk only falls as rows are valued).
            nleft = 0
            for i in range(m):
                if st[i] == 1:
                    if cands[i].lb <= B + TOL or cands[i].lb < mk:
                        nleft += 1
                    else:
                        st[i] = 3
            if nleft == 0:
                break
            round_no += 1
            if round_no > c.stage_rounds:
                npick = 0
                for i in range(m):
                    if st[i] == 1:
                        pick[npick] = i
                        npick += 1
            else:
                npick = _run_midpoints(cands, st, m, pick)
            for k in range(npick):
                st[pick[k]] = 2
                done[ndone] = pick[k]
                ndone += 1
            if pair_run(c, &ps, X, cnt, valid, m, cands, pick, npick) < 0:
                ret = -1
                break
            for k in range(npick):
                i = pick[k]
                lbs[i] = _split_bound(c, &cands[i], cap_unit)
                if lbs[i] < mk:
                    mk = lbs[i]
        for k in range(ndone):
            rows[k] = done[k]
        c.pair_rows += ndone
        c.pair_rows_left += n - ndone
    n_rows[0] = ndone
    free(st); free(lbs); free(pick); free(done)
    pair_close(&ps)
    return ret


cdef int _run_midpoints(const Cand* cands, const uint8_t* st, int m,
                        int32_t* pick) noexcept nogil:
    """The middle of each run of rows left (st 1: pending and not above B and mk),
    a run being consecutive such rows on one column (other splits between them do
    not break it).  Returns how many."""
    cdef int i, npick = 0, first = -1, count = 0, k, seen
    cdef int32_t col = -1
    for i in range(m + 1):
        if i < m and st[i] != 1:
            continue
        if i < m and count > 0 and cands[i].col == col:
            count += 1
            continue
        if count > 0:
            # the (count // 2)-th row of the run, counting from `first`
            seen = 0
            for k in range(first, i if i < m else m):
                if st[k] == 1:
                    if seen == count // 2:
                        pick[npick] = k
                        npick += 1
                        break
                    seen += 1
        if i < m:
            first = i
            count = 1
            col = cands[i].col
    return npick


cdef inline bint split_not_worth(Ctx* c, const Cand* cd, const Node* L,
                                 const Node* R) noexcept nogil:
    """Side worth (RULE_WORTH, `side_not_worth`): a side's proven bound above
    the cost of misclassifying all its rows sets the split aside at this node."""
    return (c.rules & RULE_WORTH) != 0 and (
        side_not_worth(L.lb, cd.worst_left, TOL) or side_not_worth(R.lb, cd.worst_right, TOL))


cdef inline void column_transfer(Cand* cands, int n) noexcept nogil:
    """Column transfer: for thresholds t < t' of one column the two splits disagree
    only on the rows between them, of potential pot_left(t') - pot_left(t);
    moving those rows turns any tree rooted at t' into one rooted at t with the
    same leaves and at most that much more loss, so |R(t) - R(t')| <= that
    potential and a bound proved for one threshold bounds its whole column.
    `cands` are in column order, thresholds increasing: one sweep each way."""
    cdef int i
    cdef double v
    for i in range(1, n):
        if cands[i].col == cands[i - 1].col:
            v = cands[i - 1].lb - (cands[i].pot_left - cands[i - 1].pot_left)
            if v > cands[i].lb:
                cands[i].lb = v
    for i in range(n - 2, -1, -1):
        if cands[i].col == cands[i + 1].col:
            v = cands[i + 1].lb - (cands[i + 1].pot_left - cands[i].pot_left)
            if v > cands[i].lb:
                cands[i].lb = v


cdef inline void threshold_exchange(Ctx* c, Cand* cands, int n) noexcept nogil:
    """Threshold exchange: for thresholds t < t' of one column, left(t) is inside
    left(t') and right(t') inside right(t).  If lb(left(t)) >= leaf(left(t')), then
    R(t') = R(left t') + R(right t') <= leaf(left t') + R(right t) <= R(t) (R is
    monotone under inclusion), so t is dropped; symmetrically t' is dropped when
    lb(right(t')) >= leaf(right(t)).  Only neighbours this rule kept are compared
    and a drop is always in favour of such a split, so no cycle drops every split
    of a column; a drop in favour of a split set aside by side worth (never a
    minimiser of R(X)) drops no minimiser either.  Valid at this node only:
    children inherit every valid split."""
    cdef int i, last = -1
    for i in range(n):
        if last >= 0 and cands[last].col == cands[i].col:
            if cand_node(c, &cands[last], 0).lb >= cand_node(c, &cands[i], 0).leaf:
                cands[last].dropped = 1      # t = last is dominated by t' = i
            elif cand_node(c, &cands[i], 1).lb >= cand_node(c, &cands[last], 1).leaf:
                cands[i].dropped = 1         # t' = i is dominated by t = last
                continue
        last = i


cdef struct Sorted:
    # Scratch of `_sorted_run`, one allocation per call.
    int m                  # rows of the node
    int ncu                # columns with a candidate split
    int32_t* cols          # ncu: those columns, increasing
    int32_t* order         # ncu x m: the node's rows sorted on each column
    int32_t* rank          # ncu x m: the rank of each of those rows' value
    uint8_t* side          # n: 0 left of the root split, 1 right (node rows only)
    int32_t* ycls          # ncu x m: the class of each of those rows
    double* tcnt           # 2 K: class counts of the two sides
    int64_t* icnt          # 2 K: the counts of each side up to a threshold
    int64_t* isnap         # 2 K: icnt at each side's last valuation
    double* dcnt           # K: scratch, those counts as doubles
    double* rest           # K: scratch, a side's counts beyond a threshold
    int32_t* tpos          # m: a column's thresholds (last row left of each)
    double* evl            # m: R(L, 1) of each valued threshold of the column
    double* evr            # m: R(R, 1) likewise
    int32_t* stack         # 4 m + 8: queue of intervals of thresholds still open
    double* worst          # m + 1: worst cost of a column's first rows


cdef void _sorted_free(Sorted* d) noexcept nogil:
    free(d.cols); free(d.order); free(d.rank); free(d.ycls); free(d.side)
    free(d.tpos); free(d.evl); free(d.evr); free(d.stack); free(d.worst)
    free(d.tcnt); free(d.icnt); free(d.isnap); free(d.dcnt); free(d.rest)
    memset(d, 0, sizeof(Sorted))


cdef void _depth_one_sides(Ctx* c, Sorted* d, const int64_t* ntot, double* best,
                           int32_t* arg) noexcept nogil:
    """R(S, 1) of both sides S of the root split in `d.side`: best[s] is the least
    of S's leaf and of every split's two leaves, arg[s] that split (-1: the leaf).

    One pass per column over the node's rows sorted on it, counting each side's
    classes up to a threshold (its left leaf; the side's counts less them, its
    right leaf).  Every partition of a side by one split is a prefix of this
    order at a change of rank (split k of a column sends ranks <= k left), so
    the least over them is R(S, 1).  Leaves are valued from whole counts by
    `leaf_loss`, as the stored nodes value them, so a realised tree scores the
    same to the last bit.

    Row bound: moving rows D (D_k of class k) from a split's right leaf to its
    left lowers its value by at most max_j A_j(D) - min_j A_j(D), where A_j(D) =
    sum_k D_k C[k, j] over the labels j a leaf tries: the right leaf's least cost
    min_j (A_j(R) - A_j(D)) >= loss(R) - max_j A_j(D), and the left's
    min_j (A_j(L) + A_j(D)) >= loss(L) + min_j A_j(D).  Under a unit cost u that
    is u (max_k D_k - min_k D_k) <= u max_k D_k; otherwise at most D's potential
    (rows times the largest potential of a row).  After valuing v at a
    threshold, a side's later thresholds are skipped while that bound on the
    rows since stays below v - best[s]; once no rows left to pass could reach
    it, its pass ends."""
    cdef int K = c.K
    cdef int m = d.m
    cdef int u, s, k
    cdef int64_t i
    cdef int64_t n0, n1, e0, e1, l0, l1
    cdef int64_t T0 = ntot[0], T1 = ntot[1]
    cdef bint done0, done1
    cdef double need0, need1, pmax = 0.0, unit = c.unit
    cdef const int32_t* order
    cdef const int32_t* rank
    cdef const int32_t* ycls
    cdef int64_t* ic = d.icnt
    cdef int64_t* snap = d.isnap
    cdef int32_t base, sv
    for k in range(K):
        if c.potc[k] > pmax:
            pmax = c.potc[k]
    for s in range(2):
        arg[s] = -1
        best[s] = INF
        if ntot[s] > 0:
            best[s] = leaf_loss(d.tcnt + s * K, K, c.cost, c.pcols, c.n_pcols, NULL) + c.lam
    for u in range(d.ncu):
        order = d.order + <int64_t> u * m
        rank = d.rank + <int64_t> u * m
        ycls = d.ycls + <int64_t> u * m
        base = c.col_start[d.cols[u]]
        for k in range(2 * K):
            ic[k] = 0
            snap[k] = 0
        n0 = 0; n1 = 0
        e0 = 0; e1 = 0     # rows at each side's last valuation
        l0 = 0; l1 = 0     # rows at each side's last threshold
        need0 = 0.0; need1 = 0.0
        done0 = T0 < 2
        done1 = T1 < 2
        for i in range(m - 1):
            sv = d.side[order[i]]
            ic[sv * K + ycls[i]] += 1
            n1 += sv
            n0 += 1 - sv
            if rank[i + 1] == rank[i]:
                continue
            # (the rows' potential first: O(1); under a unit cost, the most
            # rows of one class only where that does not rule the split out)
            if (n0 != l0 and not done0 and n0 < T0 and (n0 - e0) * pmax >= need0
                    and (unit == 0.0 or need0 == 0.0
                         or _most_moved(ic, snap, K) * unit >= need0)):
                _depth_one_value(c, d, 0, n0, T0, base + rank[i], pmax, best, arg, &need0, &done0)
                e0 = n0
            l0 = n0
            if (n1 != l1 and not done1 and n1 < T1 and (n1 - e1) * pmax >= need1
                    and (unit == 0.0 or need1 == 0.0
                         or _most_moved(ic + K, snap + K, K) * unit >= need1)):
                _depth_one_value(c, d, 1, n1, T1, base + rank[i], pmax, best, arg, &need1, &done1)
                e1 = n1
            l1 = n1
            if done0 and done1:
                break


cdef inline int64_t _most_moved(const int64_t* ic, const int64_t* snap, int K) noexcept nogil:
    """The most rows of one class a side passed since its last valuation."""
    cdef int64_t most = 0
    cdef int k
    for k in range(K):
        if ic[k] - snap[k] > most:
            most = ic[k] - snap[k]
    return most


cdef inline void _depth_one_value(Ctx* c, Sorted* d, int s, int64_t n, int64_t T, int32_t split,
                                  double pmax, double* best, int32_t* arg, double* need,
                                  bint* done) noexcept nogil:
    """Value side s's split at the current threshold of `_depth_one_sides` (its
    first n of T rows left; pmax the largest potential of a row), record its
    counts as the side's last valuation, and update its best, need and end of
    pass (the row bound of `_depth_one_sides` over every row still to pass:
    under a unit cost, the most rows of one class among them)."""
    cdef int K = c.K
    cdef int k
    cdef double v, most = 0.0
    for k in range(K):
        d.isnap[s * K + k] = d.icnt[s * K + k]
        d.dcnt[k] = <double> d.icnt[s * K + k]
        d.rest[k] = d.tcnt[s * K + k] - d.dcnt[k]
        if d.rest[k] > most:
            most = d.rest[k]
    v = ((leaf_loss(d.dcnt, K, c.cost, c.pcols, c.n_pcols, NULL) + c.lam)
         + (leaf_loss(d.rest, K, c.cost, c.pcols, c.n_pcols, NULL) + c.lam))
    c.sorted_leaf_pairs += 1
    if v < best[s]:
        best[s] = v
        arg[s] = split
        need[0] = 0.0
    else:
        need[0] = v - best[s]
        if (most * c.unit if c.unit > 0.0 else (T - n) * pmax) < need[0]:
            done[0] = True


cdef inline double _leaf2(Ctx* c, int64_t n0, int64_t n1) noexcept nogil:
    """`leaf_loss` of two classes with whole counts n0, n1 (the counts the stored
    nodes value, so the same value to the last bit)."""
    cdef double counts[2]
    counts[0] = <double> n0
    counts[1] = <double> n1
    return leaf_loss(counts, 2, c.cost, c.pcols, c.n_pcols, NULL)


cdef inline void _side2_value(Ctx* c, int64_t n, int64_t q, int64_t T, int64_t Q,
                              int32_t split, double al, double be, double* best,
                              int32_t* arg, double* need, bint* done) noexcept nogil:
    """Value a side of two classes at a threshold of `_depth_one_sides2` (its first
    n of T rows left, q and Q of them of class 1) and update its best, need and
    end of pass: the row bound |D_0 al + D_1 be| (see `_depth_one_sides2`) at its
    largest over the rows still to pass, D_0 <= T - n - Q + q, D_1 <= Q - q."""
    cdef double v = ((_leaf2(c, n - q, q) + c.lam)
                     + (_leaf2(c, T - n - Q + q, Q - q) + c.lam))
    cdef double r0 = <double> (T - n - Q + q), r1 = <double> (Q - q)
    cdef double up, down
    c.sorted_leaf_pairs += 1
    if v < best[0]:
        best[0] = v
        arg[0] = split
        need[0] = 0.0
    else:
        need[0] = v - best[0]
        up = (r0 * al if al > 0.0 else 0.0) + (r1 * be if be > 0.0 else 0.0)
        down = (-r0 * al if al < 0.0 else 0.0) + (-r1 * be if be < 0.0 else 0.0)
        if (up if up > down else down) < need[0]:
            done[0] = True


cdef void _depth_one_sides2(Ctx* c, Sorted* d, const int64_t* ntot, double* best,
                            int32_t* arg) noexcept nogil:
    """`_depth_one_sides` for two classes: the counts of a pass live in registers
    (a side's rows and its rows of class 1), with no chain of stores through
    memory from row to row, and every leaf is valued from whole counts exactly
    as the stored nodes value it.

    The row bound of `_depth_one_sides` with two labels a, b: rows D (D_0 of
    class 0, D_1 of class 1) moved from the right leaf to the left lower the
    value by at most |A_a(D) - A_b(D)| = |D_0 al + D_1 be|, al = C[0, a] -
    C[0, b], be = C[1, a] - C[1, b] (under 0/1 loss |D_1 - D_0| / n: rows of
    both classes offset each other); 0 with a single label."""
    cdef int m = d.m
    cdef int u, s
    cdef int64_t i
    cdef int64_t n0, q0, n1, q1, e0n, e0q, e1n, e1q, l0n, l1n
    cdef int64_t T0 = ntot[0], T1 = ntot[1]
    cdef int64_t Q0 = <int64_t> d.tcnt[1], Q1 = <int64_t> d.tcnt[3]   # rows of class 1
    cdef double al = 0.0, be = 0.0, x
    cdef bint done0, done1
    cdef double need0, need1
    cdef const int32_t* order
    cdef const int32_t* rank
    cdef const int32_t* ycls
    cdef int32_t base, sv, yv
    if c.n_pcols == 2:
        al = c.cost[c.pcols[0]] - c.cost[c.pcols[1]]
        be = c.cost[2 + c.pcols[0]] - c.cost[2 + c.pcols[1]]
    for s in range(2):
        arg[s] = -1
        best[s] = INF
    if T0 > 0:
        best[0] = _leaf2(c, T0 - Q0, Q0) + c.lam
    if T1 > 0:
        best[1] = _leaf2(c, T1 - Q1, Q1) + c.lam
    for u in range(d.ncu):
        order = d.order + <int64_t> u * m
        rank = d.rank + <int64_t> u * m
        ycls = d.ycls + <int64_t> u * m
        base = c.col_start[d.cols[u]]
        n0 = 0; q0 = 0; n1 = 0; q1 = 0
        e0n = 0; e0q = 0; e1n = 0; e1q = 0     # counts at each side's last valuation
        l0n = 0; l1n = 0                       # rows at each side's last threshold
        need0 = 0.0; need1 = 0.0
        done0 = T0 < 2
        done1 = T1 < 2
        for i in range(m - 1):
            sv = d.side[order[i]]
            yv = ycls[i]
            n1 += sv
            q1 += sv & yv
            n0 += 1 - sv
            q0 += yv - (sv & yv)
            if rank[i + 1] == rank[i]:
                continue
            # Value a side here when its rows changed since its last threshold,
            # its pass is not done and the row bound does not rule its split out.
            if n0 != l0n and not done0 and n0 < T0:
                x = (n0 - q0 - e0n + e0q) * al + (q0 - e0q) * be
                if (x if x >= 0.0 else -x) >= need0:
                    _side2_value(c, n0, q0, T0, Q0, base + rank[i], al, be, &best[0],
                                 &arg[0], &need0, &done0)
                    e0n = n0
                    e0q = q0
            l0n = n0
            if n1 != l1n and not done1 and n1 < T1:
                x = (n1 - q1 - e1n + e1q) * al + (q1 - e1q) * be
                if (x if x >= 0.0 else -x) >= need1:
                    _side2_value(c, n1, q1, T1, Q1, base + rank[i], al, be, &best[1],
                                 &arg[1], &need1, &done1)
                    e1n = n1
                    e1q = q1
            l1n = n1
            if done0 and done1:
                break


cdef int _depth_two_value(Ctx* c, Sorted* d, const int32_t* order, int64_t* ntot,
                          int64_t nleft, double* v2, int32_t* s2) noexcept nogil:
    """Move the root split to "the first `nleft` rows of `order` left" (rows cross
    one by one, their costs per label moving between the sides' totals) and
    value both sides (`_depth_one_sides`)."""
    cdef int K = c.K
    cdef int k
    cdef int32_t row
    while ntot[0] < nleft:
        row = order[ntot[0]]
        d.side[row] = 0
        d.tcnt[c.y[row]] += 1.0
        d.tcnt[K + c.y[row]] -= 1.0
        ntot[0] += 1
        ntot[1] -= 1
    while ntot[0] > nleft:
        ntot[0] -= 1
        ntot[1] += 1
        row = order[ntot[0]]
        d.side[row] = 1
        d.tcnt[c.y[row]] -= 1.0
        d.tcnt[K + c.y[row]] += 1.0
    if K == 2:
        _depth_one_sides2(c, d, ntot, v2, s2)
    else:
        _depth_one_sides(c, d, ntot, v2, s2)
    c.sorted_splits_valued += 1
    c.work += <int64_t> d.ncu * d.m
    return 0


cdef int _realise_depth_one(Ctx* c, node_t parent, const word_t* X, int32_t s1, int right,
                            int32_t s2, double value, word_t* T) noexcept nogil:
    """Store one side of root split s1 (depth one left) with the tree `_sorted_run`
    found for it: split s2 over two leaves, or a leaf (s2 < 0), of objective
    `value` = R(side, 1).  Returns -1 on a memory stop."""
    cdef int nw = c.nw
    cdef node_t ch
    cdef Node* nd
    if right:
        bs_andnot(T, X, split_row(c, s1), nw)
    else:
        bs_and(T, X, split_row(c, s1), nw)
    ch = node_get(c, T, 1, parent, s1, right)
    if ch < 0:
        return -1
    if s2 >= 0 and _install_two_leaf(c, ch, T, s2, value, T + nw) < 0:
        return -1
    nd = &c.memo.nodes[ch]
    if not nd.solved:
        # value = R(side, 1): the least over the leaf and every split of the
        # side on the columns of `cand` (`_depth_one_sides`, `_depth_one_sides2`;
        # thresholds skipped only by the row bound), which hold a minimiser (see
        # `_sorted_run`); the incumbent realises it: solved.
        if nd.lb < value and value <= nd.ub:
            nd.lb = value
        if nd.ub <= nd.lb + TOL:
            nd.lb = nd.ub
            nd.solved = 1
    return ch


cdef int _sorted_open(Ctx* c, const word_t* X, int m, const int32_t* cand, int ncand,
                      bint sides, Sorted* d) noexcept nogil:
    """The node's rows sorted on each column of `cand` (with their ranks and, for
    depth two (`sides`), classes), and the scratch of the column sweeps.

    Returns 1 when open, 0 when those columns hold fewer than `sorted_min`
    thresholds apiece in X on average (nothing left allocated), -1 on a memory
    stop."""
    cdef uint8_t* seen = NULL
    cdef int u, j, K = c.K
    cdef int64_t i, p, nthr = 0, gthr = 0
    cdef int32_t row
    cdef const int32_t* gorder
    cdef const int32_t* grank
    cdef int32_t* order
    cdef int32_t* rank
    memset(d, 0, sizeof(Sorted))
    seen = <uint8_t*> calloc(c.n_cols + 1, 1)
    d.cols = <int32_t*> malloc((c.n_cols + 1) * sizeof(int32_t))
    if seen == NULL or d.cols == NULL:
        free(seen)
        _sorted_free(d)
        c.stop = STOP_MEMORY
        return -1
    for i in range(ncand):
        seen[c.split_col[cand[i]]] = 1
    for j in range(c.n_cols):
        if seen[j]:
            d.cols[d.ncu] = j
            d.ncu += 1
            gthr += c.col_start[j + 1] - c.col_start[j]
    free(seen)
    if d.ncu == 0 or gthr < c.sorted_min * d.ncu:
        _sorted_free(d)
        return 0
    d.m = m
    d.order = <int32_t*> malloc(<int64_t> d.ncu * m * sizeof(int32_t))
    d.rank = <int32_t*> malloc(<int64_t> d.ncu * m * sizeof(int32_t))
    d.tpos = <int32_t*> malloc((m + 1) * sizeof(int32_t))
    d.evl = <double*> malloc((m + 1) * sizeof(double))
    d.evr = <double*> malloc((m + 1) * sizeof(double))
    d.stack = <int32_t*> malloc((4 * m + 8) * sizeof(int32_t))
    d.worst = <double*> malloc((m + 1) * sizeof(double))
    d.dcnt = <double*> malloc(K * sizeof(double))
    d.rest = <double*> malloc(K * sizeof(double))
    if sides:
        d.side = <uint8_t*> malloc(c.n + 1)
        d.ycls = <int32_t*> malloc(<int64_t> d.ncu * m * sizeof(int32_t))
        d.tcnt = <double*> malloc(2 * K * sizeof(double))
        d.icnt = <int64_t*> malloc(2 * K * sizeof(int64_t))
        d.isnap = <int64_t*> malloc(2 * K * sizeof(int64_t))
    if (d.order == NULL or d.rank == NULL or d.tpos == NULL or d.evl == NULL
            or d.evr == NULL or d.stack == NULL or d.worst == NULL
            or d.dcnt == NULL or d.rest == NULL
            or (sides and (d.side == NULL or d.ycls == NULL or d.tcnt == NULL
                           or d.icnt == NULL or d.isnap == NULL))):
        _sorted_free(d)
        c.stop = STOP_MEMORY
        return -1
    for u in range(d.ncu):
        gorder = c.col_order + <int64_t> d.cols[u] * c.n
        grank = c.row_rank + <int64_t> d.cols[u] * c.n
        order = d.order + <int64_t> u * m
        rank = d.rank + <int64_t> u * m
        p = 0
        for i in range(c.n):
            row = gorder[i]
            if bs_test(X, row):
                order[p] = row
                rank[p] = grank[row]
                if sides:
                    d.ycls[<int64_t> u * m + p] = c.y[row]
                if p > 0 and rank[p] != rank[p - 1]:
                    nthr += 1
                p += 1
    c.work += <int64_t> d.ncu * c.n
    if nthr < c.sorted_min * d.ncu:
        _sorted_free(d)
        return 0
    return 1


cdef inline int _shrink_from_left(Sorted* d, int ja, int jb, double excess) noexcept nogil:
    """The first threshold j in (ja, jb) whose rows since ja are worth at least
    `excess` (worst[tpos[j] + 1] - worst[tpos[ja] + 1] >= excess), or jb: the
    thresholds before it are within `excess` of ja.  Binary search (worst is
    nondecreasing along the column)."""
    cdef int lo = ja + 1, hi = jb, mid
    cdef double base = d.worst[d.tpos[ja] + 1]
    if excess <= 0.0:
        return lo
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if d.worst[d.tpos[mid] + 1] - base >= excess:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline int _shrink_from_right(Sorted* d, int ja, int jb, double excess) noexcept nogil:
    """The last threshold j in (ja, jb) whose rows up to jb are worth at least
    `excess` (worst[tpos[jb] + 1] - worst[tpos[j] + 1] >= excess), or ja."""
    cdef int lo = ja, hi = jb - 1, mid
    cdef double top = d.worst[d.tpos[jb] + 1]
    if excess <= 0.0:
        return hi
    while lo < hi:
        mid = hi - (hi - lo) // 2
        if top - d.worst[d.tpos[mid] + 1] >= excess:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef void _column_pass(Ctx* c, Sorted* d, const int32_t* order, const int32_t* rank,
                       const double* cnt, int32_t* ends, double* key) noexcept nogil:
    """One walk over a column's rows (in `order`, their value ranks in `rank`):
    the column's supported root splits are its thresholds ends[0] .. ends[1]
    (the j-th change of rank is threshold j; ends[1] < ends[0] when none is, and
    every threshold is when leaf support is off), and, when `key` is not NULL,
    key[0] is the least two-leaf loss over all its thresholds (under a unit cost,
    minus the two leaves' rows of their majority classes: an order, not a bound;
    INF when the column has no threshold in the node).

    Leaf support by potential (`split_supported`; the general search tests the
    support `leaf_support`, never larger, so it drops more): a root split with a
    side of potential below lam is never needed -- deleting it and sending that
    side's rows through the other side's tree (of depth <= d - 1) costs at most
    that potential and saves a leaf's lam, so R(X, d) is the least of the leaf
    and the supported splits.  Along the column the left potential only grows
    and the right one only shrinks, so the supported thresholds are contiguous."""
    cdef int K = c.K
    cdef int m = d.m
    cdef int k, j = 0
    cdef int64_t i
    cdef bint support = (c.rules & RULE_SUPPORT) != 0
    cdef double v, kl, kr
    ends[0] = 0 if not support else m
    ends[1] = -1
    if key != NULL:
        key[0] = INF
    for k in range(K):
        d.dcnt[k] = 0.0
    for i in range(m - 1):
        d.dcnt[c.y[order[i]]] += 1.0
        if rank[i + 1] == rank[i]:
            continue
        if key != NULL or support:
            for k in range(K):
                d.rest[k] = cnt[k] - d.dcnt[k]
        if (not support or split_supported(potential(d.dcnt, K, c.potc),
                                           potential(d.rest, K, c.potc), c.lam)):
            if ends[0] > j:
                ends[0] = j
            ends[1] = j
        if key != NULL:
            if c.unit > 0.0:
                # unit cost: the two leaves' errors less the node's rows
                kl = 0.0
                kr = 0.0
                for k in range(K):
                    if d.dcnt[k] > kl:
                        kl = d.dcnt[k]
                    if d.rest[k] > kr:
                        kr = d.rest[k]
                v = -(kl + kr)
            else:
                v = (leaf_loss(d.dcnt, K, c.cost, c.pcols, c.n_pcols, NULL)
                     + leaf_loss(d.rest, K, c.cost, c.pcols, c.n_pcols, NULL))
            if v < key[0]:
                key[0] = v
        j += 1
    if not support:
        ends[1] = j - 1


cdef enum:
    # Where a sorted-column search resumes (`SortedRun.phase`)
    P_COLUMN = 0     # at the next column (ui)
    P_PICK = 1       # at the next threshold of the column's queue
    P_FIRST = 2      # the valued split's first child was asked for
    P_SECOND = 3     # ... its second child


cdef struct SortedRun:
    # A sorted-column search (`_sorted_run`) between its steps: its scratch and
    # every local that lives across a child's solve, so that it resumes where
    # it stopped when the child's frame is done.
    Sorted d
    word_t* T                # 2 nw words: a side's rows
    int32_t* perm            # depth two: the columns in search order
    double* key              # depth two: each column's best two-leaf loss
    int32_t* ends            # depth two: each column's supported thresholds
    bint two                 # the node has depth two left
    int depth
    int m                    # the node's rows
    double best              # the search's incumbent
    double lbmin             # least bound over the root splits so far
    int32_t arg1, argL, argR # depth two: the best root split and its sides' splits
    double vL, vR            # ... and its sides' values
    int ui                   # position of the column being searched
    int u                    # that column (in d)
    int nt, j0, j1           # its thresholds in X, its supported ones
    int nst, head, step, jm  # the queue of intervals; the threshold valued
    int64_t ntot[2]          # depth two: rows left and right of the root split
    int32_t s                # the split being valued
    double sweep_cap         # its children's cap (`_sweep_begin`)
    node_t l, r              # deeper: its children
    node_t first, second     # ... the order they are searched in
    double bl                # the first child's budget
    int ret                  # 1 when the split's value is exact, 0 a bound
    double v2[2]             # the sides' values or bounds
    int32_t s2[2]            # depth two: the sides' best splits
    int phase                # P_*



cdef enum:
    # The states of a frame of the search (`solve`)
    F_BEGIN = 0      # entered: the expansion's set-up comes next (`expand_begin`)
    F_SORTED = 1     # in the sorted-column search, which waits for a child
    F_LOOP = 2       # in the candidate loop, at candidate key k
    F_FIRST = 3      # the loop's candidate waits for its first child
    F_SECOND = 4     # ... for its second child
    F_DONE = 5       # finished: its incumbents are flushed and it is popped


cdef struct Frame:
    # One open `solve(nid, B)` on the search's frame stack: what a level of the
    # recursion held on the C stack.  The arrays are the frame's own (heap), so a
    # frame above it, or a store that moves as it grows, never invalidates them;
    # nodes are always re-read by id.
    node_t nid               # the node being expanded
    double B                 # its budget
    const int32_t* cand      # the splits it may use: its parent's valid splits
    int ncand
    int state                # F_*
    word_t* X                # its rows (nw words)
    int32_t* valid           # its valid splits (ncand + 1)
    double* cnt              # its class counts (K)
    Cand* cands              # one per valid split (ncand + 1)
    int nvalid               # valid splits
    int n_cands              # candidates whose children were looked up (flushed)
    Key* keys                # the candidates in search order (F_LOOP ..)
    int nkeys
    int k                    # the loop's next key
    int i                    # the candidate being searched
    double best              # the loop's incumbent
    double cap               # min(B, best) when the candidate was taken
    double bl                # its first child's budget
    double br                # its second child's budget
    node_t first             # its child searched first (the one of fewer rows)
    node_t second
    SortedRun* srt           # the sorted-column search's state, or NULL
    int want                 # 1: solve `child` (then this frame resumes)
    node_t child
    double child_B
    const int32_t* child_cand
    int child_ncand


cdef inline void _want(Frame* f, node_t child, double B, const int32_t* cand,
                       int ncand) noexcept nogil:
    """Ask the driver to solve `child` within B over `cand` before f resumes."""
    f.want = 1
    f.child = child
    f.child_B = B
    f.child_cand = cand
    f.child_ncand = ncand


cdef bint _frame_enter(Ctx* c, node_t nid, const int32_t* cand, int ncand,
                       double B) noexcept nogil:
    """The entry of `solve(nid, B)`: returns False when the node needs no
    expansion (solved, within TOL of its bound, proved above B, or a stop), else
    pushes its frame and returns True."""
    cdef Node* nd = &c.memo.nodes[nid]
    cdef Frame* f
    cdef Frame* grown
    cdef int64_t cap
    if nd.solved or c.stop:
        return False
    if nd.ub <= nd.lb + TOL:
        # The incumbent meets the proven bound: solved.
        nd.lb = nd.ub
        nd.solved = 1
        return False
    if nd.lb > B + TOL:
        return False
    check_limits(c)
    if c.stop:
        return False
    if c.n_frames == c.cap_frames:
        cap = 2 * c.cap_frames if c.cap_frames > 0 else 64
        grown = <Frame*> realloc(c.frames, cap * sizeof(Frame))
        if grown == NULL:
            c.stop = STOP_MEMORY
            return False
        c.frames = grown
        c.cap_frames = cap
    f = &c.frames[c.n_frames]
    c.n_frames += 1
    memset(f, 0, sizeof(Frame))
    f.nid = nid
    f.B = B
    f.cand = cand
    f.ncand = ncand
    c.expansions += 1
    f.X = <word_t*> malloc(c.nw * sizeof(word_t))
    f.valid = <int32_t*> malloc((ncand + 1) * sizeof(int32_t))
    f.cnt = <double*> malloc(c.K * sizeof(double))
    f.cands = <Cand*> malloc((ncand + 1) * sizeof(Cand))
    if f.X == NULL or f.valid == NULL or f.cnt == NULL or f.cands == NULL:
        c.stop = STOP_MEMORY
        f.state = F_DONE
    else:
        f.state = F_BEGIN
    return True


cdef void _frame_finish(Ctx* c, Frame* f) noexcept nogil:
    """The exit of `solve`: flush the frame's incumbents and pop it.

    Children's incumbents may have improved while they were searched; each
    candidate's tree is real (ii).  Never touches a bound."""
    cdef Node* nd
    cdef int i
    cdef double v
    if f.cands != NULL:
        nd = &c.memo.nodes[f.nid]
        for i in range(f.n_cands):
            if f.cands[i].left < 0 or f.cands[i].right < 0:
                continue   # not stored: its records' trees were weighed in the expansion
            v = cand_node(c, &f.cands[i], 0).ub + cand_node(c, &f.cands[i], 1).ub
            if v < nd.ub:
                nd.ub = v
                nd.best_split = f.cands[i].split
                if nd.lb > nd.ub:
                    nd.lb = nd.ub  # lowering a bound keeps it admissible (i)
        if not nd.solved and nd.ub <= nd.lb + TOL:
            # The incumbent meets the proven bound: solved.
            nd.lb = nd.ub
            nd.solved = 1
    free(f.X)
    free(f.valid)
    free(f.cnt)
    free(f.cands)
    free(f.keys)
    if f.srt != NULL:
        _sorted_release(f.srt)
        free(f.srt)
    c.n_frames -= 1


cdef void solve(Ctx* c, node_t nid, const int32_t* cand, int ncand, double B) noexcept nogil:
    """Solve node `nid` within budget B over the splits `cand` (a superset of its
    valid splits: the parent's valid splits).  On return, unless a stop is set,
    the node is solved with ub <= B + TOL or has lb > B (see the contract above).

    The search runs here on an explicit stack of frames, one per open node: a
    frame that needs a child solved records it (`_want`) and the loop pushes the
    child's frame on top; when that frame is done and popped, the frame below
    resumes where it stopped.  So the depth of the search is bounded by memory,
    never by the C stack, and a stop unwinds every open frame through
    `_frame_finish`, which writes each one's best real tree into its node."""
    cdef int base = c.n_frames
    cdef Frame* f
    if not _frame_enter(c, nid, cand, ncand, B):
        return
    while c.n_frames > base:
        f = &c.frames[c.n_frames - 1]
        if f.want:
            f.want = 0
            _frame_enter(c, f.child, f.child_cand, f.child_ncand, f.child_B)
            continue
        while not f.want and f.state != F_DONE:
            if f.state == F_BEGIN:
                _expand_begin(c, f)
            elif f.state == F_SORTED:
                if _sorted_run(c, f) != 2:
                    f.state = F_DONE
            else:
                _expand_loop(c, f)
        if f.state == F_DONE:
            _frame_finish(c, f)


cdef void _expand_begin(Ctx* c, Frame* f) noexcept nogil:
    """The expansion of frame f's node up to its candidate loop: the sorted-column
    search under a depth limit, else the valid splits, the leaf and single-column
    rules, the children's records, the pair stage, each split's bound and the
    node's; then the candidates in search order (state F_LOOP), or F_DONE when
    the node is settled here.  The frame's candidates whose children were looked
    up (`n_cands`) are flushed when it finishes."""
    cdef node_t nid = f.nid
    cdef Node* nd = &c.memo.nodes[nid]
    cdef int nw = c.nw
    cdef int depth = nd.depth
    cdef int64_t total = nd.count
    cdef int child_depth = depth - 1 if depth > 0 else -1
    cdef int i, k, nvalid = 0, nkeys, nruns, ncand = f.ncand
    cdef int32_t s
    cdef Key* keys = NULL
    cdef double sup, lbmin, v, B = f.B
    cdef Node* L
    cdef Node* R
    cdef bint one_column = True
    cdef int32_t* prows
    cdef int npr
    cdef int64_t maxrows
    cdef double cap_unit = capacity_lam(c)
    cdef const int32_t* cand = f.cand
    cdef word_t* X = f.X
    cdef int32_t* valid = f.valid
    cdef double* cnt = f.cnt
    cdef Cand* cands = f.cands
    f.state = F_DONE
    memcpy(X, memo_key(&c.memo, nid), nw * sizeof(word_t))
    class_counts(c, X, total, cnt)
    if depth >= 2 and c.max_depth >= 0 and (c.rules & RULE_SORTED):
        # Depth two or more left on columns of many thresholds: over sorted
        # columns.  Only under the caller's max_depth: in the depth ladder's
        # rungs (incumbents for a search without a limit, cut off by work) it
        # cost time, measured side by side at 60 s: broward 0.05 certified in
        # 29.6 s against 14.6 s, fico 0.05 in 58.2 s against 41.2 s, and
        # compas 0.02's bound 0.211 against 0.243.
        k = _sorted_start(c, f)
        if k == 2:
            f.state = F_SORTED     # waiting for a child
            return
        if k != 0:
            return

    nvalid = gather_valid(c, X, total, cnt, child_depth, cand, ncand, valid, cands,
                          &one_column)
    f.nvalid = nvalid
    c.work += 20000 + <int64_t> (ncand + 4 * nvalid) * nw
    if nvalid == 0:
        # Leaf support: no supported split, so the best tree is a leaf.
        mark_leaf(nd)
        return
    if one_column and (c.rules & RULE_SEGMENT):
        # Single column: the segmentation programme gives R(X) exactly.
        solve_single_column(c, nid, X, c.split_col[valid[0]])
        return

    # The lookups below miss the cache on a large store: ask for the slot of the
    # candidate PF_SLOT ahead, and for the record behind the slot PF_MATCH ahead
    # when its hash matches (a likely hit), so both arrive before they are read.
    for i in range(PF_SLOT if PF_SLOT < nvalid else nvalid):
        prefetch_slots(&c.memo, &cands[i])
    for i in range(PF_MATCH if PF_MATCH < nvalid else nvalid):
        prefetch_match(&c.memo, cands[i].tl.hash)
        prefetch_match(&c.memo, cands[i].tr.hash)
    for i in range(nvalid):
        if i + PF_SLOT < nvalid:
            prefetch_slots(&c.memo, &cands[i + PF_SLOT])
        if i + PF_MATCH < nvalid:
            prefetch_match(&c.memo, cands[i + PF_MATCH].tl.hash)
            prefetch_match(&c.memo, cands[i + PF_MATCH].tr.hash)
        # A child is stored only when it is searched or its tree becomes this
        # node's incumbent; until then its record lives in the candidate: its
        # creation record (a pure function of its rows), then what the pair stage
        # adds.  Most expansions end proved above the budget right after the pair
        # stage (coupon_carryout 0.025: 270,071 of 296,356), and their children's
        # records are dropped with them: 12 times fewer nodes stored there, and
        # fico 0.05 peaks at 0.23 GB instead of 2.9 GB, at the price of valuing a
        # child again when its parent is expanded again.
        s = valid[i]
        cands[i].left = find_child(c, nid, X, s, False, &cands[i].tl)
        cands[i].right = find_child(c, nid, X, s, True, &cands[i].tr)
        cands[i].split = s
        cands[i].dropped = 0
        f.n_cands = i + 1
    if nvalid >= 1024:
        check_memory_now(c)
        if c.stop:
            return
    nd = &c.memo.nodes[nid]
    if (c.rules & RULE_PEEL3) and nd.pair_done and nd.g2 < INF:
        # X's exact two-leaf value bounds its children's two-leaf trees (less
        # the other side's worst cost): before the pair stage, so that a split
        # it proves above the budget takes no row of the stage (coupon_carryout
        # 0.025: 40% of the rows), and a child it proves a leaf is solved.
        for i in range(nvalid):
            _transfer_two_leaf(c, cand_node(c, &cands[i], 0), nd.g2 - cands[i].worst_right)
            _transfer_two_leaf(c, cand_node(c, &cands[i], 1), nd.g2 - cands[i].worst_left)
    # Pair stage for the candidates within the budget whose children lack pair
    # values (in split order, under a cap on the word-work of one stage; any
    # subset is sound -- a skipped child keeps its bounds).  It writes into the
    # stored children and into the records of the others.
    if (c.rules & RULE_PAIRS) and child_depth != 0:
        prows = <int32_t*> malloc((nvalid + 1) * sizeof(int32_t))
        if prows == NULL:
            c.stop = STOP_MEMORY
            return
        npr = 0
        for i in range(nvalid):
            L = cand_node(c, &cands[i], 0)
            R = cand_node(c, &cands[i], 1)
            if split_not_worth(c, &cands[i], L, R):
                continue     # set aside below; its children need no pair values
            if ((not L.pair_done and not L.solved) or (not R.pair_done and not R.solved)) \
                    and L.lb + R.lb <= B + TOL:
                prows[npr] = i
                npr += 1
        if npr > 0:
            # At the root of a pass (the first frame) the cap is ROOT_PAIR_SHARE
            # times larger: one complete stage there gives the exact best tree of
            # at most three leaves and a bound for every child (breast cancer,
            # 13,500 splits: 1.6e9 word-work, about 0.3 s, and an incumbent of
            # 0.10745 against 0.10921 under the node cap at lambda 0.02).
            # A cell costs K - 1 AND-counts of nw words (and values over K
            # classes), so the cap counts K - 1 times the words: a stage of many
            # classes (a weighted fit has one per (class, weight) pair) stays
            # within the time the cap was tuned for on two classes (breast
            # cancer weighted into 40 classes: the root's stage took 20 s).
            maxrows = ((c.pair_cap_root if c.n_frames == 1 else c.pair_cap)
                       // (<int64_t> nvalid * nw * (c.K - 1) + 1) + 1)
            if npr > maxrows:
                npr = <int> maxrows
            # The work clock is charged for the whole stage even when rounds leave
            # rows out: the schedule's switches stay where they were tuned (fico
            # 0.05 29.6 s charged so, 33.0 s charged for the rows valued, whose
            # earlier switches ran more passes).
            c.work += <int64_t> npr * nvalid * nw
            # Rounds pay when the rows come in runs on a column (fico: about 20
            # thresholds a column), not when each column has one (the coupon sets'
            # binary features: there the rounds only add their bookkeeping).
            nruns = 0
            for k in range(npr):
                if k == 0 or cands[prows[k]].col != cands[prows[k - 1]].col:
                    nruns += 1
            if (npr >= c.stage_min_rows and <int64_t> c.stage_min_run * nruns <= npr
                    and (c.rules & RULE_TRANSFER)):
                if staged_pairs(c, X, cnt, valid, nvalid, cands, prows, &npr, B,
                                c.memo.nodes[nid].leaf) < 0:
                    free(prows)
                    return
            else:
                c.pair_rows += npr
                if pair_stage(c, X, cnt, valid, nvalid, cands, prows, npr) < 0:
                    free(prows)
                    return
            if c.K > 2 or <int64_t> nvalid * nw >= c.keep_pair_words:
                # An expensive stage (per child, nvalid * nw words counted, or
                # values over three or more classes) keeps its children: valuing
                # them again would cost more than storing them.
                for k in range(npr):
                    if store_children(c, nid, X, &cands[prows[k]]) < 0:
                        free(prows)
                        return
        free(prows)
    sup = 0.0
    nd = &c.memo.nodes[nid]
    for i in range(nvalid):
        L = cand_node(c, &cands[i], 0)
        R = cand_node(c, &cands[i], 1)
        if c.rules & RULE_PAIRS:
            # Shape relaxation (and the exact two-level value): a bound on every
            # tree rooted at this split.
            cands[i].lb = _split_bound(c, &cands[i], cap_unit)
        else:
            cands[i].lb = L.lb + R.lb
        v = L.ub + R.ub
        if v < nd.ub:
            # (ii) a real tree: split s over the children's trees, stored so that
            # extraction can rebuild it (a stored child's incumbent is no worse
            # than its record's)
            if store_children(c, nid, X, &cands[i]) < 0:
                return
            nd = &c.memo.nodes[nid]
            L = cand_node(c, &cands[i], 0)
            R = cand_node(c, &cands[i], 1)
            nd.ub = L.ub + R.ub
            nd.best_split = cands[i].split
        if split_not_worth(c, &cands[i], L, R):
            cands[i].dropped = 1   # never optimal at X: side worth (_bounds.pxd)
        if L.lb > sup:
            sup = L.lb
        if R.lb > sup:
            sup = R.lb
    if c.rules & RULE_TRANSFER:
        column_transfer(cands, nvalid)
    if c.rules & RULE_EXCHANGE:
        threshold_exchange(c, cands, nvalid)
    # R(X) = min(leaf, min over kept splits of R(split)) >= lbmin: every dropped
    # split is dominated by a kept one (exchange) or is never a minimiser (side
    # worth), so a minimiser is always kept.
    lbmin = nd.leaf
    for i in range(nvalid):
        if not cands[i].dropped and cands[i].lb < lbmin:
            lbmin = cands[i].lb
    # Superset bound, only without a depth limit: R(X) >= R(S) >= lb(S) for a child
    # S.  Under max_depth the child's bound is for one level less, and
    # R(S, d - 1) >= R(S, d) can exceed R(X, d) (the oracle tests catch this).
    if sup > lbmin and depth < 0 and (c.rules & RULE_SUPERSET):
        lbmin = sup
    if lbmin > nd.lb:
        nd.lb = lbmin
    if nd.ub <= nd.lb + TOL:
        # The incumbent meets the proven bound: solved.
        nd.lb = nd.ub
        nd.solved = 1
        return
    if nd.lb > B + TOL:
        return  # proved above the budget (the children valued here are dropped)

    keys = <Key*> malloc(nvalid * sizeof(Key))
    if keys == NULL:
        c.stop = STOP_MEMORY
        return
    nkeys = 0
    for i in range(nvalid):
        if not cands[i].dropped:
            if c.order_ub:
                keys[nkeys].ord = cand_node(c, &cands[i], 0).ub + cand_node(c, &cands[i], 1).ub
            else:
                keys[nkeys].ord = cands[i].lb
            keys[nkeys].split = cands[i].split
            keys[nkeys].idx = i
            nkeys += 1
    qsort(keys, nkeys, sizeof(Key), cmp_key)
    f.keys = keys
    f.nkeys = nkeys
    f.best = nd.ub
    f.k = 0
    f.state = F_LOOP


cdef void _expand_loop(Ctx* c, Frame* f) noexcept nogil:
    """Frame f's candidate loop, from where it stopped: the candidates in search
    order, each one's children searched with look-ahead budgets (the first asked
    of the driver in state F_FIRST, the second in F_SECOND), until no candidate
    can fit the budget or beat the incumbent; then the node's bound (F_DONE)."""
    cdef Node* nd
    cdef Node* L
    cdef Node* R
    cdef Cand* cands = f.cands
    cdef Key* keys = f.keys
    cdef double B = f.B, cap, v, lbmin
    cdef int i, k
    cdef bint ended = False
    if f.state == F_FIRST:
        i = f.i
        if c.stop:
            ended = True
        else:
            L = &c.memo.nodes[f.first]
            R = &c.memo.nodes[f.second]
            if not (L.solved and L.ub <= f.bl + TOL):
                # Look-ahead: the first child is proved above its share, the split
                # above cap.
                if L.lb + R.lb > cands[i].lb:
                    cands[i].lb = L.lb + R.lb
                f.k += 1
            else:
                f.br = f.cap - L.ub
                f.state = F_SECOND
                _want(f, f.second, f.br, f.valid, f.nvalid)
                return
    elif f.state == F_SECOND:
        i = f.i
        if c.stop:
            ended = True
        else:
            L = &c.memo.nodes[f.first]
            R = &c.memo.nodes[f.second]
            if not (R.solved and R.ub <= f.br + TOL):
                # Look-ahead: the second child is proved above what the solved
                # first leaves.
                if L.ub + R.lb > cands[i].lb:
                    cands[i].lb = L.ub + R.lb
            else:
                v = L.ub + R.ub
                cands[i].lb = v  # both children solved: the split's value is exact
                if v < f.best:
                    f.best = v
                    nd = &c.memo.nodes[f.nid]
                    nd.ub = v              # (ii) a real tree
                    nd.best_split = cands[i].split
            f.k += 1
    f.state = F_LOOP
    while not ended and f.k < f.nkeys:
        k = f.k
        i = keys[k].idx
        cap = B if B < f.best else f.best
        if cands[i].lb > cap + TOL:
            # Bounds only rise (column transfer from failed neighbours), so this
            # candidate is out; later keys were sorted no lower, but their bounds
            # may have risen too: skip rather than stop.
            if keys[k].ord > cap + TOL and not c.order_ub:
                break  # sorted: no remaining split fits the budget
            f.k += 1
            continue
        if f.best <= B + TOL and cands[i].lb >= f.best - TOL:
            if keys[k].ord >= f.best - TOL and not c.order_ub:
                break  # no remaining split can improve on the incumbent
            f.k += 1
            continue
        # Both children are searched from here on: store them.
        if store_children(c, f.nid, f.X, &cands[i]) < 0:
            break
        # Look-ahead budgets: the first child gets what the second leaves at least,
        # the second what the first's optimum leaves.  The child of fewer rows goes
        # first (ties: the left): it is solved cheaply, and its exact value then
        # gives the larger child a tighter budget than its sibling's bound would.
        # Either order is sound; measured side by side against the left first:
        # coupon_rest20 0.025 7.3 s against 11.0 s, broward 0.05 11.6 against
        # 13.0 s, fico 0.05 unchanged (47 s).
        if c.memo.nodes[cands[i].right].count < c.memo.nodes[cands[i].left].count:
            f.first = cands[i].right
            f.second = cands[i].left
        else:
            f.first = cands[i].left
            f.second = cands[i].right
        f.i = i
        f.cap = cap
        f.bl = cap - c.memo.nodes[f.second].lb
        f.state = F_FIRST
        _want(f, f.first, f.bl, f.valid, f.nvalid)
        return
    free(f.keys)
    f.keys = NULL
    f.state = F_DONE
    if c.stop:
        return

    nd = &c.memo.nodes[f.nid]
    if f.best <= B + TOL:
        # Every kept split has lb >= best - TOL (evaluated, proved above cap, or cut
        # off by the sorted order), and the leaf is >= best: R(X) = best.
        nd.lb = nd.ub
        nd.solved = 1
        return
    # Every kept split and the leaf are proved above B: the bound rises to their
    # min, after spreading the raised bounds along each column.
    if c.rules & RULE_TRANSFER:
        column_transfer(cands, f.nvalid)
    lbmin = nd.leaf
    for i in range(f.nvalid):
        if not cands[i].dropped and cands[i].lb < lbmin:
            lbmin = cands[i].lb
    if lbmin > nd.lb:
        nd.lb = lbmin


cdef void _sorted_release(SortedRun* r) noexcept nogil:
    """Free what a sorted-column search still holds (nothing after it ends)."""
    free(r.perm)
    free(r.key)
    free(r.ends)
    free(r.T)
    r.perm = NULL
    r.key = NULL
    r.ends = NULL
    r.T = NULL
    _sorted_free(&r.d)
    memset(&r.d, 0, sizeof(Sorted))


cdef int _sorted_start(Ctx* c, Frame* f) noexcept nogil:
    """Open the sorted-column search of frame f's node (see `_sorted_run`, whose
    argument covers both): 0 when its columns are too few thresholds apiece for
    it to pay (the frame expands the node), 1 when done (or a memory stop), 2
    when it waits for a child."""
    cdef Node* nd = &c.memo.nodes[f.nid]
    cdef SortedRun* r
    cdef int u, q, ret
    cdef int m = <int> nd.count
    f.srt = <SortedRun*> calloc(1, sizeof(SortedRun))
    if f.srt == NULL:
        c.stop = STOP_MEMORY
        return 1
    r = f.srt
    r.m = m
    r.depth = nd.depth
    r.two = nd.depth == 2
    ret = _sorted_open(c, f.X, m, f.cand, f.ncand, r.two, &r.d)
    if ret <= 0:
        return 1 if ret < 0 else 0
    r.T = <word_t*> malloc(2 * c.nw * sizeof(word_t))
    if r.T == NULL:
        _sorted_release(r)
        c.stop = STOP_MEMORY
        return 1
    c.sorted_nodes += 1

    r.best = nd.ub
    r.lbmin = nd.leaf
    r.arg1 = -1
    r.argL = -1
    r.argR = -1
    # At depth two, columns in the order of their best two-leaf split (ties by
    # column): a good incumbent early tightens the cap of every later column.
    # The order only changes the work: every column is searched.  Deeper nodes
    # keep the column order: measured at depth 3 (lambda 0.01), ordering them too
    # saved little more (room 12,763 -> 11,049 valuations; rice, htru and raisin
    # the same) and changed which trees a time limit stops at: fault's best at
    # 30 s fell from 0.42536 to 0.43242.
    if r.two:
        r.perm = <int32_t*> malloc((r.d.ncu + 1) * sizeof(int32_t))
        r.key = <double*> malloc((r.d.ncu + 1) * sizeof(double))
        r.ends = <int32_t*> malloc(2 * (r.d.ncu + 1) * sizeof(int32_t))
    if r.perm != NULL and r.key != NULL and r.ends != NULL:
        for u in range(r.d.ncu):
            _column_pass(c, &r.d, r.d.order + <int64_t> u * m, r.d.rank + <int64_t> u * m,
                         f.cnt, r.ends + 2 * u, r.key + u)
            # insertion: stable, so ties keep the column order
            q = u
            while q > 0 and r.key[r.perm[q - 1]] > r.key[u]:
                r.perm[q] = r.perm[q - 1]
                q -= 1
            r.perm[q] = u
        c.work += <int64_t> r.d.ncu * m
    else:
        free(r.perm)
        free(r.key)
        free(r.ends)
        r.perm = NULL
        r.key = NULL
        r.ends = NULL
    r.ui = 0
    r.phase = P_COLUMN
    return _sorted_run(c, f)


cdef bint _sorted_column(Ctx* c, Frame* f, SortedRun* r) noexcept nogil:
    """Set up column r.ui of the search: its thresholds in X, its worst-cost
    prefix, its supported root splits and the queue of intervals.  False when
    the column has no supported threshold (the search goes on to the next)."""
    cdef Sorted* d = &r.d
    cdef int m = r.m, K = c.K, k
    cdef int64_t i
    cdef int32_t se[2]
    cdef int32_t* order
    cdef int32_t* rank
    r.u = r.perm[r.ui] if r.perm != NULL else r.ui
    order = d.order + <int64_t> r.u * m
    rank = d.rank + <int64_t> r.u * m
    # The column's thresholds in X: tpos[j] is the last row (in this order)
    # left of threshold j.  worst[i]: the worst cost of the column's first
    # i rows (`worst_loss`).
    r.nt = 0
    d.worst[0] = 0.0
    for i in range(m):
        d.worst[i + 1] = d.worst[i] + c.maxcost[c.y[order[i]]]
        if i + 1 < m and rank[i + 1] != rank[i]:
            d.tpos[r.nt] = <int32_t> i
            r.nt += 1
    if r.nt == 0:
        return False
    if r.two:
        for i in range(m):
            d.side[order[i]] = 1
        for k in range(K):
            d.tcnt[k] = 0.0
            d.tcnt[K + k] = f.cnt[k]
        r.ntot[0] = 0     # the rows order[0 .. ntot[0] - 1] are left
        r.ntot[1] = m
    # The supported root splits, j0 .. j1 (`_column_pass`; at depth two
    # found by the ordering pass above).
    if r.ends == NULL:
        _column_pass(c, d, order, rank, f.cnt, se, NULL)
        r.j0 = se[0]
        r.j1 = se[1]
    else:
        r.j0 = r.ends[2 * r.u]
        r.j1 = r.ends[2 * r.u + 1]
    c.sorted_splits_set_aside += r.nt - (r.j1 - r.j0 + 1 if r.j1 >= r.j0 else 0)
    if r.j1 < r.j0:
        return False
    # Queue of intervals (a, b) of valued ends; (j0, j1) once its ends are.
    d.stack[0] = r.j0
    d.stack[1] = r.j1
    r.nst = 1     # intervals queued: d.stack[2 * head .. 2 * nst - 1]
    r.head = 0
    r.step = 0
    r.jm = 0
    return True


cdef int _sorted_pick(Ctx* c, Frame* f, SortedRun* r, double* wh) noexcept nogil:
    """The column's next threshold to value (r.jm), by the search's bisection:
    its first and last supported thresholds, then the middle of each interval
    of the queue that its ends' bounds do not put above the cap (first in first
    out).  Returns 1 with r.jm set (and *wh, what the children's cap adds), 0
    when the column is done."""
    cdef Sorted* d = &r.d
    cdef int ja, jb, lo, hi
    cdef double cap, lbt, v, wab, B = f.B
    while True:
        wh[0] = 0.0
        if r.step == 0:
            r.jm = r.j0
        elif r.step == 1:
            if r.j1 == r.j0:
                r.step = 2
                continue
            r.jm = r.j1
        else:
            if r.head == r.nst:
                return 0
            ja = d.stack[2 * r.head]
            jb = d.stack[2 * r.head + 1]
            r.head += 1
            if jb - ja < 2:
                continue
            cap = B if B < r.best else r.best
            # Interval bound (see `_sorted_run`): R(t) >= lb(L_a) + lb(R_b).  And
            # the neighbour bound: R(t) >= lb(a) - worst(rows between a and t),
            # likewise from b (rows crossing from the right side to the left
            # lower R(R) by at most their worst cost and only raise R(L)).
            wab = d.worst[d.tpos[jb] + 1] - d.worst[d.tpos[ja] + 1]
            lbt = d.evl[ja] + d.evr[jb]
            v = d.evl[ja] + d.evr[ja] - wab
            if v > lbt:
                lbt = v
            v = d.evl[jb] + d.evr[jb] - wab
            if v > lbt:
                lbt = v
            if lbt > cap + TOL:
                c.sorted_splits_set_aside += jb - ja - 1
                if lbt < r.lbmin:
                    r.lbmin = lbt
                continue
            # Shrink the interval by the neighbour bound: a threshold t with
            # lb(a) - worst(rows a..t) > cap is above cap, and these t are a
            # prefix of (a, b) (worst grows along the column); likewise a
            # suffix from b.  They are set aside with that bound (each one's
            # at least the bound at the prefix's last, resp. the suffix's
            # first threshold), and the middle of what is left is valued,
            # not the middle of (a, b): a valuation is never spent on a
            # threshold already proved above cap.
            if c.sorted_shrink:
                lo = _shrink_from_left(d, ja, jb, d.evl[ja] + d.evr[ja] - cap - TOL)
                hi = _shrink_from_right(d, ja, jb, d.evl[jb] + d.evr[jb] - cap - TOL)
            else:
                lo = ja + 1
                hi = jb - 1
            if lo > ja + 1:
                v = d.evl[ja] + d.evr[ja] - (d.worst[d.tpos[lo - 1] + 1]
                                             - d.worst[d.tpos[ja] + 1])
                if v < r.lbmin:
                    r.lbmin = v
            if hi < jb - 1:
                v = d.evl[jb] + d.evr[jb] - (d.worst[d.tpos[jb] + 1]
                                             - d.worst[d.tpos[hi + 1] + 1])
                if v < r.lbmin:
                    r.lbmin = v
            if lo > hi:
                c.sorted_splits_set_aside += jb - ja - 1
                continue
            # (the prefix and suffix are counted as set aside when the halves
            # holding them are taken from the queue and shrunk again)
            r.jm = lo + (hi - lo) // 2
            # Both halves queued: intervals are taken first in first out, so
            # a column is sampled evenly before any part of it is refined (a
            # good incumbent early tightens the cap; measured against last in
            # first out, depth 3: rice 1.5 s against 2.5 s, htru 3.6 s against
            # 4.7 s, wilt at lambda 0 certified in 11.7 s against open at 30 s)
            d.stack[2 * r.nst] = ja
            d.stack[2 * r.nst + 1] = r.jm
            d.stack[2 * r.nst + 2] = r.jm
            d.stack[2 * r.nst + 3] = jb
            r.nst += 2
            # Children searched within cap plus the worst cost of the rows
            # to the farther end of what is left open, [lo, hi]: a split
            # proved above that puts all of it above cap by the neighbour
            # bound (the rest is above cap already).
            wh[0] = d.worst[d.tpos[r.jm] + 1] - d.worst[d.tpos[lo] + 1]
            v = d.worst[d.tpos[hi] + 1] - d.worst[d.tpos[r.jm] + 1]
            if v > wh[0]:
                wh[0] = v
        r.step += 1 if r.step < 2 else 0
        return 1


cdef void _sorted_record(Ctx* c, Frame* f, SortedRun* r) noexcept nogil:
    """Record the valuation of threshold r.jm: its sides' values or bounds, the
    least bound, and the incumbent when its value is exact and better."""
    cdef Sorted* d = &r.d
    cdef double v
    cdef Node* nd
    d.evl[r.jm] = r.v2[0]
    d.evr[r.jm] = r.v2[1]
    v = r.v2[0] + r.v2[1]
    if v < r.lbmin:
        r.lbmin = v
    if r.ret == 1 and v < r.best:
        r.best = v
        if r.two:
            r.arg1 = r.s
            r.argL = r.s2[0]
            r.argR = r.s2[1]
            r.vL = r.v2[0]
            r.vR = r.v2[1]
        else:
            # (ii) a real tree: split s over its children's solved trees
            nd = &c.memo.nodes[f.nid]
            if v < nd.ub:
                nd.ub = v
                nd.best_split = r.s


cdef int _sweep_begin(Ctx* c, Frame* f, SortedRun* r) noexcept nogil:
    """Value root split r.s of a node of depth >= 3 left: both children stored
    and searched as the candidate loop searches a split -- the smaller first,
    within what the other's bound leaves of the cap (r.sweep_cap), the other
    within what the first's optimum leaves (`_sweep_end` reads their bounds).
    Returns 2 when a child is asked for (P_FIRST), 1 when neither needs a
    search, -1 on a memory stop."""
    cdef int nw = c.nw
    bs_and(r.T, f.X, split_row(c, r.s), nw)
    r.l = node_get(c, r.T, r.depth - 1, f.nid, r.s, 0)
    if r.l < 0:
        return -1
    bs_andnot(r.T, f.X, split_row(c, r.s), nw)
    r.r = node_get(c, r.T, r.depth - 1, f.nid, r.s, 1)
    if r.r < 0:
        return -1
    c.sorted_splits_valued += 1
    if c.memo.nodes[r.l].lb + c.memo.nodes[r.r].lb <= r.sweep_cap + TOL:
        if c.memo.nodes[r.r].count < c.memo.nodes[r.l].count:
            r.first = r.r
            r.second = r.l
        else:
            r.first = r.l
            r.second = r.r
        r.bl = r.sweep_cap - c.memo.nodes[r.second].lb
        r.phase = P_FIRST
        _want(f, r.first, r.bl, f.cand, f.ncand)
        return 2
    return 1


cdef void _sweep_end(Ctx* c, SortedRun* r) noexcept nogil:
    """The valued split's sides' bounds (their optima when solved); r.ret 1 when
    both are solved (the split's value is exact)."""
    r.v2[0] = c.memo.nodes[r.l].lb
    r.v2[1] = c.memo.nodes[r.r].lb
    r.ret = 1 if c.memo.nodes[r.l].solved and c.memo.nodes[r.r].solved else 0


cdef int _sorted_run(Ctx* c, Frame* f) noexcept nogil:
    """Search a depth-limited node (depth d >= 2 left) over its rows sorted on
    each column, one column at a time, its thresholds by bisection, from where
    it stopped (r.phase).  Returns 2 when it waits for a child (asked of the
    driver: the frame resumes here), 1 when done (the node solved, or its bound
    raised above B, or a stop).

    R(X, d) = min(leaf, min over root splits t of R(L_t, d - 1) + R(R_t, d - 1)).
    Along a column, L_t grows and R_t shrinks with the threshold, and a tree of
    a set, applied to a subset, costs no more (costs are nonnegative; its empty
    leaves could only be merged away, saving lambda).  So for thresholds a < t < b
    of one column, R(L_t) >= R(L_a) and R(R_t) >= R(R_b): every root split
    strictly between two valued ones has R(t) >= lb(L_a) + lb(R_b) (the interval
    bound).  And rows D crossing from the right side to the left lower R(R) by
    at most worst(D), their cost each at its class's largest (the smaller set's
    optimal tree, applied to it plus D, costs at most that more), so also
    R(t) >= lb(a) - worst(rows between a and t), and likewise from b (the
    neighbour bound).  Each column's first and last thresholds are valued; an
    interval whose bounds put it above min(B, incumbent) is set aside with that
    bound, any other is split at its middle threshold, which is valued.

    Valuing a root split: at depth two, R(L, 1) and R(R, 1) exactly, in one pass
    over the node's rows per column (`_depth_one_sides`, `_depth_one_sides2`):
    about m * columns steps, where the pair stage spends nw words on every pair
    of splits.  Deeper, its children are stored and searched (`_sweep_begin`)
    within min(B, incumbent) plus the worst cost of the rows to the interval's
    farther end: a split proved above that puts the whole interval above the
    cap by the neighbour bound.  On columns of many thresholds (continuous
    features) this is far cheaper than the candidate loop, which values every
    root split.

    Columns are those of the frame's candidate splits (a superset of X's valid
    splits: a column with none has no split useful at X, see `solve`); every
    threshold of such a column at a change of rank in X is a root split here."""
    cdef SortedRun* r = f.srt
    cdef Sorted* d = &r.d
    cdef double wh, cap, B = f.B
    cdef int ret
    cdef int32_t* rank
    while True:
        if r.phase == P_COLUMN:
            if r.ui >= d.ncu:
                break
            check_limits(c)
            if c.stop:
                break
            if not _sorted_column(c, f, r):
                r.ui += 1
                continue
            r.phase = P_PICK
        if r.phase == P_PICK:
            if not _sorted_pick(c, f, r, &wh):
                r.ui += 1
                r.phase = P_COLUMN
                continue
            rank = d.rank + <int64_t> r.u * r.m
            r.s = c.col_start[d.cols[r.u]] + rank[d.tpos[r.jm]]
            if r.two:
                check_limits(c)    # a valuation may take long on a large node
                if c.stop:
                    break
                _depth_two_value(c, d, d.order + <int64_t> r.u * r.m, r.ntot,
                                 d.tpos[r.jm] + 1, r.v2, r.s2)
                r.ret = 1
                _sorted_record(c, f, r)
                continue
            cap = B if B < r.best else r.best
            r.sweep_cap = cap + wh
            ret = _sweep_begin(c, f, r)
            if ret == 2:
                return 2
            if ret < 0:
                break
            _sweep_end(c, r)
            _sorted_record(c, f, r)
            continue
        if r.phase == P_FIRST:
            if c.stop:
                break
            if (c.memo.nodes[r.first].solved
                    and c.memo.nodes[r.first].ub <= r.bl + TOL):
                r.phase = P_SECOND
                _want(f, r.second, r.sweep_cap - c.memo.nodes[r.first].ub, f.cand,
                      f.ncand)
                return 2
            _sweep_end(c, r)
            _sorted_record(c, f, r)
            r.phase = P_PICK
            continue
        if r.phase == P_SECOND:
            if c.stop:
                break
            _sweep_end(c, r)
            _sorted_record(c, f, r)
            r.phase = P_PICK
            continue
    return _sorted_finish(c, f, r)


cdef int _sorted_finish(Ctx* c, Frame* f, SortedRun* r) noexcept nogil:
    """The end of a sorted-column search: the best depth-two tree realised, the
    node's bound raised to the least over its root splits (unless stopped).
    Returns 1."""
    cdef bint stopped = c.stop != RUNNING
    cdef node_t chl, chr = -1
    cdef Node* nd
    cdef double v
    free(r.perm)
    free(r.key)
    free(r.ends)
    r.perm = NULL
    r.key = NULL
    r.ends = NULL
    _sorted_free(&r.d)
    memset(&r.d, 0, sizeof(Sorted))
    if r.arg1 >= 0:
        # (ii) a real tree: root split arg1 over the sides' trees, stored with their
        # grandchildren so that extraction rebuilds it.
        chl = _realise_depth_one(c, f.nid, f.X, r.arg1, 0, r.argL, r.vL, r.T)
        if chl >= 0:
            chr = _realise_depth_one(c, f.nid, f.X, r.arg1, 1, r.argR, r.vR, r.T)
        if chl < 0 or chr < 0:
            free(r.T)
            r.T = NULL
            return 1
        nd = &c.memo.nodes[f.nid]
        v = c.memo.nodes[chl].ub + c.memo.nodes[chr].ub
        if v < nd.ub:
            nd.ub = v
            nd.best_split = r.arg1
    free(r.T)
    r.T = NULL
    if stopped:
        return 1     # a stop: the incumbent is recorded, no bound is claimed
    nd = &c.memo.nodes[f.nid]
    # R(X, d) >= min(leaf, every root split's value or bound) = lbmin: every root
    # split of X is on a column of the candidates and was valued or set aside.
    if r.lbmin > nd.lb:
        nd.lb = r.lbmin
    if nd.ub <= nd.lb + TOL:
        nd.lb = nd.ub
        nd.solved = 1
    return 1


cdef double install_tree(Ctx* c, const word_t* X, int src_depth) noexcept nogil:
    """Copy the tree recorded at (X, src_depth) -- a depth-limited node -- onto the
    unlimited nodes (X, -1) below, as incumbents: bottom-up, each unlimited node
    takes the copied split when the sum of its children's incumbents beats its
    own.  Every value written is that of a real tree (ii); no bound is touched.
    Returns the incumbent of (X, -1), or -1 on a memory stop."""
    cdef int nw = c.nw
    cdef node_t src = memo_find(&c.memo, X, src_depth, bs_hash(X, nw, src_depth))
    cdef int32_t s = c.memo.nodes[src].best_split if src >= 0 else -1
    cdef node_t dst = node_get(c, X, -1)
    cdef word_t* T
    cdef double vl, vr
    cdef Node* nd
    if dst < 0:
        return -1.0
    if s < 0:
        return c.memo.nodes[dst].ub
    T = <word_t*> malloc(nw * sizeof(word_t))
    if T == NULL:
        c.stop = STOP_MEMORY
        return -1.0
    bs_and(T, X, split_row(c, s), nw)
    vl = install_tree(c, T, src_depth - 1)
    bs_andnot(T, X, split_row(c, s), nw)
    vr = install_tree(c, T, src_depth - 1) if vl >= 0 else -1.0
    free(T)
    if vl < 0 or vr < 0:
        return -1.0
    nd = &c.memo.nodes[dst]
    if vl + vr < nd.ub:
        nd.ub = vl + vr       # (ii) a real tree: split s over the children's trees
        nd.best_split = s
        if not nd.solved and nd.ub <= nd.lb + TOL:
            nd.lb = nd.ub     # the incumbent meets the proven bound: solved
            nd.solved = 1
    return nd.ub


cdef int depth_ladder(Ctx* c, node_t root, const word_t* full,
                      const int32_t* all_splits, int d0, int64_t work) noexcept nogil:
    """Incumbents for a hard problem: the best trees of depth d0, d0 + 1, ... each
    found by the same search on depth-limited nodes (keys (X, d) never meet the
    unlimited ones), one pass at the rung's incumbent for at most `work`; each
    rung's tree is copied onto the unlimited nodes (install_tree).  Returns the
    depth of the first rung not certified within its work (the caller resumes it
    later with more work: its nodes keep what they learned), or 0 when the ladder
    is done: every rung to `ladder_max` certified, the root solved, or a stop.
    Only incumbents change: every bound of the unlimited search is untouched, so
    the certificate is the same, and a stopped search returns a tree no worse than
    the best shallow tree found."""
    cdef int d
    cdef node_t rid
    cdef bint certified
    c.ladder_turns += 1
    for d in range(d0, c.ladder_max + 1):
        rid = node_get(c, full, d)
        if rid < 0:
            return 0
        if d > c.ladder_depth:
            c.ladder_depth = d
            if c.rules & RULE_GREEDY:
                greedy_seed(c, rid, all_splits, c.n_splits)
        c.work_stop = c.work + work
        # Candidates in order of their incumbents, not their bounds: a rung is
        # there to find good trees.  Any order is sound (the candidate loop only
        # stops early on a sorted bound when it sorts by bound).
        c.order_ub = 1
        c.passes += 1
        solve(c, rid, all_splits, c.n_splits, c.memo.nodes[rid].ub)
        c.order_ub = 0
        c.work_stop = 0
        certified = c.memo.nodes[rid].solved and c.stop == RUNNING
        if c.stop == STOP_SWITCH:
            c.stop = RUNNING
        if install_tree(c, full, d) < 0 or c.stop or c.memo.nodes[root].solved:
            return 0
        if not certified:
            return d
    return 0


cdef inline bint gap_is_small(const Ctx* c, const Node* root) noexcept nogil:
    """The root's bound is within `ladder_gap` leaves' worth of lambda of its
    incumbent: the ladder ends and deepening passes run at the incumbent."""
    return root.ub - root.lb < c.ladder_gap * c.lam


cdef class Search:
    """One certified search over a prepared split space (see fst._core._problem).

    Holds the memo store; `run` performs the search, `extract` rebuilds the tree."""
    cdef Ctx c
    cdef object _keep          # Python arrays whose buffers Ctx points into
    cdef object _pcols
    cdef object _reporter      # the progress reporter Ctx.reporter points to
    cdef node_t root
    cdef int32_t* all_splits
    cdef readonly double seconds

    def __cinit__(self):
        memset(&self.c, 0, sizeof(Ctx))
        self.all_splits = NULL
        self.root = -1
        self.c.prog_root = -1
        self.c.prog_ub = INF

    def __dealloc__(self):
        memo_free(&self.c.memo)
        free(self.c.tmp)
        free(self.c.cnt_scratch)
        free(self.c.icnt)
        free(self.c.hkey)
        free(self.all_splits)
        free(self.c.frames)

    def __init__(self, problem, double regularization, int max_depth, int64_t memo_capacity,
                 int rules=RULE_ALL, int n_threads=1):
        cdef word_t[:, ::1] split_bits = problem.split_bits
        cdef uint8_t[::1] col_filled = problem.col_filled
        cdef uint8_t[::1] split_filled = problem.split_filled
        cdef const word_t[:, ::1] class_bits = problem.class_bits
        cdef const int32_t[::1] split_col = problem.split_col
        cdef const int32_t[::1] col_start = problem.col_start
        cdef const int32_t[:, ::1] col_order = problem.col_order
        cdef const int32_t[:, ::1] row_rank = problem.row_rank
        cdef const double[:, ::1] cost = problem.cost
        cdef const double[::1] potc = problem.potc
        cdef const double[::1] maxcost = problem.maxcost
        cdef const int32_t[::1] y = problem.y
        cdef const word_t[::1] rep_rows = problem.rep_rows
        cdef const double[::1] row_excess = problem.row_excess
        cdef const word_t[::1] eq_mask
        cdef const double[::1] mincost = problem.mincost
        cdef const int32_t[::1] pcols
        cdef int i
        cdef Ctx* c = &self.c
        self._keep = problem
        if problem.n_splits >= (1 << 30):
            raise ValueError("fst takes fewer than 2**30 candidate splits (a path key "
                             "holds 2 * split + side in 32 bits)")
        if problem.n_rows >= 2147483647:
            raise ValueError("fst takes fewer than 2**31 - 1 rows (a node's row count "
                             "is 32-bit)")
        c.n = problem.n_rows
        c.nw = problem.n_words
        c.K = problem.n_classes
        c.n_splits = problem.n_splits
        c.split_bits = &split_bits[0, 0] if c.n_splits > 0 else NULL
        c.col_filled = &col_filled[0] if col_filled.shape[0] > 0 else NULL
        c.split_filled = &split_filled[0] if c.n_splits > 0 else NULL
        c.n_cols = col_start.shape[0] - 1
        c.sorted_min = SORTED_MIN
        c.sorted_shrink = 1
        c.class_bits = &class_bits[0, 0]
        c.n0_prefix = -1
        y_rows = np.asarray(problem.y)
        if (c.K == 2 and _CLASS_PREFIX and y_rows.shape[0] > 0
                and np.all(y_rows[1:] >= y_rows[:-1])):
            c.n0_prefix = int(np.count_nonzero(y_rows == 0))
        c.split_col = &split_col[0] if c.n_splits > 0 else NULL
        c.col_start = &col_start[0]
        c.col_order = &col_order[0, 0]
        c.row_rank = &row_rank[0, 0]
        c.cost = &cost[0, 0]
        pcols = distinct_columns(problem.cost)
        self._pcols = pcols
        c.pcols = &pcols[0]
        c.n_pcols = pcols.shape[0]
        c.potc = &potc[0]
        c.maxcost = &maxcost[0]
        c.y = &y[0]
        c.lam = regularization
        c.unit = unit_cost(c.cost, c.potc, c.K)
        if max_depth >= problem.n_rows:
            # A tree of separating splits on n rows has depth at most n - 1, so
            # such a limit removes no tree: search without one.
            max_depth = -1
        if max_depth > MAX_DEPTH_LEFT:
            raise ValueError(f"max_depth={max_depth} is above {MAX_DEPTH_LEFT} and "
                             f"below the number of rows ({problem.n_rows}); fst keeps "
                             f"a node's depth left in 16 bits")
        c.max_depth = max_depth
        c.rules = rules
        c.n_threads = n_threads if FST_OPENMP and n_threads > 1 else 1
        c.pair_cap = <int64_t> 400000000
        c.pair_cap_root = c.pair_cap * ROOT_PAIR_SHARE
        c.keep_pair_words = KEEP_PAIR_WORDS
        c.stage_min_rows = STAGE_MIN_ROWS
        c.stage_rounds = STAGE_ROUNDS
        c.stage_min_run = STAGE_MIN_RUN
        c.deepening = 0.1
        c.deepening_close = DEEPENING_CLOSE
        c.rep_rows = &rep_rows[0]
        c.row_excess = &row_excess[0]
        c.eq_unit = problem.eq_unit
        c.eq_mask = NULL
        if problem.eq_mask.shape[0] == c.nw:
            eq_mask = problem.eq_mask
            c.eq_mask = &eq_mask[0]
        c.mincost = &mincost[0]
        c.tmp = <word_t*> malloc(c.nw * sizeof(word_t))
        c.cnt_scratch = <double*> malloc(3 * c.K * sizeof(double))
        c.icnt = <int64_t*> malloc(c.K * sizeof(int64_t))
        c.hkey = <uint64_t*> malloc(2 * c.nw * sizeof(uint64_t))
        self.all_splits = <int32_t*> malloc((c.n_splits + 1) * sizeof(int32_t))
        if (c.tmp == NULL
                or c.cnt_scratch == NULL or c.icnt == NULL or c.hkey == NULL
                or self.all_splits == NULL):
            raise MemoryError()
        for i in range(c.n_splits):
            self.all_splits[i] = i
        for i in range(2 * c.nw):
            c.hkey[i] = bs_hash_key(i)
        if memo_init(&c.memo, c.nw, memo_capacity) != 0:
            raise MemoryError()
        c.memo.split_bits = c.split_bits   # children keep their keys as paths

    def set_reporter(self, reporter, double seconds=5.0):
        """Call `reporter((seconds, lower bound, incumbent, expansions))` every
        `seconds` while the search runs (from its own polls), or never (None)."""
        self._reporter = reporter
        self.c.reporter = <void*> reporter if reporter is not None else NULL
        self.c.report_every = seconds

    def interrupt(self):
        """Ask a running search (in another thread) to stop as on Ctrl-C."""
        self.c.stop = STOP_INTERRUPT

    def set_pair_cap(self, int64_t node_cap, int64_t root_cap=-1):
        """Word-work cap of one pair stage, and at the root of a pass (default
        ROOT_PAIR_SHARE times `node_cap`).  Any cap is sound: a child left out keeps
        its bounds; a cap only changes the work and the incumbents."""
        self.c.pair_cap = node_cap
        self.c.pair_cap_root = root_cap if root_cap >= 0 else node_cap * ROOT_PAIR_SHARE

    def set_staging(self, int min_rows, int rounds=STAGE_ROUNDS, int min_run=STAGE_MIN_RUN):
        """A pair stage of at least `min_rows` rows, at least `min_run` a run on a
        column on average, runs in rounds (`staged_pairs`; a huge min_rows: never),
        with at most `rounds` rounds of midpoints before the rows left.  Changes
        the work, never a bound's soundness (the oracle tests run both ways)."""
        self.c.stage_min_rows = min_rows
        self.c.stage_rounds = rounds
        self.c.stage_min_run = min_run

    def set_sorted_min(self, double thresholds):
        """A node of depth two or more left (under max_depth) goes to the sorted-column
        search when its columns have at least `thresholds` thresholds each on average (default
        SORTED_MIN; 0: always; inf: never).  Changes the work, never a bound's
        soundness (the oracle tests run both ways)."""
        self.c.sorted_min = thresholds

    def set_sorted_shrink(self, bint on=True):
        """Test hook: whether the sorted-column search shrinks an interval of
        thresholds by its ends' neighbour bounds before valuing its middle (the
        default) or values the middle of the whole interval.  Changes the work,
        never a bound's soundness (the tests run both ways)."""
        self.c.sorted_shrink = on

    def set_keep_pair_words(self, int64_t words):
        """A pair stage of at least `words` words a row stores the children it
        values (default KEEP_PAIR_WORDS; 0: always).  Changes the work, never a
        bound's soundness (tests run both ways)."""
        self.c.keep_pair_words = words

    def set_deepening(self, double share=0.1, double close_share=DEEPENING_CLOSE):
        """Share of the root's gap added to the budget after each failed pass, and
        the share once the gap is below `ladder_gap` lambdas."""
        self.c.deepening = share
        self.c.deepening_close = close_share

    def set_switch_work(self, int64_t switch_work, int ladder_max=6, int64_t rung_work=-1,
                        int64_t ladder_bytes=-1, double ladder_gap=LADDER_GAP):
        """Run the first root pass at the incumbent for `switch_work` word-work, then
        (without max_depth) the depth ladder up to `ladder_max` (< 2: none), each
        rung for `rung_work` (default 2 * switch_work), then deepen from the root's
        bound (switch_work 0: deepen from the start); a rung left uncertified takes
        turns with deepening until the store is past `ladder_bytes` (default half
        the memory limit; 0: no cap) or the root's gap is below `ladder_gap` times
        lambda (0: no such end).  Changes no bound, only the order of work and the
        incumbents."""
        self.c.switch_work = switch_work
        self.c.ladder_max = ladder_max
        self.c.rung_work = rung_work if rung_work >= 0 else 2 * switch_work
        self.c.ladder_bytes = ladder_bytes
        self.c.ladder_gap = ladder_gap

    def set_work_limit(self, int64_t work):
        """Stop the search as at a time limit once its work (the machine-free
        clock) passes `work` (0: no such stop), so that a stopped search takes
        the same path on every machine."""
        self.c.work_limit = work

    def set_ladder_bytes(self, int64_t ladder_bytes):
        """The store size past which the ladder takes no more turns (`set_switch_work`;
        0: no cap, -1: half the memory limit)."""
        self.c.ladder_bytes = ladder_bytes

    def run(self, double time_limit=-1.0, int64_t memory_limit=0):
        """Deepen the budget at the root until it is solved or a limit stops the
        search.  Returns the status code."""
        cdef Ctx* c = &self.c
        cdef word_t* full
        cdef int64_t i
        cdef double B = 0.0, t0
        cdef Node* root
        cdef int depth = c.max_depth
        cdef int ladder_next = 0     # the next rung of the ladder to run, or 0: none
        cdef int64_t chunk = 0       # work of the ladder's last turn
        cdef int64_t ladder_bytes = (c.ladder_bytes if c.ladder_bytes >= 0
                                     else memory_limit // 2)
        t0 = fst_now()
        c.prog_t0 = t0
        c.deadline = t0 + time_limit if time_limit >= 0 else -1.0
        c.memory_limit = memory_limit
        c.memo.memory_limit = memory_limit
        c.next_signal_check = t0 + 0.1
        c.next_report = t0 + c.report_every
        c.stop = RUNNING
        full = c.tmp
        with nogil:
            memset(full, 0, c.nw * sizeof(word_t))
            for i in range(c.n):
                bs_set(full, i)
            self.root = node_get(c, full, depth)
            c.prog_root = self.root   # check_limits copies its bounds from now on
            # Greedy seed, but for a root of depth two over sorted columns: there
            # `_sorted_run` values root splits exactly, columns in the order of
            # their best two-leaf split, so a good incumbent comes at once, while
            # the seed's pass over every threshold (`gather_valid`) took most of
            # the fit on large sets (side by side, depth 2, lambda 0.01: htru 0.32
            # to 0.56 s with it, 0.15 s without; magic 0.53 to 0.59 against 0.30;
            # the same optima).  Deeper, the seed pays: htru at depth 3 took 74 s
            # without it against 3.9 s (session 18).
            if (self.root >= 0 and (c.rules & RULE_GREEDY)
                    and not (depth == 2 and (c.rules & RULE_SORTED))):
                greedy_seed(c, self.root, self.all_splits, c.n_splits)
            if self.root >= 0:
                B = c.memo.nodes[self.root].lb
                if c.switch_work > 0:
                    # First pass at the incumbent: a budget the optimum always fits,
                    # so one pass certifies (most problems end here, faster than
                    # deepening).  After `switch_work` (a count of word operations,
                    # so the path does not depend on the machine) the pass is ended
                    # like a stop -- open frames flush incumbents, never a bound --
                    # and deepening from the root's bound takes over: its tight
                    # passes find better trees and bounds when a hard problem is
                    # stopped.  Every bound proved in the first pass is kept.
                    B = c.memo.nodes[self.root].ub
                    c.work_stop = c.switch_work
                    if c.ladder_max >= 2 and depth < 0:
                        ladder_next = 2
                        chunk = c.rung_work // 2
                while not c.stop and not c.memo.nodes[self.root].solved:
                    c.passes += 1
                    solve(c, self.root, self.all_splits, c.n_splits, B)
                    root = &c.memo.nodes[self.root]
                    if c.test_break_contract and not root.solved and not c.stop:
                        root.lb = B if B < root.lb else root.lb   # simulates the bug below
                    if not c.stop and not root.solved and not (root.lb > B):
                        # Contract (iii) broken: a complete pass must solve the root
                        # or prove it above B.  Deepening would then run pass after
                        # pass without progress (forever, without a time limit):
                        # report the bug instead (raised below, outside nogil).
                        c.contract_broken = 1
                        break
                    if c.stop == STOP_SWITCH:
                        # The pass was cut at its work (the first pass, or a
                        # deepening pass whose share ran out): run the ladder --
                        # its first rungs, or the rung it left uncertified, with
                        # twice the work of its last turn -- then deepen again.
                        c.stop = RUNNING
                        c.work_stop = 0
                        root = &c.memo.nodes[self.root]
                        if ladder_next >= 2 and gap_is_small(c, root):
                            # The root's bound is within `ladder_gap` leaves' worth of
                            # its incumbent: a better tree could gain less than
                            # that, and the bound is what is left to prove, so the
                            # ladder's turns go to deepening from now on (the gap
                            # only shrinks).
                            ladder_next = 0
                        if ladder_next >= 2:
                            chunk = 2 * chunk
                            ladder_next = depth_ladder(c, self.root, full,
                                                       self.all_splits, ladder_next, chunk)
                            if ladder_bytes > 0 and memo_bytes(&c.memo) > ladder_bytes:
                                # The store is past half the memory limit: the
                                # rungs' nodes never serve the unlimited search, so
                                # the rest is left to deepening (memo_bytes, not the
                                # process's size: the same path on every machine).
                                ladder_next = 0
                        root = &c.memo.nodes[self.root]
                        if root.solved or c.stop:
                            break
                        # Deepening and the ladder take turns, each for the same
                        # (doubling) work, while a rung is left uncertified.
                        if ladder_next >= 2:
                            c.work_stop = c.work + chunk
                        if root.lb > B + TOL or B >= root.ub:
                            B = root.lb
                        continue
                    if root.solved or c.stop:
                        break
                    # Budget deepening: the root is proved above B; raise B to its
                    # new bound plus a share of the remaining gap.  Easy problems
                    # are certified by the first pass at the incumbent; deepening
                    # serves the hard ones, where the tight passes of a small share
                    # found the better trees and bounds when stopped (measured before
                    # the first pass existed: coupon_rest20 0.005: 0.25407 at 0.1,
                    # 0.25973 at 0.3, 0.5 and 1; broward 0.01: 0.41359 against
                    # 0.41462).  Default 0.1.
                    # Once the gap is within `ladder_gap` leaves' worth of lambda (the
                    # incumbent is likely optimal and only the bound is left), the
                    # share is `deepening_close`, by default 1: the next pass runs
                    # at the incumbent, so no work goes to proving bounds that are
                    # then superseded.  Measured (one thread, idle core): fico 0.05
                    # is certified in 66 s at 1, 78 s at 0.75, 88 s at 0.5 (at 0.1
                    # its bound is 0.376 of 0.391 after 60 s); broward 0.05 in 13.5 s
                    # at 1, 24 s at 0.5, 36 s at 0.1.  The cost: a problem stopped
                    # in that pass keeps the bound it had before it (coupon_carryout
                    # 0.02 at 60 s: 0.228 at 1, 0.255 at 0.5).
                    if root.lb > B + TOL:
                        B = root.lb
                    else:
                        B = B + 10 * TOL
                    if gap_is_small(c, root):
                        B = B + c.deepening_close * (root.ub - B)
                    else:
                        B = B + c.deepening * (root.ub - B)
            c.peak_rss = max(c.peak_rss, fst_process_rss())
        self.seconds = fst_now() - t0
        if self.root < 0:
            raise MemoryError("fst could not allocate the root of the search")
        if c.contract_broken:
            raise RuntimeError(
                f"fst internal error: a search pass at budget {B!r} left the root "
                f"unsolved with lower bound {c.memo.nodes[self.root].lb!r}, not above "
                "the budget (search contract (iii)). Please report it with the data.")
        return c.stop

    def _break_contract_for_tests(self):
        """Test hook: after each complete pass the root's bound is lowered to the
        pass's budget, as a broken rule would leave it, so `run` must report it."""
        self.c.test_break_contract = 1

    def progress(self):
        """(seconds since the run started, the root's lower bound and incumbent
        at the last poll, expansions): safe to call from another thread while
        `run` works; before the root exists the bounds are (0, inf)."""
        return (fst_now() - self.c.prog_t0 if self.c.prog_t0 > 0 else 0.0,
                self.c.prog_lb, self.c.prog_ub, self.c.expansions)

    @property
    def lower_bound(self):
        return self.c.memo.nodes[self.root].lb

    @property
    def upper_bound(self):
        return self.c.memo.nodes[self.root].ub

    @property
    def solved(self):
        return bool(self.c.memo.nodes[self.root].solved) and self.c.stop == RUNNING

    def stats(self):
        cdef int64_t i, rung_nodes = 0
        if self.c.max_depth < 0:
            for i in range(self.c.memo.n_nodes):
                rung_nodes += self.c.memo.nodes[i].depth >= 0
        return {
            "nodes_created": int(self.c.memo.n_nodes),
            "expansions": int(self.c.expansions),
            "memo_bytes": int(memo_bytes(&self.c.memo)),
            "memo_capacity": int(self.c.memo.cap_nodes),
            "peak_rss_bytes": int(self.c.peak_rss),
            "seconds": float(self.seconds),
            "pair_stages": int(self.c.pair_stages),
            "root_passes": int(self.c.passes),
            "open_levels": int(self.c.n_frames),
            "transfers": int(self.c.transfers),
            "threads": int(self.c.n_threads),
            "work": int(self.c.work),
            "ladder_depth": int(self.c.ladder_depth),
            "ladder_turns": int(self.c.ladder_turns),
            "ladder_nodes": int(rung_nodes),  # nodes of the rungs (depth-limited keys)
            "whole_keys": int(self.c.memo.n_keys),  # the other nodes' keys are paths
            "pair_rows": int(self.c.pair_rows),            # rows of pair stages valued
            "pair_rows_left_out": int(self.c.pair_rows_left),  # by stages in rounds
            "sorted_nodes": int(self.c.sorted_nodes),
            "sorted_splits_valued": int(self.c.sorted_splits_valued),
            "sorted_splits_set_aside": int(self.c.sorted_splits_set_aside),
            "sorted_leaf_pairs": int(self.c.sorted_leaf_pairs),
        }

    def _lookup(self, const word_t[::1] X, int depth=-1):
        """The stored record of the row set X (packed words) at `depth` left, as a
        dict, or None when it is not stored; for tests and experiments."""
        cdef uint64_t h
        cdef node_t i
        cdef Node* nd
        if X.shape[0] != self.c.nw:
            raise ValueError(f"a row set of this search has {self.c.nw} words, not "
                             f"{X.shape[0]}")
        h = bs_hash(&X[0], self.c.nw, depth)
        i = memo_find(&self.c.memo, &X[0], depth, h)
        if i < 0:
            return None
        nd = &self.c.memo.nodes[i]
        return {"lb": nd.lb, "ub": nd.ub, "leaf": nd.leaf, "floor": nd.floor,
                "g2": nd.g2, "g3": nd.g3, "solved": bool(nd.solved),
                "pair_done": bool(nd.pair_done), "count": int(nd.count),
                "best_split": int(nd.best_split)}

    def check_keys(self):
        """Rebuild every stored node's key and check it against the record: its row
        count and its hash (of the key and depth), and that a lookup finds it at its
        own id.  Returns (nodes, nodes whose key is a path, nodes that fail, the
        longest path); for tests."""
        cdef int64_t i, paths = 0, bad = 0, longest = 0, steps
        cdef Node* nd
        cdef Node* up
        key_buf = np.empty(self.c.nw + 1, dtype=np.uint64)
        cdef word_t[::1] key = key_buf    # a copy: memo_find may reuse the scratch
        for i in range(self.c.memo.n_nodes):
            nd = &self.c.memo.nodes[i]
            paths += nd.key_split >= 0
            steps = 0
            up = nd
            while up.key_split >= 0:
                steps += 1
                up = &self.c.memo.nodes[up.key_ref]
            if steps > longest:
                longest = steps
            memcpy(&key[0], memo_key(&self.c.memo, i), self.c.nw * sizeof(word_t))
            if (bs_count(&key[0], self.c.nw) != nd.count
                    or bs_hash(&key[0], self.c.nw, nd.depth) != nd.hash
                    or memo_find(&self.c.memo, &key[0], nd.depth, nd.hash) != i):
                bad += 1
        return int(self.c.memo.n_nodes), int(paths), int(bad), int(longest)

    def extract(self):
        """Rebuild the tree recorded at the root, in pre-order.

        Returns (split, left, right, depth, rows) where `rows` is a list of the row
        index arrays of every node; split is -1 at leaves.  A row set that is not
        stored is a leaf: children are stored before anything is learned about
        them, so an unstored child's record is its creation record (ub = leaf).
        Walks an explicit stack, so a tree of any depth is read."""
        cdef Ctx* c = &self.c
        cdef int nw = c.nw
        cdef cnp.ndarray[word_t, ndim=1] X
        cdef cnp.ndarray[word_t, ndim=1] T
        cdef node_t nid
        cdef int32_t s
        cdef int depth
        splits, lefts, rights, depths, rows = [], [], [], [], []
        X = np.empty(nw, dtype=np.uint64)
        memcpy(&X[0], memo_key(&c.memo, self.root), nw * sizeof(word_t))
        stack = [(X, c.memo.nodes[self.root].depth, 0, -1, 0)]
        while stack:
            X, depth, level, parent, is_right = stack.pop()
            me = len(splits)
            if parent >= 0:
                (rights if is_right else lefts)[parent] = me
            nid = memo_find(&c.memo, &X[0], depth, bs_hash(&X[0], nw, depth))
            s = c.memo.nodes[nid].best_split if nid >= 0 else -1
            bits = np.unpackbits(X.view(np.uint8), bitorder="little")[: c.n]
            rows.append(np.flatnonzero(bits))
            splits.append(int(s))
            lefts.append(-1)
            rights.append(-1)
            depths.append(level)
            if s < 0:
                continue
            depth = depth - 1 if depth > 0 else -1
            T = np.empty(nw, dtype=np.uint64)
            bs_andnot(&T[0], &X[0], split_row(c, s), nw)
            stack.append((T, depth, level + 1, me, 1))
            T = np.empty(nw, dtype=np.uint64)
            bs_and(&T[0], &X[0], split_row(c, s), nw)
            stack.append((T, depth, level + 1, me, 0))
        return (np.asarray(splits, dtype=np.intp), np.asarray(lefts, dtype=np.intp),
                np.asarray(rights, dtype=np.intp), np.asarray(depths, dtype=np.intp), rows)


def fill_nodes(const cnp.intp_t[::1] split,            # IN split of each node, -1 leaf
               const cnp.intp_t[::1] left,             # IN left child id, -1 leaf
               const cnp.intp_t[::1] right,            # IN right child id, -1 leaf
               const double[:, ::1] weighted_counts,   # IN class weight sums per node
               const cnp.intp_t[::1] n_samples,        # IN rows per node
               const int32_t[::1] split_col,           # IN column of each split
               const double[::1] thresholds,           # IN threshold of each split
               cnp.intp_t[:] out_left,                 # OUT fields of sklearn's node array
               cnp.intp_t[:] out_right,
               cnp.intp_t[:] out_feature,
               double[:] out_threshold,
               double[:] out_impurity,
               cnp.intp_t[:] out_n,
               double[:] out_wn,
               uint8_t[:] out_missing_left):
    """Write the extracted tree straight into the fields of a node array of the
    installed sklearn's NODE_DTYPE (strided views of its fields).

    Leaves get feature -2 and threshold -2.0 as sklearn's own; every node sends
    NaN right (fst's rule: NaN is larger than every number).  Impurity is Gini
    `1 - sum(c**2) / w**2` so that feature_importances_ are consistent."""
    cdef Py_ssize_t i, k, n_nodes = split.shape[0], K = weighted_counts.shape[1]
    cdef double w, sq
    cdef bint has_missing = out_missing_left.shape[0] > 0
    with nogil:
        for i in range(n_nodes):
            w = 0.0
            sq = 0.0
            for k in range(K):
                w += weighted_counts[i, k]
                sq += weighted_counts[i, k] * weighted_counts[i, k]
            out_impurity[i] = 1.0 - sq / (w * w) if w > 0 else 0.0
            out_n[i] = n_samples[i]
            out_wn[i] = w
            if split[i] < 0:
                out_left[i] = -1
                out_right[i] = -1
                out_feature[i] = -2
                out_threshold[i] = -2.0
            else:
                out_left[i] = left[i]
                out_right[i] = right[i]
                out_feature[i] = split_col[split[i]]
                out_threshold[i] = thresholds[split[i]]
            if has_missing:
                out_missing_left[i] = 0


def distinct_columns(cost):
    """The labels a leaf needs to try: the first of each set of identical columns
    of the cost matrix, in increasing order.  Identical columns give a leaf the
    same cost to the last bit, so the least cost and its first (lowest) label are
    unchanged; a weighted fit (one class per (class, sample weight) pair) has one
    column per label repeated for each pair, and tries each label once."""
    cost = np.asarray(cost, dtype=np.float64)
    # Columns compared as tuples of floats (equal floats, equal hashes): a dict
    # keeps each distinct column's first label, in label order.  Cheaper than
    # np.unique over rows on the small matrices of a fit (2 to 64 columns).
    seen = {}
    for j, col in enumerate(cost.T.tolist()):
        seen.setdefault(tuple(col), j)
    return np.ascontiguousarray(sorted(seen.values()), dtype=np.int32)


def _pair_values_for_tests(const int32_t[:, ::1] A, const double[:, ::1] cl, bint right,
                           const double[::1] cc, const double[:, ::1] cost,
                           const double[::1] potc, double lam, bint three_leaf=False):
    """Test hook: the values of one row of pair counts (`_pair_values`) for K
    classes under the loops chosen by `set_simd`, with the leaf-capacity rule at
    `lam` (off when lam is 0); A is m x K (classes 0..K-2, then the total), cl is
    m x K; returns (best2, peel, arg).  With three_leaf, peel is the three-leaf
    bound the search stores (RULE_PEEL3) instead of the cheapest peel."""
    cdef Ctx c
    cdef double b2 = 0.0, pl = 0.0
    cdef int arg = -2
    cdef int m = A.shape[0]
    cdef int K = A.shape[1]
    cdef int j, k
    cdef int32_t[::1] cli = np.zeros(K * m + 1, dtype=np.int32)
    if (K < 2 or K > 64 or cl.shape[0] != m or cl.shape[1] != K or cc.shape[0] != K
            or cost.shape[0] != K or cost.shape[1] != K or potc.shape[0] != K):
        raise ValueError("K classes (2 to 64): A and cl are m x K, cc and potc have K "
                         "entries, cost is K x K")
    c.K = K
    c.cost = &cost[0, 0]
    cdef const int32_t[::1] pcols = distinct_columns(cost)
    c.pcols = &pcols[0]
    c.n_pcols = pcols.shape[0]
    c.potc = &potc[0]
    c.lam = lam
    c.rules = RULE_CAPACITY if lam > 0 else 0
    c.unit = unit_cost(c.cost, c.potc, K)
    for j in range(m):
        for k in range(K):
            if k < K - 1:
                cli[j * K + k] = <int32_t> cl[j, k]
            cli[j * K + K - 1] += <int32_t> cl[j, k]
    cdef double[::1] maxcost = np.max(np.asarray(cost), axis=1)
    c.maxcost = &maxcost[0]
    if three_leaf:
        c.rules |= RULE_PEEL3
    with nogil:
        _pair_values(&c, &cc[0], &A[0, 0], m, &cl[0, 0], &cli[0], right, &b2, &pl, &arg)
    return b2, pl, arg


def _compact_for_tests(const word_t[::1] src, const word_t[::1] X):
    """`fst_compact_plan` and `fst_compact_at`: the bits of src at the rows of X,
    renumbered 0 .. |X| - 1 (None where the CPU lacks BMI2)."""
    cdef int nw = X.shape[0]
    cdef int nwc = <int> ((bs_count(&X[0], nw) + 63) // 64)
    cdef int nnz
    out = np.full(max(nwc, 1), 0xFFFF, dtype=np.uint64)   # not zero: the tail is written
    words = np.zeros(nw + 1, dtype=np.int32)
    counts = np.zeros(nw + 1, dtype=np.int32)
    cdef word_t[::1] o = out
    cdef int32_t[::1] zw = words
    cdef int32_t[::1] zk = counts
    if not fst_compact_ok():
        return None
    nnz = fst_compact_plan(&X[0], nw, &zw[0], &zk[0])
    fst_compact_at(&src[0], &X[0], &zw[0], &zk[0], nnz, &o[0], nwc)
    return out[:nwc]


def set_compact_rows(bint on=True):
    """Test hook: whether pair stages count over their node's rows compacted (the
    default, where the CPU has BMI2) or over full words; the counts, and so every
    result, are the same.  Returns whether compaction can run on this CPU."""
    global COMPACT_ROWS
    COMPACT_ROWS = on
    return bool(fst_compact_ok())


_CLASS_PREFIX = True


def set_class_prefix(bint on=True):
    """Test hook: whether two-class pair stages count class 0 as the bits below a
    boundary (rows sorted by class, `Ctx.n0_prefix`; the default) or through the
    class's bitset; the counts, and so every result, are the same.  Read when a
    fit starts."""
    global _CLASS_PREFIX
    _CLASS_PREFIX = on


def set_simd(int mode=-1):
    """Choose the vector loops of the pair stage (`_simd.h`) in both modules that
    use them: -1 by the CPU (the default at import: AVX-512, else AVX2, else
    scalar), 0 the scalar loops, 1 the AVX-512 ones and 2 the AVX2 ones (two
    classes' row counts, whole-row value loops and child scan; the rest scalar),
    each only if the CPU has them.  Returns the choice in effect (0: scalar).  Every
    choice computes the same integers and the same doubles; the tests compare
    whole fits under each."""
    from . import _pairs
    _pairs.set_simd(mode)
    return fst_set_simd(mode)


set_simd(-1)


def _and_count_for_tests(const word_t[::1] X, const word_t[::1] S):
    """Test hook: `fst_and_count` (the rows of X & S) in the loop set_simd chose."""
    if X.shape[0] != S.shape[0] or X.shape[0] < 1:
        raise ValueError("X and S must be bitsets of the same positive width")
    return fst_and_count(&X[0], &S[0], <int> X.shape[0])


def process_rss():
    """Resident bytes of the whole process (what memory_limit is measured on), or
    -1 where the platform does not tell."""
    return int(fst_process_rss())


def effective_n_threads(n_jobs):
    """Threads for the compiled core from n_jobs (sklearn's convention): None -> 1,
    -1 -> every core OpenMP sees, -2 -> all but one, ...; 1 without OpenMP."""
    cdef int max_threads = omp_get_max_threads()
    if n_jobs is None:
        return 1
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning")
    if not FST_OPENMP:
        return 1
    if n_jobs < 0:
        return max(max_threads + 1 + n_jobs, 1)
    return int(n_jobs)


def _scan_matches_node_fill(problem, double regularization, int64_t seed, int trials):
    """Test hook: on random row sets X and splits S, the children's records from
    `scan_counts` then `fill_sides`, as `gather_valid` takes them (the linear hash
    of the right side by difference, the fused counts and excess), equal the
    records `node_fill` computes from the rows.
    Returns the number of mismatching records."""
    cdef Search srch = Search(problem, regularization, -1, 16)
    cdef Ctx* c = &srch.c
    cdef int nw = c.nw
    cdef cnp.ndarray[word_t, ndim=1] X = np.zeros(nw, dtype=np.uint64)
    cdef cnp.ndarray[word_t, ndim=1] T = np.zeros(nw, dtype=np.uint64)
    cdef double[::1] cnt = np.zeros(c.K)
    cdef double[::1] cl = np.zeros(c.K)
    cdef double[::1] cr = np.zeros(c.K)
    cdef Node L, R, F
    cdef int bad = 0, t, side
    cdef int64_t total, nl
    cdef uint64_t hl
    cdef double exl, exr
    cdef const word_t* S
    rng = np.random.default_rng(seed)
    for t in range(trials):
        rows = rng.random(c.n) < rng.uniform(0.1, 0.9)
        X[:] = 0
        for i in np.flatnonzero(rows):
            bs_set(&X[0], i)
        total = bs_count(&X[0], nw)
        class_counts(c, &X[0], total, &cnt[0])
        S = split_row(c, int(rng.integers(c.n_splits)))
        nl = scan_counts(c, &X[0], marked_rows(c, &X[0]), S, &cnt[0], &cl[0], &cr[0],
                         &hl, &exl, &exr)
        fill_sides(c, bs_hash_linear(&X[0], nw), hl, exl, exr, &cl[0], &cr[0], nl, total,
                   3, &L, &R)
        for side in range(2):
            if side == 0:
                bs_and(&T[0], &X[0], S, nw)
            else:
                bs_andnot(&T[0], &X[0], S, nw)
            node_fill(c, &F, &T[0], 3)
            F.hash = bs_hash(&T[0], nw, 3)
            G = L if side == 0 else R
            if (G.hash != F.hash or G.count != F.count or G.lb != F.lb or G.leaf != F.leaf
                    or G.pot != F.pot or G.solved != F.solved):
                bad += 1
    return bad
