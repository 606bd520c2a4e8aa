"""A fit's columns ranked: each row's value rank in every column, the rows of
each column in rank order, and the groups of rows with identical features, in
time linear in rows x columns.  The split spaces (`_problem`) are built on them.

# Notes:
# - A float32 maps to an unsigned key of the same order (the sign bit set for a
#   positive value, every bit flipped for a negative one); x + 0.0 makes -0.0
#   the key of 0.0 and every NaN gets the largest key, so equal floats (and all
#   NaN) share a key, and NaN ranks above every number.
# - The rows of a column are sorted by stable LSD radix passes over the key's
#   three 11-bit digits, a pass skipped when every key has the same digit and
#   a pass's buckets only those between its least and greatest digit: rows by
#   value, ties by row index, as numpy's stable argsort orders them.
# - The groups of identical rows are found by refining one group of all the rows
#   column by column (each group's rows sorted by their rank there, split where
#   it changes); only groups of two rows or more are refined further, so the
#   work is the rows still sharing a group, summed over the columns.  The groups
#   come out in lexicographic order of the rows' ranks (column 0 first), which
#   is the order of their values.
# - The deadline and Ctrl-C are polled once a column: a stop raises
#   PreparationStopped, which the estimators turn into a stopped fit.
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport int32_t, int64_t, uint32_t
from cpython.exc cimport PyErr_Clear

from ._limits cimport fst_now, STOP_TIME, STOP_INTERRUPT

cnp.import_array()

cdef extern from "Python.h":
    int fst_check_signals "PyErr_CheckSignals"() noexcept

cdef extern from "<math.h>" nogil:
    bint isnan(double x)

# Radix digits of a key: three of 11 bits cover its 32.
DEF DIGIT_BITS = 11
DEF DIGIT_SIZE = 2048
DEF N_DIGITS = 3
# A group of at most this many rows is sorted by insertion, a larger one by
# radix passes over its ranks' bytes.
DEF SMALL_GROUP = 32
# Columns whose keys are read together, a row at a time.
DEF KEY_BLOCK = 16


class PreparationStopped(Exception):
    """The fit's deadline passed (or Ctrl-C was pressed) while its columns were
    being ranked; ``code`` is the stop code (`_limits.STATUS_NAMES`)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


cdef int _poll(double deadline) except -1:
    """Raise PreparationStopped when `deadline` (fst_now() seconds, < 0: none)
    has passed or Ctrl-C was pressed."""
    if deadline >= 0 and fst_now() > deadline:
        raise PreparationStopped(STOP_TIME)
    if fst_check_signals() != 0:
        PyErr_Clear()
        raise PreparationStopped(STOP_INTERRUPT)
    return 0


cdef inline uint32_t _key(float x) noexcept nogil:
    """The order-preserving key of a float32 (module notes)."""
    cdef float v
    cdef uint32_t u
    if isnan(x):
        return 0xFFFFFFFFu
    v = x + <float> 0.0
    memcpy(&u, &v, sizeof(u))
    return u ^ 0xFFFFFFFFu if u & 0x80000000u else u | 0x80000000u


cdef int _radix_rows(uint32_t* key, int32_t* row, uint32_t* key2, int32_t* row2,
                     int64_t n, int64_t* count) noexcept nogil:
    """Sort rows 0..n-1 by key, stably (LSD radix, module notes).  key holds
    the rows' keys in row order on entry; key2, row2 and count (DIGIT_SIZE,
    all zero on entry and left all zero) are scratch.  Returns 0 when the
    sorted (key, row) pairs are in (key, row), 1 when in (key2, row2): each
    pass moves them across.

    A digit every key shares (its bits alike in the OR and the AND of all the
    keys) would not move a row, and gets no pass.  A pass counts, sums and
    clears only the buckets between its least and greatest digit, so a column
    of few distinct values (a binary one: one pass over a few hundred buckets)
    costs about its rows, not the 2,048 buckets of each of three digits."""
    cdef int64_t i, s
    cdef int d, shift, half = 0
    cdef uint32_t b, lo, hi, any_bits = 0, all_bits = 0xFFFFFFFFu, vary
    for i in range(n):
        row[i] = <int32_t> i
        any_bits |= key[i]
        all_bits &= key[i]
    vary = any_bits ^ all_bits if n > 0 else 0
    for d in range(N_DIGITS):
        shift = d * DIGIT_BITS
        if ((vary >> shift) & (DIGIT_SIZE - 1)) == 0:
            continue        # every key has this digit: the pass would not move a row
        lo, hi = DIGIT_SIZE - 1, 0
        for i in range(n):
            b = (key[i] >> shift) & (DIGIT_SIZE - 1)
            count[b] += 1
            if b < lo:
                lo = b
            if b > hi:
                hi = b
        s = 0
        for b in range(lo, hi + 1):
            i = count[b]
            count[b] = s
            s += i
        for i in range(n):
            b = (key[i] >> shift) & (DIGIT_SIZE - 1)
            key2[count[b]] = key[i]
            row2[count[b]] = row[i]
            count[b] += 1
        memset(count + lo, 0, (hi - lo + 1) * sizeof(int64_t))
        key, key2 = key2, key
        row, row2 = row2, row
        half = 1 - half
    return half


