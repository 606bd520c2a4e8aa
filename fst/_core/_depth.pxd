# The depth-limited engine: exact trees of at most a given depth over the rows
# sorted per column, in memory linear in rows x columns (no per-threshold
# bitsets).  Its argument is at `_depth.DepthSearch`.
from libc.string cimport memcpy

from ._typedefs cimport int32_t, int64_t, uint8_t, TOL
from ._ties cimport tie_wins
from ._limits cimport Limits
from ._context cimport fst_shared_t
from ._rowpass cimport DSpace
from ._depth_memo cimport DMemo


cdef struct SetBest:
    # The best tree (of the depth its table holds) of the rows on given sides of
    # a set of splits (`_squares._sets_best`): its value, root column (-1: the
    # leaf), leaves and rows, and its leaf's value (lam included).
    double v
    double rows
    double leaf
    int32_t col
    int32_t leaves


cdef struct DLevel:
    # Scratch of the nodes at one depth left (one node of each depth is open at a
    # time, so one set per depth), each array sized for the whole data; pages are
    # touched only as far as a node's rows reach.
    int32_t* child      # p x m: the two children's rows sorted per column (left
                        # child's block first, p x m_left, then the right's)
    bint lazy           # only each child's first column is partitioned yet
                        # (`_depth_columns._partition`, `_complete`): the node's rows
    const int32_t* lazy_ord  # (lazy_ord, lazy_m), split at row position lazy_t
    int lazy_m          # of column lazy_u's order
    int lazy_u
    int lazy_t
    bint tri_ready      # depth three with triples: pair and triple hold the
    double ptot[16]     # node's sums (`_squares._sum_rows`, ptot its total: a
                        # slot, at most SLOT_MAX doubles),
                        # from which its children's pairs' sums follow
                        # (`_squares._parent_pairs`); cleared as a node starts
    int tri_compact     # how triple holds each slot (`_squares.TRI_DOUBLES`,
                        # TRI_WORD: one 32-bit word, its rows in the high half
                        # and its class-1 rows in the low; TRI_LANES: 16-bit
                        # lanes, each class's rows, then the rows)
                        # (`_squares._sum_rows`: classes, no weights)
    int32_t* rk         # p x m: the node's ranks in each column's order
    int32_t* yk         # p x m: the node's classes in each column's order
    double* wk          # p x m: the node's row weights in each column's order
                        # (NULL without weights)
    int32_t* upos       # p x m (depth two): each row's position in the order of
                        # the column whose root splits are valued (`_positions`)
    int32_t* tpos       # m: a column's thresholds (rows left of each)
    double* lbl         # m: bound (or value) of each valued threshold's left child
    double* lbr         # m: ... and of its right child
    double* lbv         # m: ... and the split's own value or bound (under a leaf
                        # cap above the sum of its children's)
    double* lbk         # 2 (kc - 1) m under a leaf cap kc <= CAP_BOUNDS_MAX (else
                        # NULL): each valued threshold's children's bounds at
                        # every cap x < kc (`_cap_bounds`), its left child's
                        # first
    double* wpre        # m + 1: worst cost of a column's first rows
    double* pv          # 2 m + 2 (depth two): each threshold's two sides' values
                        # at depth one, once valued (`_peel_depth_two`; NaN
                        # before), or a bound above its pass's budget; then the
                        # least leaf of each of the column's two scans
    int32_t* pa         # 2 m + 1 (depth two): ... and their best splits (-1: leaf,
                        # -2: pv is a bound); then whether the rows are placed
    int32_t* crk        # 2 (n + 1) (depth two): one side's rows of a column (or
    int32_t* cyk        # both, side 1's from m on), their ranks, classes
    double* cwk         # and weights (`_depth_columns._side_rows`, `_sides_rows`)
    double* pcl         # 2 p (depth two): each column's least value of a side at
                        # the threshold its scan valued last (a subset of the
                        # side at the next: a bound on it; INF: the side not
                        # valued in this scan, -INF: none yet)
    int32_t* queue      # 8 m + 16: the intervals of thresholds still open (each
                        # valuation queues at most two)
    double zlo          # squared error: the least and greatest target of the
    double zhi          # node's rows (`_gather`), between which every mean of
                        # its subsets lies (`squares_row_worst`)
    double* pair        # slot x p^2 (depth two, `DEngine.pairs`; else NULL):
                        # each column pair's sums over the rows left of both
                        # splits (weight, weighted target and square, rows;
                        # or each class's weight, then rows: `DSpace.slot`)
    int32_t* plist      # p: the columns whose split sends a row left (`_sum_rows`),
                        # then those with a split (`_sets_best`)
    double* triple      # slot x C(p, 3) (depth three, `DEngine.triples`; else NULL):
                        # each column triple's sums over the rows left of all
                        # three splits, a < b < c at `_triple_at(a, b, c)`
    double* quad        # slot x C(p, 4) (depth four, `DEngine.quads`; else NULL):
                        # each column quadruple's sums over the rows left of all
                        # four splits, a < b < c < f at `_quad_at(a, b, c, f)`
    SetBest* sets       # 2 p + 4 C(p, 2) + 8 C(p, 3) (depth two to four with the
                        # sums; else NULL): each set of one, two and three
                        # splits' sides, its best tree (`_squares._sets_best`)
    double* seg         # 8 m + 8 (squared error, depth >= 3; else NULL): a
                        # child's sorted targets and the k-segmentation programme
                        # (`_squares.segment_bound`)
    int32_t* best       # tree of the node's best split, in heap order (below)
    int best_leaves     # its leaves
    bint seeded         # it is the root's seed (`DEngine.seed_tree`), or a
                        # node's optimum of depth d - 1 in `_solve_peel`, not
                        # yet valued at this depth
    int32_t* cand       # tree of the valued split's first child, heap order
    int cand_leaves     # its leaves
    int32_t* alt        # 4 heap(d - 1): under a leaf cap, the two children's trees
                        # at the split's first valuation, and at its best
                        # allocation of leaves (`_value_capped`)
    double* cnt         # 4 K: class sums (node, the two children, scratch)
    double* cbest       # 8 p: each column's best split value per side (threads;
                        # a cache line a column)
    int32_t* carg       # 16 p: ... and that split
    double* ccnt        # (3 K + 8) p: each column's pass scratch (`column_pass`;
                        # threads each their column's, the serial pass column 0's)
    int64_t* cwc        # (5 K + 8) p: ... and its whole-row counts
    double* cshared     # 2: each side's best over the columns (threads)


