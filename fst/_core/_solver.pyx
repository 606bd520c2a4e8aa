"""The certified search as a Python object: `Search(problem, config)` prepares the
context of one fit from a split space (`_problem.build_problem`) and a
configuration (`_config.make_config`), `run` performs the search
(`_schedule.schedule_run`) with the GIL released, and `extract` rebuilds the
tree it recorded.

# Notes:
# - All state lives on the Search object (its Ctx and the Python arrays it points
#   into), so concurrent fits in threads are independent.
# - The search runs in the calling thread; Ctrl-C reaches it through its own
#   polls (`_context.check_limits`), which end it as a stop.
# - With n_jobs > 1 each of n threads runs the whole schedule on its own context
#   (memo store, scratch, frames) over the same split space, its root split loop
#   restricted to its share (split % n), and they share two words
#   (`fst_shared_t`): the best objective any thread's tree reaches, which caps
#   every share's loop, and the first stop, which ends them all.  The root's
#   optimum is the least of the shares' (`_bounds.owned_splits_lower_bound`).
# - The tree returned is canonical (`_search.canonical_split`): at each node the
#   leaf if it is optimal, else the lowest split index reaching the node's
#   optimum.  It depends on the data and the optimum alone, so a certified fit
#   returns the same tree for any n_jobs, row order or store capacity; a
#   stopped fit returns the best tree it recorded.
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint64_t, INF
from ._bitset cimport bs_count, bs_and, bs_andnot, bs_hash, bs_hash_key
from ._memo cimport (MAX_DEPTH_LEFT, SPLIT_ELSEWHERE, Node, memo_init, memo_free, memo_find, memo_key,
                     memo_bytes)
from ._problem cimport space_init, split_row, fill_column
from ._problem import distinct_columns
from ._limits cimport (RUNNING, STOP_INTERRUPT, fst_now, fst_process_rss, limits_start,
                       limits_gather)
from ._config cimport STRATEGY_CLASS_PREFIX, RULE_LEAF_BUDGET, SQUARES_RULES, config_from_dict
from ._ties cimport tie_key
from ._context cimport (Ctx, Stats, fst_shared_t, fst_shared_set_stop,
                        fst_shared_incumbent, fst_load_double)
from ._schedule cimport schedule_run
from ._squares_nodes cimport squares_scratch, squares_scratch_free
from ._search cimport canonical_ties
from ._table cimport fst_table_t, FST_SLOT_BYTES

from ._threads cimport fst_run_threads


cdef struct ThreadWork:
    # What each thread of `fst_run_threads` reads: the contexts and what to run.
    Ctx** ctxs
    node_t* roots
    const int32_t* al
    int n_all
    int canonical          # 0: the search; 1: the root's optimal splits
    double V               # the optimum, for the root's optimal splits
    int rec_leaves         # the leaves of the root's recorded optimal tree (up
                           # to 4; 5 for more: `canonical_ties`)
    int* found             # how many of its splits each share finds (`canonical_ties`)
    int32_t* splits        # and they, n_all + 1 a thread
    node_t* lids           # their children, likewise
    node_t* rids


cdef void _thread_main(void* arg, int t) noexcept nogil:
    cdef ThreadWork* w = <ThreadWork*> arg
    cdef int64_t at = <int64_t> t * (w.n_all + 1)
    if w.canonical:
        w.found[t] = canonical_ties(w.ctxs[t], w.roots[t], w.V, w.al, w.n_all,
                                    w.splits + at, w.lids + at, w.rids + at, w.rec_leaves)
    else:
        w.roots[t] = schedule_run(w.ctxs[t], w.al)
from ._openmp cimport FST_OPENMP
from ._simd cimport fst_simd_resolve, fst_simd_mode

cnp.import_array()


cdef void _ctx_free(Ctx* c) noexcept:
    """Free what one thread's context owns (the split space is the Problem's)."""
    memo_free(&c.memo)
    squares_scratch_free(c)
    free(c.tmp)
    free(c.cnt_scratch)
    free(c.icnt)
    free(c.hkey)
    free(c.frames)


cdef void _limits_off(Ctx* c) noexcept:
    """No time or work limit and no pass switch from here (the memory limit
    stays); the root's shared-incumbent cap is off (`prog_root`)."""
    c.lim.deadline = -1.0
    c.cfg.work_limit = 0
    c.work_stop = 0
    c.prog_root = -1
    c.reporter = NULL


# The most the threads' table of shared bounds takes (bytes).
DEF TABLE_BYTES = 512 << 20


cdef list _tie_list(const int32_t* splits, const node_t* lids, const node_t* rids, int k):
    """The first k optimal splits `canonical_ties` wrote, as (split, left, right)."""
    cdef int i
    return [(int(splits[i]), int(lids[i]), int(rids[i])) for i in range(k)]


