# Stop codes and the limits of a fit (time, memory of the whole process, Ctrl-C),
# shared by the certified search and DPDT's MDP.
from ._typedefs cimport int64_t

cdef extern from "_platform.h":
    double fst_now() noexcept nogil                 # monotonic seconds
    long long fst_process_rss() noexcept nogil      # resident bytes, -1 unknown

# Stop codes (`STATUS_NAMES` names them for the estimators).
cdef enum:
    RUNNING = 0
    STOP_TIME = 1        # the time limit (or the search's work limit)
    STOP_MEMORY = 2      # the memory limit, or no more memory
    STOP_INTERRUPT = 3   # Ctrl-C
    STOP_SWITCH = 4      # the search's own: end the running pass, the schedule goes on

cdef struct Limits:
    double deadline          # fst_now() past which the fit stops; < 0: none
    int64_t memory_limit     # bytes of the process a fit stays within; <= 0: none
    double next_poll         # when memory and Ctrl-C are next polled
    int64_t ticks            # polls so far (memory is read every 64)
    int64_t peak_rss         # largest process size seen at a poll
    int stop                 # RUNNING or a STOP_* code: once set, the fit winds down

cdef inline int limits_gather(int code, Limits* into, const Limits* one) noexcept nogil:
    """One worker's limits gathered after a run on several threads (both searches
    gather theirs with it): the first stop among the workers (code stays RUNNING
    until one stopped), and the largest peak memory seen, kept in `into`."""
    if one.stop != RUNNING and code == RUNNING:
        code = one.stop
    if one.peak_rss > into.peak_rss:
        into.peak_rss = one.peak_rss
    return code


cdef int limits_tick(Limits* lim, double now, bint signals) noexcept nogil


cdef inline int limits_poll(Limits* lim, double now, int64_t work, int64_t work_limit,
                            bint signals) noexcept nogil:
    """A search's poll at `now` (`fst_now()`), the engine's and the squares
    search's alike: past the deadline, or at `work_limit` of the search's own
    machine-free work (> 0; a deterministic stop, reported as the time limit),
    STOP_TIME; else what `limits_tick` calls for every 0.1 s (memory, and Ctrl-C
    where `signals`), -1 between its looks, when the caller's own periodic
    work (a progress line) waits too."""
    if lim.deadline >= 0 and now > lim.deadline:
        return STOP_TIME
    if work_limit > 0 and work >= work_limit:
        return STOP_TIME
    return limits_tick(lim, now, signals)


cdef void limits_start(Limits* lim, double time_limit, int64_t memory_limit) noexcept nogil
cdef long long limits_rss(Limits* lim) noexcept nogil
cdef bint limits_interrupted() noexcept nogil