cdef struct ColKey:
    # a root column and its static bound, sorted by (bound, column)
    double v
    int32_t u


cdef struct DEngine:
    DSpace sp
    Limits lim
    int max_depth
    int n_threads
    int vec             # the vector loops in effect (simd/simd.h, FST_VEC_* bits)
    uint8_t* side       # n: 0 left of the split being partitioned, 1 right
    int32_t* pos        # n: a row's position in one column's order (scratch)
    DLevel* lv          # max_depth + 1 levels (index: depth left)
    int64_t nodes       # subproblems searched (depth >= 1)
    int64_t evals       # root splits valued at depth two or more
    int64_t sweeps      # column passes of the depth-one valuations
    int64_t shallower   # nodes searched at a depth their leaf budget gives
                        # (RULE_LEAF_BUDGET, `_solve_shallower`)
    int64_t allocations # leaf allocations valued under a leaf cap (`_value_capped`,
                        # `_value_allocations`)
    int64_t segment_bounds  # children bounded by their k-segmentation floor
    int64_t segment_prunes  # ... and splits proven above their cap by it
    int64_t by_allocation  # splits under a leaf cap valued allocation by
                           # allocation (RULE_ALLOCATIONS, `_value_allocations`)
    int64_t peel_nodes  # nodes solved as their shallower optimum or a leaf beside a
                        # subtree (RULE_PEEL_LEAF, `_solve_peel`)
    int64_t parent_sums # nodes of depth two whose sums came from their parent's
                        # (`_squares._parent_pairs`)
    bint pairs          # squared error, or at most fifteen classes, on columns
                        # of one split each (binary):
                        # a node of depth two is solved from its column pairs'
                        # sums (`_squares.solve_sums`, `by_sums`)
    bint triples        # ... and a node of depth three from its column triples'
                        # sums
    bint quads          # ... and a node of depth four from its column
                        # quadruples' sums
    uint8_t* sums_right # p (with pairs): the side of each column's split whose
                        # rows its sums count, 0 the left, 1 the right: the side
                        # fewer of all rows are on (`_squares._sum_rows`)
    int max_leaves      # the root's leaf cap (max_leaf_nodes; LEAF_CAP_NONE: none)
    DMemo* memo         # under a leaf cap or without max_depth, the nodes below
                        # the root searched so far (`_depth_memo`; NULL: none kept)
    double seed_value   # < INF: the value of a real tree of depth at most
                        # max_depth on every row, its splits in seed_tree (heap
                        # order): the root's best before any split is valued
    int32_t* seed_tree
    int seed_leaves     # its leaves
    bint seed_exact     # the seed is the root's optimum of depth max_depth - 1
                        # under the same leaf cap, canonical (`DepthSearch.seed`)
    # the parallel root (n_jobs > 1): each of n_workers engines values the root
    # splits of the columns it takes, in increasing order, from a shared counter
    # (next_col), engine 0 the best depth-one split first; they share the best
    # root value found and the first stop (sh, NULL alone); equal trees go to the
    # least root split id in every engine (`_takes`), so the answer is the serial
    # search's
    fst_shared_t* sh
    int32_t* next_col
    int tid
    int n_workers
    # the root of the search (its depth max_depth), for a stop's bound and the
    # progress lines: each column's bound once closed (col_lb, shared by the
    # engines: -INF while open, else the least bound of its splits proven above
    # their cap, INF for none; written once, with release order, by the engine
    # that closed it); each column's least creation bound over its splits
    # (col_static, engine 0's, filled when first needed; at a root searched as a
    # leaf beside a subtree at the fit's depth, its splits' least leaf-beside
    # bound, filled before its columns are searched: `_peel_order`); the root's incumbent
    # while it runs (root_best, NULL otherwise), its leaf and class counts
    double* col_lb
    double* col_static
    bint static_done
    # the order a root searched as a leaf beside a subtree at the fit's depth
    # takes its columns in (`_peel_order`: the least bound of their splits
    # first, so that a stopped root's bound rises with each column closed):
    # col_perm[i] the i-th column, col_rest[i] the least first split id of
    # columns i .. p - 1 (for `_tie_may_win`), col_keys scratch; col_order
    # while it applies (NULL: the columns in increasing order).  Each engine's own.
    int32_t* col_perm
    int32_t* col_rest
    ColKey* col_keys
    const int32_t* col_order
    double* root_best
    double root_found   # the value of the root's best tree once its splits are
                        # searched (its answer is a bound under a budget it is
                        # above: `DepthSearch.run`); NaN before
    double root_leaf
    const double* root_cnt
    bint sums_root      # the root is solved from its sums (`by_sums`)
    int final_depth     # the depth the fit asked for: the bounds reported hold for
                        # it (a search of a shallower depth seeds the next)
    int64_t work_limit  # > 0: stop (as the time limit) after this many nodes and
                        # root valuations
    bint (*poll)(DEngine* e) noexcept nogil
                        # the limits' poll (`engine_poll`), for the modules that
                        # solve the engine's nodes without `_depth` (`_squares`)
    double (*solve)(DEngine* e, int d, const int32_t* ord, int m, const double* cnt,
                    double B, int kc, bint* exact) noexcept nogil
                        # `_depth._solve`, for `_capped`, which values a split's
                        # children under a cap (set as `poll` is)
    void* reporter      # verbose >= 2: a Python callable for progress lines
    double report_every
    double next_report
    double report_t0
    # the first run's share of its time (`DepthSearch.set_share`, absolute
    # times; share_from < 0: none): from share_from, looked at every
    # SHARE_LOOK_POLLS polls of engine 0 (`_share_spent`), the run stops as at
    # its time limit once the pace of the root's columns closed so far could not
    # end it by share_end, and runs on to its own limit once it would
    double share_from
    double share_end
    double share_t0
    int64_t share_polls


