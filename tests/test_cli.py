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


def _csv(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _iris_csv(tmp_path, sep=","):
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True)
    head = sep.join(["species", "sl", "sw", "pl", "pw"])
    rows = [sep.join([f"c{c}"] + [f"{v:g}" for v in r]) for r, c in zip(X, y)]
    return _csv(tmp_path, "iris.csv", "\n".join([head] + rows) + "\n")


def test_cli_reads_a_named_target_and_separator_saves_and_tests(tmp_path, capsys):
    import joblib
    data = _iris_csv(tmp_path, sep=";")
    model = str(tmp_path / "model.joblib")
    assert main(["--csv", data, "--sep", ";", "--target", "species", "-l", "0.02",
                 "--test", data, "--save", model]) == 0
    out = capsys.readouterr().out
    assert "optimal_    True" in out
    assert "pl <= 2.45" in out                       # the header's names
    assert "(test, 150 rows)" in out
    clf = joblib.load(model)
    # two optima tie at 0.10 (3 leaves and 6 errors, 4 leaves and 3 errors); the
    # canonical one roots at the lowest split index reaching it
    assert clf.optimal_ and abs(clf.objective_ - 0.10) < 1e-9
    assert f"tree       {clf.n_leaves_} leaves" in out     # the saved model printed


def test_cli_prints_the_path_and_cross_validates(tmp_path, capsys):
    data = _iris_csv(tmp_path)
    assert main(["--csv", data, "--target", "species", "--path", "0.01,0.4"]) == 0
    out = capsys.readouterr().out
    assert "RegularizationPath(" in out and "leaves=3" in out
    assert main(["--csv", data, "--target", "species", "--cv", "3",
                 "--max-depth", "2"]) == 0
    out = capsys.readouterr().out
    assert "cross-validation: regularization" in out and "over 3 folds" in out


def test_cli_errors_are_one_line(tmp_path, capsys):
    bad = _csv(tmp_path, "bad.csv", "a,b,label\n1,2,x\n3,zz,y\n")
    good = _csv(tmp_path, "good.csv", "a,b,label\n1,2,x\n3,4,y\n")
    cases = [
        (["--csv", str(tmp_path / "missing.csv")], "no such file"),
        (["--csv", bad], "column 'b' holds 'zz', not a number"),
        (["--csv", bad, "--target", "nope"], "no column named 'nope'"),
        (["--csv", good, "--path", "x"], "MIN,MAX"),
        (["--csv", good, "--test", bad], "not a number"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("fst: error: ") and message in err
        assert "\n" not in err and "Traceback" not in err


def test_cli_names_itself_fst(capsys):
    import pytest
    with pytest.raises(SystemExit):
        main(["--help"])
    assert capsys.readouterr().out.startswith("usage: fst ")
