"""The split spaces a fit searches, built from its data: the general search's
row bitsets (as many thresholds as the memory limit leaves room for), the
depth-limited engine's sorted columns, the classes of a weighted fit, the
regressor's flipped binary columns, and where each search pays.  The planner
(`fst._plan`) chooses among them."""
from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from ._core._limits import process_rss
from ._core._problem import build_problem, column_split_counts, rank_space
from ._engine import MAX_ENGINE_CLASSES, MAX_ENGINE_DEPTH, engine_space

__all__ = ["search_space", "split_space_bytes", "max_splits", "weight_classes",
           "binary_flips", "general_search_pays", "squares_general_pays"]

# Distinct (class, sample weight) pairs a weighted fit may have: each becomes a
# class of the search (`weight_classes`), and the pair stage counts at most 64
# classes.
MAX_WEIGHT_CLASSES = 64

# Columns with at least this many thresholds on average are continuous: under
# max_depth a fit of them goes to the depth-limited engine, whose passes over
# sorted rows beat the row bitsets there; binary or binned columns (fewer) stay
# with the bitset search and its pair stage's word-parallel counts.
CONTINUOUS_MIN_THRESHOLDS = 8

# Without max_depth on continuous columns the general search follows the engine
# by leaf budget only where its row bitsets, one a threshold, take at most this
# many bytes a row and column (`general_search_pays`): a bitset holds a bit a
# row, so this caps the thresholds a column at eight times as many on average.
# On continuous columns a column has a threshold about every row, so the bitsets
# grow as the square of the rows, and each expansion of the general search reads
# every split's; past the cap the fit runs the engine alone, deepening by leaf
# budget, in memory linear in rows x columns.
GENERAL_BITS_PER_CELL = 256

# The regressor's general search (`SquaresGeneralSearch`) runs on binary or
# binned columns where its store's keys (a bit a row) and its row bitsets (a
# bit a row a threshold) stay small: at most this many rows and thresholds
# (`squares_general_pays`) ...
SQUARES_MAX_ROWS = 1 << 16
SQUARES_MAX_SPLITS = 1 << 16
# ... and rows times columns (with fewer than CONTINUOUS_MIN_THRESHOLDS a
# column, the bitsets take under a byte a cell: 4 MB at this many)
SQUARES_MAX_CELLS = 1 << 22


