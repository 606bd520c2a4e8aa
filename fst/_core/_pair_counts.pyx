"""The row-count pair stage kernel: class counts of X & s_i & s_j for chosen
splits i against every split j.

From these counts the pair stage derives, for each child of split i, its exact
best two-leaf tree and the cheapest cell any split peels off (`_pair_values`,
`_pair_stage`).

# Notes:
# - One pass over the words per pair computes every class at once: the total of
#   the cell and the counts of classes 0 .. K-2 (the last class by difference).
# - Parallel over the chosen rows with OpenMP; each thread writes only its rows'
#   cells, so the result does not depend on the number of threads.
"""
from cython.parallel cimport prange

from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from libc.stdint cimport INT32_MAX

from ._typedefs cimport word_t, int32_t, int64_t
from ._simd cimport (fst_pair_row2, fst_pair_row_k, fst_pair_transposed_ok, fst_pair_row_t,
                     fst_pair_rows2_t)

cdef enum:
    # The transposed kernels (`fst_pair_row_t`, and `fst_pair_rows2_t` taking two
    # rows at once for two classes) are used from TRANSPOSE_ROWS rows of a stage
    # (_pair_counts.pxd: the transposition, m * nw words, is shared by the rows).
    # They count eight or sixteen cells side by side with no horizontal sums, which
    # pays while a cell has few words; for two classes the row kernels, one cell's
    # words summed at once, catch up at a few dozen words
    # (`benchmarks/pair_kernels.py` compares them): up to this many words ...
    TRANSPOSE_MAX_WORDS2 = 24
    # ... or at any width while the transposed splits fit in 64 KiB: the stages of
    # a node with few valid splits, whose splits are then read from cache.
    TRANSPOSE_SMALL_WORDS = 8192

cdef inline void _pair_row(int vec, const word_t* XS, Py_ssize_t i, Py_ssize_t r, int m,
                           int K, const word_t* XC, int nw, int32_t* out,
                           const int32_t* colrow, int nb0) noexcept nogil:
    """Row r (split i) of a stage by the row kernels (simd/counts.h)."""
    if K == 2:
        fst_pair_row2(vec, XS + i * nw, XS, m, XC, nw, <int> r, out, colrow, nb0)
    else:
        fst_pair_row_k(vec, XS + i * nw, XS, m, XC, nw, K, <int> r, out)


cdef inline void _pair_rows_t(const word_t* XS, const word_t* XT, const int32_t* rows,
                              int n_rows, Py_ssize_t r, int m, int mp, int K,
                              const word_t* XC, int nw, int32_t* out) noexcept nogil:
    """Rows r and r + 1 of a stage from the transposed splits: together for two
    classes (each loaded word serves both), else one by one."""
    if K == 2 and r + 1 < n_rows:
        fst_pair_rows2_t(XS + <int64_t> rows[r] * nw, XS + <int64_t> rows[r + 1] * nw, XT,
                         m, mp, XC, nw, <int> r, out)
        return
    fst_pair_row_t(XS + <int64_t> rows[r] * nw, XT, m, mp, XC, nw, K, <int> r, out)
    if r + 1 < n_rows:
        fst_pair_row_t(XS + <int64_t> rows[r + 1] * nw, XT, m, mp, XC, nw, K, <int> (r + 1),
                       out)


cdef enum:
    MIRROR_TILE = 16    # rows a side of the tiles in which shared cells are copied


cdef void _mirror_cells(const int32_t* rows, int n_rows, int m, int32_t* out) noexcept nogil:
    """Two classes: copy each cell shared by two chosen rows from the earlier row,
    which counted it (the cell X & s_i & s_j is the same for rows i and j), in
    tiles so that the reads along a column stay in cache.  A cell is two int32
    (class 0, total), copied as 8 bytes (memcpy: no type punning)."""
    cdef int r, q, rt, qt, rend, qend
    cdef int32_t* dst
    rt = 0
    while rt < n_rows:
        rend = rt + MIRROR_TILE if rt + MIRROR_TILE < n_rows else n_rows
        qt = 0
        while qt < rend:
            qend = qt + MIRROR_TILE if qt + MIRROR_TILE < n_rows else n_rows
            for r in range(rt, rend):
                dst = out + <int64_t> r * m * 2
                for q in range(qt, qend):
                    if q >= r:
                        break
                    memcpy(dst + 2 * rows[q], out + (<int64_t> q * m + rows[r]) * 2,
                           2 * sizeof(int32_t))
            qt += MIRROR_TILE
        rt += MIRROR_TILE


