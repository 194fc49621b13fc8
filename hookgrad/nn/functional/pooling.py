"""nn.functional: pooling (``max_pool1d``, ``max_pool2d``, ``avg_pool2d``,
``adaptive_avg_pool2d``).

``max_pool1d`` is ``max_pool2d`` over a plane of height one, as in torch (its node is
a ``SqueezeBackward1``); ``adaptive_avg_pool2d`` to a single value is a ``mean``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

from hookgrad.ops.pooling import AdaptiveAvgPool2D, AvgPool2D, MaxPool2DWithIndices, pooled_size
from hookgrad.tensor.dispatch import apply

__all__ = ["adaptive_avg_pool2d", "avg_pool2d", "max_pool1d", "max_pool2d"]

IntOrPair = Union[int, Sequence[int]]


def max_pool1d(
    input: Any,
    kernel_size: IntOrPair,
    stride: IntOrPair | None = None,
    padding: IntOrPair = 0,
    dilation: IntOrPair = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each window of the last dim of ``input`` ``(N, C, L)`` or ``(C, L)``;
    with ``return_indices`` also each maximum's position along ``L``.

    Example: ``max_pool1d(hookgrad.tensor([[1., 3., 2., 0.]]), 2)`` is ``[[3., 2.]]``.
    """
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d() Expected 2D or 3D input tensor")
    stride = kernel_size if stride is None or stride == [] else stride
    out = max_pool2d(
        input.unsqueeze(-2),
        (1, _one(kernel_size)),
        (1, _one(stride)),
        (0, _one(padding)),
        (1, _one(dilation)),
        ceil_mode,
        return_indices,
    )
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def max_pool2d(
    input: Any,
    kernel_size: IntOrPair,
    stride: IntOrPair | None = None,
    padding: IntOrPair = 0,
    dilation: IntOrPair = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each ``kernel_size`` window of ``input`` ``(N, C, H, W)`` or
    ``(C, H, W)``; a tie sends the gradient to the first maximum. With
    ``return_indices`` also returns each maximum's flat index in its ``H * W`` plane.

    Example: ``max_pool2d(hookgrad.randn(64, 32, 26, 26), 2)`` has shape (64, 32, 13, 13).
    """
    _check_dim(input)
    kernel = _pair(kernel_size)
    stride_ = _stride(stride)
    padding_, dilation_ = _pair(padding), _pair(dilation)
    _check_window(input, kernel, stride_ or kernel, padding_, dilation_, ceil_mode)
    out, indices = apply(
        MaxPool2DWithIndices(kernel, stride_, padding_, dilation_, ceil_mode), input
    )
    return (out, indices) if return_indices else out


def avg_pool2d(
    input: Any,
    kernel_size: IntOrPair,
    stride: IntOrPair | None = None,
    padding: IntOrPair = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Any:
    """The mean of each ``kernel_size`` window of ``input`` ``(N, C, H, W)`` or ``(C, H, W)``.

    ``count_include_pad`` counts zero padding in the divisor; ``divisor_override``
    replaces the divisor. Example: ``avg_pool2d(x, 2)`` halves each spatial dim.
    """
    _check_dim(input)
    kernel = _pair(kernel_size)
    stride_ = _stride(stride)
    padding_ = _pair(padding)
    _check_window(input, kernel, stride_ or kernel, padding_, (1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    op = AvgPool2D(kernel, stride_, padding_, ceil_mode, count_include_pad, divisor_override)
    return apply(op, input)


def adaptive_avg_pool2d(input: Any, output_size: IntOrPair | Sequence[int | None]) -> Any:
    """Average pooling of ``input`` ``(N, C, H, W)`` or ``(C, H, W)`` to ``output_size``
    (``None`` keeps that dim): window ``i`` of a dim covers
    ``[floor(i * H / out), ceil((i + 1) * H / out))``.

    Example: ``adaptive_avg_pool2d(hookgrad.randn(8, 64, 7, 7), 1)`` has shape (8, 64, 1, 1).
    """
    if input.dim() not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}"
        )
    size = tuple(input.shape[-2:])
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    height, width = (n if o is None else int(o) for n, o in zip(size, output_size))
    out = (height, width)
    if out == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    return apply(AdaptiveAvgPool2D(out), input)


def _check_dim(input: Any) -> None:
    if input.dim() not in (3, 4) or input.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")


def _check_window(
    input: Any,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    ceil_mode: bool,
) -> None:
    """torch's checks of a pooling window against its input."""
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    for k, p, d in zip(kernel, padding, dilation):
        if p > k // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    size = tuple(input.shape[-2:])
    out = [pooled_size(*args, ceil_mode) for args in zip(size, kernel, stride, padding, dilation)]
    if any(o < 1 for o in out):
        channels = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({channels}x{size[0]}x{size[1]}). Calculated output size: "
            f"({channels}x{out[0]}x{out[1]}). Output size is too small"
        )


def _stride(stride: IntOrPair | None) -> tuple[int, ...]:
    """The stride as torch's node keeps it: ``()`` when left out (the kernel size)."""
    return () if stride is None or stride == [] else _pair(stride)


def _pair(value: IntOrPair) -> tuple[int, int]:
    if isinstance(value, int):
        return (value, value)
    value = tuple(int(v) for v in value)
    return (value[0], value[0]) if len(value) == 1 else (value[0], value[1])


def _one(value: IntOrPair) -> int:
    return value if isinstance(value, int) else int(tuple(value)[0])
