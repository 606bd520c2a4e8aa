"""The pair stage's three-leaf bound (`three_leaf_peel` in `fst/_core/_bounds.pxd`,
`_peel_bound` in `_pair_values.pyx`, `fst_peel3_u` in `simd/values.h`): a three-leaf tree on a child that peels off the
cell A loses at least loss(A) + max(0, best2 - worst(A)).

Checked three ways: the vector and scalar loops return the same value, that value
is the formula recomputed here, and on real row sets it never exceeds the best
three-leaf tree found by enumerating every one (the bound is admissible)."""
import itertools

import numpy as np
import pytest

from fst._core import _testing
from oracle import split_space

def _cells(A, cl, right, cc, j):
    """Class counts of the two cells split j cuts the child into (A's row j)."""
    K = A.shape[1]
    x = [float(v) for v in A[j, :-1]]
    x.append(float(A[j, -1]) - sum(x))
    if right:
        x = [cl[j, k] - x[k] for k in range(K)]
    z = [cc[k] - x[k] for k in range(K)]
    return np.array(x), np.array(z)


def _formula(A, cl, right, cc, cost, lam):
    """The bound from its definition: the least over the cells that may peel off
    (potential >= lam beside a side of >= 2 lam, as the loops test it) of
    loss(A) + max(0, best2 - worst(A)); never below the cheapest peel."""
    potc = cost.max(axis=1) - cost.min(axis=1)
    worstc = cost.max(axis=1)
    unit = lam * (1 - 1e-9)
    best2, peel, bound = np.inf, np.inf, np.inf
    cells = []
    for j in range(A.shape[0]):
        x, z = _cells(A, cl, right, cc, j)
        if x.sum() == 0 or z.sum() == 0:
            continue
        lx, lz = (x @ cost).min(), (z @ cost).min()
        best2 = min(best2, lx + lz)
        for la, a, b in ((lx, x, z), (lz, z, x)):
            if a @ potc >= unit and b @ potc >= 2 * unit:
                cells.append((la, a @ worstc))
                peel = min(peel, la)
    for la, wa in cells:
        bound = min(bound, la + max(0.0, best2 - wa))
    return best2, max(peel, bound) if bound < np.inf else peel


def _random_row(rng, K, m, unit, right):
    """Counts of one consistent row: the child's cells inside its class counts cc
    (the left child's cell is A's, the right child's cl - A's)."""
    cc = rng.integers(0, 14, size=K).astype(float)
    cells = np.stack([rng.integers(0, cc[k] + 1, size=m) for k in range(K)], axis=1)
    if rng.random() < 0.3:   # ties and cells that separate nothing
        cells[::3] = 0
        cells[1::4] = cc
    other = rng.integers(0, 5, size=(m, K))
    if right:
        cells, other = other, cells
    A = np.concatenate([cells[:, :-1], cells.sum(1, keepdims=True)], axis=1).astype(np.int32)
    cl = (cells + other).astype(float)
    cost = (1.0 - np.eye(K)) if unit else rng.random((K, K))
    return A, cl, cc, np.ascontiguousarray(cost / 53.0)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("unit", [True, False])
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("lam", [0.0, 0.02])
def test_three_leaf_bound_is_its_formula(seed, K, unit, right, lam):
    """Random rows of pair counts (many splits, so the vector loop runs whole blocks
    and a partial one): both loops return the formula's value; under a unit cost
    (whole rows) exactly."""
    rng = np.random.default_rng(seed * 31 + K)
    A, cl, cc, cost = _random_row(rng, K, int(rng.integers(1, 50)), unit, right)
    potc = cost.max(axis=1) - cost.min(axis=1)
    best2, expected = _formula(A, cl, right, cc, cost, lam)
    got = []
    for mode in (0, 1, 2):
        got.append(_testing.pair_values_for_tests(A, cl, right, cc, cost, potc, lam,
                                                  three_leaf=True, simd=mode))
    assert got[0] == got[1] == got[2]
    b2, bound, _ = got[0]
    assert b2 == pytest.approx(best2, rel=1e-12, abs=1e-15)
    if np.isinf(expected):
        assert np.isinf(bound)
    else:
        assert bound == pytest.approx(expected, rel=1e-12, abs=1e-15)
        if unit:   # whole rows: u times an integer, as the loops compute it
            assert bound / cost[0, 1] == pytest.approx(round(bound / cost[0, 1]), abs=1e-9)


def _leaf(counts, cost):
    return (counts @ cost).min()


