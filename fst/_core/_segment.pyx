"""Single-column segmentation dynamic programme.

When every supported split of a node is on one column, every tree on the node
partitions its rows into intervals of that column, one per leaf, and any
partition into k intervals is realised by a tree of depth ceil(log2 k).  So the
best tree is the best segmentation of the sorted rows, each segment charged its
best label plus lambda, with at most 2**depth segments under a depth limit.

# Notes:
# - `solve_single_column` applies it at a node of the search (the segmentation
#   rule, RULE_SEGMENT) and `realise_segments` stores the balanced tree that
#   realises it, every node of which is solved.
# - Rows with equal values form one block: a segment boundary can only fall
#   between blocks.  `prefix` holds cumulative class counts over the blocks.
# - Segment values use `leaf_loss`, the same function that values memo nodes, so
#   the realised tree's nodes carry bit-identical values.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ._typedefs cimport word_t, node_t
from ._bitset cimport bs_set, bs_test
from ._limits cimport RUNNING, STOP_MEMORY
from ._context cimport Ctx
from ._bounds cimport leaf_loss, settle_leaf, settle_exact
from ._nodes cimport node_get_whole


cdef inline double _seg_cost(const double* prefix, int a, int b, int K, const double* cost,
                             const int32_t* cols, int ncols, double lam,
                             double* tmp) noexcept nogil:
    cdef int c
    for c in range(K):
        tmp[c] = prefix[b * K + c] - prefix[a * K + c]
    return leaf_loss(tmp, K, cost, cols, ncols, NULL) + lam


cdef int segment_blocks(const double* prefix,   # IN (m + 1) x K cumulative class counts
                        int m,                  # IN number of blocks
                        int K,                  # IN number of classes
                        const double* cost,     # IN K x K cost per row / n
                        const int32_t* cols,    # IN the labels a leaf tries
                        int ncols,              # IN (`_problem.distinct_columns`)
                        double lam,             # IN price of a leaf
                        int max_segments,       # IN at most this many segments (<= 0: m)
                        int* ends,              # OUT exclusive end block of each segment
                        double* value,          # OUT total value of the segmentation
                        ) noexcept nogil:
    """Return the number of segments of an optimal segmentation, or -1 if out of memory."""
    cdef int S = max_segments if 0 < max_segments < m else m
    cdef int layers = 1 if S >= m else S
    cdef double* g = <double*> malloc((layers + 1) * (m + 1) * sizeof(double))
    cdef int* arg = <int*> malloc((layers + 1) * (m + 1) * sizeof(int))
    cdef double* tmp = <double*> malloc(K * sizeof(double))
    cdef int s, a, b, n_seg, cur
    cdef double v, best
    if g == NULL or arg == NULL or tmp == NULL:
        free(g); free(arg); free(tmp)
        return -1
    if S >= m:
        # Unconstrained: g[b] = min_a g[a] + cost(a, b), layer 1 only.
        g[0] = 0.0
        for b in range(1, m + 1):
            best = 0.0
            cur = -1
            for a in range(b):
                v = g[a] + _seg_cost(prefix, a, b, K, cost, cols, ncols, lam, tmp)
                if cur < 0 or v < best:
                    best = v
                    cur = a
            g[b] = best
            arg[b] = cur
        value[0] = g[m]
        # Walk back from m: ends in reverse order.
        n_seg = 0
        b = m
        while b > 0:
            ends[n_seg] = b
            n_seg += 1
            b = arg[b]
    else:
        # g[s][b]: best over segmentations of blocks [0, b) into at most s segments.
        for b in range(m + 1):
            g[b] = 0.0 if b == 0 else 1e300  # layer 0: only the empty prefix
            arg[b] = -1
        for s in range(1, layers + 1):
            g[s * (m + 1)] = 0.0
            arg[s * (m + 1)] = -1
            for b in range(1, m + 1):
                best = g[(s - 1) * (m + 1) + b]
                cur = -2  # -2: same as with one segment fewer
                for a in range(b):
                    if g[(s - 1) * (m + 1) + a] >= 1e299:
                        continue
                    v = g[(s - 1) * (m + 1) + a] + _seg_cost(prefix, a, b, K, cost, cols, ncols, lam, tmp)
                    if v < best:
                        best = v
                        cur = a
                g[s * (m + 1) + b] = best
                arg[s * (m + 1) + b] = cur
        value[0] = g[layers * (m + 1) + m]
        n_seg = 0
        b = m
        s = layers
        while b > 0:
            cur = arg[s * (m + 1) + b]
            if cur == -2:
                s -= 1
                continue
            ends[n_seg] = b
            n_seg += 1
            b = cur
            s -= 1
    # Reverse to increasing order.
    for a in range(n_seg // 2):
        cur = ends[a]
        ends[a] = ends[n_seg - 1 - a]
        ends[n_seg - 1 - a] = cur
    free(g); free(arg); free(tmp)
    return n_seg


cdef node_t realise_segments(Ctx* c, const int32_t* rows, const int64_t* seg_row_end,
                             const int32_t* seg_split, int a, int b, int depth,
                             word_t* buf) noexcept nogil:
    """Create the balanced tree over segments [a, b) and mark each node solved.

    `rows` lists the node's rows sorted by the column; segment s covers
    rows[seg_row_end[s-1] : seg_row_end[s]]; `seg_split[s]` is the split that
    separates segment s from s + 1.  Each node of the realisation is solved: if a
    sub-range had a better tree within its depth, substituting it would improve
    the parent's optimal segmentation (every valid split of a descendant is on the
    same column, so its optimum is a segmentation too).  Returns -1 on a stop."""
    cdef int64_t r0 = 0 if a == 0 else seg_row_end[a - 1]
    cdef int64_t r1 = seg_row_end[b - 1]
    cdef int64_t i
    cdef node_t nid, lid, rid
    cdef int mid
    cdef int child_depth = depth - 1 if depth > 0 else -1
    memset(buf, 0, c.sp.nw * sizeof(word_t))
    for i in range(r0, r1):
        bs_set(buf, rows[i])
    nid = node_get_whole(c, buf, depth)
    if nid < 0:
        return -1
    if c.memo.nodes[nid].solved:
        return nid
    if b - a == 1:
        # Segmentation: a single segment is a leaf.
        settle_leaf(&c.memo.nodes[nid])
        return nid
    mid = a + (b - a + 1) // 2
    lid = realise_segments(c, rows, seg_row_end, seg_split, a, mid, child_depth, buf + c.sp.nw)
    if lid < 0:
        return -1
    rid = realise_segments(c, rows, seg_row_end, seg_split, mid, b, child_depth, buf + c.sp.nw)
    if rid < 0:
        return -1
    # Segmentation (optimal substructure, see above): solved at the realised value.
    settle_exact(&c.memo.nodes[nid], c.memo.nodes[lid].ub + c.memo.nodes[rid].ub,
                 seg_split[mid - 1])
    return nid


cdef int solve_single_column(Ctx* c, node_t nid, const word_t* X, int col) noexcept nogil:
    """Single-column rule: every valid split of X is on `col`, so R(X) is the best
    segmentation of X's rows sorted on `col` (at most 2**depth segments)."""
    cdef int64_t count = c.memo.nodes[nid].count
    cdef int K = c.sp.K
    cdef int32_t* rows = <int32_t*> malloc(count * sizeof(int32_t))
    cdef double* prefix = <double*> malloc((count + 1) * K * sizeof(double))
    cdef int64_t* block_end = <int64_t*> malloc(count * sizeof(int64_t))
    cdef int32_t* block_rank = <int32_t*> malloc(count * sizeof(int32_t))
    cdef int* ends = <int*> malloc((count + 1) * sizeof(int))
    cdef int64_t* seg_row_end = <int64_t*> malloc((count + 1) * sizeof(int64_t))
    cdef int32_t* seg_split = <int32_t*> malloc((count + 1) * sizeof(int32_t))
    cdef word_t* buf = <word_t*> malloc((<int64_t> 66) * c.sp.nw * sizeof(word_t))
    cdef int ret = -1
    if (rows != NULL and prefix != NULL and block_end != NULL and block_rank != NULL
            and ends != NULL and seg_row_end != NULL and seg_split != NULL and buf != NULL):
        ret = _segment_node(c, nid, X, col, rows, prefix, block_end, block_rank, ends,
                            seg_row_end, seg_split, buf)
    if ret < 0 and c.lim.stop == RUNNING:
        c.lim.stop = STOP_MEMORY
    free(rows); free(prefix); free(block_end); free(block_rank); free(ends)
    free(seg_row_end); free(seg_split); free(buf)
    return ret


