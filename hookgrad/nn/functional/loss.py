"""nn.functional: losses (regression, negative log-likelihood, cross-entropy, binary
cross-entropy), with torch's reductions, options, node names and errors.

``reduction`` is ``"mean"`` (default), ``"sum"`` or ``"none"``; the legacy ``size_average`` /
``reduce`` flags map onto it as in torch.
"""

from __future__ import annotations

import warnings

import numpy as np

from hookgrad.ops import loss as ops
from hookgrad.tensor import Tensor, dtypes
from hookgrad.tensor.dispatch import apply

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "huber_loss",
    "l1_loss",
    "mse_loss",
    "nll_loss",
    "smooth_l1_loss",
]

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """The reduction named by ``reduction``, or by the legacy flags when either is given."""
    if size_average is not None or reduce is not None:
        warnings.warn(
            "size_average and reduce args will be deprecated, please use reduction='"
            + _legacy(size_average, reduce)
            + "' instead.",
            stacklevel=3,
        )
        return _legacy(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _legacy(size_average: bool | None, reduce: bool | None) -> str:
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _weighted(errors: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    """torch's elementwise-weighted regression loss: ``mean`` divides by ``weight.sum()``."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    return errors.sum() / weight.sum()


# ---------------------------------------------------------------- regression losses


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean squared error ``(input - target) ** 2``, reduced (``weight`` scales each element).

    Example::

        F.mse_loss(hookgrad.tensor([1.0, 2.0]), hookgrad.tensor([0.0, 0.0]))  # tensor(2.5000)
    """
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target) ** 2, weight, input, reduction)
    return apply(ops.MseLoss(ops.REDUCTIONS[reduction]), input, target)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean absolute error ``|input - target|``, reduced (``weight`` scales each element).

    Example::

        F.l1_loss(hookgrad.tensor([1.0, -3.0]), hookgrad.tensor([0.0, 0.0]))  # tensor(2.)
    """
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    errors = (input - target).abs()
    if weight is not None:
        return _weighted(errors, weight, input, reduction)
    if reduction == "none":
        return errors
    return errors.sum() if reduction == "sum" else errors.mean()


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """Quadratic ``0.5 d**2 / beta`` for ``|d| < beta``, else linear ``|d| - 0.5 beta``
    (``d = input - target``); ``beta = 0`` is ``l1_loss``.

    Example::

        F.smooth_l1_loss(hookgrad.tensor([0.5, 3.0]), hookgrad.zeros(2))  # tensor(1.3125)
    """
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return apply(ops.SmoothL1Loss(ops.REDUCTIONS[reduction], beta), input, target)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """``0.5 d**2`` for ``|d| < delta``, else ``delta * (|d| - 0.5 delta)``.

    Example::

        F.huber_loss(hookgrad.tensor([0.5, 3.0]), hookgrad.zeros(2))  # tensor(1.3125)
    """
    _warn_size(input, target)
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        errors = apply(ops.HuberLoss(ops.REDUCTIONS["none"], delta), input, target)
        return _weighted(errors, weight, input, reduction)
    return apply(ops.HuberLoss(ops.REDUCTIONS[reduction], delta), input, target)


# ---------------------------------------------------------------- NLL and cross-entropy


def _class_weight(weight: Tensor | None, classes: int, input: Tensor) -> Tensor | None:
    if weight is None:
        return None
    if weight.ndim != 1 or weight.numel() != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )
    if weight.dtype != input.dtype:
        raise RuntimeError(
            f"expected scalar type {_type_name(input.dtype)} but found {_type_name(weight.dtype)}"
        )
    return weight.detach()


def _type_name(dtype: dtypes.dtype) -> str:
    return dtype.type_name[3:-4]


def _check_target(input: Tensor, target: Tensor, ignore_index: int) -> None:
    """Validate class indices as torch's ``nll_loss`` does."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and input.shape[0] != target.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0] if target.ndim else 1})."
        )
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim > 2:
        expected = (input.shape[0],) + tuple(input.shape[2:])
        if tuple(target.shape) != expected:
            raise RuntimeError(f"Expected target size {list(expected)}, got {list(target.shape)}")
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_type_name(target.dtype)}"
        )
    indices = target._data.astype(np.int64, copy=False)
    classes = input.shape[1 if input.ndim > 1 else 0]
    bad = (indices != ignore_index) & ((indices < 0) | (indices >= classes))
    if bad.any():
        raise IndexError(f"Target {indices[bad].flat[0]} is out of bounds.")


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood: ``-weight[t] * input[n, t]`` for class indices ``t`` of dim 1
    (``input`` is ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``). Targets equal to
    ``ignore_index`` contribute 0; ``"mean"`` divides by the summed weights of the others.

    Example::

        logp = hookgrad.tensor([[-0.1, -2.0], [-3.0, -0.2]])
        F.nll_loss(logp, hookgrad.tensor([0, 1]))  # tensor(0.1500)
    """
    reduction = _reduction(size_average, reduce, reduction)
    _check_target(input, target, ignore_index)
    classes = input.shape[1 if input.ndim > 1 else 0]
    class_weight = _class_weight(weight, classes, input)
    code = ops.REDUCTIONS[reduction]
    if input.ndim in (1, 2, 4) or input.numel() == 0:
        op = ops.NllLoss(code, ignore_index, two_d=target.ndim >= 2)
        return apply(op, input, target, class_weight)[0]
    # torch runs other shapes through its 4-d kernel: views in, and out for "none"
    flat = input.reshape(input.shape[0], classes, 1, -1)
    op = ops.NllLoss(code, ignore_index, two_d=True)
    loss = apply(op, flat, target.reshape(input.shape[0], 1, -1), class_weight)[0]
    return loss.reshape(target.shape) if reduction == "none" else loss


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy between logits ``input`` (classes along dim 1, or dim 0 for 1-d input)
    and ``target``: class indices (``nll_loss(log_softmax(input))``) or, when ``target``
    has ``input``'s shape, class probabilities. ``label_smoothing`` mixes the target with
    the uniform distribution.

    Example::

        logits = hookgrad.tensor([[2.0, 0.0], [0.0, 2.0]])
        F.cross_entropy(logits, hookgrad.tensor([0, 1]))  # tensor(0.1269)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 1 if input.ndim > 1 else 0
    if input.ndim >= 1 and target.shape == input.shape:
        return _cross_entropy_probabilities(
            input, target, weight, ignore_index, reduction, label_smoothing, class_dim
        )
    log_probs = input.log_softmax(class_dim)
    loss = nll_loss(log_probs, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return loss
    classes = input.shape[class_dim]
    smooth = _smoothing_term(log_probs, target, weight, ignore_index, reduction, class_dim)
    return _scaled(loss, 1 - label_smoothing) + _scaled(smooth, label_smoothing / classes)


def _scaled(t: Tensor, number: float) -> Tensor:
    """``t * number`` as torch's C++ losses write it (``MulBackward1``)."""
    return apply(ops.MulScalar(number), t)


