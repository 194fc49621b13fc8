"""Normalization ops: batch norm, layer norm, group norm.

Each normalizes ``input`` over some axes (``xhat = (x - mean) * rstd``, biased variance)
and then applies an optional per-feature ``weight`` and ``bias``. They differ only in
how ``input`` is grouped for the statistics and how the parameters broadcast, so one
base class holds the forward and the backward:

    grad_xhat = grad * weight
    grad_x    = rstd * (grad_xhat - mean(grad_xhat) - xhat * mean(grad_xhat * xhat))

The backward recomputes ``mean`` and ``rstd`` from the saved input with tensor ops, so a
``create_graph=True`` backward differentiates through the statistics too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class _Normalization(Op):
    """Shared forward and backward; subclasses say how to group and broadcast."""

    input_names = ("input", "weight", "bias")
    saves = ("input", "weight")
    # Fixed statistics (batch norm in eval mode): arrays of the grouped mean and variance.
    fixed_mean: Any = None
    fixed_var: Any = None

    def __init__(self, eps: float) -> None:
        self.eps = eps

    def grouped_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape ``input`` is viewed as for the statistics."""
        return shape

    def stat_axes(self, ndim: int) -> tuple[int, ...]:
        """The axes (of the grouped shape) the statistics reduce."""
        raise NotImplementedError

    def param_shape(self, ndim: int, shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape ``weight`` and ``bias`` take to broadcast against ``input``."""
        raise NotImplementedError

    def param_axes(self, ndim: int) -> tuple[int, ...]:
        """The axes of ``input`` summed for the parameters' gradients."""
        raise NotImplementedError

    def forward(self, x: Any, w: Any, b: Any) -> Any:
        xg = x.reshape(self.grouped_shape(x.shape))
        axes = self.stat_axes(x.ndim)
        if self.fixed_mean is None:
            mean = xg.mean(axes, keepdims=True)
            var = xg.var(axes, keepdims=True)
            self.mean, self.var = mean, var
        else:
            mean, var = self.fixed_mean.astype(x.dtype), self.fixed_var.astype(x.dtype)
        rstd = 1 / np.sqrt(var + self.eps)
        out = ((xg - mean) * rstd).reshape(x.shape)
        shape = self.param_shape(x.ndim, w.shape if w is not None else ())
        if w is not None:
            out *= w.reshape(shape)
        if b is not None:
            out += b.reshape(shape)
        return out

    def backward(self, grad: Any) -> Any:
        x, w = self.unpack()
        needs = self.needs_input_grad
        shape = tuple(x.shape)
        xg = x.reshape(self.grouped_shape(shape))
        axes = self.stat_axes(len(shape))
        if self.fixed_mean is None:
            centred = xg - xg.mean(axes, keepdim=True)
            rstd = (centred * centred).mean(axes, keepdim=True).add(self.eps).rsqrt()
        else:
            centred = xg - grad.new_tensor(self.fixed_mean)
            rstd = grad.new_tensor(1 / np.sqrt(self.fixed_var + self.eps))
        xhat = centred * rstd
        grad_x = grad_w = grad_b = None
        if needs[0]:
            grad_xhat = (
                grad if w is None else grad * w.reshape(self.param_shape(len(shape), w.shape))
            )
            grad_xhat = grad_xhat.reshape(xg.shape)
            if self.fixed_mean is None:
                grad_xhat = (
                    grad_xhat
                    - grad_xhat.mean(axes, keepdim=True)
                    - xhat * (grad_xhat * xhat).mean(axes, keepdim=True)
                )
            grad_x = (grad_xhat * rstd).reshape(shape)
        if needs[1]:
            grad_w = (grad * xhat.reshape(shape)).sum(self.param_axes(len(shape)))
        if needs[2]:
            grad_b = grad.sum(self.param_axes(len(shape)))
        return grad_x, grad_w, grad_b


class NativeBatchNorm(_Normalization):
    """Per channel (dim 1) over the batch and spatial dims; ``running_mean`` and
    ``running_var`` (arrays) instead of batch statistics when ``training`` is False.

    After a training forward, ``mean`` and ``var`` hold the batch statistics.
    """

    def __init__(self, eps: float, running_mean: Any = None, running_var: Any = None) -> None:
        super().__init__(eps)
        if running_mean is not None:
            self.fixed_mean = running_mean
            self.fixed_var = running_var

    def forward(self, x: Any, w: Any, b: Any) -> Any:
        if self.fixed_mean is not None and self.fixed_mean.ndim == 1:
            stat_shape = (1, -1) + (1,) * (x.ndim - 2)
            self.fixed_mean = self.fixed_mean.reshape(stat_shape)
            self.fixed_var = self.fixed_var.reshape(stat_shape)
        return super().forward(x, w, b)

    def stat_axes(self, ndim: int) -> tuple[int, ...]:
        return (0,) + tuple(range(2, ndim))

    def param_shape(self, ndim: int, shape: tuple[int, ...]) -> tuple[int, ...]:
        return (-1,) + (1,) * (ndim - 2)

    def param_axes(self, ndim: int) -> tuple[int, ...]:
        return self.stat_axes(ndim)


class NativeLayerNorm(_Normalization):
    """Over the last ``normalized_ndim`` dims, with parameters of those dims' shape."""

    def __init__(self, eps: float, normalized_ndim: int) -> None:
        super().__init__(eps)
        self.normalized_ndim = normalized_ndim

    def stat_axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim - self.normalized_ndim, ndim))

    def param_shape(self, ndim: int, shape: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(shape)

    def param_axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim - self.normalized_ndim))


class NativeGroupNorm(_Normalization):
    """Over each of ``num_groups`` groups of channels (and all spatial positions), with a
    per-channel weight and bias."""

    def __init__(self, eps: float, num_groups: int) -> None:
        super().__init__(eps)
        self.group = num_groups

    def grouped_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return (shape[0], self.group, -1)

    def stat_axes(self, ndim: int) -> tuple[int, ...]:
        return (2,)

    def param_shape(self, ndim: int, shape: tuple[int, ...]) -> tuple[int, ...]:
        return (-1,) + (1,) * (ndim - 2)

    def param_axes(self, ndim: int) -> tuple[int, ...]:
        return (0,) + tuple(range(2, ndim))
