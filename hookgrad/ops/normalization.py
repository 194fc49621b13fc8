"""Normalization ops: torch's ``native_batch_norm``, ``native_layer_norm`` and
``native_group_norm``, and their backwards; weight normalization
(``_weight_norm_interface``) and the all-elements ``norm`` it uses.

Each normalizes ``input`` over some axes (``xhat = (x - mean) * rstd``, biased variance)
and then applies an optional per-feature ``weight`` and ``bias``. The forward returns, as
torch's, the statistics too (``result1``, ``result2``: the mean and ``1 / std``), which
the node saves; batch norm's and layer norm's have no history, group norm's are outputs
of its node.

The backward, on arrays:

    grad_xhat = grad * weight
    grad_x    = rstd * (grad_xhat - mean(grad_xhat) - xhat * mean(grad_xhat * xhat))

As in torch, batch norm's and layer norm's backwards are themselves ops
(``NativeBatchNormBackwardBackward0`` ...) whose backward is torch's
``batchnorm_double_backward`` / ``layer_norm_double_backward``, and group norm's backward
under ``create_graph=True`` is torch's composite of tensor ops
(``infinitely_differentiable_native_group_norm_backward``), which differentiates through
the saved statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops.arithmetic import MulScalar
from hookgrad.ops.base import Op
from hookgrad.ops.table import entry
from hookgrad.ops.util import unrequested

_state = grad_mode._state


def _scaled(t: Any, number: float) -> Any:
    """``t * number`` as torch's C++ writes it (``MulBackward1``)."""
    return t._apply_op(MulScalar(number))


def _add(total: Any, term: Any) -> Any:
    """``total + term``, where an undefined (None) ``total`` is zero."""
    return term if total is None else total + term


# ---------------------------------------------------------------- batch norm


def _channel_axes(ndim: int) -> tuple[int, ...]:
    """The axes a batch norm reduces: all but the channels (dim 1)."""
    return (0,) + tuple(range(2, ndim))


def _per_channel(ndim: int) -> tuple[int, ...]:
    """The shape that broadcasts a ``(C,)`` vector against a batch norm's input."""
    return (1, -1) + (1,) * (ndim - 2)


class NativeBatchNorm(Op):
    """Per channel (dim 1) over the batch and spatial dims: the batch statistics when
    ``training`` (which also move ``running_mean`` / ``running_var`` toward them, in
    place and unversioned, as torch's kernel does), else the running ones.

    Outputs: the result, and the batch mean and ``1 / std`` (empty when not training).
    """

    input_names = ("input", "weight", "bias", "running_mean", "running_var")
    non_differentiable = ("running_mean", "running_var")
    saves = ("input", "running_mean", "running_var", "weight", "result1", "result2")
    saved_attributes = ("eps", "training")
    differentiable_outputs = 1

    def __init__(self, training: bool, momentum: float, eps: float) -> None:
        self.training = training
        self.momentum = momentum
        self.eps = eps

    def forward(self, x: Any, w: Any, b: Any, running_mean: Any, running_var: Any) -> Any:
        axes, shape = _channel_axes(x.ndim), _per_channel(x.ndim)
        if self.training:
            mean = x.mean(axes)
            var = x.var(axes)
            invstd = 1 / np.sqrt(var + self.eps)
            save_mean, save_invstd = mean, invstd
            if running_mean is not None:
                running_mean *= 1 - self.momentum
                running_mean += self.momentum * mean
            if running_var is not None:
                count = x.size // x.shape[1]
                running_var *= 1 - self.momentum
                running_var += self.momentum * count / (count - 1) * var
        else:
            mean = running_mean.astype(x.dtype, copy=False)
            invstd = 1 / np.sqrt(running_var.astype(x.dtype, copy=False) + self.eps)
            save_mean = save_invstd = np.empty(0, x.dtype)
        out = (x - mean.reshape(shape)) * invstd.reshape(shape)
        if w is not None:
            out *= w.reshape(shape)
        if b is not None:
            out += b.reshape(shape)
        return out, save_mean, save_invstd

    def backward(self, grad: Any) -> Any:
        x, running_mean, running_var, w, save_mean, save_invstd = self.unpack()
        mask = self.needs_input_grad[:3]
        op = NativeBatchNormBackward(self.training, self.eps, mask)
        grads = grad._apply_op(op, x, w, running_mean, running_var, save_mean, save_invstd)
        return (*[g if needed else None for g, needed in zip(grads, mask)], None, None)


