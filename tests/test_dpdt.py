"""DPDTClassifier: exhaustive oracle, Proposition 2 against CART, the front."""
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from fst import DPDTClassifier, IncompleteMDPWarning
from oracle import optimal_objective, optimal_objective_tests, tree_objective

ALPHAS = [0.0, 0.001, 0.01, 0.03, 0.07, 0.15, 0.4, 1.0, 3.0]


def _small_problem(seed):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(3, 22))
    K = 2 if seed % 3 else 3
    kind = seed % 3
    if kind == 0:
        p = int(rng.integers(1, 5))
        X = rng.integers(0, 2, size=(n, p)).astype(float)
    elif kind == 1:
        p = int(rng.integers(1, 4))
        X = rng.integers(0, 4, size=(n, p)).astype(float)
    else:
        p = int(rng.integers(1, 3))
        X = rng.integers(-2, 3, size=(n, p)).astype(float)
        X[rng.random((n, p)) < 0.15] = np.nan
    y = rng.integers(0, K, size=n)
    y[: min(K, n)] = np.arange(min(K, n))
    cost = rng.uniform(0, 3, size=(K, K)) if seed % 2 else None
    if cost is not None and seed % 5 == 0:
        cost[np.diag_indices(K)] = 0.0
    return X, y, cost


def _full_cost(cost, classes):
    K = len(classes)
    return (np.ones((K, K)) - np.eye(K)) if cost is None else cost[np.ix_(classes, classes)]


def _optimal_objective(X, y_idx, full, a, max_depth, complexity, weights=None):
    if complexity == "tests":
        return optimal_objective_tests(X, y_idx, full, a, max_depth, weights=weights)
    return optimal_objective(X, y_idx, full, a, max_depth, weights=weights)


def _assert_optimal_at_every_alpha(clf, X, y_idx, full, max_depth, complexity,
                                   weights=None):
    """For every alpha of ALPHAS the tree returned has the brute-force optimum,
    re-scored from the raw data."""
    for a in ALPHAS:
        expected = _optimal_objective(X, y_idx, full, a, max_depth, complexity, weights)
        tree = clf.tree_at(a)
        assert tree.get_depth() <= max_depth
        got = tree_objective(tree, X, y_idx, full, a, complexity, clf.classes_,
                             weights=weights)
        assert got == pytest.approx(expected, abs=1e-9), (a, got, expected)


@pytest.mark.parametrize("seed", range(120))
def test_all_tests_equals_exhaustive_oracle(seed):
    """cart_depth='all' spans every depth-limited tree: for every alpha the tree
    returned is optimal, re-scored from the raw data."""
    X, y, cost = _small_problem(seed)
    max_depth = 1 + seed % 3
    complexity = "tests" if seed % 2 == 0 else "leaves"
    clf = DPDTClassifier(max_depth=max_depth, cart_depth="all", complexity=complexity,
                         alphas=ALPHAS, cost_matrix=cost).fit(X, y)
    classes, y_idx = np.unique(y, return_inverse=True)
    full = _full_cost(cost, classes)
    _assert_optimal_at_every_alpha(clf, X, y_idx, full, max_depth, complexity)
    # every tree of the front is optimal at both ends of its interval
    f = clf.pareto_front_
    for t, lo, hi in zip(clf.trees_, f["alpha_min"], f["alpha_max"]):
        for a in (lo, hi if np.isfinite(hi) else lo + 1.0):
            expected = _optimal_objective(X, y_idx, full, a, max_depth, complexity)
            assert tree_objective(t, X, y_idx, full, a, complexity, clf.classes_) == \
                pytest.approx(expected, abs=1e-9)


