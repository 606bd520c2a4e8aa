"""The configuration of a certified search: its defaults, how the estimator's
parameters and private overrides make one, and the names of the rule and
strategy bits.

# Notes:
# - `make_config` is the one place a fit's configuration is built; the estimator
#   passes its parameters, and tests and experiments their overrides as one
#   private mapping (`FastSmallTreeClassifier._overrides`), whose keys are
#   checked here.  Nothing is kept between fits: two fits never share a setting.
# - Every default below is a choice of work, never of soundness: any value gives
#   the same certified optimum (the oracle tests run the extremes).
"""

from ._typedefs cimport TOL as TOL_C
from ._ties cimport tie_key as _tie_key

# The tolerance of every comparison of objectives (`_typedefs.TOL`): two
# objectives within it are equal, and the tie rule decides between them.
TOL = TOL_C


def tie_key(leaves, split, count_leaves):
    """fst's tie rule as a key (`_ties.tie_key`): among trees whose objectives
    are within TOL, the least key (fewest leaves when `count_leaves`, then the
    lowest root split id, -1 for the leaf) is the tree fst returns."""
    return _tie_key(leaves, split, count_leaves)


RULES = {"equivalent": RULE_EQUIVALENT, "support": RULE_SUPPORT, "segment": RULE_SEGMENT,
         "superset": RULE_SUPERSET, "exchange": RULE_EXCHANGE, "transfer": RULE_TRANSFER,
         "pairs": RULE_PAIRS, "capacity": RULE_CAPACITY, "worth": RULE_WORTH,
         "peel3": RULE_PEEL3, "leaf_budget": RULE_LEAF_BUDGET,
         "peel_leaf": RULE_PEEL_LEAF, "larger_cap": RULE_LARGER_CAP,
         "allocations": RULE_ALLOCATIONS, "similar": RULE_SIMILAR}
STRATEGIES = {"greedy": STRATEGY_GREEDY, "compact": STRATEGY_COMPACT,
              "class_prefix": STRATEGY_CLASS_PREFIX}
ALL_RULES = RULE_ALL
ALL_STRATEGIES = STRATEGY_ALL

# The rules a fit under min_samples_leaf > 1 runs without.  The constraint admits
# a split only where both sides hold min_leaf rows, so the optimum of a set is no
# longer monotone under inclusion: a tree of a set, applied to a subset, may
# leave a leaf too small (a subset of exactly min_leaf rows must stay a leaf,
# where a superset of twice as many may split into two pure leaves).  Every rule
# that carries a bound or a value from one set to another through that
# monotonicity is unsound then: the superset bound, the neighbour and interval
# bounds (exchange, transfer), the pair stage (its best two-leaf trees range over
# the splits of the parent, and its shapes bound children from supersets), the
# three-leaf peel and its transfer, the single-column programme (which segments
# without the constraint), and the engine's bound of a node by a similar one
# (a tree of one set applied to the other).  The others stay sound, each by an argument
# that only merges leaves or reroutes rows through a sibling (which grows leaves,
# so keeps every leaf at min_leaf rows or more) or bounds one set's own trees:
# the equivalent-points floor, leaf support and capacity, side worth and the
# leaf budget (`_bounds`).
MIN_LEAF_RULES_OFF = (RULE_SEGMENT | RULE_SUPERSET | RULE_EXCHANGE | RULE_TRANSFER
                      | RULE_PAIRS | RULE_PEEL3 | RULE_SIMILAR)

# Word-work (the search's machine-free clock) of the first root pass at the
# incumbent before the depth ladder and deepening take over, about a second or
# two here; each rung of the ladder's first turn gets twice as much, and each
# later turn (of the ladder and of deepening) twice the last.
SWITCH_WORK = 3_000_000_000
# The pair stage's word-work cap per node, and its multiple at the root of a
# pass, where one complete stage gives the exact best tree of at most three
# leaves and a bound for every child.
PAIR_CAP = 400_000_000
ROOT_PAIR_SHARE = 16

DEFAULTS = {
    "regularization": 0.05,
    "max_depth": None,
    "rules": RULE_ALL,
    "strategy": STRATEGY_ALL,
    "n_threads": 1,
    "simd": -1,
    "time_limit": None,
    "memory_limit": 0,
    "work_limit": 0,
    "memo_capacity": 1 << 12,
    "pair_cap": PAIR_CAP,
    "pair_cap_root": None,           # None: ROOT_PAIR_SHARE * pair_cap
    # A pair stage of at least this many words a row (valid splits times words),
    # or over three or more classes, stores the children it values; cheaper ones
    # leave them in their candidates (storing a child costs more than valuing it
    # again when its parent is expanded again).
    "keep_pair_words": 32768,
    # A pair stage of at least stage_min_rows rows, stage_min_run a run on a
    # column on average, runs in rounds (`_pair_stage.staged_pairs`), at most
    # stage_rounds rounds of midpoints.
    "stage_min_rows": 16,
    "stage_min_run": 2,
    "stage_rounds": 5,
    "deepening": 0.1,
    # Once the root's gap is below ladder_gap lambdas, the next pass runs at the
    # incumbent (share 1): it certifies it or runs until a stop.
    "deepening_close": 1.0,
    "switch_work": SWITCH_WORK,
    "ladder_max": 6,
    "rung_work": None,               # None: 2 * switch_work
    "ladder_bytes": -1,              # -1: half the memory limit; 0: no cap
    # The ladder ends once the root's bound is within this many leaves' worth of
    # lambda of its incumbent: a better tree could gain less than that, and the
    # bound is what is left to prove.
    "ladder_gap": 3.0,
    "break_contract": False,
    # rows every leaf holds at least (the estimator's min_samples_leaf in rows)
    "min_leaf": 1,
    # the most leaves a tree has (the estimator's max_leaf_nodes; 0: any number):
    # only the depth-limited engine searches under it
    "max_leaves": 0,
}


