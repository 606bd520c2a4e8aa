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


def test_cli_prints_the_leaves_front_and_the_path_read_from_it(tmp_path, capsys):
    data = _iris_csv(tmp_path)
    assert main(["--csv", data, "--target", "species", "--front", "4"]) == 0
    out = capsys.readouterr().out
    assert "LeavesFront(1 to 4 leaves, certified" in out
    assert "leaves<=3  loss=0.04 " in out and "RegularizationPath(" in out
    assert "(4 searches)" in out
    for argv, message in ((["--front", "3", "--max-leaf-nodes", "3"], "does not apply"),
                          (["--front", "0"], "at least 1"),
                          (["--front", "3", "--cv", "3"], "cannot go together")):
        assert main(["--csv", data, "--target", "species"] + argv) == 2
        assert message in capsys.readouterr().err


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


def test_cli_takes_the_csv_as_its_first_argument(tmp_path, capsys):
    data = _iris_csv(tmp_path)
    # the label is the first column here: name it
    assert main([data, "--target", "species", "-l", "0.05", "--max-depth", "2"]) == 0
    out = capsys.readouterr().out
    assert f"fst " in out and "iris.csv, 150 rows, 4 features" in out
    assert "optimal_    True" in out


def test_cli_time_limit_none_is_no_limit_and_zero_is_refused(tmp_path, capsys):
    import pytest
    data = _iris_csv(tmp_path)
    assert main([data, "--target", "species", "--time-limit", "none", "-l", "0.1"]) == 0
    assert "optimal_    True" in capsys.readouterr().out
    for option, bad, says in (("--time-limit", "0", "'none'"), ("--time-limit", "-3", "'none'"),
                              ("--time-limit", "soon", "'none'"),
                              ("--lambdas", "-1", ">= 0"), ("--lambdas", "a,b", "commas")):
        with pytest.raises(SystemExit) as exc:
            main([data, option, bad])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert option in err and says in err
        assert "usage:" not in err            # the problem, not the whole usage


def test_cli_cross_validates_a_grid_printing_each_fold_and_value(tmp_path, capsys):
    data = _iris_csv(tmp_path)
    assert main([data, "--target", "species", "--cv", "3", "--lambdas", "0.02,0.1",
                 "--max-depth", "2"]) == 0
    out = capsys.readouterr().out
    lines = [l for l in out.splitlines() if l.startswith("[CV ")]
    assert len(lines) == 3 * 2
    assert {l.split(";")[0].split("regularization=")[1] for l in lines} == {"0.02", "0.1"}
    assert "cross-validation: regularization" in out and "over 3 folds" in out


