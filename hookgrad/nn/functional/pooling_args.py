"""How the pooling functions of ``nn.functional`` read their arguments, with torch's
checks and messages: window sizes and strides given as one int or one per spatial dim
(``window_sizes``, ``window_stride``, ``repeat``, ``one_each``), a window against its
input (``check_window``), the input's rank (``check_dim_range``) and dtype
(``check_dtype``).

Example: ``window_sizes(2, 2, "max_pool2d: kernel_size must either be a single int")``
is ``(2, 2)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

from hookgrad.ops.pooling import (
    pooled_size,
)
from hookgrad.tensor import dtypes

IntOrTuple = Union[int, Sequence[int]]
OutputSize = Union[int, Sequence[Union[int, None]]]

_COUNT = {1: "one", 2: "two", 3: "three"}


# ---------------------------------------------------------------- shared checks


def check_window(
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


def check_dtype(input: Any, kernel: str, integers: bool | str) -> None:
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


def check_dim_range(input: Any, low: int, high: int, name: str) -> None:
    """torch's ``checkDimRange`` for ``self``, argument #1."""
    if not low <= input.dim() <= high:
        raise RuntimeError(
            f"Expected {low} to {high} dimensions, but got {input.dim()}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {name})"
        )


def one_each(function: str, **values: Any) -> list[Any]:
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


def window_sizes(value: IntOrTuple, nd: int, message: str, suffix: bool = True) -> tuple[int, ...]:
    """An int or ``nd`` ints as an ``nd``-tuple; otherwise torch's error (``message``, and
    ``, or a tuple of <nd> ints`` with ``suffix``)."""
    items = [value] if isinstance(value, int) else [int(v) for v in value]
    if len(items) == 1:
        return (items[0],) * nd
    if len(items) != nd:
        raise RuntimeError(message + (f", or a tuple of {_COUNT[nd]} ints" if suffix else ""))
    return tuple(items)


def window_stride(stride: IntOrTuple | None, nd: int, message: str) -> tuple[int, ...]:
    """The stride as torch's node keeps it: ``()`` when left out (the kernel size)."""
    if stride is None or (not isinstance(stride, int) and len(stride) == 0):
        return ()
    return window_sizes(stride, nd, message)


def repeat(value: Any, nd: int) -> list[Any]:
    """torch's ``_single`` / ``_pair`` / ``_triple``: a number repeated, a sequence kept."""
    return [value] * nd if isinstance(value, (int, float)) else list(value)
