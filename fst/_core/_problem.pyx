# cython: wraparound=True, boundscheck=True
"""The split space of a fit: sorted columns, thresholds and row bitsets.

# Notes:
# - Thresholds are built on float32 values, as sklearn predicts with
#   float32(x) <= threshold(float64): for consecutive distinct float32 values
#   u < v the threshold is float64(u)/2 + float64(v)/2, so x32 <= t <=> x32 <= u
#   for every training value and the exported tree routes rows as the solver did.
# - NaN ranks above every number and goes right at every split; a column with
#   NaN and finite values has one more split, "finite left, NaN right", whose
#   threshold is +inf (the same convention as sklearn's own missing-value split).
# - Split k of a column sends ranks <= k left; splits are numbered column by
#   column in increasing threshold, which the search relies on (nested left sides).
# - Bit i of word i // 64 of a bitset is row i; bits past n are zero.
"""
from types import SimpleNamespace

import numpy as np
cimport cython
cimport numpy as cnp
from libc.string cimport memcpy, memset
from libc.stdint cimport int32_t, uint64_t

from ._typedefs cimport word_t, int64_t, uint8_t
from ._columns import order_by_rank, rank_columns, row_groups

cnp.import_array()


class Problem:
    """Arrays the compiled search reads; built once per fit by `build_problem`."""


def _pack_rows(masks, n_words):
    """Pack boolean rows (m, n) into (m, n_words) uint64 bitsets, bit i = row i."""
    m, n = masks.shape
    packed = np.packbits(masks, axis=1, bitorder="little")
    out = np.zeros((m, n_words * 8), dtype=np.uint8)
    out[:, : packed.shape[1]] = packed
    return np.ascontiguousarray(out.view("<u8").astype(np.uint64, copy=False))


def rank_space(X32, deadline=-1.0):
    """The columns of X32 ranked once per fit (`_columns.rank_columns`): a
    namespace of ``values`` (per column its distinct finite values, sorted, and
    whether it holds NaN: what its thresholds are made of), ``row_rank`` (p, n),
    ``col_order`` (p, n) and ``n_ranks`` (per column, its distinct values with
    NaN counted as one).  Raises PreparationStopped when the deadline (`clock`
    seconds, < 0: none) passes."""
    values, row_rank, col_order = rank_columns(np.ascontiguousarray(X32, dtype=np.float32),
                                               deadline)
    n_ranks = np.array([len(v) + bool(has_nan) for v, has_nan in values], dtype=np.int32)
    return SimpleNamespace(values=values, row_rank=row_rank, col_order=col_order,
                           n_ranks=n_ranks)


def column_split_counts(values):
    """Thresholds of each column of the full split space: one between each pair of
    consecutive distinct float32 values, plus "finite left, NaN right" when the
    column holds both (values: a `rank_space`'s).  Cheap (no row bitsets): it
    sizes the space before `build_problem` allocates n_splits x n_words words
    for it."""
    return np.array([max(len(v) - 1, 0) + (1 if has_nan and len(v) > 0 else 0)
                     for v, has_nan in values], dtype=np.int64)


def _quota(counts, max_splits):
    """Thresholds kept per column when the space holds at most max_splits.  Every
    column with thresholds keeps one while the total allows (else the columns
    with the most keep one each); the rest are shared in proportion to what
    each column has beyond that, by largest remainders."""
    counts = np.asarray(counts, dtype=np.int64)
    max_splits = int(max_splits)
    if int(counts.sum()) <= max_splits:
        return counts.copy()
    base = np.minimum(counts, 1)
    if int(base.sum()) > max_splits:
        keep = np.zeros_like(counts)
        keep[np.argsort(-counts, kind="stable")[:max_splits]] = 1
        return keep
    more = counts - base
    share = more * (max_splits - int(base.sum())) / max(int(more.sum()), 1)
    extra = np.floor(share).astype(np.int64)
    left = max_splits - int(base.sum()) - int(extra.sum())
    extra[np.argsort(-(share - extra), kind="stable")[:left]] += 1
    return base + np.minimum(extra, more)