class NativeBatchNormBackward(Op):
    """torch's ``native_batch_norm_backward``: the gradients of the input, weight and
    bias (those in ``output_mask``; zeros stand for the others)."""

    input_names = (
        "grad_out",
        "input",
        "weight",
        "running_mean",
        "running_var",
        "save_mean",
        "save_invstd",
    )
    non_differentiable = ("running_mean", "running_var")
    saves = (
        "grad_out",
        "input",
        "running_mean",
        "running_var",
        "save_invstd",
        "save_mean",
        "weight",
    )
    saved_attributes = ("eps", "train")

    def __init__(self, train: bool, eps: float, output_mask: tuple[bool, ...]) -> None:
        self.train = train
        self.eps = eps
        self.output_mask = output_mask

    def forward(
        self,
        grad: Any,
        x: Any,
        w: Any,
        running_mean: Any,
        running_var: Any,
        save_mean: Any,
        save_invstd: Any,
    ) -> Any:
        axes, shape = _channel_axes(x.ndim), _per_channel(x.ndim)
        if self.train:
            mean, invstd = save_mean, save_invstd
        else:
            mean = running_mean.astype(x.dtype, copy=False)
            invstd = 1 / np.sqrt(running_var.astype(x.dtype, copy=False) + self.eps)
        xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
        need_input, need_weight, need_bias = self.output_mask
        channels = x.shape[1:2]
        train_input = need_input and self.train
        grad_sum = grad.sum(axes) if need_bias or train_input else None
        grad_xhat_sum = (grad * xhat).sum(axes) if need_weight or train_input else None
        grad_input = unrequested(x.shape, grad.dtype)
        if need_input:
            scale = invstd if w is None else invstd * w
            if self.train:
                count = x.size // x.shape[1]
                grad_input = (
                    grad
                    - (grad_sum / count).reshape(shape)
                    - xhat * (grad_xhat_sum / count).reshape(shape)
                ) * scale.reshape(shape)
            else:
                grad_input = grad * scale.reshape(shape)
        grad_weight = grad_xhat_sum if need_weight else unrequested(channels, grad.dtype)
        grad_bias = grad_sum if need_bias else unrequested(channels, grad.dtype)
        return grad_input, grad_weight, grad_bias

    def backward(self, grad_input: Any, grad_weight: Any, grad_bias: Any) -> Any:
        grad, x, running_mean, running_var, save_invstd, save_mean, w = self.unpack()
        needs = self.needs_input_grad
        grad_grad, grad_x, grad_w = _batch_norm_double_backward(
            x,
            w,
            grad_input,
            grad_weight,
            grad_bias,
            grad,
            save_mean if self.train else running_mean,
            save_invstd if self.train else (running_var + self.eps).pow(-0.5),
            self.train,
            needs,
        )
        return grad_grad, grad_x, grad_w, None, None, None, None


