"""The README's and the user guide's code blocks run, in order, one namespace a
document, and print what they say they print.

A claim is a comment ``# -> TEXT`` at the end of a statement: the statement's
output (what it prints, or the repr of an expression's value) must be TEXT."""
import ast
import contextlib
import io
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTS = ["README.md", os.path.join("docs", "user_guide.md")]
_FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_CLAIM = re.compile(r"#\s*->\s*(.*?)\s*$")


def code_blocks(path):
    """(first line, code) of each ```python block of the document."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    return [(text[:m.start()].count("\n") + 2, m.group(1)) for m in _FENCE.finditer(text)]


def run_block(code, namespace, where):
    """Run the block's statements in `namespace`, checking each claim; returns the
    number of claims checked."""
    lines = code.splitlines()
    claims = 0
    for stmt in ast.parse(code, filename=where).body:
        claim = _CLAIM.search(lines[stmt.end_lineno - 1])
        module = ast.Module(body=[stmt], type_ignores=[])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            if claim and isinstance(stmt, ast.Expr):
                value = eval(compile(ast.Expression(stmt.value), where, "eval"), namespace)
                if value is not None:
                    print(repr(value))
            else:
                exec(compile(module, where, "exec"), namespace)
        if claim:
            claims += 1
            got = out.getvalue().strip()
            assert got == claim.group(1), (
                f"{where}, line {stmt.lineno}: prints {got!r}, the document says "
                f"{claim.group(1)!r}")
    return claims


@pytest.mark.slow
@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_document_s_examples_run_and_print_what_they_say(document, tmp_path,
                                                             monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)              # the examples save files
    blocks = code_blocks(document)
    assert blocks, f"{document} has no python blocks"
    namespace = {"__name__": "__docs__"}
    claims = sum(run_block(code, namespace, f"{document}:{line}") for line, code in blocks)
    assert claims >= 2, f"{document} states too few results to check"


def test_a_wrong_claim_is_caught():
    with pytest.raises(AssertionError, match="prints '3', the document says '4'"):
        run_block("x = 1 + 2\nx   # -> 4\n", {}, "example")
    with pytest.raises(AssertionError, match="prints 'a b'"):
        run_block("print('a', 'b')   # -> a  b\n", {}, "example")
    assert run_block("print('a', 'b')   # -> a b\ny = 2\ny * 2  # -> 4\n", {}, "ex") == 2