def rank_columns(const float[:, ::1] X, double deadline=-1.0):
    """Rank every column of X (n, p) float32, NaN allowed.

    Returns (values, row_rank, col_order): values[j] = (the column's distinct
    finite values sorted, as float32; whether it holds NaN); row_rank (p, n)
    int32, a row's rank among them (NaN: len(values[j][0])); col_order (p, n)
    int32, the rows by rank, ties by row index.  Raises PreparationStopped
    when the deadline (fst_now() seconds, < 0: none) passes."""
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1], j, j0, jj, nb
    cdef int64_t i, m, r
    cdef uint32_t prev = 0
    cdef bint nan
    row_rank_a = np.empty((p, n), dtype=np.int32)
    col_order_a = np.empty((p, n), dtype=np.int32)
    cdef int32_t[:, ::1] row_rank = row_rank_a
    cdef int32_t[:, ::1] col_order = col_order_a
    cdef float[::1] uniq
    values = []
    # the keys of KEY_BLOCK columns are read a row at a time (X is row-major)
    cdef uint32_t* block = <uint32_t*> malloc((KEY_BLOCK * n + 1) * sizeof(uint32_t))
    cdef uint32_t* key = <uint32_t*> malloc((2 * n + 2) * sizeof(uint32_t))
    cdef int32_t* rows = <int32_t*> malloc((2 * n + 2) * sizeof(int32_t))
    cdef float* found = <float*> malloc((n + 1) * sizeof(float))
    cdef int64_t* count = <int64_t*> calloc(DIGIT_SIZE, sizeof(int64_t))
    cdef uint32_t* k
    cdef int32_t* o
    try:
        if (block == NULL or key == NULL or rows == NULL or found == NULL
                or count == NULL):
            raise MemoryError("fst: no memory to rank the columns")
        for j0 in range(0, p, KEY_BLOCK):
            nb = min(KEY_BLOCK, p - j0)
            with nogil:
                for i in range(n):
                    for jj in range(nb):
                        block[jj * n + i] = _key(X[i, j0 + jj])
            for jj in range(nb):
                j = j0 + jj
                _poll(deadline)
                with nogil:
                    memcpy(key, block + jj * n, n * sizeof(uint32_t))
                    if _radix_rows(key, rows, key + n, rows + n, n, count):
                        k, o = key + n, rows + n
                    else:
                        k, o = key, rows
                    m = 0
                    r = -1
                    nan = False
                    for i in range(n):
                        if i == 0 or k[i] != prev:
                            prev = k[i]
                            if prev == 0xFFFFFFFFu:
                                nan = True
                            else:
                                found[m] = X[o[i], j] + <float> 0.0
                                m += 1
                            r += 1
                        row_rank[j, o[i]] = <int32_t> r
                        col_order[j, i] = o[i]
                uniq_a = np.empty(m, dtype=np.float32)
                uniq = uniq_a
                for i in range(m):
                    uniq[i] = found[i]
                values.append((uniq_a, bool(nan)))
    finally:
        free(block)
        free(key)
        free(rows)
        free(found)
        free(count)
    return values, row_rank_a, col_order_a


def order_by_rank(const int32_t[:, ::1] row_rank, const int32_t[::1] n_ranks,
                  double deadline=-1.0, const int64_t[::1] take=None):
    """The rows of each column by rank, ties by row index: col_order (p, n)
    int32 from row_rank (p, n), whose column j holds ranks below n_ranks[j]
    (a stable counting sort, O(n + n_ranks[j]) a column).

    With `take` (a permutation of the n rows), the rows are first put in that
    order (row i of the result is row take[i] of row_rank) and the result is
    (row_rank of the rows in that order, their col_order).  Raises
    PreparationStopped when the deadline passes."""
    cdef Py_ssize_t p = row_rank.shape[0], n = row_rank.shape[1], j
    cdef int64_t i, r, s, c
    col_order_a = np.empty((p, n), dtype=np.int32)
    cdef int32_t[:, ::1] col_order = col_order_a
    cdef int32_t[:, ::1] ranks = row_rank if take is None else None
    if take is not None:
        if take.shape[0] != n:
            raise ValueError("take must hold one index a row")
        taken_a = np.empty((p, n), dtype=np.int32)
        ranks = taken_a
    cdef int64_t most = 1
    for j in range(p):
        most = max(most, <int64_t> n_ranks[j] + 1)
    cdef int64_t* count = <int64_t*> malloc(most * sizeof(int64_t))
    if count == NULL:
        raise MemoryError("fst: no memory to order the columns")
    try:
        for j in range(p):
            _poll(deadline)
            with nogil:
                if take is not None:
                    for i in range(n):
                        ranks[j, i] = row_rank[j, take[i]]
                memset(count, 0, (n_ranks[j] + 1) * sizeof(int64_t))
                for i in range(n):
                    count[ranks[j, i]] += 1
                s = 0
                for r in range(n_ranks[j] + 1):
                    c = count[r]
                    count[r] = s
                    s += c
                for i in range(n):
                    r = ranks[j, i]
                    col_order[j, count[r]] = <int32_t> i
                    count[r] += 1
    finally:
        free(count)
    if take is not None:
        return taken_a, col_order_a
    return col_order_a


