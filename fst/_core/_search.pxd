# The budgeted certified search: `solve(X, B)` on an explicit stack of frames.
from ._typedefs cimport word_t, node_t, int32_t
from ._context cimport Ctx, Cand, Key

cdef struct Frame:
    # One open `solve(nid, B)` on the search's frame stack: what a level of a
    # recursion would hold on the C stack.  The arrays are the frame's own (heap),
    # so a frame above it, or a store that moves as it grows, never invalidates
    # them; nodes are always re-read by id.
    node_t nid               # the node being expanded
    double B                 # its budget
    const int32_t* cand      # the splits it may use: its parent's valid splits
    int ncand
    int state                # F_* (_search.pyx)
    word_t* X                # its rows (nw words)
    int32_t* valid           # its valid splits (ncand + 1)
    double* cnt              # its class counts (K)
    Cand* cands              # one per valid split (ncand + 1)
    int nvalid               # valid splits
    int n_cands              # candidates whose children were looked up (flushed)
    Key* keys                # the candidates in search order (state F_LOOP on)
    int nkeys
    int k                    # the loop's next key
    int i                    # the candidate being searched
    double best              # the loop's incumbent
    double cap               # min(B, best) when the candidate was taken
    double bl                # its first child's budget
    double br                # its second child's budget
    node_t first             # its child searched first (the one of fewer rows)
    node_t second
    int want                 # 1: solve `child` first (then this frame resumes)
    node_t child
    double child_B
    const int32_t* child_cand
    int child_ncand
    int restricted           # a parallel root: its loop runs over this thread's splits
    double si_min            # the least shared incumbent its loop capped at, else INF

cdef void solve(Ctx* c, node_t nid, const int32_t* cand, int ncand, double B) noexcept nogil
cdef int canonical_ties(Ctx* c, node_t nid, double V, const int32_t* all_splits,
                        int n_all, int32_t* splits, node_t* left, node_t* right,
                        int rec_leaves) noexcept nogil
