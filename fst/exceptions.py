"""Warnings raised by fst."""

__all__ = ["IncompleteMDPWarning", "NotCertifiedWarning"]


class NotCertifiedWarning(UserWarning):
    """The search stopped before proving optimality (time, memory or interrupt).

    The returned tree is the best one found; ``optimal_`` is False and
    ``lower_bound_`` still bounds the optimum from below.
    """


class IncompleteMDPWarning(UserWarning):
    """DPDTClassifier stopped (time or memory limit, or Ctrl-C) before building its
    whole MDP.

    The trees returned are the exact solution of the part built (states not
    reached are leaves, and states being built keep the tests they had tried),
    so each is a real tree with its true training loss; ``status_`` says why.
    """