def _kept_gaps(rank, n_values, k):
    """k of the n_values - 1 gaps between a column's consecutive distinct values,
    at row quantiles: gap g (between values g and g + 1) is the first whose rows
    at or below it reach i / (k + 1) of the column's finite rows, i = 1..k."""
    finite = rank[rank < n_values]
    if k >= n_values - 1:
        return np.arange(n_values - 1)
    cum = np.cumsum(np.bincount(finite, minlength=n_values))[:-1]   # rows <= gap g
    targets = (np.arange(1, k + 1) * len(finite)) / (k + 1)
    gaps = np.unique(np.minimum(np.searchsorted(cum, targets, side="left"),
                                n_values - 2))
    if len(gaps) < k:      # ties of the quantiles: fill with the gaps left, in order
        rest = np.setdiff1d(np.arange(n_values - 1), gaps)
        gaps = np.sort(np.concatenate([gaps, rest[: k - len(gaps)]]))
    return gaps


def _all_thresholds(pr, values):
    """Every column's thresholds, as `_column_space` numbers them, at once: the
    midpoints of its consecutive distinct values, then +inf where it holds NaN
    and a number.  Sets thresholds, split_col, col_start and n_splits on pr."""
    p = len(values)
    n_values = np.fromiter((len(v) for v, _ in values), dtype=np.int64, count=p)
    nan_split = np.fromiter((bool(has_nan) for _, has_nan in values), dtype=bool,
                            count=p) & (n_values > 0)
    per_col = np.maximum(n_values - 1, 0) + nan_split
    col_start = np.zeros(p + 1, dtype=np.int32)
    np.cumsum(per_col, out=col_start[1:])
    n_splits = int(col_start[-1])
    thresholds = np.full(n_splits, np.inf)
    if n_splits:
        v64 = np.concatenate([v for v, _ in values]).astype(np.float64)
        # the midpoint of each pair of neighbours within a column (a pair across
        # two columns' boundary is dropped)
        mid = v64[:-1] / 2.0 + v64[1:] / 2.0
        within = np.ones(len(mid), dtype=bool)
        ends = np.cumsum(n_values)[:-1] - 1          # each column's last value
        within[ends[(ends >= 0) & (ends < len(mid))]] = False
        is_nan = np.zeros(n_splits, dtype=bool)
        is_nan[col_start[1:][nan_split] - 1] = True
        thresholds[~is_nan] = mid[within]
    pr.thresholds = thresholds
    pr.split_col = np.repeat(np.arange(p, dtype=np.int32), per_col)
    pr.col_start = col_start
    pr.n_splits = n_splits