cdef bint engine_poll(DEngine* e) noexcept nogil


cdef enum:
    # what a look at a run's share decides (`share_look`)
    SHARE_WAIT = 0      # look again
    SHARE_STOP = 1      # stop the run at its share
    SHARE_RUN_ON = 2    # let it run on to its own limit


cdef inline int share_look(double t0, double now, double end, int closed, int p) noexcept nogil:
    """A look at a run begun at t0 with a share of its time (`DepthSearch.set_share`),
    `closed` of its root's p columns closed at `now`: it runs on when the
    columns left, at the pace of those closed, would close by `end` (t0 + (now -
    t0) p / closed <= end); it stops when they would not even were one more to
    close now (t0 + (now - t0) p / (closed + 1) > end); else the next look
    decides."""
    if t0 + (now - t0) * (<double> p / (closed + 1)) > end:
        return SHARE_STOP
    if closed > 0 and t0 + (now - t0) * (<double> p / closed) <= end:
        return SHARE_RUN_ON
    return SHARE_WAIT


cdef inline int _heap_size(int d) noexcept nogil:
    """Entries of a tree of depth d in heap order (position q's children at
    2q + 1 and 2q + 2)."""
    return (1 << (d + 1)) - 1

# A loop over this many rows or more polls the limits as it goes: every
# POLL_ROWS rows, or every column of a node of at least that many rows.
cdef enum:
    POLL_ROWS = 1024

# A leaf cap no tree the engine holds reaches (its trees have at most 2^16 leaves).
cdef enum:
    LEAF_CAP_NONE = 1 << 30
    # the most leaves for which a column's valued thresholds keep their
    # children's bounds at every cap (`_bounds.capped_interval_bound`)
    CAP_BOUNDS_MAX = 32

cdef double _solve(DEngine* e, int d, const int32_t* ord, int m, const double* cnt,
                   double B, int kc, bint* exact) noexcept nogil


