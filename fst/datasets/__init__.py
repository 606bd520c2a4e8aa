"""Small data sets shipped with fst, for examples and the command line.

monk_2, car_evaluation and tic-tac-toe come from the UCI Machine Learning
Repository (CC BY 4.0), in the binarised form of the GOSDT experiments: every
feature is 0/1 and the last column is the label.
"""
import csv
import os

import numpy as np

__all__ = ["list_datasets", "load_dataset"]

_HERE = os.path.dirname(__file__)


def list_datasets():
    """Names of the bundled data sets."""
    return sorted(f[:-4] for f in os.listdir(_HERE) if f.endswith(".csv"))


def load_dataset(name, *, as_frame=False):
    """Load a bundled data set.

    Parameters
    ----------
    name : str
        One of `list_datasets()`.
    as_frame : bool, default=False
        Return X as a pandas DataFrame (pandas needed) instead of an ndarray.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features) or DataFrame
    y : ndarray of shape (n_samples,)
    feature_names : list of str
    """
    names = list_datasets()
    if name not in names:
        raise ValueError(f"Unknown data set {name!r}; the bundled ones are {names}.")
    with open(os.path.join(_HERE, name + ".csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    data = np.array(body, dtype=np.float64)
    X, y = data[:, :-1], data[:, -1].astype(np.int64)
    features = header[:-1]
    if as_frame:
        import pandas as pd

        X = pd.DataFrame(X, columns=features)
    return X, y, features