cdef class Search:
    """One certified search over a prepared split space (see fst._core._problem).

    Holds the memo store; `run` performs the search, `extract` rebuilds the tree."""
    cdef Ctx c
    cdef object _keep          # the Problem whose buffers Ctx points into
    cdef object _pcols         # the labels a leaf tries (Space.pcols)
    cdef object _reporter      # the progress reporter Ctx.reporter points to
    cdef node_t root
    cdef int32_t* all_splits
    cdef readonly double seconds
    # the threads of a parallel search: ctxs[0] is &c, the others are `extra`
    cdef int n_workers
    cdef Ctx** ctxs
    cdef Ctx* extra
    cdef node_t* roots
    cdef Stats* st_search      # each thread's counters when the search ended
    cdef int64_t* nodes_search  # and its nodes
    cdef fst_shared_t shared
    cdef fst_table_t table      # the threads' shared bounds (slots NULL alone)
    cdef double* share_lbs      # each share's bound at its last poll
    # the result over all threads (`_gather`)
    cdef int main              # the context holding the tree returned
    cdef double lb, ub
    cdef bint done             # no stop: the optimum is proved
    cdef int32_t canon_root    # the canonical root split (-1: the leaf), or
    cdef node_t canon_left, canon_right   # -2: not made (the recorded tree)
    cdef int64_t canon_root_expansions    # the canonical root split's work
    cdef bint canon_tried                 # `_canonical_root` has run
    cdef object _choices       # each thread's canonical choices, node -> (leaves,
                               # split, left, right) (`_choose`)

    def __cinit__(self):
        memset(&self.c, 0, sizeof(Ctx))
        self.all_splits = NULL
        self.root = -1
        self.c.prog_root = -1
        self.c.prog_ub = INF
        self.n_workers = 1
        self.ctxs = NULL
        self.extra = NULL
        self.roots = NULL
        self.st_search = NULL
        self.nodes_search = NULL
        self.canon_root = -2
        memset(&self.table, 0, sizeof(fst_table_t))
        self.share_lbs = NULL

    def __dealloc__(self):
        cdef int t
        free(self.table.slots)
        free(self.table.keys)
        free(self.share_lbs)
        _ctx_free(&self.c)
        if self.extra != NULL:
            for t in range(self.n_workers - 1):
                _ctx_free(&self.extra[t])
        free(self.extra)
        free(self.ctxs)
        free(self.roots)
        free(self.st_search)
        free(self.nodes_search)
        free(self.all_splits)

    def __init__(self, problem, dict config):
        """`config`: a dict of `_config.make_config` (the estimator's parameters
        and any private overrides)."""
        cdef int i
        cdef Ctx* c = &self.c
        self._keep = problem
        if problem.n_splits >= (1 << 30):
            raise ValueError("fst takes fewer than 2**30 candidate splits (a path key "
                             "holds 2 * split + side in 32 bits)")
        if problem.n_rows >= 2147483647:
            raise ValueError("fst takes fewer than 2**31 - 1 rows (a node's row count "
                             "is 32-bit)")
        config_from_dict(&c.cfg, config)
        if c.cfg.max_depth >= problem.n_rows:
            # A tree of separating splits on n rows has depth at most n - 1, so
            # such a limit removes no tree: search without one.
            c.cfg.max_depth = -1
        if c.cfg.max_depth > MAX_DEPTH_LEFT:
            raise ValueError(f"max_depth={c.cfg.max_depth} is above {MAX_DEPTH_LEFT} and "
                             f"below the number of rows ({problem.n_rows}); fst keeps "
                             f"a node's depth left in 16 bits")
        if not (FST_OPENMP and c.cfg.n_threads > 1):
            c.cfg.n_threads = 1
        self.n_workers = c.cfg.n_threads
        self._pcols = distinct_columns(problem.cost)
        space_init(&c.sp, problem, self._pcols,
                   (c.cfg.strategy & STRATEGY_CLASS_PREFIX) != 0)
        c.seed = INF
        if c.sp.target != NULL:
            # squared error: the rules of class counts (the pair stage and its
            # shape bounds, the three-leaf peel, the single column's
            # segmentation) do not apply, nor the depth ladder (the engine
            # seeds this search with its trees by depth); the two-leaf closure
            # of the leaf budget does
            c.cfg.rules &= SQUARES_RULES
            c.cfg.ladder_max = 0
            if squares_scratch(c) < 0:
                raise MemoryError()
        else:
            # the pair stage's values bound the trees of two and three leaves
            # more tightly than the leaf budget's closure
            c.cfg.rules &= ~RULE_LEAF_BUDGET
        c.vec = fst_simd_resolve(c.cfg.simd)
        c.tmp = <word_t*> malloc(c.sp.nw * sizeof(word_t))
        c.cnt_scratch = <double*> malloc(3 * c.sp.K * sizeof(double))
        c.icnt = <int64_t*> malloc(c.sp.K * sizeof(int64_t))
        c.hkey = <uint64_t*> malloc(2 * c.sp.nw * sizeof(uint64_t))
        self.all_splits = <int32_t*> malloc((c.sp.n_splits + 1) * sizeof(int32_t))
        if (c.tmp == NULL or c.cnt_scratch == NULL or c.icnt == NULL or c.hkey == NULL
                or self.all_splits == NULL):
            raise MemoryError()
        for i in range(c.sp.n_splits):
            self.all_splits[i] = i
        for i in range(2 * c.sp.nw):
            c.hkey[i] = bs_hash_key(i)
        if memo_init(&c.memo, c.sp.nw, max(c.cfg.memo_capacity // self.n_workers, 1)) != 0:
            raise MemoryError()
        c.memo.split_bits = c.sp.split_bits   # children keep their keys as paths
        self._make_workers()

    cdef _make_workers(self):
        """The contexts of the threads: the first is `c`; the others copy its
        configuration and split space and get their own store (its capacity
        shared out), scratch and frames.  The split rows are filled at once,
        since the threads read them together."""
        cdef int t, n = self.n_workers, j
        cdef Ctx* c = &self.c
        cdef Ctx* w
        self.ctxs = <Ctx**> calloc(n, sizeof(Ctx*))
        self.roots = <node_t*> calloc(n, sizeof(node_t))
        self.st_search = <Stats*> calloc(n, sizeof(Stats))
        self.nodes_search = <int64_t*> calloc(n, sizeof(int64_t))
        if (self.ctxs == NULL or self.roots == NULL or self.st_search == NULL
                or self.nodes_search == NULL):
            raise MemoryError()
        self.ctxs[0] = c
        if n == 1:
            return
        for j in range(c.sp.n_cols):
            fill_column(&c.sp, j)
        c.cfg.n_threads = 1       # the pair stage runs in its thread
        # The schedule's phases are timed in work: each thread's share of a phase
        # is its share of the root, so the phases end at the serial search's
        # total work.
        c.cfg.switch_work = c.cfg.switch_work // n
        c.cfg.rung_work = c.cfg.rung_work // n
        self.extra = <Ctx*> calloc(n - 1, sizeof(Ctx))
        if self.extra == NULL:
            raise MemoryError()
        for t in range(1, n):
            w = &self.extra[t - 1]
            self.ctxs[t] = w
            w.sp = c.sp
            w.cfg = c.cfg
            w.vec = c.vec
            w.prog_root = -1
            w.prog_ub = INF
            w.tmp = <word_t*> malloc(c.sp.nw * sizeof(word_t))
            w.cnt_scratch = <double*> malloc(3 * c.sp.K * sizeof(double))
            w.icnt = <int64_t*> malloc(c.sp.K * sizeof(int64_t))
            w.hkey = <uint64_t*> malloc(2 * c.sp.nw * sizeof(uint64_t))
            if (w.tmp == NULL or w.cnt_scratch == NULL or w.icnt == NULL
                    or w.hkey == NULL):
                raise MemoryError()
            memcpy(w.hkey, c.hkey, 2 * c.sp.nw * sizeof(uint64_t))
            w.seed = c.seed
            if c.sp.target != NULL and squares_scratch(w) < 0:
                raise MemoryError()
            if memo_init(&w.memo, c.sp.nw, max(c.cfg.memo_capacity // n, 1)) != 0:
                raise MemoryError()
            w.memo.split_bits = c.sp.split_bits
        self._make_table()
        self.share_lbs = <double*> calloc(n, sizeof(double))
        if self.share_lbs == NULL:
            raise MemoryError()
        for t in range(n):
            self.ctxs[t].share_lbs = self.share_lbs
            self.ctxs[t].sh = &self.shared
            self.ctxs[t].tid = t
            self.ctxs[t].n_workers = n
            self.ctxs[t].table = &self.table if self.table.slots != NULL else NULL

    cdef _make_table(self):
        """The table of bounds the threads share: as many slots (a power of two)
        as fit in TABLE_BYTES, or an eighth of the memory limit when that is less
        (a slot holds its key: nw words).  Pages are touched as slots fill."""
        cdef int64_t per = FST_SLOT_BYTES + self.c.sp.nw * sizeof(word_t)
        cdef int64_t budget = TABLE_BYTES, size = 1 << 10
        if self.c.cfg.memory_limit > 0 and self.c.cfg.memory_limit // 8 < budget:
            budget = self.c.cfg.memory_limit // 8
        while size * 2 * per <= budget and size < (1 << 22):
            size *= 2
        self.table.slots = calloc(size, FST_SLOT_BYTES)
        self.table.keys = <uint64_t*> calloc(size * self.c.sp.nw, sizeof(uint64_t))
        if self.table.slots == NULL or self.table.keys == NULL:
            free(self.table.slots)
            free(self.table.keys)
            self.table.slots = NULL
            self.table.keys = NULL
            return
        self.table.mask = size - 1
        self.table.nw = self.c.sp.nw

    def set_reporter(self, reporter, double seconds=5.0):
        """Call `reporter((seconds, lower bound, incumbent, expansions))` every
        `seconds` while the search runs (from its own polls), or never (None)."""
        self._reporter = reporter
        self.c.reporter = <void*> reporter if reporter is not None else NULL
        self.c.report_every = seconds

    def interrupt(self):
        """Ask a running search (in another thread) to stop as on Ctrl-C."""
        if self.n_workers > 1:
            fst_shared_set_stop(&self.shared, STOP_INTERRUPT)
        else:
            self.c.lim.stop = STOP_INTERRUPT

    def set_work_limit(self, work):
        """The work limit of the next `run` (0: none), on every thread: a run
        stopped there (as at its time limit) resumes as `set_time_limit` says."""
        cdef int t
        for t in range(self.n_workers):
            self.ctxs[t].cfg.work_limit = max(int(work), 0)

    def seed(self, double value):
        """A tree of this value exists outside the search (another search's):
        the root searches only for better trees, and a bound reaching it (within
        TOL) proves that tree optimal (`lower_bound`; `upper_bound` stays the
        value of the search's own tree).  Before the first `run`."""
        cdef int t
        for t in range(self.n_workers):
            self.ctxs[t].seed = value

    def set_time_limit(self, seconds):
        """The time limit of the next `run` (None: none).  A search run again
        resumes from its store: every bound and tree it proved stands, so a
        second run continues the first."""
        self.c.cfg.time_limit = -1.0 if seconds is None else float(seconds)

    def run(self):
        """Search until the root is solved or a limit of the configuration stops
        it.  Returns the status code (`_limits.STATUS_NAMES`)."""
        cdef Ctx* c = &self.c
        cdef Ctx** ctxs = self.ctxs
        cdef node_t* roots = self.roots
        cdef const int32_t* al = self.all_splits
        cdef int t, n = self.n_workers
        cdef double t0 = fst_now()
        # a seed's tree caps every share of a parallel root, as one of theirs would
        self.shared.incumbent = c.seed
        self.shared.stop = RUNNING
        for t in range(n):
            ctxs[t].prog_t0 = t0
            limits_start(&ctxs[t].lim, c.cfg.time_limit, c.cfg.memory_limit)
            # a pass's own cut (the first pass's or a rung's work) belongs to the
            # run that set it: a run resumed after a stop starts its schedule
            # without one, which would otherwise end it at once (STOP_SWITCH)
            ctxs[t].work_stop = 0
            ctxs[t].memo.memory_limit = c.cfg.memory_limit
            ctxs[t].next_report = t0 + c.report_every
            ctxs[t].reporter = c.reporter
            ctxs[t].report_every = c.report_every
        cdef ThreadWork w
        memset(&w, 0, sizeof(ThreadWork))
        w.ctxs = ctxs
        w.roots = roots
        w.al = al
        with nogil:
            if n == 1:
                roots[0] = schedule_run(c, al)
            else:
                fst_run_threads(n, _thread_main, &w)
            c.lim.peak_rss = max(c.lim.peak_rss, fst_process_rss())
        for t in range(n):
            if roots[t] < 0:
                raise MemoryError("fst could not allocate the root of the search")
            if ctxs[t].contract_broken:
                raise RuntimeError(
                    "fst internal error: a search pass left the root unsolved with "
                    f"lower bound {ctxs[t].memo.nodes[roots[t]].lb!r}, not above its "
                    "budget (search contract (iii)). Please report it with the data.")
        code = self._gather()
        for t in range(n):
            # the search's own work; the canonical tree's is counted apart
            self.st_search[t] = ctxs[t].st
            self.nodes_search[t] = ctxs[t].memo.n_nodes
        self.seconds = fst_now() - t0
        return code

    cdef int _gather(self):
        """The result over the threads: the least incumbent (the first thread
        holding it keeps the tree), the least bound, the stop if any; a search
        without a stop has proved its incumbent optimal (every share is solved
        or within TOL above the shared incumbent)."""
        cdef int t, n = self.n_workers, code = RUNNING
        cdef Node* nd
        self.main = 0
        self.ub = INF
        self.lb = INF
        for t in range(n):
            code = limits_gather(code, &self.c.lim, &self.ctxs[t].lim)
            nd = &self.ctxs[t].memo.nodes[self.roots[t]]
            if nd.ub < self.ub:
                self.ub = nd.ub
                self.main = t
            if nd.lb < self.lb:
                self.lb = nd.lb
        if n > 1 and self.shared.stop != RUNNING:
            code = self.shared.stop
        self.done = code == RUNNING
        # every tree costs at least the root's bound, and the seed's tree or
        # the root's is a real one; with no stop the better of them is optimal
        best = self.ub if self.ub < self.c.seed else self.c.seed
        if self.done or self.lb > best:
            self.lb = best
        self.root = self.roots[self.main]
        return code

    cdef void _canonical_root(self):
        """The canonical tree's root split: the leaf when it is optimal, else,
        among the splits of every thread's share reaching the optimum
        (`canonical_ties`, the shares side by side), the one whose children's
        canonical trees have the fewest leaves in all, then the lowest index
        (`_choose`).  The limits are off from here: the search is over and this
        is part of reading its answer.  A memory stop keeps the recorded tree."""
        cdef Ctx** ctxs = self.ctxs
        cdef node_t* roots = self.roots
        cdef const int32_t* al = self.all_splits
        cdef int t, n = self.n_workers, n_all = self.c.sp.n_splits
        cdef int64_t at, width = n_all + 1
        cdef double V = self.ub
        cdef int* found = <int*> malloc(n * sizeof(int))
        cdef int32_t* splits = <int32_t*> malloc(n * width * sizeof(int32_t))
        cdef node_t* lids = <node_t*> malloc(n * width * sizeof(node_t))
        cdef node_t* rids = <node_t*> malloc(n * width * sizeof(node_t))
        cdef ThreadWork w
        if found == NULL or splits == NULL or lids == NULL or rids == NULL:
            free(found); free(splits); free(lids); free(rids)
            return
        for t in range(n):
            _limits_off(ctxs[t])
        memset(&w, 0, sizeof(ThreadWork))
        w.ctxs = ctxs
        w.roots = roots
        w.al = al
        w.n_all = n_all
        w.canonical = 1
        w.V = V
        w.rec_leaves = self._recorded_leaves(self.main, roots[self.main], 4)
        w.found = found
        w.splits = splits
        w.lids = lids
        w.rids = rids
        with nogil:
            if n == 1:
                _thread_main(&w, 0)
            else:
                fst_run_threads(n, _thread_main, &w)
        for t in range(n):
            # the root's splits' work; what reading below them costs is counted
            # with the rest of the canonical tree's (`stats`)
            self.canon_root_expansions += (ctxs[t].st.expansions
                                           - self.st_search[t].expansions)
        best = None
        try:
            for t in range(n):
                if found[t] == -3:
                    return
            if any(found[t] == -1 for t in range(n)):
                self.canon_root = -1
                self.root = self.roots[self.main]
                return
            self._choices = [dict() for _ in range(n)]
            for t in range(n):
                at = t * width
                one = self._choose(t, _tie_list(splits + at, lids + at, rids + at, found[t]))
                if one is None:
                    return          # a memory stop: the recorded tree
                # (at lam = 0 leaves are not compared: `_choose`)
                if one[0] > 0 and (best is None or tie_key(one[0], one[1], self.c.cfg.lam > 0)
                                   < tie_key(best[0][0], best[0][1], self.c.cfg.lam > 0)):
                    best = (one, t)
            if best is not None:
                (_, self.canon_root, self.canon_left, self.canon_right), self.main = best
                self.root = self.roots[self.main]
        finally:
            for t in range(n):
                ctxs[t].lim.stop = RUNNING
            free(found); free(splits); free(lids); free(rids)

    cdef list _ties(self, int t, node_t nid, double V):
        """The optimal splits of node nid of thread t's store (`canonical_ties`):
        [] when the leaf is optimal, None on a stop."""
        cdef Ctx* c = self.ctxs[t]
        cdef int k, n_all = c.sp.n_splits
        cdef int32_t* splits = <int32_t*> malloc((n_all + 1) * sizeof(int32_t))
        cdef node_t* lids = <node_t*> malloc((n_all + 1) * sizeof(node_t))
        cdef node_t* rids = <node_t*> malloc((n_all + 1) * sizeof(node_t))
        if splits == NULL or lids == NULL or rids == NULL:
            free(splits); free(lids); free(rids)
            return None
        cdef int rec = self._recorded_leaves(t, nid, 4)
        with nogil:
            k = canonical_ties(c, nid, V, self.all_splits, n_all, splits, lids, rids, rec)
        # a solved node has an optimal tree: none found (k == 0) would be an
        # internal inconsistency, read as a stop (the recorded tree is returned)
        out = None if k < -1 or k == 0 else [] if k == -1 else _tie_list(splits, lids, rids, k)
        free(splits); free(lids); free(rids)
        return out

    cdef tuple _choose(self, int t, list ties):
        """(leaves, split, left, right) of the canonical tree among the optimal
        splits `ties` of a node (in index order) of thread t's store: the split
        whose children's canonical trees have the fewest leaves in all, then
        the lowest index; each child's own canonical tree (the leaf when it is
        optimal, else the same choice over its optimal splits) is recorded in
        `_choices[t]`.  (0, -2, -1, -1) when no split is optimal; None on a stop.

        Fewest leaves is decided node by node: a tree's leaves are its
        children's, and the least over trees with root split s of equal value is
        the least of each child's, since each child's optimal trees are chosen
        apart.  Walks an explicit stack: any depth of tree.  A child whose left
        canonical tree already has as many leaves as the best but one needs no
        right one.  At lam = 0 (the exact depth-limited problem) leaves are not
        compared: the lowest optimal split, as the depth-limited engine keeps
        there (`_depth._takes`)."""
        cdef Ctx* c = self.ctxs[t]
        cdef bint leaves_count = c.cfg.lam > 0
        memo = self._choices[t]
        # a frame: [node, its ties, next tie, the best so far]
        root = [-1, ties, 0, (0, -2, -1, -1)]
        stack = [root]
        while stack:
            f = stack[len(stack) - 1]     # (no wraparound in this module)
            if f[1] is None:
                f[1] = self._ties(t, f[0], c.memo.nodes[f[0]].ub)
                if f[1] is None:
                    return None
                if not f[1]:
                    memo[f[0]] = (1, -1, -1, -1)
                    stack.pop()
                    continue
            ties_f, best = f[1], f[3]
            if f[2] == len(ties_f) or best[0] == 2 or (best[0] and not leaves_count):
                if f[0] >= 0:
                    memo[f[0]] = best
                stack.pop()
                continue
            s, lid, rid = ties_f[f[2]]
            if lid not in memo:
                stack.append([lid, None, 0, (0, -2, -1, -1)])
                continue
            if best[0] and memo[lid][0] + 1 >= best[0]:
                f[2] += 1           # its right tree has a leaf at least
                continue
            if rid not in memo:
                stack.append([rid, None, 0, (0, -2, -1, -1)])
                continue
            leaves = memo[lid][0] + memo[rid][0]
            if not best[0] or tie_key(leaves, s, leaves_count) < tie_key(best[0], best[1],
                                                                      leaves_count):
                f[3] = (leaves, s, lid, rid)
            f[2] += 1
        return root[3]

    def progress(self):
        """(seconds since the run started, the root's lower bound and incumbent
        at the last poll, expansions): safe to call from another thread while
        `run` works; before the root exists the bounds are (0, inf)."""
        cdef int t
        cdef double lb = self.c.prog_lb, ub = self.c.prog_ub
        cdef int64_t expansions = 0
        if self.n_workers > 1:
            ub = fst_shared_incumbent(&self.shared)
            for t in range(self.n_workers):
                lb = min(lb, fst_load_double(&self.share_lbs[t]))
        for t in range(self.n_workers):
            expansions += self.ctxs[t].st.expansions
        return (fst_now() - self.c.prog_t0 if self.c.prog_t0 > 0 else 0.0,
                lb, ub, expansions)

    @property
    def lower_bound(self):
        return self.lb

    @property
    def upper_bound(self):
        return self.ub

    @property
    def solved(self):
        return bool(self.done)

    def stats(self):
        """The search's counters (`search_stats_`)."""
        cdef Ctx* c
        cdef Stats* st
        cdef int64_t i, rung_nodes = 0, extra = 0
        cdef int t
        out = {}
        per_thread = []
        for t in range(self.n_workers):
            c = self.ctxs[t]
            st = &self.st_search[t]
            extra += c.st.expansions - st.expansions
            rung_nodes = 0
            if c.cfg.max_depth < 0:
                for i in range(self.nodes_search[t]):
                    rung_nodes += c.memo.nodes[i].depth >= 0
            one = {
                "nodes_created": int(self.nodes_search[t]),
                "expansions": int(st.expansions),
                "memo_bytes": int(memo_bytes(&c.memo)),
                "memo_capacity": int(c.memo.cap_nodes),
                "pair_stages": int(st.pair_stages),
                "pair_stages_skipped": int(st.pair_skipped),  # past the memory limit
                "root_passes": int(st.passes),
                "open_levels": int(c.n_frames),
                "transfers": int(st.transfers),
                "work": int(c.work),
                "ladder_turns": int(st.ladder_turns),
                "ladder_nodes": int(rung_nodes),  # nodes of the rungs (depth-limited keys)
                "whole_keys": int(c.memo.n_keys),  # the other nodes' keys are paths
                "pair_rows": int(st.pair_rows),            # rows of pair stages valued
                "pair_rows_left_out": int(st.pair_rows_left),  # by stages in rounds
                "shared_raises": int(st.shared_raises),
                "shared_trees": int(st.shared_trees),
            }
            per_thread.append(one)
            for k, v in one.items():
                out[k] = out.get(k, 0) + v
            out["ladder_depth"] = max(out.get("ladder_depth", 0), int(st.ladder_depth))
        out["engine"] = "general"
        out["peak_rss_bytes"] = int(self.c.lim.peak_rss)
        out["seconds"] = float(self.seconds)
        out["threads"] = int(self.n_workers)
        # the work of each thread (expansions, nodes), for the parallel search
        out["expansions_per_thread"] = [r["expansions"] for r in per_thread]
        out["nodes_per_thread"] = [r["nodes_created"] for r in per_thread]
        out["canonical"] = self.canon_root != -2
        out["canonical_expansions"] = int(extra)   # reading the canonical tree
        out["canonical_root_expansions"] = int(self.canon_root_expansions)   # its root
        out["shared_bounds"] = int(self.table.published)
        return out

    @property
    def simd(self):
        """The vector loops in effect: 0 scalar, 1 AVX-512, 2 AVX2."""
        return int(fst_simd_mode(self.c.vec))

    def _lookup(self, const word_t[::1] X, int depth=-1):
        """The stored record of the row set X (packed words) at `depth` left, as a
        dict, or None when it is not stored; for tests and experiments."""
        cdef uint64_t h
        cdef node_t i
        cdef Node* nd
        if X.shape[0] != self.c.sp.nw:
            raise ValueError(f"a row set of this search has {self.c.sp.nw} words, not "
                             f"{X.shape[0]}")
        h = bs_hash(&X[0], self.c.sp.nw, depth)
        i = memo_find(&self.c.memo, &X[0], depth, h)
        if i < 0:
            return None
        nd = &self.c.memo.nodes[i]
        return {"lb": nd.lb, "ub": nd.ub, "leaf": nd.leaf, "floor": nd.floor, "pot": nd.pot,
                "g2": nd.g2, "g3": nd.g3, "solved": bool(nd.solved),
                "pair_done": bool(nd.pair_done), "count": int(nd.count),
                "best_split": int(nd.best_split)}

    def check_keys(self):
        """Rebuild every stored node's key and check it against the record: its row
        count and its hash (of the key and depth), and that a lookup finds it at its
        own id.  Returns (nodes, nodes whose key is a path, nodes that fail, the
        longest path); for tests."""
        cdef int64_t i, paths = 0, bad = 0, longest = 0, steps
        cdef int nw = self.c.sp.nw
        cdef Node* nd
        cdef Node* up
        key_buf = np.empty(nw + 1, dtype=np.uint64)
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
            memcpy(&key[0], memo_key(&self.c.memo, i), nw * sizeof(word_t))
            if (bs_count(&key[0], nw) != nd.count
                    or bs_hash(&key[0], nw, nd.depth) != nd.hash
                    or memo_find(&self.c.memo, &key[0], nd.depth, nd.hash) != i):
                bad += 1
        return int(self.c.memo.n_nodes), int(paths), int(bad), int(longest)

    def extract(self):
        """Rebuild the tree of the search, in pre-order: the canonical optimal tree
        of a certified search (`canonical_split` at every node), else the best
        tree recorded.

        Returns (split, left, right, depth, rows) where `rows` is a list of the row
        index arrays of every node; split is -1 at leaves.  Walks an explicit
        stack, so a tree of any depth is read."""
        if self.done and not self.canon_tried:
            # the canonical root split, by the threads over their shares (it
            # fills the root's split rows: read here, not by `run`)
            self.canon_tried = True
            self._canonical_root()
        if self.canon_root != -2:
            out = self._extract_canonical()
            if out is not None:
                return out
        return self._extract_recorded()

    cdef _rows(self, Ctx* c, node_t nid):
        bits = np.unpackbits(
            np.frombuffer((<char*> memo_key(&c.memo, nid))[:c.sp.nw * sizeof(word_t)],
                          dtype=np.uint8), bitorder="little")[: c.sp.n]
        return np.flatnonzero(bits)

    def _extract_canonical(self):
        """The canonical tree below the root split `_canonical_root` chose, in the
        store of the thread that proved it, each node's split as `_choose`
        recorded it."""
        cdef Ctx* c = self.ctxs[self.main]
        cdef node_t nid, lid = -1, rid = -1
        cdef int32_t s
        memo = self._choices[self.main] if self._choices is not None else {}
        splits, lefts, rights, depths, rows = [], [], [], [], []
        stack = [(self.root, 0, -1, 0, True)]
        while stack:
            nid, level, parent, is_right, at_root = stack.pop()
            me = len(splits)
            if parent >= 0:
                (rights if is_right else lefts)[parent] = me
            if at_root:
                s, lid, rid = self.canon_root, self.canon_left, self.canon_right
            else:
                _, s, lid, rid = memo[nid]
            rows.append(self._rows(c, nid))
            splits.append(int(s))
            lefts.append(-1)
            rights.append(-1)
            depths.append(level)
            if s >= 0:
                stack.append((rid, level + 1, me, 1, False))
                stack.append((lid, level + 1, me, 0, False))
        return (np.asarray(splits, dtype=np.intp), np.asarray(lefts, dtype=np.intp),
                np.asarray(rights, dtype=np.intp), np.asarray(depths, dtype=np.intp), rows)

    def _recorded_preorder(self, int t, node_t nid):
        """The best tree recorded for node nid of thread t's store, read down
        the stores (`_recorded_split`), in pre-order: for each of its nodes its
        rows (a bitset), its split (-1: a leaf), its level below nid, and its
        parent's place in the order (-1 for nid) and side (1: right)."""
        cdef Ctx* c = self.ctxs[t]
        cdef int nw = c.sp.nw
        cdef int depth
        cdef int32_t s
        X = np.empty(nw, dtype=np.uint64)
        memcpy(<word_t*> cnp.PyArray_DATA(X), memo_key(&c.memo, nid), nw * sizeof(word_t))
        stack = [(X, c.memo.nodes[nid].depth, 0, -1, 0)]
        me = 0
        while stack:
            X, depth, level, parent, is_right = stack.pop()
            s = self._recorded_split(<const word_t*> cnp.PyArray_DATA(X), depth)
            yield X, s, level, parent, is_right
            if s >= 0:
                depth = depth - 1 if depth > 0 else -1
                for side in (1, 0):     # the left child is read first
                    T = np.empty(nw, dtype=np.uint64)
                    if side:
                        bs_andnot(<word_t*> cnp.PyArray_DATA(T),
                                  <const word_t*> cnp.PyArray_DATA(X), split_row(&c.sp, s), nw)
                    else:
                        bs_and(<word_t*> cnp.PyArray_DATA(T),
                               <const word_t*> cnp.PyArray_DATA(X), split_row(&c.sp, s), nw)
                    stack.append((T, depth, level + 1, me, side))
            me += 1

    cdef int _recorded_leaves(self, int t, node_t nid, int most):
        """The leaves of the best tree recorded for node nid of thread t's store
        (`_recorded_preorder`), counted up to most + 1 (a larger tree reads as
        most + 1)."""
        leaves = 0
        for _, s, _, _, _ in self._recorded_preorder(t, nid):
            leaves += s < 0
            if leaves > most:
                break
        return leaves

    cdef int32_t _recorded_split(self, const word_t* X, int depth):
        """The split of the best tree recorded for (X, depth): in the thread's
        store holding the least incumbent for it, one that holds the tree itself
        (a store that took the value from the threads' table records it as held
        elsewhere, `adopt_shared_tree`; the store it came from keeps the tree,
        or a better one).  A row set no store holds is a leaf: children are
        stored before anything is learned about them, so an unstored child's
        record is its creation record (ub = leaf)."""
        cdef int t, nw = self.c.sp.nw
        cdef uint64_t h = bs_hash(X, nw, depth)
        cdef node_t nid
        cdef Node* nd
        cdef double best = INF
        cdef int32_t s = -1
        for t in range(self.n_workers):
            nid = memo_find(&self.ctxs[t].memo, X, depth, h)
            if nid < 0:
                continue
            nd = &self.ctxs[t].memo.nodes[nid]
            if nd.best_split != SPLIT_ELSEWHERE and nd.ub < best:
                best = nd.ub
                s = nd.best_split
        return s

    def _extract_recorded(self):
        """The best tree recorded at the root (`_recorded_preorder`)."""
        cdef int n = self.c.sp.n
        splits, lefts, rights, depths, rows = [], [], [], [], []
        for X, s, level, parent, is_right in self._recorded_preorder(self.main, self.root):
            if parent >= 0:
                (rights if is_right else lefts)[parent] = len(splits)
            bits = np.unpackbits(X.view(np.uint8), bitorder="little")[:n]
            rows.append(np.flatnonzero(bits))
            splits.append(int(s))
            lefts.append(-1)
            rights.append(-1)
            depths.append(level)
        return (np.asarray(splits, dtype=np.intp), np.asarray(lefts, dtype=np.intp),
                np.asarray(rights, dtype=np.intp), np.asarray(depths, dtype=np.intp), rows)
