"""Turn an extracted tree into a native scikit-learn DecisionTreeClassifier (or
DecisionTreeRegressor).

The compiled writer fills a node array of the *installed* sklearn's NODE_DTYPE,
which is handed to ``Tree.__setstate__`` -- the state API sklearn keeps stable
for old pickles -- so one build of fst works across sklearn releases (see
docs/native_tree.md).
"""
import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.tree._tree import NODE_DTYPE, Tree

from ._core._writer import fill_nodes

# The fields of sklearn's node array fst writes; any other field the installed
# release has is left zero.  Two more fields are known: ``missing_go_to_left``
# (0: NaN goes right, as fst sends it) and ``split_kind`` (a release with
# categorical splits: 0 a numeric split, -1 a leaf), written in `node_array`.
_WRITTEN = ("left_child", "right_child", "feature", "threshold", "impurity",
            "n_node_samples", "weighted_n_node_samples")


def _takes_categories():
    """Whether the installed sklearn's Tree takes each feature's number of
    categories (the releases with categorical splits, 1.10 and later:
    ``Tree(n_features, n_classes, n_outputs, n_categories)``) besides the three
    arguments of the releases before."""
    try:
        Tree(1, np.ones(1, dtype=np.intp), 1)
    except TypeError:
        return True
    return False


_TAKES_CATEGORIES = _takes_categories()


def new_tree(n_features, n_classes):
    """An empty sklearn Tree of one output for the installed release: where the
    Tree takes the features' numbers of categories, -1 for each (a numeric
    feature: fst splits every feature by threshold)."""
    n_classes = np.array([n_classes], dtype=np.intp)
    if _TAKES_CATEGORIES:
        return Tree(n_features, n_classes, 1, np.full(n_features, -1, dtype=np.intp))
    return Tree(n_features, n_classes, 1)


def node_array(split, left, right, weighted, n_samples, split_col, thresholds,
               dtype=NODE_DTYPE):
    """The node array of an extracted tree in `dtype` (the installed sklearn's
    NODE_DTYPE), filled by field name: the fields of `_WRITTEN` by the compiled
    writer, ``missing_go_to_left`` and ``split_kind`` where the dtype has them,
    and every other field zero -- so a field a newer release adds keeps the
    value of a plain numeric split."""
    nodes = np.zeros(len(split), dtype=dtype)
    names = dtype.names
    missing = (nodes["missing_go_to_left"] if "missing_go_to_left" in names
               else np.zeros(0, dtype=np.uint8))
    fill_nodes(split, left, right, weighted, n_samples, split_col, thresholds,
               *(nodes[name] for name in _WRITTEN), missing)
    if "split_kind" in names:
        nodes["split_kind"] = np.where(np.asarray(split) < 0, -1, 0)
    return nodes


def leaf_scores(weighted_counts, cost):
    """Per-node class scores stored as the tree's ``value``.

    Without a cost matrix these are the weighted class fractions (as sklearn
    stores them).  With one, the least-cost label need not be the most frequent,
    so the scores are ``max_j e_j - e_k`` normalised to sum to one, where ``e_k`` is
    the node's total cost of predicting class k: their argmax is the least-cost
    label (first on ties), so ``predict`` returns the label the solver chose.
    """
    if cost is None:
        total = weighted_counts.sum(axis=1, keepdims=True)
        total[total == 0] = 1.0
        return weighted_counts / total
    expected = weighted_counts @ cost  # (n_nodes, K): cost of predicting k
    score = expected.max(axis=1, keepdims=True) - expected
    total = score.sum(axis=1, keepdims=True)
    uniform = np.full_like(score, 1.0 / score.shape[1])
    return np.where(total > 0, score / np.where(total > 0, total, 1.0), uniform)


def build_estimator(problem, extracted, classes, pc_label, pc_weight, cost_for_scores,
                    n_features, feature_names=None, row_weight=None):
    """Build the fitted DecisionTreeClassifier of an extracted tree.

    Parameters
    ----------
    problem : Problem
        The split space (thresholds, split columns, labels).
    extracted : tuple
        ``(split, left, right, depth, rows)`` from ``Search.extract``.
    classes : ndarray of shape (n_classes,)
    pc_label, pc_weight : ndarrays of shape (n_search_classes,)
        The label and the weight of each class of the search (``problem.y``):
        the identity and the class weights, or one per (class, sample weight)
        pair of a weighted fit.
    cost_for_scores : ndarray of shape (n_classes, n_classes) or None
        The user's cost matrix, or None for 0/1 loss (see `leaf_scores`).
    row_weight : ndarray of shape (n_rows,) or None
        A weight per row of the problem (DPDT's sample weights), multiplying
        ``pc_weight``; None counts each row once.
    """
    split, left, right, depth, rows = extracted
    K = len(classes)
    n_pc = len(pc_label)
    n_nodes = len(split)
    weighted = np.zeros((n_nodes, K))
    n_samples = np.zeros(n_nodes, dtype=np.intp)
    for i, r in enumerate(rows):
        per_pc = np.bincount(problem.y[r], minlength=n_pc,
                             weights=None if row_weight is None else row_weight[r])
        per_pc = per_pc[:n_pc] * pc_weight
        weighted[i] = np.bincount(pc_label, weights=per_pc, minlength=K)
        n_samples[i] = len(r)
    nodes = node_array(split, left, right, weighted, n_samples, problem.split_col,
                       problem.thresholds)
    values = np.ascontiguousarray(
        leaf_scores(weighted, cost_for_scores).reshape(n_nodes, 1, K), dtype=np.float64)
    tree = new_tree(n_features, K)
    tree.__setstate__({
        "max_depth": int(depth.max()) if n_nodes else 0,
        "node_count": n_nodes,
        "nodes": nodes,
        "values": values,
    })
    est = _fitted(DecisionTreeClassifier(criterion="gini"), tree, n_features, feature_names)
    est.classes_ = np.asarray(classes)
    est.n_classes_ = np.intp(K)
    return est


