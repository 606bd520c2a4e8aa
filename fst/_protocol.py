"""What a fit reads from a search: the one interface of the general search
(`fst._core._solver.Search`), the depth-limited engine (`fst._engine.EngineSearch`),
the general search under squared error (`fst._engine.SquaresGeneralSearch`) and
the searches run in turn by leaf budget (`fst._leaf_budget.LeafBudgetSearch`) or
under a leaf cap at lam > 0 (`fst._leaf_budget.CapProbeSearch`).
A plan (`fst._plan`) holds one of them and the estimator reads it through this
interface alone."""
from typing import Callable, Optional, Protocol, runtime_checkable


@runtime_checkable
class TreeSearch(Protocol):
    """A certified search of one fit.

    ``upper_bound`` is the objective of the best tree found (``inf``: none yet),
    ``lower_bound`` a bound on every tree of the search's space (None or
    ``-inf``: none proven), and ``solved`` whether the two meet: the tree is
    certified optimal.  ``run()`` searches until it certifies or a limit stops
    it and returns the stop code (`fst._core._limits.STATUS_NAMES`); it may be
    called again after ``set_time_limit`` to resume.  ``extract()`` gives the
    best tree as (split, left, right, depth, rows) arrays in pre-order, and
    ``stats()`` the search's statistics (``search_stats_``).  ``set_reporter``
    has ``reporter((seconds, lower, best, work))`` called every ``seconds``
    while it runs (verbose=2).  (The general searches also resume after
    ``set_time_limit``, which `LeafBudgetSearch` uses between its runs.)"""

    upper_bound: float
    lower_bound: Optional[float]
    solved: bool

    def run(self) -> int: ...

    def extract(self): ...

    def stats(self) -> dict: ...

    def set_reporter(self, reporter: Callable, seconds: float = 5.0) -> None: ...
