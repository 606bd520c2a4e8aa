"""The plan of a fit: from the data and the parameters, which search runs on which
split space, with which incumbents and fallbacks, and what bound a stop reports.

The estimators validate their parameters and the data, call `plan_fit`, run the
plan and export its tree; no search policy lives in them.  Both searches (the
general search, `fst._core._solver.Search`, and the depth-limited engine,
`fst._engine.EngineSearch`) are built here from one configuration
(`fst._core._config.make_config`) and read through one interface: `run`,
`extract`, `upper_bound`, `lower_bound`, `solved`, `stats`, `set_reporter`.
"""
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ._core._config import make_config
from ._core._limits import clock, effective_n_threads
from ._core._problem import column_split_counts, rank_space
from ._core._solver import Search
from ._engine import (MAX_ENGINE_CLASSES, MAX_ENGINE_DEPTH, EngineSearch,
                      SquaresGeneralSearch,
                      engine_space, loss_floor)
from ._fallbacks import (DPDT_TIME_SHARE, FALLBACK_DEPTH, FALLBACK_TIME_SHARE,
                         LEAST_FALLBACK_SECONDS, bounded_cart, depth_fallback_fit,
                         time_left_after_trial)
from ._leaf_budget import (LEAF_BUDGET_DEPTH, LEAF_BUDGET_LAST_SHARE,
                           LEAF_BUDGET_TIME_SHARE, SQUARES_PROBE_WORK, CapProbeSearch,
                           LeafBudgetSearch)
from ._spaces import binary_flips, search_space, squares_general_pays
from ._utils import floor_below, min_leaf_rows

__all__ = ["plan_fit", "plan_regression", "FitPlan", "RegressionPlan"]

# Private overrides the plan itself reads (`_overrides` of an estimator); every
# other key goes to the search's configuration (`make_config`, which rejects
# unknown keys): `split_bytes`, the bytes the split space may take (the share of
# memory_limit otherwise); `eager_bits`, fill every split's row bitset before
# the search; `check_keys`, rebuild every stored key after it
# (`search_stats_['key_check']`); `depth_engine`, whether a max_depth fit runs
# the depth-limited engine (None: decided by the split space); `engine_deepen`,
# whether the engine deepens one level at a time; `leaf_budget_stage`, whether a
# fit without max_depth on continuous columns runs the engine by leaf budget
# first (`LeafBudgetSearch`), `leaf_budget_depth` its deepest search, and
# `leaf_budget_probe` whether a short first run of the general search (at most
# PROBE_WORK of its work) comes before it; `leaf_budget_deepen`, the depth to
# which that engine deepens even where its deepest search could not certify
# (True: to its deepest; off: none, the deeper trees left to the general
# search); `general_search`, whether the general search follows the engine
# there (None: where its row bitsets pay, `_spaces.general_search_pays`); `pair_sums`,
# the engine solving nodes on binary columns from their columns' sums (squared
# error, or at most fifteen classes);
# `engine_memo`, the engine's store of searched nodes under a leaf cap;
# `rising_bound`, its deepest search under a leaf cap proving its bound above
# budgets below its seed first (`EngineSearch._rise`); `subset_bound`, a search
# under a leaf cap that lags making way for a bound from a subset of the rows
# (`EngineSearch._subset_bound`);
# `flip_binary`, the regressor searching binary columns negated where most rows
# hold the lower value (`binary_flips`); `cap_probe`, under a leaf cap at
# lam > 0 on binary or binned columns, the general search's first run without
# the cap (`CapProbeSearch`).
PLAN_OVERRIDES = ("split_bytes", "eager_bits", "check_keys", "depth_engine",
                  "engine_deepen", "leaf_budget_stage", "leaf_budget_depth",
                  "leaf_budget_probe", "leaf_budget_deepen", "general_search",
                  "pair_sums", "engine_memo", "rising_bound", "subset_bound", "flip_binary",
                  "cap_probe")