def _continuous(seed, n=150, p=4, K=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    w = rng.normal(size=(p, K))
    y = np.argmax(X @ w + rng.normal(scale=1.0, size=(n, K)), axis=1)
    return X, y


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(16))
def test_never_worse_than_cart_and_its_pruning_path(seed):
    """Proposition 2: for every alpha, the objective of DPDT's tree is at most that
    of CART (same criterion and depth) and of every tree on its pruning path.
    (With cart_depth=1 this test catches a generator that does not reproduce
    CART's splits: swapping the criterion fails it on several seeds.)"""
    K = 2 + seed % 3
    X, y = _continuous(seed, n=200 + 10 * seed, p=8, K=K)
    criterion = "entropy" if seed % 2 == 0 else "gini"
    max_depth = 2 + seed % 4
    cart_depth = [1, 2, 1, 4][(seed // 2) % 4]
    complexity = "tests" if seed % 4 < 2 else "leaves"
    growth = "best_first" if seed % 3 == 2 else "depth"
    clf = DPDTClassifier(max_depth=max_depth, cart_depth=cart_depth, criterion=criterion,
                         cart_growth=growth, complexity=complexity, alphas=50).fit(X, y)
    cart = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth,
                                  random_state=0).fit(X, y)
    path = cart.cost_complexity_pruning_path(X, y)
    trees = [cart] + [
        DecisionTreeClassifier(criterion=criterion, max_depth=max_depth, random_state=0,
                               ccp_alpha=a).fit(X, y)
        for a in path.ccp_alphas]
    classes, y_idx = np.unique(y, return_inverse=True)
    full = _full_cost(None, classes)
    for a in np.linspace(0, 0.2, 41):
        mine = tree_objective(clf.tree_at(a), X, y_idx, full, a, complexity, classes)
        theirs = min(tree_objective(t, X, y_idx, full, a, complexity, classes)
                     for t in trees)
        assert mine <= theirs + 1e-12, (a, mine, theirs)


@pytest.mark.slow
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("class_weighted", [False, True])
@pytest.mark.parametrize("growth", ["depth", "best_first"])
@pytest.mark.parametrize("seed", range(6))
def test_generator_reproduces_sklearn_cart(seed, growth, class_weighted, weighted):
    """The native tests generating function offers, at the root, the test nodes
    of sklearn's CART (same criterion; depth K, or 2^K leaves best first): for
    every CART test node whose best split is unique (and whose ancestors' are),
    a generated test splits that node's rows the same way.  With sample weights
    and class weights, against sklearn's CART fitted with the same weights."""
    from fst._core._mdp import MDP, GROWTH_BEST_FIRST, GROWTH_DEPTH
    from fst._core._problem import build_space

    X, y = _continuous(100 + seed, n=300, p=5, K=2 + seed % 2)
    X = X.astype(np.float32)
    criterion = ["entropy", "gini"][seed % 2]
    k = 2 + seed % 3
    sw = (np.random.default_rng(seed).uniform(0.1, 3.0, size=len(y)) if weighted
          else np.ones(len(y)))
    space = build_space(X, y)
    n_classes = len(np.unique(y))
    cw = (np.array([0.3, 2.5, 1.0])[:n_classes] if class_weighted else np.ones(n_classes))
    mdp = MDP(space, n_classes, np.ones((n_classes, n_classes)) - np.eye(n_classes),
              np.array([k, 1], np.int32), 1 if criterion == "entropy" else 0, 0,
              GROWTH_DEPTH if growth == "depth" else GROWTH_BEST_FIRST,
              weights=sw if weighted else None,
              class_weights=cw if class_weighted else None)
    mine = [(f, space.thresholds[space.col_start[f] + t]) for f, t in mdp.generate_tests(k)]
    kw = {"max_depth": k} if growth == "depth" else {"max_leaf_nodes": 2 ** k}
    if class_weighted:
        kw["class_weight"] = dict(enumerate(cw))
    cart = DecisionTreeClassifier(criterion=criterion, random_state=0, **kw).fit(
        X, y, sample_weight=sw if weighted else None)
    t = cart.tree_
    paths = cart.decision_path(X).toarray().astype(bool)

    def impurity(rows):
        # rows: a boolean mask of the node's rows
        labels, wr = y[rows], sw[rows] * cw[y[rows]]
        total = wr.sum()
        if labels.size == 0:
            return 0.0
        p = np.bincount(labels, weights=wr, minlength=n_classes) / total
        if criterion == "gini":
            return total * (1 - (p ** 2).sum())
        p = p[p > 0]
        return -total * (p * np.log(p)).sum()

    def best_is_unique(rows):
        # every split of the node's rows by brute force: is the best partition unique?
        scores = {}
        for g in range(X.shape[1]):
            vals = np.unique(X[rows, g])
            for u in vals[:-1]:
                part = X[rows, g] <= u
                idx = np.flatnonzero(rows)
                left = np.zeros(len(y), bool)
                left[idx[part]] = True
                right = np.zeros(len(y), bool)
                right[idx[~part]] = True
                scores[part.tobytes()] = impurity(left) + impurity(right)
        best = min(scores.values())
        return sum(v <= best + 1e-9 * (1 + best) for v in scores.values()) == 1

    checked, diverged = 0, set()
    for node in range(t.node_count):  # preorder: parents first
        if t.children_left[node] < 0:
            continue
        kids = (t.children_left[node], t.children_right[node])
        rows = paths[:, node]
        if node in diverged or not best_is_unique(rows):
            diverged.update(kids)  # an exact tie: CART's choice is arbitrary below
            continue
        theirs = X[rows, t.feature[node]] <= t.threshold[node]
        assert any(np.array_equal(X[rows, g] <= u, theirs) for g, u in mine), node
        checked += 1
    assert checked >= 3


def test_thresholds_are_midpoints_of_the_node_rows():
    X, y = _continuous(21, n=200, p=3, K=2)
    X32 = X.astype(np.float32)
    clf = DPDTClassifier(max_depth=3).fit(X, y)
    for est in clf.trees_:
        t = est.tree_
        paths = est.decision_path(X32).toarray().astype(bool)
        for node in np.flatnonzero(t.children_left >= 0):
            vals = X32[paths[:, node], t.feature[node]]
            left = paths[:, t.children_left[node]]
            u = X32[left, t.feature[node]].max()
            v = X32[paths[:, t.children_right[node]], t.feature[node]].min()
            assert u < v and vals.size
            assert t.threshold[node] == np.float64(u) / 2 + np.float64(v) / 2


def test_greedy_below_keeps_cart_and_shrinks_the_mdp():
    X, y = _continuous(5, n=400, p=6, K=3)
    full = DPDTClassifier(max_depth=4, cart_depth=3).fit(X, y)
    greedy = DPDTClassifier(max_depth=4, cart_depth=3, greedy_below=1).fit(X, y)
    assert greedy.n_states_ < full.n_states_
    cart = DecisionTreeClassifier(criterion="entropy", max_depth=4, random_state=0).fit(X, y)
    assert greedy.tree_at(0.0).score(X, y) >= cart.score(X, y)
    assert full.tree_at(0.0).score(X, y) >= greedy.tree_at(0.0).score(X, y)


def test_front_is_non_dominated_and_tree_at_returns_its_trees():
    X, y = _continuous(3, n=300, p=5, K=3)
    clf = DPDTClassifier(max_depth=4, cart_depth=2).fit(X, y)
    f = clf.pareto_front_
    comp, loss = f["expected_tests"], f["loss"]
    assert len(clf.trees_) >= 3
    assert np.all(np.diff(comp) > 0) and np.all(np.diff(loss) < 0)
    for i in range(len(comp)):
        for j in range(len(comp)):
            if i != j:
                assert not (comp[j] <= comp[i] and loss[j] <= loss[i])
    for t, lo, hi in zip(clf.trees_, f["alpha_min"], f["alpha_max"]):
        a = (lo + hi) / 2 if np.isfinite(hi) else lo + 1.0
        assert clf.tree_at(a) is t
        assert lo <= hi
    # estimator_ is the tree at alpha (0 by default: the most accurate)
    assert clf.estimator_ is clf.trees_[-1]
    assert clf.score(X, y) == pytest.approx(f["accuracy"][-1])
    assert f["depth"].max() <= 4 and f["n_leaves"][0] >= 1


def test_intervals_tile_the_alpha_axis():
    X, y = _continuous(8, n=200, p=3, K=2)
    clf = DPDTClassifier(max_depth=3, alphas=np.linspace(0, 2, 2001)).fit(X, y)
    f = clf.pareto_front_
    assert f["alpha_max"][0] == np.inf
    assert f["alpha_min"][-1] == 0.0
    # consecutive trees meet where one stops being optimal
    np.testing.assert_allclose(f["alpha_min"][:-1], f["alpha_max"][1:])


def test_results_do_not_depend_on_row_order():
    X, y = _continuous(11, n=250, p=4, K=3)
    a = DPDTClassifier(max_depth=3).fit(X, y)
    perm = np.random.default_rng(0).permutation(len(y))
    b = DPDTClassifier(max_depth=3).fit(X[perm], y[perm])
    for key in ("loss", "expected_tests", "n_leaves", "alpha_min"):
        np.testing.assert_allclose(a.pareto_front_[key], b.pareto_front_[key], atol=1e-12)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.n_states_ == b.n_states_


def test_identical_row_sets_share_a_state():
    # binary features: splitting on a then b or b then a reaches the same cells
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 5)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.random(200) > 1.5).astype(int)
    clf = DPDTClassifier(max_depth=3, cart_depth=3).fit(X, y)
    assert clf.mdp_stats_["states_saved"] > 0
    assert clf.n_states_ == sum(clf.mdp_stats_["states_per_depth"])


