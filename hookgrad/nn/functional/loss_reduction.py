"""What the losses of ``nn.functional`` share: the ``reduction`` argument and the legacy
``size_average``/``reduce`` flags (``reduction_name``, torch's int ``reduction_enum``),
reducing a loss (``apply_reduction``, ``weighted_loss``), and the small checks and
messages several losses make (``warn_target_size``, ``check_real``).

Example: ``reduction_name(None, False, "mean")`` warns that the legacy flags are
deprecated and returns ``"none"``.
"""

from __future__ import annotations

import warnings

import hookgrad
from hookgrad.ops import loss as ops
from hookgrad.tensor import Tensor

REDUCTION_NAMES = ("none", "mean", "sum")


def reduction_name(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """The reduction named by ``reduction``, or by the legacy flags when either is given."""
    if size_average is not None or reduce is not None:
        warnings.warn(
            "size_average and reduce args will be deprecated, please use reduction='"
            + legacy_reduction(size_average, reduce)
            + "' instead.",
            stacklevel=3,
        )
        return legacy_reduction(size_average, reduce)
    if reduction not in REDUCTION_NAMES:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """The reduction the legacy flags name (``None`` counts as True): ``"none"`` unless
    ``reduce``, then ``"mean"`` or ``"sum"`` by ``size_average``."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def warn_target_size(input: Tensor, target: Tensor) -> None:
    """torch's warning when a regression target's shape differs from the input's (the
    loss broadcasts them)."""
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def weighted_loss(errors: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    """torch's elementwise-weighted regression loss: ``mean`` divides by ``weight.sum()``."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    return errors.sum() / weight.sum()


def reduction_enum(size_average: bool | None, reduce: bool | None, reduction: str) -> int:
    """torch's ``_Reduction`` int for a loss's arguments (the legacy flags warn)."""
    return ops.REDUCTIONS[reduction_name(size_average, reduce, reduction)]


def apply_reduction(loss: Tensor, reduction: int) -> Tensor:
    """torch's ``apply_loss_reduction`` on tensors."""
    if reduction == ops.REDUCTIONS["mean"]:
        return loss.mean()
    if reduction == ops.REDUCTIONS["sum"]:
        return loss.sum()
    return loss


def scalar_like(value: float, like: Tensor) -> Tensor:
    """torch's C++ ``number - tensor``: the number as a 0-d tensor of ``like``'s dtype."""
    return hookgrad.tensor(value, dtype=like.dtype)


def check_real(name: str, *tensors: Tensor) -> None:
    """torch's RuntimeError for a loss ``name`` given a complex tensor."""
    if any(t.is_complex() for t in tensors):
        raise RuntimeError(f"{name}: Complex inputs not supported.")