def test_cli_refuses_options_that_do_not_go_together(tmp_path, capsys):
    data = _iris_csv(tmp_path)
    cases = [
        ([data, "--cv", "3", "-l", "0.02"], "--regularization does not apply to --cv"),
        ([data, "-l", "0.1", "--lambdas", "0.1,0.2"], "--lambdas applies where"),
        ([data, "--front", "3", "--lambdas", "0.1,0.2"], "--lambdas applies where"),
        ([data, "--max-depth", "none", "--dpdt"], "--dpdt needs a depth"),
        ([data, "--cv", "3", "--path", "0.01,0.1"], "cannot go together"),
        ([data, "--dpdt", "-l", "0.02"], "--regularization does not apply to --dpdt"),
        ([data, "--cart-depth", "3"], "--cart-depth applies to --dpdt"),
        ([data, "--csv", data], "give the data once"),
        ([data, "--max-depth", "0"], "--max-depth must be at least 1"),
        ([data, "--dpdt", "--min-samples-leaf", "5"], "--min-samples-leaf does not apply"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("fst: error: ") and message in err, (argv, err)
        assert "Traceback" not in err


def test_cli_dpdt_honours_the_time_limit(monkeypatch, capsys):
    import fst.__main__ as cli
    seen = {}
    real = cli.DPDTClassifier

    class Spy(real):
        def fit(self, X, y, sample_weight=None):
            seen["time_limit"] = self.time_limit
            return super().fit(X, y, sample_weight)

    monkeypatch.setattr(cli, "DPDTClassifier", Spy)
    assert main(["--dpdt", "--dataset", "car_evaluation", "--max-depth", "2",
                 "--time-limit", "7.5"]) == 0
    assert seen["time_limit"] == 7.5
    out = capsys.readouterr().out
    assert "trees on the front" in out and "alpha from" in out


def test_cli_min_samples_leaf(tmp_path, capsys):
    import pytest
    data = _iris_csv(tmp_path)
    assert main([data, "--target", "species", "-l", "0.005", "--min-samples-leaf", "10"]) == 0
    out = capsys.readouterr().out
    assert "min_samples_leaf=10)" in out and "optimal_    True" in out
    assert main([data, "--target", "species", "--path", "0.01,0.1",
                 "--min-samples-leaf", "0.1"]) == 0
    from sklearn.datasets import load_iris
    from fst import regularization_path
    X, y = load_iris(return_X_y=True)
    path = regularization_path(X, [f"c{c}" for c in y], lambda_min=0.01, lambda_max=0.1,
                               min_samples_leaf=0.1)
    assert str(path) in capsys.readouterr().out
    for bad in ("0", "1.5", "ten"):
        with pytest.raises(SystemExit) as exc:
            main([data, "--min-samples-leaf", bad])
        assert exc.value.code == 2
        assert "--min-samples-leaf" in capsys.readouterr().err


def _diabetes_csv(tmp_path, rows):
    from sklearn.datasets import load_diabetes
    X, y = load_diabetes(return_X_y=True)
    head = ",".join([f"x{k}" for k in range(X.shape[1])] + ["progression"])
    body = [",".join(f"{v:.17g}" for v in list(X[i]) + [y[i] + 0.5]) for i in rows]
    return _csv(tmp_path, f"diabetes{rows[0]}.csv", "\n".join([head] + body) + "\n")


def test_cli_regression_from_a_float_target_fit_test_cv_and_path(tmp_path, capsys):
    """A target of non-integer numbers is fitted by FastSmallTreeRegressor, and the
    output says so; the training and test R^2 are the regressor's; --cv and
    --path run the regressor's; --dpdt refuses a regression target."""
    from sklearn.datasets import load_diabetes

    from fst import FastSmallTreeRegressor
    train = _diabetes_csv(tmp_path, range(0, 300))
    test = _diabetes_csv(tmp_path, range(300, 442))
    assert main([train, "--max-depth", "2", "-l", "0.01", "--test", test]) == 0
    out = capsys.readouterr().out
    assert "task        regression" in out
    X, y = load_diabetes(return_X_y=True)
    reg = FastSmallTreeRegressor(max_depth=2).fit(X[:300], y[:300] + 0.5)
    assert f"R^2         {reg.score(X[:300], y[:300] + 0.5):.4f}  (training)" in out
    assert f"R^2         {reg.score(X[300:], y[300:] + 0.5):.4f}  (test, 142 rows)" in out
    assert "FastSmallTreeRegressor(regularization=0.01, max_depth=2)" in out
    assert "optimal_    True" in out

    assert main([train, "--max-depth", "2", "--cv", "3", "--lambdas", "0.01,0.05"]) == 0
    out = capsys.readouterr().out
    assert "mean R^2" in out and out.count("[CV ") == 6

    assert main([train, "--max-depth", "2", "--path", "0.01,0.2"]) == 0
    out = capsys.readouterr().out
    assert "r2=" in out and "certified" in out

    assert main([train, "--dpdt"]) == 2
    assert "--dpdt is a classifier" in capsys.readouterr().err

    # --task classification overrides the detection
    assert main([train, "--max-depth", "2", "--task", "classification", "-l", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "task" not in out.split("\n")[1] and "accuracy" in out


def test_cli_chooses_the_regularization_by_cross_validation_by_default(capsys):
    """Without --regularization the command cross-validates: depth <= 3 first,
    then trees of any depth within a few seconds, the better mean score kept;
    what it prints is what FastSmallTreeClassifierCV gives on the same folds."""
    from fst import FastSmallTreeClassifierCV
    from fst.__main__ import _CV_LAMBDAS
    from fst.datasets import load_dataset
    assert main(["--dataset", "monk_2"]) == 0
    out = capsys.readouterr().out
    assert "choosing the regularization by 5-fold cross-validation" in out
    X, y, _ = load_dataset("monk_2")
    shallow = FastSmallTreeClassifierCV(lambdas=_CV_LAMBDAS, max_depth=3).fit(X, y)
    deep = FastSmallTreeClassifierCV(lambdas=_CV_LAMBDAS).fit(X, y)
    assert f"mean accuracy {shallow.best_score_:.4f} over 5 folds, depth <= 3" in out
    assert f"mean accuracy {deep.best_score_:.4f} over 5 folds, trees of any depth" in out
    # monk_2's concept needs depth: the deeper trees score clearly higher
    assert deep.best_score_ > shallow.best_score_ + 0.1
    best = deep.best_estimator_
    assert best.optimal_ and best.max_depth is None
    assert f"regularization={deep.regularization_:g})" in out
    assert f"tree       {best.n_leaves_} leaves, depth {best.get_depth()}" in out
    assert f"accuracy    {best.score(X, y):.4f}  (training)" in out
    assert "[CV " not in out                    # quick work prints no progress


def test_cli_keeps_the_shallow_choice_when_deeper_trees_run_out_of_time(
        monkeypatch, tmp_path, capsys):
    import fst.__main__ as cli
    from fst import FastSmallTreeClassifierCV
    monkeypatch.setattr(cli, "_DEEPER_SECONDS", 1e-6)
    data = _iris_csv(tmp_path)
    assert main([data, "--target", "species"]) == 0
    out = capsys.readouterr().out
    assert "not every fold's fit certified within 1e-06 s; depth <= 3 kept" in out
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True)
    shallow = FastSmallTreeClassifierCV(lambdas=cli._CV_LAMBDAS, max_depth=3).fit(
        X, [f"c{c}" for c in y])
    assert f"regularization={shallow.regularization_:g}, max_depth=3)" in out
    # a depth or a leaf cap given: no second cross-validation
    for argv, says in ((["--max-depth", "2"], "depth <= 2"),
                       (["--max-depth", "none"], "trees of any depth"),
                       (["--max-leaf-nodes", "3"], "trees of any depth")):
        assert main([data, "--target", "species"] + argv) == 0
        out = capsys.readouterr().out
        assert "trying trees of any depth" not in out and says in out, argv


def test_cli_too_few_rows_to_cross_validate_is_an_error(tmp_path, capsys):
    data = _csv(tmp_path, "tiny.csv", "a,label\n1,x\n2,x\n3,y\n")
    assert main([data]) == 2
    assert "give one with --regularization" in capsys.readouterr().err
    assert main([data, "-l", "0.1"]) == 0


def test_cli_one_hot_encodes_text_columns(tmp_path, capsys):
    rows = ["colour,size,smoker,label"]
    rng = __import__("numpy").random.RandomState(0)
    for i in range(60):
        colour = ["red", "green", "blue"][i % 3]
        smoker = ["no", "yes"][(i // 3) % 2]
        label = "pos" if (colour == "blue") != (smoker == "yes") else "neg"
        size = "NA" if i == 7 else f"{rng.rand():.3f}"
        rows.append(f"{colour},{size},{'' if i == 5 else smoker},{label}")
    data = _csv(tmp_path, "mixed.csv", "\n".join(rows) + "\n")
    test = _csv(tmp_path, "test.csv", "colour,size,smoker,label\n"
                "purple,0.5,yes,pos\nblue,0.2,no,pos\nred,0.1,yes,pos\n")
    assert main([data, "-l", "0.01"]) == 2
    err = capsys.readouterr().err
    assert "column 'colour' holds 'red', not a number (--one-hot encodes" in err
    assert main([data, "-l", "0.01", "--one-hot", "--test", test]) == 0
    out = capsys.readouterr().out
    assert "60 rows, 5 features (2 text columns one-hot encoded)" in out
    # three colours: a column each; smoker, of two: one column for 'yes'
    assert "colour=blue" in out and "smoker=yes" in out and "smoker=no" not in out
    assert "accuracy    1.0000  (training)" in out
    assert "(test, 3 rows)" in out     # an unseen colour: 0 in each colour column
    from fst.__main__ import _load_csv
    X, y, names, enc = _load_csv(data, one_hot=True)
    assert names == ["colour=blue", "colour=green", "colour=red", "size", "smoker=yes"]
    assert X[5, 4] != X[5, 4] and X[7, 3] != X[7, 3]          # missing: NaN
    assert list(X[0]) [:3] == [0, 0, 1]
    Xt = enc.transform("t", [["purple", "blue"], ["0.5", "0.2"], ["yes", "no"]])
    assert list(Xt[0]) == [0, 0, 0, 0.5, 1] and list(Xt[1]) == [1, 0, 0, 0.2, 0]
    assert main(["--dataset", "monk_2", "--one-hot"]) == 2
    assert "--one-hot applies to CSV files" in capsys.readouterr().err


def test_late_output_holds_quick_lines_and_releases_slow_ones(capsys):
    import sys
    import time
    from fst.__main__ import _LateOutput
    with _LateOutput(60.0):
        print("held and dropped")
    with _LateOutput(0.05):
        print("first")
        time.sleep(0.3)
        sys.stdout.write("second\n")
    print("after")
    assert capsys.readouterr().out == "first\nsecond\nafter\n"


def test_cli_scores_a_bundled_data_set_on_a_test_file(tmp_path, capsys):
    """A --test file beside a bundled data set: the same numeric columns, its
    labels read as the data set's classes."""
    from fst import FastSmallTreeClassifier
    from fst.datasets import load_dataset
    X, y, names = load_dataset("car_evaluation")
    rows = range(0, len(y), 7)
    text = [",".join(list(names) + ["label"])]
    text += [",".join([f"{v:g}" for v in X[i]] + [str(y[i])]) for i in rows]
    test = _csv(tmp_path, "car_test.csv", "\n".join(text) + "\n")
    assert main(["--dataset", "car_evaluation", "-l", "0.02", "--test", test]) == 0
    clf = FastSmallTreeClassifier(regularization=0.02).fit(X, y)
    score = clf.score(X[list(rows)], y[list(rows)])
    assert f"accuracy    {score:.4f}  (test, {len(rows)} rows)" in capsys.readouterr().out
