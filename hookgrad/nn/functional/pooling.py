"""nn.functional: pooling over 1-3 spatial dims: max pooling (``max_pool1d/2d/3d`` and
their ``*_with_indices`` forms), average pooling, adaptive average and max pooling,
fractional max pooling, power-average (``lp_pool*``) pooling and max unpooling.

As in torch, the 1-d pools are their 2-d forms over a plane of height one (their node is
a ``SqueezeBackward1``), an adaptive average pool to a single value is a ``mean``, and the
``lp_pool*`` functions are composites of an average pool and elementwise ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from hookgrad.nn.functional.activation import relu
from hookgrad.ops.pooling import (
    AdaptiveAvgPool,
    AdaptiveMaxPool,
    AvgPool,
    FractionalMaxPool,
    MaxPoolWithIndices,
    MaxUnpool,
    pooled_size,
)
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.unary import abs as _abs
from hookgrad.tensor.functions.unary import sign
from hookgrad.tensor.random import rand

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]

IntOrTuple = Union[int, Sequence[int]]
OutputSize = Union[int, Sequence[Union[int, None]]]

_COUNT = {1: "one", 2: "two", 3: "three"}

# ---------------------------------------------------------------- max pooling


def max_pool1d(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each window of the last dim of ``input`` ``(N, C, L)`` or ``(C, L)``;
    with ``return_indices`` also each maximum's position along ``L``.

    Example: ``max_pool1d(hookgrad.tensor([[1., 3., 2., 0.]]), 2)`` is ``[[3., 2.]]``.
    """
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool1d_with_indices(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Any, Any]:
    """``max_pool1d`` and the position of each maximum along ``L`` (int64), always.

    Example: ``max_pool1d_with_indices(hookgrad.tensor([[1., 3., 2., 0.]]), 2)[1]`` is
    ``[[1, 2]]``.
    """
    _check_dim_range(input, 2, 3, "max_pool1d")
    kernel, stride_, padding_, dilation_ = _one_each(
        "max_pool1d", kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation
    )
    out, indices = max_pool2d_with_indices(
        input.unsqueeze(-2),
        (1, kernel),
        (1, kernel if stride_ is None else stride_),
        (0, padding_),
        (1, dilation_),
        ceil_mode,
    )
    return out.squeeze(-2), indices.squeeze(-2)


def max_pool2d(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each ``kernel_size`` window of ``input`` ``(N, C, H, W)`` or
    ``(C, H, W)``; a tie sends the gradient to the first maximum. With
    ``return_indices`` also returns each maximum's flat index in its ``H * W`` plane.

    Example: ``max_pool2d(hookgrad.randn(64, 32, 26, 26), 2)`` has shape (64, 32, 13, 13).
    """
    out = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def max_pool2d_with_indices(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Any, Any]:
    """``max_pool2d`` and each maximum's flat index in its plane (int64), always.

    Example: ``max_pool2d_with_indices(hookgrad.randn(1, 1, 4, 4), 2)[1].shape`` is
    ``(1, 1, 2, 2)``.
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 2)


def max_pool3d(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each ``kernel_size`` window of ``input`` ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; with ``return_indices`` also each maximum's flat index in its
    ``D * H * W`` volume.

    Example: ``max_pool3d(hookgrad.randn(2, 3, 8, 8, 8), 2)`` has shape (2, 3, 4, 4, 4).
    """
    out = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def max_pool3d_with_indices(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Any, Any]:
    """``max_pool3d`` and each maximum's flat index in its volume (int64), always.

    Example: ``max_pool3d_with_indices(hookgrad.randn(1, 1, 4, 4, 4), 2)[1].shape`` is
    ``(1, 1, 2, 2, 2)``.
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 3)


def _max_pool(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None,
    padding: IntOrTuple,
    dilation: IntOrTuple,
    ceil_mode: bool,
    nd: int,
) -> tuple[Any, Any]:
    name = f"max_pool{nd}d"
    kernel = _sizes(kernel_size, nd, f"{name}: kernel_size must either be a single int")
    stride_ = _stride(stride, nd, f"{name}: stride must either be omitted, a single int")
    padding_ = _sizes(padding, nd, f"{name}: padding must either be a single int")
    dilation_ = _sizes(dilation, nd, f"{name}: dilation must be either a single int")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input"
        )
    _check_window(input, kernel, stride_ or kernel, padding_, dilation_, ceil_mode, name)
    _check_dtype(input, name, integers=True)
    return apply(MaxPoolWithIndices(kernel, stride_, padding_, dilation_, ceil_mode), input)


