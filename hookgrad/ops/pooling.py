"""Pooling ops: 2-d max pooling with indices, average pooling, adaptive average pooling.

Max pooling takes the first maximum of each window (torch's rule for ties; a NaN wins).
Average pools are separable: ``out = A_h @ x @ A_w.T`` with one averaging matrix per
spatial dim, so their backward is two matrix products of the gradient.

As in torch, each backward is itself an op (``MaxPool2DWithIndicesBackwardBackward0``
...), with edges to ``grad_output`` and ``self``: its gradient for ``grad_output`` pools
(or gathers at the maxima) again, and ``self`` gets zeros.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.conv import kernel_positions, kernel_slices


def pooled_size(
    size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool
) -> int:
    """Output length of a pooling window sweep (torch's rule: with ``ceil_mode`` a last
    window must start inside the input or its left padding)."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    if not ceil_mode:
        return span // stride + 1
    out = -(-span // stride) + 1
    if (out - 1) * stride >= size + padding:
        out -= 1
    return out


# ---------------------------------------------------------------- max pooling


class MaxPool2DWithIndices(Op):
    """The maximum of each ``kernel_size`` window of the last two dims of ``self``, and
    (second output, int64, without history) its flat index in the input's (unpadded)
    plane, as torch's ``return_indices=True`` gives it.

    ``stride`` is kept as given (``()``: the kernel size, torch's default).
    """

    input_names = ("self",)
    saves = ("self", "result1")
    saved_attributes = ("ceil_mode", "dilation", "kernel_size", "padding", "stride")
    differentiable_outputs = 1

    def __init__(
        self,
        kernel_size: tuple[int, int],
        stride: tuple[int, ...],
        padding: tuple[int, int],
        dilation: tuple[int, int],
        ceil_mode: bool,
    ) -> None:
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode
        self.step = stride or kernel_size

    def forward(self, x: Any) -> Any:
        size = x.shape[-2:]
        out_size = tuple(
            pooled_size(*args, self.ceil_mode)
            for args in zip(size, self.kernel_size, self.step, self.padding, self.dilation)
        )
        # Pad right far enough for the last (ceil-mode) window.
        extra = [
            max((o - 1) * s + d * (k - 1) + 1 - (n + 2 * p), 0)
            for o, s, d, k, n, p in zip(
                out_size, self.step, self.dilation, self.kernel_size, size, self.padding
            )
        ]
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        planes = x.reshape((-1,) + size)
        if any(self.padding) or any(extra):
            pad = [(0, 0)] + [(p, p + e) for p, e in zip(self.padding, extra)]
            planes = np.pad(planes, pad, constant_values=low)
        best, position = self._window_max(planes, out_size, nan_aware=False)
        if best.dtype.kind == "f" and np.isnan(best).any():  # NaN propagates into best
            best, position = self._window_max(planes, out_size, nan_aware=True)
        self.position = position
        self.padded_size = planes.shape[-2:]
        shape = x.shape[:-2] + out_size
        return best.reshape(shape), self._indices(position, size).reshape(shape)

    def _indices(self, position: np.ndarray, size: tuple[int, ...]) -> np.ndarray:
        """Each window's maximum (its kernel ``position``) as a flat index into its plane."""
        (sh, sw), (ph, pw), (dh, dw) = self.step, self.padding, self.dilation
        height, width = position.shape[-2:]
        row = size[-1]
        offsets = np.array(
            [kh * dh * row + kw * dw for kh, kw in kernel_positions(self.kernel_size)]
        )
        base = (np.arange(height) * sh - ph)[:, None] * row + (np.arange(width) * sw - pw)
        return base + offsets.take(position)

    def _window_max(self, planes: Any, out_size: tuple[int, ...], nan_aware: bool) -> Any:
        """The maximum of each window and its kernel position, one pass per position.

        A later value wins only if strictly greater (or, ``nan_aware``, NaN), so ties go to
        the first maximum and NaN to the last NaN, as in torch.
        """
        best = position = None
        for k, kernel_position in enumerate(kernel_positions(self.kernel_size)):
            target = kernel_slices(kernel_position, out_size, self.step, self.dilation)
            values = planes[(slice(None),) + target]
            if best is None:
                best = values.copy()
                position = np.zeros(values.shape, np.int32)
                continue
            better = values > best
            if nan_aware:
                better |= np.isnan(values)
            np.maximum(best, values, out=best)
            # NOTE: arithmetic, not np.where / masked assignment: ~50x faster on the
            # random masks a max pool makes.
            position += better * (np.int32(k) - position)
        return best, position

    def backward(self, grad: Any) -> Any:
        x, indices = self.unpack()
        return grad._apply_op(MaxPool2DWithIndicesBackward(self), x, indices)


class MaxPool2DWithIndicesBackward(Op):
    """torch's ``max_pool2d_with_indices_backward``: ``grad_output`` sent to each window's
    maximum. Its gradient gathers at the maxima (``indices``); ``self`` gets zeros."""

    input_names = ("grad_output", "self", "indices")
    non_differentiable = ("indices",)
    saves = ("indices",)

    def __init__(self, pool: MaxPool2DWithIndices) -> None:
        # The pool's kernel positions scatter faster than its flat indices.
        self.position = pool.position
        self.padded_size = pool.padded_size
        self.kernel_size = pool.kernel_size
        self.step = pool.step
        self.dilation = pool.dilation
        self.padding = pool.padding

    def forward(self, grad: Any, x: Any, indices: Any) -> Any:
        self.self_shape = x.shape
        grad = grad.reshape(self.position.shape)
        result = np.zeros(grad.shape[:1] + tuple(self.padded_size), grad.dtype)
        finite = bool(np.isfinite(grad).all())
        for k, kernel_position in enumerate(kernel_positions(self.kernel_size)):
            target = kernel_slices(kernel_position, grad.shape[1:], self.step, self.dilation)
            hit = self.position == k
            # A product is far faster than np.where, but inf * 0 would make a nan.
            result[(slice(None),) + target] += grad * hit if finite else np.where(hit, grad, 0)
        (ph, pw), (h, w) = self.padding, x.shape[-2:]
        return np.ascontiguousarray(result[:, ph : ph + h, pw : pw + w]).reshape(x.shape)

    def backward(self, grad: Any) -> Any:
        (indices,) = self.unpack()
        needs = self.needs_input_grad
        grad_grad = None
        if needs[0]:
            # torch's ``max_pool_double_backward``: a gather over each flattened plane.
            flat = tuple(indices.shape[:-2]) + (-1,)
            picked = grad.contiguous().view(flat).gather(-1, indices.view(flat))
            grad_grad = picked.view(indices.shape)
        grad_self = grad.new_zeros(self.self_shape) if needs[1] else None
        return grad_grad, grad_self, None


# ---------------------------------------------------------------- average pooling


def average_matrix(
    size: int,
    kernel: int,
    stride: int,
    padding: int,
    ceil_mode: bool,
    count_include_pad: bool,
    divide: bool,
) -> np.ndarray:
    """``(out, size)``: row ``o`` averages window ``o`` of a 1-d sweep (or only sums it,
    ``divide=False``), with torch's window clipping and divisor rules."""
    out = pooled_size(size, kernel, stride, padding, 1, ceil_mode)
    start = np.arange(out) * stride - padding
    end = np.minimum(start + kernel, size + padding)
    divisor = end - start
    start, end = np.maximum(start, 0), np.minimum(end, size)
    if not count_include_pad:
        divisor = end - start
    position = np.arange(size)
    inside = (position >= start[:, None]) & (position < end[:, None])
    return inside / divisor[:, None] if divide else inside.astype(np.float64)


def adaptive_matrix(size: int, out: int) -> np.ndarray:
    """``(out, size)``: row ``o`` averages ``[floor(o*size/out), ceil((o+1)*size/out))``."""
    o = np.arange(out)
    start = (o * size) // out
    end = -(-((o + 1) * size) // out)
    position = np.arange(size)
    inside = (position >= start[:, None]) & (position < end[:, None])
    return inside / (end - start)[:, None]


def separable(x: np.ndarray, rows: np.ndarray, cols: np.ndarray, scale: float) -> np.ndarray:
    """``rows @ x @ cols.T`` over the last two dims of ``x``, times ``scale``."""
    rows, cols = rows.astype(x.dtype), cols.astype(x.dtype)
    lead = x.shape[:-2]
    y = x.reshape(-1, x.shape[-1]) @ cols.T  # (..., H, Ow) as one matrix product
    y = np.tensordot(y.reshape((-1, x.shape[-2], cols.shape[0])), rows, axes=(1, 1))
    out = np.ascontiguousarray(y.transpose(0, 2, 1)).reshape(lead + y.shape[2:0:-1])
    if scale != 1:
        out *= scale
    return out


class AvgPool2D(Op):
    """The mean of each ``kernel_size`` window of the last two dims of ``self``, with
    torch's ``ceil_mode``, ``count_include_pad`` and ``divisor_override`` rules.

    ``stride`` is kept as given (``()``: the kernel size, torch's default).
    """

    input_names = ("self",)
    saves = ("self",)
    saved_attributes = (
        "ceil_mode",
        "count_include_pad",
        "divisor_override",
        "kernel_size",
        "padding",
        "stride",
    )

    def __init__(
        self,
        kernel_size: tuple[int, int],
        stride: tuple[int, ...],
        padding: tuple[int, int],
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: int | None,
    ) -> None:
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, x: Any) -> Any:
        divisor = self.divisor_override
        self.rows, self.cols = (
            average_matrix(n, k, s, p, self.ceil_mode, self.count_include_pad, divisor is None)
            for n, k, s, p in zip(
                x.shape[-2:], self.kernel_size, self.stride or self.kernel_size, self.padding
            )
        )
        self.scale = 1.0 if divisor is None else 1.0 / divisor
        return separable(x, self.rows, self.cols, self.scale)

    def backward(self, grad: Any) -> Any:
        (x,) = self.unpack()
        return grad._apply_op(AvgPool2DBackward(self), x)


class AvgPool2DBackward(Op):
    """torch's ``avg_pool2d_backward``: each window's gradient spread over it. Its
    gradient pools again; ``self`` gets zeros."""

    input_names = ("grad_output", "self")
    saved_attributes = AvgPool2D.saved_attributes

    def __init__(self, pool: AvgPool2D) -> None:
        self.pool = pool
        for name in self.saved_attributes:
            setattr(self, name, getattr(pool, name))

    def forward(self, grad: Any, x: Any) -> Any:
        self.self_shape = x.shape
        pool = self.pool
        return separable(grad, pool.rows.T, pool.cols.T, pool.scale)

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_grad = None
        if needs[0]:
            pool = self.pool
            repeat = AvgPool2D(
                pool.kernel_size,
                pool.stride,
                pool.padding,
                pool.ceil_mode,
                pool.count_include_pad,
                pool.divisor_override,
            )
            grad_grad = grad._apply_op(repeat)
        return grad_grad, grad.new_zeros(self.self_shape) if needs[1] else None


class AdaptiveAvgPool2D(Op):
    """Average pooling of the last two dims of ``self`` to ``output_size``: window ``i``
    of a dim covers ``[floor(i * size / out), ceil((i + 1) * size / out))``."""

    input_names = ("self",)
    saves = ("self",)

    def __init__(self, output_size: tuple[int, int]) -> None:
        self.output_size = output_size

    def forward(self, x: Any) -> Any:
        self.rows, self.cols = (
            adaptive_matrix(n, o) for n, o in zip(x.shape[-2:], self.output_size)
        )
        return separable(x, self.rows, self.cols, 1.0)

    def backward(self, grad: Any) -> Any:
        (x,) = self.unpack()
        return grad._apply_op(AdaptiveAvgPool2DBackward(self), x)


class AdaptiveAvgPool2DBackward(Op):
    """torch's ``_adaptive_avg_pool2d_backward``. Its gradient pools again (to the size
    of ``grad_output``); ``self`` gets zeros."""

    input_names = ("grad_output", "self")
    saved_attributes = ("grad_output_sym_argsize_minus_1", "grad_output_sym_argsize_minus_2")

    def __init__(self, pool: AdaptiveAvgPool2D) -> None:
        self.pool = pool
        self.grad_output_sym_argsize_minus_2, self.grad_output_sym_argsize_minus_1 = (
            pool.output_size
        )

    def forward(self, grad: Any, x: Any) -> Any:
        self.self_shape = x.shape
        return separable(grad, self.pool.rows.T, self.pool.cols.T, 1.0)

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_grad = None
        if needs[0]:
            grad_grad = grad._apply_op(AdaptiveAvgPool2D(self.pool.output_size))
        return grad_grad, grad.new_zeros(self.self_shape) if needs[1] else None
