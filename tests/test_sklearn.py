"""scikit-learn conventions: estimator checks, cloning, persistence, and the
native tree working with sklearn's inspection tools."""
import io
import pickle

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, make_classification
from sklearn.inspection import partial_dependence, permutation_importance
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier, export_graphviz, export_text, plot_tree
from sklearn.utils.estimator_checks import parametrize_with_checks

from fst import FastSmallTreeClassifier, FastSmallTreeClassifierCV
from fst.exceptions import ConstantTreeWarning


def _expected_failed_checks(estimator):
    # No check is impossible for an exact solver: every one must pass.
    return {}


# Cheap configurations: the checks fit random labels (check_dtype_object), the
# worst case of an exact search; one depth-limited, one unlimited, and the
# cross-validated estimator.
@parametrize_with_checks(
    [FastSmallTreeClassifier(regularization=0.05, max_depth=2),
     FastSmallTreeClassifier(regularization=0.2),
     FastSmallTreeClassifierCV([0.05, 0.2], cv=3, max_depth=2)],
    expected_failed_checks=_expected_failed_checks)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def iris_fit():
    X, y = load_iris(return_X_y=True)
    return X, y, FastSmallTreeClassifier(regularization=0.02).fit(X, y)


def test_estimator_is_native_tree(iris_fit):
    X, y, clf = iris_fit
    est = clf.estimator_
    assert type(est) is DecisionTreeClassifier
    np.testing.assert_array_equal(clf.predict(X), est.predict(X))
    np.testing.assert_allclose(clf.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(clf.apply(X), est.apply(X))
    assert (clf.decision_path(X) != est.decision_path(X)).nnz == 0
    assert clf.score(X, y) == pytest.approx((clf.predict(X) == y).mean())
    # the known optimum for iris at 0.02, 0.10: three leaves and 6 errors, or four
    # leaves and 3 errors (the canonical tree: the lowest split index reaching it)
    assert clf.optimal_ and clf.n_leaves_ == est.get_n_leaves()
    assert clf.objective_ == pytest.approx(6 / 150 + 3 * 0.02)
    errors = (clf.predict(X) != y).sum()
    assert clf.objective_ == pytest.approx(errors / 150 + 0.02 * clf.n_leaves_)


def test_clone_pickle_joblib(iris_fit, tmp_path):
    X, y, clf = iris_fit
    c2 = clone(clf)
    assert c2.get_params() == clf.get_params()
    assert not hasattr(c2, "estimator_")
    restored = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(restored.predict(X), clf.predict(X))
    path = tmp_path / "model.joblib"
    joblib.dump(clf, path)
    loaded = joblib.load(path)
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    est = pickle.loads(pickle.dumps(clf.estimator_))
    np.testing.assert_array_equal(est.predict(X), clf.predict(X))


def test_export_text_and_graphviz(iris_fit):
    X, y, clf = iris_fit
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    text = export_text(clf.estimator_, feature_names=names)
    assert "petal length <= 2.45" in text
    assert text.count("class:") == clf.n_leaves_
    dot = export_graphviz(clf.estimator_, feature_names=names, out_file=None)
    assert dot.startswith("digraph") and "petal length" in dot


def test_plot_tree(iris_fit):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y, clf = iris_fit
    fig, ax = plt.subplots()
    annotations = plot_tree(clf.estimator_, ax=ax)
    boxes = [a for a in annotations if "samples =" in a.get_text()]
    assert len(boxes) == clf.estimator_.tree_.node_count
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    assert buf.getvalue()[:4] == b"\x89PNG"


def test_feature_importances_match_sklearn_formula(iris_fit):
    X, y, clf = iris_fit
    imp = clf.estimator_.feature_importances_
    assert imp.sum() == pytest.approx(1.0)
    # Only the split features have importance.
    used = set(clf.estimator_.tree_.feature[clf.estimator_.tree_.feature >= 0])
    assert set(np.flatnonzero(imp)) == used
    # A CART tree refitted with the same structure gives the same impurities.
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    np.testing.assert_allclose(
        cart.tree_.impurity[0], clf.estimator_.tree_.impurity[0])


def test_importances_depth_and_leaves_on_the_estimator(iris_fit):
    """The fst estimator answers what sklearn's tree does (feature_importances_,
    get_depth, get_n_leaves), so SelectFromModel takes it unfitted."""
    from sklearn.exceptions import NotFittedError
    from sklearn.feature_selection import SelectFromModel
    X, y, clf = iris_fit
    np.testing.assert_array_equal(clf.feature_importances_,
                                  clf.estimator_.feature_importances_)
    assert clf.get_depth() == clf.estimator_.get_depth()
    assert clf.get_n_leaves() == clf.n_leaves_ == clf.estimator_.get_n_leaves()
    sel = SelectFromModel(FastSmallTreeClassifier(regularization=0.02)).fit(X, y)
    # its default threshold: the mean importance
    imp = clf.feature_importances_
    np.testing.assert_array_equal(sel.get_support(), imp >= imp.mean())
    fresh = FastSmallTreeClassifier()
    assert not hasattr(fresh, "feature_importances_")
    with pytest.raises(NotFittedError):
        fresh.get_depth()


def test_permutation_importance_and_partial_dependence(iris_fit):
    X, y, clf = iris_fit
    r = permutation_importance(clf.estimator_, X, y, n_repeats=3, random_state=0)
    assert r.importances_mean.shape == (4,)
    assert r.importances_mean[2] > 0 or r.importances_mean[3] > 0
    r2 = permutation_importance(clf, X, y, n_repeats=3, random_state=0)
    np.testing.assert_allclose(r.importances_mean, r2.importances_mean)
    pd_res = partial_dependence(clf.estimator_, X, [2], method="brute")
    assert pd_res["average"].shape[0] == 3
    assert np.all((pd_res["average"] >= 0) & (pd_res["average"] <= 1))


def test_grid_search_goes_through_fst(iris_fit):
    X, y, _ = iris_fit
    gs = GridSearchCV(FastSmallTreeClassifier(), {"regularization": [0.01, 0.05]}, cv=3)
    gs.fit(X, y)
    assert gs.best_params_["regularization"] in (0.01, 0.05)
    assert isinstance(gs.best_estimator_.estimator_, DecisionTreeClassifier)


def test_dataframe_feature_names_and_string_labels():
    pd = pytest.importorskip("pandas")
    X, y = load_iris(return_X_y=True, as_frame=True)
    X.columns = [c.replace(" (cm)", "").replace(" ", "_") for c in X.columns]
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = FastSmallTreeClassifier(regularization=0.05).fit(X, labels)
    np.testing.assert_array_equal(clf.feature_names_in_, X.columns)
    np.testing.assert_array_equal(clf.estimator_.feature_names_in_, X.columns)
    assert set(clf.predict(X)) <= set(labels)
    assert "petal_length" in export_text(clf.estimator_,
                                         feature_names=list(clf.feature_names_in_))
    with pytest.warns(UserWarning, match="feature names") as record:
        clf.predict(X.to_numpy())
    assert len(record) == 1  # one warning, not one from fst and one from the tree
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        clf.predict(X)


def test_non_contiguous_integer_labels():
    X, y = make_classification(n_samples=80, n_features=4, n_informative=2,
                               n_redundant=0, random_state=0)
    labels = np.where(y == 1, 17, -3)
    clf = FastSmallTreeClassifier(regularization=0.05).fit(X, labels)
    np.testing.assert_array_equal(clf.classes_, [-3, 17])
    assert set(clf.predict(X)) <= {-3, 17}


def test_single_class_gives_one_leaf():
    X = np.arange(12.0).reshape(6, 2)
    clf = FastSmallTreeClassifier().fit(X, ["a"] * 6)
    assert clf.n_leaves_ == 1 and clf.optimal_
    assert clf.objective_ == pytest.approx(0.05)
    assert list(clf.predict(X)) == ["a"] * 6


def test_print_shows_the_tree_and_its_certificate(iris_fit):
    X, y, clf = iris_fit
    text = str(clf)
    assert text == clf.summary()
    assert "status     optimal  (certified optimal)" in text
    assert f"objective  {clf.objective_:.6g}" in text and "gap 0" in text
    assert f"{clf.n_leaves_} leaves" in text
    assert export_text(clf.estimator_).rstrip("\n") in text
    # unfitted, print is the estimator's repr
    assert str(FastSmallTreeClassifier(regularization=0.1)) == \
        "FastSmallTreeClassifier(regularization=0.1)"



def test_print_says_where_a_missing_value_goes():
    """A split of numbers from NaN prints as "is not missing" / "is missing";
    on a column that held NaN, the side NaN goes to (right) says "or missing";
    the other columns print as export_text prints them, and the tree predicts
    as printed."""
    from fst import FastSmallTreeRegressor
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    miss = rng.random(300) < 0.3
    X[miss, 0] = np.nan
    y = (miss | (X[:, 1] > 0.5)).astype(int)
    clf = FastSmallTreeClassifier(regularization=0.01, max_depth=2).fit(X, y)
    lines = clf.summary(feature_names=["a", "b"]).splitlines()
    a_sides = [line for line in lines if line.startswith("|--- a ")]
    assert len(a_sides) == 2
    assert a_sides[0].startswith("|--- a <= ") and not a_sides[0].endswith("missing")
    assert a_sides[1].startswith("|--- a >  ") and a_sides[1].endswith(" or missing")
    b_sides = [line for line in lines if "--- b " in line]
    assert b_sides and not any("missing" in line for line in b_sides)
    assert clf.predict(np.array([[np.nan, -1.0]]))[0] == 1
    # numbers against NaN alone
    X = np.where(rng.random((300, 1)) < 0.5, np.nan, rng.normal(size=(300, 1)))
    clf = FastSmallTreeClassifier(regularization=0.01).fit(X, np.isnan(X[:, 0]).astype(int))
    assert clf.summary().endswith("|--- feature_0 is not missing\n|   |--- class: 0\n"
                                  "|--- feature_0 is missing\n|   |--- class: 1")
    # a regressor, NaN apart
    X = rng.normal(size=(300, 2))
    X[rng.random(300) < 0.2, 1] = np.nan
    target = np.where(np.isnan(X[:, 1]), 5.0, X[:, 0])
    reg = FastSmallTreeRegressor(regularization=0.01, max_depth=2).fit(X, target)
    lines = reg.summary().splitlines()
    assert "|--- feature_1 is not missing" in lines and "|--- feature_1 is missing" in lines
    assert not any("feature_0" in line and "missing" in line for line in lines)
    assert reg.predict(np.array([[0.0, np.nan]]))[0] == pytest.approx(5.0)


def test_categorical_and_text_columns_are_refused_with_what_to_do():
    import pandas as pd

    from fst import DPDTClassifier, FastSmallTreeClassifierCV
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0] * 3,
                      "colour": pd.Categorical(["red", "blue", "red", "green"] * 3),
                      "town": ["x", "y", "x", "y"] * 3})
    y = [0, 1, 0, 1] * 3
    for est in (FastSmallTreeClassifier(), DPDTClassifier(max_depth=2),
                FastSmallTreeClassifierCV([0.1], cv=2)):
        with pytest.raises(ValueError, match=r"'colour', 'town' are categorical or text"
                                             r".*get_dummies.*TargetEncoder"):
            est.fit(X, y)
    # once encoded, it fits
    FastSmallTreeClassifier(regularization=0.1).fit(pd.get_dummies(X, dtype=float), y)


