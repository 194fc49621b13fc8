"""Loss ops: mse, smooth L1 / Huber, negative log-likelihood, binary cross-entropy (on
probabilities and on logits).

Each op reduces inside its forward, so the loss is one node with torch's name
(``MseLossBackward0`` ...) whatever the reduction. ``reduction`` is torch's int:
``REDUCTIONS`` maps ``"none"``, ``"mean"``, ``"sum"`` to 0, 1, 2. mse, smooth L1, Huber
and the two binary cross-entropies are entries of the derivative table
(``hookgrad.ops.table``) with torch's formulas; their backward ops are entries too
(``mse_loss_backward`` ..., whose nodes are torch's double-backward nodes). Their
optional ``weight`` and ``pos_weight`` are tensor inputs without a formula (no edge, as
torch). ``nll_loss`` is hand-written: torch's node saves ``total_weight``, a second
output of its forward, which the table does not express; its backward is an op too
(``NllLossBackwardBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import arithmetic, array_api
from hookgrad.ops.base import Op
from hookgrad.ops.table import entry, function, helper

# ``self / other`` for a Python number: the division torch's C++ losses do (``DivBackward1``;
# Python's ``tensor / 3`` would wrap 3 into a tensor).
DivScalar = arithmetic.DivScalar
MulScalar = arithmetic.MulScalar

# torch's ``at::Reduction``: the int its loss ops take and save.
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_MEAN = REDUCTIONS["mean"]


def _apply_loss_reduction(loss: np.ndarray, reduction: int) -> np.ndarray:
    """torch's ``apply_loss_reduction``: the elementwise loss, its mean or its sum."""
    if reduction == REDUCTIONS["mean"]:
        return np.asarray(array_api.mean(loss))
    if reduction == REDUCTIONS["sum"]:
        return np.asarray(array_api.sum(loss))
    return loss


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a - b`` in torch's result dtype: a floating operand's dtype wins over an integer
    one's (NumPy would make ``float32 - int64`` float64)."""
    if a.dtype.kind in "fc" and b.dtype.kind not in "fc":
        b = b.astype(a.dtype)
    elif b.dtype.kind in "fc" and a.dtype.kind not in "fc":
        a = a.astype(b.dtype)
    return a - b


def _norm(input: np.ndarray, reduction: int) -> float:
    """The factor torch's backward kernels scale by: ``1 / input.numel()`` for a mean."""
    return 1.0 / input.size if reduction == _MEAN else 1.0


# A gradient divided by ``input.numel()`` for a mean, and times an optional weight.
helper(
    "_loss_mean(grad_input, input, reduction)",
    f"grad_input / input.numel() if reduction == {_MEAN} else grad_input",
)
helper("_weighted(grad_input, weight)", "grad_input if weight is None else grad_input * weight")

# ---------------------------------------------------------------- mse


def _mse_loss(a: Any, b: Any, reduction: int) -> Any:
    diff = _difference(a, b)
    return _apply_loss_reduction(diff * diff, reduction)


def _mse_loss_backward(grad_output: Any, a: Any, b: Any, reduction: int) -> Any:
    return 2.0 * _norm(a, reduction) * (a - b) * grad_output


helper("mse_loss_double_backward(grad, input, reduction)", "_loss_mean(2 * grad, input, reduction)")

# ``(self - target) ** 2``, reduced. torch's default ``reduction`` is ``Mean``, 1.
MseLoss = entry(
    "mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
    _mse_loss,
    self="mse_loss_backward(grad, self, target, reduction)",
    target="mse_loss_backward(grad, target, self, reduction)",
)
MseLossBackward = entry(
    "mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor",
    _mse_loss_backward,
    grad_output="mse_loss_backward(grad, self, target, reduction)",
    self="mse_loss_double_backward(grad * grad_output, self, reduction)",
    target="-mse_loss_double_backward(grad * grad_output, target, reduction)",
)

# ---------------------------------------------------------------- smooth L1 / Huber


def _smooth_l1_loss(a: Any, b: Any, reduction: int, beta: float) -> Any:
    diff = np.abs(_difference(a, b))
    loss = np.where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta)
    return _apply_loss_reduction(loss, reduction)


def _smooth_l1_loss_backward(grad_output: Any, a: Any, b: Any, reduction: int, beta: float) -> Any:
    slope = np.clip((a - b) / beta, -1.0, 1.0)
    return _norm(a, reduction) * slope * grad_output


