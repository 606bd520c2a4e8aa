"""fst: provably optimal sparse decision trees as native scikit-learn trees."""
from ._classifier import FastSmallTreeClassifier
from .exceptions import NotCertifiedWarning

__all__ = ["FastSmallTreeClassifier", "NotCertifiedWarning"]
__version__ = "0.1.0"
