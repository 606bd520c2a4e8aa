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
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint64_t, INF
from ._bitset cimport bs_count, bs_and, bs_andnot, bs_hash, bs_hash_key
from ._memo cimport (MAX_DEPTH_LEFT, Node, memo_init, memo_free, memo_find, memo_key,
                     memo_bytes)
from ._problem cimport space_init, split_row
from ._problem import distinct_columns
from ._limits cimport (RUNNING, STOP_INTERRUPT, fst_now, fst_process_rss, limits_start)
from ._config cimport STRATEGY_CLASS_PREFIX, config_from_dict
from ._context cimport Ctx
from ._schedule cimport schedule_run
from ._openmp cimport FST_OPENMP
from ._simd cimport fst_simd_resolve, fst_simd_mode

cnp.import_array()


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
        self._pcols = distinct_columns(problem.cost)
        space_init(&c.sp, problem, self._pcols,
                   (c.cfg.strategy & STRATEGY_CLASS_PREFIX) != 0)
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
        if memo_init(&c.memo, c.sp.nw, c.cfg.memo_capacity) != 0:
            raise MemoryError()
        c.memo.split_bits = c.sp.split_bits   # children keep their keys as paths

    def set_reporter(self, reporter, double seconds=5.0):
        """Call `reporter((seconds, lower bound, incumbent, expansions))` every
        `seconds` while the search runs (from its own polls), or never (None)."""
        self._reporter = reporter
        self.c.reporter = <void*> reporter if reporter is not None else NULL
        self.c.report_every = seconds

    def interrupt(self):
        """Ask a running search (in another thread) to stop as on Ctrl-C."""
        self.c.lim.stop = STOP_INTERRUPT

    def run(self):
        """Search until the root is solved or a limit of the configuration stops
        it.  Returns the status code (`_limits.STATUS_NAMES`)."""
        cdef Ctx* c = &self.c
        cdef double t0 = fst_now()
        c.prog_t0 = t0
        limits_start(&c.lim, c.cfg.time_limit, c.cfg.memory_limit)
        c.memo.memory_limit = c.cfg.memory_limit
        c.next_report = t0 + c.report_every
        with nogil:
            self.root = schedule_run(c, self.all_splits)
            c.lim.peak_rss = max(c.lim.peak_rss, fst_process_rss())
        self.seconds = fst_now() - t0
        if self.root < 0:
            raise MemoryError("fst could not allocate the root of the search")
        if c.contract_broken:
            raise RuntimeError(
                "fst internal error: a search pass left the root unsolved with lower "
                f"bound {c.memo.nodes[self.root].lb!r}, not above its budget (search "
                "contract (iii)). Please report it with the data.")
        return c.lim.stop

    def progress(self):
        """(seconds since the run started, the root's lower bound and incumbent
        at the last poll, expansions): safe to call from another thread while
        `run` works; before the root exists the bounds are (0, inf)."""
        return (fst_now() - self.c.prog_t0 if self.c.prog_t0 > 0 else 0.0,
                self.c.prog_lb, self.c.prog_ub, self.c.st.expansions)

    @property
    def lower_bound(self):
        return self.c.memo.nodes[self.root].lb

    @property
    def upper_bound(self):
        return self.c.memo.nodes[self.root].ub

    @property
    def solved(self):
        return bool(self.c.memo.nodes[self.root].solved) and self.c.lim.stop == RUNNING

    def stats(self):
        """The search's counters (`search_stats_`)."""
        cdef Ctx* c = &self.c
        cdef int64_t i, rung_nodes = 0
        if c.cfg.max_depth < 0:
            for i in range(c.memo.n_nodes):
                rung_nodes += c.memo.nodes[i].depth >= 0
        return {
            "nodes_created": int(c.memo.n_nodes),
            "expansions": int(c.st.expansions),
            "memo_bytes": int(memo_bytes(&c.memo)),
            "memo_capacity": int(c.memo.cap_nodes),
            "peak_rss_bytes": int(c.lim.peak_rss),
            "seconds": float(self.seconds),
            "pair_stages": int(c.st.pair_stages),
            "root_passes": int(c.st.passes),
            "open_levels": int(c.n_frames),
            "transfers": int(c.st.transfers),
            "threads": int(c.cfg.n_threads),
            "work": int(c.work),
            "ladder_depth": int(c.st.ladder_depth),
            "ladder_turns": int(c.st.ladder_turns),
            "ladder_nodes": int(rung_nodes),  # nodes of the rungs (depth-limited keys)
            "whole_keys": int(c.memo.n_keys),  # the other nodes' keys are paths
            "pair_rows": int(c.st.pair_rows),            # rows of pair stages valued
            "pair_rows_left_out": int(c.st.pair_rows_left),  # by stages in rounds
            "sorted_nodes": int(c.st.sorted_nodes),
            "sorted_splits_valued": int(c.st.sorted_splits_valued),
            "sorted_splits_set_aside": int(c.st.sorted_splits_set_aside),
            "sorted_leaf_pairs": int(c.st.sorted_leaf_pairs),
        }

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
        """Rebuild the tree recorded at the root, in pre-order.

        Returns (split, left, right, depth, rows) where `rows` is a list of the row
        index arrays of every node; split is -1 at leaves.  A row set that is not
        stored is a leaf: children are stored before anything is learned about
        them, so an unstored child's record is its creation record (ub = leaf).
        Walks an explicit stack, so a tree of any depth is read."""
        cdef Ctx* c = &self.c
        cdef int nw = c.sp.nw
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
            bits = np.unpackbits(X.view(np.uint8), bitorder="little")[: c.sp.n]
            rows.append(np.flatnonzero(bits))
            splits.append(int(s))
            lefts.append(-1)
            rights.append(-1)
            depths.append(level)
            if s < 0:
                continue
            depth = depth - 1 if depth > 0 else -1
            T = np.empty(nw, dtype=np.uint64)
            bs_andnot(&T[0], &X[0], split_row(&c.sp, s), nw)
            stack.append((T, depth, level + 1, me, 1))
            T = np.empty(nw, dtype=np.uint64)
            bs_and(&T[0], &X[0], split_row(&c.sp, s), nw)
            stack.append((T, depth, level + 1, me, 0))
        return (np.asarray(splits, dtype=np.intp), np.asarray(lefts, dtype=np.intp),
                np.asarray(rights, dtype=np.intp), np.asarray(depths, dtype=np.intp), rows)
