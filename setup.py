"""Build the Cython core of fst, with OpenMP where the compiler supports it.

Compiler directives are set once here.  ``FST_DEBUG=1`` in the environment turns
bound checks and wrap-around checks on for debugging builds, ``FST_NO_OPENMP=1``
builds without OpenMP, ``FST_TSAN=1`` builds for ThreadSanitizer (gcc or clang
``-fsanitize=thread``; run with the sanitizer's runtime preloaded, as
docs/developers.md shows).  The modules compile in parallel (one job a core).  An
extension is rebuilt when its sources changed, and every one when the build's
flags changed since the last build in this tree (so a debug build is never
mistaken for a release one); ``FST_FORCE_BUILD=1`` rebuilds all, and
``FST_BUILD_ONLY=_depth,_search`` builds only the modules it names.
"""
import json
import os
import platform
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

MODULES = ["_limits", "_config", "_columns", "_problem", "_memo", "_context", "_squares_nodes", "_nodes", "_pair_counts",
           "_pair_values", "_pair_stage", "_segment", "_search", "_schedule",
           "_solver", "_writer", "_testing", "_cart", "_hull", "_mdp", "_depth",
           "_depth_columns", "_capped", "_squares", "_depth_search"]


def _openmp_flags(compiler_type):
    """Compile and link flags for OpenMP on this platform."""
    if compiler_type == "msvc":
        return ["/openmp"], []
    if sys.platform == "darwin":
        return ["-Xpreprocessor", "-fopenmp"], ["-lomp"]
    return ["-fopenmp"], ["-fopenmp"]


class BuildExtOpenMP(build_ext):
    """Build extensions with OpenMP if a test program compiles and links."""

    def _has_openmp(self, cflags, lflags):
        code = textwrap.dedent(
            """
            #include <omp.h>
            int main(void) {
                int n = 0;
                #pragma omp parallel reduction(+:n)
                n += 1;
                return n > 0 ? 0 : 1;
            }
            """
        )
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "omp_test.c")
            with open(src, "w") as f:
                f.write(code)
            try:
                objs = self.compiler.compile([src], output_dir=tmp, extra_postargs=cflags)
                self.compiler.link_executable(
                    objs, os.path.join(tmp, "omp_test"), extra_postargs=lflags
                )
            except Exception:  # noqa: BLE001 - any failure means "no OpenMP"
                return False
        return True

    def build_extensions(self):
        if not self.parallel:
            self.parallel = os.cpu_count() or 1
        cflags, lflags = _openmp_flags(self.compiler.compiler_type)
        if self.compiler.compiler_type != "msvc":
            # a product never fused into a sum: the vector loops (simd/, whose
            # AVX-512 target has FMA) give the same doubles as the scalar ones
            flags = ["-ffp-contract=off"]
            if platform.machine().lower() in ("x86_64", "amd64"):
                # hardware popcount (every x86-64 CPU since 2008); the hot loops
                # are popcounts
                flags.append("-mpopcnt")
            for ext in self.extensions:
                ext.extra_compile_args += flags
        openmp = os.environ.get("FST_NO_OPENMP") != "1" and self._has_openmp(cflags, lflags)
        if not openmp:
            print("fst: OpenMP not available, building the core single-threaded")
        else:
            for ext in self.extensions:
                ext.extra_compile_args += cflags
                ext.extra_link_args += lflags
        if _REBUILD:
            self.force = True
        super().build_extensions()


# The build switches: FST_DEBUG changes the generated C (bound checks), the
# others only how it is compiled.
_GENERATE_SWITCHES = ("FST_DEBUG",)
_COMPILE_SWITCHES = ("FST_NO_OPENMP", "FST_TSAN")


def _flags_changed():
    """(regenerate, recompile): whether the last build in this tree was made
    with other switches that change the generated C (then it is regenerated and
    recompiled), or only other compile switches (then it is recompiled from the
    same C: pip builds in-tree, and a .so made with other switches would
    otherwise be reused); records the present ones."""
    signature = {key: os.environ.get(key, "")
                 for key in _GENERATE_SWITCHES + _COMPILE_SWITCHES}
    stamp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fst", "_core",
                         ".build-flags")
    try:
        with open(stamp) as f:
            previous = json.load(f)
    except (OSError, ValueError):
        previous = None
    with open(stamp, "w") as f:
        json.dump(signature, f)
    if previous is None:
        return True, True
    regenerate = any(previous.get(k, "") != signature[k] for k in _GENERATE_SWITCHES)
    return regenerate, previous != signature


_FORCE = os.environ.get("FST_FORCE_BUILD") == "1"
_REGENERATE, _REBUILD = _flags_changed()
_REGENERATE = _REGENERATE or _FORCE
_REBUILD = _REBUILD or _FORCE


def _modules():
    """The modules to build: all, or those FST_BUILD_ONLY names (comma-separated;
    the others stay as built before: a sanitizer build of the modules whose code
    runs on threads)."""
    only = os.environ.get("FST_BUILD_ONLY")
    if not only:
        return MODULES
    names = [name.strip() for name in only.split(",")]
    unknown = sorted(set(names) - set(MODULES))
    if unknown:
        raise SystemExit(f"FST_BUILD_ONLY names modules fst does not have: {unknown}")
    return [name for name in MODULES if name in names]


def _extensions():
    debug = os.environ.get("FST_DEBUG") == "1"
    directives = {
        "language_level": 3,
        "boundscheck": debug,
        "wraparound": debug,
        "cdivision": True,
        "initializedcheck": debug,
        "nonecheck": False,
    }
    opt = ["-O0", "-g"] if debug else ["-O3"]
    link = []
    if os.environ.get("FST_TSAN") == "1":
        opt = ["-O0", "-g", "-fsanitize=thread"]
        link = ["-fsanitize=thread"]
    if sys.platform == "win32":
        opt = []
    exts = [
        Extension(
            f"fst._core.{name}",
            [f"fst/_core/{name}.pyx"],
            include_dirs=[np.get_include(), "fst/_core"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=list(opt),
            extra_link_args=list(link),
        )
        for name in _modules()
    ]
    return cythonize(exts, compiler_directives=directives, force=_REGENERATE)


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildExtOpenMP})
