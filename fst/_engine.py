"""The depth-limited engine's side of a fit: its split space (rows ranked and
sorted per column, no row bitsets) and a search object with the interface the
estimator reads (`run`, `extract`, `upper_bound`, `lower_bound`, `solved`,
`stats`)."""
import hashlib
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Optional

import numpy as np

from ._core._config import TOL
from ._core._depth_search import (MAX_ENGINE_DEPTH, MEMO_BYTES, DepthSearch, EngineMemo,
                                  deeper_trees_lower_bound, leaf_budget_leaves,
                                  subset_rows_lower_bound)
from ._core._limits import STATUS_NAMES, clock
from ._core._columns import PreparationStopped, row_groups
from ._core._problem import _column_space, rank_space, squares_problem
from ._core._solver import Search
from ._subset import pick_rows, row_keys, subset_space, tree_excess
from ._utils import floor_below, group_loss_floor

__all__ = ["EngineSearch", "EngineSpace", "MemoShare", "SquaresGeneralSearch", "engine_space",
           "loss_floor", "MAX_ENGINE_DEPTH", "MAX_ENGINE_CLASSES"]

# The stop code of Ctrl-C (`fst._core._limits.STATUS_NAMES`).
_INTERRUPTED = next(k for k, v in STATUS_NAMES.items() if v == "interrupted")
# ... and of the time limit (or of a run's share of it).
_TIME_STOP = next(k for k, v in STATUS_NAMES.items() if v == "time_limit")

# Classes the engine counts (`DepthSearch` refuses more): a fit with more runs on
# the bitset search alone.
MAX_ENGINE_CLASSES = 64

# The most sums' table slots a root solved from its column sums may add its rows
# to (`DepthSearch.root_sums_work`) for the search of max_depth to run alone,
# without the shallower ones first (`EngineSearch._direct`): a pass of a few
# tens of millions of additions.
SUMS_DIRECT_WORK = 1 << 24

# The general search under squared error is seeded this far above the engine's
# tree (`SquaresGeneralSearch`): a tree within TOL of the seed is a tie, which
# the search must find itself to read the canonical tree among the optimal
# ones, so its budget admits every tree within TOL of the seed's value and
# more (a bound reaching the seed proves only that no tree is better).
SEED_MARGIN = 4 * TOL

# Under a leaf cap, the search of the deepest depth that has not certified within
# RISE_AFTER of the time left to it (RISE_SECONDS without a time limit, when its
# progress is shown) goes on by running its root against budgets between the
# bound proven so far and the incumbent (`EngineSearch._rise`): at most
# RISE_PASSES of them, each RISE_FRACTION of the way up the gap.  With a time
# limit the first run is not cut where the pace of its root's columns closed by
# then projects its end within RISE_FINISH of its time: it runs to its end (the
# budgets' runs would repeat most of its work).
RISE_AFTER = 0.25
RISE_FINISH = 0.9
RISE_SECONDS = 10.0
RISE_PASSES = 4
RISE_FRACTION = 0.25

# Under a leaf cap, a search of a depth above which the deepening must still go
# (its bound holds only for its own depth's trees) that has not certified
# within SUBSET_AFTER of the time left to it, and whose pace could not end it
# within RISE_FINISH of that time, makes way for SUBSET_SHARE of it to a bound
# from disjoint subsets of the rows (`EngineSearch._subset_bound`), then runs
# on: a subset's first rows are the SUBSET_FIRST a tree gets most wrong, each
# round adds the SUBSET_ADD that the subset's optimal tree gets most wrong on
# all the rows, for at most SUBSET_ROUNDS subsets searched in all.
SUBSET_AFTER = 0.25
SUBSET_SHARE = 0.4
SUBSET_FIRST = 20
SUBSET_ADD = 10
SUBSET_ROUNDS = 40


@dataclass(frozen=True)
class EngineSpace:
    """The split space of the engine (and of the squares search): per column
    the rows' value ranks and the rows sorted by rank, the thresholds and the
    split numbering of `build_problem`, with the rows' classes and costs (or
    targets) and weights.  Made by `engine_space`; a changed copy by
    `dataclasses.replace`.  Memory O(rows x columns)."""
    row_rank: np.ndarray        # (p, n) int32: each row's value rank on each column
    col_order: np.ndarray       # (p, n) int32: the rows by rank (ties by row index)
    thresholds: np.ndarray      # float64 midpoints, +inf for "finite left, NaN right"
    split_col: np.ndarray       # each split's column
    col_start: np.ndarray       # (p + 1,): split k of column j is col_start[j] + k
    n_splits: int
    n_ranks: np.ndarray         # each column's distinct ranks
    n_rows: int
    n_features: int
    n_classes: int
    y: np.ndarray               # (n,) int32: each row's class
    cost: np.ndarray            # (K, K): cost of class k labelled j, divided by n
    mincost: np.ndarray         # (K,): each class's least cost
    # equivalent rows are not grouped: no excess above the floor is counted (the
    # creation bound of a stopped fit stays valid, only less tight)
    row_excess: np.ndarray
    # each row's weight, scaled to a mean of one (None: each weighs 1)
    row_weight: Optional[np.ndarray] = None
    # squared error: each row's scaled target (None: classification)
    target: Optional[np.ndarray] = None
    # each split searched on its column negated (`_spaces.binary_flips`; None:
    # none), its threshold already negated: its tree is written on the raw
    # column with its children exchanged (`walk_tree`)
    flipped_split: Optional[np.ndarray] = None