def search_space(X, y_idx, n_classes, weighted_cost, weights, row_weight, memory_limit,
                  own, engine=None, leaf_budget=False, max_depth=None, deadline=-1.0,
                  cap_probe=False):
    """The split space of a fit (`build_problem`, or `engine_space` for the
    depth-limited engine: `engine` True, False or None to decide here), and what
    the estimator needs to read its results (`FitPlan.space`).

    Under max_depth, continuous columns (at least CONTINUOUS_MIN_THRESHOLDS
    thresholds a column on average) go to the engine, whose passes over sorted
    rows beat the row bitsets there, and so does a space whose bitsets would not
    fit (the engine never drops a threshold); binary or binned columns stay with
    the bitset search and its pair stage.  Without max_depth (`leaf_budget`),
    continuous columns whose bitsets all fit get the engine's space too, for the
    leaf budget's search that runs first (``stage``, else None), and where
    they would not pay (`general_search_pays`; or not all fit) the engine's space
    alone, searched by leaf budget without the general search.

    Under a leaf cap (`engine` True) with `cap_probe`, binary or binned
    columns whose bitsets all fit (and weights the bitset search counts) get the
    bitset space too, for the general search's first run without the cap
    (`CapProbeSearch`): the bitset space is then ``problem`` and the engine's
    ``stage``.

    Sample weights: the engine counts each row's weight (class sums of weights),
    the bitset search one class per distinct (class, weight) pair
    (`weight_classes`, at most MAX_WEIGHT_CLASSES).  A weighted fit with more
    pairs runs on the engine alone (``engine_only``): under max_depth as any
    engine fit, without it by leaf budget to the engine's deepest search.

    Raises PreparationStopped when the fit's deadline (`clock` seconds, < 0:
    none) passes while the columns are ranked."""
    X_search = X if row_weight is None else np.ascontiguousarray(X[row_weight > 0])
    ranked = rank_space(X_search, deadline)
    n_splits = int(column_split_counts(ranked.values).sum())
    most = max_splits(n_splits, X_search.shape[0], memory_limit, own.get("split_bytes"))
    continuous = n_splits >= CONTINUOUS_MIN_THRESHOLDS * max(X_search.shape[1], 1)
    if row_weight is None:
        y_rows, w_rows = y_idx, None
        pairs = (np.arange(n_classes), np.ones(n_classes), y_idx)
    else:
        keep = row_weight > 0
        y_rows, w_rows = y_idx[keep], row_weight[keep]
        pairs = weight_classes(y_rows, w_rows, n_classes)
    engine_only = pairs is None
    # the engine counts at most MAX_ENGINE_CLASSES classes: more go to the bitset
    # search, under max_depth as without it, and no leaf budget's stage runs
    engine_counts = n_classes <= MAX_ENGINE_CLASSES
    if engine_only and not engine_counts:
        raise ValueError(
            f"sample_weight has more than {MAX_WEIGHT_CLASSES} distinct (class, weight) "
            f"pairs and y has {n_classes} classes: the general search takes at most "
            f"{MAX_WEIGHT_CLASSES} pairs (each is one of its classes) and the "
            f"depth-limited engine, which counts any weights, at most "
            f"{MAX_ENGINE_CLASSES} classes. Round or group the weights.")
    if not engine_counts:
        if engine:
            raise ValueError(f"the depth-limited engine counts at most "
                             f"{MAX_ENGINE_CLASSES} classes; y has {n_classes}")
        engine = False
    if leaf_budget and continuous and engine_counts and not engine_only:
        follows = own.get("general_search")
        if follows is None:
            follows = most is None and general_search_pays(n_splits, *X_search.shape)
        if not follows:
            # the engine by leaf budget alone: no bitsets
            engine = True
    if engine_only:
        if max_depth is not None and (engine is False or max_depth > MAX_ENGINE_DEPTH):
            raise ValueError(
                f"sample_weight has more than {MAX_WEIGHT_CLASSES} distinct (class, "
                f"weight) pairs: only the depth-limited engine (max_depth <= "
                f"{MAX_ENGINE_DEPTH}) counts any weights; the general search takes "
                f"at most {MAX_WEIGHT_CLASSES} pairs (each is one of its classes). "
                "Round or group the weights, or lower max_depth.")
        engine = True
    probe = (cap_probe and engine and not (continuous or engine_only or most is not None)
             and engine_counts)
    if probe:
        engine = False
    if engine is None:
        engine = continuous or most is not None
    if engine:
        most = None        # the engine keeps every threshold

    def engine_problem():
        # rows ranked and sorted per column, each row's own weight: no bitsets
        pr = engine_space(ranked, y_rows, n_classes, weighted_cost)
        if w_rows is not None:
            # a row of weight w and class c costs w * weighted_cost[c, j] / sum(w):
            # the space divides by its row count, so the weights are scaled to
            # a mean of one
            pr = replace(pr, row_weight=w_rows * (len(w_rows) / w_rows.sum()))
        return pr, (np.arange(n_classes), weights, w_rows)

    stage = stage_classes = None
    if engine:
        problem, classes = engine_problem()
    else:
        pc_label, pc_w, pc_of_row = pairs
        pc_weight = pc_w * weights[pc_label]
        if row_weight is None:
            cost_search = weighted_cost
        else:
            # A row of weight w and class c costs w * weighted_cost[c, j] / sum(w);
            # the spaces divide by their row count, so the scale is applied here.
            scale = len(w_rows) / w_rows.sum()
            cost_search = (pc_w * scale)[:, None] * weighted_cost[np.ix_(pc_label, pc_label)]
        # The splits' row bitsets are filled by the search as it reads them
        # (`split_row`), or all first with the `eager_bits` override.
        problem = build_problem(ranked, pc_of_row, len(pc_label), cost_search, most,
                                fill=bool(own.get("eager_bits", False)), deadline=deadline)
        classes = (pc_label, pc_weight, None)
        if probe or (leaf_budget and continuous and most is None and engine_counts):
            stage, stage_classes = engine_problem()
            if not np.array_equal(stage.col_start, problem.col_start):
                raise RuntimeError("fst internal error: the engine's and the general "
                                   "search's splits are numbered differently")
    return SimpleNamespace(problem=problem, classes=classes, n_splits=n_splits,
                           max_splits=most, n_rows=X_search.shape[0], engine=bool(engine),
                           stage=stage, stage_classes=stage_classes,
                           engine_only=engine_only)


def general_search_pays(n_splits, n_rows, n_cols):
    """Whether the general search follows the engine by leaf budget on a space of
    n_splits thresholds over n_rows rows and n_cols columns: its row bitsets take
    at most GENERAL_BITS_PER_CELL bytes a row and column."""
    return split_space_bytes(n_splits, n_rows) <= GENERAL_BITS_PER_CELL * n_rows * max(n_cols, 1)