# The statistics every search reports in `search_stats_`, whichever runs (each
# adds its own): the search ('general' or 'depth'), nodes created, expansions
# (the engine's: root splits valued), the threads and each one's expansions and
# nodes, seconds, peak resident memory; the plan adds the thresholds of the
# space and searched, the memory limit in effect, min_samples_leaf in rows and
# max_leaf_nodes (0: none).
COMMON_STATS = ("engine", "nodes_created", "expansions", "threads", "expansions_per_thread",
                "nodes_per_thread", "seconds", "peak_rss_bytes", "n_splits",
                "n_splits_searched", "memory_limit", "min_leaf", "max_leaves")

class _Plan:
    """What the plans of both estimators share: the split space and the search,
    its configuration, the estimator's parameters, the fit's deadline (a
    `clock` time, None: no time limit), and the statistics a fit records."""

    def __init__(self, space, search, config, params, deadline=None):
        self.space = space
        self.search = search
        self.config = config
        self._params = params
        self._deadline = deadline

    def seconds_left(self, share):
        """Seconds for a fallback given `share` of the fit's time limit: that
        share, or what is left before the fit's deadline when less (0: none);
        None without a time limit."""
        if self._params["time_limit"] is None:
            return None
        seconds = float(self._params["time_limit"]) * share
        if self._deadline is not None:
            seconds = min(seconds, self._deadline - clock())
        return max(seconds, 0.0)

    def _splits_searched(self):
        """The thresholds the search took (all of the space's unless a subclass
        says otherwise)."""
        return int(self.space.n_splits)

    def stats(self):
        """The search's statistics with the plan's: thresholds of the full space
        and searched, the memory limit in effect, the rows a leaf holds at least
        (``min_leaf``: min_samples_leaf in rows), the leaf cap (0: none)."""
        st = self.search.stats()
        st["n_splits"] = int(self.space.n_splits)
        st["n_splits_searched"] = self._splits_searched()
        st["memory_limit"] = self.config["memory_limit"]
        st["min_leaf"] = int(self.config["min_leaf"])
        st["max_leaves"] = int(self.config["max_leaves"])
        return st


