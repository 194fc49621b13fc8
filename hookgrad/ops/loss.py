"""Loss ops: mse, smooth L1 / Huber, negative log-likelihood, binary cross-entropy (on
probabilities and on logits), soft margin, and the multi-class margin losses.

Each op reduces inside its forward, so the loss is one node with torch's name
(``MseLossBackward0`` ...) whatever the reduction. ``reduction`` is torch's int:
``REDUCTIONS`` maps ``"none"``, ``"mean"``, ``"sum"`` to 0, 1, 2. mse, smooth L1, Huber
and the two binary cross-entropies are entries of the derivative table
(``hookgrad.ops.table``) with torch's formulas; their backward ops are entries too
(``mse_loss_backward`` ..., whose nodes are torch's double-backward nodes). Their
optional ``weight`` and ``pos_weight`` are tensor inputs without a formula (no edge, as
torch). ``nll_loss`` is hand-written: torch's node saves ``total_weight``, a second
output of its forward, which the table does not express; its backward is an op too
(``NllLossBackwardBackward0``). The multi-class margin losses are hand-written as torch's
kernels loop (their sums in torch's order); torch has no derivative for their backwards,
whose node is ``NotImplemented``. The other losses of ``nn`` are composites of tensor ops
(``hookgrad.nn.functional.loss``), as in torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import arithmetic, array_api
from hookgrad.ops.base import Op
from hookgrad.ops.not_implemented import NotImplementedBackward
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


# ---------------------------------------------------------------- soft margin


def _soft_margin_loss(a: Any, t: Any, reduction: int) -> Any:
    """``log(1 + exp(-self * target))``, computed as torch's kernel chains it."""
    loss = np.log(np.exp(np.negative(a) * t) + 1)
    return _apply_loss_reduction(loss, reduction)


def _soft_margin_loss_backward(grad_output: Any, a: Any, t: Any, reduction: int) -> Any:
    z = np.exp(-t * a)
    grad = (t * z) * a.dtype.type(-_norm(a, reduction))
    return grad / (z + 1) * grad_output


helper(
    "soft_margin_loss_double_backward(grad, input, target, reduction)",
    "_loss_mean(_soft_margin_z(grad, target, (input * -target).exp()), input, reduction)",
)
helper("_soft_margin_z(grad, target, z)", "_soft_margin_z1(grad, target, z, z + 1)")
helper(
    "_soft_margin_z1(grad, target, z, zplus1)",
    "grad * (target * target) * z / (zplus1 * zplus1)",
)
helper(
    "soft_margin_loss_double_backward_grad_output(grad, grad_output, input, target, reduction)",
    "soft_margin_loss_backward(grad, input, target, reduction) if reduction == 0 "
    "else (soft_margin_loss_backward(ones_like(grad_output), input, target, reduction)"
    " * grad).sum()",
)

# ``log(1 + exp(-target * self))`` for targets of 1 or -1, reduced; ``target`` gets no
# gradient (no edge), as in torch.
SoftMarginLoss = entry(
    "soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
    _soft_margin_loss,
    quiet=True,
    self="soft_margin_loss_backward(grad, self, target, reduction)",
)
SoftMarginLossBackward = entry(
    "soft_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction)"
    " -> Tensor",
    _soft_margin_loss_backward,
    quiet=True,
    grad_output="soft_margin_loss_double_backward_grad_output(grad, grad_output, self, target,"
    " reduction)",
    self="soft_margin_loss_double_backward(grad * grad_output, self, target, reduction)",
)


# ---------------------------------------------------------------- multi-class margins


def _rows(a: Any) -> Any:
    """A 0-d or 1-d input as one row of a matrix."""
    return a.reshape(1, -1) if a.ndim < 2 else a


def _accumulated(values: list[Any]) -> float:
    """``values`` added in order in double precision (torch's ``accscalar_t`` on CPU)."""
    total = 0.0
    for value in values:
        total += float(value)
    return total


def _multi_margin_terms(x: Any, target: Any, p: int, margin: float, weight: Any) -> Any:
    """Per row ``n`` and class ``d``: ``max(0, margin - x[n, y_n] + x[n, d])`` (squared
    for ``p == 2``, times ``weight[y_n]``), 0 at ``d == y_n``."""
    picked = np.take_along_axis(x, target[:, None], axis=1)
    z = x.dtype.type(margin) - picked + x
    terms = np.where(z > 0, z if p == 1 else z * z, 0).astype(x.dtype)
    if weight is not None:
        terms = terms * weight[target][:, None]
    terms[np.arange(len(target)), target] = 0
    return terms


def _row_sums(terms: Any) -> list[Any]:
    """Each row's terms added in order, as torch's loop adds them."""
    sums = []
    for row in terms:
        total = row.dtype.type(0)
        for value in row:
            total = total + value
        sums.append(total)
    return sums


class MultiMarginLoss(Op):
    """torch's ``multi_margin_loss``: for each row ``x`` with class ``y``, the mean over
    the other classes of ``max(0, margin - x[y] + x[d]) ** p`` (``p`` 1 or 2), times
    ``weight[y]``; reduced. ``target`` and ``weight`` get no edge."""

    input_names = ("self", "target", "weight")
    non_differentiable = ("target", "weight")
    saves = ("self", "target", "weight")
    saved_attributes = ("margin", "p", "reduction")

    def __init__(self, p: int, margin: float, reduction: int) -> None:
        self.p = p
        self.margin = margin
        self.reduction = reduction

    def forward(self, a: Any, target: Any, weight: Any) -> Any:
        x = _rows(a)
        dim = x.shape[1]
        terms = _multi_margin_terms(x, target.reshape(-1), self.p, self.margin, weight)
        per_row = [total / a.dtype.type(dim) for total in _row_sums(terms)]
        if self.reduction == REDUCTIONS["none"] and target.ndim > 0:
            return np.asarray(per_row, a.dtype)
        total = _accumulated(per_row)
        if self.reduction == _MEAN:
            total /= len(per_row)
        return np.asarray(total, a.dtype)

    def backward(self, grad: Any) -> Any:
        a, target, weight = self.unpack()
        op = MultiMarginLossBackward(self.p, self.margin, self.reduction)
        return grad._apply_op(op, a, target, weight), None, None