def _check_max_pool1d(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None,
    padding: IntOrTuple,
    dilation: IntOrTuple,
    ceil_mode: bool,
) -> None:
    """torch's checks of ``max_pool1d`` without indices (before its 2-d form's)."""
    shape = list(input.shape)
    if input.dim() not in (2, 3) or any(n == 0 for n in shape[-2:]):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{shape}"
        )
    values = {}
    for name, value, article in (
        ("kernel_size", kernel_size, "an int, list of ints or tuple of ints"),
        ("stride", stride, "None, an int, list of ints, or tuple of ints"),
        ("padding", padding, "an int, list of ints, or tuple of ints"),
        ("dilation", dilation, "an int, list of ints or tuple of ints"),
    ):
        items = [] if value is None else [value] if isinstance(value, int) else list(value)
        if len(items) != 1 and not (name == "stride" and not items):
            raise RuntimeError(
                f"max_pool1d() {name} must be {article} of size 1 but got size {len(items)}"
            )
        values[name] = int(items[0]) if items else None
    kernel, step = values["kernel_size"], values["stride"]
    step = kernel if step is None else step
    pad, dil = values["padding"], values["dilation"]
    if kernel <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    if step <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {step}")
    if pad < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {pad}")
    if pad > kernel // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={pad} and kernel_size={kernel}"
        )
    if dil <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dil}")
    out = pooled_size(shape[-1], kernel, step, pad, dil, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


# ---------------------------------------------------------------- average pooling


def avg_pool1d(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Any:
    """The mean of each window of the last dim of ``input`` ``(N, C, L)`` or ``(C, L)``.

    Example: ``avg_pool1d(hookgrad.tensor([[1., 3., 2., 0.]]), 2)`` is ``[[2., 1.]]``.
    """
    _check_dim_range(input, 2, 3, "avg_pool1d")
    kernel, stride_, padding_ = _one_each(
        "avg_pool1d", kernel_size=kernel_size, stride=stride, padding=padding
    )
    out = avg_pool2d(
        input.unsqueeze(-2),
        (1, kernel),
        (1, kernel if stride_ is None else stride_),
        (0, padding_),
        ceil_mode,
        count_include_pad,
    )
    return out.squeeze(-2)


def avg_pool2d(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Any:
    """The mean of each ``kernel_size`` window of ``input`` ``(N, C, H, W)`` or ``(C, H, W)``.

    ``count_include_pad`` counts zero padding in the divisor; ``divisor_override``
    replaces the divisor. Example: ``avg_pool2d(x, 2)`` halves each spatial dim.
    """
    args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return _avg_pool(input, *args, 2)


def avg_pool3d(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Any:
    """The mean of each ``kernel_size`` window of ``input`` ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``, with the same options as ``avg_pool2d``.

    Example: ``avg_pool3d(hookgrad.randn(2, 3, 8, 8, 8), 2)`` has shape (2, 3, 4, 4, 4).
    """
    args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return _avg_pool(input, *args, 3)


def _avg_pool(
    input: Any,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None,
    padding: IntOrTuple,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
    nd: int,
) -> Any:
    name = f"avg_pool{nd}d"
    # torch words the 3-d messages a little differently.
    must = "must either be" if nd == 2 else "must be"
    kernel = _sizes(kernel_size, nd, f"{name}: kernel_size {must} a single int")
    stride_ = _stride(stride, nd, f"{name}: stride {must} omitted, a single int")
    padding_ = _sizes(padding, nd, f"{name}: padding {must} a single int")
    if nd == 2 and divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input"
        )
    if nd == 3 and divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    step = stride_ or kernel
    _check_window(input, kernel, step, padding_, (1,) * nd, ceil_mode, name, check_size=nd == 3)
    _check_dtype(input, name if nd == 2 else "avg_pool3d_out_frame", integers="int64")
    op = AvgPool(kernel, stride_, padding_, ceil_mode, count_include_pad, divisor_override)
    return apply(op, input)


# ---------------------------------------------------------------- adaptive pooling


def adaptive_avg_pool1d(input: Any, output_size: IntOrTuple) -> Any:
    """Average pooling of the last dim of ``input`` ``(N, C, L)`` or ``(C, L)`` to
    ``output_size`` windows (window ``i`` covers ``[floor(i * L / out), ceil((i + 1) * L /
    out))``).

    Example: ``adaptive_avg_pool1d(hookgrad.tensor([[1., 3., 2., 0.]]), 1)`` is ``[[1.5]]``.
    """
    _check_dim_range(input, 2, 3, "adaptive_avg_pool1d")
    (size,) = _one_each("adaptive_avg_pool1d", output_size=output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_avg_pool2d(input: Any, output_size: OutputSize) -> Any:
    """Average pooling of ``input`` ``(N, C, H, W)`` or ``(C, H, W)`` to ``output_size``
    (``None`` keeps that dim): window ``i`` of a dim covers
    ``[floor(i * H / out), ceil((i + 1) * H / out))``.

    Example: ``adaptive_avg_pool2d(hookgrad.randn(8, 64, 7, 7), 1)`` has shape (8, 64, 1, 1).
    """
    return _adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input: Any, output_size: OutputSize) -> Any:
    """Average pooling of ``input`` ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to
    ``output_size`` (``None`` keeps that dim), with adaptive windows as in 2-d.

    Example: ``adaptive_avg_pool3d(hookgrad.randn(2, 8, 5, 6, 7), 2)`` has shape
    (2, 8, 2, 2, 2).
    """
    return _adaptive_avg_pool(input, output_size, 3)


def _adaptive_avg_pool(input: Any, output_size: OutputSize, nd: int) -> Any:
    name = f"adaptive_avg_pool{nd}d"
    out = _output_size(input, output_size, nd)
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must be {nd}")
    if any(o < 0 for o in out):
        # torch's spacing, as it prints it.
        received = f"{out[0]}, {out[1]}" + (f",{out[2]}" if nd == 3 else "")
        raise RuntimeError(
            f"{name}: elements of output_size must be greater than or equal to 0 but "
            f"received {{{received}}}"
        )
    if all(o == 1 for o in out):
        # torch's shortcut: a mean over the pooled dims.
        return input.mean(tuple(range(-1, -nd - 1, -1)), keepdim=True)
    _check_adaptive_input(input, nd, name, got_colon=False, spatial_only=nd == 2)
    _check_dtype(input, name if nd == 2 else f"{name}_cpu", integers=False)
    return apply(AdaptiveAvgPool(out), input)


def adaptive_max_pool1d(input: Any, output_size: IntOrTuple, return_indices: bool = False) -> Any:
    """The maximum of adaptive windows of the last dim of ``input`` ``(N, C, L)`` or
    ``(C, L)``; with ``return_indices`` also each maximum's position along ``L``.

    Example: ``adaptive_max_pool1d(hookgrad.tensor([[1., 3., 2., 0.]]), 2)`` is
    ``[[3., 2.]]``.
    """
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(
    input: Any, output_size: IntOrTuple, return_indices: bool = False
) -> tuple[Any, Any]:
    """``adaptive_max_pool1d`` and the position of each maximum (int64), always.

    Example: ``adaptive_max_pool1d_with_indices(hookgrad.tensor([[1., 3., 2., 0.]]), 2)[1]``
    is ``[[1, 2]]``.
    """
    _check_dim_range(input, 2, 3, "adaptive_max_pool1d")
    (size,) = _one_each("adaptive_max_pool1d", output_size=output_size)
    out, indices = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, size))
    return out.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool2d(input: Any, output_size: OutputSize, return_indices: bool = False) -> Any:
    """The maximum of adaptive windows of ``input`` ``(N, C, H, W)`` or ``(C, H, W)`` to
    ``output_size`` (``None`` keeps that dim); with ``return_indices`` also each
    maximum's flat index in its plane.

    Example: ``adaptive_max_pool2d(hookgrad.randn(8, 64, 7, 7), (2, 3))`` has shape
    (8, 64, 2, 3).
    """
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(
    input: Any, output_size: OutputSize, return_indices: bool = False
) -> tuple[Any, Any]:
    """``adaptive_max_pool2d`` and each maximum's flat index in its plane, always.

    Example: ``adaptive_max_pool2d_with_indices(hookgrad.randn(1, 4, 4), 1)[1].shape`` is
    ``(1, 1, 1)``.
    """
    return _adaptive_max_pool(input, output_size, 2)


def adaptive_max_pool3d(input: Any, output_size: OutputSize, return_indices: bool = False) -> Any:
    """The maximum of adaptive windows of ``input`` ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; with ``return_indices`` also each maximum's flat index in its volume.

    Example: ``adaptive_max_pool3d(hookgrad.randn(2, 3, 5, 6, 7), 2)`` has shape
    (2, 3, 2, 2, 2).
    """
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(
    input: Any, output_size: OutputSize, return_indices: bool = False
) -> tuple[Any, Any]:
    """``adaptive_max_pool3d`` and each maximum's flat index in its volume, always.

    Example: ``adaptive_max_pool3d_with_indices(hookgrad.randn(1, 2, 2, 2), 1)[1]`` has
    shape (1, 1, 1, 1).
    """
    return _adaptive_max_pool(input, output_size, 3)


def _adaptive_max_pool(input: Any, output_size: OutputSize, nd: int) -> tuple[Any, Any]:
    name = f"adaptive_max_pool{nd}d"
    out = _output_size(input, output_size, nd)
    _check_adaptive_input(input, nd, name, got_colon=True)
    if len(out) != nd:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
    for size in out:
        if size < 0:
            shape = list(input.shape[: input.dim() - nd]) + list(out)
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {shape}")
    _check_dtype(input, name if nd == 2 else f"{name}_cpu", integers=False)
    return apply(AdaptiveMaxPool(out), input)


def _check_adaptive_input(
    input: Any, nd: int, name: str, got_colon: bool, spatial_only: bool = False
) -> None:
    """torch's checks of an adaptive pool's input: its rank, and no empty dim but the batch
    (2-d average pooling: no empty spatial dim)."""
    shape = list(input.shape)
    if input.dim() not in (nd + 1, nd + 2):
        got = "got: " if got_colon else "got "
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but {got}{shape}")
    for dim in range(input.dim() - nd if spatial_only else 1, input.dim()):
        if shape[dim] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {shape} with dimension {dim} being empty"
            )


