"""The vector loops of the core (`fst/_core/simd/`: AVX-512 or AVX2 where the CPU
has them) give the same counts, the same doubles and the same fits as the scalar
reference loops.  A loop the CPU lacks runs scalar, and the comparisons still hold
(against the brute-force counts below)."""
import numpy as np
import pytest
from sklearn.datasets import make_classification

from fst import FastSmallTreeClassifier
from fst._core import _testing


def _popcount(a):
    return int(np.unpackbits(np.ascontiguousarray(a).view(np.uint8)).sum())


def _brute_counts(XS, rows, K, XC):
    m = XS.shape[0]
    out = np.zeros((len(rows), m, K), dtype=np.int64)
    for r, i in enumerate(rows):
        for j in range(m):
            x = XS[i] & XS[j]
            for k in range(K - 1):
                out[r, j, k] = _popcount(x & XC[k])
            out[r, j, K - 1] = _popcount(x)
    return out


def test_the_simd_choice_is_reported():
    assert _testing.simd_choice(0) == 0
    avx512 = _testing.simd_choice(1)
    assert avx512 in (0, 1)
    avx2 = _testing.simd_choice(2)
    assert avx2 in (0, 2)
    # the default is the best the CPU allows: AVX-512, else AVX2, else scalar
    assert _testing.simd_choice(-1) == (avx512 or avx2)


@pytest.mark.parametrize("nw", [1, 3, 7, 8, 9, 16, 17, 31, 40, 600])
@pytest.mark.parametrize("K", [2, 3, 4, 7, 16, 17])
@pytest.mark.parametrize("n_rows", [2, 9, 11])
def test_pair_counts_match_brute_force(nw, K, n_rows):
    """Counts of every kernel equal brute force: the row kernels (a stage of 2
    rows, and two classes at 600 words), the transposed ones (9 and 11 rows: two
    and one at a time; 13 splits: a partial block; two classes past 24 words while
    the splits are few), and the scalar loops (set_simd(0), and 17 classes)."""
    rng = np.random.default_rng(nw * 10 + K)
    m = 13
    XS = rng.integers(0, 2**63, size=(m, nw), dtype=np.uint64) * np.uint64(2)
    XS |= rng.integers(0, 2, size=(m, nw), dtype=np.uint64)
    XC = rng.integers(0, 2**63, size=(K - 1, nw), dtype=np.uint64)
    rows = rng.permutation(m)[:n_rows].astype(np.int32)
    expected = _brute_counts(XS, rows, K, XC)
    for mode in (0, 1, 2):
        for threads in (1, 2):
            got = _testing.pair_counts_for_tests(XS, rows, K, XC, threads, simd=mode)
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("nw", [1, 9, 16, 40, 600])
@pytest.mark.parametrize("n_rows", [17, 40, 70])
@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_pair_counts_shared_cells_match_brute_force(nw, n_rows, order):
    """Two classes: a cell of two chosen splits is counted by the earlier row and
    copied into the later one (whole transposed blocks of 16 skipped, tiles of 16
    rows copied). 70 splits, so blocks are skipped and copies cross tiles; the
    chosen rows in split order (as the search passes them) and shuffled."""
    rng = np.random.default_rng(nw * 100 + n_rows)
    m = 70
    XS = rng.integers(0, 2**63, size=(m, nw), dtype=np.uint64) * np.uint64(2)
    XS |= rng.integers(0, 2, size=(m, nw), dtype=np.uint64)
    XC = rng.integers(0, 2**63, size=(1, nw), dtype=np.uint64)
    rows = rng.permutation(m)[:n_rows].astype(np.int32)
    if order == "sorted":
        rows.sort()
    expected = _brute_counts(XS, rows, 2, XC)
    for mode in (0, 1, 2):
        for threads in (1, 2):
            got = _testing.pair_counts_for_tests(XS, rows, 2, XC, threads, simd=mode)
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("nw", [1, 7, 8, 9, 16, 23, 194, 600])
def test_and_count_matches_popcount(nw):
    """The rows of X & S (gather_valid's test for a repeated partition) in the
    scalar and the vector loop equal numpy's count, tails included."""
    rng = np.random.default_rng(nw)
    X = rng.integers(0, 2**63, size=nw, dtype=np.uint64) * np.uint64(2)
    X |= rng.integers(0, 2, size=nw, dtype=np.uint64)
    S = rng.integers(0, 2**63, size=nw, dtype=np.uint64)
    expected = int(np.unpackbits((X & S).view(np.uint8)).sum())
    for mode in (0, 1, 2):
        assert _testing.and_count_for_tests(X, S, mode) == expected


