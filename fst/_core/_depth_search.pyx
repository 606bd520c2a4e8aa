"""The depth-limited engine as a Python object: `DepthSearch` holds the problem's
arrays and one engine (`_depth.DEngine`) a thread, runs `_depth._solve` at the
root (one engine, or n engines taking the root's columns on their own threads),
gathers their answers and reports the tree.  The search itself is `_depth`."""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset
from libc.math cimport isnan, floor, NAN

from math import comb
from typing import NamedTuple

import numpy as np
cimport numpy as cnp

from ._typedefs cimport int32_t, int64_t, uint8_t, TOL, INF
from libc.stdint cimport INT64_MAX
from ._limits cimport limits_start, limits_rss, limits_gather, fst_now, RUNNING
from ._config cimport (Config, config_from_dict, RULE_SUPPORT, RULE_EQUIVALENT,
                      RULE_EXCHANGE, RULE_TRANSFER, RULE_LEAF_BUDGET, RULE_SEGMENT,
                      RULE_LARGER_CAP, RULE_ALLOCATIONS, RULE_PEEL_LEAF)
from ._bounds cimport (support_unit, stopped_root_bound, budget_leaves,
                      deeper_trees_bound, subset_rows_bound)
from ._context cimport fst_shared_t
from ._threads cimport fst_run_threads
from ._squares cimport by_sums, SLOT_NARROW, SLOT_WIDE, SLOT_WIDEST, SUMS_MAX_CLASSES
from ._depth cimport (DSpace, DLevel, DEngine, SetBest, ColKey, _heap_size, _solve,
                     engine_poll, LEAF_CAP_NONE, CAP_BOUNDS_MAX)
from ._depth_columns cimport engine_root_bound
from ._simd cimport fst_simd_resolve
from ._depth_memo cimport DMemo, memo_new, memo_free

cnp.import_array()

# The deepest tree the engine searches (its trees are held in heap order, 2^(D+1)
# entries a level).
MAX_ENGINE_DEPTH = 16

# The most columns whose pairs' sums a depth-two node keeps (four doubles each
# of p^2: 8 MB a level at 512); with a wider slot (`_squares.SLOT_WIDE`), the
# columns whose table is no larger (362 with eight doubles, 256 with sixteen).
PAIR_MAX_COLUMNS = 512
# Likewise of triples' sums at depth three (four doubles each of C(p, 3): 11 MB
# a level at 128; 101 columns with eight doubles, 81 with sixteen) ...
TRIPLE_MAX_COLUMNS = 128
# ... and of quadruples' at depth four (20 MB at 64; 54 with eight doubles, 45
# with sixteen).
QUAD_MAX_COLUMNS = 64
# The bytes of the stores of searched nodes under a leaf cap (`_depth_memo`)
# without a memory limit, shared by the engines.
MEMO_BYTES = 1 << 30


def leaf_budget_leaves(double budget, double floor, double lam):
    """The most leaves a tree of value at most `budget` can have when every tree
    loses at least `floor` (`_bounds.budget_leaves`)."""
    return budget_leaves(budget, floor, lam)


def deeper_trees_lower_bound(double floor, double lam, int depth):
    """A bound on every tree deeper than `depth` (`_bounds.deeper_trees_bound`)."""
    return deeper_trees_bound(floor, lam, depth)


def subset_rows_lower_bound(double first, double others):
    """A bound on every tree under a leaf cap from disjoint subsets of the rows
    under the same cap, the first's optimum (or bound) at lam, the others' at 0
    summed in `others` (`_bounds.subset_rows_bound`)."""
    return subset_rows_bound(first, others)


cdef void _engine_free(DEngine* x) noexcept:
    """Free what one engine owns (the problem's arrays are the search's)."""
    cdef int d
    if x.lv != NULL:
        for d in range(x.max_depth + 1):
            free(x.lv[d].child); free(x.lv[d].rk); free(x.lv[d].yk); free(x.lv[d].wk)
            free(x.lv[d].tpos); free(x.lv[d].lbl); free(x.lv[d].lbr); free(x.lv[d].lbv)
            free(x.lv[d].lbk); free(x.lv[d].seg); free(x.lv[d].pair); free(x.lv[d].plist)
            free(x.lv[d].triple); free(x.lv[d].quad); free(x.lv[d].sets)
            free(x.lv[d].wpre); free(x.lv[d].queue); free(x.lv[d].best)
            free(x.lv[d].cand); free(x.lv[d].alt); free(x.lv[d].cnt)
            free(x.lv[d].cbest); free(x.lv[d].carg); free(x.lv[d].ccnt); free(x.lv[d].cwc)
            free(x.lv[d].upos); free(x.lv[d].cshared); free(x.lv[d].pv); free(x.lv[d].pa)
            free(x.lv[d].pcl); free(x.lv[d].crk); free(x.lv[d].cyk); free(x.lv[d].cwk)
        free(x.lv)
    free(x.side)
    free(x.pos)
    free(x.seed_tree)
    free(x.col_static)
    free(x.col_perm)
    free(x.col_rest)
    free(x.col_keys)


cdef bint _alloc_order(DEngine* x, int p):
    """An engine's arrays for a root's column order (`_depth._peel_order`)."""
    x.col_perm = <int32_t*> malloc(max(p, 1) * sizeof(int32_t))
    x.col_rest = <int32_t*> malloc(max(p, 1) * sizeof(int32_t))
    x.col_keys = <ColKey*> malloc(max(p, 1) * sizeof(ColKey))
    x.col_order = NULL
    return x.col_perm != NULL and x.col_rest != NULL and x.col_keys != NULL