def _fitted(est, tree, n_features, feature_names):
    """An sklearn tree estimator holding `tree`, with the fitted attributes
    both kinds share."""
    est.tree_ = tree
    if _TAKES_CATEGORIES:
        est.is_categorical_ = None      # every feature numeric, as sklearn's own fit says
    est.n_outputs_ = 1
    est.n_features_in_ = n_features
    est.max_features_ = n_features
    if feature_names is not None:
        est.feature_names_in_ = feature_names
    return est


def native_regressor(nodes, values, n_features, max_depth, feature_names=None):
    """A fitted DecisionTreeRegressor from a node array of sklearn's NODE_DTYPE
    and its values (n_nodes, 1, 1)."""
    tree = new_tree(n_features, 1)
    tree.__setstate__({"max_depth": int(max_depth), "node_count": len(nodes),
                       "nodes": nodes, "values": np.ascontiguousarray(values,
                                                                      dtype=np.float64)})
    return _fitted(DecisionTreeRegressor(), tree, n_features, feature_names)


def build_regressor(space, extracted, y, row_weight, n_features, feature_names=None):
    """The fitted DecisionTreeRegressor of a tree extracted from the engine's
    space (its rows are the training rows of positive weight, in order): each
    node's weighted mean (``value``), weighted variance (``impurity``), rows
    and weight, its split's column and threshold."""
    split, left, right, depth, rows = extracted
    live = np.ones(len(y), bool) if row_weight is None else row_weight > 0
    ys = y[live]
    ws = np.ones(len(ys)) if row_weight is None else row_weight[live]
    n_nodes = len(split)
    weighted = np.zeros((n_nodes, 1))
    n_samples = np.zeros(n_nodes, dtype=np.intp)
    mean = np.zeros(n_nodes)
    var = np.zeros(n_nodes)
    for i, r in enumerate(rows):
        wr = ws[r]
        total = wr.sum()
        weighted[i, 0] = total
        n_samples[i] = len(r)
        if total > 0:
            mean[i] = (wr * ys[r]).sum() / total
            var[i] = (wr * (ys[r] - mean[i]) ** 2).sum() / total
    nodes = node_array(split, left, right, weighted, n_samples, space.split_col,
                       space.thresholds)
    nodes["impurity"] = var
    return native_regressor(nodes, mean.reshape(n_nodes, 1, 1), n_features,
                      int(depth.max()) if n_nodes else 0, feature_names)


def tree_text(est, feature_names=None, missing=None, decimals=2):
    """A fitted native tree drawn as ``sklearn.tree.export_text`` draws it
    (classes by their label, a regressor's leaves by their value), with what
    happens to a missing value said: a split of numbers from NaN (threshold
    +inf) reads ``name is not missing`` / ``name is missing``, and on a column
    that held NaN in the fit (``missing[j]``; None: unknown) the side NaN goes
    to reads ``... or missing``."""
    t = est.tree_
    names = ([f"feature_{j}" for j in range(t.n_features)] if feature_names is None
             else [str(n) for n in feature_names])
    nan_left = getattr(t, "missing_go_to_left", np.zeros(t.node_count, dtype=np.uint8))
    classes = getattr(est, "classes_", None)
    lines = []

    def walk(node, depth):
        indent = ("|   " * depth)[:-3] + "---"
        if t.children_left[node] == -1:
            value = t.value[node][0]
            if classes is None:
                lines.append(f"{indent} value: [{value[0]:.{decimals}f}]")
            else:
                k = int(np.argmax(value))
                lines.append(f"{indent} class: {classes[k] if t.n_classes[0] != 1 else k}")
            return
        j, threshold = int(t.feature[node]), float(t.threshold[node])
        name = names[j]
        if np.isposinf(threshold):
            left, right = f"{name} is not missing", f"{name} is missing"
        else:
            left = f"{name} <= {threshold:.{decimals}f}"
            right = f"{name} >  {threshold:.{decimals}f}"
            if missing is not None and missing[j]:
                if nan_left[node]:
                    left += " or missing"
                else:
                    right += " or missing"
        lines.append(f"{indent} {left}")
        walk(int(t.children_left[node]), depth + 1)
        lines.append(f"{indent} {right}")
        walk(int(t.children_right[node]), depth + 1)

    walk(0, 1)
    return "\n".join(lines) + "\n"