def _output_size(input: Any, output_size: OutputSize, nd: int) -> tuple[int, ...]:
    """torch's ``_list_with_default``: an int for every dim, ``None`` keeping the input's."""
    if isinstance(output_size, int):
        return (output_size,) * nd
    sizes = list(output_size)
    if input.dim() <= len(sizes):
        raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
    defaults = list(input.shape)[-len(sizes) :]
    return tuple(d if v is None else int(v) for v, d in zip(sizes, defaults))


# ---------------------------------------------------------------- fractional max pooling


def fractional_max_pool2d(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    """Fractional max pooling of ``input`` ``(N, C, H, W)`` or ``(C, H, W)``: windows of
    ``kernel_size`` at pseudo-random places, to ``output_size`` (or ``output_ratio`` of
    the input's size). The places come from ``hookgrad.rand`` (torch's stream) unless
    ``_random_samples`` ``(N, C, 2)`` gives them.

    Example: ``fractional_max_pool2d(hookgrad.randn(1, 3, 9, 9), 2, output_size=5)`` has
    shape (1, 3, 5, 5).
    """
    out = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return out if return_indices else out[0]


def fractional_max_pool2d_with_indices(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> tuple[Any, Any]:
    """``fractional_max_pool2d`` and each maximum's flat index in its plane, always.

    Example: ``fractional_max_pool2d_with_indices(x, 2, output_ratio=0.5)[1]`` are int64.
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool3d(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    """Fractional max pooling of ``input`` ``(N, C, D, H, W)`` or ``(C, D, H, W)``, as
    ``fractional_max_pool2d`` (``_random_samples``: ``(N, C, 3)``).

    Example: ``fractional_max_pool3d(hookgrad.randn(1, 2, 7, 7, 7), 2, output_size=4)`` has
    shape (1, 2, 4, 4, 4).
    """
    out = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> tuple[Any, Any]:
    """``fractional_max_pool3d`` and each maximum's flat index in its volume, always.

    Example: ``fractional_max_pool3d_with_indices(x, 2, output_ratio=0.5)[1]`` are int64.
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def _fractional_max_pool(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None,
    output_ratio: float | Sequence[float] | None,
    samples: Any,
    nd: int,
) -> tuple[Any, Any]:
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        # As torch: ``len`` of the ratio (so a bare float fails as it does there).
        if len(output_ratio) > nd:  # type: ignore[arg-type]
            raise ValueError(
                f"{name} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratios = _repeat(output_ratio, nd)  # type: ignore[arg-type]
        sizes = input.shape[input.dim() - nd :]
        output_size = [int(n * r) for n, r in zip(sizes, ratios)]
    if samples is None:
        batch = 1 if input.dim() == nd + 1 else input.size(0)
        samples = rand(batch, input.size(-nd - 1), nd, dtype=input.dtype)
    single = "must either be a single Int or tuple of Ints"
    kernel = _sizes(kernel_size, nd, f"{name}: kernel_size {single}", suffix=False)
    out = _sizes(output_size, nd, f"{name}: output_size {single}", suffix=False)
    _check_fractional(input, kernel, out, nd, name)
    return apply(FractionalMaxPool(kernel, out, samples._data), input)


def _check_fractional(
    input: Any, kernel: tuple[int, ...], out: tuple[int, ...], nd: int, name: str
) -> None:
    """torch's checks (its 3-d kernel's name, its dims in the order T, W, H, and a pool
    that reaches the input's end refused in 3-d only)."""
    shape = list(input.shape)
    where = name if nd == 2 else f"{name}_out"
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for dim in range(1, input.dim()):
        if shape[dim] == 0:
            raise RuntimeError(
                f"{where}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but got{shape} with dimension {dim} being empty."
            )
    labels = ("height", "width") if nd == 2 else ("time", "height", "width")
    checks = list(zip(labels, out, kernel, shape[-nd:]))
    if nd == 3:
        checks = [checks[0], checks[2], checks[1]]
    for label, o, k, n in checks:
        if o + k - 1 > n or (nd == 3 and o + k - 1 == n):
            raise RuntimeError(
                f"{where}(): pool {label} {k} too large relative to input {label} {n}"
            )


# ---------------------------------------------------------------- power-average pooling


def lp_pool1d(
    input: Any,
    norm_type: float,
    kernel_size: int,
    stride: IntOrTuple | None = None,
    ceil_mode: bool = False,
) -> Any:
    """Power-average pooling of the last dim: ``(sum over each window of x ** p) ** (1 /
    p)`` (``p = norm_type``; ``inf`` is a max pool of ``|x|``).

    Example: ``lp_pool1d(hookgrad.tensor([[3., 4.]]), 2, 2)`` is ``[[5.]]``.
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(
    input: Any,
    norm_type: float,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    ceil_mode: bool = False,
) -> Any:
    """Power-average pooling over ``kernel_size`` windows of the last two dims.

    Example: ``lp_pool2d(hookgrad.ones(1, 4, 4), 2, 2)`` is ``2.`` everywhere, shape
    (1, 2, 2).
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(
    input: Any,
    norm_type: float,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    ceil_mode: bool = False,
) -> Any:
    """Power-average pooling over ``kernel_size`` windows of the last three dims.

    Example: ``lp_pool3d(hookgrad.ones(1, 2, 2, 2), 1, 2)`` is ``[[[[8.]]]]``.
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def _lp_pool(
    input: Any,
    norm_type: float,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None,
    ceil_mode: bool,
    nd: int,
) -> Any:
    max_pool = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
    if norm_type == float("inf"):
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    avg_pool = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    count = 1
    for k in (kernel_size,) * nd if isinstance(kernel_size, int) else tuple(kernel_size):
        count *= k
    return (sign(out) * relu(_abs(out))).mul(count).pow(1.0 / norm_type)


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
    kernel = _repeat(kernel_size, nd)
    return kernel, kernel if stride is None else _repeat(stride, nd), _repeat(padding, nd)


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
    _check_dtype(input, f"max_unpool{nd}d", integers=False)
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


# ---------------------------------------------------------------- shared checks


def _check_window(
    input: Any,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    ceil_mode: bool,
    name: str,
    check_size: bool = False,
) -> None:
    """torch's checks of a pooling window against its input (``pooling_output_shape``,
    then ``pool2d_shape_check`` / ``pool3d_shape_check``)."""
    nd = len(kernel)
    size = tuple(input.shape[-nd:])
    out = []
    for n, k, s, p, d in zip(size, kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
        out.append(pooled_size(n, k, s, p, d, ceil_mode))
    axes = ("H", "W") if nd == 2 else ("T", "H", "W")
    for label, values in (("kernel size", kernel), ("stride", stride), ("dilation", dilation)):
        if any(v <= 0 for v in values):
            prefix = {"kernel size": "k", "stride": "d", "dilation": "dilation"}[label]
            got = " ".join(f"{prefix}{a}: {v}" for a, v in zip(axes, values))
            raise RuntimeError(f"{label} should be greater than zero, but got {got}")
    shape = list(input.shape)
    batched = input.dim() == nd + 2
    if any(n == 0 for n in shape[1:]) or (not batched and shape[0] == 0):
        if nd == 2:
            raise RuntimeError(
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                f"input, but got:{shape}"
            )
        where = "max_pool3d_with_indices_out_cpu_template" if name == "max_pool3d" else name
        raise RuntimeError(
            f"{where}(): Expected input's non-batch dimensions to have positive length, but "
            f"input has a shape of {shape} and non-batch dimension 0 has length zero!"
        )
    if check_size and any(n < k for n, k in zip(size, kernel)):
        raise RuntimeError(
            f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) smaller than kernel size "
            f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})"
        )
    if any(o < 1 for o in out):
        planes = shape[-nd - 1]
        raise RuntimeError(
            f"Given input size: ({planes}x{'x'.join(map(str, size))}). Calculated output "
            f"size: ({planes}x{'x'.join(map(str, out))}). Output size is too small"
        )


def _check_dtype(input: Any, kernel: str, integers: bool | str) -> None:
    """torch's CPU pooling kernels take floating types, and ``integers`` (max pools:
    every integer type; average pools: int64 only)."""
    dtype = input.dtype
    if dtype.is_floating_point:
        return
    if integers is True and not dtype.is_complex and dtype != dtypes.bool_:
        return
    if integers == "int64" and dtype == dtypes.int64:
        return
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.legacy_name(dtype)}'")


def _check_dim_range(input: Any, low: int, high: int, name: str) -> None:
    """torch's ``checkDimRange`` for ``self``, argument #1."""
    if not low <= input.dim() <= high:
        raise RuntimeError(
            f"Expected {low} to {high} dimensions, but got {input.dim()}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {name})"
        )


def _one_each(function: str, **values: Any) -> list[Any]:
    """torch's ``check1d``: each argument one int (``stride`` may be None or empty)."""
    out = []
    for name, value in values.items():
        if name == "stride" and (value is None or (not isinstance(value, int) and not value)):
            out.append(None)
            continue
        items = [value] if isinstance(value, int) else list(value)
        if len(items) != 1:
            raise RuntimeError(
                f"{function}() argument '{name}' should contain one int (got {len(items)})"
            )
        out.append(int(items[0]))
    return out


def _sizes(value: IntOrTuple, nd: int, message: str, suffix: bool = True) -> tuple[int, ...]:
    """An int or ``nd`` ints as an ``nd``-tuple; otherwise torch's error (``message``, and
    ``, or a tuple of <nd> ints`` with ``suffix``)."""
    items = [value] if isinstance(value, int) else [int(v) for v in value]
    if len(items) == 1:
        return (items[0],) * nd
    if len(items) != nd:
        raise RuntimeError(message + (f", or a tuple of {_COUNT[nd]} ints" if suffix else ""))
    return tuple(items)


def _stride(stride: IntOrTuple | None, nd: int, message: str) -> tuple[int, ...]:
    """The stride as torch's node keeps it: ``()`` when left out (the kernel size)."""
    if stride is None or (not isinstance(stride, int) and len(stride) == 0):
        return ()
    return _sizes(stride, nd, message)


def _repeat(value: Any, nd: int) -> list[Any]:
    """torch's ``_single`` / ``_pair`` / ``_triple``: a number repeated, a sequence kept."""
    return [value] * nd if isinstance(value, (int, float)) else list(value)
