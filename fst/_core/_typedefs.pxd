# The C types and constants used everywhere in the core.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

ctypedef uint64_t word_t    # one word of a row bitset (bit i of word i // 64 is row i)
ctypedef int32_t idx_t      # a row, split, column or class index
ctypedef int64_t node_t     # a node id in the memo store (-1: none)
ctypedef double real_t      # objective values, already divided by n

cdef extern from *:
    """
    #include <math.h>
    /* A prune needs an excess of more than FST_TOL and a solve accepts equality
       within it (docs/how_it_works.md, "Invariants and the tolerance"). */
    #define FST_TOL 1e-10
    #define FST_INF ((double)INFINITY)
    """
    const double TOL "FST_TOL"   # the tolerance of every comparison of objectives
    const double INF "FST_INF"   # +infinity: no tree of that kind, or no bound yet