def _column_space(pr, ranked, max_splits=None, deadline=-1.0):
    """Per column: value ranks of the rows, rows sorted by rank, thresholds, from
    the columns ranked (`rank_space`).

    Sets on `pr`: row_rank (p, n) int32 (NaN ranks above every number),
    col_order (p, n) int32 (rows by rank, ties by row index), thresholds (float64
    midpoints, +inf for "finite left, NaN right"), split_col, col_start (p + 1)
    and n_splits.  Split k of column j is global split col_start[j] + k and sends
    ranks <= k left.

    With max_splits below the full space's size, each column keeps only some of
    its thresholds (`_quota`; the NaN split first, then gaps at row quantiles,
    `_kept_gaps`), each still the midpoint of two consecutive distinct values,
    and a row's rank is then the number of kept gaps below its value: the
    search sees the columns binned, and every tree it returns routes the
    training rows on the raw values exactly as it scored them.
    """
    values = ranked.values
    p = len(values)
    row_rank = ranked.row_rank
    col_order = ranked.col_order
    thresholds, split_col = [], []
    col_start = np.zeros(p + 1, dtype=np.int32)
    quota = None
    if max_splits is not None:
        quota = _quota(column_split_counts(values), max_splits)
    coarse_ranks = None
    if quota is None:
        _all_thresholds(pr, values)
        if col_order is None:
            col_order = order_by_rank(row_rank, ranked.n_ranks, deadline)
        pr.row_rank = np.ascontiguousarray(row_rank, dtype=np.int32)
        pr.col_order = np.ascontiguousarray(col_order, dtype=np.int32)
        return
    for j in range(p):
        uniq, has_nan = values[j]
        v64 = uniq.astype(np.float64)
        thr = v64[:-1] / 2.0 + v64[1:] / 2.0
        nan_split = bool(has_nan and len(uniq) > 0)
        if quota is not None and quota[j] < len(thr) + nan_split:
            k = int(quota[j]) - nan_split
            if k < 0:          # no room even for the NaN split: no threshold at all
                k, nan_split = 0, False
            rank = row_rank[j]
            gaps = _kept_gaps(rank, len(uniq), k)
            thr = thr[gaps]
            # finite rows: kept gaps strictly below the value; NaN rows above all
            coarse = np.searchsorted(gaps, rank, side="left").astype(np.int32)
            coarse[rank >= len(uniq)] = len(gaps) + 1 if nan_split else len(gaps)
            if coarse_ranks is None:
                coarse_ranks = np.array(row_rank, dtype=np.int32, copy=True)
            coarse_ranks[j] = coarse
        if nan_split:
            thr = np.append(thr, np.inf)
        col_start[j + 1] = col_start[j] + len(thr)
        thresholds.append(thr)
        split_col.append(np.full(len(thr), j, dtype=np.int32))
    if coarse_ranks is not None:
        # the binned columns' rows by their coarse rank (ties by row index)
        row_rank = coarse_ranks
        col_order = order_by_rank(row_rank, (row_rank.max(axis=1) + 1).astype(np.int32)
                                  if row_rank.size else np.ones(p, np.int32), deadline)
    elif col_order is None:
        col_order = order_by_rank(row_rank, ranked.n_ranks, deadline)
    pr.thresholds = np.concatenate(thresholds) if p else np.zeros(0)
    pr.split_col = np.ascontiguousarray(np.concatenate(split_col) if p else np.zeros(0, np.int32))
    pr.col_start = col_start
    pr.n_splits = int(col_start[-1])
    pr.row_rank = np.ascontiguousarray(row_rank, dtype=np.int32)
    pr.col_order = np.ascontiguousarray(col_order, dtype=np.int32)


@cython.boundscheck(False)
@cython.wraparound(False)
def _fill_split_bits(const int32_t[:, ::1] row_rank, const int32_t[:, ::1] col_order,
                     const int32_t[::1] col_start, uint64_t[:, ::1] out):
    """Row bitsets of every split: split k of column j holds the rows of rank <= k.
    Along a column each split's set is the previous one's plus the rows of the
    next rank, so one walk of the column's sorted rows fills all its splits."""
    cdef Py_ssize_t p = row_rank.shape[0], n = row_rank.shape[1], nw = out.shape[1]
    cdef Py_ssize_t j, k, i, w, s
    cdef int32_t row
    for j in range(p):
        i = 0
        for k in range(col_start[j + 1] - col_start[j]):
            s = col_start[j] + k
            if k > 0:
                for w in range(nw):
                    out[s, w] = out[s - 1, w]
            while i < n and row_rank[j, col_order[j, i]] <= k:
                row = col_order[j, i]
                out[s, row >> 6] |= (<uint64_t> 1) << (row & 63)
                i += 1


def build_space(X32, y, deadline=-1.0):
    """The split space without row bitsets (DPDT): rows stay in the caller's order.
    Raises PreparationStopped when the deadline (`clock` seconds, < 0: none)
    passes while the columns are ranked."""
    pr = Problem()
    pr.n_rows, pr.n_features = X32.shape
    pr.n_words = (pr.n_rows + 63) // 64
    _column_space(pr, rank_space(X32, deadline))
    pr.y = np.ascontiguousarray(np.asarray(y, dtype=np.int32))
    return pr


