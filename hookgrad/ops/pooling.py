"""Pooling ops: 2-d max pooling with indices, average pooling, adaptive average pooling.

Max pooling takes the first maximum of each window (torch's rule for ties; a NaN wins),
and its backward is itself an op whose backward gathers at the same indices.
Average pools are separable: ``out = A_h @ x @ A_w.T`` with one averaging matrix per
spatial dim, so their backward is two matrix products of the gradient.
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
    """The maximum of each ``kernel_size`` window of the last two dims of ``self``.

    After the forward, ``indices`` holds the position of each maximum, flattened over the
    input's (unpadded) plane, as torch's ``return_indices=True`` gives it.
    """

    input_names = ("self",)

    def __init__(
        self,
        kernel_size: tuple[int, int],
        stride: tuple[int, int],
        padding: tuple[int, int],
        dilation: tuple[int, int],
        ceil_mode: bool,
    ) -> None:
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode

    def forward(self, x: Any) -> Any:
        size = x.shape[-2:]
        out_size = tuple(
            pooled_size(*args, self.ceil_mode)
            for args in zip(size, self.kernel_size, self.stride, self.padding, self.dilation)
        )
        # Pad right far enough for the last (ceil-mode) window.
        extra = [
            max((o - 1) * s + d * (k - 1) + 1 - (n + 2 * p), 0)
            for o, s, d, k, n, p in zip(
                out_size, self.stride, self.dilation, self.kernel_size, size, self.padding
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
        self.input_shape = x.shape
        self.output_shape = x.shape[:-2] + out_size
        return best.reshape(self.output_shape)

    @property
    def indices(self) -> np.ndarray:
        """Each maximum's flat index in its (unpadded) input plane (computed on demand)."""
        (sh, sw), (ph, pw), (dh, dw) = self.stride, self.padding, self.dilation
        height, width = self.output_shape[-2:]
        row = self.input_shape[-1]
        offsets = np.array(
            [kh * dh * row + kw * dw for kh, kw in kernel_positions(self.kernel_size)]
        )
        base = (np.arange(height) * sh - ph)[:, None] * row + (np.arange(width) * sw - pw)
        return (base + offsets.take(self.position)).reshape(self.output_shape)

    def _window_max(self, planes: Any, out_size: tuple[int, ...], nan_aware: bool) -> Any:
        """The maximum of each window and its kernel position, one pass per position.

        A later value wins only if strictly greater (or, ``nan_aware``, NaN), so ties go to
        the first maximum and NaN to the last NaN, as in torch.
        """
        best = position = None
        for k, kernel_position in enumerate(kernel_positions(self.kernel_size)):
            target = kernel_slices(kernel_position, out_size, self.stride, self.dilation)
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
        return grad._apply_op(MaxPool2DWithIndicesBackward(self))


class MaxPool2DWithIndicesBackward(Op):
    """The gradient of max pooling: ``grad_output`` sent to each window's maximum; its own
    gradient gathers at the maxima."""

    input_names = ("grad_output",)

    def __init__(self, pool: MaxPool2DWithIndices) -> None:
        self.pool = pool
        self.position = pool.position
        self.padded_size = pool.padded_size
        self.input_shape = pool.input_shape
        self.kernel_size = pool.kernel_size
        self.stride = pool.stride
        self.dilation = pool.dilation
        self.padding = pool.padding

    def forward(self, grad: Any) -> Any:
        grad = grad.reshape(self.position.shape)
        result = np.zeros(grad.shape[:1] + tuple(self.padded_size), grad.dtype)
        finite = bool(np.isfinite(grad).all())
        for k, kernel_position in enumerate(kernel_positions(self.kernel_size)):
            target = kernel_slices(kernel_position, grad.shape[1:], self.stride, self.dilation)
            hit = self.position == k
            # A product is far faster than np.where, but inf * 0 would make a nan.
            result[(slice(None),) + target] += grad * hit if finite else np.where(hit, grad, 0)
        (ph, pw), (h, w) = self.padding, self.input_shape[-2:]
        return np.ascontiguousarray(result[:, ph : ph + h, pw : pw + w]).reshape(self.input_shape)

    def backward(self, grad: Any) -> Any:
        indices = self.pool.indices
        lead = indices.shape[:-2]
        plane = grad.reshape(lead + (-1,))
        index = grad.new_tensor(indices.reshape(lead + (-1,)), dtype=indices.dtype)
        picked = plane.gather(-1, index)
        return picked.reshape(indices.shape)


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


class SeparablePool(Op):
    """``rows @ self @ cols.T`` over the last two dims, times ``scale``: an average pool."""

    input_names = ("self",)

    def __init__(self, rows: np.ndarray, cols: np.ndarray, scale: float, node_name: str) -> None:
        self.rows = rows
        self.cols = cols
        self.scale = scale
        self.node_name = node_name

    def forward(self, x: Any) -> Any:
        rows, cols = self.rows.astype(x.dtype), self.cols.astype(x.dtype)
        lead = x.shape[:-2]
        y = x.reshape(-1, x.shape[-1]) @ cols.T  # (..., H, Ow) as one matrix product
        y = np.tensordot(y.reshape((-1, x.shape[-2], cols.shape[0])), rows, axes=(1, 1))
        out = np.ascontiguousarray(y.transpose(0, 2, 1)).reshape(lead + y.shape[2:0:-1])
        if self.scale != 1:
            out *= self.scale
        return out

    def backward(self, grad: Any) -> Any:
        rows = grad.new_tensor(self.rows)
        cols = grad.new_tensor(self.cols)
        result = rows.T.matmul(grad).matmul(cols)
        return result * self.scale if self.scale != 1 else result


def avg_pool2d_op(
    kernel_size: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
    size: tuple[int, int],
) -> SeparablePool:
    """The ``SeparablePool`` of ``avg_pool2d`` over a plane of ``size``."""
    divide = divisor_override is None
    rows, cols = (
        average_matrix(n, k, s, p, ceil_mode, count_include_pad, divide)
        for n, k, s, p in zip(size, kernel_size, stride, padding)
    )
    scale = 1.0 if divisor_override is None else 1.0 / divisor_override
    return SeparablePool(rows, cols, scale, "AvgPool2DBackward0")


def adaptive_avg_pool2d_op(size: tuple[int, int], out: tuple[int, int]) -> SeparablePool:
    """The ``SeparablePool`` of ``adaptive_avg_pool2d`` from ``size`` to ``out``."""
    rows, cols = (adaptive_matrix(n, o) for n, o in zip(size, out))
    return SeparablePool(rows, cols, 1.0, "AdaptiveAvgPool2DBackward0")
