"""fst: provably optimal sparse decision trees as native scikit-learn trees."""
from ._classifier import FastSmallTreeClassifier
from ._cv import FastSmallTreeClassifierCV, FastSmallTreeRegressorCV
from ._dpdt import DPDTClassifier
from ._front import LeavesFront, leaves_front
from ._path import RegularizationPath, regularization_path
from ._regressor import FastSmallTreeRegressor
from .exceptions import ConstantTreeWarning, IncompleteMDPWarning, NotCertifiedWarning

__all__ = ["ConstantTreeWarning", "DPDTClassifier", "FastSmallTreeClassifier", "FastSmallTreeClassifierCV",
           "FastSmallTreeRegressor", "FastSmallTreeRegressorCV", "IncompleteMDPWarning",
           "LeavesFront", "NotCertifiedWarning", "RegularizationPath", "leaves_front",
           "regularization_path"]
__version__ = "0.1.0"