def build_problem(ranked, y, n_classes, cost, max_splits=None, fill=True, deadline=-1.0):
    """Prepare the split space of the rows whose columns are ranked in `ranked`
    (`rank_space`), with at most max_splits thresholds when given
    (`_column_space`).  Raises PreparationStopped when the deadline (`clock`
    seconds, < 0: none) passes.

    With fill=False the row bitsets of the splits are allocated but left to the
    search, which fills a split's when it first reads it (`split_row` in _problem.pxd;
    a whole column in its loops over many splits; `split_filled` and
    `col_filled` mark what is filled): zero pages cost no memory until written.
    fill=True fills them all here.

    Parameters
    ----------
    ranked : SimpleNamespace or ndarray of shape (n_samples, n_features)
        The rows' columns ranked (`rank_space`), or their float32 values
        (finite or NaN) to rank.
    y : ndarray of shape (n_samples,), int
        Class index of each row, in [0, n_classes).
    n_classes : int
    cost : ndarray of shape (n_classes, n_classes)
        Cost per row of class c predicted k (class weights applied), not yet / n.
    """
    if isinstance(ranked, np.ndarray):
        ranked = rank_space(ranked, deadline)
    p, n = ranked.row_rank.shape
    nw = (n + 63) // 64
    pr = Problem()
    # Rows sorted by label, then equivalence group (identical float32 features,
    # NaN equal to NaN): the groups are numbered in the order of the rows'
    # values (`_columns.row_groups`), so this order does not depend on the
    # caller's row order, and every sum the search takes over the bits of a row
    # set runs in the same order for any input order.
    # Label first: the rows of each class are consecutive, so the pair stage
    # counts a two-class cell's class 0 as its bits below a boundary
    # (`fst_pair_row2p_*` in simd/counts.h), one popcount a word instead of two.
    group = row_groups(ranked.row_rank, ranked.n_ranks, deadline)
    y = np.asarray(y, dtype=np.int64)
    order = np.lexsort((group, y))
    y = y[order]
    group = group[order]
    # the ranks of the rows in that order, and their rows by rank (ties by the
    # new row index)
    row_rank, col_order = order_by_rank(ranked.row_rank, ranked.n_ranks, deadline,
                                        take=np.ascontiguousarray(order, dtype=np.int64))
    reordered = SimpleNamespace(values=ranked.values, n_ranks=ranked.n_ranks,
                                row_rank=row_rank, col_order=col_order)
    pr.n_rows = n
    pr.n_words = nw
    pr.n_classes = int(n_classes)
    pr.n_features = p
    _column_space(pr, reordered, max_splits, deadline)
    pr.split_bits = np.zeros((pr.n_splits, nw), dtype=np.uint64)
    pr.col_filled = np.zeros(p, dtype=np.uint8)
    pr.split_filled = np.zeros(pr.n_splits, dtype=np.uint8)
    if fill:
        _fill_split_bits(pr.row_rank, pr.col_order, pr.col_start, pr.split_bits)
        pr.col_filled[:] = 1
        pr.split_filled[:] = 1
    pr.y = np.ascontiguousarray(y.astype(np.int32))
    pr.class_bits = _pack_rows(pr.y[None, :] == np.arange(n_classes)[:, None], nw)
    pr.group = np.ascontiguousarray(group.astype(np.int32))
    pr.n_groups = int(pr.group.max()) + 1 if n else 0
    cost = np.asarray(cost, dtype=np.float64) / n
    pr.cost = np.ascontiguousarray(cost)
    pr.potc = np.ascontiguousarray(cost.max(axis=1) - cost.min(axis=1))
    pr.mincost = np.ascontiguousarray(cost.min(axis=1))
    pr.maxcost = np.ascontiguousarray(cost.max(axis=1))
    # Equivalent points.  Every node of the search is a union of whole groups (a
    # split sends identical rows the same way), so m(X) = sum over rows of
    # mincost[y] + sum over the mixed groups inside X of their excess
    #   excess(g) = min_k sum_{i in g} cost[y_i, k] - sum_{i in g} mincost[y_i] >= 0,
    # carried by one representative row per mixed group (its first row).
    # A group of one class has no excess (its label's own cost is its least), so
    # the class counts are formed for the mixed groups only: memory and time
    # stay linear in the rows whatever the number of classes.
    pair = np.unique(pr.group.astype(np.int64) * n_classes + pr.y)
    n_labels = np.bincount(pair // n_classes, minlength=pr.n_groups)
    mixed = n_labels > 1
    excess = np.zeros(pr.n_groups)
    if mixed.any():
        slot = np.full(pr.n_groups, -1, dtype=np.int64)
        slot[mixed] = np.arange(int(mixed.sum()))
        in_mixed = slot[pr.group] >= 0
        counts = np.zeros((int(mixed.sum()), n_classes))
        np.add.at(counts, (slot[pr.group[in_mixed]], pr.y[in_mixed]), 1.0)
        excess[mixed] = (counts @ cost).min(axis=1) - counts @ pr.mincost
    # first row of each group, and each row's position among its group's rows
    # (a group mixing labels spans one run of rows per label)
    first = np.zeros(n, dtype=bool)
    first[np.unique(pr.group, return_index=True)[1]] = True
    by_group = np.argsort(pr.group, kind="stable")
    pos = np.empty(n, dtype=np.int64)
    pos[by_group] = np.arange(n) - np.searchsorted(pr.group[by_group],
                                                   pr.group[by_group], side="left")
    rep = first & mixed[pr.group]
    pr.rep_rows = np.ascontiguousarray(_pack_rows(rep[None, :], nw)[0])
    pr.row_excess = np.ascontiguousarray(np.where(rep, excess[pr.group], 0.0))
    # When every group's excess is a whole number e(g) <= |g| of cost units (0/1
    # loss with whole class weights: e(g) = rows outside the group's best label),
    # mark e(g) rows of each group: the excess inside X is then that unit times a
    # popcount, exact and independent of summation order.  Else the search sums
    # row_excess over the representatives.
    raw = excess * n
    sizes = np.bincount(pr.group, minlength=pr.n_groups) if n else np.zeros(0)
    pr.eq_unit = 1.0 / n if n else 0.0
    pr.eq_mask = np.zeros(0, dtype=np.uint64)
    if n and np.all(np.abs(raw - np.round(raw)) <= 1e-9 * np.maximum(1.0, np.abs(raw))):
        e = np.round(raw).astype(np.int64)
        if np.all((e >= 0) & (e <= sizes)):
            pr.eq_mask = np.ascontiguousarray(
                _pack_rows((pos < e[pr.group])[None, :], nw)[0])
    return pr


def distinct_columns(cost):
    """The labels a leaf needs to try: the first of each set of identical columns
    of the cost matrix, in increasing order.  Identical columns give a leaf the
    same cost to the last bit, so the least cost and its first (lowest) label are
    unchanged; a weighted fit (one class per (class, sample weight) pair) has one
    column per label repeated for each pair, and tries each label once."""
    cost = np.asarray(cost, dtype=np.float64)
    if cost.shape[1] > 64:
        # many labels: np.unique over the columns' bytes (+ 0.0 makes -0.0 and
        # 0.0 one value), each distinct column's first label
        cols = np.ascontiguousarray(cost.T + 0.0)
        _, first = np.unique(cols.view(np.dtype((np.void, cols.shape[1] * 8))).ravel(),
                             return_index=True)
        return np.ascontiguousarray(np.sort(first), dtype=np.int32)
    # Columns compared as tuples of floats (equal floats, equal hashes): a dict
    # keeps each distinct column's first label, in label order.  Cheaper than
    # np.unique over rows on the small matrices of a fit (2 to 64 columns).
    seen = {}
    for j, col in enumerate(cost.T.tolist()):
        seen.setdefault(tuple(col), j)
    return np.ascontiguousarray(sorted(seen.values()), dtype=np.int32)


cdef double unit_cost(const double* cost, const double* potc, int K) noexcept nogil:
    """u > 0 when every error costs u and a right label 0 (0/1 loss, or balanced
    weights): a cell's leaf loss is then u times its rows outside its largest
    class and its potential u times its rows, so the pair values run on whole
    rows; else 0."""
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


cdef int space_init(Space* sp, object pr, object pcols, bint class_prefix) except -1:
    """Point `sp` at the arrays of Problem `pr` (which the caller keeps alive) and
    `pcols` (`distinct_columns` of its cost).  With `class_prefix` and two
    classes whose rows are sorted by class, the rows of class 0 are a prefix."""
    cdef word_t[:, ::1] split_bits = pr.split_bits
    cdef uint8_t[::1] col_filled = pr.col_filled
    cdef uint8_t[::1] split_filled = pr.split_filled
    cdef const word_t[:, ::1] class_bits = pr.class_bits
    cdef const int32_t[::1] split_col = pr.split_col
    cdef const int32_t[::1] col_start = pr.col_start
    cdef const int32_t[:, ::1] col_order = pr.col_order
    cdef const int32_t[:, ::1] row_rank = pr.row_rank
    cdef const double[:, ::1] cost = pr.cost
    cdef const double[::1] potc = pr.potc
    cdef const double[::1] maxcost = pr.maxcost
    cdef const double[::1] mincost = pr.mincost
    cdef const int32_t[::1] y = pr.y
    cdef const word_t[::1] rep_rows = pr.rep_rows
    cdef const double[::1] row_excess = pr.row_excess
    cdef const word_t[::1] eq_mask
    cdef const int32_t[::1] pc = pcols
    memset(sp, 0, sizeof(Space))
    sp.n = pr.n_rows
    sp.nw = pr.n_words
    sp.K = pr.n_classes
    sp.n_splits = pr.n_splits
    sp.n_cols = col_start.shape[0] - 1
    sp.split_bits = &split_bits[0, 0] if sp.n_splits > 0 else NULL
    sp.col_filled = &col_filled[0] if col_filled.shape[0] > 0 else NULL
    sp.split_filled = &split_filled[0] if sp.n_splits > 0 else NULL
    sp.class_bits = &class_bits[0, 0]
    sp.n0_prefix = -1
    y_rows = np.asarray(pr.y)
    if (sp.K == 2 and class_prefix and y_rows.shape[0] > 0
            and np.all(y_rows[1:] >= y_rows[:y_rows.shape[0] - 1])):
        sp.n0_prefix = int(np.count_nonzero(y_rows == 0))
    sp.split_col = &split_col[0] if sp.n_splits > 0 else NULL
    sp.col_start = &col_start[0]
    sp.col_order = &col_order[0, 0]
    sp.row_rank = &row_rank[0, 0]
    sp.cost = &cost[0, 0]
    sp.pcols = &pc[0]
    sp.n_pcols = pc.shape[0]
    sp.potc = &potc[0]
    sp.maxcost = &maxcost[0]
    sp.mincost = &mincost[0]
    sp.y = &y[0]
    sp.unit = unit_cost(sp.cost, sp.potc, sp.K)
    sp.rep_rows = &rep_rows[0]
    sp.row_excess = &row_excess[0]
    sp.eq_unit = pr.eq_unit
    sp.eq_mask = NULL
    if pr.eq_mask.shape[0] == sp.nw:
        eq_mask = pr.eq_mask
        sp.eq_mask = &eq_mask[0]
    if getattr(pr, "target", None) is not None:
        _squares_init(sp, pr)
    return 0


cdef int _squares_init(Space* sp, object pr) except -1:
    """The squared-error fields of `sp` from a Problem of `squares_problem`."""
    cdef const double[::1] target = pr.target
    cdef const double[::1] weight
    cdef const int32_t[::1] group = pr.group
    cdef const uint8_t[::1] shared = pr.shared
    cdef const int32_t[::1] lstart = pr.lstart
    cdef const int32_t[::1] lcols = pr.lcols
    sp.target = &target[0]
    sp.row_weight = NULL
    if pr.row_weight is not None:
        weight = pr.row_weight
        sp.row_weight = &weight[0]
    sp.group = &group[0]
    sp.shared = &shared[0]
    sp.n_groups = pr.n_groups
    sp.any_shared = pr.any_shared
    sp.most_splits = pr.most_splits
    sp.binary = pr.binary
    sp.lstart = &lstart[0]
    sp.lcols = &lcols[0]
    return 0


def squares_problem(row_rank, col_order, split_col, col_start, target, row_weight, group):
    """The Problem of the general search under squared error on an engine
    space's arrays (rows in their order there): its splits numbered as
    `build_problem` numbers them, their row bitsets left to the search to fill
    on first use, one class of zero cost (the class fields unused), and the
    target, weights and groups of identical rows that `_squares_nodes` reads.
    On binary columns (a split a column at most) each row's columns whose split
    sends it left, row by row (`lstart`, `lcols`)."""
    pr = Problem()
    R = np.ascontiguousarray(row_rank, dtype=np.int32)
    S = np.ascontiguousarray(col_start, dtype=np.int32)
    p, n = R.shape
    if n < 1 or p < 1:
        raise ValueError("the general search needs rows and columns")
    z = np.ascontiguousarray(target, dtype=np.float64)
    if z.shape[0] != n or not np.all(np.isfinite(z)):
        raise ValueError("the targets must be finite, one a row")
    if row_weight is not None:
        row_weight = np.ascontiguousarray(row_weight, dtype=np.float64)
        if (row_weight.shape[0] != n or not np.all(np.isfinite(row_weight))
                or np.any(row_weight <= 0)):
            raise ValueError("the weights must be finite and > 0, one a row")
    nw = (n + 63) // 64
    pr.n_rows = n
    pr.n_words = nw
    pr.n_classes = 1
    pr.n_features = p
    pr.n_splits = int(S[p])
    pr.row_rank = R
    pr.col_order = np.ascontiguousarray(col_order, dtype=np.int32)
    pr.split_col = np.ascontiguousarray(split_col, dtype=np.int32)
    pr.col_start = S
    pr.split_bits = np.zeros((pr.n_splits, nw), dtype=np.uint64)
    pr.col_filled = np.zeros(p, dtype=np.uint8)
    pr.split_filled = np.zeros(pr.n_splits, dtype=np.uint8)
    pr.y = np.zeros(n, dtype=np.int32)
    pr.class_bits = _pack_rows(np.ones((1, n), dtype=bool), nw)
    pr.cost = np.zeros((1, 1))
    pr.potc = np.zeros(1)
    pr.maxcost = np.zeros(1)
    pr.mincost = np.zeros(1)
    pr.rep_rows = np.zeros(nw, dtype=np.uint64)
    pr.row_excess = np.zeros(n)
    pr.eq_unit = 0.0
    pr.eq_mask = np.zeros(0, dtype=np.uint64)
    pr.target = z
    pr.row_weight = row_weight
    pr.group = np.ascontiguousarray(group, dtype=np.int32)
    pr.n_groups = int(pr.group.max()) + 1
    sizes = np.bincount(pr.group, minlength=pr.n_groups)
    pr.shared = np.ascontiguousarray((sizes[pr.group] > 1).astype(np.uint8))
    pr.any_shared = bool(pr.shared.any())
    per_col = np.diff(S)
    pr.most_splits = int(per_col.max())
    pr.binary = bool(pr.most_splits <= 1)
    pr.lstart = np.zeros(n + 1, dtype=np.int32)
    pr.lcols = np.zeros(1, dtype=np.int32)
    if pr.binary:
        left = (R == 0) & (per_col == 1)[:, None]
        pr.lstart[1:] = np.cumsum(left.sum(axis=0))
        lcols = np.nonzero(left.T)[1].astype(np.int32)
        if lcols.shape[0]:
            pr.lcols = np.ascontiguousarray(lcols)
    return pr


@cython.boundscheck(False)
@cython.wraparound(False)
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


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void fill_column(Space* sp, int32_t j) noexcept nogil:
    """Fill the row bitsets of every split of column j: split k of the column
    holds the rows of rank <= k, so each is the previous one plus the rows of
    rank k, and one walk of the column's sorted rows fills them all (as
    `_fill_split_bits` does for every column of an eager problem)."""
    cdef int nw = sp.nw
    cdef int64_t i = 0, k, s
    cdef const int32_t* order = sp.col_order + <int64_t> j * sp.n
    cdef const int32_t* rank = sp.row_rank + <int64_t> j * sp.n
    cdef word_t* out
    for k in range(sp.col_start[j + 1] - sp.col_start[j]):
        s = sp.col_start[j] + k
        out = sp.split_bits + s * nw
        if k > 0:
            memcpy(out, out - nw, nw * sizeof(word_t))
        else:
            memset(out, 0, nw * sizeof(word_t))
        i = _rows_to_rank(out, order, rank, sp.n, i, k)
        sp.split_filled[s] = 1
    sp.col_filled[j] = 1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void fill_split(Space* sp, int32_t s) noexcept nogil:
    """Fill the row bitset of split s alone: the rows of rank <= k in its column
    (it is split k there), the first rows of the column's sorted order."""
    cdef int32_t j = sp.split_col[s]
    cdef word_t* out = sp.split_bits + <int64_t> s * sp.nw
    memset(out, 0, sp.nw * sizeof(word_t))
    _rows_to_rank(out, sp.col_order + <int64_t> j * sp.n, sp.row_rank + <int64_t> j * sp.n,
                  sp.n, 0, s - sp.col_start[j])
    sp.split_filled[s] = 1