def _ordered_sum(values):
    """A sum taken in order from 0.0, as the loops take it."""
    total = 0.0
    for v in values:
        total += v
    return total


def _assert_pair_values(A, cl, right, cc, cost, potc, lam):
    """The scalar and the vector value loops return bit-identical values, the same
    first split and the same peel on one row of pair counts A (m x K: classes
    0..K-2, then the total), and the scalar values are what they say: recomputed
    here with the same operations in the same order."""
    m, K = A.shape
    out = {}
    for mode in (0, 1, 2):
        out[mode] = _testing.pair_values_for_tests(A, cl, right, cc, np.ascontiguousarray(cost),
                                                   potc, lam, simd=mode)
    (b0, p0, a0) = out[0]
    for b1, p1, a1 in (out[1], out[2]):
        assert a1 == a0
        assert (b1 == b0) or (np.isinf(b0) and np.isinf(b1))
        assert (p1 == p0) or (np.isinf(p0) and np.isinf(p1))
    best, peel, arg = np.inf, np.inf, -1
    unit = lam * (1 - 1e-9)
    u = cost[0, 1]
    if u > 0 and np.array_equal(cost, u * (1.0 - np.eye(K))) and np.all(potc == u):
        # A unit cost: the loops count whole rows (a cell loses u * its rows less
        # its largest class and has potential u * its rows): values are u * integers.
        ib, ip, t1, t2 = None, None, np.ceil(unit / u), np.ceil(2 * unit / u)
        for j in range(m):
            x = [int(v) for v in A[j, :-1]]
            x.append(int(A[j, -1]) - sum(x))
            if right:
                x = [int(cl[j, k]) - x[k] for k in range(K)]
            z = [int(cc[k]) - x[k] for k in range(K)]
            xt, zt = sum(x), sum(z)
            if xt == 0 or zt == 0:
                continue
            l1, l2 = xt - max(x), zt - max(z)
            if ib is None or l1 + l2 < ib:
                ib, arg = l1 + l2, j
            for la, na, nb in ((l1, xt, zt), (l2, zt, xt)):
                if na >= t1 and nb >= t2 and (ip is None or la < ip):
                    ip = la
        assert a0 == arg
        assert b0 == (np.inf if ib is None else u * ib)
        assert p0 == (np.inf if ip is None else u * ip)
        return
    for j in range(m):
        x = [float(v) for v in A[j, :-1]]
        x.append(float(A[j, -1]) - _ordered_sum(x))
        if right:
            x = [cl[j, k] - x[k] for k in range(K)]
        z = [cc[k] - x[k] for k in range(K)]
        if _ordered_sum(x) == 0 or _ordered_sum(z) == 0:
            continue                     # s_j does not separate the child
        l1 = min(_ordered_sum(x[y] * cost[y, k] for y in range(K)) for k in range(K))
        l2 = min(_ordered_sum(z[y] * cost[y, k] for y in range(K)) for k in range(K))
        if l1 + l2 < best:
            best, arg = l1 + l2, j
        q1 = _ordered_sum(x[y] * potc[y] for y in range(K))
        q2 = _ordered_sum(z[y] * potc[y] for y in range(K))
        if q1 >= unit and q2 >= 2 * unit:
            peel = min(peel, l1)
        if q2 >= unit and q1 >= 2 * unit:
            peel = min(peel, l2)
    assert a0 == arg
    assert b0 == best
    assert p0 == peel


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("lam", [0.0, 0.03, 0.1])
def test_pair_values_identical_doubles(seed, right, lam):
    """Random counts (ties and splits that separate nothing included) and random
    costs: the vector loop returns bit-identical values and the same first split.
    With lam > 0 (the leaf-capacity rule) a cell peels off only when its potential
    reaches lam and the other cell's 2 lam (lam 0.1 leaves few or none)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 40))
    cc = rng.integers(0, 30, size=2).astype(float)
    # cells of X & s_i & s_j inside the child's classes; cl: X & s_j, a superset
    c0 = rng.integers(0, cc[0] + 1, size=m)
    c1 = rng.integers(0, cc[1] + 1, size=m)
    if seed % 3 == 0:   # many ties and empty cells
        c0[::2] = 0
        c1[::2] = 0
        c0[1::3] = cc[0]
        c1[1::3] = cc[1]
    A = np.stack([c0, c0 + c1], axis=1).astype(np.int32)
    # cl: the class counts of X & s_j, a superset of the cell (the right child's
    # cell is cl - A); any values serve, the two loops must agree on them
    cl = np.stack([c0 + rng.integers(0, 5, size=m),
                   c1 + rng.integers(0, 9, size=m)], axis=1).astype(float)
    cost = rng.random((2, 2)) / 97.0 if seed % 2 else np.array([[0.0, 1.0], [1.0, 0.0]]) / 97.0
    potc = cost.max(axis=1) - cost.min(axis=1)
    _assert_pair_values(A, cl, right, cc, cost, potc, lam)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("K", [3, 4, 7, 16])
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("lam", [0.0, 0.03])
def test_pair_values_identical_doubles_many_classes(seed, K, right, lam):
    """The vector loop for 3 to 16 classes (gathered counts): bit-identical values,
    the same first split and the same peel as the scalar loop, on random counts
    (ties, empty cells and splits that separate nothing included) and random costs;
    and the scalar values are recomputed here."""
    rng = np.random.default_rng(1000 * K + seed)
    m = int(rng.integers(1, 45))
    cc = rng.integers(0, 12, size=K).astype(float)
    cells = np.stack([rng.integers(0, cc[k] + 1, size=m) for k in range(K)], axis=1)
    if seed % 3 == 0:   # many ties and empty cells
        cells[::2] = 0
        cells[1::3] = cc
    A = np.concatenate([cells[:, :-1], cells.sum(1, keepdims=True)], axis=1).astype(np.int32)
    cl = (cells + rng.integers(0, 4, size=(m, K))).astype(float)
    cost = (rng.random((K, K)) if seed % 2 else 1.0 - np.eye(K)) / 97.0
    if seed % 4 == 3:
        # repeated columns, as a weighted fit has (one column per label, repeated
        # for each (class, weight) pair): the loops try each distinct one once
        cost = np.ascontiguousarray(cost[:, rng.integers(0, max(1, K // 3), size=K)])
    potc = cost.max(axis=1) - cost.min(axis=1)
    _assert_pair_values(A, cl, right, cc, cost, potc, lam)


def _assert_same_path_under_both_loops(fit, settings=None):
    """`fit(overrides)` under the scalar and each vector loop (or under each of
    `settings`, a list of private overrides): the same certified optimum, reached
    by the same path, and the same tree."""
    fits = []
    for overrides in (settings or [{"simd": 0}, {"simd": 1}, {"simd": 2}]):
        fits.append(fit(overrides))
    base = fits[0]
    assert base.search_stats_["pair_stages"] > 0
    for other in fits[1:]:
        _assert_same_fit(base, other)


def _assert_same_fit(base, other):
    assert base.optimal_ and other.optimal_
    assert other.objective_ == base.objective_
    assert other.lower_bound_ == base.lower_bound_
    for key in ("nodes_created", "expansions", "work", "pair_stages"):
        assert other.search_stats_[key] == base.search_stats_[key]
    for attr in ("feature", "threshold", "children_left", "children_right", "value"):
        np.testing.assert_array_equal(getattr(other.estimator_.tree_, attr),
                                      getattr(base.estimator_.tree_, attr))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_identical_weighted_fits_with_and_without_vector_loops(seed):
    """A weighted fit (5 weights x 2 classes: 10 classes in the search, with
    repeated cost columns) walks the same path under both loops."""
    rng = np.random.default_rng(200 + seed)
    X = rng.integers(0, 8, size=(300, 4)).astype(float)
    y = ((X[:, 0] > 3) ^ (X[:, 2] > 5) | (rng.random(300) < 0.2)).astype(int)
    w = rng.choice([0.5, 1.0, 2.0, 3.0, 4.5], size=300)
    _assert_same_path_under_both_loops(
        lambda ov: _fit(FastSmallTreeClassifier(regularization=0.02), ov, X, y,
                        sample_weight=w))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_identical_fits_with_and_without_vector_loops(seed):
    """Whole fits (0/1 loss and a random cost matrix; two classes, and three or
    four from seed 6 on) walk the same path."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(300, 600))
    X = rng.integers(0, 10, size=(n, 4)).astype(float)
    y = ((X[:, 0] > 5) ^ (X[:, 2] > 7) | (rng.random(n) < 0.2)).astype(int)
    K = 2
    if seed >= 6:
        K = 3 + seed % 2
        y = (y + (X[:, 1] > 6) + (K == 4) * (X[:, 3] > 4)) % K
        X, y = X[:200], y[:200]      # fewer rows: these optima have many leaves
    cost = None if seed % 2 == 0 else rng.random((K, K)) + 1.0 - np.eye(K)
    _assert_same_path_under_both_loops(
        lambda ov: _fit(FastSmallTreeClassifier(regularization=0.02, cost_matrix=cost), ov,
                        X, y))