class MultiMarginLossBackward(NotImplementedBackward):
    """torch's ``multi_margin_loss_backward`` (no derivative of its own)."""

    aten_name = "multi_margin_loss_backward"
    input_names = ("grad_output", "self", "target", "weight")
    non_differentiable = ("target", "weight")

    def __init__(self, p: int, margin: float, reduction: int) -> None:
        self.p = p
        self.margin = margin
        self.reduction = reduction

    def forward(self, grad_output: Any, a: Any, target: Any, weight: Any) -> Any:
        x = _rows(a)
        rows, dim = x.shape
        target = target.reshape(-1)
        scale = 1.0 / (rows * dim) if self.reduction == _MEAN else 1.0 / dim
        g = a.dtype.type(scale)
        picked = np.take_along_axis(x, target[:, None], axis=1)
        z = a.dtype.type(self.margin) - picked + x
        slope = g if self.p == 1 else a.dtype.type(2) * g * z
        h = np.where(z > 0, slope, 0).astype(a.dtype)
        if weight is not None:
            h = h * weight[target][:, None]
        h[np.arange(rows), target] = 0
        h[np.arange(rows), target] = -np.array(_row_sums(h), a.dtype)
        if self.reduction != REDUCTIONS["none"] or grad_output.ndim == 0:
            h = h * grad_output
        else:
            h = h * grad_output.reshape(-1, 1)
        return h.reshape(a.shape)


class MultilabelMarginLoss(Op):
    """torch's ``multilabel_margin_loss_forward``: per row, the target classes are the
    leading entries of ``target`` up to the first -1; the loss adds ``max(0, 1 - x[j] +
    x[i])`` over target classes ``j`` and the other classes ``i``, divided by the number
    of classes. The second output ``is_target`` (no history) marks the target classes."""

    input_names = ("self", "target")
    non_differentiable = ("target",)
    saves = ("self", "target", "is_target")
    saved_attributes = ("reduction",)
    output_names = ("result", "is_target")
    differentiable_outputs = 1

    def __init__(self, reduction: int) -> None:
        self.reduction = reduction

    def forward(self, a: Any, target: Any) -> Any:
        x = _rows(a)
        targets = _rows(target.reshape(a.shape) if a.ndim < 2 else target)
        is_target = _is_target(targets, a.dtype)
        dim = x.shape[1]
        per_row = []
        one = a.dtype.type(1)
        for row, labels, marks in zip(x, targets, is_target):
            terms = []
            for label in _labels(labels):
                for d in range(dim):
                    if not marks[d]:
                        z = one - row[label] + row[d]
                        if z > 0:
                            terms.append(z)
            per_row.append(a.dtype.type(_accumulated(terms)))
        if self.reduction == REDUCTIONS["none"] and a.ndim == 2:
            loss = np.asarray([total / a.dtype.type(dim) for total in per_row], a.dtype)
        else:
            total = _accumulated(per_row) / dim
            if self.reduction == _MEAN:
                total /= len(per_row)
            loss = np.asarray(total, a.dtype)
        return loss, is_target.reshape(target.shape)

    def backward(self, grad: Any) -> Any:
        a, target, is_target = self.unpack()
        op = MultilabelMarginLossBackward(self.reduction)
        return grad._apply_op(op, a, target, is_target), None


def _labels(labels: Any) -> list[int]:
    """A row's target classes: its entries up to the first negative one."""
    chosen = []
    for label in labels:
        if label < 0:
            break
        chosen.append(int(label))
    return chosen


def _is_target(targets: Any, dtype: Any) -> Any:
    marks = np.zeros(targets.shape, dtype)
    for row, labels in zip(marks, targets):
        row[_labels(labels)] = 1
    return marks


class MultilabelMarginLossBackward(NotImplementedBackward):
    """torch's ``multilabel_margin_loss_backward`` (no derivative of its own)."""

    aten_name = "multilabel_margin_loss_backward"
    input_names = ("grad_output", "self", "target", "is_target")
    non_differentiable = ("target", "is_target")

    def __init__(self, reduction: int) -> None:
        self.reduction = reduction

    def forward(self, grad_output: Any, a: Any, target: Any, is_target: Any) -> Any:
        x = _rows(a)
        targets = _rows(target.reshape(a.shape) if a.ndim < 2 else target)
        marks = _rows(is_target.reshape(a.shape) if a.ndim < 2 else is_target)
        rows, dim = x.shape
        scale = 1.0 / (rows * dim) if self.reduction == _MEAN else 1.0 / dim
        g = a.dtype.type(scale)
        grad = np.zeros_like(x)
        one = a.dtype.type(1)
        for n in range(rows):
            for label in _labels(targets[n]):
                for d in range(dim):
                    if not marks[n, d] and one - x[n, label] + x[n, d] > 0:
                        grad[n, label] -= g
                        grad[n, d] += g
        if self.reduction != REDUCTIONS["none"] or grad_output.ndim == 0:
            grad = grad * grad_output
        else:
            grad = grad * grad_output.reshape(-1, 1)
        return grad.reshape(a.shape)
