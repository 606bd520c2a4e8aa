"""The command line (python -m fst) on bundled data."""
from fst.__main__ import main


def test_cli_fits_the_certified_tree(capsys):
    assert main(["--dataset", "monk_2", "--regularization", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "optimal_    True" in out
    assert "objective" in out and "class:" in out


def test_cli_prints_the_dpdt_front(capsys):
    assert main(["--dpdt", "--dataset", "car_evaluation", "--max-depth", "2"]) == 0
    out = capsys.readouterr().out
    lines = [l for l in out.splitlines() if l.strip() and l.strip()[0].isdigit()]
    assert len(lines) >= 2          # at least the leaf and one split tree
    assert "inf" in lines[0]        # the simplest tree is optimal up to alpha = inf
    assert "states" in out
