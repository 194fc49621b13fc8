"""``hookgrad.nn.grad`` (torch's ``torch.nn.grad``, also ``nn.functional.grad``): the
gradients of a convolution with respect to its input or its weight, computed directly
from ``grad_output``.

Each is torch's ``convolution_backward`` with one output asked for, recorded as its node
``ConvolutionBackwardBackward0`` (differentiable in ``grad_output`` and in the weight or
input given).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.ops.conv import ConvolutionBackward
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "conv1d_input",
    "conv1d_weight",
    "conv2d_input",
    "conv2d_weight",
    "conv3d_input",
    "conv3d_weight",
]


def _tuple(value: Any, n: int) -> tuple[int, ...]:
    """An int, or a sequence of ``n`` ints, as ``n`` ints (torch's ``_single``/``_pair``)."""
    if isinstance(value, Sequence):
        return tuple(operator.index(v) for v in value)
    return (operator.index(value),) * n


def _placeholder(like: Tensor, size: Sequence[int]) -> Tensor:
    """A tensor of ``size`` whose values are never read (torch's
    ``grad_output.new_empty(1).expand(size)``): only its shape matters."""
    shape = tuple(operator.index(n) for n in size)
    return Tensor._make(np.broadcast_to(np.zeros(1, like._data.dtype), shape))


def _backward(
    grad_output: Tensor,
    input: Tensor,
    weight: Tensor,
    nd: int,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
    which: int,
) -> Tensor:
    """Output ``which`` (0: input, 1: weight) of torch's ``convolution_backward``."""
    mask = (which == 0, which == 1, False)
    op = ConvolutionBackward(
        _tuple(stride, nd),
        _tuple(padding, nd),
        _tuple(dilation, nd),
        False,
        (0,) * nd,
        operator.index(groups),
        output_mask=mask,
    )
    return apply(op, grad_output, input, weight)[which]


def conv1d_input(
    input_size: Sequence[int],
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv1d`` with respect to its input of shape ``input_size``, for
    ``weight`` and ``grad_output`` ``(N, C_out, L_out)``; the other arguments as
    ``conv1d``'s. Example::

        out = F.conv1d(x, w)
        nn.grad.conv1d_input(x.shape, w, hookgrad.ones_like(out))   # == x.grad of out.sum()
    """
    placeholder = _placeholder(grad_output, input_size)
    return _backward(grad_output, placeholder, weight, 1, stride, padding, dilation, groups, 0)


def conv1d_weight(
    input: Tensor,
    weight_size: Sequence[int],
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv1d`` with respect to its weight of shape ``weight_size``,
    for ``input`` and ``grad_output``. Example:
    ``nn.grad.conv1d_weight(x, w.shape, grad_out)``."""
    placeholder = _placeholder(grad_output, weight_size)
    return _backward(grad_output, input, placeholder, 1, stride, padding, dilation, groups, 1)


def conv2d_input(
    input_size: Sequence[int],
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its input of shape ``input_size``.
    Example: ``nn.grad.conv2d_input(x.shape, w, grad_out, padding=1)``."""
    placeholder = _placeholder(grad_output, input_size)
    return _backward(grad_output, placeholder, weight, 2, stride, padding, dilation, groups, 0)


def conv2d_weight(
    input: Tensor,
    weight_size: Sequence[int],
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its weight of shape ``weight_size``.
    Example: ``nn.grad.conv2d_weight(x, w.shape, grad_out, stride=2)``."""
    placeholder = _placeholder(grad_output, weight_size)
    return _backward(grad_output, input, placeholder, 2, stride, padding, dilation, groups, 1)


def conv3d_input(
    input_size: Sequence[int],
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv3d`` with respect to its input of shape ``input_size``.
    Example: ``nn.grad.conv3d_input(x.shape, w, grad_out)``."""
    placeholder = _placeholder(grad_output, input_size)
    return _backward(grad_output, placeholder, weight, 3, stride, padding, dilation, groups, 0)


def conv3d_weight(
    input: Tensor,
    weight_size: Sequence[int],
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv3d`` with respect to its weight of shape ``weight_size``.
    Example: ``nn.grad.conv3d_weight(x, w.shape, grad_out)``."""
    placeholder = _placeholder(grad_output, weight_size)
    return _backward(grad_output, input, placeholder, 3, stride, padding, dilation, groups, 1)