def engine_space(ranked, y, n_classes, cost):
    """The `EngineSpace` of the rows whose columns are ranked in `ranked`
    (`fst._core._problem.rank_space`, or the float32 X to rank): per column the
    rows' value ranks and the rows sorted by rank, the thresholds (float32
    midpoints, +inf for "finite left, NaN right"), the split columns and starts,
    as `build_problem` numbers them; y the class of each row; cost (n_classes,
    n_classes) not yet divided by n, without row weights (`replace` adds them)."""
    if isinstance(ranked, np.ndarray):
        ranked = rank_space(ranked)
    p, n = ranked.row_rank.shape
    cols = SimpleNamespace()
    _column_space(cols, ranked, None)
    cost = np.ascontiguousarray(np.asarray(cost, dtype=np.float64) / max(n, 1))
    return EngineSpace(
        row_rank=cols.row_rank, col_order=cols.col_order, thresholds=cols.thresholds,
        split_col=cols.split_col, col_start=cols.col_start, n_splits=int(cols.n_splits),
        n_ranks=ranked.n_ranks, n_rows=n, n_features=p, n_classes=int(n_classes),
        y=np.ascontiguousarray(np.asarray(y, dtype=np.int32)), cost=cost,
        mincost=cost.min(axis=1), row_excess=np.zeros(0))


def _row_groups(space):
    """Each row's group of rows with identical features (identical ranks on
    every column)."""
    return row_groups(space.row_rank, space.n_ranks)


def distinct_rows(space, group=None):
    """The number of distinct feature vectors of an `engine_space` (group: its
    `_row_groups`, None to find them): the most leaves an engine tree has (a
    split has rows on both sides, and identical rows share every leaf)."""
    if not space.n_rows:
        return 1
    return int((_row_groups(space) if group is None else group).max()) + 1


def loss_floor(space, group=None):
    """The least loss of any tree on all the rows of an `engine_space`: rows
    with identical features (identical ranks on every column) share a leaf, so
    each such group costs at least its cheapest label (the equivalent-points
    floor; under squared error, its squared error about its own mean), taken a
    few ulps low so that no rounding raises it.  group: the rows' `_row_groups`
    (None: found here)."""
    n = space.n_rows
    if n == 0:
        return 0.0
    if group is None:
        group = _row_groups(space)
    w = (np.ones(n) if space.row_weight is None
         else np.asarray(space.row_weight, dtype=np.float64))
    if space.target is not None:
        return floor_below(group_loss_floor(group, w, target=np.asarray(space.target)))
    return floor_below(group_loss_floor(group, w, y_idx=space.y, cost=space.cost))


class MemoShare:
    """The engine's store of searched nodes under a leaf cap (`_depth_memo`)
    handed from one fit to the next, as `leaves_front` fits one leaf cap after
    another on the same data.  A node below the root is the subproblem
    R(rows, depth left, leaf cap), which neither the root's depth nor its cap
    changes, so the store of one fit answers the next while the problem is the
    same (`_problem_key`: the space's arrays, costs, weights and targets, lam,
    the rules, min_samples_leaf and the threads); a fit on another problem
    starts a new store here."""

    def __init__(self):
        self.key = None
        self.memo = None


def _problem_key(space, config):
    """A digest of what the answers of the engine's nodes below the root depend
    on: the ranked columns, the classes and costs (or targets), the weights,
    lam, the rules, min_leaf and the threads (each engine its own store)."""
    h = hashlib.blake2b(digest_size=16)
    # (the rows' order on each column follows from their ranks)
    for a in (space.row_rank, space.col_start, space.y, space.cost,
              space.row_weight, space.target):
        if a is None:
            h.update(b"none")
        else:
            a = np.ascontiguousarray(a)
            h.update(str((a.dtype.str, a.shape)).encode())
            h.update(a.tobytes())
    h.update(repr((float(config["regularization"]), int(config["rules"]),
                   int(config.get("min_leaf", 1)), int(config["n_threads"]))).encode())
    return h.digest()