class FitPlan(_Plan):
    """One FastSmallTreeClassifier fit's search and what surrounds it.

    Attributes
    ----------
    space : SimpleNamespace
        ``problem`` (the split space the search runs on), ``classes`` (the
        label and weight of each class of the search, one per (class, sample
        weight) pair of a weighted bitset search, and each row's weight where
        the engine counts them: `tree_classes`), ``n_splits`` (thresholds of
        the full space), ``max_splits`` (how many the memory limit lets the
        bitset search keep; None: all), ``n_rows``, ``engine``, ``stage`` and
        ``stage_classes`` (the leaf budget's engine space), ``engine_only``.
    search : Search or EngineSearch
    config : dict
        The search's configuration (`make_config`).
    """

    def __init__(self, space, search, config, own, params, deadline=None):
        super().__init__(space, search, config, params, deadline)
        self._own = own
        # DPDT's tree grown while the search ran (`run`), when it was tried
        # there: then it is not tried again at the stop (None: not grown)
        self._dpdt_tried = False
        self._dpdt = None
        # what the stopped fit's depth fallback proved, when it certified its
        # depth's optimum (`fallback_trees`): its tree and value, the bound
        # that gives every tree and whether that value is the optimum
        # (`EngineSearch.depth_optimum_bound`); None otherwise
        self.depth_certificate = None

    def run(self, X=None, y=None, sample_weight=None):
        """Run the search; returns the stop code (0: certified or finished).
        Given the fit's data, a fit by leaf budget whose general search stops at
        its share of the time limit grows DPDT's tree there, so that the general
        search resumes for what DPDT left of the share kept for it
        (`LeafBudgetSearch.interlude`)."""
        if isinstance(self.search, LeafBudgetSearch) and X is not None:
            def interlude():
                self._dpdt = self._dpdt_fit(X, y, sample_weight, LEAF_BUDGET_DEPTH)
                self._dpdt_tried = True
            self.search.interlude = interlude
        return self.search.run()

    @property
    def tree_classes(self):
        """(label of each class of the search, its weight, each row's weight or
        None) of the split space the extracted tree refers to (`tree_problem`):
        what `fst._export.build_estimator` reads its leaves' counts with."""
        if getattr(self.search, "returns_stage", False):
            return self.space.stage_classes
        return self.space.classes

    @property
    def tree_problem(self):
        """The split space the extracted tree's splits and rows refer to: the
        engine's when the leaf budget's tree is returned (the general search's
        space may hold the rows in another order), else `space.problem`."""
        if getattr(self.search, "returns_stage", False):
            return self.space.stage
        return self.space.problem

    def lower_bound(self):
        """The bound a fit reports: the search's (at a stop, the engine's least
        bound over its root splits or the general search's root bound), or the
        creation bound of all the rows where the search proves nothing for the
        whole space (part of it searched, or no root searched)."""
        bound = self.search.lower_bound
        if self.space.max_splits is not None or bound is None:
            bound = creation_bound(self.space.problem, self.config["regularization"],
                                   self.config["max_depth"])
        return bound

    def _splits_searched(self):
        """The bitset search's thresholds: all, or the row quantiles the memory
        limit leaves room for (`max_splits`)."""
        return int(self.space.problem.n_splits)

    def stats(self):
        """`_Plan.stats`, and the key check when asked."""
        st = super().stats()
        if self._own.get("check_keys", False):
            st["key_check"] = self.search.check_keys()
        return st

    def fallback_trees(self, X, y, sample_weight, status, estimator):
        """The trees a stopped fit returns when they score better: CART's tree of
        the same depth (a stopped depth-limited search), and after a time stop
        DPDT's (grown in the share of the time limit the search left it; without
        max_depth, of depth LEAF_BUDGET_DEPTH).  Yields (name, fitted
        DecisionTreeClassifier).  A fit without max_depth stopped after the
        engine by leaf budget stopped short of FALLBACK_DEPTH also gets the
        depth-limited optimum of that depth, searched in the share of the time
        limit the general search left it; where that search certifies, what it
        proves of every tree is kept in `depth_certificate`.  `estimator`: the
        fitted estimator's class, which makes that depth-limited fit."""
        p = self._params
        if self.config["max_leaves"]:
            # (DPDT's trees do not keep max_leaf_nodes)
            cart = bounded_cart(DecisionTreeClassifier(
                max_depth=p["max_depth"], max_leaf_nodes=self.config["max_leaves"],
                min_samples_leaf=self.config["min_leaf"], class_weight=p["class_weight"],
                random_state=0), X, y, sample_weight, self.seconds_left(1.0))
            if cart is not None:
                yield "cart", cart
            return
        if isinstance(self.search, LeafBudgetSearch):
            if (status == "time_limit" and p["time_limit"] is not None
                    and not self.search.reached(FALLBACK_DEPTH)):
                seconds = self.seconds_left(FALLBACK_TIME_SHARE)
                if seconds >= LEAST_FALLBACK_SECONDS:
                    fit = depth_fallback_fit(self, estimator, X, y, sample_weight, seconds)
                    if fit.optimal_:
                        bound, covers = self.search.stage.depth_optimum_bound(
                            FALLBACK_DEPTH, fit.objective_)
                        self.depth_certificate = SimpleNamespace(
                            estimator=fit.estimator_, value=fit.objective_,
                            bound=bound, covers=covers)
                    yield "depth", fit.estimator_
            yield from self._dpdt_tree(X, y, sample_weight, status, LEAF_BUDGET_DEPTH)
            return
        if not self.space.engine:
            return
        if p["max_depth"] is None:
            # the engine by leaf budget alone (`plan_fit`)
            yield from self._dpdt_tree(X, y, sample_weight, status, LEAF_BUDGET_DEPTH)
            return
        cart = bounded_cart(DecisionTreeClassifier(
            max_depth=p["max_depth"], min_samples_leaf=self.config["min_leaf"],
            class_weight=p["class_weight"], random_state=0),
            X, y, sample_weight, self.seconds_left(1.0))
        if cart is not None:
            yield "cart", cart
        yield from self._dpdt_tree(X, y, sample_weight, status, p["max_depth"])

    def _dpdt_tree(self, X, y, sample_weight, status, max_depth):
        """After a time stop, DPDT's tree of `max_depth` at the fit's lam
        (`_dpdt_fit`), or the one grown while the search ran (`run`).  Yields
        ("dpdt", fitted DecisionTreeClassifier) or nothing."""
        if status != "time_limit":
            return
        tree = (self._dpdt if self._dpdt_tried
                else self._dpdt_fit(X, y, sample_weight, max_depth))
        if tree is not None:
            yield "dpdt", tree

    def _dpdt_fit(self, X, y, sample_weight, max_depth):
        """DPDT's tree of `max_depth` at the fit's lam (its leaves priced as the
        objective prices them), grown in the share of the time limit kept for it
        (DPDT_TIME_SHARE) when it is predicted to end there; None where it is
        not grown (no time limit, min_samples_leaf, too little time)."""
        p = self._params
        if p["time_limit"] is None or self.config["min_leaf"] > 1:
            return None     # (DPDT's trees do not keep min_samples_leaf)
        from ._dpdt import DPDTClassifier
        lam = self.config["regularization"]

        def dpdt_fit(seconds):
            dpdt = DPDTClassifier(
                max_depth=max_depth, complexity="leaves", alphas=[lam], alpha=lam,
                cost_matrix=p["cost_matrix"], class_weight=p["class_weight"],
                time_limit=seconds, memory_limit=self.config["memory_limit"] or None,
                n_jobs=p["n_jobs"])
            # a DPDT stopped at its own limit still returns real trees: it does
            # not warn (quiet by attribute, not by catching warnings, which is
            # not safe where fits run in threads)
            dpdt._report_stops = False
            return dpdt

        # DPDT's time limit holds for its whole fit, but a DPDT stopped early
        # returns little (its ranking stopped: the leaf): it runs when the
        # trial predicts its whole fit ends in the share kept for it
        share = self.seconds_left(DPDT_TIME_SHARE)
        seconds = time_left_after_trial(lambda: dpdt_fit(share), X, y, sample_weight, share)
        if seconds < LEAST_FALLBACK_SECONDS:
            return None
        dpdt = dpdt_fit(seconds)
        dpdt.fit(X, y, sample_weight=sample_weight)
        return dpdt.estimator_