cdef void pair_counts(int vec,              # IN the vector loops (Ctx.vec)
                      const word_t* XS,     # IN m x nw: rows of X & s_j
                      const int32_t* rows,  # IN the chosen splits i (distinct)
                      int n_rows,           # IN how many
                      int m,                # IN number of splits
                      int K,                # IN number of classes
                      const word_t* XC,     # IN (K - 1) x nw: rows of X & class k
                      int nw,               # IN words per bitset
                      int32_t* out,         # OUT n_rows x m x K: classes 0..K-2, total
                      int n_threads,        # IN OpenMP threads
                      int nb0,              # IN two classes, rows sorted by class:
                                            #    class 0 is the bits below nb0; or -1
                      ) noexcept nogil:
    """Fill out[(r*m + j)*K + k] for the cell X & s_rows[r] & s_j.

    The transposed kernels count a cell of two chosen splits twice, once in each
    row.  The two-class row kernels (wide stages) count it once, in the earlier
    row, skipping the cells whose split j has an earlier row (`colrow[j]`;
    INT32_MAX when j is not chosen), and copy it into the later row afterwards,
    in tiles: a wide cell costs far more to count than to copy.  The transposed
    kernels serve narrow cells, where a copy costs about as much as a count, so
    they count every cell (`benchmarks/pair_kernels.py --chosen` compares the
    two).  Every cell is written by one
    thread, and the copies run after all the counts, so the result does not
    depend on the number of threads."""
    cdef word_t* XT = NULL
    if n_rows >= TRANSPOSE_ROWS:
        XT = transposed_splits(vec, XS, m, K, nw)
    pair_counts_xt(vec, XS, XT, rows, n_rows, m, K, XC, nw, out, n_threads, nb0)
    free(XT)


cdef word_t* transposed_splits(int vec, const word_t* XS, int m, int K, int nw) noexcept nogil:
    """The splits transposed for the transposed kernels (`fst_pair_row_t`): word w
    of split j at XT[w * mp + j], mp = m rounded up to 16, zero padded; NULL when
    those kernels do not serve this width and class count (or on no memory:
    `pair_counts_xt` then takes the row kernels, same counts).  Free with free()."""
    cdef Py_ssize_t j, w
    cdef int mp = (m + 15) & ~15
    cdef word_t* XT = NULL
    if not (fst_pair_transposed_ok(vec, K)
            and (K > 2 or nw <= TRANSPOSE_MAX_WORDS2
                 or <int64_t> nw * mp <= TRANSPOSE_SMALL_WORDS)):
        return NULL
    XT = <word_t*> malloc(<int64_t> nw * mp * sizeof(word_t))
    if XT != NULL:
        for w in range(nw):
            for j in range(m):
                XT[w * mp + j] = XS[j * nw + w]
            for j in range(m, mp):
                XT[w * mp + j] = 0
    return XT


cdef void pair_counts_xt(int vec, const word_t* XS, const word_t* XT, const int32_t* rows,
                         int n_rows, int m, int K, const word_t* XC, int nw, int32_t* out,
                         int n_threads, int nb0) noexcept nogil:
    """`pair_counts` (same arguments and counts) with XT, the splits as
    `transposed_splits` gives them, or NULL: the transposed kernels when XT is
    not NULL (at any number of rows: a stage valued in rounds transposes once),
    else the row kernels."""
    cdef Py_ssize_t r, j
    cdef int mp = (m + 15) & ~15
    cdef int32_t* colrow = NULL
    # threads only pay for themselves on large stages
    cdef bint par = n_threads > 1 and n_rows > 1 and <int64_t> n_rows * m * nw > (1 << 20)
    if XT != NULL:
        if par:
            for r in prange((n_rows + 1) // 2, schedule="dynamic", num_threads=n_threads):
                _pair_rows_t(XS, XT, rows, n_rows, 2 * r, m, mp, K, XC, nw, out)
        else:
            for r in range((n_rows + 1) // 2):
                _pair_rows_t(XS, XT, rows, n_rows, 2 * r, m, mp, K, XC, nw, out)
        return
    if K == 2 and n_rows >= 2:
        colrow = <int32_t*> malloc(<int64_t> m * sizeof(int32_t))
        if colrow != NULL:
            for j in range(m):
                colrow[j] = INT32_MAX
            for r in range(n_rows):
                colrow[rows[r]] = <int32_t> r
    if par:
        for r in prange(n_rows, schedule="dynamic", num_threads=n_threads):
            _pair_row(vec, XS, rows[r], r, m, K, XC, nw, out, colrow, nb0)
    else:
        for r in range(n_rows):
            _pair_row(vec, XS, rows[r], r, m, K, XC, nw, out, colrow, nb0)
    if colrow != NULL:
        _mirror_cells(rows, n_rows, m, out)
        free(colrow)
