"""DPDT: the decision-tree MDP, built depth first and solved backwards exactly.

States are (row set, depth).  A state's actions are its leaf and the tests that
the tests generating function offers there (the test nodes of a CART tree of
depth K grown natively on the state's rows, or every split); a test moves to the
two children states.  Identical row sets at the same depth share one state
through the memo store (key: the row bitset, salt: the depth).

# Notes:
# - Value functions.  With either complexity measure the objective of a subtree
#   is additive over its nodes: loss = sum of its leaves' costs, and complexity
#   = sum over its tests of the rows reaching them ('tests': divided by n this
#   is the expected number of tests, the paper's measure) or its number of
#   leaves ('leaves').  With row weights every count is a sum of weights (a
#   leaf's cost, CART's impurities, the rows reaching a test), and n is their
#   total: a whole weight is that many copies of the row.  Class weights scale
#   the cost matrix's rows and CART's class counts, not the rows reaching a test.
#   So V(s, alpha) = min over subtrees T of
#   (loss(T) + alpha * c(T)) / n is the lower envelope of lines, concave and
#   piecewise linear in alpha, and it is determined by the subtrees on the lower
#   convex hull of the points (c(T), loss(T)).  Bellman's equation
#       Q(s, a, alpha) = alpha * c_a + V(left, alpha) + V(right, alpha)
#   is then a Minkowski sum of the two children's hull chains (merge by slope),
#   and V(s) the lower hull of the leaf point and every action's chain.  This is
#   the backward pass for every alpha >= 0 at once, exact: reading the root's
#   hull at any grid of alpha values gives the same trees as a Bellman backup on
#   that grid, with no per-alpha storage in the states.
# - A hull point is (c, loss, split, left point, right point), so the optimal
#   tree for any alpha is read from the root point by following the pointers.
# - At depth max_depth - 1 the children are leaves, and the best test is the
#   split with the least summed leaf loss whatever alpha is (every test there
#   costs the same complexity).  It is found exactly over every split in one scan
#   of the state's sorted rows, a superset of CART's tests: the MDP's optimum can
#   only improve, and Proposition 2 (never worse than CART and its pruned trees)
#   still holds.
# - Rows of a state are kept as p lists, one per column, sorted by value rank
#   (ties by row index); a child's lists are a stable filter of its parent's, so
#   a state costs O(m p) plus O(K m p) for its CART, with m its rows.
# - Ties are broken by a fixed order (column, then threshold; leaf first, then
#   tests in the order generated), never by row order, so the result does not
#   depend on the order of the rows.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport log
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset
from cython.parallel cimport prange

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t, uint64_t
from ._bitset cimport bs_set, bs_hash
from ._memo cimport (MAX_DEPTH_LEFT, REALLOC_COPY_MAX, Memo, Node, memo_init, memo_free,
                     memo_find, memo_insert, memo_bytes, memo_touch, growth_cost)
from ._openmp cimport omp_get_thread_num
from ._limits cimport (STOP_TIME, STOP_MEMORY, STOP_INTERRUPT, fst_now, fst_process_rss,
                       limits_interrupted)
from ._cart cimport (C_GINI, C_ENTROPY, Rows, rows_wt, rows_leaf_loss, rows_floor_loss,
                     rows_best_split, rows_column_scan, rows_left_sums, rows_pass_init,
                     rows_pass_free, cart_grow, cart_best_first, cart_all_tests)
from ._hull cimport Point, Buf, sort_points, lower_hull

cnp.import_array()

cdef enum:
    C_TESTS = 0            # complexity: rows through tests (expected tests * n)
    C_LEAVES = 1           # complexity: leaves
    C_ALL = 0              # cart depth 0 at a level means: offer every split
    GROW_DEPTH = 1         # CART grown depth first to depth K
    GROW_BEST_FIRST = 2    # CART grown best first to 2^K leaves

cdef enum:
    # Below this many (rows x columns) a scan is not worth waking threads for.
    PAR_MIN_WORK = 32768

CRITERION_GINI = C_GINI
CRITERION_ENTROPY = C_ENTROPY
COMPLEXITY_TESTS = C_TESTS
COMPLEXITY_LEAVES = C_LEAVES
TESTS_ALL = C_ALL
GROWTH_DEPTH = GROW_DEPTH
GROWTH_BEST_FIRST = GROW_BEST_FIRST
STOP_MEMORY_CODE = STOP_MEMORY
STOP_TIME_CODE = STOP_TIME


cdef inline int64_t _spare_points(int64_t D) noexcept nogil:
    """Pool points kept free for the leaves a memory stop still makes
    (`MDP._leaf_point`): 8 per level, and 16 more."""
    return 8 * (D + 2) + 16


def store_capacity(int64_t n):
    """Nodes the state store starts with for n rows: 4096, fewer when their keys
    (n bits each) would take more than 4 MB; it grows by doubling."""
    cdef int64_t per_key = ((n + 63) // 64) * 8
    return int(max(64, min(4096, (4 << 20) // per_key)))


def fixed_bytes(int64_t n, int64_t p, cart_k, int64_t capacity, int n_classes,
                int n_threads=1):
    """Bytes an MDP on n rows and p columns allocates before it builds (written
    at once, see `MDP._room`): the sorted lists and keys of every level, the
    tests' buffers, CART's scratch, the store's first `capacity` nodes and the
    first hull slots and pool points.  Its caller checks them against the
    memory limit before constructing it."""
    cdef int64_t D = len(cart_k)
    cdef int64_t nw = (n + 63) // 64
    cdef int64_t total = 0, ts = 8, tests_cap
    cdef int K = n_classes
    for k in cart_k:
        tests_cap = p * n + 1 if (k == C_ALL or k >= 20) else 2 * (1 << k)
        total += 2 * tests_cap * 4
    total += (D + 1) * (p * n * 4 + 4 + nw * 8 + 8)     # lists, keys
    total += p * n * 4 + 4 + n * 4 + 4 + n + 1 + nw * 8 + 8   # cs, ctmp, side, key2
    total += (n + 1) * 8 + (K * K + K) * 8 + 11 * K * 8       # xlogx, costs, counts
    total += p * 2 * (3 + K) * 8 + n_threads * 3 * K * 8 + 16
    # the depth-one pass's gather buffers and counts (`_cart.rows_pass_init`)
    total += K * 8 + n_threads * (3 * n * 4 + n * 8 + 5 * K * 8) + 32
    while ts < 2 * capacity:
        ts *= 2
    total += capacity * (sizeof(Node) + nw * 8) + ts * 8 + nw * 8 + 8   # the store
    total += 1024 * 12 + (64 + _spare_points(D)) * sizeof(Point)         # hulls, pool
    return int(total)


cdef class MDP:
    """The MDP of one fit: build with `build()`, read with `root_hull()` and
    `tree(point)`."""
    cdef Rows rows                  # the data and the scans' scratch (_cart.pxd)
    cdef int D                      # max_depth: levels of states below the root
    cdef int nw                     # words of a state's key
    cdef int complexity             # C_TESTS or C_LEAVES: what alpha prices
    cdef int growth                 # GROW_DEPTH and/or GROW_BEST_FIRST
    cdef const int32_t* order       # (p, n) rows sorted by rank per column
    cdef const int32_t* col_start   # (p + 1) first global split of each column
    cdef int32_t* cart_k            # (D) CART depth per level, 0: every split
    cdef Memo memo                  # the states: row set and depth -> id
    cdef Buf pool                   # every state's hull points
    cdef int64_t* hull_off          # per state: first hull point in the pool
    cdef int32_t* hull_len          # per state: its hull's points
    cdef int64_t cap_states         # states the hull arrays hold
    # per level scratch
    cdef int32_t** lists            # p sorted lists of the level's current state
    cdef word_t** keys              # the level's current state's key
    cdef int32_t** tests            # (feature, rank threshold) pairs
    cdef int64_t* tests_cap         # pairs each level's tests hold
    cdef Buf* cand                  # the level's candidate points
    cdef Point* sort_tmp            # the hull sort's buffer
    cdef int64_t sort_tmp_cap
    # the last level's fused scan (`last_pair`)
    cdef double* pair_counts        # its counts (7 rows of K)
    cdef uint8_t* side              # side of each row of the state
    cdef word_t* key2               # the right child's key
    cdef double* pair_res           # per column results (p * 2 * (3 + K))
    cdef double* thread_scratch     # per thread counts (threads * 3K)
    cdef int n_threads
    # limits
    cdef int stop                   # STOP_TIME, _MEMORY or _INTERRUPT once a stop is seen
    cdef double deadline            # fst_now() past which the build stops (< 0: none)
    cdef int64_t memory_limit       # bytes of the process (<= 0: none)
    cdef int64_t reserve            # bytes below it where a memory stop begins
    cdef bint auto_reserve          # and below that by the pool's copy (`_stop_line`)
    cdef public int64_t refuse_after  # test hook (`_room`): < 0 none
    cdef int64_t spare              # pool points kept free for a stop's last leaves
    cdef public int64_t peak_rss    # largest process size seen at a poll
    cdef double next_signal_check   # when memory and Ctrl-C are next polled
    # statistics
    cdef public int64_t memo_hits, n_expanded, n_leaf_only
    cdef public int64_t n_refused   # growths refused under the memory limit
    cdef object _keep               # numpy arrays whose memory the pointers use
    cdef int64_t* states_at_depth

    def __cinit__(self):
        memset(&self.rows, 0, sizeof(Rows))
        self.lists = NULL
        self.keys = NULL
        self.tests = NULL
        self.tests_cap = NULL
        self.cand = NULL
        self.hull_off = NULL
        self.hull_len = NULL
        self.cart_k = NULL
        self.pair_counts = NULL
        self.side = NULL
        self.key2 = NULL
        self.pair_res = NULL
        self.thread_scratch = NULL
        self.sort_tmp = NULL
        self.states_at_depth = NULL
        self.pool.p = NULL
        self.pool.n = 0
        self.pool.cap = 0
        self.memo.nodes = NULL
        self.memo.keys = NULL
        self.memo.scratch = NULL
        self.memo.table = NULL
        self.D = -1

    def __init__(self, space, int n_classes, cost, cart_k, int criterion,
                 int complexity, int growth=1, int n_threads=1, int64_t capacity=4096,
                 weights=None, class_weights=None):
        cdef int d, i
        cdef cnp.ndarray[int32_t, ndim=2, mode="c"] rank = np.ascontiguousarray(
            space.row_rank, dtype=np.int32)
        cdef cnp.ndarray[int32_t, ndim=2, mode="c"] order = np.ascontiguousarray(
            space.col_order, dtype=np.int32)
        cdef cnp.ndarray[int32_t, ndim=1, mode="c"] cstart = np.ascontiguousarray(
            space.col_start, dtype=np.int32)
        cdef cnp.ndarray[int32_t, ndim=1, mode="c"] yy = np.ascontiguousarray(
            space.y, dtype=np.int32)
        cdef cnp.ndarray[double, ndim=1, mode="c"] ww
        cost = np.ascontiguousarray(cost, dtype=np.float64)
        cart_k = np.asarray(cart_k, dtype=np.int32)
        if weights is None:
            ww = np.ones(rank.shape[1])
            self.rows.weighted = 0
        else:
            ww = np.ascontiguousarray(weights, dtype=np.float64)
            if (ww.shape[0] != rank.shape[1] or not np.all(ww > 0)
                    or not np.all(np.isfinite(ww))):
                raise ValueError("DPDT: weights must be finite and > 0, one per row")
            self.rows.weighted = 1
        self._keep = (rank, order, cstart, yy, ww)
        self.rows.w = &ww[0]
        if class_weights is not None:
            cwa = np.asarray(class_weights, dtype=np.float64)
            if (cwa.shape[0] != n_classes or not np.all(cwa >= 0)
                    or not np.all(np.isfinite(cwa))):
                raise ValueError(
                    "DPDT: class_weights must be finite and >= 0, one per class")
            self.rows.cw = <double*> malloc(n_classes * sizeof(double))
            if self.rows.cw == NULL:
                raise MemoryError("DPDT: cannot allocate the MDP's buffers")
            for i in range(n_classes):
                self.rows.cw[i] = cwa[i]
        self.rows.n = rank.shape[1]
        if self.rows.n >= 2147483647:
            raise ValueError("DPDT takes fewer than 2**31 - 1 rows (a state's row count "
                             "is 32-bit)")
        self.rows.p = rank.shape[0]
        self.rows.K = n_classes
        self.D = len(cart_k)
        if self.D + 1 > MAX_DEPTH_LEFT:
            raise ValueError(f"DPDT: max_depth={self.D} is above {MAX_DEPTH_LEFT - 1}; "
                             f"the memo store keeps a state's depth in 16 bits")
        self.nw = (self.rows.n + 63) // 64
        self.rows.criterion = criterion
        self.complexity = complexity
        self.growth = growth
        self.rows.rank = &rank[0, 0]
        self.order = &order[0, 0]
        self.col_start = &cstart[0]
        self.rows.y = &yy[0]
        self.n_threads = n_threads if n_threads > 1 else 1
        self._allocate(capacity)
        self.rows.unit_cost = 1
        for i in range(self.rows.K):
            self.rows.mincost[i] = cost[i, 0]
            for d in range(self.rows.K):
                self.rows.cost[i * self.rows.K + d] = cost[i, d]
                if cost[i, d] < self.rows.mincost[i]:
                    self.rows.mincost[i] = cost[i, d]
                if cost[i, d] != (0.0 if i == d else 1.0):
                    self.rows.unit_cost = 0
        if rows_pass_init(&self.rows, self.n_threads) != 0:
            raise MemoryError("DPDT: cannot allocate the MDP's buffers")
        for d in range(self.D):
            self.cart_k[d] = cart_k[d]
        self.rows.xlogx[0] = 0.0
        for i in range(1, self.rows.n + 1):
            self.rows.xlogx[i] = i * log(<double> i)
        self._allocate_levels(capacity)
        self.cap_states = 0
        self.stop = 0
        self.deadline = -1.0
        self.memory_limit = 0
        self.reserve = 0
        self.auto_reserve = False
        self.refuse_after = -1
        self.spare = _spare_points(self.D)
        self._touch()
        if (self._reserve_states(1024) != 0
                or self._buf_room(&self.pool, 64 + self.spare) != 0):
            raise MemoryError("DPDT: cannot allocate the MDP's buffers")
        self.peak_rss = 0
        self.next_signal_check = 0.0
        self.memo_hits = 0
        self.n_expanded = 0
        self.n_leaf_only = 0
        self.n_refused = 0

    cdef int _allocate(self, int64_t capacity) except -1:
        """The fixed buffers (their sizes are those `fixed_bytes` counts)."""
        cdef int K = self.rows.K
        cdef int64_t n = self.rows.n, p = self.rows.p
        self.rows.cost = <double*> malloc(K * K * sizeof(double))
        self.rows.mincost = <double*> malloc(K * sizeof(double))
        self.cart_k = <int32_t*> malloc((self.D + 1) * sizeof(int32_t))
        self.rows.xlogx = <double*> malloc((n + 1) * sizeof(double))
        # (`rows_best_split`: the totals, a column scan's scratch and result)
        self.rows.counts = <double*> malloc((6 * K + 8) * sizeof(double))
        self.pair_counts = <double*> malloc(7 * K * sizeof(double))
        self.side = <uint8_t*> malloc(n + 1)
        self.key2 = <word_t*> malloc(self.nw * sizeof(word_t) + 8)
        self.pair_res = <double*> malloc(p * 2 * (3 + K) * sizeof(double) + 8)
        self.thread_scratch = <double*> malloc(self.n_threads * 3 * K * sizeof(double) + 8)
        self.states_at_depth = <int64_t*> calloc(self.D + 1, sizeof(int64_t))
        self.lists = <int32_t**> calloc(self.D + 1, sizeof(int32_t*))
        self.keys = <word_t**> calloc(self.D + 1, sizeof(word_t*))
        self.tests = <int32_t**> calloc(self.D + 1, sizeof(int32_t*))
        self.tests_cap = <int64_t*> calloc(self.D + 1, sizeof(int64_t))
        self.cand = <Buf*> calloc(self.D + 1, sizeof(Buf))
        self.rows.cs = <int32_t*> malloc(p * n * sizeof(int32_t) + 4)
        self.rows.ctmp = <int32_t*> malloc(n * sizeof(int32_t) + 4)
        if (self.rows.cost == NULL or self.rows.mincost == NULL or self.cart_k == NULL
                or self.rows.xlogx == NULL or self.rows.counts == NULL or self.lists == NULL
                or self.keys == NULL or self.tests == NULL or self.tests_cap == NULL
                or self.cand == NULL or self.rows.cs == NULL or self.rows.ctmp == NULL
                or self.states_at_depth == NULL or self.pair_counts == NULL
                or self.side == NULL or self.key2 == NULL or self.pair_res == NULL
                or self.thread_scratch == NULL):
            raise MemoryError("DPDT: cannot allocate the MDP's buffers")
        return 0

    cdef int _allocate_levels(self, int64_t capacity) except -1:
        """Each level's sorted lists, key and tests (CART gives at most 2^K - 1
        tests; every split: p * (n - 1)), and the state store."""
        cdef int d
        cdef int64_t n = self.rows.n, p = self.rows.p
        for d in range(self.D + 1):
            self.lists[d] = <int32_t*> malloc(p * n * sizeof(int32_t) + 4)
            self.keys[d] = <word_t*> malloc(self.nw * sizeof(word_t) + 8)
            if self.lists[d] == NULL or self.keys[d] == NULL:
                raise MemoryError("DPDT: cannot allocate the MDP's buffers")
            if d < self.D:
                if self.cart_k[d] == C_ALL or self.cart_k[d] >= 20:
                    self.tests_cap[d] = p * n + 1
                else:
                    self.tests_cap[d] = 2 * (1 << self.cart_k[d])
                self.tests[d] = <int32_t*> malloc(2 * self.tests_cap[d] * sizeof(int32_t))
                if self.tests[d] == NULL:
                    raise MemoryError("DPDT: cannot allocate the MDP's buffers")
        if memo_init(&self.memo, self.nw, capacity) != 0:
            raise MemoryError("DPDT: cannot allocate the memo store")
        return 0

    cdef void _touch(self) noexcept:
        """Everything allocated is resident before the build measures anything
        (see `_room`): the fixed buffers written once, the store and the first
        hull slots and pool points allocated written."""
        cdef int d
        cdef int64_t n = self.rows.n, p = self.rows.p
        memo_touch(&self.memo)
        for d in range(self.D + 1):
            memset(self.lists[d], 0, p * n * sizeof(int32_t) + 4)
            memset(self.keys[d], 0, self.nw * sizeof(word_t) + 8)
            if d < self.D:
                memset(self.tests[d], 0, 2 * self.tests_cap[d] * sizeof(int32_t))
        memset(self.rows.cs, 0, p * n * sizeof(int32_t) + 4)
        memset(self.rows.ctmp, 0, n * sizeof(int32_t) + 4)
        memset(self.side, 0, n + 1)
        memset(self.key2, 0, self.nw * sizeof(word_t) + 8)

    def __dealloc__(self):
        cdef int d
        if self.D >= 0:
            for d in range(self.D + 1):
                if self.lists != NULL:
                    free(self.lists[d])
                if self.keys != NULL:
                    free(self.keys[d])
                if self.tests != NULL:
                    free(self.tests[d])
                if self.cand != NULL:
                    free(self.cand[d].p)
        free(self.lists)
        free(self.keys)
        free(self.tests)
        free(self.tests_cap)
        free(self.cand)
        free(self.rows.cost)
        free(self.rows.cw)
        free(self.rows.mincost)
        free(self.cart_k)
        free(self.rows.xlogx)
        free(self.rows.counts)
        free(self.pair_counts)
        free(self.side)
        free(self.key2)
        free(self.pair_res)
        free(self.thread_scratch)
        rows_pass_free(&self.rows)
        free(self.rows.cs)
        free(self.rows.ctmp)
        free(self.sort_tmp)
        free(self.hull_off)
        free(self.hull_len)
        free(self.pool.p)
        free(self.states_at_depth)
        memo_free(&self.memo)

    # ------------------------------------------------- growth under the limit
    #
    # Every array the build grows asks `_room` first, so the process stays within
    # memory_limit (measured on its resident size, as the polls are): the state
    # store (its own check, `_memo._growth_allowed`, against the limit less the
    # reserve), the hull arrays, the pool, the candidate lists and the sort
    # buffer.  The first growth past the limit less the reserve is a memory
    # stop; past the limit itself a growth is refused (-2) and its caller
    # winds down without it: a child becomes a leaf (`_side_leaf`), a candidate
    # chain is cut short (its points are still real trees), a hull becomes its
    # leaf (`_leaf_only`, from the pool's spare points).  What is allocated is
    # written at once (the fixed buffers at construction, the new part of a
    # grown array when it grows, the store's with `memo_touch`): the resident
    # size then counts every allocated byte, and no page becomes resident
    # later, unseen by the checks.

    cdef int64_t _stop_line(self) noexcept nogil:
        """The process size where a memory stop begins: the limit less the
        reserve and, with the automatic reserve, less what the pool's next
        growth may copy, so that winding down (which makes the open states'
        hulls, and may grow the pool once more) still fits."""
        return self.memory_limit - self.reserve - (
            growth_cost(self.pool.cap * <int64_t> sizeof(Point), 0)
            if self.auto_reserve else 0)

    cdef bint _room(self, int64_t old_bytes, int64_t extra) noexcept nogil:
        """May a malloc'ed block of `old_bytes` grow by `extra` bytes: the
        process's resident size plus what the growth can add (`growth_cost`)
        within the memory limit?  Past the limit less the reserve, a memory
        stop.  Without a limit, or where the size cannot be read, True."""
        cdef long long rss, after
        if self.refuse_after >= 0:
            # test hook: the limit is reached after that many growths asked
            if self.refuse_after == 0:
                if self.stop == 0:
                    self.stop = STOP_MEMORY
                self.n_refused += 1
                return False
            self.refuse_after -= 1
        if self.memory_limit <= 0:
            return True
        rss = fst_process_rss()
        if rss < 0:
            return True
        if rss > self.peak_rss:
            self.peak_rss = rss
        after = rss + growth_cost(old_bytes, extra)
        if after > self._stop_line() and self.stop == 0:
            self.stop = STOP_MEMORY
        if after > self.memory_limit:
            self.n_refused += 1
            return False
        return True

    cdef int _buf_room(self, Buf* b, int64_t need, bint force=False) noexcept nogil:
        """Capacity for `need` points in b: 0, -1 out of memory, or -2 refused
        under the memory limit (unless `force`).  Grows by doubling; near the
        limit by what still fits, down to what is needed."""
        cdef int64_t least = need - b.cap
        cdef int64_t step
        cdef Point* np_
        if least <= 0:
            return 0
        step = b.cap if b.cap >= 64 else 64
        if step < least:
            step = least
        while not force and not self._room(b.cap * <int64_t> sizeof(Point),
                                           step * <int64_t> sizeof(Point)):
            if step == least:
                return -2
            step = step // 2 if step // 2 > least else least
        np_ = <Point*> realloc(b.p, (b.cap + step) * sizeof(Point))
        if np_ == NULL:
            return -1
        memset(np_ + b.cap, 0, step * sizeof(Point))     # resident now (see above)
        b.p = np_
        b.cap += step
        return 0

    cdef int _push(self, Buf* b, const Point* q) noexcept nogil:
        """Append q to b: 0, -1 out of memory, -2 refused (`_buf_room`)."""
        cdef int rc
        if b.n == b.cap:
            rc = self._buf_room(b, b.n + 1)
            if rc != 0:
                return rc
        b.p[b.n] = q[0]
        b.n += 1
        return 0

    cdef int _pool_room(self, int64_t k) noexcept nogil:
        """Capacity for k more pool points besides the spare (`_leaf_point`)."""
        return self._buf_room(&self.pool, self.pool.n + k + self.spare)

    # ------------------------------------------------------------ the states

    cdef int _reserve_states(self, int64_t need) noexcept nogil:
        """Hull slots for `need` states: 0, -1 out of memory, -2 refused under the
        memory limit (asked before the store takes the state, so a refusal
        leaves both unchanged and the caller makes the child a leaf)."""
        cdef int64_t cap
        cdef int64_t* off
        cdef int32_t* ln
        if need <= self.cap_states:
            return 0
        cap = self.cap_states * 2 if self.cap_states > 0 else 1024
        while cap < need:
            cap *= 2
        while not self._room(0, growth_cost(self.cap_states * 8, (cap - self.cap_states) * 8)
                             + growth_cost(self.cap_states * 4, (cap - self.cap_states) * 4)):
            if cap == need:
                return -2
            cap = (self.cap_states + cap) // 2 if (self.cap_states + cap) // 2 > need else need
        off = <int64_t*> realloc(self.hull_off, cap * sizeof(int64_t))
        if off == NULL:
            return -1
        self.hull_off = off
        ln = <int32_t*> realloc(self.hull_len, cap * sizeof(int32_t))
        if ln == NULL:
            return -1
        self.hull_len = ln
        memset(off + self.cap_states, 0, (cap - self.cap_states) * sizeof(int64_t))
        memset(ln + self.cap_states, 0, (cap - self.cap_states) * sizeof(int32_t))
        self.cap_states = cap
        return 0

    cdef int64_t _leaf_point(self, double loss) noexcept nogil:
        cdef Point q
        cdef int rc
        q.c = 1.0 if self.complexity == C_LEAVES else 0.0
        q.l = loss
        q.split = -1
        q.pad = 0
        q.left = -1
        q.right = -1
        # The pool keeps `spare` points free: after a refusal (a memory stop)
        # each level of the depth-first build makes at most a few more leaves
        # (its open test's two sides, its last level's split leaves, its own
        # leaf-only hull), and `spare` is 8 per level (`_spare_points`).  Only
        # if that count were wrong would it grow past the limit, rather than
        # fail.
        rc = self._buf_room(&self.pool, self.pool.n + 1 + self.spare)
        if rc == -2:
            rc = self._buf_room(&self.pool, self.pool.n + 1, True)
        if rc != 0 or self._push(&self.pool, &q) != 0:
            return -1
        return self.pool.n - 1

    cdef node_t child(self, int d, int64_t m, int32_t f, int32_t t, int side,
                      int64_t* m_child) noexcept nogil:
        """Build the child (rows of level d's state with rank[f] <= t if side == 0,
        > t if side == 1) into level d + 1, find or create and solve its state.
        Returns its id, -1 when out of memory, or -2 when the store had no room
        under the memory limit (a memory stop: `_memory_refused`)."""
        cdef const int32_t* src = self.lists[d]
        cdef int32_t* dst = self.lists[d + 1]
        cdef const int32_t* rf = self.rows.rank + <int64_t> f * self.rows.n
        cdef word_t* key = self.keys[d + 1]
        cdef int64_t i, mc = 0
        cdef uint64_t h
        cdef node_t sid
        cdef int rc
        # its size from column 0 (every column lists every row of the state)
        for i in range(m):
            if (rf[src[i]] <= t) == (side == 0):
                mc += 1
        m_child[0] = mc
        self._filter(src, m, dst, mc, rf, t, side)
        memset(key, 0, self.nw * sizeof(word_t))
        for i in range(mc):
            bs_set(key, dst[i])
        h = bs_hash(key, self.nw, d + 1)
        sid = memo_find(&self.memo, key, d + 1, h)
        if sid >= 0:
            self.memo_hits += 1
            return sid
        rc = self._reserve_states(self.memo.n_nodes + 1)
        if rc != 0:
            return rc           # -2: no room (memory stop), the caller's leaf
        sid = memo_insert(&self.memo, key, d + 1, h)
        if sid < 0:
            return -2 if self._memory_refused() else -1
        self.memo.nodes[sid].count = mc
        self.states_at_depth[d + 1] += 1
        if self.solve(sid, d + 1, mc) != 0:
            return -1
        return sid

    cdef void _filter(self, const int32_t* src, int64_t m, int32_t* dst, int64_t mc,
                      const int32_t* rf, int32_t t, int side) noexcept nogil:
        """dst[j*mc : (j+1)*mc] = the rows of src[j*m : (j+1)*m] on `side`, in order."""
        cdef int j
        cdef int64_t i, k
        cdef int32_t r
        cdef const int32_t* s
        cdef int32_t* o
        for j in range(self.rows.p):
            s = src + <int64_t> j * m
            o = dst + <int64_t> j * mc
            k = 0
            if side == 0:
                for i in range(m):
                    r = s[i]
                    if rf[r] <= t:
                        o[k] = r
                        k += 1
            else:
                for i in range(m):
                    r = s[i]
                    if rf[r] > t:
                        o[k] = r
                        k += 1

    cdef int minkowski(self, int d, int64_t a, int32_t na, int64_t b, int32_t nb,
                       double shift, int32_t split) noexcept nogil:
        """Append to level d's candidates the chain of subtrees `split` + (point of
        chain a) + (point of chain b): the Minkowski sum of two hull chains (c
        increasing, slopes increasing), merged by slope."""
        cdef int32_t i = 0, j = 0
        cdef Point q
        cdef Point* P
        cdef double dla, dca, dlb, dcb
        cdef int rc
        q.split = split
        q.pad = 0
        while True:
            P = self.pool.p
            q.c = P[a + i].c + P[b + j].c + shift
            q.l = P[a + i].l + P[b + j].l
            q.left = a + i
            q.right = b + j
            rc = self._push(&self.cand[d], &q)
            if rc != 0:
                return rc       # -2: refused, the chain is cut short
            if i == na - 1 and j == nb - 1:
                return 0
            if i == na - 1:
                j += 1
            elif j == nb - 1:
                i += 1
            else:
                dla = P[a + i + 1].l - P[a + i].l
                dca = P[a + i + 1].c - P[a + i].c
                dlb = P[b + j + 1].l - P[b + j].l
                dcb = P[b + j + 1].c - P[b + j].c
                if dla * dcb <= dlb * dca:   # slope a <= slope b: a's edge first
                    i += 1
                else:
                    j += 1

    cdef int last_pair(self, int d, int64_t m, int32_t f, int32_t t, node_t* out_l,
                       node_t* out_r) noexcept nogil:
        """Both children of test (f, t) of level d's state when they are at the last
        test level (d + 1 == max_depth - 1): found in the memo or solved at once by
        one fused scan of the parent's sorted lists (each row counted on its own
        side), without building their lists.  Same result as `child` + `solve`:
        per side, the first least-loss split in (column, threshold) order."""
        cdef const int32_t* L = self.lists[d]
        cdef const int32_t* rf = self.rows.rank + <int64_t> f * self.rows.n
        cdef word_t* key[2]
        cdef uint64_t h[2]
        cdef node_t sid[2]
        cdef int need[2]
        cdef int found[2]
        cdef int32_t bf[2]
        cdef int32_t bt[2]
        cdef double best[2]
        cdef double leaf[2]
        cdef int64_t mc[2]
        cdef int K = self.rows.K, sd, j, c
        cdef int64_t i
        cdef int32_t r
        cdef double* tot = self.pair_counts            # [2][K]
        cdef double* bl = self.pair_counts + 4 * K     # [2][K] left counts at the best
        cdef double* right = self.pair_counts + 6 * K  # [K]
        cdef double* res
        cdef double mass
        cdef int64_t stride
        cdef int nt, rc
        key[0] = self.keys[d + 1]
        key[1] = self.key2
        memset(key[0], 0, self.nw * sizeof(word_t))
        memset(key[1], 0, self.nw * sizeof(word_t))
        memset(tot, 0, 2 * K * sizeof(double))
        mc[0] = 0
        mc[1] = 0
        for i in range(m):
            r = L[i]
            sd = 0 if rf[r] <= t else 1
            self.side[r] = <uint8_t> sd
            bs_set(key[sd], r)
            tot[sd * K + self.rows.y[r]] += rows_wt(&self.rows, r)
            mc[sd] += 1
        for sd in range(2):
            h[sd] = bs_hash(key[sd], self.nw, d + 1)
            sid[sd] = memo_find(&self.memo, key[sd], d + 1, h[sd])
            need[sd] = 0
            found[sd] = 0
            best[sd] = 0.0
            if sid[sd] >= 0:
                self.memo_hits += 1
                continue
            leaf[sd] = rows_leaf_loss(&self.rows, tot + sd * K)
            # Rule (leaf floor), as in `solve`: no scan needed
            need[sd] = 2 if leaf[sd] <= rows_floor_loss(&self.rows, tot + sd * K) else 1
        if need[0] == 1 or need[1] == 1:
            # one scan per column, in parallel over columns when the work is
            # large; each column's result lands in its own slot and they are
            # reduced in column order, so the result does not depend on threads
            stride = 2 * (3 + K)
            nt = self.n_threads if m * self.rows.p >= PAR_MIN_WORK else 1
            if nt > 1:
                for j in prange(self.rows.p, num_threads=nt, schedule="static"):
                    self._pair_scan(j, L, m, need, tot,
                                    self.thread_scratch + omp_get_thread_num() * 3 * K,
                                    omp_get_thread_num(), self.pair_res + j * stride)
            else:
                for j in range(self.rows.p):
                    self._pair_scan(j, L, m, need, tot, self.thread_scratch, 0,
                                    self.pair_res + j * stride)
            for j in range(self.rows.p):
                for sd in range(2):
                    res = self.pair_res + j * stride + sd * (3 + K)
                    if res[0] != 0.0 and (not found[sd] or res[1] < best[sd]):
                        found[sd] = 1
                        best[sd] = res[1]
                        bf[sd] = j
                        bt[sd] = <int32_t> res[2]
            for sd in range(2):
                if need[sd] == 1 and found[sd]:
                    # the best split's left leaf, counted on its column alone
                    rows_left_sums(&self.rows, L + <int64_t> bf[sd] * m,
                                   self.rows.rank + <int64_t> bf[sd] * self.rows.n, m,
                                   self.side, sd, bt[sd], bl + sd * K)
        for sd in range(2):
            if need[sd] == 0:
                continue
            rc = self._reserve_states(self.memo.n_nodes + 1)
            if rc == -1:
                return -1
            sid[sd] = memo_insert(&self.memo, key[sd], d + 1, h[sd]) if rc == 0 else -1
            if sid[sd] < 0:
                if rc == -2 or self._memory_refused():
                    sid[sd] = -2        # no room (memory stop): the caller's leaf
                    continue
                return -1
            self.memo.nodes[sid[sd]].count = mc[sd]
            self.states_at_depth[d + 1] += 1
            mass = 0.0
            for c in range(K):
                right[c] = tot[sd * K + c] - bl[sd * K + c]
                mass += tot[sd * K + c]
            if self._finish_last(sid[sd], mass, leaf[sd], need[sd] == 1 and found[sd],
                                 self.col_start[bf[sd]] + bt[sd] if found[sd] else -1,
                                 best[sd], bl + sd * K, right) != 0:
                return -1
        out_l[0] = sid[0]
        out_r[0] = sid[1]
        return 0

    cdef void _pair_scan(self, int j, const int32_t* L, int64_t m, const int* need,
                         const double* tot, double* scratch, int tid,
                         double* res) noexcept nogil:
        """One column of `last_pair`'s scan (`_cart.rows_column_scan` over both
        sides of the test, `self.side`)."""
        rows_column_scan(&self.rows, L + <int64_t> j * m, self.rows.rank + <int64_t> j * self.rows.n,
                         m, self.side, need, tot, scratch, tid, res)

    cdef bint _interrupted(self) noexcept nogil:
        """The time limit, checked at every expansion, and the memory limit (less
        the reserve) and Ctrl-C, polled at most every 0.1 s of expansions; once
        a stop is seen it stays set.  (Every growth asks the limit too: `_room`.)"""
        cdef double now
        cdef long long rss
        if self.stop:
            return True
        now = fst_now()
        if self.deadline >= 0 and now >= self.deadline:
            self.stop = STOP_TIME
            return True
        if now < self.next_signal_check:
            return False
        self.next_signal_check = now + 0.1
        rss = fst_process_rss()
        if rss > self.peak_rss:
            self.peak_rss = rss
        if self.memory_limit > 0 and rss > self._stop_line():
            self.stop = STOP_MEMORY
            return True
        if limits_interrupted():
            self.stop = STOP_INTERRUPT
        return self.stop != 0

    cdef int _side_hull(self, node_t sid, int d, int64_t m, int32_t f, int32_t t,
                        int side, int64_t* off, int32_t* n) noexcept nogil:
        """The hull chain (pool offset, length) of one side of test (f, t) of
        level d's state: its state's, or, for a side the store had no room for
        (sid -2, a memory stop), a leaf point made outside the store.  Returns
        -1 when out of memory."""
        if sid >= 0:
            off[0] = self.hull_off[sid]
            n[0] = self.hull_len[sid]
            return 0
        off[0] = self._side_leaf(d, m, f, t, side)
        n[0] = 1
        return 0 if off[0] >= 0 else -1

    cdef int64_t _side_leaf(self, int d, int64_t m, int32_t f, int32_t t,
                            int side) noexcept nogil:
        """Pool index of the leaf point of one side of test (f, t) of level d's
        state (a child the store had no room for), or -1 when out of memory."""
        cdef const int32_t* L = self.lists[d]
        cdef const int32_t* rf = self.rows.rank + <int64_t> f * self.rows.n
        cdef double* cnt = self.rows.counts
        cdef int64_t i
        cdef int32_t r
        memset(cnt, 0, self.rows.K * sizeof(double))
        for i in range(m):
            r = L[i]
            if (rf[r] <= t) == (side == 0):
                cnt[self.rows.y[r]] += rows_wt(&self.rows, r)
        return self._leaf_point(rows_leaf_loss(&self.rows, cnt))

    cdef bint _memory_refused(self) noexcept nogil:
        """After a failed insert (neither the store nor any state changed): under a
        memory limit, a memory stop -- the store refused to grow past the limit,
        or the system had no more -- and True, so the caller makes that child a
        leaf outside the store (`_side_leaf`); without a limit False, and the
        build ends with MemoryError."""
        if self.memory_limit > 0:
            self.stop = STOP_MEMORY
            return True
        return False

    cdef int _leaf_only(self, node_t sid, double leaf) noexcept nogil:
        """The state's hull is its leaf alone (optimal for every alpha >= 0)."""
        cdef int64_t lp = self._leaf_point(leaf)
        if lp < 0:
            return -1
        self.hull_off[sid] = lp
        self.hull_len[sid] = 1
        self.n_leaf_only += 1
        return 0

    cdef int _finish_last(self, node_t sid, double mass, double leaf, int has_split,
                          int32_t split, double v, const double* lc,
                          const double* rc) noexcept nogil:
        """Hull of a last-level state: its leaf, and its best split (children
        leaves with class counts lc and rc, summed loss v) when that is better.
        mass: the state's rows (their total weight), what its test costs under
        the 'tests' complexity."""
        cdef Point q
        cdef int64_t pl, pr_, lp
        cdef int room
        if not has_split or v >= leaf:
            # no split, the leaf floor, or a split that does not lower the loss:
            # the leaf is optimal for every alpha >= 0
            return self._leaf_only(sid, leaf)
        room = self._pool_room(4)
        if room != 0:
            # -2: no room for the split (memory stop): the leaf, from the spare
            return self._leaf_only(sid, leaf) if room == -2 else -1
        self.n_expanded += 1
        pl = self._leaf_point(rows_leaf_loss(&self.rows, lc))
        pr_ = self._leaf_point(rows_leaf_loss(&self.rows, rc))
        lp = self._leaf_point(leaf)
        if pl < 0 or pr_ < 0 or lp < 0:
            return -1
        q.c = (mass if self.complexity == C_TESTS else 0.0) + (
            2.0 if self.complexity == C_LEAVES else 0.0)
        q.l = v
        q.split = split
        q.pad = 0
        q.left = pl
        q.right = pr_
        if self._push(&self.pool, &q) != 0:
            return -1
        self.hull_off[sid] = lp
        self.hull_len[sid] = 2
        return 0

    cdef int solve(self, node_t sid, int d, int64_t m) noexcept nogil:
        """Solve the state whose p sorted lists are in level d: its hull of
        (complexity, loss) points optimal for some alpha >= 0, into the pool.
        Its children are solved first (depth first, one level a call: at most
        max_depth calls deep)."""
        cdef const int32_t* L = self.lists[d]
        cdef double* cnt = self.rows.counts + 3 * self.rows.K
        cdef double leaf, shift
        cdef int64_t i
        cdef int rc
        cdef Buf* cb = &self.cand[d]
        cdef Point q
        memset(cnt, 0, self.rows.K * sizeof(double))
        for i in range(m):
            cnt[self.rows.y[L[i]]] += rows_wt(&self.rows, L[i])
        leaf = rows_leaf_loss(&self.rows, cnt)
        cb.n = 0
        # Rule (leaf floor): when the leaf's loss equals the sum over rows of the
        # least cost of each row's class, no tree has a smaller loss (every tree
        # pays at least that per row) and every tree has complexity >= the
        # leaf's, so the leaf is optimal for every alpha >= 0.  Also covers d == D.
        if d >= self.D or leaf <= rows_floor_loss(&self.rows, cnt):
            return self._leaf_only(sid, leaf)
        if self._interrupted():
            # Stopped (time limit or Ctrl-C): from now on every new state is a
            # leaf and an open state tries no more tests, so the build ends fast
            # with the exact solution of a smaller MDP (fewer actions): its hull
            # points are real trees with their true losses, only the front may
            # be worse than the full MDP's.
            return self._leaf_only(sid, leaf)
        self.n_expanded += 1
        q.c = 1.0 if self.complexity == C_LEAVES else 0.0
        q.l = leaf
        q.split = -1
        q.pad = 0
        q.left = -1
        q.right = -1
        rc = self._push(cb, &q)
        if rc != 0:
            # -2: no room for the candidates (memory stop): the leaf alone
            return self._leaf_only(sid, leaf) if rc == -2 else -1
        # the test's complexity under 'tests': the rows reaching it (their weight)
        shift = 0.0
        if self.complexity == C_TESTS:
            for i in range(self.rows.K):
                shift += cnt[i]
        rc = self._last_test(d, m, shift) if d == self.D - 1 else self._tests(d, m, shift)
        if rc != 0:
            return rc
        return self._make_hull(sid, d, m, leaf)

    cdef int _last_test(self, int d, int64_t m, double shift) noexcept nogil:
        """Children are leaves: the best test is the least-loss split whatever
        alpha is (see the module notes); exact over every split.  Its point joins
        the level's candidates.  Returns -1 when out of memory."""
        cdef int32_t f, t
        cdef double v
        cdef Point q
        if rows_best_split(&self.rows, self.lists[d], m, &f, &t, &v):
            q.c = shift + (2.0 if self.complexity == C_LEAVES else 0.0)
            q.l = v
            q.split = self.col_start[f] + t
            q.pad = 0
            # the two leaves are made only if the split is on the hull
            q.left = -2
            q.right = -2
            if self._push(&self.cand[d], &q) == -1:
                return -1   # -2: refused (memory stop), the leaf alone
        return 0

    cdef int _tests(self, int d, int64_t m, double shift) noexcept nogil:
        """The state's tests (the generating function's, or every split), each
        one's children solved and their hull chains merged into the level's
        candidates (Bellman's equation as a Minkowski sum).  Returns -1 when out
        of memory."""
        cdef const int32_t* L = self.lists[d]
        cdef int64_t n_t, k, mc
        cdef int32_t f, t
        cdef int kd = self.cart_k[d]
        cdef node_t cl, cr = -1
        cdef int rc
        cdef int64_t ol, orr
        cdef int32_t nl, nr
        if kd == C_ALL:
            n_t = cart_all_tests(&self.rows, L, m, self.tests[d])
        else:
            n_t = 0
            if self.growth & GROW_DEPTH:
                memcpy(self.rows.cs, L, <int64_t> self.rows.p * m * sizeof(int32_t))
                # past the deadline CART stops growing: the tests found so far
                # are the state's (the first is tried, its children leaves by
                # then, and the loop below ends at the stop)
                cart_grow(&self.rows, 0, m, m, 0, kd, self.tests[d], &n_t, self.deadline)
            if self.growth & GROW_BEST_FIRST:
                memcpy(self.rows.cs, L, <int64_t> self.rows.p * m * sizeof(int32_t))
                if cart_best_first(&self.rows, m, kd, self.tests[d], &n_t, self.deadline) != 0:
                    return -1
        for k in range(n_t):
            if self._interrupted():
                # stopped: the tests tried so far are the actions (polled at each
                # test: at the last levels a test's children are solved here by
                # one scan of every column, not through `solve`, which polls)
                break
            f = self.tests[d][2 * k]
            t = self.tests[d][2 * k + 1]
            if d + 1 == self.D - 1:
                rc = self.last_pair(d, m, f, t, &cl, &cr)
            else:
                rc = 0
                cl = self.child(d, m, f, t, 0, &mc)
                cr = self.child(d, m, f, t, 1, &mc) if cl != -1 else -1
                if cl == -1 or cr == -1:
                    rc = -1
            if rc != 0:
                return -1
            if (self._side_hull(cl, d, m, f, t, 0, &ol, &nl) != 0
                    or self._side_hull(cr, d, m, f, t, 1, &orr, &nr) != 0):
                return -1
            rc = self.minkowski(d, ol, nl, orr, nr, shift, self.col_start[f] + t)
            if rc == -1:
                return -1
            # -2: refused (memory stop), the chain cut short; the loop ends
        return 0

    cdef int _make_hull(self, node_t sid, int d, int64_t m, double leaf) noexcept nogil:
        """The hull of the leaf and every action's chain (the level's candidates),
        made contiguous in the pool as the state's.  Returns -1 when out of
        memory."""
        cdef Buf* cb = &self.cand[d]
        cdef int64_t i, k
        cdef int rc
        if self.sort_tmp_cap < cb.n:
            free(self.sort_tmp)
            self.sort_tmp = NULL
            self.sort_tmp_cap = 0
            k = cb.n * 2
            if not self._room(0, k * <int64_t> sizeof(Point)):
                k = cb.n
                if not self._room(0, k * <int64_t> sizeof(Point)):
                    return self._leaf_only(sid, leaf)   # memory stop: the leaf alone
            self.sort_tmp = <Point*> malloc(k * sizeof(Point))
            if self.sort_tmp == NULL:
                return -1
            memset(self.sort_tmp, 0, k * sizeof(Point))   # resident now
            self.sort_tmp_cap = k
        sort_points(cb.p, cb.n, self.sort_tmp)
        k = lower_hull(cb.p, cb.n)
        # room for the hull and the last level's two leaves, so that the hull
        # is contiguous in the pool
        rc = self._pool_room(k + 2)
        if rc != 0:
            return self._leaf_only(sid, leaf) if rc == -2 else -1
        for i in range(k):
            if cb.p[i].left == -2:
                # the last level's split: make its two leaves now (before the
                # hull, which must be contiguous in the pool)
                if self._leaf_children(self.lists[d], m, &cb.p[i]) != 0:
                    return -1
        self.hull_off[sid] = self.pool.n
        self.hull_len[sid] = <int32_t> k
        for i in range(k):
            if self._push(&self.pool, &cb.p[i]) != 0:
                return -1
        return 0

    cdef int _leaf_children(self, const int32_t* L, int64_t m, Point* q) noexcept nogil:
        """Leaf points of the two sides of q.split (last level)."""
        cdef double* lc = self.rows.counts
        cdef double* rc = self.rows.counts + self.rows.K
        cdef int64_t i
        cdef int f = 0
        cdef int32_t t
        cdef int32_t r
        cdef const int32_t* rf
        while self.col_start[f + 1] <= q.split:
            f += 1
        t = q.split - self.col_start[f]
        rf = self.rows.rank + <int64_t> f * self.rows.n
        memset(lc, 0, 2 * self.rows.K * sizeof(double))
        for i in range(m):
            r = L[i]
            if rf[r] <= t:
                lc[self.rows.y[r]] += rows_wt(&self.rows, r)
            else:
                rc[self.rows.y[r]] += rows_wt(&self.rows, r)
        q.left = self._leaf_point(rows_leaf_loss(&self.rows, lc))
        q.right = self._leaf_point(rows_leaf_loss(&self.rows, rc))
        return 0 if q.left >= 0 and q.right >= 0 else -1

    def build(self, double time_limit=-1.0, int64_t memory_limit=0, int64_t reserve=-1):
        """Build and solve the whole MDP from the root (all rows, depth 0).
        Returns 0, or the stop (STOP_TIME past `time_limit` seconds, >= 0;
        STOP_MEMORY past `memory_limit` bytes of the process, > 0; STOP_INTERRUPT
        on Ctrl-C) that ended it early with a smaller MDP solved.  `reserve`
        >= 0 replaces the automatic one (tests: 0 makes every growth past the
        limit a refusal)."""
        cdef word_t* key = self.keys[0]
        cdef int64_t i
        cdef uint64_t h
        cdef node_t sid
        cdef int rc
        cdef long long rss
        self.deadline = fst_now() + time_limit if time_limit >= 0 else -1.0
        # The stop begins below the limit by the reserve, a sixteenth of the room
        # left (at most 32 MB): a build winding down after it rarely has to
        # cut a hull short (`_room`).
        rss = fst_process_rss()
        self.reserve = 0
        if memory_limit > 0 and rss >= 0 and memory_limit > rss:
            self.reserve = min(<int64_t> REALLOC_COPY_MAX, (memory_limit - rss) // 16)
        self.auto_reserve = reserve < 0
        if reserve >= 0:
            self.reserve = reserve
        self.memory_limit = memory_limit
        self.memo.memory_limit = memory_limit - self.reserve if memory_limit > 0 else 0
        with nogil:
            memcpy(self.lists[0], self.order, <int64_t> self.rows.p * self.rows.n * sizeof(int32_t))
            memset(key, 0, self.nw * sizeof(word_t))
            for i in range(self.rows.n):
                bs_set(key, i)
            h = bs_hash(key, self.nw, 0)
            sid = memo_insert(&self.memo, key, 0, h)
            rc = -1
            if sid >= 0 and self._reserve_states(1) == 0:
                self.memo.nodes[sid].count = self.rows.n
                self.states_at_depth[0] = 1
                rc = self.solve(sid, 0, self.rows.n)
        self.peak_rss = max(self.peak_rss, fst_process_rss())
        if rc != 0:
            raise MemoryError("DPDT: out of memory while building the MDP")
        return self.stop

    def generate_tests(self, int kd):
        """The tests the generating function offers at the root (all rows):
        (column, threshold) pairs, for tests against sklearn's CART."""
        cdef int64_t n_t = 0
        cdef int32_t* buf = <int32_t*> malloc(4 * ((<int64_t> 1 << kd) + 1) * sizeof(int32_t))
        if buf == NULL:
            raise MemoryError()
        with nogil:
            if self.growth & GROW_DEPTH:
                memcpy(self.rows.cs, self.order, <int64_t> self.rows.p * self.rows.n * sizeof(int32_t))
                cart_grow(&self.rows, 0, self.rows.n, self.rows.n, 0, kd, buf, &n_t, -1.0)
            if self.growth & GROW_BEST_FIRST:
                memcpy(self.rows.cs, self.order, <int64_t> self.rows.p * self.rows.n * sizeof(int32_t))
                cart_best_first(&self.rows, self.rows.n, kd, buf, &n_t, -1.0)
        out = [(int(buf[2 * k]), int(buf[2 * k + 1])) for k in range(n_t)]
        free(buf)
        return out

    def root_hull(self):
        """(c, loss, point index) of the root's hull points, c increasing."""
        cdef int64_t off = self.hull_off[0], i
        cdef int32_t k = self.hull_len[0]
        c = np.empty(k)
        l = np.empty(k)
        idx = np.empty(k, dtype=np.int64)
        for i in range(k):
            c[i] = self.pool.p[off + i].c
            l[i] = self.pool.p[off + i].l
            idx[i] = off + i
        return c, l, idx

    def tree(self, int64_t point):
        """The tree of a hull point in preorder: (split, left, right, depth)."""
        split, left, right, depth = [], [], [], []
        stack = [(point, 0, -1, 0)]
        cdef Point q
        while stack:
            pt, dep, parent, is_right = stack.pop()
            node = len(split)
            if parent >= 0:
                (right if is_right else left)[parent] = node
            q = self.pool.p[pt]
            split.append(q.split)
            left.append(-1)
            right.append(-1)
            depth.append(dep)
            if q.split >= 0:
                stack.append((q.right, dep + 1, node, 1))
                stack.append((q.left, dep + 1, node, 0))
        return (np.asarray(split, dtype=np.intp), np.asarray(left, dtype=np.intp),
                np.asarray(right, dtype=np.intp), np.asarray(depth, dtype=np.intp))

    def stats(self):
        return {
            "states": int(self.memo.n_nodes),
            "states_saved": int(self.memo_hits),
            "states_expanded": int(self.n_expanded),
            "states_leaf_only": int(self.n_leaf_only),
            "states_per_depth": [int(self.states_at_depth[d]) for d in range(self.D + 1)],
            "hull_points": int(self.pool.n),
            "memo_bytes": int(memo_bytes(&self.memo)),
            "peak_rss_bytes": int(self.peak_rss),
            "growth_refused": int(self.n_refused),
        }