def _best_three_leaf(rows, S, y, K, cost, lam):
    """The least loss of a three-leaf tree on the row set `rows` (a boolean mask)
    over the splits S (boolean columns), every leaf of potential >= lam, by
    enumeration: root t, the side kept as a leaf, the split u of the other side."""
    potc = cost.max(axis=1) - cost.min(axis=1)
    best = np.inf

    def counts(mask):
        return np.bincount(y[mask], minlength=K).astype(float)

    for t, u in itertools.product(range(S.shape[1]), repeat=2):
        for leaf_side in (S[:, t], ~S[:, t]):
            A = rows & leaf_side
            C = rows & ~leaf_side
            C1, C2 = C & S[:, u], C & ~S[:, u]
            parts = [counts(A), counts(C1), counts(C2)]
            if any(p.sum() == 0 for p in parts):
                continue
            if any(p @ potc < lam for p in parts):
                continue
            best = min(best, sum(_leaf(p, cost) for p in parts))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_three_leaf_bound_never_exceeds_a_three_leaf_tree(seed):
    """Admissibility on real row sets: X a random subset of rows, split i's child
    (left or right), its row of pair counts against every split; the bound (in
    both loops) is at most the best three-leaf tree on the child whose leaves all
    have potential >= lam, found by enumeration.  Two or three classes, a unit
    cost or a random one (nonzero diagonal included), lam from 0."""
    rng = np.random.default_rng(5000 + seed)
    n = int(rng.integers(12, 40))
    p = int(rng.integers(3, 7))
    K = 2 + seed % 2
    S = rng.random((n, p)) < rng.uniform(0.2, 0.8, size=p)
    y = ((S[:, 0] ^ S[:, 1 % p]) + (rng.random(n) < 0.3) * rng.integers(0, K, size=n)) % K
    if seed % 4 < 2:
        cost = 1.0 - np.eye(K)
    else:
        cost = rng.random((K, K)) * (1.0 + 2 * (rng.random((K, K)) < 0.3))
    cost = np.ascontiguousarray(cost / n)
    lam = [0.0, 0.5 / n, 2.0 / n, 0.1][seed % 4]
    X = rng.random(n) < 0.85
    i = int(rng.integers(0, p))
    right = bool(seed % 3 == 0)
    child = X & (~S[:, i] if right else S[:, i])
    if child.sum() < 3:
        child = X
        right = False
        i = None
    m = p
    A = np.zeros((m, K), dtype=np.int32)
    cl = np.zeros((m, K))
    for j in range(m):
        base = X & S[:, j]
        cl[j] = np.bincount(y[base], minlength=K)
        cell = base & (S[:, i] if i is not None else np.ones(n, bool))
        cnt = np.bincount(y[cell], minlength=K)
        A[j, :-1] = cnt[:-1]
        A[j, -1] = cnt.sum()
    cc = np.bincount(y[child], minlength=K).astype(float)
    potc = cost.max(axis=1) - cost.min(axis=1)
    truth = _best_three_leaf(child, S, y, K, cost, lam)
    for mode in (0, 1, 2):
        _, bound, _ = _testing.pair_values_for_tests(A, cl, right, cc, cost, potc, lam,
                                                     three_leaf=True, simd=mode)
        _, peel, _ = _testing.pair_values_for_tests(A, cl, right, cc, cost, potc, lam,
                                                    simd=mode)
        assert bound >= peel
        assert bound <= truth + 1e-12, (seed, mode, bound, truth)


def _best_two_leaf(X, y, rows, cost):
    """Least loss over the two-leaf trees on `rows` (every split of X's split space
    that separates them), or inf."""
    K = cost.shape[0]
    best = np.inf
    for _, left in split_space(X):
        sides = [rows[left[rows]], rows[~left[rows]]]
        if all(len(side) for side in sides):
            best = min(best, sum(_leaf(np.bincount(y[side], minlength=K), cost)
                                 for side in sides))
    return best


@pytest.mark.parametrize("seed", range(60))
def test_two_leaf_transfer_never_exceeds_a_two_leaf_tree(seed):
    """`_transfer_two_leaf`'s bound: for rows C inside X, every two-leaf tree on C
    loses at least best2(X) - worst(X minus C), worst being each row at its
    class's largest cost.  Enumerated on random row sets and cost matrices."""
    rng = np.random.default_rng(seed)
    n, p, K = int(rng.integers(6, 40)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
    X = rng.integers(0, 4, size=(n, p)).astype(float)
    y = rng.integers(0, K, size=n)
    cost = rng.uniform(0, 2, size=(K, K)) if seed % 2 else np.ones((K, K)) - np.eye(K)
    rows = np.arange(n)
    best_x = _best_two_leaf(X, y, rows, cost)
    for _ in range(20):
        inside = rows[rng.random(n) < rng.uniform(0.4, 1.0)]
        if len(inside) < 2:
            continue
        out = np.setdiff1d(rows, inside)
        worst = float(cost.max(axis=1)[y[out]].sum())
        best_c = _best_two_leaf(X, y, inside, cost)
        assert best_x - worst <= best_c + 1e-9