cdef struct EngineWork:
    # What each engine of a parallel root reads and answers (`fst_run_threads`).
    DEngine** engines
    const int32_t* ord
    const double* cnt
    int depth
    double budget
    double* value
    bint* exact


cdef void _engine_main(void* arg, int t) noexcept nogil:
    cdef EngineWork* w = <EngineWork*> arg
    w.value[t] = _solve(w.engines[t], w.depth, w.ord, w.engines[t].sp.n, w.cnt, w.budget,
                        w.engines[t].max_leaves, &w.exact[t])


cdef class EngineMemo:
    """The stores of searched nodes under a leaf cap (`_depth_memo`), one an
    engine of a search's threads, kept from one depth's search to the next: a
    node below the root is the same subproblem (its rows, depth left and leaf
    cap) whichever depth the root has, so a deeper search answers from the
    shallower's nodes.  max_bytes between them."""
    cdef DMemo** stores
    cdef int n

    def __cinit__(self, int n_threads, long long max_bytes):
        cdef int t
        self.n = max(n_threads, 1)
        self.stores = <DMemo**> calloc(self.n, sizeof(DMemo*))
        if self.stores == NULL:
            raise MemoryError()
        for t in range(self.n):
            self.stores[t] = memo_new(max_bytes // self.n)

    def __dealloc__(self):
        cdef int t
        if self.stores != NULL:
            for t in range(self.n):
                memo_free(self.stores[t])
            free(self.stores)

    @property
    def hits(self):
        """Nodes answered from the stores."""
        cdef int t
        return sum(int(self.stores[t].hits) for t in range(self.n)
                   if self.stores[t] != NULL)

    @property
    def larger_cap_hits(self):
        """Of them, nodes answered by a bound proven at a larger cap."""
        cdef int t
        return sum(int(self.stores[t].larger_cap_hits) for t in range(self.n)
                   if self.stores[t] != NULL)

    @property
    def similar_hits(self):
        """Nodes answered by a bound from a similar node (RULE_SIMILAR)."""
        cdef int t
        return sum(int(self.stores[t].similar_hits) for t in range(self.n)
                   if self.stores[t] != NULL)


class _EngineArrays(NamedTuple):
    """The engine's problem as contiguous arrays (`_engine_arrays`)."""
    rank: np.ndarray        # int32 (p, n)
    col_order: np.ndarray   # int32 (p, n)
    col_start: np.ndarray   # int32 (p + 1,)
    y: np.ndarray           # int32 (n,): each row's class, or its id (squared error)
    cost: np.ndarray        # float64 (K, K) (squared error: zeros (3, 3))
    weight: np.ndarray      # float64 (n,), or ones(1) without row weights
    target: np.ndarray      # float64 (n,), or zeros(1) in classification
    counts: np.ndarray      # the root's counts (squared error: its three sums)


def _engine_arrays(rank, col_order, col_start, y, cost, weight, target):
    """`DepthSearch`'s arguments as the engine reads them (`_EngineArrays`),
    checked: under squared error (target given) a row's "class" is its id and
    its target is read from `target`, so y and cost are not read."""
    R = np.ascontiguousarray(rank, dtype=np.int32)
    O = np.ascontiguousarray(col_order, dtype=np.int32)
    S = np.ascontiguousarray(col_start, dtype=np.int32)
    n = R.shape[1]
    Tg = np.zeros(1)
    if target is not None:
        Tg = np.ascontiguousarray(target, dtype=np.float64)
        if Tg.ndim != 1 or Tg.shape[0] != n or not np.all(np.isfinite(Tg)):
            raise ValueError("the engine's targets must be finite, one a row")
        Y = np.arange(n, dtype=np.int32)
        C = np.zeros((3, 3))
        if Tg.shape[0] == 0:
            Tg = np.zeros(1)
    else:
        Y = np.ascontiguousarray(y, dtype=np.int32)
        C = np.ascontiguousarray(cost, dtype=np.float64)
    K = C.shape[0]
    if weight is None:
        Wt = np.ones(1)
        cnt = np.bincount(Y, minlength=K).astype(np.float64) if n else np.zeros(K)
    else:
        Wt = np.ascontiguousarray(weight, dtype=np.float64)
        if Wt.shape[0] != n or not np.all(np.isfinite(Wt)) or np.any(Wt < 0):
            raise ValueError("the engine's weights must be finite and >= 0, one a row")
        if n == 0:
            Wt = np.ones(1)
        cnt = (np.bincount(Y, weights=Wt, minlength=K).astype(np.float64) if n
               else np.zeros(K))
    if target is not None:
        tw = Wt[:n] if weight is not None else np.ones(n)
        tz = Tg[:n]
        cnt = np.array([tw.sum(), (tw * tz).sum(), (tw * tz * tz).sum()])
    return _EngineArrays(R, O, S, Y, C, Wt, Tg, cnt)


cdef class DepthSearch:
    """One depth-limited search: the problem's arrays, the engine's scratch, the
    result.

    Parameters
    ----------
    rank : int32 array (p, n)
        Rank of each row's value on each column (NaN above every number).
    col_order : int32 array (p, n)
        The rows sorted by rank on each column (ties by row index).
    col_start : int32 array (p + 1,)
        The first global split id of each column; split k of column u (global
        col_start[u] + k) sends ranks <= k left.
    y : int32 array (n,)
        Class of each row, in [0, K).
    cost : float64 array (K, K)
        Cost of a row of class k labelled j, already divided by n.
    config : dict
        The search's configuration (`fst._core._config.make_config`), the same
        object every core search takes; the engine reads regularization (the
        price of a leaf), rules (the RULE_* bits it applies), n_threads,
        time_limit (None: none), memory_limit (0: none), work_limit (> 0: stop
        as at the time limit after this many nodes and root valuations, a
        deterministic stop for tests), min_leaf (rows each leaf holds at least:
        a split is a threshold with that many rows on each side) and max_leaves
        (> 0: the trees have at most this many leaves, max_leaf_nodes, and
        max_depth is below it; 0: any number).  Threads: at depth two or more,
        engines that each value the root splits of the columns they take
        (`_solve`), sharing the best root value; at depth one, the threads of
        the depth-one pass's columns.  The result does not depend on them.
    max_depth : int
        The depth this search searches (its config's max_depth is the fit's).
    final_depth : int or None
        The depth the fit asked for (None: max_depth).  A stopped search's
        `lower_bound` holds for trees of that depth: at it, the least bound over
        the root's columns, closed or open (`engine_root_bound`); at a shallower
        depth, which seeds the next, from the root's leaf and creation bounds.
    weight : float64 array (n,) or None
        Each row's weight (finite, >= 0): a row of weight w costs w times its
        class's cost, and the class counts become class sums of weights.  None:
        each row weighs 1.
    target : float64 array (n,) or None
        Squared error (the regressor): each row's target, a leaf's loss the
        weighted squared error about its weighted mean (already scaled: the
        objective is that sum plus lam a leaf).  y and cost are then ignored
        (the counts are each set's weight, weighted target sum and weighted
        sum of squares, K = 3), and of the rules only RULE_EQUIVALENT (with a
        floor of 0), RULE_EXCHANGE (the neighbour bound, from each row's
        `squares_row_worst`; no moved-rows skip in the depth-one pass),
        RULE_TRANSFER, RULE_LEAF_BUDGET, RULE_SEGMENT (the k-segmentation
        floor), RULE_LARGER_CAP, RULE_ALLOCATIONS and RULE_PEEL_LEAF (its
        floors 0) apply: leaf support needs a loss that a
        row's class bounds.  None: classification.
    pair_sums : bool
        Squared error, or at most fifteen classes, on binary columns: the nodes
        of depth two to four solved from their columns' sums
        (`_squares.solve_sums`).
    memo : EngineMemo or None
        The stores of the nodes searched below the root (`EngineSearch` makes
        them under max_leaves, or without max_depth where asked), kept for the
        next depth's search (None: none kept; the same trees).
    """
    cdef DEngine e
    cdef DEngine* extra         # engines 1 .. n_workers - 1 of a parallel root
    cdef DEngine** engines
    cdef int n_workers
    cdef int main               # the engine whose tree is the answer
    cdef fst_shared_t shared
    cdef int32_t next_col       # the next root column an engine takes
    cdef object _keep
    cdef public double upper_bound
    cdef public double lower_bound
    cdef public bint solved
    cdef public object above_budget   # a budgeted run's bound (`run`), or None
    cdef public double seconds
    cdef double _time_limit
    cdef object _cnt
    cdef object _reporter       # the progress reporter each engine points to
    cdef EngineMemo _memo       # the stores the engines point to (None: none)
    cdef long long _hits0       # their hits before this search
    cdef long long _cap_hits0   # ... and those by a larger cap's bound
    cdef long long _similar0    # ... and those by a similar node's bound
    cdef double* col_lb         # the root's columns' closed bounds (the engines')
    cdef object _share          # the next run's share of its time (`set_share`), or None

    def __cinit__(self, rank, col_order, col_start, y, cost, dict config, int max_depth,
                  final_depth=None, weight=None, target=None, bint pair_sums=True,
                  EngineMemo memo=None):
        cdef int p, n, K, t
        cdef Config cfg
        config_from_dict(&cfg, config)
        cdef double lam = cfg.lam
        cdef int rules = cfg.rules
        cdef int n_threads = cfg.n_threads
        cdef int min_leaf = cfg.min_leaf
        cdef int max_leaves = int(config.get("max_leaves", 0) or 0)
        arrays = _engine_arrays(rank, col_order, col_start, y, cost, weight, target)
        p, n = arrays.rank.shape[0], arrays.rank.shape[1]
        K = arrays.cost.shape[0]
        if K > 64:
            raise ValueError("the depth-limited engine handles at most 64 classes")
        if not 0 <= max_depth <= MAX_ENGINE_DEPTH:
            raise ValueError(f"the depth-limited engine searches depths 0 to "
                             f"{MAX_ENGINE_DEPTH}")
        if max_leaves < 0 or (max_leaves > 0 and max_depth > max_leaves - 1):
            raise ValueError(f"max_leaves={max_leaves} needs max_depth <= max_leaves - 1; "
                             f"got max_depth={max_depth}")
        memset(&self.e, 0, sizeof(DEngine))
        self.e.max_leaves = max_leaves if max_leaves > 0 else LEAF_CAP_NONE
        self._cnt = arrays.counts
        if target is not None:
            # of the rules, those that hold under squared error (RULE_SIMILAR
            # holds too, but there a row's worst added error, its squared
            # distance to the far end of the node's target range, leaves its
            # bound under the budgets: it answered no node of diabetes at five
            # leaves)
            rules &= (RULE_EQUIVALENT | RULE_EXCHANGE | RULE_TRANSFER | RULE_LEAF_BUDGET
                      | RULE_SEGMENT | RULE_LARGER_CAP | RULE_ALLOCATIONS | RULE_PEEL_LEAF)
        self._fill_space(arrays, lam, rules, min_leaf, weight is not None,
                         target is not None, pair_sums)
        self.e.max_depth = max_depth
        self.e.final_depth = max_depth if final_depth is None else int(final_depth)
        if self.e.final_depth < max_depth:
            raise ValueError("final_depth is below max_depth")
        self.e.work_limit = cfg.work_limit
        self.e.vec = fst_simd_resolve(cfg.simd)
        self.e.n_threads = max(n_threads, 1)
        self.n_workers = 1
        self.main = 0
        if n_threads > 1 and max_depth >= 2 and p > 1:
            self.n_workers = min(n_threads, p)
            self.e.n_threads = 1
        self._time_limit = cfg.time_limit
        self.e.lim.memory_limit = cfg.memory_limit
        self._alloc_engine(n, p, K)
        if memo is not None:
            # each engine's store of the nodes searched
            self._memo = memo
            self._hits0 = memo.hits
            self._cap_hits0 = memo.larger_cap_hits
            self._similar0 = memo.similar_hits
            for t in range(min(self.n_workers, memo.n)):
                self.engines[t].memo = memo.stores[t]
        self.upper_bound = INF
        self.lower_bound = -INF
        self.solved = False

    cdef _fill_space(self, arrays, double lam, int rules, int min_leaf, bint weighted,
                     bint squared, bint pair_sums):
        """The engine's problem (`DSpace`) from `_engine_arrays`, kept alive by
        the search; the sums' switches (`pairs`, `triples`, `quads`) and the
        side each column's sums count."""
        cdef int p = arrays.rank.shape[0]
        cdef int n = arrays.rank.shape[1]
        cdef int K = arrays.cost.shape[0]
        cdef DSpace* sp = &self.e.sp
        cdef cnp.ndarray SR
        C = arrays.cost
        mx = np.ascontiguousarray(C.max(axis=1))
        mn = np.ascontiguousarray(C.min(axis=1))
        self._keep = arrays + (mx, mn)
        sp.n = n
        sp.p = p
        sp.K = K
        sp.rank = <const int32_t*> cnp.PyArray_DATA(arrays.rank) if n and p else NULL
        sp.col_start = <const int32_t*> cnp.PyArray_DATA(arrays.col_start)
        sp.y = <const int32_t*> cnp.PyArray_DATA(arrays.y) if n else NULL
        sp.w = <const double*> cnp.PyArray_DATA(arrays.weight) if weighted and n else NULL
        sp.cost = <const double*> cnp.PyArray_DATA(C)
        sp.maxcost = <const double*> cnp.PyArray_DATA(mx)
        sp.mincost = <const double*> cnp.PyArray_DATA(mn)
        sp.pmax = float((mx - mn).max()) if K else 0.0
        if sp.w != NULL:
            sp.pmax *= float(arrays.weight.max())
        sp.lam = lam
        sp.rules = rules
        # the tie rule (`_depth._takes`): fewest leaves first when lam > 0; at
        # lam = 0, the exact depth-limited problem, the canonical split order
        # alone (the leaf first), a search that values fewer ties
        sp.ties = lam > 0
        sp.sup_lam = support_unit(lam) if (rules & RULE_SUPPORT) and lam > 0 else 0.0
        sp.min_leaf = max(min_leaf, 1)
        sp.target = <const double*> cnp.PyArray_DATA(arrays.target) if squared else NULL
        # a slot of the sums' tables: four doubles under squared error or for
        # at most three classes (each class's weight, then the rows), eight
        # for up to seven, sixteen for up to fifteen
        sp.slot = (SLOT_NARROW if squared or K <= SLOT_NARROW - 1
                   else SLOT_WIDE if K <= SLOT_WIDE - 1 else SLOT_WIDEST)
        if n and (squared or K <= SUMS_MAX_CLASSES):
            # squared error, or classes a slot holds, on binary columns (one
            # split each), not too many for their pairs' sums: depth-two nodes
            # from them (`_squares.by_sums`); each table at most the bytes of
            # the narrow slot's at its column limit
            self.e.pairs = (pair_sums and bool(np.all(np.diff(arrays.col_start) <= 1))
                            and p * p * sp.slot <= PAIR_MAX_COLUMNS ** 2 * SLOT_NARROW)
            # ... depth-three nodes from their triples', depth-four from their
            # quadruples'
            self.e.triples = self.e.pairs and (
                comb(p, 3) * sp.slot <= comb(TRIPLE_MAX_COLUMNS, 3) * SLOT_NARROW)
            self.e.quads = self.e.triples and (
                comb(p, 4) * sp.slot <= comb(QUAD_MAX_COLUMNS, 4) * SLOT_NARROW)
        # each column's sums count the side of its split fewer rows are on
        # (`_squares._sum_rows`: a row adds to the pairs of the columns that
        # count it)
        SR = np.ascontiguousarray(2 * (arrays.rank <= 0).sum(axis=1) > n if self.e.pairs
                                  else np.zeros(max(p, 1), bool), dtype=np.uint8)
        if SR.shape[0] == 0:
            SR = np.zeros(1, np.uint8)
        self.e.sums_right = <uint8_t*> cnp.PyArray_DATA(SR)
        self._keep += (SR,)
        off = C[~np.eye(K, dtype=bool)]
        if (not weighted and K > 1 and np.all(np.diag(C) == 0) and np.all(off == off[0])
                and off[0] > 0):
            sp.unit = float(off[0])
            # every objective is a whole number of units when lam is one
            ratio = lam / sp.unit
            if abs(ratio - round(ratio)) <= 1e-9 * max(1.0, ratio):
                sp.quantum = sp.unit

    cdef _alloc_engine(self, int n, int p, int K):
        """The main engine's scratch (its levels, side, positions, seed, the
        root's column bounds) and the engines of a parallel root."""
        cdef int d
        self.e.side = <uint8_t*> calloc(max(n, 1), 1)
        self.e.pos = <int32_t*> calloc(max(n, 1), sizeof(int32_t))
        self.e.seed_value = INF
        self.e.poll = engine_poll
        self.e.solve = _solve
        self.e.seed_tree = <int32_t*> malloc(_heap_size(self.e.max_depth) * sizeof(int32_t))
        self.e.lv = <DLevel*> calloc(self.e.max_depth + 1, sizeof(DLevel))
        self.col_lb = <double*> calloc(max(p, 1), sizeof(double))
        self.e.col_lb = self.col_lb
        self.e.col_static = <double*> calloc(max(p, 1), sizeof(double))
        if (self.e.side == NULL or self.e.pos == NULL or self.e.lv == NULL
                or self.e.seed_tree == NULL or self.col_lb == NULL
                or self.e.col_static == NULL or not _alloc_order(&self.e, p)):
            raise MemoryError()
        for d in range(self.e.max_depth + 1):
            self._alloc_level(&self.e.lv[d], d, n, p, K)
        self._make_engines(n, p, K)

    cdef _make_engines(self, int n, int p, int K):
        """Engines 1 .. n_workers - 1 of a parallel root: the same problem, their
        own scratch (levels, side, positions, seed)."""
        cdef int t, d, w = self.n_workers
        cdef DEngine* x
        self.engines = <DEngine**> calloc(w, sizeof(DEngine*))
        if self.engines == NULL:
            raise MemoryError()
        self.engines[0] = &self.e
        if w == 1:
            return
        self.extra = <DEngine*> calloc(w - 1, sizeof(DEngine))
        if self.extra == NULL:
            raise MemoryError()
        for t in range(w):
            if t > 0:
                x = &self.extra[t - 1]
                self.engines[t] = x
                x.sp = self.e.sp
                x.max_depth = self.e.max_depth
                x.max_leaves = self.e.max_leaves
                x.pairs = self.e.pairs
                x.triples = self.e.triples
                x.quads = self.e.quads
                x.sums_right = self.e.sums_right
                x.final_depth = self.e.final_depth
                x.work_limit = self.e.work_limit
                x.col_lb = self.col_lb
                x.n_threads = 1
                x.vec = self.e.vec
                x.lim.memory_limit = self.e.lim.memory_limit
                x.seed_value = INF
                x.poll = engine_poll
                x.solve = _solve
                x.side = <uint8_t*> calloc(max(n, 1), 1)
                x.pos = <int32_t*> calloc(max(n, 1), sizeof(int32_t))
                x.seed_tree = <int32_t*> malloc(_heap_size(x.max_depth) * sizeof(int32_t))
                x.lv = <DLevel*> calloc(x.max_depth + 1, sizeof(DLevel))
                x.col_static = <double*> calloc(max(p, 1), sizeof(double))
                if (x.side == NULL or x.pos == NULL or x.lv == NULL or x.seed_tree == NULL
                        or x.col_static == NULL or not _alloc_order(x, p)):
                    raise MemoryError()
                for d in range(x.max_depth + 1):
                    self._alloc_level(&x.lv[d], d, n, p, K)
            self.engines[t].sh = &self.shared
            self.engines[t].next_col = &self.next_col
            self.engines[t].tid = t
            self.engines[t].n_workers = w

    cdef _alloc_level(self, DLevel* L, int d, int n, int p, int K):
        cdef int64_t pn = <int64_t> max(p, 1) * max(n, 1)
        cdef int S = self.e.sp.slot
        L.best = <int32_t*> malloc(_heap_size(d) * sizeof(int32_t))
        L.cnt = <double*> calloc(4 * K + 4, sizeof(double))
        if L.best == NULL or L.cnt == NULL:
            raise MemoryError()
        L.best[0] = -1
        if d == 0:
            return
        # malloc of the whole-data size: the pages a node does not reach are never
        # touched, so the resident memory follows the rows actually searched
        L.rk = <int32_t*> malloc(pn * sizeof(int32_t))
        L.yk = <int32_t*> malloc(pn * sizeof(int32_t))
        if self.e.sp.w != NULL:
            L.wk = <double*> malloc(pn * sizeof(double))
            if L.wk == NULL:
                raise MemoryError()
        # a cache line a column (threads write their own column's best)
        L.cbest = <double*> malloc(8 * max(p, 1) * sizeof(double))
        L.carg = <int32_t*> malloc(16 * max(p, 1) * sizeof(int32_t))
        # each column's counts a cache line apart: threads never share one
        L.ccnt = <double*> calloc(max(p, 1) * (3 * K + 8), sizeof(double))
        L.cwc = <int64_t*> calloc(max(p, 1) * (5 * K + 8), sizeof(int64_t))
        L.cshared = <double*> calloc(16, sizeof(double))
        if (L.rk == NULL or L.yk == NULL or L.cbest == NULL or L.carg == NULL
                or L.ccnt == NULL or L.cwc == NULL or L.cshared == NULL):
            raise MemoryError()
        if d == 1:
            return
        L.child = <int32_t*> malloc(pn * sizeof(int32_t))
        L.upos = <int32_t*> malloc(pn * sizeof(int32_t)) if d == 2 else NULL
        if d == 2:
            L.pv = <double*> malloc(2 * (<int64_t> n + 1) * sizeof(double))
            L.pa = <int32_t*> malloc(2 * (<int64_t> n + 1) * sizeof(int32_t))
            L.pcl = <double*> malloc(2 * max(p, 1) * sizeof(double))
            L.crk = <int32_t*> malloc(2 * (n + 1) * sizeof(int32_t))
            L.cyk = <int32_t*> malloc(2 * (n + 1) * sizeof(int32_t))
            L.cwk = <double*> malloc(2 * (n + 1) * sizeof(double))
        if d == 2 and (L.upos == NULL or L.pv == NULL or L.pa == NULL or L.pcl == NULL
                       or L.crk == NULL or L.cyk == NULL or L.cwk == NULL):
            raise MemoryError()
        L.tpos = <int32_t*> malloc((n + 1) * sizeof(int32_t))
        L.lbl = <double*> malloc((n + 1) * sizeof(double))
        L.lbr = <double*> malloc((n + 1) * sizeof(double))
        L.lbv = <double*> malloc((n + 1) * sizeof(double))
        if 2 <= self.e.max_leaves <= CAP_BOUNDS_MAX:
            # (the pages past a node's thresholds are never touched)
            L.lbk = <double*> malloc(2 * (self.e.max_leaves - 1) * (<int64_t> n + 1)
                                     * sizeof(double))
            if L.lbk == NULL:
                raise MemoryError()
        if ((self.e.pairs and d == 2) or (self.e.triples and d == 3)
                or (self.e.quads and d == 4)):
            L.pair = <double*> calloc(S * <int64_t> p * p, sizeof(double))
            L.plist = <int32_t*> malloc(max(p, 1) * sizeof(int32_t))
            # the sets of one split's side, and below depth three of two, below
            # depth four of three
            L.sets = <SetBest*> malloc(max(2 * <int64_t> p
                                           + (2 * <int64_t> p * (p - 1) if d >= 3 else 0)
                                           + (8 * <int64_t> p * (p - 1) * (p - 2) // 6
                                              if d >= 4 else 0), 1) * sizeof(SetBest))
            if L.pair == NULL or L.plist == NULL or L.sets == NULL:
                raise MemoryError()
        if (self.e.triples and d == 3) or (self.e.quads and d == 4):
            L.triple = <double*> calloc(S * max(<int64_t> p * (p - 1) * (p - 2) // 6, 1),
                                        sizeof(double))
            if L.triple == NULL:
                raise MemoryError()
        if self.e.quads and d == 4:
            L.quad = <double*> calloc(
                S * max(<int64_t> p * (p - 1) * (p - 2) * (p - 3) // 24, 1), sizeof(double))
            if L.quad == NULL:
                raise MemoryError()
        if self.e.sp.target != NULL and d >= 3:
            L.seg = <double*> malloc((8 * <int64_t> n + 8) * sizeof(double))
            if L.seg == NULL:
                raise MemoryError()
        L.wpre = <double*> malloc((n + 2) * sizeof(double))
        L.queue = <int32_t*> malloc((8 * <int64_t> n + 16) * sizeof(int32_t))
        L.cand = <int32_t*> malloc(_heap_size(d) * sizeof(int32_t))
        L.alt = <int32_t*> malloc(4 * _heap_size(d - 1) * sizeof(int32_t))
        if (L.child == NULL or L.tpos == NULL or L.lbl == NULL or L.lbr == NULL
                or L.lbv == NULL or L.wpre == NULL or L.queue == NULL or L.cand == NULL or L.alt == NULL):
            raise MemoryError()

    def __dealloc__(self):
        cdef int t
        _engine_free(&self.e)
        if self.extra != NULL:
            for t in range(self.n_workers - 1):
                _engine_free(&self.extra[t])
        free(self.extra)
        free(self.engines)
        free(self.col_lb)

    def set_reporter(self, reporter, double seconds=5.0, double t0=-1.0):
        """Call `reporter((seconds, lower bound, incumbent, root splits valued))`
        every `seconds` while the root is searched (verbose >= 2), the seconds
        counted from `t0` (the clock of `fst._core._limits`; < 0: the run's
        start), the bound holding for trees of `final_depth`."""
        self._reporter = reporter
        self.e.reporter = <void*> reporter if reporter is not None else NULL
        self.e.report_every = seconds
        self.e.report_t0 = t0

    def set_share(self, double start, double end):
        """Give the next run (only) a share of its time limit, from `start`
        seconds after its start: it then stops as at its time limit (the stop
        code of the time limit) once the pace of its root's columns closed so
        far could not end it within `end` seconds, and runs on to its own limit
        once it would (`_depth._share_spent`)."""
        self._share = (start, end)

    def seed(self, double value, tree, bint exact=False):
        """Start the root from a real tree of depth at most max_depth (heap order,
        global split ids, -1 leaves; a shallower heap is its prefix) whose
        objective on every row, as this engine values it, is `value`.  exact:
        the tree is the canonical optimum of depth max_depth - 1 under the same
        leaf cap (a certified search of that depth), which lets the root be
        searched as that optimum or a leaf beside a subtree (RULE_PEEL_LEAF)."""
        cdef int h = _heap_size(self.e.max_depth)
        cdef cnp.ndarray[int32_t, ndim=1] t = np.full(h, -1, dtype=np.int32)
        src = np.asarray(tree, dtype=np.int32).reshape(-1)
        if src.size > h:
            raise ValueError("the seed is deeper than max_depth")
        t[:src.size] = src
        cdef int w, leaves = 0
        todo = [0]
        while todo:
            q = todo.pop()
            if q < h and t[q] >= 0:
                todo += [2 * q + 1, 2 * q + 2]
            else:
                leaves += 1
        if leaves > self.e.max_leaves:
            raise ValueError(f"the seed has {leaves} leaves, more than max_leaves")
        for w in range(self.n_workers):
            memcpy(self.engines[w].seed_tree, &t[0], h * sizeof(int32_t))
            self.engines[w].seed_value = value
            self.engines[w].seed_leaves = leaves
            self.engines[w].seed_exact = exact

    def set_time_limit(self, time_limit):
        """The seconds the next `run` may take (None: no limit)."""
        self._time_limit = -1.0 if time_limit is None else float(time_limit)

    def run(self, double budget=INF):
        """Search; returns the stop code (RUNNING: certified).

        budget: the root searched against that value alone (its splits valued
        under the cap min(budget, best), as a node below it is under its own
        budget).  Searched to the end, it then either finds the optimum within
        the budget (`above_budget` None) or proves that no tree is worth the
        budget or less (`above_budget` the bound, above the budget, that it
        proves of every tree; `lower_bound` too, `upper_bound` inf: the tree
        held is not answered).  Either way the store of searched nodes keeps
        what it proved, and the answer is taken from a run without a budget,
        whose tree is the canonical one."""
        cdef cnp.ndarray[double, ndim=1] cnt = self._cnt
        cdef cnp.ndarray[int32_t, ndim=2] O = self._keep[1]
        cdef const int32_t* ord = &O[0, 0] if O.size else NULL
        cdef double v, t0
        cdef bint exact = False, serial, hit
        cdef double above
        cdef int D = self.e.max_depth
        cdef int n = self.e.sp.n
        cdef int t, w = self.n_workers
        cdef EngineWork work
        cdef double* values = <double*> calloc(w, sizeof(double))
        cdef bint* exacts = <bint*> calloc(w, sizeof(bint))
        if values == NULL or exacts == NULL:
            free(values)
            free(exacts)
            raise MemoryError()
        t0 = fst_now()
        if self.e.report_t0 < 0:
            self.e.report_t0 = t0
        # the next line at the next whole multiple of report_every since the
        # reporter's clock started (the fit's): a fit of many short runs (its
        # depths, a run cut and run again) keeps one schedule, where each run
        # starting its own would print nothing while none lasts report_every
        self.e.next_report = t0
        if self.e.report_every > 0:
            self.e.next_report = self.e.report_t0 + self.e.report_every * (
                floor((t0 - self.e.report_t0) / self.e.report_every) + 1)
        self.e.static_done = False
        self.e.root_best = NULL
        for t in range(max(self.e.sp.p, 1)):
            self.col_lb[t] = -INF
        self.shared.incumbent = INF
        self.shared.stop = RUNNING
        self.next_col = 0
        for t in range(w):
            limits_start(&self.engines[t].lim, self._time_limit,
                         self.engines[t].lim.memory_limit)
            self.engines[t].share_from = -1.0
        if self._share is not None:
            self.e.share_t0 = t0
            self.e.share_from = t0 + self._share[0]
            self.e.share_end = t0 + self._share[1]
            self.e.share_polls = 0
            self._share = None
        memset(&work, 0, sizeof(EngineWork))
        work.engines = self.engines
        work.ord = ord
        work.cnt = &cnt[0]
        work.depth = D
        work.budget = budget
        work.value = values
        work.exact = exacts
        self.e.sums_root = False
        serial = w == 1 or by_sums(&self.e, D, self.e.max_leaves)
        for t in range(1, w):
            # the engines left idle (a serial root) take no part in the answer
            values[t] = INF
            exacts[t] = True
        for t in range(w):
            self.engines[t].root_found = NAN
        with nogil:
            if self.e.sp.p == 0 or n <= 1:
                values[0] = _solve(&self.e, 0, ord, n, &cnt[0], INF, self.e.max_leaves,
                                   &exacts[0])
            elif serial:
                # one engine, or a root solved from its sums: one pass over the
                # rows, not shared between threads
                values[0] = _solve(&self.e, D, ord, n, &cnt[0], budget, self.e.max_leaves,
                                   &exacts[0])
            else:
                fst_run_threads(w, _engine_main, &work)
            limits_rss(&self.e.lim)
        above = INF
        hit = False
        for t in range(w):
            if exacts[t] and values[t] <= budget + TOL:
                hit = True
            elif budget < INF:
                # proven above the budget (when the run ends uncut): its answer is
                # that bound, or the exact value of a root answered without its
                # splits (the leaf settled by its floor), itself above the budget
                if values[t] < above:
                    above = values[t]
                if not exacts[t] and not isnan(self.engines[t].root_found):
                    # searched to its end: its tree is worth root_found
                    values[t] = self.engines[t].root_found
        code = self._gather(values, exacts)
        self.above_budget = None
        if budget < INF and code == RUNNING:
            if not hit:
                # every engine proved its share of the root's splits above the
                # budget (an idle engine takes no part)
                self.above_budget = above
                self.lower_bound = above
                self.upper_bound = INF
                self.solved = False
        free(values)
        free(exacts)
        self.seconds = fst_now() - t0
        return code

    cdef int _gather(self, double* values, bint* exacts):
        """The answer over the engines: the least value; among the engines within
        TOL of it, the tree of fewest leaves, then least root split id (the leaf
        first), which is the one the serial search keeps (`_takes`).  Certified
        when no engine stopped and every one is exact."""
        cdef int t, w = self.n_workers, code = RUNNING
        cdef int64_t key, best_key = INT64_MAX
        cdef double vmin = INF
        cdef bint exact = True
        cdef DEngine* x
        for t in range(w):
            x = self.engines[t]
            code = limits_gather(code, &self.e.lim, &x.lim)
            exact = exact and exacts[t]
            if values[t] < vmin:
                vmin = values[t]
        if w > 1 and self.shared.stop != RUNNING:
            code = self.shared.stop
        self.main = 0
        if w > 1:
            for t in range(w):
                if values[t] <= vmin + TOL:
                    key = self._tie_key(self.engines[t])
                    if key < best_key:
                        best_key = key
                        self.main = t
        self.upper_bound = values[self.main]
        self.solved = bool(exact) and code == RUNNING
        if self.solved:
            self.lower_bound = self.upper_bound
        elif self.e.max_depth >= 2 and self.e.nodes > 0:
            # a root searched and stopped: its columns' bounds, with the best tree
            # when at the fit's depth (`stopped_root_bound`)
            self.lower_bound = engine_root_bound(&self.e)
            if self.e.max_depth == self.e.final_depth:
                self.lower_bound = stopped_root_bound(vmin, self.lower_bound)
        else:
            self.lower_bound = -INF
        return code

    cdef int64_t _tie_key(self, DEngine* x):
        """An engine's tree's `_ties.tie_key` (leaves counted with sp.ties, root
        split id; the leaf: one leaf, id -1) packed in one number, with whether
        it is still the seed: among equal answers the least is the serial
        search's (`_takes`); an engine that kept the seed unvalued gives way to
        the one that valued its root split (its subtrees are this depth's)."""
        cdef DLevel* L = &x.lv[x.max_depth]
        return (((<int64_t> L.best_leaves << 40) if x.sp.ties else 0)
                + ((<int64_t> L.best[0] + 1) << 1) + (1 if L.seeded else 0))

    def root_sums_work(self):
        """The slots of the sums' tables the root's one pass adds its rows to when
        the root is solved from its column sums (`_squares.by_sums`), else -1: a
        row counted by a columns' splits (on the side each counts,
        `DEngine.sums_right`) adds to C(a + 1, 2) pairs (a column with itself
        among them), at depth three or four to C(a, 3) triples, at depth four to
        C(a, 4) quadruples (`_squares.solve_sums`)."""
        cdef int D = self.e.max_depth
        cdef int n = self.e.sp.n, p = self.e.sp.p, g, i
        cdef int64_t a, work = 0
        cdef const int32_t* rank = self.e.sp.rank
        cdef const int32_t* start = self.e.sp.col_start
        if p == 0 or n <= 1 or not by_sums(&self.e, D, self.e.max_leaves):
            return -1
        for i in range(n):
            a = 0
            for g in range(p):
                if (start[g + 1] > start[g]
                        and (rank[<int64_t> g * n + i] > 0) == self.e.sums_right[g]):
                    a += 1
            work += a * (a + 1) // 2
            if D >= 3:
                work += a * (a - 1) * (a - 2) // 6
            if D >= 4:
                work += a * (a - 1) * (a - 2) * (a - 3) // 24
        return work

    def tree(self):
        """The best tree found, in heap order (global split ids, -1 leaves)."""
        cdef int D = self.e.max_depth if (self.e.sp.p and self.e.sp.n > 1) else 0
        cdef int h = _heap_size(D)
        cdef DEngine* x = self.engines[self.main]
        out = np.empty(h, dtype=np.int32)
        cdef int32_t[::1] v = out
        memcpy(&v[0], x.lv[D].best, h * sizeof(int32_t))
        if x.lv[D].best[0] < 0:
            out[:] = -1
        return out

    def stats(self):
        cdef int t
        nodes = [int(self.engines[t].nodes) for t in range(self.n_workers)]
        evals = [int(self.engines[t].evals) for t in range(self.n_workers)]
        return {"nodes": sum(nodes), "evaluations": sum(evals),
                "column_passes": sum(int(self.engines[t].sweeps)
                                     for t in range(self.n_workers)),
                "leaf_budget_depths": sum(int(self.engines[t].shallower)
                                          for t in range(self.n_workers)),
                "leaf_allocations": sum(int(self.engines[t].allocations)
                                        for t in range(self.n_workers)),
                "segment_bounds": sum(int(self.engines[t].segment_bounds)
                                      for t in range(self.n_workers)),
                "segment_prunes": sum(int(self.engines[t].segment_prunes)
                                      for t in range(self.n_workers)),
                "by_allocation": sum(int(self.engines[t].by_allocation)
                                     for t in range(self.n_workers)),
                "peel_nodes": sum(int(self.engines[t].peel_nodes)
                                  for t in range(self.n_workers)),
                "parent_sums": sum(int(self.engines[t].parent_sums)
                                   for t in range(self.n_workers)),
                "memo_hits": 0 if self._memo is None else self._memo.hits - self._hits0,
                "memo_larger_cap_hits": (0 if self._memo is None else
                                         self._memo.larger_cap_hits - self._cap_hits0),
                "similar_bounds": (0 if self._memo is None else
                                   self._memo.similar_hits - self._similar0),
                "seconds": float(self.seconds),
                "peak_rss_bytes": int(self.e.lim.peak_rss),
                "threads": int(self.n_workers),
                "nodes_per_thread": nodes, "evaluations_per_thread": evals}
