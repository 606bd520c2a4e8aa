"""The sklearn writer, shared by both estimators: a tree's nodes written straight
into the fields of a node array of the installed scikit-learn's NODE_DTYPE
(`fst._export` hands it to `Tree.__setstate__`), so one build works across
scikit-learn releases (docs/native_tree.md).
"""
cimport numpy as cnp
from libc.stdint cimport uint8_t, int32_t

cnp.import_array()


def fill_nodes(const cnp.intp_t[::1] split,            # IN split of each node, -1 leaf
               const cnp.intp_t[::1] left,             # IN left child id, -1 leaf
               const cnp.intp_t[::1] right,            # IN right child id, -1 leaf
               const double[:, ::1] weighted_counts,   # IN class weight sums per node
               const cnp.intp_t[::1] n_samples,        # IN rows per node
               const int32_t[::1] split_col,           # IN column of each split
               const double[::1] thresholds,           # IN threshold of each split
               cnp.intp_t[:] out_left,                 # OUT fields of sklearn's node array
               cnp.intp_t[:] out_right,
               cnp.intp_t[:] out_feature,
               double[:] out_threshold,
               double[:] out_impurity,
               cnp.intp_t[:] out_n,
               double[:] out_wn,
               uint8_t[:] out_missing_left):
    """Write the extracted tree straight into the fields of a node array of the
    installed sklearn's NODE_DTYPE (strided views of its fields).

    Leaves get feature -2 and threshold -2.0 as sklearn's own; every node sends
    NaN right (fst's rule: NaN is larger than every number).  Impurity is Gini
    `1 - sum(c**2) / w**2` so that feature_importances_ are consistent."""
    cdef Py_ssize_t i, k, n_nodes = split.shape[0], K = weighted_counts.shape[1]
    cdef double w, sq
    cdef bint has_missing = out_missing_left.shape[0] > 0
    with nogil:
        for i in range(n_nodes):
            w = 0.0
            sq = 0.0
            for k in range(K):
                w += weighted_counts[i, k]
                sq += weighted_counts[i, k] * weighted_counts[i, k]
            out_impurity[i] = 1.0 - sq / (w * w) if w > 0 else 0.0
            out_n[i] = n_samples[i]
            out_wn[i] = w
            if split[i] < 0:
                out_left[i] = -1
                out_right[i] = -1
                out_feature[i] = -2
                out_threshold[i] = -2.0
            else:
                out_left[i] = left[i]
                out_right[i] = right[i]
                out_feature[i] = split_col[split[i]]
                out_threshold[i] = thresholds[split[i]]
            if has_missing:
                out_missing_left[i] = 0