def _huber_loss(a: Any, b: Any, reduction: int, delta: float) -> Any:
    """In ``a``'s dtype, as torch's."""
    diff = np.abs(a - b)
    loss = np.where(diff < delta, 0.5 * diff * diff, delta * (diff - 0.5 * delta))
    return _apply_loss_reduction(loss.astype(a.dtype, copy=False), reduction)


def _huber_loss_backward(grad_output: Any, a: Any, b: Any, reduction: int, delta: float) -> Any:
    return _norm(a, reduction) * np.clip(a - b, -delta, delta) * grad_output


helper(
    "smooth_l1_loss_double_backward(grad, input, target, reduction, beta)",
    "zeros_like(grad) if beta == 0 "
    "else _loss_mean(grad * ((input - target).abs() < beta).type_as(grad) / beta, input,"
    " reduction)",
)
helper(
    "huber_loss_double_backward(grad, input, target, reduction, delta)",
    "_loss_mean(grad * ((input - target).abs() < delta), input, reduction)",
)
helper(
    "huber_loss_double_backward_grad_output(grad, grad_output, input, target, reduction, delta)",
    "huber_loss_backward(grad, input, target, reduction, delta) if reduction == 0 "
    "else (huber_loss_backward(ones_like(grad_output), input, target, reduction, delta) * grad)"
    ".sum()",
)

# ``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = self - target``;
# ``beta`` > 0: the public function takes ``beta = 0`` as ``l1_loss``).
SmoothL1Loss = entry(
    "smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.0) -> Tensor",
    _smooth_l1_loss,
    self="smooth_l1_loss_backward(grad, self, target, reduction, beta)",
    target="smooth_l1_loss_backward(grad, target, self, reduction, beta)",
)
SmoothL1LossBackward = entry(
    "smooth_l1_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction,"
    " float beta) -> Tensor",
    _smooth_l1_loss_backward,
    grad_output="smooth_l1_loss_backward(grad, self, target, reduction, beta)",
    self="smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta)",
    target="-smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta)",
)
# ``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``.
HuberLoss = entry(
    "huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.0) -> Tensor",
    _huber_loss,
    self="huber_loss_backward(grad, self, target, reduction, delta)",
    target="huber_loss_backward(grad, target, self, reduction, delta)",
)
HuberLossBackward = entry(
    "huber_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction,"
    " float delta) -> Tensor",
    _huber_loss_backward,
    grad_output="huber_loss_double_backward_grad_output(grad, grad_output, self, target,"
    " reduction, delta)",
    self="huber_loss_double_backward(grad * grad_output, self, target, reduction, delta)",
    target="-huber_loss_double_backward(grad * grad_output, self, target, reduction, delta)",
)


# ---------------------------------------------------------------- negative log-likelihood


class NllLoss(Op):
    """torch's ``nll_loss_forward``: ``-weight[t] * self[n, t, ...]`` for the class indices
    ``t`` of ``target`` along dim 1 (or dim 0 of a 1-d ``self``).

    ``target`` (validated by the caller) and the per-class ``weight`` (or None) get no
    edge. Targets equal to ``ignore_index`` count 0; ``reduction`` 1 (mean) divides by
    their summed weights, the second output ``total_weight`` (0 for ``reduction`` 0,
    none). The node is ``NllLoss2DBackward0`` for a 4-d ``self`` (``two_d``).
    """

    input_names = ("self", "target", "weight")
    non_differentiable = ("target", "weight")
    saves = ("self", "target", "weight", "total_weight")
    saved_attributes = ("ignore_index", "reduction")
    output_names = ("result", "total_weight")
    differentiable_outputs = 1

    def __init__(self, reduction: int, ignore_index: int, two_d: bool) -> None:
        self.reduction = reduction
        self.ignore_index = ignore_index
        self.two_d = two_d
        if two_d:
            self.node_name = "NllLoss2DBackward0"

    def forward(self, a: Any, target: Any, weight: Any) -> Any:
        batched = a.ndim > 1
        scores = a if batched else a[None]
        target = (target if batched else target[None]).astype(np.int64, copy=False)
        weights, safe = _target_weights(target, weight, self.ignore_index, a.dtype)
        picked = np.take_along_axis(scores, safe[:, None], axis=1)[:, 0]
        loss = -weights * picked
        if self.reduction == REDUCTIONS["none"]:
            return (loss if batched else loss[0]), np.zeros((), a.dtype)
        total = np.asarray(loss.sum(), a.dtype)
        total_weight = np.asarray(weights.sum(), a.dtype)
        if self.reduction == REDUCTIONS["sum"]:
            return total, total_weight
        with np.errstate(all="ignore"):
            return np.asarray(total / total_weight, a.dtype), total_weight

    def backward(self, grad: Any) -> Any:
        a, target, weight, total_weight = self.unpack()
        op = NllLossBackward(self.reduction, self.ignore_index, self.two_d)
        return grad._apply_op(op, a, target, weight, total_weight), None, None


