"""Stop codes and the limits of a fit: a monotonic clock, the resident memory of
the whole process (what `memory_limit` is measured on) and Ctrl-C, polled from
nogil code.

# Notes:
# - Ctrl-C is seen through PyErr_CheckSignals with the GIL taken briefly at a
#   poll; the pending KeyboardInterrupt is cleared and becomes a stop, so the fit
#   returns its best tree instead of raising.
"""
from cpython.exc cimport PyErr_Clear

from ._openmp cimport FST_OPENMP, omp_get_max_threads

cdef extern from "Python.h":
    # Declared without Cython's `except -1`, so a pending KeyboardInterrupt is seen
    # as a return value here (and cleared) rather than printed as unraisable.
    int fst_check_signals "PyErr_CheckSignals"() noexcept

STATUS_NAMES = {RUNNING: "optimal", STOP_TIME: "time_limit", STOP_MEMORY: "memory_limit",
                STOP_INTERRUPT: "interrupted"}


cdef void limits_start(Limits* lim, double time_limit, int64_t memory_limit) noexcept nogil:
    """Start the clock: a deadline `time_limit` seconds from now (< 0: none)."""
    cdef double now = fst_now()
    lim.deadline = now + time_limit if time_limit >= 0 else -1.0
    lim.memory_limit = memory_limit
    lim.next_poll = now + 0.1
    lim.ticks = 0
    lim.stop = RUNNING


cdef long long limits_rss(Limits* lim) noexcept nogil:
    """The process's resident bytes now (-1 where unknown), recorded in the peak."""
    cdef long long rss = fst_process_rss()
    if rss > lim.peak_rss:
        lim.peak_rss = rss
    return rss


cdef bint limits_interrupted() noexcept nogil:
    """Whether Ctrl-C was pressed since the last poll (the interrupt is cleared)."""
    with gil:
        if fst_check_signals() != 0:
            PyErr_Clear()
            return True
    return False


cdef int limits_tick(Limits* lim, double now, bint signals) noexcept nogil:
    """The periodic part of a search's poll, every 0.1 s: the process's memory
    against the limit and, where `signals` (the thread Ctrl-C reaches), Ctrl-C.
    Returns the stop they call for (RUNNING: none), or -1 when it is not yet
    time to look; a caller's own periodic work (a progress line) goes with a
    look."""
    cdef long long rss
    if now < lim.next_poll:
        return -1
    lim.next_poll = now + 0.1
    rss = limits_rss(lim)
    if lim.memory_limit > 0 and rss > lim.memory_limit:
        return STOP_MEMORY
    if signals and limits_interrupted():
        return STOP_INTERRUPT
    return RUNNING


def process_rss():
    """Resident bytes of the whole process (what memory_limit is measured on), or
    -1 where the platform does not tell."""
    return int(fst_process_rss())


def effective_n_threads(n_jobs):
    """Threads for the compiled core from n_jobs (sklearn's convention): None -> 1,
    -1 -> every core OpenMP sees, -2 -> all but one, ...; 1 without OpenMP."""
    cdef int max_threads = omp_get_max_threads()
    if n_jobs is None:
        return 1
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning")
    if not FST_OPENMP:
        return 1
    if n_jobs < 0:
        return max(max_threads + 1 + n_jobs, 1)
    return int(n_jobs)


def clock():
    """The searches' monotonic clock in seconds (`fst_now`): the origin a
    progress line's seconds are counted from."""
    return fst_now()