def test_depth_zero_is_refused_and_pure_data_is_one_leaf():
    X = np.arange(10.0).reshape(-1, 1)
    y = np.array([0, 1] * 5)
    with pytest.raises(ValueError, match="max_depth"):
        DPDTClassifier(max_depth=0).fit(X, y)
    clf = DPDTClassifier(max_depth=3).fit(X, np.zeros(10))
    assert clf.estimator_.get_n_leaves() == 1 and clf.n_states_ == 1


def test_cost_matrix_changes_the_labels():
    X, y = _continuous(2, n=200, p=3, K=2)
    cost = np.array([[0.0, 1.0], [10.0, 0.0]])  # missing class 1 is expensive
    clf = DPDTClassifier(max_depth=2, cost_matrix=cost).fit(X, y)
    plain = DPDTClassifier(max_depth=2).fit(X, y)
    assert (clf.predict(X) == 1).sum() > (plain.predict(X) == 1).sum()


def test_sklearn_integration(tmp_path):
    import joblib
    import pandas as pd
    from sklearn.tree import export_text

    X, y = _continuous(4, n=150, p=3, K=3)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    clf = DPDTClassifier(max_depth=2, alpha=0.01).fit(df, y)
    assert list(clf.feature_names_in_) == ["a", "b", "c"]
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(df), clf.predict(df))
    joblib.dump(clf, tmp_path / "m.joblib")
    np.testing.assert_array_equal(joblib.load(tmp_path / "m.joblib").predict(df),
                                  clf.predict(df))
    assert "a <=" in export_text(clf.estimator_, feature_names=["a", "b", "c"]) or \
        "b <=" in export_text(clf.estimator_, feature_names=["a", "b", "c"]) or \
        "c <=" in export_text(clf.estimator_, feature_names=["a", "b", "c"])
    c2 = clone(clf)
    assert c2.get_params() == clf.get_params() and not hasattr(c2, "estimator_")
    np.testing.assert_allclose(clf.predict_proba(df).sum(axis=1), 1.0)


