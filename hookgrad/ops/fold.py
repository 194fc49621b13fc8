"""``F.unfold`` and ``F.fold``: torch's ``im2col`` (every sliding block of a batch of
images as a column) and ``col2im`` (the columns summed back into images), each the
other's backward (nodes ``Im2ColBackward0`` and ``Col2ImBackward0``).

Both reuse the convolution's window machinery: ``im2col`` is its strided window view
of the padded input, ``col2im`` adds one strided slice per kernel position.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.conv import kernel_positions, kernel_slices, pad_spatial, windows


def blocks(
    size: tuple[int, ...],
    kernel_size: tuple[int, ...],
    dilation: tuple[int, ...],
    padding: tuple[int, ...],
    stride: tuple[int, ...],
) -> tuple[int, ...]:
    """How many sliding blocks fit along each spatial dim."""
    return tuple(
        (n + 2 * p - (d * (k - 1) + 1)) // s + 1
        for n, k, d, p, s in zip(size, kernel_size, dilation, padding, stride)
    )


class _BlockParams(Op):
    """The arguments both nodes show as ``_saved_<name>``."""

    def __init__(
        self,
        kernel_size: tuple[int, ...],
        dilation: tuple[int, ...],
        padding: tuple[int, ...],
        stride: tuple[int, ...],
    ) -> None:
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride


class Im2Col(_BlockParams):
    """``(N, C, H, W)`` -> ``(N, C * kH * kW, L)`` (or without ``N``): each sliding block
    as a column."""

    input_names = ("self",)
    saved_attributes = (
        "dilation",
        "kernel_size",
        "padding",
        "self_sym_argsize_minus_1",
        "self_sym_argsize_minus_2",
        "stride",
    )

    def forward(self, x: Any) -> Any:
        self.self_sym_argsize_minus_2, self.self_sym_argsize_minus_1 = x.shape[-2:]
        batch = x if x.ndim == 4 else x[None]
        win = windows(
            pad_spatial(batch, self.padding), self.kernel_size, self.stride, self.dilation
        )
        n, c, oh, ow, kh, kw = win.shape
        cols = np.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3))
        cols = cols.reshape(n, c * kh * kw, oh * ow)
        return cols if x.ndim == 4 else cols[0]

    def backward(self, grad: Any) -> Any:
        size = (self.self_sym_argsize_minus_2, self.self_sym_argsize_minus_1)
        op = Col2Im(size, self.kernel_size, self.dilation, self.padding, self.stride)
        return grad._apply_op(op)


class Col2Im(_BlockParams):
    """``(N, C * kH * kW, L)`` -> ``(N, C, *output_size)`` (or without ``N``): each column
    added back into its sliding block (overlaps sum)."""

    input_names = ("self",)
    saved_attributes = ("dilation", "kernel_size", "padding", "stride")

    def __init__(self, output_size: tuple[int, ...], *params: Any) -> None:
        super().__init__(*params)
        self.output_size = output_size

    def forward(self, columns: Any) -> Any:
        cols = columns if columns.ndim == 3 else columns[None]
        kernel = self.kernel_size
        out_blocks = blocks(self.output_size, kernel, self.dilation, self.padding, self.stride)
        n = cols.shape[0]
        c = cols.shape[1] // int(np.prod(kernel))
        cols = cols.reshape((n, c) + kernel + out_blocks)
        padded = tuple(o + 2 * p for o, p in zip(self.output_size, self.padding))
        result = np.zeros((n, c) + padded, cols.dtype)
        lead = (slice(None), slice(None))
        for position in kernel_positions(kernel):
            target = kernel_slices(position, out_blocks, self.stride, self.dilation)
            result[lead + target] += cols[lead + position]
        inside = tuple(slice(p, p + o) for p, o in zip(self.padding, self.output_size))
        result = np.ascontiguousarray(result[lead + inside])
        return result if columns.ndim == 3 else result[0]

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(Im2Col(self.kernel_size, self.dilation, self.padding, self.stride))
