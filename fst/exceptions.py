"""Warnings raised by fst."""

__all__ = ["ConstantTreeWarning", "IncompleteMDPWarning", "NotCertifiedWarning"]


class NotCertifiedWarning(UserWarning):
    """The search stopped before proving optimality (time, memory or interrupt).

    The returned tree is the best one found; ``optimal_`` is False and
    ``lower_bound_`` still bounds the optimum from below.
    """


class ConstantTreeWarning(UserWarning):
    """The fitted tree predicts the same for every training row (a single leaf,
    or splits that do not change the prediction) although the target varies.

    At the regularization given, no split lowers the loss by more than it
    costs; the message says what to try (a smaller regularization, the
    cross-validated estimator, or ``class_weight='balanced'`` where the classes
    are imbalanced).
    """


class IncompleteMDPWarning(UserWarning):
    """DPDTClassifier stopped (time or memory limit, or Ctrl-C) before building its
    whole MDP.

    The trees returned are the exact solution of the part built (states not
    reached are leaves, and states being built keep the tests they had tried),
    so each is a real tree with its true training loss; ``status_`` says why.
    """
