"""Loss ops: mse, smooth L1 / Huber, negative log-likelihood, binary cross-entropy (on
probabilities and on logits).

Each op reduces inside its forward (``reduction`` is ``"none"``, ``"mean"`` or ``"sum"``), so
the loss is one node with torch's name (``MseLossBackward0`` ...) whatever the reduction. The
backward scales the incoming gradient by ``1 / numel`` for ``"mean"``; a 0-d gradient
broadcasts against the elementwise derivative and the engine needs nothing else. Targets,
class weights and ``pos_weight`` that torch does not differentiate are plain arrays here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op


def _reduce(loss: np.ndarray, reduction: str, dtype: np.dtype) -> np.ndarray:
    """The loss reduced and cast to the result dtype (torch's promotion, found by the
    caller: NumPy would make ``float32 - int64`` float64)."""
    if reduction == "mean":
        return np.asarray(loss.mean(), dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype)
    return loss.astype(dtype, copy=False)


def _scale(grad: Any, reduction: str, numel: int) -> Any:
    """The incoming gradient of each element of the unreduced loss (before broadcasting)."""
    return grad / numel if reduction == "mean" else grad


# ---------------------------------------------------------------- division by a number


class DivScalar(Op):
    """``self / other`` for a Python number ``other``: the division torch's C++ losses do
    (node ``DivBackward1``; Python's ``tensor / 3`` wraps 3 into a tensor instead)."""

    node_name = "DivBackward1"
    input_names = ("self",)

    def __init__(self, other: float) -> None:
        self.other = other

    def forward(self, a: Any) -> Any:
        return (a / self.other).astype(a.dtype, copy=False)

    def backward(self, grad: Any) -> Any:
        return grad / self.other


# ---------------------------------------------------------------- regression losses


class MseLoss(Op):
    """``(self - target) ** 2``, reduced."""

    input_names = ("self", "target")
    saves = ("self", "target")

    def __init__(self, reduction: str, dtype: np.dtype) -> None:
        self.reduction = reduction
        self.dtype = dtype

    def forward(self, a: Any, b: Any) -> Any:
        diff = a - b
        self.numel = diff.size
        return _reduce(diff * diff, self.reduction, self.dtype)

    def backward(self, grad: Any) -> Any:
        a, b = self.unpack()
        grad_a = _scale(grad, self.reduction, self.numel) * ((a - b) * 2)
        needs = self.needs_input_grad
        return grad_a if needs[0] else None, -grad_a if needs[1] else None


class SmoothL1Loss(Op):
    """``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = self -
    target``); ``HuberLoss`` is ``beta`` times it with ``delta`` for ``beta``."""

    input_names = ("self", "target")
    saves = ("self", "target")

    def __init__(self, reduction: str, beta: float, dtype: np.dtype) -> None:
        self.reduction = reduction
        self.beta = beta
        self.dtype = dtype

    def forward(self, a: Any, b: Any) -> Any:
        diff = np.abs(a - b)
        self.numel = diff.size
        beta = self.beta
        loss = np.where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta)
        return _reduce(loss, self.reduction, self.dtype)

    def backward(self, grad: Any) -> Any:
        a, b = self.unpack()
        slope = ((a - b) / self.beta).clamp(-1, 1)
        grad_a = _scale(grad, self.reduction, self.numel) * slope
        needs = self.needs_input_grad
        return grad_a if needs[0] else None, -grad_a if needs[1] else None