def test_plot_front():
    import matplotlib
    matplotlib.use("Agg")
    X, y = _continuous(6, n=150, p=3, K=2)
    clf = DPDTClassifier(max_depth=3).fit(X, y)
    ax = clf.plot_front()
    assert ax.get_xlabel() == "expected number of tests"
    assert len(ax.lines) >= 2
    labels = [t.get_text() for t in ax.texts]
    assert len(labels) == len(clf.trees_)          # each point labelled
    f = clf.pareto_front_
    assert all(t.startswith("α ∈ [") for t in labels)
    assert f"α ∈ [{f['alpha_min'][0]:.3g}, ∞]" in labels
    ax = clf.plot_front(complexity="leaves")
    assert ax.get_xlabel() == "leaves"
    ax.figure.canvas.draw()
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_print_shows_the_front_and_the_chosen_tree():
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True, as_frame=True)
    clf = DPDTClassifier(max_depth=3, alpha=0.03).fit(X, y)
    text = str(clf)
    assert str(DPDTClassifier()) == repr(DPDTClassifier())       # not fitted
    lines = text.splitlines()
    assert lines[0].startswith(f"DPDTClassifier(max_depth=3, cart_depth=4): "
                               f"{len(clf.trees_)} trees on the front")
    f = clf.pareto_front_
    rows = lines[2:2 + len(clf.trees_)]
    for i, row in enumerate(rows):
        cells = row.split()
        assert float(cells[0]) == pytest.approx(f["alpha_min"][i], abs=1e-5)
        assert float(cells[2]) == pytest.approx(f["accuracy"][i], abs=1e-4)
        assert int(cells[4]) == f["n_leaves"][i] and int(cells[5]) == f["depth"][i]
    chosen = clf.tree_at(0.03)
    assert f"{chosen.get_n_leaves()} leaves" in lines[2 + len(clf.trees_)]
    assert "petal width (cm) <=" in text             # the tree, with column names
    assert clf.summary() == text


@pytest.mark.parametrize("params, match", [
    ({"cart_depth": [2, 2]}, "one value per depth"),
    ({"cart_depth": [2, 0, 2]}, "cart_depth"),
    ({"cart_depth": 0}, "cart_depth"),
    ({"alphas": [-1.0, 0.5]}, "alphas"),
    ({"alphas": [np.nan]}, "alphas"),
    ({"alphas": 0}, "alphas"),
    ({"alpha": -0.1}, "alpha"),
    ({"alpha": np.inf}, "alpha"),
    ({"criterion": "log_loss"}, "criterion"),
    ({"cart_growth": "wide"}, "cart_growth"),
    ({"complexity": "nodes"}, "complexity"),
    ({"cost_matrix": [[0, 1], [1, 0], [1, 1]]}, "shape"),
    ({"cost_matrix": [[0, -1], [1, 0]]}, ">= 0"),
    ({"cost_matrix": [[0, np.inf], [1, 0]]}, "finite"),
    ({"n_jobs": 0}, "n_jobs"),
    ({"max_depth": -1}, "max_depth"),
    ({"time_limit": -1.0}, "time_limit"),
    ({"time_limit": np.nan}, "time_limit"),
    ({"memory_limit": 0}, "memory_limit"),
    ({"memory_limit": "lots"}, "memory_limit"),
    ({"class_weight": "auto"}, "class_weight"),
])
def test_bad_parameters_are_named(params, match):
    X, y = _continuous(0, n=30, p=2, K=2)
    with pytest.raises(ValueError, match=match):
        DPDTClassifier(**{"max_depth": 3, **params}).fit(X, y)


