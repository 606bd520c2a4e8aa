"""Bad input gets a clear ValueError naming the problem, before any work."""
import warnings

import numpy as np
import pytest

from fst import FastSmallTreeClassifier
from fst.exceptions import ConstantTreeWarning

X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
y = np.array([0, 1, 0, 1])


@pytest.mark.parametrize("value", [-0.1, float("nan"), float("inf"), -np.inf])
def test_bad_regularization(value):
    with pytest.raises(ValueError, match="'regularization' parameter"):
        FastSmallTreeClassifier(regularization=value).fit(X, y)


@pytest.mark.parametrize("cost, match", [
    ([[0, -1], [1, 0]], "finite values >= 0"),
    ([[0, np.nan], [1, 0]], "finite values >= 0"),
    ([[0, np.inf], [1, 0]], "finite values >= 0"),
    ([[0, 1, 1], [1, 0, 1], [1, 1, 0]], r"shape \(n_classes, n_classes\) = \(2, 2\)"),
    ([0, 1], r"shape"),
    ([["a", "b"], ["c", "d"]], "numeric array"),
])
def test_bad_cost_matrix(cost, match):
    with pytest.raises(ValueError, match=match):
        FastSmallTreeClassifier(cost_matrix=cost).fit(X, y)


@pytest.mark.parametrize("value", [-1, 1.5, "3"])
def test_bad_max_depth(value):
    with pytest.raises(ValueError, match="'max_depth' parameter"):
        FastSmallTreeClassifier(max_depth=value).fit(X, y)


def test_max_depth_at_least_the_rows_is_no_limit():
    # A tree on n rows has depth at most n - 1, so such a limit is none, however
    # large (the search keeps a node's depth left in 16 bits).
    rng = np.random.RandomState(0)
    Xr = rng.randint(0, 3, size=(40, 3)).astype(float)
    yr = rng.randint(0, 2, size=40)
    ref = FastSmallTreeClassifier(regularization=0.01).fit(Xr, yr)
    for depth in (40, 10**6):
        clf = FastSmallTreeClassifier(regularization=0.01, max_depth=depth).fit(Xr, yr)
        assert clf.optimal_ and clf.objective_ == pytest.approx(ref.objective_, abs=1e-12)


def test_max_depth_beyond_16_bits_below_the_rows():
    Xb = (np.arange(40000) % 2).astype(float).reshape(-1, 1)
    yb = (np.arange(40000) % 3 == 0).astype(int)
    with pytest.raises(ValueError, match="max_depth=35000 is above 32766"):
        FastSmallTreeClassifier(regularization=0.01, max_depth=35000).fit(Xb, yb)


def test_dpdt_max_depth_beyond_16_bits():
    from fst import DPDTClassifier
    with pytest.raises(ValueError, match="max_depth=40000 is above 32765"):
        DPDTClassifier(max_depth=40000, cart_depth=1).fit(X, y)


@pytest.mark.parametrize("param, value", [
    ("time_limit", -1.0), ("time_limit", float("inf")), ("time_limit", float("nan")),
    ("time_limit", 0), ("time_limit", 0.0), ("max_depth", 0),
    ("memory_limit", 0), ("memory_limit", -5), ("memory_limit", 0.5),
    ("memory_limit", "lots"), ("memory_limit", "2 parsecs"), ("memory_limit", "-1GB"),
    ("n_jobs", 0), ("class_weight", "auto"),
])
def test_bad_other_parameters(param, value):
    with pytest.raises(ValueError, match=f"'{param}' parameter"):
        FastSmallTreeClassifier(**{param: value}).fit(X, y)


def test_time_limit_zero_says_how_to_ask_for_no_limit():
    with pytest.raises(ValueError, match="> 0, or None for no limit"):
        FastSmallTreeClassifier(time_limit=0).fit(X, y)


