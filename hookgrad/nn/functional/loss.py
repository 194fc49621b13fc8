"""nn.functional: losses (regression, likelihoods, cross-entropy, binary cross-entropy,
KL divergence), with torch's reductions, options, node names and errors; and the
torch-level forms with torch's int ``reduction`` (``torch_kl_div`` ..., exported by
``hookgrad`` as ``torch.kl_div`` ...). The margin and embedding losses are in
``margin_loss.py``, ``ctc_loss`` in ``ctc_loss.py``, the reduction arguments they all read
in ``loss_reduction.py``.

``reduction`` is ``"mean"`` (default), ``"sum"`` or ``"none"``; the legacy ``size_average`` /
``reduce`` flags map onto it as in torch. The losses torch writes as composites of tensor
ops (KL divergence, Poisson and Gaussian likelihoods ...) are the same composites here, so
their graphs are torch's.

Example: ``mse_loss(hookgrad.zeros(2), hookgrad.ones(2))`` is ``tensor(1.)``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

import hookgrad
from hookgrad.nn.functional.loss_reduction import (
    REDUCTION_NAMES,
    apply_reduction,
    check_real,
    reduction_enum,
    reduction_name,
    warn_target_size,
    weighted_loss,
)
from hookgrad.ops import loss as ops
from hookgrad.ops.arithmetic import AddScalar
from hookgrad.tensor import Tensor, dtypes
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.index_parsing import scalar_type_name

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "gaussian_nll_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "linear_cross_entropy",
    "mse_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
]


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
    warn_target_size(input, target)
    reduction = reduction_name(size_average, reduce, reduction)
    if weight is not None:
        return weighted_loss((input - target) ** 2, weight, input, reduction)
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
    warn_target_size(input, target)
    reduction = reduction_name(size_average, reduce, reduction)
    errors = (input - target).abs()
    if weight is not None:
        return weighted_loss(errors, weight, input, reduction)
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
    warn_target_size(input, target)
    reduction = reduction_name(size_average, reduce, reduction)
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
    warn_target_size(input, target)
    reduction = reduction_name(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        errors = apply(ops.HuberLoss(ops.REDUCTIONS["none"], delta), input, target)
        return weighted_loss(errors, weight, input, reduction)
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
            f"expected scalar type {scalar_type_name(input.dtype)} but found "
            f"{scalar_type_name(weight.dtype)}"
        )
    return weight.detach()


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
            f"expected target dtype to be Long or Byte, but got {scalar_type_name(target.dtype)}"
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
    reduction = reduction_name(size_average, reduce, reduction)
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
    reduction = reduction_name(size_average, reduce, reduction)
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
            f"{scalar_type_name(target.dtype)}"
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
    reduction = reduction_name(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    if target.dtype != input.dtype:
        raise RuntimeError(
            f"Found dtype {scalar_type_name(target.dtype)} but expected "
            f"{scalar_type_name(input.dtype)}"
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
    reduction = reduction_name(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {scalar_type_name(input.dtype)} can't be cast to the desired output type "
            f"{scalar_type_name(target.dtype)}"
        )
    return apply(
        ops.BinaryCrossEntropyWithLogits(ops.REDUCTIONS[reduction]),
        input,
        target,
        _broadcast_constant(weight, input, "weight"),
        _broadcast_constant(pos_weight, input, "pos_weight"),
    )


# ---------------------------------------------------------------- KL divergence


def torch_kl_div(
    input: Tensor, target: Tensor, reduction: int = 1, *, log_target: bool = False
) -> Tensor:
    """``torch.kl_div``: ``target * (log(target) - input)`` (``exp(target) * (target -
    input)`` with ``log_target``), reduced by torch's int ``reduction``.

    Example: ``torch.kl_div(logp, q, 2)``.
    """
    check_real("kl_div", input, target)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        output = target.exp() * (target - input)
    else:
        output = hookgrad.xlogy(target, target) - target * input
    return apply_reduction(output, reduction)


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """The Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``:
    ``target * (log(target) - input)`` summed over elements; ``"batchmean"`` divides by
    the batch size (the mathematical KL), ``"mean"`` by the number of elements.
    ``log_target``: ``target`` holds log-probabilities too.

    Example::

        F.kl_div(hookgrad.tensor([[-1.0, -0.5]]), hookgrad.tensor([[0.3, 0.7]]),
                 reduction="batchmean")
    """
    if size_average is not None or reduce is not None:
        code = reduction_enum(size_average, reduce, reduction)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with "
                "the KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.",
                stacklevel=2,
            )
        code = (
            ops.REDUCTIONS["sum"]
            if reduction == "batchmean"
            else reduction_enum(None, None, reduction)
        )
    reduced = torch_kl_div(input, target, code, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


# ---------------------------------------------------------------- likelihoods


def torch_poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    """``torch.poisson_nll_loss`` with torch's int ``reduction``.

    Example: ``torch.poisson_nll_loss(x, y, True, False, 1e-8, 1)``.
    """
    # NOTE: in torch's order: C++ evaluates the right operand of ``-`` first.
    if log_input:
        product = target * input
        loss = input.exp() - product
    else:
        loss = input - target * apply(AddScalar(eps, 1), input).log()
    if full:
        stirling = (
            target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        ).masked_fill(target <= 1, 0)
        loss = loss + stirling
    return apply_reduction(loss, reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of a Poisson ``target`` with rate ``exp(input)``
    (``log_input``) or ``input``: ``exp(input) - target * input``, or ``input - target *
    log(input + eps)``; ``full`` adds Stirling's approximation of ``log(target!)``.

    Example::

        F.poisson_nll_loss(hookgrad.tensor([0.5, 1.0]), hookgrad.tensor([1.0, 3.0]))
    """
    code = reduction_enum(size_average, reduce, reduction)
    return torch_poisson_nll_loss(input, target, log_input, full, eps, code)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of ``target`` under normal distributions of mean ``input``
    and variance ``var`` (clamped to at least ``eps``; one per element, or broadcast
    over one dim): ``0.5 * (log(var) + (input - target) ** 2 / var)``, plus
    ``0.5 * log(2 pi)`` with ``full``.

    Example::

        F.gaussian_nll_loss(hookgrad.zeros(3), hookgrad.ones(3), hookgrad.ones(3))
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * hookgrad.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and (
            sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1
        ):
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in REDUCTION_NAMES:
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with hookgrad.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def torch_binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = 1,
) -> Tensor:
    """``torch.binary_cross_entropy_with_logits`` with torch's int ``reduction``.

    Example: ``torch.binary_cross_entropy_with_logits(x, y, None, None, 1)``.
    """
    name = {code: text for text, code in ops.REDUCTIONS.items()}[reduction]
    return binary_cross_entropy_with_logits(
        input, target, weight, reduction=name, pos_weight=pos_weight
    )


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: Any = None,
) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``: the
    cross-entropy of logits computed by a linear layer (torch's fused loss of a language
    model's head).

    ``input`` is ``(in_features,)`` or ``(N, in_features)``; ``linear_weight``
    ``(C, in_features)``, or ``(C, d_1, ..., d_K, in_features)`` for a K-dimensional loss
    (batched input only), ``linear_bias`` ``(C, d_1, ..., d_K)``. ``target`` holds class
    indices, or class probabilities when it has the logits' shape. ``ignore_index``
    None means -100 for indices (and may not be given with probabilities). ``options``
    (``nn.LinearCrossEntropyOptions``) asks torch for its chunked computation; hookgrad
    validates them and computes the reference path (the same values). Example::

        loss = F.linear_cross_entropy(hidden, head.weight, labels)
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}"
        )
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(
            f"expected linear_bias shape {(num_classes, *out_features)}, got "
            f"{tuple(linear_bias.shape)}"
        )
    if out_features and not num_batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        chunked = (reduction, label_smoothing, target, linear_bias)
        _check_chunked_options(options, input, num_classes, out_features, *chunked)
    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = hookgrad.nn.functional.linear(input, linear_weight, linear_bias)
    return cross_entropy(
        logits.reshape(logits_shape),
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=ignore_index,
        label_smoothing=label_smoothing,
    )


def _check_chunked_options(
    options: Any,
    input: Tensor,
    num_classes: int,
    out_features: tuple[int, ...],
    reduction: str,
    label_smoothing: float,
    target: Tensor,
    linear_bias: Tensor | None,
) -> None:
    """torch's warning when ``options`` ask for a chunked computation it cannot do, and
    its ``ValueError`` for options that contradict themselves at this size."""
    if (
        out_features
        or reduction not in {"mean", "sum", "none"}
        or label_smoothing != 0.0
        or target.dtype != dtypes.int64
    ):
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
            f"out_features == (). Got reduction={reduction!r}, label_smoothing="
            f"{label_smoothing}, target.dtype={target.dtype}, out_features={out_features}"
            f", tracing=False, linear_bias.shape={bias_shape}.",
            stacklevel=3,
        )
        return
    num_batches = input.shape[0] if input.dim() == 2 else 1
    options._adjust(num_batches, input.shape[-1], num_classes, input.dtype, input.device)