def _batch_norm_double_backward(
    x: Any,
    w: Any,
    gg_input: Any,
    gg_weight: Any,
    gg_bias: Any,
    grad: Any,
    mean: Any,
    invstd: Any,
    train: bool,
    needs: Sequence[bool],
) -> tuple[Any, Any, Any]:
    """torch's ``batchnorm_double_backward``: from the gradients of the backward's outputs
    (``gg_*``, None when undefined), the gradients of its ``grad``, ``x`` and ``w``."""
    ndim = x.dim()
    axes, shape = _channel_axes(ndim), _per_channel(ndim)
    count = x.numel() // x.shape[1]

    def channel_sum(t: Any, keepdim: bool = True) -> Any:
        return t.sum(axes, keepdim=keepdim)

    gamma = None if w is None else w.reshape(shape)
    centred = x - mean.reshape(shape)
    invstd = invstd.reshape(shape)
    invstd2 = invstd.pow(2)
    invstd3 = invstd.pow(3)
    centred_invstd3 = centred * invstd3
    grad_sum = channel_sum(grad)
    grad_centred_sum = channel_sum(grad * centred)

    def first_backward(g: Any, scale: Any) -> Any:
        """The first backward's input gradient for output gradient ``g``."""
        h0 = invstd / count if scale is None else scale * invstd / count
        return h0 * (count * g - channel_sum(g) - centred * invstd2 * channel_sum(g * centred))

    grad_x = grad_w = grad_grad = None
    if needs[1]:
        if gg_input is not None and train:
            gg_sum = channel_sum(gg_input)
            gg_centred_sum = channel_sum(gg_input * centred)
            all_sub = (
                gg_sum * grad_sum / count
                - channel_sum(grad * gg_input)
                + invstd2 * grad_centred_sum * gg_centred_sum * (3.0 / count)
            )
            term0 = centred_invstd3 * all_sub / count
            term1 = gg_centred_sum * invstd3 / count * (grad_sum / count - grad)
            term2 = grad_centred_sum * invstd3 / count * (gg_sum / count - gg_input)
            grad_x = term0 + term1 + term2
            if gamma is not None:
                grad_x = gamma * grad_x
        if gamma is not None and gg_weight is not None:
            gg_gamma = gg_weight.reshape(shape)
            if train:
                term = (
                    grad * invstd
                    - invstd * grad_sum / count
                    - centred_invstd3 * grad_centred_sum / count
                )
            else:
                term = invstd * grad
            grad_x = _add(grad_x, gg_gamma * term)
    if needs[2] and gamma is not None and gg_input is not None:
        if train:
            grad_w = channel_sum(gg_input * first_backward(grad, None), keepdim=False)
        else:
            grad_w = channel_sum(gg_input * grad * invstd, keepdim=False)
    if needs[0]:
        if gg_input is not None:
            if train:
                grad_grad = first_backward(gg_input, gamma)
            else:
                grad_grad = gg_input * invstd if gamma is None else gg_input * invstd * gamma
        if gg_weight is not None and gamma is not None:
            grad_grad = _add(grad_grad, gg_weight.reshape(shape) * centred * invstd)
        if gg_bias is not None:
            grad_grad = _add(grad_grad, gg_bias.reshape(shape).expand(x.shape))
    return grad_grad, grad_x, grad_w


# ---------------------------------------------------------------- layer norm


class NativeLayerNorm(Op):
    """Over the last ``len(normalized_shape)`` dims, with parameters of that shape.

    Outputs: the result, and the mean and ``1 / std`` (size 1 in the normalized dims).
    """

    input_names = ("input", "weight", "bias")
    saves = ("bias", "input", "weight", "result1", "result2")
    saved_attributes = ("normalized_shape",)
    differentiable_outputs = 1

    def __init__(self, normalized_shape: tuple[int, ...], eps: float) -> None:
        self.normalized_shape = normalized_shape
        self.eps = eps

    def forward(self, x: Any, w: Any, b: Any) -> Any:
        axes = tuple(range(x.ndim - len(self.normalized_shape), x.ndim))
        mean = x.mean(axes, keepdims=True)
        rstd = 1 / np.sqrt(x.var(axes, keepdims=True) + self.eps)
        out = (x - mean) * rstd
        if w is not None:
            out *= w
        if b is not None:
            out += b
        return out, mean, rstd

    def backward(self, grad: Any) -> Any:
        b, x, w, mean, rstd = self.unpack()
        mask = self.needs_input_grad
        op = NativeLayerNormBackward(self.normalized_shape, mask)
        grads = grad._apply_op(op, x, mean, rstd, w, b)
        return tuple([g if needed else None for g, needed in zip(grads, mask)])