class EngineSearch:
    """The depth-limited engine on an `engine_space`, deepened one level at a time:
    the optimum of depth d - 1 is a real tree of depth at most d, so it seeds the
    search of depth d (`DepthSearch.seed`), whose root then prunes under its value
    from the first split on; a stop at a shallower depth returns that depth's best
    tree, a valid tree of the requested depth.

    Without max_depth (config's ``max_depth`` None) it searches by leaf budget:
    every tree loses at least the floor m (`loss_floor`) and pays lam a leaf, so
    a tree worth at most the incumbent U has at most K = (U - m) / lam leaves
    (`leaf_budget_leaves`) and depth at most K - 1.  The deepening stops, the
    optimum certified, at the first depth D whose optimum U has D >= K - 1:
    every tree as good as U is then of depth at most D, so U is the optimum of
    every tree and the depth-D search's canonical tree the canonical one (the
    same optimal trees are compared).  Until then, the bound of every tree is
    the least of the deepest search's bound and of the trees deeper than it
    (`deeper_trees_lower_bound`).  It searches no deeper once even its deepest
    search allowed (depth_cap) could not certify.

    Under a leaf cap k (config's ``max_leaves``, max_leaf_nodes) every search
    runs with it (`DepthSearch`'s max_leaves): a tree of at most k leaves has
    depth at most k - 1, so without max_depth the deepening ends there too
    (K above is then min(K, k)), and regularization may be 0."""

    def __init__(self, space, config, deepen=True, depth_cap=MAX_ENGINE_DEPTH,
                 keep_deepening=False, pair_sums=True, last_time_limit=None, memo=True,
                 rise=True, subset=True):
        """space: an `engine_space`; config: the search's configuration
        (`fst._core._config.make_config`), of which the engine reads
        regularization, max_depth, rules, n_threads, time_limit, memory_limit and
        work_limit (nodes and root valuations); deepen: one level at a time;
        depth_cap: without max_depth, the deepest search the leaf budget runs;
        keep_deepening: without max_depth, go on deepening (to depth_cap) where
        even depth_cap could not certify (no other search follows), instead of
        leaving the deeper trees to the caller's general search; a depth: to
        that depth at least; pair_sums:
        under squared error or at most fifteen classes on binary columns, the
        nodes of depth two to four solved from their column pairs', triples'
        and quadruples' sums, a node of depth two under a cap of three leaves
        too (off: by the column passes, as on any columns; the same trees);
        memo: under a leaf cap or without max_depth, each search keeps the nodes
        it searched below its root (`_depth_memo`; off: every repeat searched
        again, the same trees; the plan asks for it without max_depth only in
        the stage before the general search),
        kept from each depth's search to the next; a `MemoShare`: also taken
        from and left to the other fits given the same share;
        last_time_limit: without max_depth, the seconds (from the run's start)
        the search that would certify may run to, when that is longer than the
        config's time_limit (that search is the last one the leaf budget needs:
        its seed's budget admits one leaf more than its depth, so its root is
        that seed or a leaf beside a subtree, RULE_PEEL_LEAF);
        rise: under a leaf cap without max_depth, the deepest search, when it
        has not certified within this share of the time left to it, proves its
        bound above budgets below its incumbent (`_rise`), so that a stop
        returns, and the progress shows, a bound above the floor; 0: from its
        start, with or without a time limit; False: never (the same trees and
        certificates);
        subset: under a leaf cap without max_depth, with a time limit, a
        search of a depth below the deepest that has not certified within this
        share of the time left to it makes way for a bound from a subset of the
        rows (`_subset_bound`); 0: before the first seeded search below the
        deepest, with or without a time limit (then for SUBSET_ROUNDS rounds
        at most); False: never (the same trees and certificates)."""
        self.space = space
        self.unlimited = config["max_depth"] is None
        self.row_group = None       # the rows' groups of identical features (unlimited)
        self._max_leaves = int(config.get("max_leaves", 0) or 0)
        if self.unlimited:
            if not (config["regularization"] > 0 or self._max_leaves):
                raise ValueError("without max_depth the engine needs regularization > 0 "
                                 "or a leaf cap")
            if self._max_leaves:
                depth_cap = min(int(depth_cap), self._max_leaves - 1)
            self.max_depth = int(depth_cap)
            group = _row_groups(space) if space.n_rows else None
            self.row_group = group
            self._floor = loss_floor(space, group)
            self._most_leaves = distinct_rows(space, group)
            deepen = True
        else:
            self.max_depth = int(config["max_depth"])
            if self._max_leaves and self.max_depth > self._max_leaves - 1:
                raise ValueError("max_depth must be below the leaf cap")
        self._lam = float(config["regularization"])
        self._deepen_to = (int(depth_cap) if keep_deepening is True
                           else int(keep_deepening or 0))
        self._certified = False
        self._lb = None
        self._args = (space.row_rank, space.col_order, space.col_start, space.y,
                      space.cost)
        self._config = config
        self._weight = space.row_weight
        self._target = space.target
        self._time_limit = config["time_limit"]
        self._last_time_limit = last_time_limit
        self._memory_limit = int(config["memory_limit"] or 0)
        self._n_threads = int(config["n_threads"])
        self._work_limit = int(config["work_limit"] or 0)
        self._pair_sums = bool(pair_sums)
        self._rise_after = None if rise is False or rise is None else float(rise)
        if rise is True:
            self._rise_after = RISE_AFTER
        # under a leaf cap or without max_depth, the stores of the nodes
        # searched below the root, kept from each depth's search to the next
        # (`_depth_memo`): a quarter of the memory limit, MEMO_BYTES without one
        self._memo = None
        if memo and (self._max_leaves or self.unlimited):
            key = _problem_key(space, config) if isinstance(memo, MemoShare) else None
            if key is not None and memo.key == key:
                self._memo = memo.memo
            else:
                self._memo = EngineMemo(
                    self._n_threads,
                    self._memory_limit // 4 if self._memory_limit > 0 else MEMO_BYTES)
                if key is not None:
                    memo.key, memo.memo = key, self._memo
        self._first = min(2, self.max_depth) if deepen else self.max_depth
        self._s = None
        self._held = None
        self._rise_runs = 0
        self._subset_after = (None if subset is False or subset is None
                              else SUBSET_AFTER if subset is True else float(subset))
        self._subset_rounds = 0
        self._subset_rows = 0
        self._subset_parts = 0
        self._depth = 0
        self._stats = []
        self._reporter = None
        self._report_every = 5.0
        self._t0 = clock()

    def set_reporter(self, reporter, seconds=5.0):
        """Call `reporter((seconds, lower bound, incumbent, root splits valued))`
        every `seconds` while the engine runs (verbose >= 2): the bound and the
        incumbent hold for trees of max_depth, whichever depth is being searched."""
        self._reporter = reporter
        self._report_every = float(seconds)

    def _search(self, depth, time_limit):
        work = 0
        if self._work_limit > 0:
            work = max(self._work_limit - sum(r["nodes"] + r["evaluations"]
                                              for r in self._stats), 1)
        return DepthSearch(*self._args, dict(self._config, time_limit=time_limit,
                                             work_limit=work), depth,
                           final_depth=depth if self.unlimited else self.max_depth,
                           weight=self._weight, target=self._target,
                           pair_sums=self._pair_sums, memo=self._memo)

    def _direct(self):
        """The search of max_depth alone, when deepening to it would not pay: its
        root solved from its column sums (squared error on binary columns, depth
        four at most) in a pass of at most SUMS_DIRECT_WORK table slots.  That
        pass values every tree of the depth and prunes nothing by a bound, so
        the shallower searches' optima would not cut it; they would only serve
        a stop, which so short a pass leaves no room for.  None: deepen."""
        if (self.unlimited or self._target is None or self._first >= self.max_depth
                or self.max_depth > 4):
            return None
        s = self._search(self.max_depth, self._time_limit)
        work = s.root_sums_work()
        return s if 0 <= work <= SUMS_DIRECT_WORK else None

    def run(self):
        """Search depth after depth; returns the stop code.  Ctrl-C between two
        depths (in this Python code, where no search polls for it) stops the
        fit as a search's own interrupt does, with the deepest search that
        ran; before any ran, as a stop in the preparation
        (`PreparationStopped`)."""
        try:
            return self._run()
        except KeyboardInterrupt:
            if self._s is None:
                raise PreparationStopped(_INTERRUPTED) from None
            return _INTERRUPTED

    def _run(self):
        start = time.perf_counter()
        t0 = self._t0 = clock()
        seed = None
        code = 0
        direct = self._direct()
        first = self.max_depth if direct is not None else self._first
        # below depth two, the root's own first valuation (the best depth-one
        # split) is the seed
        for depth in range(first, self.max_depth + 1):
            limit = self._time_limit
            if (self._last_time_limit is not None and limit is not None
                    and seed is not None and self.unlimited
                    and self._covers(depth, seed[0])):
                limit = max(limit, self._last_time_limit)
            left = _left(limit, start)
            s = direct if direct is not None else self._search(depth, left)
            if self._reporter is not None:
                s.set_reporter(self._progress(depth), self._report_every, t0)
            if seed is not None:
                # the optimum of the depth before, certified under the same cap
                s.seed(*seed, exact=True)
            if self._rises(depth, s, seed):
                code = self._rise(s, seed[0], start, limit)
            elif self._subsets(depth, seed, limit):
                code = self._run_beside_subset(s, seed, start, limit)
            else:
                code = s.run()
            self._stats.append(s.stats())
            self._s, self._depth = s, depth
            if self.unlimited:
                lb = self._unlimited_bound()
                if lb is not None and (self._lb is None or lb > self._lb):
                    self._lb = lb
            if not s.solved:
                break
            seed = (s.upper_bound, s.tree())
            if self.unlimited and self._covers(depth, s.upper_bound):
                self._certified = True
                break
            if (self.unlimited and depth >= self._deepen_to
                    and not self._covers(self.max_depth, s.upper_bound)):
                # the deepest search allowed would not certify either: the
                # deeper searches are left to the caller's general search
                break
        return code

    def _rises(self, depth, s, seed):
        """Whether the search of `depth` may run `_rise`: the deepest under a
        leaf cap without max_depth, seeded, its root searched split by split
        (a root solved from its column sums values every tree in one pass, and
        proves its bound at its end in any case)."""
        return (self._rise_after is not None and self.unlimited and self._max_leaves > 0
                and depth == self.max_depth and self._deepest(depth) and seed is not None
                and s.root_sums_work() < 0)

    def _subsets(self, depth, seed, limit):
        """Whether the search of `depth` may make way for the subset bound: under
        a leaf cap without max_depth, seeded, not the deepest (whose bound
        rises by `_rise`), once a fit; with a time limit, or with a share of 0
        (from the start)."""
        return (self._subset_after is not None and self.unlimited and self._max_leaves > 0
                and seed is not None and self._subset_rounds == 0
                and not self._deepest(depth)
                and (limit is not None or self._subset_after == 0))

    def _run_beside_subset(self, s, seed, start, limit):
        """Run the search `s` (seeded with the tree `seed`) as `DepthSearch.run`
        would; where it has not certified within its share of the time
        (`subset`, as `_rise` shares it: `DepthSearch.set_share`), give
        SUBSET_SHARE of that time to `_subset_bound`, from the best tree it
        found (held in `_held` for a stop), then run it again for the rest of
        its time, reading what it proved below its root from the store of
        searched nodes.  With a share of 0 and no time limit the subset bound
        runs first, from the seed.  Returns the stop code."""
        if limit is None:
            code = self._subset_bound(None, seed[1], seed[0], 0)
            return code if code != 0 else s.run()
        left = _left(limit, start)
        s.set_time_limit(left)
        s.set_share(self._subset_after * left, RISE_FINISH * left)
        code = s.run()
        seconds = s.seconds
        if code != _TIME_STOP or _left(limit, start) <= 0:
            return code
        self._held = (s.upper_bound, s.tree())
        t = time.perf_counter()
        code = self._subset_bound(SUBSET_SHARE * left, self._held[1], self._held[0],
                                  s.stats()["evaluations"])
        seconds += time.perf_counter() - t
        if code == 0:
            return self._run_rest(s, start, limit, seconds)
        s.seconds = seconds
        return code

    @staticmethod
    def _run_rest(s, start, limit, seconds):
        """Run the search `s` for what is left of `limit` since `start`, its
        seconds counted with `seconds` (those of the runs before it, and what
        ran between them); returns the stop code."""
        s.set_time_limit(_left(limit, start))
        code = s.run()
        s.seconds = seconds + s.seconds
        return code

    def _subset_bound(self, seconds, heap, ub, work):
        """Raise the bound of every tree (`_lb`) by the optima of disjoint subsets
        of the rows under the same cap, the first at lam and the others at 0,
        summed (`_bounds.subset_rows_bound`), for at most `seconds` (None: no
        limit) and SUBSET_ROUNDS subsets searched.  A subset is grown as
        constraints are in row generation: the first holds the SUBSET_FIRST rows
        the tree `heap` (worth `ub`) gets most wrong; each round searches its
        optimum (its own engine, without min_samples_leaf or a store shared
        with this one) and adds the SUBSET_ADD rows outside every subset that
        its optimal tree, answering as it does on the subset, gets most wrong
        (`tree_excess`, `pick_rows`), which that tree then no longer fits.  Once
        a subset's optimum is above its rows' floor (with lam a leaf for the
        first) it is kept as it is, its optimum added to the sum, and the next
        subset starts from the SUBSET_FIRST rows outside them that its tree gets
        most wrong: a small subset is searched much faster than a large one, so
        the sum rises faster by subsets than by one subset grown.  It ends when
        the bound reaches `ub`, a subset's search stops (its proven bound still
        counts), or no row is left to add.  The trees found are not answered:
        the fit's tree and certificate are this search's own; `work`, the root
        splits the search it makes way for valued, for the progress lines.
        Returns the stop code (0, or Ctrl-C's)."""
        space = self.space
        end = None if seconds is None else time.perf_counter() + seconds
        keys = row_keys(space)
        kept = np.zeros(space.n_rows, dtype=bool)      # the rows of the subsets kept
        part = np.zeros(space.n_rows, dtype=bool)      # the subset being grown
        part[pick_rows(tree_excess(space, heap), keys, kept, SUBSET_FIRST)] = True
        first, others = None, 0.0
        config = dict(self._config, max_depth=None, min_leaf=1, work_limit=0)
        while self._subset_rounds < SUBSET_ROUNDS and part.any():
            left = None if end is None else end - time.perf_counter()
            if left is not None and left <= 0:
                break
            rows = np.flatnonzero(part)
            sub_space = subset_space(space, rows)
            lam = self._lam if first is None else 0.0
            sub = EngineSearch(sub_space, dict(config, time_limit=left, regularization=lam),
                               depth_cap=self.max_depth, keep_deepening=True,
                               pair_sums=self._pair_sums, subset=False)
            code = sub.run()
            self._subset_rounds += 1
            self._subset_rows = int(kept.sum()) + len(rows)
            if code == _INTERRUPTED:
                return code
            if code not in (0, _TIME_STOP):
                # (the memory limit: this search's own check stops it next)
                break
            bound = sub.upper_bound if sub.solved else sub.lower_bound
            bound = 0.0 if bound is None else floor_below(float(bound))
            held = -np.inf if self._lb is None else self._lb
            if first is None:
                self._raise_lb(subset_rows_lower_bound(bound, 0.0))
            else:
                self._raise_lb(subset_rows_lower_bound(first, others + bound))
            if self._reporter is not None and self._lb > held:
                self._reporter((clock() - self._t0, self._lb, ub, work))
            if not sub.solved or self._lb >= ub - TOL:
                break
            excess = tree_excess(space, sub.heap(), part)
            if bound > loss_floor(sub_space) + lam + TOL:
                # the subset bounds more than its floor: kept, and the next
                # starts from the rows its tree gets most wrong outside them
                if first is None:
                    first = bound
                else:
                    others += bound
                kept |= part
                self._subset_parts += 1
                part[:] = False
                add = pick_rows(excess, keys, kept, SUBSET_FIRST)
            else:
                add = pick_rows(excess, keys, kept | part, SUBSET_ADD)
            if len(add) == 0:
                # its tree fits every row outside the subsets: the subsets, as
                # they are, bound no more
                break
            part[add] = True
        return 0

    def _rise(self, s, ub, start, limit):
        """Run the search `s` (seeded with a tree worth `ub`) as `DepthSearch.run`
        would, and where it has not certified within its share of the time
        (`rise`; with a time limit, a share that the pace of its root's columns
        closed extends to the whole limit where it projects the run's end within
        RISE_FINISH of it, `DepthSearch.set_share`), prove its bound upward:
        its root searched against budgets A
        between the bound lb proven so far and the best value found
        (A = lb + RISE_FRACTION (best - lb)), each run either proving every tree
        above A (lb then rises to the bound it proves, kept in `_lb`, which the
        progress shows and a stop returns) or finding the optimum within A.
        Each run leaves what it proved below the root in the store of searched
        nodes, which the next reads; the last run, without a budget, gives the
        answer and the canonical tree exactly as it would alone.  A better tree
        a stopped run found than the last run's is held (`_held`) and answered
        at a stop.  Returns the stop code."""
        seconds = 0.0
        if self._rise_after > 0:
            if limit is not None:
                left = _left(limit, start)
                s.set_time_limit(left)
                s.set_share(self._rise_after * left, RISE_FINISH * left)
            elif self._reporter is not None:
                s.set_time_limit(RISE_SECONDS)
            else:
                return s.run()
            code = s.run()
            seconds += s.seconds
            if code != _TIME_STOP or (limit is not None and _left(limit, start) <= 0):
                s.seconds = seconds
                return code
            # stopped at its share: keep its tree and its bound
            self._held = (s.upper_bound, s.tree())
            ub = min(ub, s.upper_bound)
            if s.lower_bound > -np.inf:
                self._raise_lb(s.lower_bound)
        lb = self._floor if self._lb is None else max(self._lb, self._floor)
        code = 0
        for _ in range(RISE_PASSES):
            budget = lb + RISE_FRACTION * (ub - lb)
            if not lb + TOL < budget < ub - TOL:
                break
            s.set_time_limit(_left(limit, start))
            code = s.run(budget)
            seconds += s.seconds
            self._rise_runs += 1
            if code != 0 or s.above_budget is None:
                break
            lb = max(lb, float(s.above_budget))
            self._raise_lb(lb)
            if self._reporter is not None:
                # the bound risen is shown as it is proven
                self._reporter((clock() - self._t0, lb, ub, s.stats()["evaluations"]))
        if code == 0:
            return self._run_rest(s, start, limit, seconds)
        s.seconds = seconds
        return code

    def _raise_lb(self, lb):
        """Keep `lb`, a bound on the trees of max_depth (`_rise`'s runs; or on
        every tree, `_subset_bound`'s), as the bound of every tree
        (`_every_tree_bound`) when it is above the one held."""
        lb = self._every_tree_bound(lb, self.max_depth)
        if self._lb is None or lb > self._lb:
            self._lb = lb

    def budget_leaves(self, value):
        """The most leaves of a tree worth at most `value`: the leaf budget
        (`leaf_budget_leaves`), at most the leaf cap and the distinct rows
        (`distinct_rows`)."""
        k = min(leaf_budget_leaves(value, self._floor, self._lam), self._most_leaves)
        if self._max_leaves:
            k = min(k, self._max_leaves)
        return k

    def _progress(self, depth):
        """The reporter of the search of `depth`: without max_depth its bound,
        which holds for the trees of that depth, is lowered to the bound of the
        deeper trees and raised to the greatest bound of the depths before."""
        if not self.unlimited:
            return self._reporter

        def report(progress):
            seconds, lower, best, work = progress
            lower = self._every_tree_bound(lower, depth)
            if self._lb is not None and self._lb > lower:
                lower = self._lb
            self._reporter((seconds, lower, best, work))
        return report

    def _covers(self, depth, value):
        """Whether every tree worth at most `value` has depth at most `depth`: it
        has at most K leaves (`leaf_budget_leaves`; at most the leaf cap, and
        the distinct rows: `distinct_rows`), so depth at most K - 1."""
        return depth >= self.budget_leaves(value) - 1

    @property
    def solved_depth(self):
        """The deepest depth whose optimum the deepening found (0: none)."""
        if self._s is None:
            return 0
        return self._depth if self._s.solved else self._depth - 1

    @property
    def stats_ready(self):
        """Whether a search has run (its tree, bounds and statistics exist)."""
        return self._s is not None

    def _held_better(self):
        """Whether the tree held from a stopped run (`_rise`, `_run_beside_subset`)
        is better than the last run's (which, stopped, kept its seed)."""
        return (self._held is not None and not self._s.solved
                and self._held[0] < self._s.upper_bound - TOL)

    @property
    def upper_bound(self):
        return self._held[0] if self._held_better() else self._s.upper_bound

    @property
    def solved(self):
        return self._certified if self.unlimited else self._s.solved

    @property
    def lower_bound(self):
        """The certified optimum; after a stop, the least bound over the root's
        splits of max_depth (closed columns' proven bounds, open columns'
        creation bounds, with the best tree: `_bounds.stopped_root_bound`); None
        when the stop came before the root was searched."""
        if self.unlimited and not self._certified:
            return self._lb
        lb = self._s.lower_bound
        return lb if lb > -np.inf else None

    def depth_optimum_bound(self, depth, value):
        """What the certified optimum `value` of the depth-limited problem of
        `depth` (found by another search on the same rows and objective, the
        stopped fit's depth fallback) proves of every tree: (bound, covers).
        The trees of that depth are worth at least `value`, the deeper ones at
        least `deeper_trees_lower_bound`, so the least of the two bounds every
        tree; `covers` when every tree as good as `value` has at most that
        depth (`_covers`), so that `value` is the optimum and that search's
        canonical tree the canonical one, as for the engine's own depths."""
        if not self.unlimited:
            raise ValueError("a depth's optimum bounds every tree only without max_depth")
        if self._covers(depth, value):
            return value, True
        return min(value, deeper_trees_lower_bound(self._floor, self._lam, depth)), False

    def _unlimited_bound(self):
        """A bound on every tree from the last search run (`_every_tree_bound`).
        Each depth's such bound holds, so the fit keeps their greatest (`_lb`)."""
        lb = self._s.lower_bound
        if lb == -np.inf:
            return None
        return self._every_tree_bound(lb, self._depth)

    def _deepest(self, depth):
        """Whether no tree is deeper than `depth`: none under the leaf cap, or of
        the rows' distinct points, has more leaves than depth + 1."""
        return depth >= min(self._max_leaves or self._most_leaves, self._most_leaves) - 1

    def _every_tree_bound(self, lb, depth):
        """A bound on every tree from `lb`, a bound on the trees of `depth`: the
        deeper ones are worth at least `deeper_trees_lower_bound`."""
        if self._deepest(depth):
            return lb
        return min(lb, deeper_trees_lower_bound(self._floor, self._lam, depth))

    def stats(self):
        st = {k: sum(r[k] for r in self._stats) for k in
              ("nodes", "evaluations", "column_passes", "leaf_budget_depths",
                  "leaf_allocations", "segment_bounds", "segment_prunes", "by_allocation",
                  "peel_nodes",
                  "parent_sums",
                  "memo_hits", "memo_larger_cap_hits", "similar_bounds",
                  "seconds")}
        st["peak_rss_bytes"] = max(r["peak_rss_bytes"] for r in self._stats)
        st["engine"] = "depth"
        # the runs of the deepest search against a budget (`_rise`)
        st["rising_runs"] = self._rise_runs
        # the subsets searched for a bound (`_subset_bound`), the rows of the
        # last with those of the subsets kept, and how many were kept
        st["subset_rounds"] = self._subset_rounds
        st["subset_rows"] = self._subset_rows
        st["subset_parts"] = self._subset_parts
        st["nodes_created"] = st["nodes"]
        # the deepest search run, and the optimum of each shallower depth it was
        # seeded with
        st["depth_searched"] = self._depth
        # the work of each thread of the deepest search (`threads` engines at its
        # root, each valuing the root splits of the columns it takes)
        last = self._stats[-1]
        st["threads"] = last.get("threads", 1)
        st["nodes_per_thread"] = last.get("nodes_per_thread", [last["nodes"]])
        st["evaluations_per_thread"] = last.get("evaluations_per_thread",
                                                [last["evaluations"]])
        # the keys every search reports (`fst._plan.COMMON_STATS`): the engine's
        # unit of work is a root split valued
        st["expansions"] = st["evaluations"]
        st["expansions_per_thread"] = st["evaluations_per_thread"]
        return st

    def heap(self):
        """The best tree found, in heap order (global split ids, -1 leaves)."""
        return self._held[1] if self._held_better() else self._s.tree()

    def extract(self):
        """(split, left, right, depth, rows) of the best tree found, in pre-order,
        as `Search.extract` returns them."""
        heap = self.heap()
        return walk_tree(self.space, lambda pos, rows: int(heap[pos]) if pos < len(heap) else -1)


def _left(limit, start):
    """The seconds left of `limit` (None: no limit) since `start` (perf_counter)."""
    return None if limit is None else max(limit - (time.perf_counter() - start), 0.0)


def walk_tree(space, split_at):
    """(split, left, right, depth, rows) of a tree on an `engine_space`, in
    pre-order, as `Search.extract` returns them: `split_at(pos, rows)` gives
    the global split of the node at heap position pos (the root 0, a node k's
    children 2k + 1 and 2k + 2) holding `rows` (-1: a leaf)."""
    splits, lefts, rights, depths, rows = [], [], [], [], []
    # a split on a column searched negated (`_spaces.binary_flips`) is written on
    # the raw column: its engine's left side (the raw values above the
    # threshold) becomes the right child
    flipped = space.flipped_split
    stack = [(0, np.arange(space.n_rows, dtype=np.intp), 0, -1, 0)]
    while stack:
        pos, r, level, parent, is_right = stack.pop()
        me = len(splits)
        if parent >= 0:
            (rights if is_right else lefts)[parent] = me
        s = split_at(pos, r)
        splits.append(s)
        lefts.append(-1)
        rights.append(-1)
        depths.append(level)
        rows.append(r)
        if s < 0:
            continue
        col = int(space.split_col[s])
        k = s - int(space.col_start[col])
        go_left = space.row_rank[col][r] <= k
        left, right = (2 * pos + 1, r[go_left]), (2 * pos + 2, r[~go_left])
        if flipped is not None and flipped[s]:
            left, right = right, left
        stack.append((*right, level + 1, me, 1))
        stack.append((*left, level + 1, me, 0))
    return (np.array(splits, dtype=np.intp), np.array(lefts, dtype=np.intp),
            np.array(rights, dtype=np.intp), np.array(depths, dtype=np.intp), rows)


class SquaresGeneralSearch:
    """The general search (`_solver.Search`, every tree shape, row sets in a
    store) under squared error, on an `engine_space` with the regressor's
    targets (`_problem.squares_problem`: the same splits, numbered alike),
    read through the interface `LeafBudgetSearch` reads.

    Seeded with the engine's best tree (`stage`, when it has one), a little
    above its value (SEED_MARGIN): the root then searches only for trees as
    good as it, ties included, so that where the seed is optimal the search
    finds the optimal trees itself and reads the canonical one among them (a
    tree of the same value and leaves deeper than the engine searched, and
    first in the split order, is the canonical one); the seed's tree is
    returned only where the search found none as good (a stop)."""

    def __init__(self, space, config, stage=None):
        self.space = space
        self._stage = None
        if (stage is not None and stage.stats_ready
                and np.isfinite(stage.upper_bound)):
            self._stage = stage
        # the rows' groups the engine by leaf budget found, else found here
        group = stage.row_group if stage is not None else None
        problem = squares_problem(space.row_rank, space.col_order, space.split_col,
                                  space.col_start, space.target, space.row_weight,
                                  _row_groups(space) if group is None else group)
        self._s = Search(problem, config)
        self._work_limit = int(config["work_limit"] or 0)
        if self._stage is not None:
            self._s.seed(self._stage.upper_bound + SEED_MARGIN)

    def set_reporter(self, reporter, seconds=5.0):
        def report(progress):
            seconds, lower, best, work = progress
            if self._stage is not None:
                best = min(best, self._stage.upper_bound)
            reporter((seconds, lower, best, work))
        self._s.set_reporter(report, seconds)

    def set_work_limit(self, work):
        """Stop (as at the time limit) past `work` (the search's word-work),
        never past the configuration's own work limit."""
        if self._work_limit:
            work = min(int(work), self._work_limit)
        self._s.set_work_limit(int(work))

    def set_time_limit(self, seconds):
        self._s.set_time_limit(seconds)

    def run(self):
        return self._s.run()

    def _returns_seed(self):
        """Whether the tree returned is the seed's (the engine's): the search
        found none as good (within TOL)."""
        return (self._stage is not None
                and not self._s.upper_bound <= self._stage.upper_bound + TOL)

    @property
    def solved(self):
        return bool(self._s.solved)

    @property
    def upper_bound(self):
        if self._returns_seed():
            return self._stage.upper_bound
        return self._s.upper_bound

    @property
    def lower_bound(self):
        return self._s.lower_bound

    def extract(self):
        if self._returns_seed():
            return self._stage.extract()
        splits, _, _, _, rows = self._s.extract()
        at = {r.tobytes(): int(s) for s, r in zip(splits, rows)}
        return walk_tree(self.space, lambda pos, rows: at.get(
            np.asarray(rows, dtype=np.intp).tobytes(), -1))

    def stats(self):
        return self._s.stats()

    def check_keys(self):
        return self._s.check_keys()

