"""nn.functional: max unpooling over 1-3 spatial dims (``max_unpool1d/2d/3d``), the
partial inverse of a max pool given its indices, with torch's output-size rules, checks
and node names.

Example: ``max_unpool2d(*max_pool2d(x, 2, return_indices=True), 2)`` puts each maximum
back where it was and zeros elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.nn.functional.pooling_args import IntOrTuple, check_dtype, repeat
from hookgrad.ops.pooling import (
    MaxUnpool,
)
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


# ---------------------------------------------------------------- max unpooling


def max_unpool1d(
    input: Any,
    indices: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Any:
    """A partial inverse of ``max_pool1d``: each value written at its index along the
    last dim, zeros elsewhere (length ``(L - 1) * stride - 2 * padding + kernel_size``
    unless ``output_size`` says).

    Example::

        y, i = F.max_pool1d(x, 2, return_indices=True)
        F.max_unpool1d(y, i, 2)     # x's maxima in place, zeros elsewhere
    """
    kernel, step, pad = _unpool_args(kernel_size, stride, padding, 1)
    size = _unpool_output_size(input, kernel, step, pad, output_size)
    out = _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), tuple(size) + (1,), 2)
    return out.squeeze(-1)


def max_unpool2d(
    input: Any,
    indices: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Any:
    """A partial inverse of ``max_pool2d``: each value of ``input`` ``(N, C, H, W)`` or
    ``(C, H, W)`` written at its flat index ``indices`` in its plane, zeros elsewhere.

    Example::

        y, i = F.max_pool2d(x, 2, return_indices=True)
        F.max_unpool2d(y, i, 2).shape == x.shape
    """
    kernel, step, pad = _unpool_args(kernel_size, stride, padding, 2)
    size = _unpool_output_size(input, kernel, step, pad, output_size)
    return _max_unpool(input, indices, tuple(size), 2)


def max_unpool3d(
    input: Any,
    indices: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Any:
    """A partial inverse of ``max_pool3d``: each value of ``input`` ``(N, C, D, H, W)``
    or ``(C, D, H, W)`` written at its flat index in its volume, zeros elsewhere.

    Example::

        y, i = F.max_pool3d(x, 2, return_indices=True)
        F.max_unpool3d(y, i, 2).shape == x.shape
    """
    kernel, step, pad = _unpool_args(kernel_size, stride, padding, 3)
    size = _unpool_output_size(input, kernel, step, pad, output_size)
    return _max_unpool(input, indices, tuple(size), 3, step)


def _unpool_args(
    kernel_size: IntOrTuple, stride: IntOrTuple | None, padding: IntOrTuple, nd: int
) -> tuple[list[int], list[int], list[int]]:
    kernel = repeat(kernel_size, nd)
    return kernel, kernel if stride is None else repeat(stride, nd), repeat(padding, nd)


def _unpool_output_size(
    input: Any,
    kernel: list[int],
    stride: list[int],
    padding: list[int],
    output_size: Sequence[int] | None,
) -> list[int]:
    """torch's ``_unpool_output_size``: the pooled input's size, or ``output_size`` checked
    against it."""
    nd = len(kernel)
    shape = tuple(input.shape)
    default = [(shape[-nd + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(nd)]
    if output_size is None:
        sizes = default
    else:
        sizes = list(output_size)
        if len(sizes) == nd + 2:
            sizes = sizes[2:]
        if len(sizes) != nd:
            raise ValueError(
                f"output_size should be a sequence containing {nd} or {nd + 2} elements, but "
                f"it has a length of '{len(sizes)}'"
            )
        for d in range(nd):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < sizes[d] < high:
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {low} and '
                    f"{high})"
                )
    for d, size in enumerate(sizes):
        if size < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{d}]={size}"
            )
    return sizes


def _max_unpool(
    input: Any, indices: Any, size: tuple[int, ...], nd: int, stride: Sequence[int] = ()
) -> Any:
    """torch's ``max_unpool2d`` / ``max_unpool3d``: checks, then ``MaxUnpool``."""
    if indices.dtype != dtypes.int64:
        detail = f" but got: {dtypes.legacy_name(indices.dtype)}" if nd == 2 else ""
        raise RuntimeError(f"elements in indices should be type int64{detail}")
    if nd == 2 and input.dim() not in (3, 4):
        raise RuntimeError(
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
            f"{input.dim()} dimensions."
        )
    if nd == 3 and input.dim() not in (4, 5):
        raise RuntimeError(
            "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
            f"{input.dim()} dimensions."
        )
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    where = "max_unpooling2d_forward_out_cpu()" if nd == 2 else "max_unpooling3d_forward_out_cpu()"
    for dim in range(1, input.dim()):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"{where}: Expected input to have non-zero size for non-batch dimensions, "
                f"but got {list(input.shape)} with dimension {dim} being empty."
            )
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    check_dtype(input, f"max_unpool{nd}d", integers=False)
    volume = 1
    for n in size:
        volume *= n
    # torch reports the last bad index of the first plane that has one.
    data = indices._data.reshape(-1, int(np.prod(indices.shape[input.dim() - nd :])))
    bad = (data < 0) | (data >= volume)
    if bad.any():
        plane = int(np.argmax(bad.any(axis=1)))
        raise RuntimeError(
            f"Found an invalid max index: {int(data[plane][bad[plane]][-1])} (output volumes "
            f"are of size {'x'.join(map(str, size))})"
        )
    return apply(MaxUnpool(size), input, indices)