class NativeLayerNormBackward(Op):
    """torch's ``native_layer_norm_backward``: the gradients of the input, weight and
    bias (those in ``output_mask``; zeros stand for the others)."""

    input_names = ("grad_out", "input", "mean", "rstd", "weight", "bias")
    saves = ("grad_out", "input", "mean", "rstd", "weight")
    saved_attributes = ("normalized_shape",)

    def __init__(self, normalized_shape: tuple[int, ...], output_mask: tuple[bool, ...]) -> None:
        self.normalized_shape = normalized_shape
        self.output_mask = output_mask

    def forward(self, grad: Any, x: Any, mean: Any, rstd: Any, w: Any, b: Any) -> Any:
        axis = x.ndim - len(self.normalized_shape)
        inner, outer = tuple(range(axis, x.ndim)), tuple(range(axis))
        xhat = (x - mean) * rstd
        need_input, need_weight, need_bias = self.output_mask
        grad_input = unrequested(x.shape, grad.dtype)
        if need_input:
            grad_xhat = grad if w is None else grad * w
            grad_input = rstd * (
                grad_xhat
                - grad_xhat.mean(inner, keepdims=True)
                - xhat * (grad_xhat * xhat).mean(inner, keepdims=True)
            )
        params = x.shape[axis:]
        grad_weight = (grad * xhat).sum(outer) if need_weight else unrequested(params, grad.dtype)
        grad_bias = grad.sum(outer) if need_bias else unrequested(params, grad.dtype)
        return grad_input, grad_weight, grad_bias

    def backward(self, grad_input: Any, grad_weight: Any, grad_bias: Any) -> Any:
        grad, x, mean, rstd, w = self.unpack()
        needs = self.needs_input_grad
        grad_grad, grad_x, grad_w = _layer_norm_double_backward(
            x, w, grad_input, grad_weight, grad_bias, grad, mean, rstd, needs
        )
        return grad_grad, grad_x, None, None, grad_w, None


def _layer_norm_double_backward(
    x: Any,
    w: Any,
    gg_input: Any,
    gg_weight: Any,
    gg_bias: Any,
    grad: Any,
    mean: Any,
    rstd: Any,
    needs: Sequence[bool],
) -> tuple[Any, Any, Any]:
    """torch's ``layer_norm_double_backward``: from the gradients of the backward's
    outputs (``gg_*``, None when undefined), the gradients of its ``grad``, ``x`` and
    ``w``. Works on ``(M, N)`` views: M rows of N normalized values."""
    shape = tuple(x.shape)
    n = x.numel() // mean.numel()
    m = mean.numel()
    rows = x.reshape(m, n)
    grad = grad.reshape(m, n)
    centred = rows - mean.reshape(m, 1)
    invstd = rstd.reshape(m, 1)
    invstd2 = invstd.pow(2)
    invstd3 = invstd.pow(3)
    centred_invstd3 = centred * invstd3
    gamma = None if w is None else w.reshape(1, n)
    gg_rows = None if gg_input is None else gg_input.reshape(m, n)

    def row_sum(t: Any) -> Any:
        return t.sum(1, keepdim=True)

    def first_backward(g: Any, scale: Any) -> Any:
        """The first backward's input gradient for output gradient ``g``."""
        h0 = invstd / n if scale is None else scale * invstd / n
        return h0 * (n * g - row_sum(g) - centred * invstd2 * row_sum(g * centred))

    grad_x = grad_w = grad_grad = None
    if needs[1]:
        if gg_rows is not None:
            grad_xhat = grad if gamma is None else grad * gamma
            grad_xhat_centred_sum = row_sum(grad_xhat * centred)
            grad_xhat_sum = row_sum(grad_xhat)
            gg_sum = row_sum(gg_rows)
            gg_centred_sum = row_sum(gg_rows * centred)
            all_sub = (
                gg_sum * grad_xhat_sum / n
                - row_sum(gg_rows * grad_xhat)
                + invstd2 * grad_xhat_centred_sum * gg_centred_sum * (3.0 / n)
            )
            term0 = centred_invstd3 * all_sub / n
            term1 = gg_centred_sum * invstd3 / n * (grad_xhat_sum / n - grad_xhat)
            term2 = grad_xhat_centred_sum * invstd3 / n * (gg_sum / n - gg_rows)
            grad_x = term0 + term1 + term2
        if gamma is not None and gg_weight is not None:
            grad_gg = grad * gg_weight.reshape(1, n)
            term = (
                grad_gg * invstd
                - invstd * row_sum(grad_gg) / n
                - centred_invstd3 * row_sum(grad_gg * centred) / n
            )
            grad_x = _add(grad_x, term)
        if grad_x is not None:
            grad_x = grad_x.reshape(shape)
    if needs[4] and gamma is not None and gg_rows is not None:
        grad_w = (grad * first_backward(gg_rows, None)).sum(0).reshape(w.shape)
    if needs[0]:
        if gg_rows is not None:
            grad_grad = first_backward(gg_rows, gamma)
        if gg_weight is not None and gamma is not None:
            grad_grad = _add(grad_grad, gg_weight.reshape(1, n) * centred * invstd)
        if gg_bias is not None:
            grad_grad = _add(grad_grad, gg_bias.reshape(1, n))
        if grad_grad is not None:
            grad_grad = grad_grad.expand(m, n).reshape(shape)
    return grad_grad, grad_x, grad_w