def _fit_deadline(params, started):
    """The `clock` time by which the whole fit ends: its start plus its time
    limit (None: no time limit, or no start given)."""
    if params["time_limit"] is None or started is None:
        return None
    return started + float(params["time_limit"])


def _searches_time_limit(params, deadline):
    """The searches' time limit: the seconds preparation left before the
    fit's deadline, or the whole limit where no deadline runs (None: none)."""
    if params["time_limit"] is None:
        return None
    if deadline is None:
        return float(params["time_limit"])
    return max(deadline - clock(), 0.0)


def _leaf_budget_stage(space, config, time_limit, own, keep_deepening, memo):
    """The depth-limited engine by leaf budget that runs before the general
    search without max_depth (`LeafBudgetSearch`): LEAF_BUDGET_TIME_SHARE of
    the time limit, its last depth LEAF_BUDGET_LAST_SHARE, to depth
    LEAF_BUDGET_DEPTH (or the `leaf_budget_depth` override); memo: its
    searches keep the nodes they searched (`EngineSearch`)."""
    stage_config = dict(config)
    if time_limit is not None:
        stage_config["time_limit"] = time_limit * LEAF_BUDGET_TIME_SHARE
    return EngineSearch(space, stage_config,
                        depth_cap=own.get("leaf_budget_depth", LEAF_BUDGET_DEPTH),
                        keep_deepening=keep_deepening,
                        pair_sums=own.get("pair_sums", True), memo=memo,
                        last_time_limit=(None if time_limit is None
                                         else time_limit * LEAF_BUDGET_LAST_SHARE))


