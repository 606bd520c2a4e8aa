"""Searches run in turn and read as one (`fst._plan` builds them).

LeafBudgetSearch: a fit without max_depth on continuous columns, the general
search's short first run, the depth-limited engine by leaf budget, then the
general search for the time left.  CapProbeSearch: a fit under max_leaf_nodes
at lam > 0 on binary or binned columns, the general search's short first run
without the cap, the engine under the cap, then the general search again for
the time left."""
import time

from ._core._columns import PreparationStopped
from ._core._config import TOL
from ._core._limits import STATUS_NAMES
from ._engine import _INTERRUPTED, _TIME_STOP
from ._fallbacks import DPDT_TIME_SHARE, FALLBACK_DEPTH, FALLBACK_TIME_SHARE

# A fit without max_depth on continuous columns runs the engine by leaf budget
# (`LeafBudgetSearch`, after the general search's short first run) for at most
# this share of its time limit and to this depth at most; the general search
# has the rest.  Without a leaf cap the engine keeps no store of subproblems,
# so deeper searches repeat their subtrees' work: past depth four the general
# search, which stores them, is the faster (measured on small problems whose
# optimum is deep).
LEAF_BUDGET_TIME_SHARE = 0.5
LEAF_BUDGET_DEPTH = 4
# ... except the search that would certify (its depth holds every tree as good
# as its seed, whose budget admits one leaf more than that depth: its root is the
# seed or a leaf beside a subtree), which may run to this share: the general
# search would have to prove the same small trees' bound, which it does not
# raise (the leaf budget's bound is the bound both searches reach).
LEAF_BUDGET_LAST_SHARE = 0.9
# ... and it first runs the general search for this much of its work (a count of
# the words it reads, `Search`'s work limit) and at most this share of the time
# limit (or these seconds without one): many problems it certifies, it
# certifies at once there, where the engine would first search to depth 4
# (compas_processed at lam = 0.05 takes 2e8 of its work).  The work, not the
# time, ends the first run wherever that is short, so the fit's path does not
# depend on the machine's speed; a first run that did not certify costs at
# most this work, since the general search that follows the engine starts
# anew.
PROBE_WORK = 1 << 28
PROBE_SHARE = 0.05
PROBE_SECONDS = 3.0
# Under a leaf cap at lam > 0 on binary or binned columns, the engine under the
# cap has this share of the time limit its first run left (`CapProbeSearch`),
# the general search without the cap the rest: on noisy tables at lam = 0.02
# the general search certifies where the engine does not within the limit
# (fico_1k cut at quartiles, eight leaves: 4.4 s against none in 30 s).
CAP_ENGINE_SHARE = 0.5
# ... and under squared error the first run has this much of the general
# search's work: a node's sums there cost fewer words than its class counts,
# so the same work is about a fifth of the time (0.05 s against the
# classifier's 0.1 to 0.15 s on the sets measured), and the engine under the
# cap it comes before takes seconds where the first run certifies
# (`make_friedman1` cut at quartiles at lam = 0.05: 3.7e8 of its work, 0.1 s,
# against the capped engine's 2.4 s).
SQUARES_PROBE_WORK = 1 << 32
# A general search is not resumed for less than this many seconds.
_LEAST_RESUME_SECONDS = 0.05

# The stop code (`fst._core._limits`) of a search that ended by itself (that of
# its time limit is the engine's `_TIME_STOP`).
_FINISHED = next(k for k, v in STATUS_NAMES.items() if v == "optimal")