@pytest.mark.parametrize("nw", [1, 2, 3, 7, 20])
@pytest.mark.parametrize("density", [0.02, 0.3, 0.9, 1.0])
def test_compacted_rows_hold_the_bits_at_the_rows_of_x(nw, density):
    """The compaction (`fst_compact_plan`, `fst_compact_at`) against its
    definition: bit c of the result is the bit of src at the c-th row of X (and
    every bit past |X| is zero).  src is not inside X, as a split's whole rows
    are not."""
    rng = np.random.default_rng(nw * 100 + int(density * 10))
    for _ in range(20):
        xb = rng.random(64 * nw) < density
        xb[rng.integers(0, 64 * nw)] = True
        sb = rng.random(64 * nw) < 0.5
        X = np.packbits(xb, bitorder="little").view(np.uint64).copy()
        src = np.packbits(sb, bitorder="little").view(np.uint64).copy()
        out = _testing.compact_for_tests(src, X)
        if out is None:
            pytest.skip("the CPU has no BMI2: pair stages keep full words")
        bits = np.unpackbits(out.view(np.uint8), bitorder="little")
        k = int(xb.sum())
        np.testing.assert_array_equal(bits[:k], sb[xb])
        assert not bits[k:].any()
        assert len(out) == (k + 63) // 64


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_identical_fits_with_and_without_compacted_rows(seed):
    """Pair stages over their node's rows compacted or over full words count the
    same cells: the same path, bound and tree (two to four classes, unit and
    random costs, with and without a depth limit)."""
    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(400, 900))
    depth = None if seed < 4 else 3
    # under a depth limit, few thresholds a column: the bitset search and its
    # pair stage, not the depth-limited engine (`fst._plan`)
    X = rng.integers(0, 12 if depth is None else 6, size=(n, 5)).astype(float)
    y = ((X[:, 0] > 2) ^ (X[:, 2] > 3) | (rng.random(n) < 0.15)).astype(int)
    K = 2 + seed % 3
    if K > 2:
        y = (y + (X[:, 1] > 3) + (K == 4) * (X[:, 3] > 2) * 2) % K
    K = len(np.unique(y))
    cost = None if seed % 2 == 0 else rng.random((K, K)) + 1.0 - np.eye(K)
    _assert_same_path_under_both_loops(
        lambda ov: _fit(FastSmallTreeClassifier(regularization=0.02, cost_matrix=cost,
                                                max_depth=depth), ov, X, y),
        [{"strategy_off": ["compact"]}, {}])