# ---------------------------------------------------------------- group norm


class NativeGroupNorm(Op):
    """Over each of ``group`` groups of channels (and all spatial positions), with a
    per-channel weight and bias.

    Outputs (all three are the node's, as in torch): the result, and each group's mean
    and ``1 / std``, of shape ``(N, group)``.
    """

    input_names = ("input", "weight", "bias")
    saves = ("input", "weight", "result1", "result2")
    saved_attributes = ("C", "HxW", "N", "eps", "group")

    def __init__(self, group: int, eps: float) -> None:
        self.group = group
        self.eps = eps

    def forward(self, x: Any, w: Any, b: Any) -> Any:
        self.N, self.C = x.shape[:2]
        self.HxW = int(np.prod(x.shape[2:], dtype=np.int64))
        grouped = x.reshape(self.N, self.group, -1)
        mean = grouped.mean(2)
        rstd = 1 / np.sqrt(grouped.var(2) + self.eps)
        out = ((grouped - mean[..., None]) * rstd[..., None]).reshape(x.shape)
        shape = _per_channel(x.ndim)
        if w is not None:
            out *= w.reshape(shape)
        if b is not None:
            out += b.reshape(shape)
        return out, mean, rstd

    def backward(self, grad: Any, grad_mean: Any, grad_rstd: Any) -> Any:
        x, w, mean, rstd = self.unpack()
        mask = self.needs_input_grad
        if _state.grad_enabled or grad_mean is not None or grad_rstd is not None:
            return _group_norm_backward(grad, grad_mean, grad_rstd, x, mean, rstd, w, self, mask)
        op = GroupNormBackwardKernel(self.group, mask)
        grads = grad._apply_op(op, x, mean, rstd, w)
        return tuple([g if needed else None for g, needed in zip(grads, mask)])