def plan_fit(data, params, overrides, memory_limit, started=None):
    """The plan of a FastSmallTreeClassifier fit.

    data is the fit's prepared data (`fst._utils.prepare_fit`: the float32 X,
    each row's class, the class weights, the class-weighted cost, the sample
    weights); params the estimator's validated parameters (``regularization``
    and `fst._utils.FIT_PARAMS`); overrides the private ones; memory_limit the
    bytes in effect (0: none); started the `clock` time the fit began: the time
    limit holds for the whole fit, so the searches get what preparation left."""
    overrides = dict(overrides or {})
    own = {k: overrides.pop(k) for k in PLAN_OVERRIDES if k in overrides}
    max_depth = params["max_depth"]
    max_leaves = params.get("max_leaf_nodes")
    if max_leaves is None:
        engine = _engine_choice(max_depth, own.get("depth_engine"))
    else:
        # only the depth-limited engine searches under a leaf cap, at the depth
        # the cap allows (a tree of k leaves has depth at most k - 1)
        if data.n_classes > MAX_ENGINE_CLASSES:
            raise ValueError(
                f"max_leaf_nodes is searched by the depth-limited engine, which counts "
                f"at most {MAX_ENGINE_CLASSES} classes; y has {data.n_classes}.")
        if own.get("depth_engine") is False:
            raise ValueError("max_leaf_nodes needs the depth-limited engine")
        engine = True
        max_depth = max_leaves - 1 if max_depth is None else min(max_depth, max_leaves - 1)
    deadline = _fit_deadline(params, started)
    space = search_space(data.X, data.y_idx, data.n_classes, data.weighted_cost,
                          data.class_w, data.row_weight, memory_limit, own, engine,
                          leaf_budget=(max_depth is None and params["regularization"] > 0
                                       and own.get("leaf_budget_stage", True)),
                          max_depth=None if max_leaves is not None else max_depth,
                          deadline=-1.0 if deadline is None else deadline,
                          cap_probe=(max_leaves is not None and params["regularization"] > 0
                                     and own.get("cap_probe", True)))
    time_limit = _searches_time_limit(params, deadline)
    min_leaf = min_leaf_rows(params.get("min_samples_leaf", 1), space.n_rows)
    config = make_config(
        overrides,
        regularization=float(params["regularization"]), max_depth=max_depth,
        min_leaf=min_leaf, max_leaves=max_leaves or 0,
        n_threads=effective_n_threads(params["n_jobs"]),
        time_limit=time_limit, memory_limit=memory_limit,
        # The ladder's end at half the memory limit would make the default
        # search's path depend on the machine's memory: under 'auto' the path
        # is that of no limit, and only the stop is added.
        ladder_bytes=0 if params["memory_limit"] == "auto" else -1)
    if max_leaves is not None:
        search = _capped_search(space, config, params, own, time_limit)
    elif space.stage is not None:
        # its searches keep the nodes they searched, and read the similar
        # node's bound from them (breast_cancer at lam = 0.02: 3,825 nodes
        # against 5,656)
        stage = _leaf_budget_stage(space.stage, config, time_limit, own,
                                   keep_deepening=own.get("leaf_budget_deepen", False),
                                   memo=own.get("engine_memo", True))

        def general(left):
            return Search(space.problem, dict(config, time_limit=left))

        search = LeafBudgetSearch(stage, general, time_limit,
                                  probe=own.get("leaf_budget_probe", True),
                                  work_limit=config["work_limit"])
    elif space.engine and max_depth is None:
        # weights the general search cannot count, or continuous columns whose
        # row bitsets do not pay (`_spaces.search_space`): the engine by leaf budget
        # alone, deepening to its deepest search where the budget is not reached
        # (each depth's optimum a better incumbent, each finished depth a higher
        # bound), in the share of the time limit DPDT's tree leaves
        if not params["regularization"] > 0:
            raise ValueError(
                "sample_weight with more than 64 distinct (class, weight) pairs needs "
                "max_depth or a positive regularization (only the depth-limited engine "
                "counts such weights)")
        engine_config = dict(config)
        if time_limit is not None:
            engine_config["time_limit"] = time_limit * (1.0 - DPDT_TIME_SHARE)
        # no store of searched nodes: on these large tables a node's rows are
        # many and the store grew by 140 MB without a gain where measured
        # (make_classification, 8,000 and 32,000 rows, lam = 0.01)
        search = EngineSearch(space.problem, engine_config, depth_cap=MAX_ENGINE_DEPTH,
                              keep_deepening=True, pair_sums=own.get("pair_sums", True),
                              memo=False)
    elif space.engine:
        # Under a time limit the engine keeps a share of it for DPDT, whose tree a
        # stopped fit returns when it is better (`FitPlan.fallback_trees`).
        engine_config = dict(config)
        if time_limit is not None:
            engine_config["time_limit"] = time_limit * (1.0 - DPDT_TIME_SHARE)
        search = EngineSearch(space.problem, engine_config,
                              deepen=own.get("engine_deepen", True),
                              pair_sums=own.get("pair_sums", True))
    else:
        search = Search(space.problem, config)
    return FitPlan(space, search, config, own, params, deadline)


