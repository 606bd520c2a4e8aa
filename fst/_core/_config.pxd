# The configuration of one certified search, built once per fit from the
# estimator's parameters (`make_config`), read by every stage.
from ._typedefs cimport int64_t

# Rules: each raises a lower bound or marks a node solved, with its argument in
# _bounds.pxd; a cleared bit really turns it off (the oracle tests run every
# combination).  The core contract (look-ahead budgets, a node's bound from its
# splits, the leaf) never depends on them.
cdef enum:
    RULE_EQUIVALENT = 1   # equivalent-points floor at node creation
    RULE_SUPPORT = 2      # leaf support: no split with a side of support < lam
    RULE_SEGMENT = 4      # single-column segmentation programme
    RULE_SUPERSET = 8     # superset bound from children
    RULE_EXCHANGE = 16    # threshold exchange between neighbouring thresholds
    RULE_TRANSFER = 32    # column transfer of bounds along a column
    RULE_PAIRS = 64       # row-count pair stage and shape relaxation
    RULE_CAPACITY = 128   # leaf capacity: a set of potential p holds < p / lam + 1 leaves
    RULE_WORTH = 256      # side worth: a split with a side worth less than misclassifying it
    RULE_PEEL3 = 512      # the three-leaf peel bound and its two-leaf transfer to children
    RULE_LEAF_BUDGET = 1024  # leaf budget: a budget admits few leaves, so a shallow depth
    RULE_PEEL_LEAF = 2048    # engine: a node capped at one leaf above its depth is its
                             # shallower optimum or a leaf beside a subtree
    RULE_LARGER_CAP = 4096   # engine: a node's bound at a larger leaf cap bounds it
    RULE_ALLOCATIONS = 8192  # engine: under a leaf cap, a split valued allocation by
                             # allocation of its leaves (`allocation_bound`)
    RULE_SIMILAR = 16384     # engine: under a leaf cap, a node bounded by a node of the
                             # same depth and cap searched before (`similar_node_bound`)
    RULE_ALL = 32767
    # the general search's rules under squared error (`_squares_nodes`): those
    # of potentials and floors, not those of class counts
    SQUARES_RULES = (RULE_EQUIVALENT | RULE_SUPPORT | RULE_SUPERSET | RULE_EXCHANGE
                     | RULE_TRANSFER | RULE_WORTH | RULE_LEAF_BUDGET)

# Strategies: each changes the order of the work, how it is done or which
# incumbents are found, never what a bound may claim.
cdef enum:
    STRATEGY_GREEDY = 1        # greedy seed for the first incumbent
    STRATEGY_COMPACT = 8       # pair stages count over their node's rows compacted (BMI2)
    STRATEGY_CLASS_PREFIX = 16 # two classes: class 0 counted as the bits below a boundary
    STRATEGY_ALL = 25

cdef struct Config:
    double lam               # price of one leaf
    int max_depth            # -1: unlimited
    int rules                # RULE_* bits in effect
    int strategy             # STRATEGY_* bits in effect
    int n_threads            # OpenMP threads of the pair stage
    int simd                 # vector loops asked for: -1 best, 0 scalar, 1 AVX-512, 2 AVX2
    double time_limit        # seconds; < 0: none
    int64_t memory_limit     # bytes of the process; <= 0: none
    int64_t work_limit       # > 0: stop (as a time stop) past this much work
    int64_t memo_capacity    # nodes the store starts with (it grows by doubling)
    int64_t pair_cap         # largest word-work of one pair stage
    int64_t pair_cap_root    # the same at the root of a pass
    int64_t keep_pair_words  # a pair stage this wide (splits x words) stores its children
    int stage_min_rows       # a pair stage of this many rows runs in rounds ...
    int stage_min_run        # ... when its rows are at least this many a run on average
    int stage_rounds         # at most this many rounds of midpoints before the rest
    double deepening         # share of the root's gap added to its budget per pass
    double deepening_close   # the share once the gap is below ladder_gap lambdas
    int64_t switch_work      # > 0: the first root pass runs at the incumbent for this work
    int ladder_max           # deepest rung of the depth ladder (< 2: none)
    int64_t rung_work        # work of a rung's first turn
    int64_t ladder_bytes     # no ladder turns once the store is past this (0: no cap)
    double ladder_gap        # no ladder turns once the root's gap is below this many lam
    int break_contract       # tests: lower the root's bound to the budget after a pass
    int min_leaf             # rows every leaf holds at least (min_samples_leaf; 1: any)

cdef int config_from_dict(Config* cfg, dict d) except -1