class GroupNormBackwardKernel(Op):
    """torch's ``native_group_norm_backward`` on arrays: the fast backward when no graph
    is recorded (torch records none for it either: it has no derivative)."""

    input_names = ("grad_out", "input", "mean", "rstd", "weight")

    def __init__(self, group: int, output_mask: tuple[bool, ...]) -> None:
        self.group = group
        self.output_mask = output_mask

    def forward(self, grad: Any, x: Any, mean: Any, rstd: Any, w: Any) -> Any:
        n, channels = x.shape[:2]
        grouped = (n, self.group, -1)
        shape, axes = _per_channel(x.ndim), _channel_axes(x.ndim)
        xhat = ((x.reshape(grouped) - mean[..., None]) * rstd[..., None]).reshape(x.shape)
        need_input, need_weight, need_bias = self.output_mask
        grad_input = unrequested(x.shape, grad.dtype)
        if need_input:
            grad_xhat = (grad if w is None else grad * w.reshape(shape)).reshape(grouped)
            xhat_grouped = xhat.reshape(grouped)
            grad_input = rstd[..., None] * (
                grad_xhat
                - grad_xhat.mean(2, keepdims=True)
                - xhat_grouped * (grad_xhat * xhat_grouped).mean(2, keepdims=True)
            )
            grad_input = grad_input.reshape(x.shape)
        grad_weight = (
            (grad * xhat).sum(axes) if need_weight else unrequested((channels,), grad.dtype)
        )
        grad_bias = grad.sum(axes) if need_bias else unrequested((channels,), grad.dtype)
        return grad_input, grad_weight, grad_bias


class UnsqueezeInPlace(Op):
    """torch's ``unsqueeze_`` of a fresh tensor, as its group norm backward does it (node
    ``UnsqueezeBackward1``)."""

    node_name = "UnsqueezeBackward1"
    input_names = ("self",)
    saved_attributes = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any) -> Any:
        return np.expand_dims(a, self.dim)

    def backward(self, grad: Any) -> Any:
        return grad.squeeze(self.dim)


def _group_norm_backward(
    grad: Any,
    grad_mean: Any,
    grad_rstd: Any,
    x: Any,
    mean: Any,
    rstd: Any,
    w: Any,
    op: NativeGroupNorm,
    mask: Sequence[bool],
) -> tuple[Any, Any, Any]:
    """torch's ``infinitely_differentiable_native_group_norm_backward``: group norm's
    backward as tensor ops, through the saved statistics (outputs of the node)."""
    n, group = op.N, op.group
    d = op.C // group
    hxw = op.HxW
    s = 1.0 / (d * hxw)
    x_t = x.reshape(n, group, d, hxw)
    mean_t = mean.reshape(n, group, 1, 1)
    rstd_t = rstd.reshape(n, group, 1, 1)
    grad_x = grad_w = grad_b = None
    ds: Any = None
    db: Any = None
    if grad is not None:
        grad_t = grad.reshape(n, group, d, hxw)
        ds = (grad_t * x_t).sum(3)._apply_op(UnsqueezeInPlace(-1))
        db = grad_t.sum(3)._apply_op(UnsqueezeInPlace(-1))
    if mask[0]:
        gamma_t = None if w is None else w.reshape(1, group, d, 1)
        rstd_cube = rstd_t * rstd_t * rstd_t
        statistics = None
        if grad_mean is not None and grad_rstd is not None:
            # torch's ``var_mean_backward`` of the group variance and mean.
            grad_rstd_t = grad_rstd.view(n, group, 1, 1)
            grad_var = _scaled(rstd_cube, -0.5) * grad_rstd_t
            centred = x_t - x_t.mean((2, 3), keepdim=True)
            statistics = _scaled(grad_var * centred, 2.0 * s) + _scaled(
                grad_mean.view(n, group, 1, 1).expand(x_t.shape), s
            )
        if grad is not None:
            # NOTE: the operations in torch's order (C++ evaluates the right operand of
            # ``x - y`` first): a second backward runs the nodes by creation order.
            a = rstd_t if gamma_t is None else rstd_t * gamma_t
            b = ds.sum(2) if gamma_t is None else (ds * gamma_t).sum(2)
            b = b._apply_op(UnsqueezeInPlace(-2))
            c = db.sum(2) if gamma_t is None else (db * gamma_t).sum(2)
            c = c._apply_op(UnsqueezeInPlace(-2))
            b = _scaled((c * mean_t - b) * rstd_cube, s)
            c_term = _scaled(c * rstd_t, s)
            c = -b * mean_t - c_term
            b_term = b * x_t
            grad_x = a * grad_t + b_term + c
            if statistics is not None:
                grad_x = grad_x + statistics
            grad_x = grad_x.reshape_as(x)
        elif statistics is not None:
            grad_x = statistics.reshape_as(x)
    if mask[1] and grad is not None:
        grad_w = ((ds - db * mean_t) * rstd_t).sum(0).reshape(op.C)
    if mask[2] and grad is not None:
        grad_b = db.sum(0).reshape(op.C)
    return grad_x, grad_w, grad_b