def _capped_search(space, config, params, own, time_limit):
    """The search under a leaf cap k: the engine with the cap (`EngineSearch`),
    after the general search's first run without it where the space has both
    (`CapProbeSearch`: at lam > 0 on binary or binned columns)."""
    max_leaves = config["max_leaves"]

    def engine(problem, seconds):
        # Under the leaf cap k the trees have depth at most k - 1: when max_depth
        # does not cut below that, the engine deepens by leaf budget (certified
        # at the first depth that holds every tree as good as its incumbent, at
        # most k - 1; above MAX_ENGINE_DEPTH + 1 leaves it deepens to its
        # deepest search, each depth's optimum a better incumbent and a smaller
        # budget, and ends uncertified where even that does not hold them all),
        # else it searches max_depth under the cap.
        capped = dict(config, time_limit=seconds)
        if params["max_depth"] is None or params["max_depth"] >= max_leaves - 1:
            capped["max_depth"] = None
        return EngineSearch(problem, capped, depth_cap=MAX_ENGINE_DEPTH,
                            keep_deepening=True,
                            deepen=own.get("engine_deepen", True),
                            pair_sums=own.get("pair_sums", True),
                            memo=own.get("engine_memo", True),
                            rise=own.get("rising_bound", True),
                            subset=own.get("subset_bound", True))

    if space.stage is None:
        return engine(space.problem, time_limit)

    def general(seconds):
        return Search(space.problem, dict(config, max_leaves=0,
                                          max_depth=params["max_depth"], time_limit=seconds))

    return CapProbeSearch(general, lambda seconds: engine(space.stage, seconds), max_leaves,
                          time_limit, work_limit=config["work_limit"])


def _engine_choice(max_depth, choice):
    """The `depth_engine` override checked: True, False, or None (decided by the
    split space, `_spaces.search_space`)."""
    if max_depth is None or max_depth > MAX_ENGINE_DEPTH:
        if choice:
            raise ValueError(f"the depth-limited engine needs max_depth <= {MAX_ENGINE_DEPTH}")
        return False
    return None if choice is None else bool(choice)


def creation_bound(problem, lam, max_depth):
    """min(leaf, m + 2 lam) of all the rows (a single leaf's value without depth to
    split): a lower bound on every tree, whatever its thresholds, since any tree
    with a split has >= 2 leaves and loses at least the equivalent-points floor m
    (rows with identical features share a leaf).  Computed as the search's
    node creation does (`_search.node_fill_counts`)."""
    counts = np.bincount(problem.y, weights=getattr(problem, "row_weight", None),
                         minlength=problem.n_classes).astype(np.float64)
    leaf = float((counts @ problem.cost).min()) + lam
    if max_depth == 0 or problem.n_rows <= 1:
        return leaf
    floor = floor_below(float(counts @ problem.mincost) + float(np.sum(problem.row_excess)))
    return min(leaf, floor + 2.0 * lam)