def _bits(value, names, key):
    """A bit mask from an int or from a collection of names of `names`."""
    if isinstance(value, (int,)) and not isinstance(value, bool):
        if value < 0 or value & ~sum(names.values()):
            raise ValueError(f"{key}={value!r} has bits beyond {sorted(names)}")
        return int(value)
    try:
        chosen = list(value)
    except TypeError:
        raise ValueError(f"{key} must be an int mask or a collection of names of "
                         f"{sorted(names)}; got {value!r}") from None
    unknown = [v for v in chosen if v not in names]
    if unknown:
        raise ValueError(f"{key}: unknown names {unknown!r}; known: {sorted(names)}")
    return sum(names[v] for v in set(chosen))


def make_config(overrides=None, **params):
    """The configuration of one search: DEFAULTS, updated with the estimator's
    `params`, then with the private `overrides` (tests and experiments).  Each
    key must be one of DEFAULTS: a misspelt override is an error, never ignored.
    `rules` and `strategy` take an int mask or a collection of names (RULES,
    STRATEGIES); ``"rules_off"`` and ``"strategy_off"`` remove names from them.
    Returns a dict, the argument of `Search`."""
    overrides = dict(overrides or {})
    off = {"rules": overrides.pop("rules_off", ()), "strategy": overrides.pop("strategy_off", ())}
    cfg = dict(DEFAULTS)
    for source in (params, overrides):
        unknown = sorted(set(source) - set(DEFAULTS))
        if unknown:
            raise ValueError(f"unknown search settings {unknown}; known: {sorted(DEFAULTS)}")
        cfg.update(source)
    cfg["rules"] = _bits(cfg["rules"], RULES, "rules") & ~_bits(off["rules"], RULES, "rules_off")
    cfg["strategy"] = (_bits(cfg["strategy"], STRATEGIES, "strategy")
                       & ~_bits(off["strategy"], STRATEGIES, "strategy_off"))
    if int(cfg["min_leaf"]) < 1:
        raise ValueError(f"min_leaf must be >= 1; got {cfg['min_leaf']!r}")
    if int(cfg["min_leaf"]) > 1:
        cfg["rules"] &= ~MIN_LEAF_RULES_OFF
    if int(cfg["max_leaves"]) < 0 or int(cfg["max_leaves"]) == 1:
        raise ValueError(f"max_leaves must be 0 (none) or >= 2; got {cfg['max_leaves']!r}")
    if cfg["pair_cap_root"] is None:
        cfg["pair_cap_root"] = cfg["pair_cap"] * ROOT_PAIR_SHARE
    if cfg["rung_work"] is None:
        cfg["rung_work"] = 2 * cfg["switch_work"]
    return cfg


cdef int config_from_dict(Config* cfg, dict d) except -1:
    """Fill `cfg` from a dict of `make_config`."""
    cfg.lam = float(d["regularization"])
    cfg.max_depth = -1 if d["max_depth"] is None else int(d["max_depth"])
    cfg.rules = int(d["rules"])
    cfg.strategy = int(d["strategy"])
    cfg.n_threads = int(d["n_threads"])
    cfg.simd = int(d["simd"])
    cfg.time_limit = -1.0 if d["time_limit"] is None else float(d["time_limit"])
    cfg.memory_limit = int(d["memory_limit"] or 0)
    cfg.work_limit = int(d["work_limit"])
    cfg.memo_capacity = int(d["memo_capacity"])
    cfg.pair_cap = int(d["pair_cap"])
    cfg.pair_cap_root = int(d["pair_cap_root"])
    cfg.keep_pair_words = int(d["keep_pair_words"])
    cfg.stage_min_rows = int(d["stage_min_rows"])
    cfg.stage_min_run = int(d["stage_min_run"])
    cfg.stage_rounds = int(d["stage_rounds"])
    cfg.deepening = float(d["deepening"])
    cfg.deepening_close = float(d["deepening_close"])
    cfg.switch_work = int(d["switch_work"])
    cfg.ladder_max = int(d["ladder_max"])
    cfg.rung_work = int(d["rung_work"])
    cfg.ladder_bytes = int(d["ladder_bytes"])
    cfg.ladder_gap = float(d["ladder_gap"])
    cfg.min_leaf = max(int(d.get("min_leaf", 1)), 1)   # >= 1: an empty side never passes
    cfg.break_contract = 1 if d["break_contract"] else 0
    return 0
