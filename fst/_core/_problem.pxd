# The split space of a fit as the compiled stages read it: pointers into the
# arrays of the Python `Problem` (`_problem.build_problem`), which the search
# object keeps alive for as long as it runs.
from ._typedefs cimport word_t, int32_t, int64_t, uint8_t

cdef struct Space:
    int n                    # rows
    int nw                   # words per row bitset
    int K                    # classes (of a weighted fit: (class, weight) pairs)
    int n_splits             # splits in the split space
    int n_cols               # columns
    word_t* split_bits       # n_splits x nw: rows going left (x <= threshold); read
                             # only through `split_row` / `split_row_bulk`, which
                             # fill a split's rows (or its column's) on first use
    uint8_t* split_filled    # n_splits: 1 once a split's rows are filled
    uint8_t* col_filled      # n_cols: 1 once all of a column's splits are filled
    const word_t* class_bits # K x nw: rows of each class
    int n0_prefix            # two classes, rows sorted by class: the rows of class 0
                             # are rows 0 .. n0_prefix - 1; else -1 (`space_init`)
    const int32_t* split_col # n_splits: column of each split
    const int32_t* col_start # n_cols + 1: first split of each column
    const int32_t* col_order # n_cols x n: rows sorted by rank in each column
    const int32_t* row_rank  # n_cols x n: rank of each row's value (NaN: largest)
    const double* cost       # K x K: cost per row of class c predicted k, / n
    const int32_t* pcols     # the labels a leaf tries (`distinct_columns`)
    int n_pcols
    const double* potc       # K: max_k cost[c, k] - min_k cost[c, k]
    const double* maxcost    # K: max_k cost[c, k]
    const double* mincost    # K: min_k cost[c, k], the floor of a row alone
    const int32_t* y         # n: class index of each row
    double unit              # > 0: every error costs unit and a right label 0, so
                             # the pair values run in whole rows (`unit_cost`)
    const word_t* rep_rows   # nw: one representative row per group mixing labels
    const double* row_excess # n: the excess of the representative's group, else 0
    const word_t* eq_mask    # nw or NULL: e(g) marked rows per group (whole-unit excess)
    double eq_unit           # cost of one marked row
    # squared error (the regressor's loss; target NULL: classification, and the
    # class fields above are one class of zero cost); `_squares_nodes` reads these
    const double* target     # n: each row's scaled target (a leaf's loss is its rows'
                             # weighted squared error about their weighted mean)
    const double* row_weight # n, or NULL: each row weighs 1
    const int32_t* group     # n: the row's group of rows with identical features
    const uint8_t* shared    # n: 1 when the row's group holds other rows
    int n_groups
    bint any_shared          # some group holds two rows or more
    int most_splits          # the most splits a column has
    bint binary              # every column one split at most: ...
    const int32_t* lstart    # ... n + 1: each row's entries in lcols
    const int32_t* lcols     # ... the columns whose split sends the row left

cdef int space_init(Space* sp, object problem, object pcols, bint class_prefix) except -1
cdef void fill_split(Space* sp, int32_t s) noexcept nogil
cdef void fill_column(Space* sp, int32_t j) noexcept nogil
cdef double unit_cost(const double* cost, const double* potc, int K) noexcept nogil


cdef inline const word_t* split_row(Space* sp, int32_t s) noexcept nogil:
    """The rows split s sends left, filled on first use.

    The bitsets of a fit are allocated as zero pages, which the system maps only
    when written, and filled when the search first reads them: a search that
    reads few splits (a certified fit's greedy seed and few expansions) never
    writes most of the n_splits x nw words.  Every read of `split_bits`
    goes through here or `split_row_bulk`, the memo store's path keys included
    (a key's splits were read here when its node was made).  Never called inside
    a parallel region (the pair stage's threads count the copies its set-up
    made), so no fill is concurrent."""
    if not sp.split_filled[s]:
        fill_split(sp, s)
    return sp.split_bits + <int64_t> s * sp.nw


cdef inline const word_t* split_row_bulk(Space* sp, int32_t s) noexcept nogil:
    """`split_row` for a loop over many splits: fills the whole column of s at
    once on first use (one walk, instead of a walk of the column per split)."""
    cdef int32_t j
    if not sp.split_filled[s]:
        j = sp.split_col[s]
        if not sp.col_filled[j]:
            fill_column(sp, j)
        else:
            fill_split(sp, s)
    return sp.split_bits + <int64_t> s * sp.nw
