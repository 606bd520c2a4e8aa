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


def load_gosdt14(name):
    """(X float64 with NaN for missing, y labels) of one gosdt14 problem."""
    df = pd.read_csv(os.path.join(GOSDT14, name + ".csv"), na_values=["NA", "?"])
    X = df.iloc[:, :-1].to_numpy(dtype=np.float64)
    y = df.iloc[:, -1].to_numpy()
    return X, y