class LeafBudgetSearch:
    """A fit without max_depth on continuous columns: a short first run of the
    general search (PROBE_WORK of its work: many easy problems certify in it),
    then the depth-limited engine by leaf budget (`EngineSearch` without
    max_depth: the optimum certified once the depth searched holds every tree as
    good as its incumbent), then, if neither certified, a fresh general search
    for the time left.  Read through the
    searches' one interface: the best of their trees
    (the general search's on ties; they number the splits alike,
    `_column_space`), the greatest of their bounds (each holds for every tree),
    certified when any is."""

    def __init__(self, stage, general, time_limit, probe=True, work_limit=0, reserve=None):
        """stage: the engine's search; general: a callable making the general
        search for a number of seconds (None: no limit); time_limit: the fit's;
        probe: whether the general search's short first run comes first;
        work_limit: the general search's own (its configuration's, 0: none),
        which its first run's PROBE_WORK does not raise; reserve: the share of
        the time limit kept from the general search for the fallback trees
        (None: DPDT's, and the depth-limited tree's where the engine did not
        reach FALLBACK_DEPTH)."""
        self.stage = stage
        self._probe_first = probe
        self._reserve = reserve
        self._work_limit = int(work_limit or 0)
        self.general = None
        self._probe = None
        self._ran = []              # the general searches whose run returned
        self._make_general = general
        self._time_limit = time_limit
        self._reporter = None
        self._seconds = 0.0
        self._start = time.perf_counter()
        # called with no argument when the general search stops at its share of
        # a time limit, before it resumes (`FitPlan.run`: DPDT's tree)
        self.interlude = None

    def set_reporter(self, reporter, seconds=5.0):
        self._reporter = (reporter, seconds)
        self.stage.set_reporter(self._joined(reporter, self.stage), seconds)

    def _joined(self, reporter, search):
        """`search`'s progress as the fit's: seconds since the fit's searches
        began, the bound raised to the greatest any search has proved and the
        best lowered to the least tree any has found (each holds for every
        tree), so the lines of one fit never lose ground when it passes from one
        search to the next."""
        def report(progress):
            _, lower, best, work = progress
            for other in self._searches():
                if other is search:
                    continue
                if other.lower_bound is not None and other.lower_bound > lower:
                    lower = other.lower_bound
                if other.upper_bound < best:
                    best = other.upper_bound
            reporter((time.perf_counter() - self._start, lower, best, work))
        return report

    def _general(self, seconds):
        g = self._make_general(seconds)
        if self._reporter is not None:
            g.set_reporter(self._joined(self._reporter[0], g), self._reporter[1])
        return g

    def run(self):
        """Run the searches in turn; returns the stop code.  Ctrl-C between two
        searches (in this Python code, where no search polls for it) stops the
        fit as a search's own interrupt does, with the trees of the searches
        that ran; before any ran, as a stop in the preparation
        (`PreparationStopped`)."""
        try:
            return self._run()
        except (KeyboardInterrupt, PreparationStopped):
            # (the engine's own Ctrl-C before its first depth ran comes as the
            # latter)
            self._probe = self._probe if self._probe in self._ran else None
            self.general = self.general if self.general in self._ran else None
            if not self._searches():
                raise PreparationStopped(_INTERRUPTED) from None
            return _INTERRUPTED

    def _run(self):
        start = self._start = time.perf_counter()
        tl = self._time_limit
        if self._probe_first:
            self._probe = self._general(PROBE_SECONDS if tl is None else tl * PROBE_SHARE)
            self._probe.set_work_limit(PROBE_WORK if not self._work_limit
                                       else min(PROBE_WORK, self._work_limit))
            code = self._probe.run()
            self._ran.append(self._probe)
            self._seconds = time.perf_counter() - start
            if self._probe.solved or code not in (_FINISHED, _TIME_STOP):
                return code
        code = self.stage.run()
        self._seconds = time.perf_counter() - start
        if self.stage.solved or code not in (_FINISHED, _TIME_STOP):
            return code
        left = None
        if tl is not None:
            # shares are kept for DPDT's tree and, when the engine did not go
            # that deep, the depth-limited tree of FALLBACK_DEPTH
            # (`FitPlan.fallback_trees`)
            keep = DPDT_TIME_SHARE
            if self._reserve is not None:
                keep = self._reserve
            elif not self.reached(FALLBACK_DEPTH):
                keep += FALLBACK_TIME_SHARE
            left = tl * (1.0 - keep) - (time.perf_counter() - start)
            if left <= 0:
                # the engine ended uncertified (at its share, or having searched
                # as deep as it could certify) with no time left for the general
                # search: the fit's time limit stopped it
                return _TIME_STOP
        # the first run is dropped (its store freed), not resumed: a run resumed
        # after a stop goes on with the pass its cut interrupted, without that
        # pass's own switch to the next (`Search.run`), which on some problems
        # costs far more work than a fresh search
        self._probe = None
        self.general = self._general(left)
        code = self.general.run()
        self._ran.append(self.general)
        if code == _TIME_STOP and self.interlude is not None and tl is not None:
            # stopped at its share: DPDT's tree is grown in the share kept for
            # it, and the general search resumes for what that left
            self.interlude()
            left = tl * (1.0 - keep + DPDT_TIME_SHARE) - (time.perf_counter() - start)
            if left > _LEAST_RESUME_SECONDS:
                self.general.set_time_limit(left)
                code = self.general.run()
        self._seconds = time.perf_counter() - start
        return code

    def reached(self, depth):
        """Whether the engine solved the depth-limited problem of `depth`."""
        return self.stage.solved_depth >= depth

    def _searches(self):
        """The searches that ran, the general ones first."""
        return [g for g in (self.general, self._probe) if g is not None] + (
            [self.stage] if self.stage.stats_ready else [])

    def _best(self):
        """The search whose tree is returned: the certified one, else the least
        upper bound (the first on ties within the tolerance)."""
        runs = self._searches()
        for r in runs:
            if r.solved:
                return r
        best = runs[0]
        for r in runs[1:]:
            if r.upper_bound < best.upper_bound - TOL:
                best = r
        return best

    @property
    def returns_stage(self):
        """Whether the tree returned is the engine's."""
        return self._best() is self.stage

    @property
    def upper_bound(self):
        return self._best().upper_bound

    @property
    def solved(self):
        return any(r.solved for r in self._searches())

    @property
    def lower_bound(self):
        best = self._best()
        if best.solved:
            return best.lower_bound
        bounds = [r.lower_bound for r in self._searches() if r.lower_bound is not None]
        return max(bounds) if bounds else None

    def extract(self):
        return self._best().extract()

    def stats(self):
        """The statistics of the general search that ran last (or of the engine
        when it certified), with the engine's beside them (``leaf_budget``: its
        depth searched, whether it certified, its nodes), the seconds of all."""
        runs = self._searches()
        main = self.stage if self.stage.solved else runs[0]
        st = main.stats()
        st["seconds"] = self._seconds
        if self.stage.stats_ready:
            e = self.stage.stats()
            st["leaf_budget"] = {"depth_searched": e["depth_searched"],
                                 "certified": bool(self.stage.solved), "nodes": e["nodes"]}
        return st

    def check_keys(self):
        g = self.general if self.general is not None else self._probe
        return None if g is None else g.check_keys()


