"""Warnings raised by fst."""

__all__ = ["NotCertifiedWarning"]


class NotCertifiedWarning(UserWarning):
    """The search stopped before proving optimality (time, memory or interrupt).

    The returned tree is the best one found; ``optimal_`` is False and
    ``lower_bound_`` still bounds the optimum from below.
    """