@pytest.mark.parametrize("given, expected", [
    (8e9, 8_000_000_000), (8_000_000_000, 8_000_000_000), ("20GB", 20_000_000_000),
    ("4.5 GiB", 9 * 2**29), ("5120MB", 5_120_000_000), ("8000000000", 8_000_000_000),
    ("64gib", 64 * 2**30), (1e10 + 0.5, 10_000_000_000),
])
def test_memory_limit_takes_floats_and_strings(given, expected):
    clf = FastSmallTreeClassifier(regularization=0.1, memory_limit=given).fit(X, y)
    assert clf.search_stats_["memory_limit"] == expected


@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1e39])
# numpy warns when 1e39 becomes inf in the cast to float32 (as for sklearn's own trees)
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_infinite_or_out_of_float32_range_X(bad):
    Xb = X.copy()
    Xb[1, 1] = bad
    with pytest.raises(ValueError, match="infinity or a value too large"):
        FastSmallTreeClassifier().fit(Xb, y)


def test_shape_mismatch_empty_and_non_numeric():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        FastSmallTreeClassifier().fit(X, y[:3])
    with pytest.raises(ValueError, match="0 sample"):
        FastSmallTreeClassifier().fit(np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="0 feature"):
        FastSmallTreeClassifier().fit(np.zeros((4, 0)), y)
    with pytest.raises(ValueError, match="could not convert|string"):
        FastSmallTreeClassifier().fit(np.array([["a", "b"]] * 4), y)
    with pytest.raises(ValueError, match="Unknown label type|continuous"):
        FastSmallTreeClassifier().fit(X, [0.5, 1.5, 2.5, 3.5])


def test_predict_checks_features():
    clf = FastSmallTreeClassifier().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but FastSmallTreeClassifier is expecting 2"):
        clf.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="infinity"):
        clf.predict(np.array([[np.inf, 0.0]]))


def test_zero_regularization_without_depth_warns_but_runs():
    with pytest.warns(UserWarning, match="unbounded"):
        clf = FastSmallTreeClassifier(regularization=0.0).fit(X, y)
    assert clf.optimal_ and clf.objective_ == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConstantTreeWarning)
        FastSmallTreeClassifier(regularization=0.0, max_depth=2).fit(X, y)


@pytest.mark.parametrize("weight", [-1.0, -1e-300, np.nan, np.inf])
def test_bad_class_weight_is_named(weight):
    """A class weight scales a row of the costs, which every bound needs >= 0: a
    negative one made a negative objective (-0.49 on this data), NaN or inf a NaN
    one, all certified, before this check."""
    X = np.arange(10.0).reshape(-1, 1)
    y = np.array([0, 1] * 5)
    with pytest.raises(ValueError, match="class_weight.*finite weight >= 0.*class 0"):
        FastSmallTreeClassifier(regularization=0.01, class_weight={0: weight, 1: 2.0}).fit(X, y)
    # a zero weight is allowed: that class costs nothing
    clf = FastSmallTreeClassifier(regularization=0.01, class_weight={0: 0.0, 1: 2.0}).fit(X, y)
    assert clf.optimal_ and clf.objective_ == pytest.approx(0.01)


def test_class_weight_and_cost_matrix_multiply():
    rng = np.random.default_rng(0)
    Xr = rng.integers(0, 3, size=(30, 3)).astype(float)
    yr = rng.integers(0, 2, size=30)
    cost = np.array([[0.0, 2.0], [1.0, 0.5]])
    weights = {0: 3.0, 1: 0.5}
    a = FastSmallTreeClassifier(regularization=0.02, cost_matrix=cost,
                                class_weight=weights).fit(Xr, yr)
    combined = cost * np.array([3.0, 0.5])[:, None]
    b = FastSmallTreeClassifier(regularization=0.02, cost_matrix=combined).fit(Xr, yr)
    assert a.objective_ == pytest.approx(b.objective_)
    np.testing.assert_array_equal(a.predict(Xr), b.predict(Xr))
    bal = FastSmallTreeClassifier(regularization=0.02, class_weight="balanced").fit(Xr, yr)
    assert bal.optimal_
