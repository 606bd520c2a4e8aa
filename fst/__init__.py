"""fst: provably optimal sparse decision trees as native scikit-learn trees."""
from ._classifier import FastSmallTreeClassifier
from ._cv import FastSmallTreeClassifierCV, FastSmallTreeRegressorCV
from ._dpdt import DPDTClassifier
from ._path import RegularizationPath, regularization_path
from ._regressor import FastSmallTreeRegressor
from .exceptions import IncompleteMDPWarning, NotCertifiedWarning

__all__ = ["DPDTClassifier", "FastSmallTreeClassifier", "FastSmallTreeClassifierCV",
           "FastSmallTreeRegressor", "FastSmallTreeRegressorCV", "IncompleteMDPWarning",
           "NotCertifiedWarning", "RegularizationPath", "regularization_path"]
__version__ = "0.1.0"
