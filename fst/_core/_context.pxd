# The state of one certified search, shared by its stages: the split space, the
# configuration, the memo store, the limits, the counters and the frame stack.
from ._typedefs cimport word_t, node_t, int32_t, int64_t, uint8_t, uint64_t
from ._problem cimport Space
from ._config cimport Config
from ._limits cimport Limits
from ._memo cimport Node, Memo

cdef struct Stats:
    int64_t expansions       # nodes expanded (frames opened)
    int64_t pair_stages      # pair-count kernels run
    int64_t passes           # budget passes at a root (deepening and ladder rungs)
    int64_t transfers        # child bounds raised by the two-leaf transfer
    int64_t pair_rows        # rows of pair stages valued
    int64_t pair_rows_left   # rows left out by pair stages in rounds
    int ladder_depth         # deepest rung of the depth ladder run
    int64_t ladder_turns     # turns of the ladder
    int64_t sorted_nodes     # nodes the sorted-column search searched
    int64_t sorted_splits_valued     # root splits it valued
    int64_t sorted_splits_set_aside  # root splits its bounds set aside
    int64_t sorted_leaf_pairs  # two-leaf trees its depth-one passes valued


cdef struct Cand:
    # A valid split of the node being expanded, with its children.
    double lb        # lower bound on the best tree rooted at this split
    double pot_left  # potential of the left side (grows with the threshold)
    double worst_left   # cost of the left side's rows each at its class's largest cost
    double worst_right  # likewise the right side's
    double pair_leaf # value of the two-leaf tree on this split
    node_t left      # memo id of the left child (rows with x <= t), -1: not stored
    node_t right     # memo id of the right child
    int32_t split    # split index
    int32_t col      # column of the split
    uint8_t dropped  # never needed for R(X): dominated by a neighbouring threshold
                     # (exchange rule) or a side worth less than misclassifying it
    Node tl          # left child's creation record while it is not stored (left < 0)
    Node tr          # right child's, likewise


cdef struct Key:
    # A candidate's place in the search order.
    double ord       # the sort key: the candidate's lower bound (in a ladder rung,
                     # its incumbent)
    int32_t split    # tie-break: lowest split index first
    int32_t idx      # position in the candidate array


cdef struct Ctx:
    Space sp                 # the split space (read only, but for split rows filled
                             # on first use)
    Config cfg               # the fit's configuration
    Memo memo                # the store of subproblems
    Limits lim               # time, memory and Ctrl-C; lim.stop ends the search
    Stats st                 # counters for `search_stats_`
    int vec                  # the vector loops in effect (simd.h, FST_VEC_* bits)
    # scratch of the node stages
    double* cnt_scratch      # 3 K: node counts, then left and right counts
    int64_t* icnt            # K: integer class counts of `scan_counts`
    uint64_t* hkey           # 2 nw: bs_hash_key of each half-word index
    word_t* tmp              # nw: a row set
    # the search and its schedule
    int64_t work             # word-work of the scans and pair stages, plus a fixed
                             # charge per expansion (a machine-free clock)
    int64_t work_stop        # > 0: end the running pass (first pass or rung) past this
    int order_ub             # sort candidates by incumbent, not bound (ladder rungs)
    int contract_broken      # a complete pass left the root unsolved at or below its budget
    void* frames             # the frame stack: Frame* (_search.pxd, `solve`)
    int n_frames             # frames open
    int cap_frames           # frames allocated
    # progress, read at the polls
    node_t prog_root         # the root once made, else -1 (then the bounds are 0, inf)
    double prog_t0           # when the run started (fst_now)
    double prog_lb, prog_ub  # the root's bounds at the last poll
    void* reporter           # a Python callable for progress lines, or NULL
    double report_every      # seconds between its calls
    double next_report       # when it is next due


cdef inline Node* cand_node(Ctx* c, Cand* cd, int right) noexcept nogil:
    """A candidate's child record: in the memo when stored, else its creation record."""
    if right:
        return &c.memo.nodes[cd.right] if cd.right >= 0 else &cd.tr
    return &c.memo.nodes[cd.left] if cd.left >= 0 else &cd.tl


cdef void check_limits(Ctx* c) noexcept nogil
cdef void check_memory_now(Ctx* c) noexcept nogil