cdef void _sort_group(int32_t* perm, int64_t m, const int32_t* rank, int bits,
                      int32_t* key, int32_t* perm2, int32_t* key2) noexcept nogil:
    """Sort the m rows perm[0..m) stably by rank[row] (ranks below 2**bits):
    by insertion when few, else by LSD radix passes over the ranks' bytes.
    key, perm2 and key2 are scratch of m entries."""
    cdef int64_t i, t, s, c
    cdef int32_t kr, pr
    cdef int shift
    cdef int64_t count[256]
    cdef bint moved = False
    for i in range(m):
        key[i] = rank[perm[i]]
    if m <= SMALL_GROUP:
        for i in range(1, m):
            kr = key[i]
            pr = perm[i]
            t = i - 1
            while t >= 0 and key[t] > kr:
                key[t + 1] = key[t]
                perm[t + 1] = perm[t]
                t -= 1
            key[t + 1] = kr
            perm[t + 1] = pr
        return
    cdef int32_t* ka = key
    cdef int32_t* pa = perm
    cdef int32_t* kb = key2
    cdef int32_t* pb = perm2
    shift = 0
    while shift < bits:
        memset(count, 0, sizeof(count))
        for i in range(m):
            count[(ka[i] >> shift) & 255] += 1
        if count[(ka[0] >> shift) & 255] != m:
            s = 0
            for t in range(256):
                c = count[t]
                count[t] = s
                s += c
            for i in range(m):
                t = (ka[i] >> shift) & 255
                kb[count[t]] = ka[i]
                pb[count[t]] = pa[i]
                count[t] += 1
            ka, kb = kb, ka
            pa, pb = pb, pa
        shift += 8
    if pa != perm:
        for i in range(m):
            perm[i] = pa[i]


def row_groups(const int32_t[:, ::1] row_rank, const int32_t[::1] n_ranks,
               double deadline=-1.0):
    """Each row's group of rows with identical ranks in every column (identical
    features), numbered in lexicographic order of the ranks, column 0 first (as
    ``np.unique(row_rank.T, axis=0, return_inverse=True)`` numbers them), by
    refinement (module notes).  Returns int64 (n,).  Raises PreparationStopped
    when the deadline passes."""
    cdef Py_ssize_t p = row_rank.shape[0], n = row_rank.shape[1], j
    cdef int64_t i, a, b, g, n_live, n_next, m
    cdef int bits
    group_a = np.zeros(n, dtype=np.int64)
    cdef int64_t[::1] group = group_a
    if n == 0:
        return group_a
    # perm: the rows in lexicographic order of the columns refined so far;
    # start: 1 where a group begins; live: (begin, end) of the groups of two
    # rows or more, next: those of the column being refined
    cdef int32_t* perm = <int32_t*> malloc(n * sizeof(int32_t))
    cdef int32_t* scratch = <int32_t*> malloc(3 * n * sizeof(int32_t))
    cdef char* start = <char*> malloc(n * sizeof(char))
    cdef int64_t* live = <int64_t*> malloc((n + 1) * sizeof(int64_t))
    cdef int64_t* nxt = <int64_t*> malloc((n + 1) * sizeof(int64_t))
    cdef int64_t* tmp
    cdef const int32_t* rank
    try:
        if perm == NULL or scratch == NULL or start == NULL or live == NULL or nxt == NULL:
            raise MemoryError("fst: no memory to group the rows")
        for i in range(n):
            perm[i] = <int32_t> i
            start[i] = 0
        start[0] = 1
        n_live = 0
        if n > 1:
            live[0] = 0
            live[1] = n
            n_live = 1
        for j in range(p):
            if n_live == 0:
                break
            _poll(deadline)
            with nogil:
                rank = &row_rank[j, 0]
                bits = 0
                while bits < 31 and (1 << bits) < n_ranks[j]:
                    bits += 8
                n_next = 0
                for g in range(n_live):
                    a = live[2 * g]
                    b = live[2 * g + 1]
                    m = b - a
                    _sort_group(perm + a, m, rank, bits, scratch, scratch + n, scratch + 2 * n)
                    # split where the rank changes: each run of equal ranks a group
                    i = a
                    while i < b:
                        start[i] = 1
                        a = i
                        i += 1
                        while i < b and rank[perm[i]] == rank[perm[a]]:
                            i += 1
                        if i - a > 1:
                            nxt[2 * n_next] = a
                            nxt[2 * n_next + 1] = i
                            n_next += 1
                tmp = live
                live = nxt
                nxt = tmp
                n_live = n_next
        g = -1
        for i in range(n):
            if start[i]:
                g += 1
            group[perm[i]] = g
    finally:
        free(perm)
        free(scratch)
        free(start)
        free(live)
        free(nxt)
    return group_a