class RegressionPlan(_Plan):
    """One FastSmallTreeRegressor fit's search (the depth-limited engine under
    squared error) and what surrounds it: the rows it searches (those of
    positive weight), their scaled targets, the fallback tree.  `engine`: the
    depth-limited engine's search (the search itself, or the first of the
    searches run by leaf budget)."""

    def __init__(self, space, search, config, params, deadline=None, engine=None):
        super().__init__(space, search, config, params, deadline)
        self.engine = search if engine is None else engine

    def run(self):
        return self.search.run()

    def lower_bound(self):
        """The search's bound, or where it proves none (a stop before its root
        was searched) the creation bound of all the rows: the root leaf (its
        scaled loss is 1), or two leaves at least above the loss floor."""
        bound = self.search.lower_bound
        if bound is None:
            lam = self.config["regularization"]
            bound = min(1.0 + lam, loss_floor(self.space) + 2.0 * lam)
        return bound

    def fallback_trees(self, X, y, sample_weight):
        """CART's regression tree under the same constraints, which a stopped
        fit returns when it scores better, when it is predicted to end before
        the deadline (`bounded_cart`).  Where the search runs by leaf budget
        (no max_depth it takes, no max_leaf_nodes) it grows at most the leaves
        of a tree as good as the search's: a tree with more is worse."""
        from sklearn.tree import DecisionTreeRegressor

        p = self._params
        max_leaves = p["max_leaf_nodes"]
        engine = self.engine
        if max_leaves is None and engine.unlimited:
            if not (engine.stats_ready and np.isfinite(self.search.upper_bound)):
                return
            max_leaves = engine.budget_leaves(self.search.upper_bound)
            if max_leaves < 2:
                return
        cart = bounded_cart(DecisionTreeRegressor(
            max_depth=p["max_depth"], min_samples_leaf=self.config["min_leaf"],
            max_leaf_nodes=max_leaves, random_state=0), X, y, sample_weight,
            self.seconds_left(1.0))
        if cart is not None:
            yield "cart", cart