def test_bad_data_is_named():
    X, y = _continuous(0, n=30, p=2, K=2)
    bad = X.copy()
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DPDTClassifier().fit(bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        DPDTClassifier().fit(X[:10], y)
    with pytest.raises(ValueError, match="0 sample"):
        DPDTClassifier().fit(X[:0], y[:0])
    clf = DPDTClassifier().fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        clf.tree_at(-1)


def _expected_failed_checks(estimator):
    if estimator.alpha == 0:
        # The check wants class_weight={0: 1000, 1: 1e-4} to make 87% of the test
        # rows of very noisy blobs class 0.  At alpha = 0, DPDT returns the tree of
        # least class-weighted training loss of depth 3, which also carves out the
        # pure class-1 regions: 72% (sklearn's own depth-3 CART with those weights:
        # 78%; sklearn's tree passes the check only through the
        # min_weight_fraction_leaf=0.01 it sets).  A price on complexity gives 100%
        # (alpha = 1e-3, the second estimator here); the weights themselves are
        # tested against brute force (test_class_weight_matches_exhaustive_oracle).
        return {"check_class_weight_classifiers":
                "alpha=0: the most accurate weighted tree overfits the check's noise"}
    return {}


@parametrize_with_checks([DPDTClassifier(),
                          DPDTClassifier(max_depth=2, complexity="leaves", alpha=0.01,
                                         cart_depth=[2, 1], criterion="gini")],
                         expected_failed_checks=_expected_failed_checks, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


def test_results_do_not_depend_on_n_jobs():
    # large enough (rows x columns) for the last level's scans to use threads
    X, y = _continuous(31, n=6000, p=8, K=3)
    fits = [DPDTClassifier(max_depth=2, cart_depth=3, n_jobs=j).fit(X, y)
            for j in (1, 2, -1, None)]
    for f in fits[1:]:
        for key in ("loss", "expected_tests", "alpha_min", "n_leaves"):
            np.testing.assert_array_equal(f.pareto_front_[key], fits[0].pareto_front_[key])
        for a, b in zip(f.trees_, fits[0].trees_):
            np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
            np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
        assert f.n_states_ == fits[0].n_states_


def _check_stopped_fit(clf, X, y, status, seconds, limit):
    """A stopped build returns within its limit, says why, and its trees are
    real: re-scored from the raw data (also checked inside fit), a front that
    is non-dominated, no tree worse than the leaf at alpha = 0, picklable."""
    from fst import IncompleteMDPWarning  # noqa: F401  (exported)

    assert clf.status_ == status
    assert seconds < limit
    classes, y_idx = np.unique(y, return_inverse=True)
    full = _full_cost(None, classes)
    f = clf.pareto_front_
    for t, loss in zip(clf.trees_, f["loss"]):
        assert tree_objective(t, X, y_idx, full, 0.0, "tests", classes) == \
            pytest.approx(loss, abs=1e-12)
    assert np.all(np.diff(f["loss"]) < 0) and np.all(np.diff(f["expected_tests"]) > 0)
    assert f["loss"][-1] <= 1.0 - np.bincount(y_idx).max() / len(y) + 1e-12
    assert pickle.loads(pickle.dumps(clf)).score(X, y) == clf.score(X, y)


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGINT") or __import__("os").name == "nt",
                    reason="POSIX signal")
def test_ctrl_c_returns_the_front_built_so_far():
    """Ctrl-C ends the build like a stop: fit returns (it raised KeyboardInterrupt
    before) with the exact solution of the part built and a warning."""
    import os
    import signal
    import threading
    import time

    from fst import IncompleteMDPWarning

    X, y = _continuous(40, n=20000, p=10, K=3)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    t0 = time.perf_counter()
    timer.start()
    try:
        with pytest.warns(IncompleteMDPWarning, match="interrupted"):
            clf = DPDTClassifier(max_depth=6, cart_depth=3).fit(X, y)
    finally:
        timer.cancel()
    _check_stopped_fit(clf, X, y, "interrupted", time.perf_counter() - t0, 5.0)


def _process_rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * __import__("os").sysconf("SC_PAGE_SIZE")


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/statm"),
                    reason="reads the process size from /proc")
def test_memory_limit_returns_the_front_built_so_far(monkeypatch):
    """Past the memory limit the build ends like a time stop; the state store
    never grows past it (a child it has no room for is a leaf), so the process
    stays within it, and the front keeps the tests tried before the stop."""
    import time

    import fst._utils as fc
    from fst import IncompleteMDPWarning

    X, y = _continuous(40, n=20000, p=10, K=3)
    limit = _process_rss() + 80_000_000
    t0 = time.perf_counter()
    with pytest.warns(IncompleteMDPWarning, match="memory_limit"):
        clf = DPDTClassifier(max_depth=6, cart_depth=3, memory_limit=limit,
                             time_limit=60).fit(X, y)
    _check_stopped_fit(clf, X, y, "memory_limit", time.perf_counter() - t0, 60.0)
    assert clf.mdp_stats_["memory_limit"] == limit
    assert clf.mdp_stats_["peak_rss_bytes"] <= limit
    assert len(clf.trees_) >= 3          # not just the leaf: the tests tried are kept
    # 'auto' is FastSmallTreeClassifier's share of the machine; None no limit
    small_X, small_y = _continuous(42, n=200, p=3, K=2)
    auto = DPDTClassifier(max_depth=2).fit(small_X, small_y)
    assert auto.mdp_stats_["memory_limit"] == fc._auto_memory_limit() > 0
    assert DPDTClassifier(max_depth=2, memory_limit=None).fit(
        small_X, small_y).mdp_stats_["memory_limit"] == 0
    monkeypatch.setattr(fc, "_memory_available", lambda: 4)   # 'auto' of 3 bytes
    with pytest.warns(IncompleteMDPWarning, match="memory_limit"):
        tiny = DPDTClassifier(max_depth=2).fit(small_X, small_y)
    assert tiny.status_ == "memory_limit" and tiny.estimator_.get_n_leaves() == 1