cdef int _segment_node(Ctx* c, node_t nid, const word_t* X, int col, int32_t* rows,
                       double* prefix, int64_t* block_end, int32_t* block_rank, int* ends,
                       int64_t* seg_row_end, int32_t* seg_split, word_t* buf) noexcept nogil:
    cdef int K = c.sp.K
    cdef int depth = c.memo.nodes[nid].depth
    cdef const int32_t* order = c.sp.col_order + <int64_t> col * c.sp.n
    cdef const int32_t* rank = c.sp.row_rank + <int64_t> col * c.sp.n
    cdef int64_t i, p = 0
    cdef int m = 0, k, n_seg, max_seg, s
    cdef int32_t row, r
    cdef double value
    for k in range(K):
        prefix[k] = 0.0
    for i in range(c.sp.n):
        row = order[i]
        if not bs_test(X, row):
            continue
        rows[p] = row
        r = rank[row]
        if m == 0 or block_rank[m - 1] != r:
            m += 1
            block_rank[m - 1] = r
            for k in range(K):
                prefix[m * K + k] = prefix[(m - 1) * K + k]
        prefix[m * K + c.sp.y[row]] += 1.0
        p += 1
        block_end[m - 1] = p
    max_seg = 0
    if 0 <= depth < 30:
        max_seg = 1 << depth
    n_seg = segment_blocks(prefix, m, K, c.sp.cost, c.sp.pcols, c.sp.n_pcols, c.cfg.lam, max_seg, ends,
                           &value)
    if n_seg < 0:
        return -1
    if n_seg == 1:
        # Segmentation: the best tree is one leaf.
        settle_leaf(&c.memo.nodes[nid])
        return 0
    for s in range(n_seg):
        seg_row_end[s] = block_end[ends[s] - 1]
        # split "rank <= r" of this column, r the rank of the segment's last block
        seg_split[s] = c.sp.col_start[col] + block_rank[ends[s] - 1]
    if realise_segments(c, rows, seg_row_end, seg_split, 0, n_seg, depth, buf) < 0:
        return -1
    return 0
