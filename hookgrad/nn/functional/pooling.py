"""nn.functional: pooling over 1-3 spatial dims: max pooling (``max_pool1d/2d/3d`` and
their ``*_with_indices`` forms), average pooling, adaptive average and max pooling,
fractional max pooling, power-average (``lp_pool*``) pooling and max unpooling.

As in torch, the 1-d pools are their 2-d forms over a plane of height one (their node is
a ``SqueezeBackward1``), an adaptive average pool to a single value is a ``mean``, and the
``lp_pool*`` functions are composites of an average pool and elementwise ops.
"""

from __future__ import annotations

from typing import Any

from hookgrad.nn.functional.activation import relu
from hookgrad.nn.functional.pooling_args import (
    IntOrTuple,
    check_dim_range,
    check_dtype,
    check_window,
    one_each,
    window_sizes,
    window_stride,
)
from hookgrad.ops.pooling import (
    AvgPool,
    MaxPoolWithIndices,
    pooled_size,
)
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.unary import abs as _abs
from hookgrad.tensor.functions.unary import sign

__all__ = [
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
]

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
    check_dim_range(input, 2, 3, "max_pool1d")
    kernel, stride_, padding_, dilation_ = one_each(
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
    kernel = window_sizes(kernel_size, nd, f"{name}: kernel_size must either be a single int")
    stride_ = window_stride(stride, nd, f"{name}: stride must either be omitted, a single int")
    padding_ = window_sizes(padding, nd, f"{name}: padding must either be a single int")
    dilation_ = window_sizes(dilation, nd, f"{name}: dilation must be either a single int")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input"
        )
    check_window(input, kernel, stride_ or kernel, padding_, dilation_, ceil_mode, name)
    check_dtype(input, name, integers=True)
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
    check_dim_range(input, 2, 3, "avg_pool1d")
    kernel, stride_, padding_ = one_each(
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
    kernel = window_sizes(kernel_size, nd, f"{name}: kernel_size {must} a single int")
    stride_ = window_stride(stride, nd, f"{name}: stride {must} omitted, a single int")
    padding_ = window_sizes(padding, nd, f"{name}: padding {must} a single int")
    if nd == 2 and divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input"
        )
    if nd == 3 and divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    step = stride_ or kernel
    check_window(input, kernel, step, padding_, (1,) * nd, ceil_mode, name, check_size=nd == 3)
    check_dtype(input, name if nd == 2 else "avg_pool3d_out_frame", integers="int64")
    op = AvgPool(kernel, stride_, padding_, ceil_mode, count_include_pad, divisor_override)
    return apply(op, input)


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