def squares_general_pays(n_rows, n_splits, n_cols):
    """Whether the regressor's general search runs beside its engine by leaf
    budget: on binary or binned columns (fewer than CONTINUOUS_MIN_THRESHOLDS
    thresholds a column on average), of at most SQUARES_MAX_ROWS rows,
    SQUARES_MAX_SPLITS thresholds and SQUARES_MAX_CELLS rows times columns.
    On continuous columns its children's bounds (two leaves' price; the
    k-segmentation floor, tried) prune too little against a threshold at
    nearly every row, and the engine alone, whose sorted passes bound the
    thresholds between two valued ones, certifies sooner and ends a stopped
    fit with the better tree."""
    return (n_splits < CONTINUOUS_MIN_THRESHOLDS * max(n_cols, 1)
            and n_rows <= SQUARES_MAX_ROWS and n_splits <= SQUARES_MAX_SPLITS
            and n_rows * n_cols <= SQUARES_MAX_CELLS)


def split_space_bytes(n_splits, n_rows):
    """Bytes of the row bitsets of n_splits thresholds over n_rows rows."""
    return int(n_splits) * ((int(n_rows) + 63) // 64) * 8


def max_splits(n_splits, n_rows, memory_limit, split_bytes=None):
    """None when the row bitsets of all n_splits thresholds fit, else how many fit.

    They fit when they take at most half of what memory_limit (bytes of the
    process, 0: none) leaves above the memory the process already holds; the
    other half is for the search's store.  `split_bytes` (a test hook) replaces
    that share by a fixed number of bytes."""
    if split_bytes is None:
        if memory_limit <= 0:
            return None
        rss = process_rss()
        split_bytes = (memory_limit - max(rss, 0)) // 2
    per_split = split_space_bytes(1, n_rows)
    if split_space_bytes(n_splits, n_rows) <= split_bytes or per_split == 0:
        return None
    return max(int(split_bytes) // per_split, 0)


def weight_classes(y_idx, w, n_classes):
    """The classes of a weighted search: one per distinct (class, weight) pair of
    the rows, in that order, plus one without rows for each class no row of
    positive weight has (so every label can still be predicted).  A leaf's loss
    is linear in its rows' weights, so counting rows per pair and costing pair
    (c, w) predicted as pair (c', w') at w * cost[c, c'] gives the weighted loss
    exactly, and every bound of the search (all stated for a nonnegative cost
    matrix) holds.  Returns (label of each pair, weight of each pair, pair of
    each row), or None when there are more than MAX_WEIGHT_CLASSES."""
    pairs, pc_of_row = np.unique(np.column_stack([y_idx.astype(np.float64), w]),
                                 axis=0, return_inverse=True)
    missing = np.setdiff1d(np.arange(n_classes), pairs[:, 0].astype(np.intp))
    if len(pairs) + len(missing) > MAX_WEIGHT_CLASSES:
        return None
    label = np.concatenate([pairs[:, 0].astype(np.intp), missing])
    weight = np.concatenate([pairs[:, 1], np.zeros(len(missing))])
    return label, weight, pc_of_row.reshape(-1).astype(np.intp)


def binary_flips(ranked):
    """Which columns of binary columns the regressor searches negated, and
    negate them in `ranked` (a `rank_space`): on columns of two values each (no
    NaN), the sums of a node of depth two to four add each row to every pair,
    triple and quadruple of the columns whose split sends it left
    (`_squares.solve_sums`), so a column whose lower value most rows hold is
    searched negated, its split then sending the fewer rows left.  A negated
    column's ranks are exchanged, its rows reordered with the new rank 0 first
    (each rank's rows still by row index) and its values negated.  The same trees are
    valued (a split's two sides exchanged), and the tree is written back on the
    raw column.  None: no column flipped (a column with NaN or more than two
    values, or none worth it)."""
    values = ranked.values
    if any(has_nan or len(v) > 2 for v, has_nan in values):
        return None
    n = ranked.row_rank.shape[1]
    two = np.array([j for j, (v, _) in enumerate(values) if len(v) == 2], dtype=np.intp)
    if not len(two):
        return None
    low = (ranked.row_rank[two] == 0).sum(axis=1)
    flip = np.zeros(len(values), dtype=bool)
    flip[two[2 * low > n]] = True
    if not flip.any():
        return None
    for j, c in zip(two, low):
        if flip[j]:
            ranked.row_rank[j] = 1 - ranked.row_rank[j]
            order = ranked.col_order[j].copy()
            ranked.col_order[j, :n - c] = order[c:]
            ranked.col_order[j, n - c:] = order[:c]
            v = values[j][0]
            values[j] = ((-v[::-1]).astype(v.dtype), False)
    return flip