def _target_weights(
    target: np.ndarray, weight: np.ndarray | None, ignore_index: int, dtype: np.dtype
) -> tuple[np.ndarray, np.ndarray]:
    """Each target's class weight (0 where ignored), and the targets with the ignored ones
    replaced by class 0 (safe to index with)."""
    ignored = target == ignore_index
    safe = np.where(ignored, 0, target)
    weights = np.ones(safe.shape, dtype) if weight is None else weight[safe]
    return np.where(ignored, 0, weights).astype(dtype, copy=False), safe


class NllLossBackward(Op):
    """torch's ``nll_loss_backward``: ``-weight[t] * grad_output`` (divided by
    ``total_weight`` for a mean) at each target's class, zeros elsewhere. Its gradient
    is ``nll_loss`` of the incoming one; ``self`` gets zeros."""

    input_names = ("grad_output", "self", "target", "weight", "total_weight")
    non_differentiable = ("target", "weight", "total_weight")
    saves = ("target", "weight")
    saved_attributes = ("ignore_index", "reduction")

    def __init__(self, reduction: int, ignore_index: int, two_d: bool) -> None:
        self.reduction = reduction
        self.ignore_index = ignore_index
        self.two_d = two_d
        if two_d:
            self.node_name = "NllLoss2DBackwardBackward0"

    def forward(self, grad: Any, a: Any, target: Any, weight: Any, total_weight: Any) -> Any:
        batched = a.ndim > 1
        target = (target if batched else target[None]).astype(np.int64, copy=False)
        weights, safe = _target_weights(target, weight, self.ignore_index, a.dtype)
        coefficients = -weights
        if self.reduction == _MEAN:
            # NOTE: ignored targets get 0 even when every target is ignored (0 / 0)
            with np.errstate(all="ignore"):
                ignored = target == self.ignore_index
                coefficients = np.where(ignored, 0, coefficients / total_weight)
        if self.reduction == REDUCTIONS["none"] and not batched:
            grad = grad[None]
        coefficients = (coefficients * grad).astype(a.dtype, copy=False)
        result = np.zeros(a.shape if batched else (1,) + a.shape, a.dtype)
        np.put_along_axis(result, safe[:, None], coefficients[:, None], axis=1)
        return result if batched else result[0]

    def backward(self, grad: Any) -> Any:
        target, weight = self.unpack()
        needs = self.needs_input_grad
        grad_grad = None
        if needs[0]:
            op = NllLoss(self.reduction, self.ignore_index, self.two_d)
            grad_grad = grad._apply_op(op, target, weight)[0]
        return grad_grad, grad.new_zeros(grad.shape) if needs[1] else None, None, None, None


# ---------------------------------------------------------------- binary cross-entropy

_LOG_FLOOR = -100.0  # torch clamps each log term of binary_cross_entropy at -100
_EPSILON = 1e-12  # and the denominator of its gradient at 1e-12


def _binary_cross_entropy(a: Any, b: Any, weight: Any, reduction: int) -> Any:
    log_a = np.maximum(np.log(a), _LOG_FLOOR)
    log_rest = np.maximum(np.log1p(-a), _LOG_FLOOR)
    loss = -(b * log_a + (1 - b) * log_rest)
    if weight is not None:
        loss = loss * weight
    return _apply_loss_reduction(loss, reduction)


def _binary_cross_entropy_backward(
    grad_output: Any, a: Any, b: Any, weight: Any, reduction: int
) -> Any:
    grad = (a - b) / np.maximum((1 - a) * a, _EPSILON) * grad_output
    if weight is not None:
        grad = grad * weight
    return grad * _norm(a, reduction)


def _clamp_min_untracked(t: Any, minimum: float) -> Any:
    """``t.clamp_min_(minimum)`` under torch's ``NoGradGuard``: the values clamped, the
    graph that made ``t`` kept."""
    with grad_mode.no_grad():
        t.clamp_min_(minimum)
    return t