# ---------------------------------------------------------------- weight norm


def _except_dim(ndim: int, dim: int) -> tuple[int, ...]:
    return tuple(d for d in range(ndim) if d != dim)


class WeightNormInterface(Op):
    """torch's ``_weight_norm_interface``: ``v * (g / ||v||)`` with the 2-norm taken over
    every dim but ``dim`` (0 or the last; ``g`` and the norms broadcast along it).

    Outputs: the weight, and the norms (``result1``, of ``g``'s shape, without history).
    """

    input_names = ("v", "g")
    saves = ("g", "v", "result1")
    saved_attributes = ("dim",)
    differentiable_outputs = 1

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, v: Any, g: Any) -> Any:
        axes = _except_dim(v.ndim, self.dim)
        norm = np.sqrt(np.sum(v * v, axis=axes, keepdims=True)).astype(g.dtype).reshape(g.shape)
        return v * (g / norm), norm

    def backward(self, grad: Any) -> Any:
        g, v, norm = self.unpack()
        needs = self.needs_input_grad
        if _state.grad_enabled:
            grad_v, grad_g = _weight_norm_differentiable_backward(
                grad.contiguous(), v, g, norm, self.dim
            )
        else:
            grad_v, grad_g = grad._apply_op(WeightNormInterfaceBackward(self.dim), v, g, norm)
        return grad_v if needs[0] else None, grad_g if needs[1] else None


class WeightNormInterfaceBackward(Op):
    """torch's ``_weight_norm_interface_backward`` on arrays: the gradients of ``v`` and
    ``g`` (run when no graph is recorded)."""

    input_names = ("grad_w", "saved_v", "saved_g", "saved_norms")

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, grad: Any, v: Any, g: Any, norm: Any) -> Any:
        axes = _except_dim(v.ndim, self.dim)
        per_dim_sums = np.sum(grad * v, axis=axes, keepdims=True).reshape(g.shape)
        grad_v = (g / norm) * (grad - v * (per_dim_sums / (norm * norm)))
        return grad_v, per_dim_sums / norm


def _weight_norm_differentiable_backward(
    grad: Any, v: Any, g: Any, norms: Any, dim: int
) -> tuple[Any, Any]:
    """torch's ``_weight_norm_differentiable_backward``: the same gradients as tensor ops
    (under ``create_graph=True``)."""
    shape = [1] * v.dim()
    shape[dim] = v.shape[dim]
    if dim == 0:
        per_dim_sums = (grad * v).view(v.shape[0], -1).sum(1).view(shape)
    else:
        per_dim_sums = (grad * v).view(-1, v.shape[-1]).sum(0).view(shape)
    grad_v = (g / norms) * (grad - v * (per_dim_sums / (norms * norms)))
    return grad_v, per_dim_sums / norms


def _norm_all(a: Any, p: float) -> Any:
    """The ``p``-norm of every element of ``a``."""
    size = np.abs(a)
    if p == 2:
        return np.asarray(np.sqrt(np.sum(size * size)))
    return np.asarray(np.sum(size**p) ** (1.0 / p))


# ``torch.norm(x, p)`` over every element (``norm_except_dim`` with ``dim=-1`` reads it).
NormScalar = entry(
    "norm.Scalar(Tensor self, Scalar p=2) -> Tensor",
    _norm_all,
    node="NormBackward0",
    quiet=True,
    self="norm_backward(grad, self, p, result, (), False)",
)
