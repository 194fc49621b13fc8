"""Folding an eval-mode batch norm into the convolution or linear layer before it:
``fuse_conv_bn_eval``, ``fuse_linear_bn_eval`` and the weight arithmetic they use."""

from __future__ import annotations

import copy
from typing import Any

import hookgrad
from hookgrad.nn.parameter import Parameter
from hookgrad.tensor import Tensor

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]


def fuse_conv_bn_eval(conv: Any, bn: Any, transpose: bool = False) -> Any:
    """A copy of the eval-mode ``conv`` whose output equals ``bn(conv(x))`` for the
    eval-mode batch norm ``bn`` (``transpose``: a transposed convolution).

    Example::

        fused = nn.utils.fuse_conv_bn_eval(conv.eval(), bn.eval())
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """The convolution weight and bias with the batch norm folded in:
    ``w * bn_w / sqrt(var + eps)`` per output channel, ``(b - mean) * bn_w / sqrt(var +
    eps) + bn_b``.

    Example: ``w, b = nn.utils.fuse_conv_bn_weights(conv.weight, conv.bias, *bn_stats)``.
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = hookgrad.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = hookgrad.ones_like(bn_rm)
    if bn_b is None:
        bn_b = hookgrad.zeros_like(bn_rm)
    var_rsqrt = hookgrad.rsqrt(bn_rv + bn_eps)
    rest = [1] * (len(conv_w.shape) - 2)
    shape = [1, -1, *rest] if transpose else [-1, 1, *rest]
    fused_w = (conv_w * (bn_w * var_rsqrt).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * var_rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: Any, bn: Any) -> Any:
    """A copy of the eval-mode ``linear`` whose output equals ``bn(linear(x))`` for the
    eval-mode batch norm ``bn``.

    Example::

        fused = nn.utils.fuse_linear_bn_eval(linear.eval(), bn.eval())
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor,
    bn_b: Tensor,
) -> tuple[Parameter, Parameter]:
    """The linear weight and bias with the batch norm folded in.

    Example: ``w, b = nn.utils.fuse_linear_bn_weights(lin.weight, lin.bias, *bn_stats)``.
    """
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = hookgrad.zeros_like(bn_rm)
    scale = bn_w * hookgrad.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