class HuberLoss(Op):
    """``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""

    input_names = ("self", "target")
    saves = ("self", "target")

    def __init__(self, reduction: str, delta: float, dtype: np.dtype) -> None:
        self.reduction = reduction
        self.delta = delta
        self.dtype = dtype

    def forward(self, a: Any, b: Any) -> Any:
        diff = np.abs(a - b)
        self.numel = diff.size
        delta = self.delta
        loss = np.where(diff < delta, 0.5 * diff * diff, delta * (diff - 0.5 * delta))
        return _reduce(loss, self.reduction, self.dtype)

    def backward(self, grad: Any) -> Any:
        a, b = self.unpack()
        slope = (a - b).clamp(-self.delta, self.delta)
        grad_a = _scale(grad, self.reduction, self.numel) * slope
        needs = self.needs_input_grad
        return grad_a if needs[0] else None, -grad_a if needs[1] else None


# ---------------------------------------------------------------- negative log-likelihood


class NllLoss(Op):
    """``-weight[t] * self[n, t, ...]`` for class indices ``t`` along dim 1.

    ``target`` (int array, validated by the caller), ``weight`` (per class, or None) and
    ``ignore_index`` are constants. ``"mean"`` divides by the summed weights of the targets
    that are not ignored. The loss is linear in ``self``: the backward is the incoming
    gradient times a constant array holding ``-weight[t] / total`` at the targets.
    """

    input_names = ("self",)

    def __init__(
        self, target: np.ndarray, weight: np.ndarray | None, ignore_index: int, reduction: str
    ) -> None:
        self.target = target
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.node_name = "NllLoss2DBackward0" if target.ndim >= 2 else "NllLossBackward0"

    def forward(self, a: Any) -> Any:
        batched = a.ndim > 1
        scores = a if batched else a[None]
        target = self.target if batched else self.target[None]
        ignored = target == self.ignore_index
        safe = np.where(ignored, 0, target)
        self.classes = scores.shape[1]
        picked = np.take_along_axis(scores, safe[:, None], axis=1)[:, 0]
        weights = np.ones_like(picked) if self.weight is None else self.weight[safe]
        weights = np.where(ignored, 0, weights).astype(a.dtype, copy=False)
        self.ignored = ignored
        self.coefficients = -weights
        loss = -weights * picked
        if self.reduction == "none":
            return loss if batched else loss[0]
        total = loss.sum()
        if self.reduction == "sum":
            return np.asarray(total, a.dtype)
        self.total_weight = weights.sum()
        with np.errstate(all="ignore"):
            return np.asarray(total / self.total_weight, a.dtype)

    def backward(self, grad: Any) -> Any:
        coefficients = self.coefficients
        if self.reduction == "mean":
            # NOTE: ignored targets get 0 even when every target is ignored (0 / 0)
            with np.errstate(all="ignore"):
                coefficients = np.where(self.ignored, 0, coefficients / self.total_weight)
        batched = self.target.ndim > 0
        target = self.target if batched else self.target[None]
        safe = np.where(target == self.ignore_index, 0, target)
        shape = (target.shape[0], self.classes) + target.shape[1:]
        scatter = np.zeros(shape, coefficients.dtype)
        np.put_along_axis(scatter, safe[:, None], coefficients[:, None], axis=1)
        if not batched:
            scatter = scatter[0]
        if self.reduction == "none":
            grad = grad.unsqueeze(1 if batched else 0)
        return grad * grad.new_tensor(scatter)


# ---------------------------------------------------------------- binary cross-entropy

_LOG_FLOOR = -100.0  # torch clamps each log term of binary_cross_entropy at -100
_EPSILON = 1e-12  # and the denominator of its gradient at 1e-12


class BinaryCrossEntropy(Op):
    """``-weight * (target log(self) + (1 - target) log(1 - self))``, logs clamped at -100."""

    input_names = ("self", "target")
    saves = ("self", "target")
    quiet = True

    def __init__(self, weight: np.ndarray | None, reduction: str) -> None:
        self.weight = weight
        self.reduction = reduction

    def forward(self, a: Any, b: Any) -> Any:
        log_a = np.maximum(np.log(a), _LOG_FLOOR)
        log_rest = np.maximum(np.log1p(-a), _LOG_FLOOR)
        loss = -(b * log_a + (1 - b) * log_rest)
        if self.weight is not None:
            loss = loss * self.weight
        self.numel = loss.size
        return _reduce(loss, self.reduction, a.dtype)

    def backward(self, grad: Any) -> Any:
        a, b = self.unpack()
        needs = self.needs_input_grad
        grad = _scale(grad, self.reduction, self.numel)
        if self.weight is not None:
            grad = grad * grad.new_tensor(self.weight)
        grad_a = grad_b = None
        if needs[0]:
            grad_a = grad * (a - b) / ((1 - a) * a).clamp(min=_EPSILON)
        if needs[1]:
            log_rest = (-a).log1p().clamp(min=_LOG_FLOOR)
            grad_b = grad * (log_rest - a.log().clamp(min=_LOG_FLOOR))
        return grad_a, grad_b


class BinaryCrossEntropyWithLogits(Op):
    """``weight * ((1 - target) x + (1 + (pos_weight - 1) target) softplus(-x))``, with
    ``softplus(-x) = max(-x, 0) + log1p(exp(-|x|))`` so that no ``exp`` overflows."""

    input_names = ("self", "target")
    saves = ("self", "target")

    def __init__(
        self, weight: np.ndarray | None, pos_weight: np.ndarray | None, reduction: str
    ) -> None:
        self.weight = weight
        self.pos_weight = pos_weight
        self.reduction = reduction

    def forward(self, x: Any, t: Any) -> Any:
        softplus = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
        if self.pos_weight is None:
            loss = (1 - t) * x + softplus
        else:
            loss = (1 - t) * x + (1 + (self.pos_weight - 1) * t) * softplus
        if self.weight is not None:
            loss = loss * self.weight
        self.numel = loss.size
        return _reduce(loss, self.reduction, np.result_type(x, t))

    def backward(self, grad: Any) -> Any:
        x, t = self.unpack()
        needs = self.needs_input_grad
        grad = _scale(grad, self.reduction, self.numel)
        if self.weight is not None:
            grad = grad * grad.new_tensor(self.weight)
        pos_weight = None if self.pos_weight is None else grad.new_tensor(self.pos_weight)
        grad_x = grad_t = None
        if needs[0]:
            if pos_weight is None:
                grad_x = grad * (x.sigmoid() - t)
            else:
                grad_x = grad * (x.sigmoid() * ((pos_weight - 1) * t + 1) - pos_weight * t)
        if needs[1]:
            if pos_weight is None:
                grad_t = grad * -x
            else:
                softplus = (-x).clamp(min=0) + (-x.abs()).exp().log1p()
                grad_t = grad * ((pos_weight - 1) * softplus - x)
        return grad_x, grad_t