def _prefix_bits(nb0, nw):
    bits = np.zeros(64 * nw, dtype=bool)
    bits[:nb0] = True
    return np.packbits(bits, bitorder="little").view("<u8").reshape(1, nw).copy()


@pytest.mark.parametrize("nw", [1, 3, 4, 5, 8, 9, 23, 130])
@pytest.mark.parametrize("where", ["zero", "word", "inside", "last", "all"])
def test_pair_counts_with_class_zero_below_a_boundary(nw, where):
    """Rows sorted by class: two-class counts taken as class 0 = the bits below
    nb0 (`fst_pair_row2p_*`) equal brute force under every loop, for a boundary
    at 0, on a word edge, inside a word (in each position of an AVX2 block), in
    the last word, and past every bit; with shared cells (all rows chosen) and
    without (a stage of 2 rows)."""
    rng = np.random.default_rng(nw * 7 + len(where))
    m = 21
    XS = rng.integers(0, 2**63, size=(m, nw), dtype=np.uint64) * np.uint64(2)
    XS |= rng.integers(0, 2, size=(m, nw), dtype=np.uint64)
    XS[3] = np.uint64(2**64 - 1)                    # a full set: every count exact
    nb0 = {"zero": 0, "word": 64 * (nw // 2), "inside": 64 * (nw - 1) // 2 + 37,
           "last": 64 * nw - 5, "all": 64 * nw}[where]
    XC = _prefix_bits(nb0, nw)
    for rows in (np.array([3, 17], dtype=np.int32),
                 rng.permutation(m).astype(np.int32)):
        expected = _brute_counts(XS, rows, 2, XC)
        for mode in (0, 1, 2):
            for threads in (1, 2):
                got = _testing.pair_counts_for_tests(XS, rows, 2, XC, threads, nb0, mode)
                np.testing.assert_array_equal(got, expected)
    # with another XC the boundary would disagree with it: refused
    with pytest.raises(ValueError, match="below nb0"):
        _testing.pair_counts_for_tests(XS, rows, 2, _prefix_bits(max(nb0 - 1, 0), nw)
                                       if nb0 else _prefix_bits(1, nw), 1, nb0)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_identical_fits_with_and_without_the_class_boundary(seed):
    """Two-class pair stages that count class 0 as the rows below a boundary, or
    through the class's bitset, walk the same path to the same tree (unit and
    random costs, weights, compacted and full words, each loop)."""
    rng = np.random.default_rng(400 + seed)
    compact = {} if seed < 4 else {"strategy_off": ["compact"]}
    n = int(rng.integers(400, 900))
    X = rng.integers(0, 12, size=(n, 5)).astype(float)
    y = ((X[:, 0] > 2) ^ (X[:, 2] > 3) | (rng.random(n) < 0.15)).astype(int)
    cost = None if seed % 2 == 0 else rng.random((2, 2)) + 1.0 - np.eye(2)
    w = np.full(n, 2.0) if seed % 3 == 2 else None   # one weight: still two classes
    for mode in (0, 2):
        if _testing.simd_choice(mode) != mode:
            continue
        off = compact.get("strategy_off", [])
        _assert_same_path_under_both_loops(
            lambda ov: _fit(FastSmallTreeClassifier(regularization=0.02, cost_matrix=cost),
                            ov, X, y, sample_weight=w),
            [{"simd": mode, "strategy_off": off + ["class_prefix"]},
             {"simd": mode, "strategy_off": off}])


def _fit(clf, overrides, X, y, **kw):
    """clf fitted with the private overrides (test hooks) `overrides`."""
    clf._overrides = overrides
    return clf.fit(X, y, **kw)


@pytest.mark.parametrize("m", [1, 7, 8, 9, 15, 16, 17, 31, 33, 200])
def test_a_sides_rows_match_the_scalar_loop(m):
    """The rows of one side of a split, gathered for its depth-one pass, and of
    both sides at once: every loop (AVX-512 sixteen rows at a time, AVX2
    eight, scalar) keeps each side's rows in order, whole blocks and a tail,
    at every threshold."""
    from fst._core import _testing
    rng = np.random.default_rng(m)
    rk = rng.integers(0, 50, size=m).astype(np.int32)
    yk = rng.integers(0, 2, size=m).astype(np.int32)
    pos = rng.permutation(m).astype(np.int32)
    for t in range(1, m + 1):
        for mode in (0, 1, 2):
            for side in (0, 1):
                keep = (pos >= t) == side
                got_r, got_y = _testing.side_rows_for_tests(rk, yk, pos, t, side, simd=mode)
                np.testing.assert_array_equal(got_r, rk[keep])
                np.testing.assert_array_equal(got_y, yk[keep])
            both = _testing.sides_rows_for_tests(rk, yk, pos, t, simd=mode)
            for got, want in zip(both, (rk[pos < t], yk[pos < t], rk[pos >= t],
                                        yk[pos >= t])):
                np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(3))
def test_identical_capped_fits_on_continuous_columns_under_every_loop(seed):
    """Under a leaf cap on continuous columns the engine's depth-two passes read
    each side's rows as the vector loops gather them: the same tree, bound and
    search under every loop."""
    X, y = make_classification(120, n_features=5, n_informative=3, flip_y=0.1,
                               random_state=seed)
    fits = [_fit(FastSmallTreeClassifier(0.0, max_leaf_nodes=5), {"simd": mode}, X, y)
            for mode in (0, 1, 2)]
    for other in fits[1:]:
        assert other.optimal_ and other.lower_bound_ == fits[0].lower_bound_
        for key in ("nodes", "evaluations", "column_passes"):
            assert other.search_stats_[key] == fits[0].search_stats_[key]
        for attr in ("feature", "threshold", "children_left", "children_right", "value"):
            np.testing.assert_array_equal(getattr(other.estimator_.tree_, attr),
                                          getattr(fits[0].estimator_.tree_, attr))