@pytest.mark.parametrize("after", range(8))
def test_refused_growth_winds_down_with_real_trees(after):
    """A growth refused at the memory limit (simulated by a test hook after
    `after` growths, so on any machine) ends the build as a memory stop, and
    each refusal is wound down without it -- a child made a leaf, a state's
    candidates cut short, a hull made its leaf alone, the pool's spare leaves
    used -- so every tree returned is real and correctly scored."""
    X, y = _continuous(41, n=600, p=4, K=3)
    clf = DPDTClassifier(max_depth=4, cart_depth=2, memory_limit=None)
    clf._refuse_growth_after = after
    with pytest.warns(IncompleteMDPWarning, match="memory_limit"):
        clf.fit(X, y)
    assert clf.mdp_stats_["growth_refused"] > 0
    _check_stopped_fit(clf, X, y, "memory_limit", 0.0, 60.0)
    full = DPDTClassifier(max_depth=4, cart_depth=2, memory_limit=None).fit(X, y)
    assert full.status_ == "optimal" and full.mdp_stats_["growth_refused"] == 0
    # a smaller MDP: never below the whole MDP's least loss (exact at alpha = 0)
    assert clf.pareto_front_["loss"].min() >= full.pareto_front_["loss"].min() - 1e-12


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/statm"),
                    reason="reads the process size from /proc")
def test_fixed_bytes_bound_what_the_mdp_allocates():
    """`fixed_bytes` (what the fit checks against the limit before it builds)
    is at least what constructing the MDP adds to a fresh process, which
    writes everything it allocates."""
    import subprocess
    import sys

    code = """
import numpy as np
from fst._core._mdp import MDP, fixed_bytes, store_capacity
from fst._core._problem import build_space
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * __import__("os").sysconf("SC_PAGE_SIZE")
n, p, ck = %d, %d, %r
rng = np.random.default_rng(0)
X = rng.normal(size=(n, p)).astype(np.float32)
y = rng.integers(0, 3, n).astype(np.intp)
space = build_space(X, y)
cap = store_capacity(n)
r0 = rss()
m = MDP(space, 3, 1.0 - np.eye(3), ck, 0, 0, 1, 1, capacity=cap)
print(rss() - r0, fixed_bytes(n, p, ck, cap, 3, 1))
"""
    for n, p, ck in [(20000, 10, [3] * 6), (50000, 5, [2] * 4), (3000, 20, [0, 0, 1])]:
        out = subprocess.run([sys.executable, "-c", code % (n, p, ck)], check=True,
                             capture_output=True, text=True).stdout.split()
        grown, fixed = int(out[0]), int(out[1])
        assert 0 < grown <= fixed + (1 << 20), (n, p, ck, grown, fixed)


def test_time_limit_returns_the_front_built_so_far():
    import time

    from fst import IncompleteMDPWarning

    X, y = _continuous(40, n=20000, p=10, K=3)
    t0 = time.perf_counter()
    with pytest.warns(IncompleteMDPWarning, match="time_limit"):
        clf = DPDTClassifier(max_depth=6, cart_depth=3, time_limit=0.3).fit(X, y)
    _check_stopped_fit(clf, X, y, "time_limit", time.perf_counter() - t0, 3.0)
    assert clf.n_states_ < 200000      # the whole MDP has over 500,000 states
    # a limit the build does not reach changes nothing
    X, y = _continuous(41, n=300, p=4, K=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IncompleteMDPWarning)
        a = DPDTClassifier(max_depth=3, time_limit=600).fit(X, y)
    b = DPDTClassifier(max_depth=3).fit(X, y)
    assert a.status_ == b.status_ == "optimal"
    _same_trees(a, b)


@pytest.mark.parametrize("seed", range(20))
def test_leaves_measure_agrees_with_the_certified_solver(seed):
    """With cart_depth='all' and complexity='leaves', DPDT solves the problem of
    FastSmallTreeClassifier(regularization=alpha, max_depth=D) exactly: the two
    estimators reach the same objective."""
    from fst import FastSmallTreeClassifier

    X, y, cost = _small_problem(500 + seed)
    D = 1 + seed % 3
    dp = DPDTClassifier(max_depth=D, cart_depth="all", complexity="leaves",
                        cost_matrix=cost).fit(X, y)
    classes, y_idx = np.unique(y, return_inverse=True)
    full = _full_cost(cost, classes)
    for lam in (0.0, 0.01, 0.05, 0.2):
        fs = FastSmallTreeClassifier(regularization=lam, max_depth=D, cost_matrix=cost)
        fs.fit(X, y)
        assert fs.optimal_
        got = tree_objective(dp.tree_at(lam), X, y_idx, full, lam, "leaves", dp.classes_)
        assert got == pytest.approx(fs.objective_, abs=1e-9)


# ------------------------------------------------------------ sample weights

def _weights(seed, n):
    """Row weights with zeros, fractions and ties, never all zero."""
    rng = np.random.default_rng(7000 + seed)
    kind = seed % 3
    if kind == 0:
        w = rng.integers(0, 4, size=n).astype(float)
    elif kind == 1:
        w = rng.uniform(0.05, 3.0, size=n)
        w[rng.random(n) < 0.2] = 0.0
    else:
        w = rng.choice([0.5, 1.0, 2.5], size=n)
    w[0] = max(w[0], 1.0)
    return w


