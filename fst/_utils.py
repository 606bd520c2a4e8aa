"""Validation shared by the estimators."""
import numpy as np


def check_cost_matrix(cost_matrix, n_classes, owner):
    """The validated cost matrix, 0/1 loss when None.

    ``owner`` is the estimator's class name, used in the error messages."""
    if cost_matrix is None:
        return np.ones((n_classes, n_classes)) - np.eye(n_classes)
    try:
        cost = np.asarray(cost_matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"The 'cost_matrix' parameter of {owner} must be a numeric array. Got "
            f"{cost_matrix!r} instead.") from exc
    if cost.shape != (n_classes, n_classes):
        raise ValueError(
            f"The 'cost_matrix' parameter of {owner} must have shape (n_classes, "
            f"n_classes) = ({n_classes}, {n_classes}). Got shape {cost.shape} instead.")
    if not np.all(np.isfinite(cost)) or np.any(cost < 0):
        raise ValueError(
            f"The 'cost_matrix' parameter of {owner} must hold finite values >= 0. Got "
            f"{cost.tolist()!r} instead.")
    return cost