class CapProbeSearch:
    """A fit under a leaf cap k (max_leaf_nodes) at lam > 0 on binary or binned
    columns: a short first run of the general search without the cap, then the
    depth-limited engine under it, then, where a time limit stopped the engine
    at its share, the general search without the cap again for the time left.

    The general search takes no leaf cap, but at lam > 0 it often certifies
    where the engine's search under the cap takes long (coupon_bar at
    lam = 0.01 and eight leaves: 4 ms against 0.78 s).  Where it certifies an
    optimum of at most k leaves, that tree is the optimum under the cap, and the
    canonical one: the trees of at most k leaves are some of all the trees, and
    the optimum is among them, so the optimal trees under the cap are the
    optimal trees of at most k leaves, of which the fewest leaves and the split
    order (`_ties`) choose the same tree.  Every bound a general search proves
    holds for every tree, so for those of at most k leaves: a stopped fit's
    bound is the greatest of the searches', and its tree the best of the
    engine's and of the general searches' trees of at most k leaves.  The first
    run is cut at PROBE_WORK of its work (and PROBE_SHARE of the time limit),
    so it costs at most that where the cap binds; with a time limit the engine
    has CAP_ENGINE_SHARE of what is left, and the general search anew (not
    resumed, as in `LeafBudgetSearch`) the rest."""

    def __init__(self, general, engine, max_leaves, time_limit, work_limit=0,
                 probe_work=None):
        """general: a callable making the general search without the cap for a
        number of seconds (None: no limit); engine: a callable making the
        engine's search under the cap for a number of seconds; max_leaves: the
        cap; time_limit: the fit's searches' (None: none); work_limit: the
        general search's own (0: none), which the first run's `probe_work`
        (None: PROBE_WORK) does not raise."""
        self._probe_work = probe_work
        self._make_general = general
        self._make_engine = engine
        self._max_leaves = int(max_leaves)
        self._time_limit = time_limit
        self._work_limit = int(work_limit or 0)
        self._generals = []         # the general searches whose run returned
        self._leaves = {}           # the leaves of each one's tree, once read
        self.engine = None
        self._reporter = None
        self._seconds = 0.0
        self._start = time.perf_counter()

    def set_reporter(self, reporter, seconds=5.0):
        self._reporter = (reporter, seconds)

    def _joined(self, search):
        """`search`'s progress as the fit's: seconds since the fit's searches
        began, the bound raised to the greatest any search proved, the best the
        least tree within the cap found (a general search's own may have more
        leaves)."""
        reporter, _ = self._reporter

        def report(progress):
            _, lower, best, work = progress
            t = time.perf_counter() - self._start
            if search is not self.engine:
                best = self.upper_bound
            for g in self._generals:
                if g.lower_bound is not None and g.lower_bound > lower:
                    lower = g.lower_bound
            reporter((t, lower, min(best, self.upper_bound), work))
        return report

    def run(self):
        """Run the searches in turn; returns the stop code."""
        start = self._start = time.perf_counter()
        try:
            code = self._run(start)
        except (KeyboardInterrupt, PreparationStopped):
            # Ctrl-C between two searches, or before the engine's first depth
            # ran
            if self.engine is not None and not self.engine.stats_ready:
                self.engine = None
            code = _INTERRUPTED
        finally:
            self._seconds = time.perf_counter() - start
        if not self.upper_bound < float("inf"):
            # stopped with no tree within the cap: as a stop in the preparation
            # (the fit records the single leaf)
            raise PreparationStopped(code)
        return code

    def _general(self, seconds, work=None):
        g = self._make_general(seconds)
        if work is not None:
            g.set_work_limit(work if not self._work_limit else min(work, self._work_limit))
        if self._reporter is not None:
            g.set_reporter(self._joined(g), self._reporter[1])
        code = g.run()
        self._generals.append(g)
        return code

    def _run(self, start):
        tl = self._time_limit
        code = self._general(PROBE_SECONDS if tl is None else tl * PROBE_SHARE,
                             PROBE_WORK if self._probe_work is None else self._probe_work)
        if self.solved or code == _INTERRUPTED:
            return code
        left = None if tl is None else max(tl - (time.perf_counter() - start), 0.0)
        self.engine = self._make_engine(None if left is None else left * CAP_ENGINE_SHARE)
        if self._reporter is not None:
            self.engine.set_reporter(self._joined(self.engine), self._reporter[1])
        code = self.engine.run()
        if self.solved or code not in (_FINISHED, _TIME_STOP) or tl is None:
            return code
        left = tl - (time.perf_counter() - start)
        if left < _LEAST_RESUME_SECONDS:
            return code
        return self._general(left)

    def _tree_leaves(self, g):
        """The leaves of general search `g`'s tree (None: it found none)."""
        if g not in self._leaves:
            self._leaves[g] = (int((g.extract()[0] < 0).sum())
                               if g.upper_bound < float("inf") else None)
        return self._leaves[g]

    def _within(self, g):
        leaves = self._tree_leaves(g)
        return leaves is not None and leaves <= self._max_leaves

    def _answering(self):
        """The general search that certified an optimum within the cap (None:
        none did)."""
        for g in self._generals:
            if g.solved and self._within(g):
                return g
        return None

    def _best(self):
        """The search whose tree is returned: the one that certified, else the
        least value within the cap (the engine's on ties; None: no tree)."""
        g = self._answering()
        if g is not None:
            return g
        if self.engine is not None and self.engine.stats_ready:
            if self.engine.solved:
                return self.engine
            best = self.engine
        else:
            best = None
        for g in self._generals:
            if self._within(g) and (best is None
                                    or g.upper_bound < best.upper_bound - TOL):
                best = g
        return best

    @property
    def returns_stage(self):
        """Whether the tree returned is the engine's."""
        best = self._best()
        return best is None or best is self.engine

    @property
    def upper_bound(self):
        best = self._best()
        return float("inf") if best is None else best.upper_bound

    @property
    def solved(self):
        best = self._best()
        return best is not None and bool(best.solved)

    @property
    def lower_bound(self):
        best = self._best()
        if best is not None and best.solved:
            return best.lower_bound
        ran = self._generals + ([self.engine] if self.engine is not None
                                and self.engine.stats_ready else [])
        bounds = [r.lower_bound for r in ran
                  if r.lower_bound is not None and r.lower_bound > -float("inf")]
        return max(bounds) if bounds else None

    def extract(self):
        return self._best().extract()

    def stats(self):
        """The statistics of the search whose tree is returned, with the
        general searches' beside them (``cap_probe``: whether the first
        certified, its tree's leaves, its expansions and seconds, whether a
        general search answered, and whether it ran again after the engine),
        the seconds of all."""
        st = self._best().stats()
        st["seconds"] = self._seconds
        first = self._generals[0]
        p = first.stats()
        st["cap_probe"] = {"certified": bool(first.solved), "leaves": self._tree_leaves(first),
                           "expansions": p["expansions"], "seconds": p["seconds"],
                           "answered": self._answering() is not None,
                           "ran_again": len(self._generals) > 1}
        return st

    def check_keys(self):
        return self._generals[-1].check_keys() if self._generals else None