cdef inline bint _wins(const DSpace* sp, double v, int leaves, int32_t split, double best,
                       int best_leaves, int32_t best_split, bint seeded) noexcept nogil:
    """fst's tie rule (`_ties.tie_wins`) between a tree rooted at `split` (value
    v, `leaves` leaves) and a node's best (best_split, -1 for the leaf;
    `seeded`: the root's seed not yet valued, `_takes`), leaves counted with
    sp.ties."""
    return tie_wins(v, leaves, split, best, best_leaves, best_split, sp.ties, seeded)


cdef inline bint _takes(const DSpace* sp, DLevel* L, double v, int leaves, double best,
                        int32_t split) noexcept nogil:
    """Whether the tree rooted at `split`, of value v and `leaves` leaves,
    replaces the node's best (value best, its tree in L.best), by `_wins`.  So
    a node solved exactly holds, whatever its budget and the order its splits
    were met in, the canonical optimal tree (its subtrees likewise): the answer
    depends on the data alone, the same for any number of engines
    (`DepthSearch._gather`) and with or without a seed."""
    return _wins(sp, v, leaves, split, best, L.best_leaves, L.best[0], L.seeded)


cdef inline void _took(DLevel* L, int leaves) noexcept nogil:
    """The node's best is now the tree just valued."""
    L.best_leaves = leaves
    L.seeded = False


cdef inline void _place(int32_t* parent, int d, int at, const int32_t* child) noexcept nogil:
    """Copy a subtree of depth d - 1 (heap order) under position `at` (1 or 2)
    of a tree of depth d."""
    cdef int l, width
    for l in range(d):
        width = 1 << l
        memcpy(parent + (2 * width - 1) + (at - 1) * width, child + (width - 1),
               width * sizeof(int32_t))


cdef inline int _tree_order(const int32_t* a, const int32_t* b, int levels) noexcept nogil:
    """The canonical split order between two trees in heap order of `levels`
    levels (docs/how_it_works.md, "Ties"): negative when a comes first, 0 when
    they are the same, positive else.  Read root first, then the left subtree,
    then the right; a leaf (-1) comes before any split (split ids follow the
    split order)."""
    cdef int pos[64]            # the positions still to read, the next on top
    cdef int left[64]           # ... and the levels below each (levels <= 30)
    cdef int top = 1, at, below
    pos[0] = 0
    left[0] = levels
    while top > 0:
        top -= 1
        at = pos[top]
        below = left[top]
        if a[at] != b[at]:
            return -1 if a[at] < b[at] else 1
        if a[at] >= 0 and below > 1:
            pos[top] = 2 * at + 2
            left[top] = below - 1
            pos[top + 1] = 2 * at + 1
            left[top + 1] = below - 1
            top += 2
    return 0


cdef inline double _cap(const DSpace* sp, double B, double best) noexcept nogil:
    """What a split must cost at most to be of use: the budget B, or less than the
    incumbent.  Where every value is a whole number of quanta q (a unit cost and
    lam a whole number of units), less than best is at most best - q."""
    cdef double b = best - sp.quantum
    return B if B < b else b


cdef inline double _prune_level(const DSpace* sp, double B, double best) noexcept nogil:
    """The bound above which a split is pruned: above the budget (B + TOL: the
    answer must then be a bound above it), or at the incumbent (ties go to the
    split found first, so only a strictly better one is sought): best - TOL, or
    best - q + TOL where values are whole quanta (`_cap`)."""
    cdef double a = B + TOL, b
    if sp.quantum > 0.0:
        b = best - sp.quantum + TOL
    else:
        b = best - TOL
    return a if a < b else b


cdef inline bint _tie_may_win(const DSpace* sp, const DLevel* L, int32_t split) noexcept nogil:
    """Whether a split of id `split` or more (its tree has two leaves at least)
    could tie the node's best and still replace it (`_takes`): not the leaf's;
    any split when the best has more than two leaves (with sp.ties); else one of
    a lower id (or the seed's own root split)."""
    cdef int32_t b = L.best[0]
    if b < 0:
        return False
    if sp.ties and L.best_leaves > 2:
        return True
    return split < b or (L.seeded and split == b)


cdef inline bint _tie_below(const DSpace* sp, const DLevel* L, int u, const int32_t* rk,
                            const int32_t* tpos, int lo) noexcept nogil:
    """Whether thresholds from position lo of column u (of ids from its first)
    could tie the best and still replace it (`_tie_may_win`)."""
    return _tie_may_win(sp, L, sp.col_start[u] + rk[tpos[lo] - 1])


cdef inline int _split_column(const DSpace* sp, int32_t split) noexcept nogil:
    """The column of a global split id."""
    cdef int u = 0
    while u + 1 < sp.p and sp.col_start[u + 1] <= split:
        u += 1
    return u