function("_clamp_min_untracked", lambda t, minimum: np.maximum(t, minimum), _clamp_min_untracked)
helper(
    "binary_cross_entropy_target_backward(grad, self, target, weight, reduction)",
    "_loss_mean(_weighted(-self.logit() * grad, weight), target, reduction)",
)
helper(
    "binary_cross_entropy_double_backward(grad_output, grad, input, target, weight, reduction)",
    "_loss_mean(_weighted((input * input - 2 * input * target + target)"
    " / ((input + 1e-12).pow(2) * (1 - input + 1e-12).pow(2)) * (grad * grad_output), weight),"
    " input, reduction)",
)
helper(
    "binary_cross_entropy_double_backward_target(grad, grad_output, self, weight, reduction)",
    "_loss_mean(_weighted(-grad * grad_output, weight)"
    " / _clamp_min_untracked((1 - self) * self, 1e-12), self, reduction)",
)
helper(
    "binary_cross_entropy_double_backward_grad_output(grad, input, target, weight, reduction)",
    "_weighted((input - target) / ((input + 1e-12) * (1 - input + 1e-12)), weight) * grad"
    " if reduction == 0 "
    "else _loss_mean((_weighted((input - target) / ((input + 1e-12) * (1 - input + 1e-12)),"
    " weight) * grad).sum(), input, reduction)",
)

# ``-weight * (target log(self) + (1 - target) log(1 - self))``, logs clamped at -100.
BinaryCrossEntropy = entry(
    "binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1)"
    " -> Tensor",
    _binary_cross_entropy,
    quiet=True,
    self="binary_cross_entropy_backward(grad, self, target, weight, reduction)",
    target="binary_cross_entropy_target_backward(grad, self, target, weight, reduction)",
)
BinaryCrossEntropyBackward = entry(
    "binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target,"
    " Tensor? weight=None, int reduction=1) -> Tensor",
    _binary_cross_entropy_backward,
    grad_output="binary_cross_entropy_double_backward_grad_output(grad, self, target, weight,"
    " reduction)",
    self="binary_cross_entropy_double_backward(grad_output, grad, self, target, weight, reduction)",
    target="binary_cross_entropy_double_backward_target(grad, grad_output, self, weight,"
    " reduction)",
)


def _binary_cross_entropy_with_logits(
    x: Any, t: Any, weight: Any, pos_weight: Any, reduction: int
) -> Any:
    """``weight * ((1 - t) x + (1 + (pos_weight - 1) t) softplus(-x))``, with ``softplus(-x)
    = max(-x, 0) + log1p(exp(-|x|))`` so that no ``exp`` overflows."""
    softplus = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
    if pos_weight is None:
        loss = (1 - t) * x + softplus
    else:
        loss = (1 - t) * x + (1 + (pos_weight - 1) * t) * softplus
    if weight is not None:
        loss = loss * weight
    return _apply_loss_reduction(loss, reduction)


# ``log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))``, computed without overflow.
helper("_log_sigmoid(x)", "-((-x).clamp_min(0) + (-x.abs()).exp().log1p())")
helper(
    "binary_cross_entropy_with_logits_backward(grad, input, target, weight, pos_weight, reduction)",
    "_loss_mean(_weighted((input.sigmoid() - target if pos_weight is None"
    " else _logits_grad_pos(input, target, pos_weight * target)) * grad, weight), input,"
    " reduction)",
)
helper("_logits_grad_pos(input, target, t)", "(t + 1 - target) * input.sigmoid() - t")
helper(
    "binary_cross_entropy_with_logits_target_backward(grad, self, target, weight, pos_weight,"
    " reduction)",
    "_loss_mean(_weighted(-self * grad if pos_weight is None"
    " else (_log_sigmoid(-self) - _log_sigmoid(self) * pos_weight) * grad, weight), target,"
    " reduction)",
)

# ``binary_cross_entropy(sigmoid(self), target)``, computed stably from the logits.
BinaryCrossEntropyWithLogits = entry(
    "binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None,"
    " Tensor? pos_weight=None, int reduction=1) -> Tensor",
    _binary_cross_entropy_with_logits,
    self="binary_cross_entropy_with_logits_backward(grad, self, target, weight, pos_weight,"
    " reduction)",
    target="binary_cross_entropy_with_logits_target_backward(grad, self, target, weight,"
    " pos_weight, reduction)",
)