@pytest.mark.parametrize("seed", range(90))
def test_sample_weight_matches_exhaustive_oracle(seed):
    """With sample weights and cart_depth='all', every tree returned is optimal
    for the weighted objective (loss and tests over the weights' sum), re-scored
    from the raw data by an enumeration that knows nothing of DPDT."""
    X, y, cost = _small_problem(seed)
    w = _weights(seed, len(y))
    max_depth = 1 + seed % 3
    complexity = "tests" if seed % 2 == 0 else "leaves"
    clf = DPDTClassifier(max_depth=max_depth, cart_depth="all", complexity=complexity,
                         alphas=ALPHAS, cost_matrix=cost).fit(X, y, sample_weight=w)
    classes, y_idx = np.unique(y, return_inverse=True)
    full = _full_cost(cost, classes)
    _assert_optimal_at_every_alpha(clf, X, y_idx, full, max_depth, complexity, weights=w)
    f = clf.pareto_front_
    for t, loss, acc in zip(clf.trees_, f["loss"], f["accuracy"]):
        pred = np.searchsorted(clf.classes_, t.predict(X.astype(np.float32)))
        assert loss == pytest.approx((w * full[y_idx, pred]).sum() / w.sum(), abs=1e-12)
        assert acc == pytest.approx(np.average(pred == y_idx, weights=w), abs=1e-12)