def plan_regression(X, y, row_weight, moments, params, overrides, memory_limit,
                    started=None):
    """The plan of a FastSmallTreeRegressor fit: X float32 (NaN allowed), y
    float64 with a positive weighted variance, row_weight the sample weights or
    None, moments the targets' weighted (mean, variance) (`weighted_moments`);
    params the estimator's validated parameters (``regularization`` and
    FIT_PARAMS).  The rows of weight 0 are left out; the targets are centred
    and scaled so that the single leaf loses 1 (``z = (y - mean) / sqrt(n
    var)``, the weights scaled to a mean of one), so a leaf's squared error in
    the engine is the objective's loss term.  Searched by the depth-limited
    engine: at max_depth (under max_leaf_nodes, at most its depth), or by leaf
    budget without it (regularization > 0, or a leaf cap)."""
    overrides = dict(overrides or {})
    own = {k: overrides.pop(k) for k in PLAN_OVERRIDES if k in overrides}
    lam = float(params["regularization"])
    max_depth = params["max_depth"]
    max_leaves = params.get("max_leaf_nodes")
    keep = None if row_weight is None else row_weight > 0
    X_search = X if keep is None else np.ascontiguousarray(X[keep])
    y_search = y if keep is None else y[keep]
    n = X_search.shape[0]
    w = None if row_weight is None else row_weight[keep] * (n / row_weight[keep].sum())
    mean, var = moments
    deadline = _fit_deadline(params, started)
    ranked = rank_space(X_search, -1.0 if deadline is None else deadline)
    flipped = binary_flips(ranked) if own.get("flip_binary", True) else None
    space = engine_space(ranked, np.zeros(n, dtype=np.int32), 3, np.zeros((3, 3)))
    space = replace(space, row_weight=w, target=(y_search - mean) / np.sqrt(n * var),
                    n_splits=int(column_split_counts(ranked.values).sum()))
    if flipped is not None:
        # the tree is searched on the flipped columns and written on the raw ones:
        # each flipped split's threshold negated (the same midpoint) and its
        # children exchanged (`walk_tree`)
        split_flipped = flipped[space.split_col]
        space = replace(space, flipped_split=split_flipped,
                        thresholds=np.where(split_flipped, -space.thresholds,
                                            space.thresholds))
    time_limit = _searches_time_limit(params, deadline)
    unlimited = (max_depth is None or max_depth > MAX_ENGINE_DEPTH
                 or (max_leaves is not None and max_depth >= max_leaves - 1))
    if unlimited and not (lam > 0 or max_leaves is not None):
        raise ValueError(
            "FastSmallTreeRegressor needs regularization > 0, max_depth <= "
            f"{MAX_ENGINE_DEPTH} or max_leaf_nodes: at regularization=0 every leaf is "
            "free, and only a depth or leaf limit bounds the search.")
    config = make_config(
        overrides, regularization=lam, max_depth=None if unlimited else max_depth,
        min_leaf=min_leaf_rows(params.get("min_samples_leaf", 1), n),
        max_leaves=max_leaves or 0, n_threads=effective_n_threads(params["n_jobs"]),
        time_limit=time_limit, memory_limit=memory_limit)
    if (unlimited and max_leaves is None and lam > 0
            and own.get("general_search",
                        squares_general_pays(n, space.n_splits, X_search.shape[1]))):
        # without max_depth or a leaf cap, on binary or binned columns: the
        # engine by leaf budget to LEAF_BUDGET_DEPTH, then the general search
        # seeded with the engine's tree (`LeafBudgetSearch`, without the
        # general search's first run: on binary columns the engine's shallow
        # depths come from its column sums at once, and the seed they give
        # makes the general search the faster)
        # the engine goes to LEAF_BUDGET_DEPTH even where that could not certify:
        # its optima there are the incumbents the general search's root starts
        # from and the trees a stopped fit returns, and its depth the bound it
        # proves for the deeper trees (`deeper_trees_lower_bound`)
        stage = _leaf_budget_stage(
            space, config, time_limit, own,
            keep_deepening=own.get("leaf_budget_deepen",
                                   own.get("leaf_budget_depth", LEAF_BUDGET_DEPTH)),
            memo=False)

        def general(left):
            return SquaresGeneralSearch(space, dict(config, time_limit=left), stage)

        search = LeafBudgetSearch(stage, general, time_limit,
                                  probe=own.get("leaf_budget_probe", False),
                                  work_limit=config["work_limit"], reserve=DPDT_TIME_SHARE)
        return RegressionPlan(space, search, config, params, deadline, engine=stage)

    def engine(seconds):
        # the engine alone: under max_depth or max_leaf_nodes, or without them
        # on continuous columns (or where the general search's store would not
        # pay), deepening to its deepest search where the leaf budget is not
        # yet reached
        return EngineSearch(space, dict(config, time_limit=seconds),
                            deepen=own.get("engine_deepen", True),
                            depth_cap=own.get("leaf_budget_depth", MAX_ENGINE_DEPTH),
                            keep_deepening=True, pair_sums=own.get("pair_sums", True),
                            memo=own.get("engine_memo", True) and max_leaves is not None,
                            rise=own.get("rising_bound", True),
                            subset=own.get("subset_bound", True))

    if (unlimited and max_leaves is not None and lam > 0 and own.get("cap_probe", True)
            and squares_general_pays(n, space.n_splits, X_search.shape[1])):
        # under a leaf cap at lam > 0 on binary or binned columns, the general
        # search without the cap first (`CapProbeSearch`)
        def general(seconds):
            return SquaresGeneralSearch(space, dict(config, max_leaves=0, time_limit=seconds))

        search = CapProbeSearch(general, engine, max_leaves, time_limit,
                                work_limit=config["work_limit"],
                                probe_work=SQUARES_PROBE_WORK)
    else:
        search = engine(time_limit)
    return RegressionPlan(space, search, config, params, deadline)