def test_dtreeviz_renders_the_native_tree(iris_fit, tmp_path):
    import shutil

    import dtreeviz
    if shutil.which("dot") is None:
        pytest.fail("dtreeviz needs the Graphviz binary 'dot' (apt-get install graphviz)")
    X, y, clf = iris_fit
    viz = dtreeviz.model(clf.estimator_, X_train=X, y_train=y,
                         feature_names=["sl", "sw", "pl", "pw"],
                         class_names=["setosa", "versicolor", "virginica"])
    svg = viz.view().svg()
    assert svg.lstrip().startswith("<?xml") or "<svg" in svg
    assert "pl" in svg
    path = tmp_path / "tree.svg"
    viz.view().save(str(path))
    assert path.stat().st_size > 1000


def _three_nodes():
    """A split on column 4 at 0.5 and its two leaves, as the writer takes them."""
    import numpy as np
    return (np.array([0, -1, -1], dtype=np.intp), np.array([1, -1, -1], dtype=np.intp),
            np.array([2, -1, -1], dtype=np.intp), np.array([[6.0, 4.0], [5.0, 1.0],
                                                             [1.0, 3.0]]),
            np.array([10, 6, 4], dtype=np.intp), np.array([4], dtype=np.int32),
            np.array([0.5]))


def test_the_writer_fills_a_node_dtype_with_fields_it_does_not_know():
    """The node array is filled by field name from the installed release's
    dtype: against the layout of a release with categorical splits (a category
    bitset, a split kind, in the middle and at the end) the known fields hold
    what they hold in today's dtype, a split is numeric (kind 0), a leaf kind -1,
    and every field fst does not know is zero."""
    import numpy as np
    from sklearn.tree._tree import NODE_DTYPE

    from fst._export import node_array
    extended = np.dtype([("left_child", np.intp), ("right_child", np.intp),
                         ("feature", np.intp), ("threshold", np.float64),
                         ("left_cat_bitset", (np.uint32, 8)), ("impurity", np.float64),
                         ("n_node_samples", np.intp),
                         ("weighted_n_node_samples", np.float64),
                         ("missing_go_to_left", np.uint8), ("split_kind", np.int8),
                         ("a_field_to_come", np.float64)], align=True)
    today = node_array(*_three_nodes())
    new = node_array(*_three_nodes(), dtype=extended)
    for name in NODE_DTYPE.names:
        assert np.array_equal(new[name], today[name]), name
    assert list(new["feature"]) == [4, -2, -2] and new["threshold"][0] == 0.5
    assert list(new["split_kind"]) == [0, -1, -1]
    assert not new["left_cat_bitset"].any() and not new["a_field_to_come"].any()
    assert not new["missing_go_to_left"].any()          # NaN goes right