def _weight_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.reshape(shape)


def _smoothing_term(
    log_probs: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
    class_dim: int,
) -> Tensor:
    """``-sum_c weight[c] * log_probs[c]`` per sample, 0 where ignored, reduced as
    ``nll_loss`` reduces (``"mean"`` divides by the summed target weights)."""
    if weight is None:
        smooth = -log_probs.sum(class_dim)
    else:
        smooth = -(log_probs * _weight_view(weight, log_probs.ndim, class_dim)).sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "none":
        return smooth
    if reduction == "sum":
        return smooth.sum()
    kept = ~ignored
    if weight is None:
        return smooth.sum() / kept.sum()
    return smooth.sum() / weight[target[kept].long()].sum()


def _cross_entropy_probabilities(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
    label_smoothing: float,
    class_dim: int,
) -> Tensor:
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{_type_name(target.dtype)}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    classes = input.shape[class_dim]
    if weight is not None:
        _class_weight(weight, classes, input)
    log_probs = input.log_softmax(class_dim)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    products = log_probs * target
    if weight is not None:
        products = products * _weight_view(weight, input.ndim, class_dim)
    if reduction == "none":
        return -products.sum(class_dim)
    if reduction == "sum":
        return -products.sum()
    return apply(ops.DivScalar(input.numel() / classes), -products.sum())


# ---------------------------------------------------------------- binary cross-entropy


def _broadcast_constant(value: Tensor | None, input: Tensor, name: str) -> Tensor | None:
    if value is None:
        return None
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be a Tensor, not {type(value).__name__}")
    return value if value.dtype == input.dtype else value.detach().to(input.dtype)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``-weight * (target * log(input) + (1 - target) * log(1 - input))`` for probabilities
    ``input``; each log is clamped at -100 as in torch.

    Example::

        F.binary_cross_entropy(hookgrad.tensor([0.9, 0.2]), hookgrad.tensor([1.0, 0.0]))
        # tensor(0.1643)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    if target.dtype != input.dtype:
        raise RuntimeError(
            f"Found dtype {_type_name(target.dtype)} but expected {_type_name(input.dtype)}"
        )
    data = input._data
    if ((data < 0) | (data > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if ((target._data < 0) | (target._data > 1)).any():
        raise RuntimeError("all elements of target should be between 0 and 1")
    class_weight = _broadcast_constant(weight, input, "weight")
    return apply(ops.BinaryCrossEntropy(ops.REDUCTIONS[reduction]), input, target, class_weight)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from logits;
    ``pos_weight`` scales the positive term (one value per class, broadcast on the last
    dim), ``weight`` every term.

    Example::

        F.binary_cross_entropy_with_logits(hookgrad.tensor([2.0]), hookgrad.tensor([1.0]))
        # tensor(0.1269)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {_type_name(input.dtype)} can't be cast to the desired output type "
            f"{_type_name(target.dtype)}"
        )
    return apply(
        ops.BinaryCrossEntropyWithLogits(ops.REDUCTIONS[reduction]),
        input,
        target,
        _broadcast_constant(weight, input, "weight"),
        _broadcast_constant(pos_weight, input, "pos_weight"),
    )
