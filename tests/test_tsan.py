"""A ThreadSanitizer build of the core (FST_TSAN=1) runs the parallel search
clean: every word the threads share (the incumbent, the stop, the table's slots,
the canonical root's least split, the engine's next column) is published with
release and read with acquire order, so no data race is reported.  The build
of the threaded modules takes about a minute; the test runs where gcc or clang
can link a -fsanitize=thread program."""
import ast
import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""
    import warnings
    import numpy as np
    from fst import FastSmallTreeClassifier
    from fst.datasets import load_dataset

    # the oracle's kind of problems and a bundled set: shares, shared incumbent,
    # table of bounds and trees, the canonical root split's threads
    X, y, _ = load_dataset("monk_2")
    for lam in (0.01, 0.005):
        ref = FastSmallTreeClassifier(regularization=lam).fit(X, y)
        for j in (2, 3, 4):
            c = FastSmallTreeClassifier(regularization=lam, n_jobs=j).fit(X, y)
            assert c.optimal_ and c.objective_ == ref.objective_, (lam, j)
    rng = np.random.default_rng(1)
    Xr = np.column_stack([rng.integers(0, 2, size=(400, 6)),
                          rng.integers(0, 5, size=(400, 3))]).astype(float)
    yr = (((Xr[:, 0] == 1) & (Xr[:, 6] > 2)) ^ (Xr[:, 1] == 1)).astype(int)
    yr[rng.random(400) < 0.1] ^= 1
    c = FastSmallTreeClassifier(regularization=0.005, n_jobs=2).fit(Xr, yr)
    assert c.optimal_ and c.search_stats_["shared_bounds"] > 0
    # the depth-limited engine's parallel root: engines taking columns
    Xc = rng.normal(size=(3000, 5))
    yc = ((Xc[:, 0] > 0.1) ^ (Xc[:, 1] * Xc[:, 3] > 0.2)).astype(int)
    e1 = FastSmallTreeClassifier(regularization=0.0, max_depth=2).fit(Xc, yc)
    e2 = FastSmallTreeClassifier(regularization=0.0, max_depth=2, n_jobs=3).fit(Xc, yc)
    assert e2.optimal_ and e2.objective_ == e1.objective_
    assert e2.search_stats_["threads"] == 3
    # the general search under squared error on two threads (each its scratch)
    from fst import FastSmallTreeRegressor
    Xq = np.floor(rng.uniform(size=(300, 4)) * 4) / 4
    yq = Xq[:, 0] + Xq[:, 1] * Xq[:, 2] + rng.normal(scale=0.3, size=300)
    r1 = FastSmallTreeRegressor(regularization=0.01).fit(Xq, yq)
    r2 = FastSmallTreeRegressor(regularization=0.01, n_jobs=2).fit(Xq, yq)
    assert r2.optimal_ and r2.search_stats_["engine"] == "general"
    assert r2.search_stats_["threads"] == 2 and r2.objective_ == r1.objective_
    # a stop reaching every thread, and the recorded tree read across stores
    rs = np.random.RandomState(0)
    Xh, yh = rs.uniform(size=(120, 6)), rs.randint(0, 2, 120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = FastSmallTreeClassifier(regularization=0.002, n_jobs=2, time_limit=0.5).fit(Xh, yh)
    assert c.status_ == "time_limit"
    print("clean run")
""")


# The modules whose code runs on the fit's threads (the searches, their stores,
# shared words, passes and limits): built for the sanitizer.  The others
# (preparation, export, CART, DPDT, test helpers) run on Python's thread alone
# and are taken from the build under test, which halves the sanitizer build.
THREADED = ["_limits", "_memo", "_context", "_squares_nodes", "_nodes", "_pair_counts",
            "_pair_values", "_pair_stage", "_segment", "_search", "_schedule", "_solver",
            "_depth", "_depth_columns", "_squares", "_depth_search"]


def _tsan_runtime():
    """The sanitizer's runtime library, or None when the compiler cannot build
    and run a -fsanitize=thread program here."""
    cc = shutil.which("gcc") or shutil.which("clang")
    if cc is None or not sys.platform.startswith("linux"):
        return None
    lib = subprocess.run([cc, "-print-file-name=libtsan.so"], capture_output=True,
                         text=True).stdout.strip()
    if not os.path.isabs(lib) or not os.path.exists(lib):
        return None
    return os.path.realpath(lib)


def setup_modules():
    """The modules setup.py builds (its MODULES list)."""
    tree = ast.parse(open(os.path.join(ROOT, "setup.py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "MODULES":
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no MODULES list")


def test_the_threaded_modules_are_modules():
    assert set(THREADED) < set(setup_modules())


@pytest.mark.slow
def test_thread_sanitizer_build_runs_the_parallel_search_clean(tmp_path):
    lib = _tsan_runtime()
    if lib is None:
        pytest.skip("no ThreadSanitizer runtime for this compiler")
    src = tmp_path / "src"
    # the generated C and its switches' stamp are kept: the sanitizer changes
    # only how the C is compiled, so it is not generated again (setup.py)
    shutil.copytree(os.path.join(ROOT, "fst"), src / "fst",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    for name in ("setup.py", "pyproject.toml"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    for name in set(setup_modules()) - set(THREADED):
        built = importlib.util.find_spec(f"fst._core.{name}").origin
        shutil.copy(built, src / "fst" / "_core" / os.path.basename(built))
    env = dict(os.environ, FST_TSAN="1", FST_BUILD_ONLY=",".join(THREADED))
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-j", "2"],
                           cwd=src, env=env, capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stderr[-3000:]
    env = dict(os.environ, PYTHONPATH=str(src), LD_PRELOAD=lib,
               TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0")
    env.pop("FST_TSAN", None)
    # sys.executable as it is, not its real path: in a virtual environment the
    # link is what finds the environment's packages (its real path is the base
    # interpreter, which may have none of them)
    run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=900)
    assert "ThreadSanitizer" not in run.stderr, run.stderr[-5000:]
    assert run.returncode == 0, run.stderr[-3000:]
    assert "clean run" in run.stdout