def test_the_tree_is_made_for_the_installed_release(monkeypatch):
    """A release whose Tree takes each feature's number of categories gets -1
    for each (numeric); the installed one is told apart by trying."""
    import fst._export as export
    made = []

    class CategoricalTree:
        def __init__(self, n_features, n_classes, n_outputs, n_categories):
            made.append((n_features, list(n_classes), n_outputs, list(n_categories)))

    monkeypatch.setattr(export, "Tree", CategoricalTree)
    assert export._takes_categories()
    monkeypatch.setattr(export, "_TAKES_CATEGORIES", True)
    export.new_tree(3, 2)
    assert made == [(3, [2], 1, [-1, -1, -1])]
    monkeypatch.undo()
    assert not export._takes_categories()       # the installed release (< 1.10)
    tree = export.new_tree(3, 2)
    assert tree.n_features == 3 and list(tree.n_classes) == [2]


def test_a_cpu_without_popcnt_is_named_at_import(tmp_path, monkeypatch):
    """The core uses POPCNT on x86-64: a CPU whose flags lack it is refused
    with a reason at import, not killed by an illegal instruction."""
    import platform
    import sys

    from fst._core import cpu_lacks_popcnt
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    old = tmp_path / "old"
    old.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 ssse3\n\n"
                   "processor\t: 1\nflags\t\t: fpu sse sse2 ssse3\n")
    new = tmp_path / "new"
    new.write_text("processor\t: 0\nflags\t\t: fpu sse2 popcnt avx2\n")
    assert cpu_lacks_popcnt(str(old)) and not cpu_lacks_popcnt(str(new))
    assert not cpu_lacks_popcnt(str(tmp_path / "unreadable"))
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert not cpu_lacks_popcnt(str(old))
    monkeypatch.undo()
    assert not cpu_lacks_popcnt()        # this machine runs the suite
