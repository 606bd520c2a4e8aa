"""The polls of one certified search: its limits (time, work, memory of the whole
process, Ctrl-C), checked at every expansion, and its progress lines.

# Notes:
# - Time (a clock read) is polled at every expansion; memory and Ctrl-C every 64
#   expansions or 0.1 s.  The work clock (word operations) stops a pass or the
#   search at the same point on every machine.
# - The root's bounds are copied at the polls for the progress lines and for
#   `Search.progress`, which may read them from another thread: aligned 8-byte
#   stores, so a reader sees an old or a new value, never a mix, and never the
#   store itself, which may move as it grows.
"""
from ._limits cimport (STOP_TIME, STOP_MEMORY, STOP_INTERRUPT, STOP_SWITCH, fst_now,
                       limits_rss, limits_interrupted)
from ._memo cimport memo_bytes


cdef inline void _stop(Ctx* c, int code) noexcept nogil:
    """End the search with `code`; in a parallel search every thread ends with it
    (`STOP_SWITCH` is a pass's own and stays with its thread)."""
    c.lim.stop = code
    if c.sh != NULL and code != STOP_SWITCH:
        fst_shared_set_stop(c.sh, code)


cdef void check_memory_now(Ctx* c) noexcept nogil:
    """Poll the memory limit at once: after a wide expansion's per-candidate records
    are written (children not yet stored live there, outside the memo store), so the
    process stops within about one level's records of the limit."""
    cdef long long rss = limits_rss(&c.lim)
    if c.lim.memory_limit > 0 and rss > c.lim.memory_limit:
        _stop(c, STOP_MEMORY)


cdef bint scan_stopped(Ctx* c, double* next_signal) noexcept nogil:
    """Whether the search must stop now, polled inside one expansion's scan of
    its splits (`gather_valid`), where many classes or rows can make a single
    node's scan outlast the time limit: the deadline, another thread's stop and,
    on thread 0 every 0.1 s (`next_signal`, the scan's own clock), Ctrl-C.  Work
    and memory stay with `check_limits` at the expansions, so that a search
    not stopped by time takes the same path as without this poll."""
    cdef double now = fst_now()
    cdef int code
    if c.sh != NULL:
        code = fst_shared_stop(c.sh)
        if code:
            c.lim.stop = code
            return True
    if c.lim.deadline >= 0 and now > c.lim.deadline:
        _stop(c, STOP_TIME)
        return True
    if c.tid == 0 and now >= next_signal[0]:
        next_signal[0] = now + 0.1
        if limits_interrupted():
            _stop(c, STOP_INTERRUPT)
            return True
    return False


cdef void check_limits(Ctx* c) noexcept nogil:
    """Poll the limits: time and work at every expansion, memory and Ctrl-C every
    64 expansions or 0.1 s; the progress reporter when it is due."""
    cdef double now = fst_now()
    cdef long long rss
    cdef int code
    c.lim.ticks += 1
    if c.sh != NULL:
        # another thread's stop ends this one's search as well
        code = fst_shared_stop(c.sh)
        if code:
            c.lim.stop = code
            return
    if c.lim.deadline >= 0 and now > c.lim.deadline:
        _stop(c, STOP_TIME)
        return
    if c.cfg.work_limit > 0 and c.work > c.cfg.work_limit:
        _stop(c, STOP_TIME)
        return
    if c.work_stop > 0 and c.work > c.work_stop:
        c.lim.stop = STOP_SWITCH
        return
    if (c.lim.ticks & 63) != 0 and now < c.lim.next_poll:
        return
    if c.prog_root >= 0:
        c.prog_lb = c.memo.nodes[c.prog_root].lb
        c.prog_ub = c.memo.nodes[c.prog_root].ub
        if c.sh != NULL:
            # the root's incumbent is a real tree: the other threads prune with it
            fst_shared_lower(c.sh, c.prog_ub)
            fst_store_double(&c.share_lbs[c.tid], c.prog_lb)
    rss = limits_rss(&c.lim)
    if c.lim.memory_limit > 0:
        if rss < 0:
            rss = memo_bytes(&c.memo)
        if rss > c.lim.memory_limit:
            _stop(c, STOP_MEMORY)
            return
    if now >= c.lim.next_poll:
        c.lim.next_poll = now + 0.1
        # Ctrl-C reaches Python's main thread, which runs thread 0
        if c.tid == 0 and limits_interrupted():
            _stop(c, STOP_INTERRUPT)
        elif c.reporter != NULL and c.tid == 0 and now >= c.next_report:
            c.next_report = now + c.report_every
            with gil:
                _report(c, now)


cdef void _report(Ctx* c, double now) noexcept:
    """Call the fit's progress reporter (verbose >= 2) with (seconds, the root's
    lower bound and incumbent at the last poll, expansions).  Ctrl-C while it
    runs stops the search as an interrupt; any other error turns it off.  In a
    parallel search (thread 0 reports) the bound is the least of the shares'
    and the incumbent the shared one."""
    cdef double lb = c.prog_lb, ub = c.prog_ub
    cdef int t
    if c.sh != NULL:
        ub = fst_shared_incumbent(c.sh)
        for t in range(c.n_workers):
            lb = min(lb, fst_load_double(&c.share_lbs[t]))
    try:
        (<object> c.reporter)((now - c.prog_t0, lb, ub, c.st.expansions))
    except KeyboardInterrupt:
        c.lim.stop = STOP_INTERRUPT
    except BaseException:
        c.reporter = NULL
