"""Every search a fit runs has the one interface the estimators read
(`fst._protocol.TreeSearch`)."""
import numpy as np
import pytest

import fst._classifier as classifier_module
import fst._regressor as regressor_module
from fst import FastSmallTreeClassifier, FastSmallTreeRegressor
from fst._core._solver import Search
from fst._engine import EngineSearch, SquaresGeneralSearch
from fst._leaf_budget import CapProbeSearch, LeafBudgetSearch
from fst._protocol import TreeSearch


def _binary(n=60, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, p)).astype(float)
    y = (X[:, 0].astype(int) ^ X[:, 1].astype(int)) | (rng.random(n) < 0.1)
    return X, y.astype(int)


def _continuous(n=60, p=3, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    return X, (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int), X[:, 0] * 2 + rng.normal(size=n)


def _plans(monkeypatch, module, name):
    """Record the plans a fit through `module` makes with its `name`."""
    made = []
    original = getattr(module, name)

    def spy(*args, **kwargs):
        plan = original(*args, **kwargs)
        made.append(plan)
        return plan

    monkeypatch.setattr(module, name, spy)
    return made


def _searches(search):
    """The search and the searches it runs in turn."""
    out = [search]
    if isinstance(search, LeafBudgetSearch):
        out += [s for s in (search.stage, search.general) if s is not None]
    if isinstance(search, CapProbeSearch):
        out += search._generals + ([search.engine] if search.engine is not None else [])
    return out


@pytest.mark.parametrize("case", ["general", "engine", "leaf_budget", "cap_probe"])
def test_every_classifier_search_has_the_interface(monkeypatch, case):
    made = _plans(monkeypatch, classifier_module, "plan_fit")
    Xb, yb = _binary()
    Xc, yc, _ = _continuous()
    if case == "general":
        FastSmallTreeClassifier(regularization=0.02).fit(Xb, yb)
        kinds = {Search}
    elif case == "engine":
        FastSmallTreeClassifier(regularization=0.0, max_depth=2).fit(Xc, yc)
        kinds = {EngineSearch}
    elif case == "leaf_budget":
        clf = FastSmallTreeClassifier(regularization=0.02)
        clf._overrides = {"leaf_budget_probe": False, "general_search": True}
        clf.fit(Xc, yc)
        kinds = {LeafBudgetSearch, EngineSearch}
    else:
        # a cap of two the general search's optimum exceeds: the engine follows
        FastSmallTreeClassifier(regularization=0.005, max_leaf_nodes=2).fit(Xb, yb)
        kinds = {CapProbeSearch, Search, EngineSearch}
    seen = set()
    for plan in made:
        for s in _searches(plan.search):
            assert isinstance(s, TreeSearch), type(s).__name__
            seen.add(type(s))
    assert kinds <= seen


@pytest.mark.parametrize("case", ["engine", "leaf_budget", "cap_probe"])
def test_every_regressor_search_has_the_interface(monkeypatch, case):
    made = _plans(monkeypatch, regressor_module, "plan_regression")
    Xb, _ = _binary()
    Xc, _, t = _continuous()
    if case == "engine":
        FastSmallTreeRegressor(regularization=0.0, max_depth=2).fit(Xc, t)
        kinds = {EngineSearch}
    elif case == "leaf_budget":
        reg = FastSmallTreeRegressor(regularization=0.05, time_limit=None)
        reg._overrides = {"general_search": True, "leaf_budget_depth": 1}
        reg.fit(Xb, Xb[:, 0] * 3 + Xb[:, 1])
        kinds = {LeafBudgetSearch, EngineSearch, SquaresGeneralSearch}
    else:
        FastSmallTreeRegressor(regularization=0.005, max_leaf_nodes=2).fit(
            Xb, Xb[:, 0] * 3 + Xb[:, 1] * 2 + Xb[:, 2])
        kinds = {CapProbeSearch, SquaresGeneralSearch, EngineSearch}
    seen = set()
    for plan in made:
        assert plan.engine is not None
        for s in _searches(plan.search):
            assert isinstance(s, TreeSearch), type(s).__name__
            seen.add(type(s))
    assert kinds <= seen