def _same_trees(a, b):
    assert len(a.trees_) == len(b.trees_)
    for key in ("loss", "expected_tests", "accuracy", "alpha_min", "alpha_max"):
        np.testing.assert_allclose(a.pareto_front_[key], b.pareto_front_[key],
                                   rtol=1e-12, atol=1e-12)
    for s, t in zip(a.trees_, b.trees_):
        for attr in ("feature", "threshold", "children_left", "children_right"):
            np.testing.assert_array_equal(getattr(s.tree_, attr), getattr(t.tree_, attr))
        np.testing.assert_allclose(s.tree_.value, t.tree_.value, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@pytest.mark.parametrize("growth", ["depth", "best_first"])
@pytest.mark.parametrize("complexity", ["tests", "leaves"])
def test_whole_weights_are_repeated_rows(criterion, growth, complexity):
    """A whole weight counts as that many copies of the row everywhere: CART's
    weighted impurities (the tests offered), the loss and the tests' price, so
    the fronts and the trees are the same; a zero weight is an absent row."""
    X, y = _continuous(61, n=240, p=4, K=3)
    w = np.random.default_rng(3).integers(0, 4, size=len(y))
    kw = dict(max_depth=3, cart_depth=3, criterion=criterion, cart_growth=growth,
              complexity=complexity)
    weighted = DPDTClassifier(**kw).fit(X, y, sample_weight=w)
    repeated = DPDTClassifier(**kw).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    _same_trees(weighted, repeated)
    # the exported counts: rows of positive weight, and their weight
    t = weighted.estimator_.tree_
    keep = w > 0
    paths = weighted.estimator_.decision_path(X.astype(np.float32)).toarray().astype(bool)
    np.testing.assert_array_equal(t.n_node_samples, paths[keep].sum(axis=0))
    np.testing.assert_allclose(t.weighted_n_node_samples, (w[:, None] * paths).sum(axis=0))


def test_constant_and_scaled_weights_and_zero_weight_rows():
    X, y = _continuous(62, n=200, p=3, K=2)
    plain = DPDTClassifier(max_depth=3).fit(X, y)
    _same_trees(plain, DPDTClassifier(max_depth=3).fit(X, y, sample_weight=np.full(200, 2.5)))
    w = np.random.default_rng(5).uniform(0.1, 2.0, size=200)
    a = DPDTClassifier(max_depth=3).fit(X, y, sample_weight=w)
    b = DPDTClassifier(max_depth=3).fit(X, y, sample_weight=8.0 * w)   # exact scaling
    _same_trees(a, b)
    w[::7] = 0.0
    c = DPDTClassifier(max_depth=3).fit(X, y, sample_weight=w)
    keep = w > 0
    d = DPDTClassifier(max_depth=3).fit(X[keep], y[keep], sample_weight=w[keep])
    _same_trees(c, d)


def test_sample_weight_changes_the_front_and_row_order_does_not():
    X, y = _continuous(63, n=300, p=4, K=2)
    w = np.where(y == 1, 5.0, 1.0)
    plain = DPDTClassifier(max_depth=3).fit(X, y)
    weighted = DPDTClassifier(max_depth=3).fit(X, y, sample_weight=w)
    assert not np.allclose(plain.pareto_front_["loss"][-1], weighted.pareto_front_["loss"][-1])
    # up-weighting class 1 trades class-0 errors for class-1 errors
    err1 = lambda clf: np.mean(clf.predict(X)[y == 1] != 1)   # noqa: E731
    assert err1(weighted) <= err1(plain)
    perm = np.random.default_rng(1).permutation(len(y))
    shuffled = DPDTClassifier(max_depth=3).fit(X[perm], y[perm], sample_weight=w[perm])
    _same_trees(weighted, shuffled)


@pytest.mark.parametrize("w, match", [
    (lambda n: -np.ones(n), ">= 0"),
    (lambda n: np.zeros(n), "all zero|non-zero"),
    (lambda n: np.r_[np.nan, np.ones(n - 1)], "NaN"),
    (lambda n: np.r_[np.inf, np.ones(n - 1)], "infinity"),
    (lambda n: np.ones(n + 1), "inconsistent|shape"),
])
def test_bad_sample_weight_is_named(w, match):
    X, y = _continuous(0, n=30, p=2, K=2)
    with pytest.raises(ValueError, match=match):
        DPDTClassifier().fit(X, y, sample_weight=w(len(y)))


# ------------------------------------------------------------- class weights

@pytest.mark.parametrize("seed", range(60))
def test_class_weight_matches_exhaustive_oracle(seed):
    """class_weight scales the rows of the loss (with sample weights and costs
    too): every tree returned is optimal for the class-weighted objective, by
    brute force; the test price stays the rows (sample weights) reaching it."""
    X, y, cost = _small_problem(300 + seed)
    classes, y_idx = np.unique(y, return_inverse=True)
    rng = np.random.default_rng(seed)
    cw = rng.choice([0.0, 0.25, 1.0, 3.0], size=len(classes))
    cw[0] = 1.0
    w = _weights(seed, len(y)) if seed % 2 else None
    max_depth = 1 + seed % 3
    complexity = "tests" if seed % 3 else "leaves"
    clf = DPDTClassifier(max_depth=max_depth, cart_depth="all", complexity=complexity,
                         alphas=ALPHAS, cost_matrix=cost,
                         class_weight=dict(zip(classes.tolist(), cw))).fit(
                             X, y, sample_weight=w)
    full = cw[:, None] * _full_cost(cost, classes)
    _assert_optimal_at_every_alpha(clf, X, y_idx, full, max_depth, complexity, weights=w)


@pytest.mark.parametrize("seed", range(6))
def test_class_weight_never_worse_than_weighted_cart(seed):
    """Proposition 2 under class weights: the generator grows sklearn's CART with
    the same class_weight, so DPDT's tree is never worse, on the class-weighted
    objective, than that CART or any tree of its pruning path."""
    K = 2 + seed % 2
    X, y = _continuous(40 + seed, n=300, p=6, K=K)
    y[: 250] = np.where(y[:250] == 0, 1, y[:250])     # imbalanced
    criterion = ["entropy", "gini"][seed % 2]
    cw = "balanced" if seed % 3 else {0: 4.0, 1: 0.5, 2: 1.5}
    clf = DPDTClassifier(max_depth=3, cart_depth=1, criterion=criterion, class_weight=cw,
                         alphas=50).fit(X, y)
    cart = DecisionTreeClassifier(criterion=criterion, max_depth=3, class_weight=cw,
                                  random_state=0).fit(X, y)
    path = cart.cost_complexity_pruning_path(X, y)
    trees = [cart] + [DecisionTreeClassifier(criterion=criterion, max_depth=3,
                                             class_weight=cw, random_state=0,
                                             ccp_alpha=a).fit(X, y)
                      for a in path.ccp_alphas]
    classes, y_idx = np.unique(y, return_inverse=True)
    from sklearn.utils import compute_class_weight
    weights = compute_class_weight(cw, classes=classes, y=y)
    full = weights[:, None] * _full_cost(None, classes)
    for a in np.linspace(0, 0.2, 21):
        mine = tree_objective(clf.tree_at(a), X, y_idx, full, a, "tests", classes)
        theirs = min(tree_objective(t, X, y_idx, full, a, "tests", classes) for t in trees)
        assert mine <= theirs + 1e-12, (a, mine, theirs)


def test_class_weight_export_and_errors():
    X, y = _continuous(70, n=200, p=3, K=2)
    clf = DPDTClassifier(max_depth=2, class_weight={0: 3.0, 1: 1.0}).fit(X, y)
    t = clf.estimator_.tree_
    paths = clf.estimator_.decision_path(X.astype(np.float32)).toarray().astype(bool)
    np.testing.assert_allclose(t.weighted_n_node_samples,
                               (np.where(y == 0, 3.0, 1.0)[:, None] * paths).sum(axis=0))
    # expected tests: the share of rows reaching each test, not class-weighted
    internal = t.children_left >= 0
    assert clf.pareto_front_["expected_tests"][-1] == pytest.approx(
        paths[:, internal].sum() / len(y), abs=1e-12)
    # a class with three times the weight wins leaves it would lose unweighted
    plain = DPDTClassifier(max_depth=2).fit(X, y)
    assert np.mean(clf.predict(X) == 0) > np.mean(plain.predict(X) == 0)
    with pytest.raises(ValueError, match="class_weight.*finite weight >= 0.*class 1"):
        DPDTClassifier(class_weight={0: 1.0, 1: -2.0}).fit(X, y)
