"""Pooling ops over the last 1-3 dims: max pooling with indices, average pooling,
adaptive average and max pooling, fractional max pooling and max unpooling.

Max pooling takes the first maximum of each window (torch's rule for ties; a NaN wins, the
last NaN of a window). Its indices are flat positions in the input's (unpadded) plane or
volume, as torch's ``return_indices=True`` gives them. Regular windows are swept one kernel
position at a time over strided slices; windows of varying size or place (adaptive,
fractional) gather their elements through index arrays.

Average pools are separable: ``out = A_1 @ ... @ A_n x`` with one averaging matrix per
spatial dim, so their backward is the same products with the transposed matrices.

As in torch, each backward is itself an op (``MaxPool2DWithIndicesBackwardBackward0``
...), with edges to ``grad_output`` and ``self``: its gradient for ``grad_output`` pools
(or gathers at the maxima) again, and ``self`` gets zeros. Nodes are named by the number
of spatial dims (``MaxPool3DWithIndicesBackward0``, ``AdaptiveAvgPool3DBackward0`` ...).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
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


def _plane_strides(size: Sequence[int]) -> list[int]:
    """Row-major strides (in elements) of a plane or volume of ``size``."""
    return [int(np.prod(size[d + 1 :])) for d in range(len(size))]


def _low(dtype: np.dtype) -> Any:
    """The value padding never wins a maximum with."""
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# ---------------------------------------------------------------- max pooling


class MaxPoolWithIndices(Op):
    """The maximum of each ``kernel_size`` window of the last 1-3 dims of ``self``, and
    (second output, int64, without history) its flat index in the input's (unpadded)
    plane, as torch's ``return_indices=True`` gives it.

    ``stride`` is kept as given (``()``: the kernel size, torch's default).
    """

    node_name = "MaxPool2DWithIndicesBackward0"
    input_names = ("self",)
    saves = ("self", "result1")
    saved_attributes = ("ceil_mode", "dilation", "kernel_size", "padding", "stride")
    differentiable_outputs = 1

    def __init__(
        self,
        kernel_size: tuple[int, ...],
        stride: tuple[int, ...],
        padding: tuple[int, ...],
        dilation: tuple[int, ...],
        ceil_mode: bool,
    ) -> None:
        self.nd = len(kernel_size)
        self.node_name = f"MaxPool{self.nd}DWithIndicesBackward0"
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode
        self.step = stride or kernel_size

    def forward(self, x: Any) -> Any:
        size = x.shape[x.ndim - self.nd :]
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
        planes = x.reshape((-1,) + size)
        if any(self.padding) or any(extra):
            pad = [(0, 0)] + [(p, p + e) for p, e in zip(self.padding, extra)]
            planes = np.pad(planes, pad, constant_values=_low(x.dtype))
        best, position = self._window_max(planes, out_size, nan_aware=False)
        if best.dtype.kind == "f" and np.isnan(best).any():  # NaN propagates into best
            best, position = self._window_max(planes, out_size, nan_aware=True)
        self.position = position
        self.padded_size = planes.shape[1:]
        shape = x.shape[: x.ndim - self.nd] + out_size
        return best.reshape(shape), self._indices(position, size).reshape(shape)

    def _indices(self, position: np.ndarray, size: tuple[int, ...]) -> np.ndarray:
        """Each window's maximum (its kernel ``position``) as a flat index into its plane."""
        strides = _plane_strides(size)
        offsets = np.array(
            [
                sum(k * d * s for k, d, s in zip(kernel, self.dilation, strides))
                for kernel in kernel_positions(self.kernel_size)
            ]
        )
        base = np.zeros(position.shape[1:], np.int64)
        for axis, (o, s, p, stride) in enumerate(
            zip(position.shape[1:], self.step, self.padding, strides)
        ):
            shape = [1] * self.nd
            shape[axis] = o
            base = base + ((np.arange(o) * s - p) * stride).reshape(shape)
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
        return grad._apply_op(MaxPoolWithIndicesBackward(self), x, indices)


def max_pool_double_backward(grad: Any, indices: Any, nd: int) -> Any:
    """torch's ``max_pool_double_backward``: ``grad`` (the input's shape) gathered at each
    window's maximum, as a view, a gather and a view of tensors."""
    flat = tuple(indices.shape[: indices.dim() - nd]) + (-1,)
    picked = grad.contiguous().view(flat).gather(-1, indices.view(flat))
    return picked.view(indices.shape)


def scatter_planes(values: np.ndarray, indices: np.ndarray, plane: tuple[int, ...]) -> Any:
    """``values`` summed into zero planes of size ``plane`` at the flat ``indices`` (same
    shape as ``values``: leading dims, then the dims of one plane of values)."""
    nd = len(plane)
    lead = values.shape[: values.ndim - nd]
    count, size = int(np.prod(lead)), int(np.prod(plane))
    flat = indices.reshape(count, -1) + (np.arange(count) * size)[:, None]
    summed = np.bincount(flat.reshape(-1), values.reshape(-1), count * size)
    return summed.astype(values.dtype).reshape(lead + plane)


class IndexedMaxBackward(Op):
    """The backward of a max pool whose indices say where each maximum came from
    (torch's ``adaptive_max_pool2d_backward``, ``fractional_max_pool3d_backward`` ...):
    ``grad_output`` summed onto ``self``'s shape at ``indices``. Its gradient gathers at
    the maxima; ``self`` gets zeros."""

    input_names = ("grad_output", "self", "indices")
    non_differentiable = ("indices",)
    saves = ("indices",)

    def __init__(self, name: str, nd: int) -> None:
        self.nd = nd
        self.node_name = f"{name}BackwardBackward0"

    def forward(self, grad: Any, x: Any, indices: Any) -> Any:
        self.self_shape = x.shape
        return scatter_planes(grad, indices, x.shape[x.ndim - self.nd :])

    def backward(self, grad: Any) -> Any:
        (indices,) = self.unpack()
        needs = self.needs_input_grad
        grad_grad = max_pool_double_backward(grad, indices, self.nd) if needs[0] else None
        grad_self = grad.new_zeros(self.self_shape) if needs[1] else None
        return grad_grad, grad_self, None


class MaxPoolWithIndicesBackward(IndexedMaxBackward):
    """torch's ``max_pool2d_with_indices_backward`` (and 3-d): ``grad_output`` sent to each
    window's maximum, one strided slice per kernel position."""

    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    def __init__(self, pool: MaxPoolWithIndices) -> None:
        super().__init__(f"MaxPool{pool.nd}DWithIndices", pool.nd)
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
        size = x.shape[x.ndim - self.nd :]
        inside = tuple(slice(p, p + n) for p, n in zip(self.padding, size))
        return np.ascontiguousarray(result[(slice(None),) + inside]).reshape(x.shape)


def window_max(planes: np.ndarray, positions: Sequence[np.ndarray]) -> tuple[Any, Any]:
    """The maximum of windows given by their elements: ``positions[d]`` ``(P or 1, out_d,
    k_d)`` lists, for each output position along dim ``d``, the input positions its window
    covers (a short window repeats its last one). Returns the maxima ``(P, *out)`` and their
    flat indices in each plane of ``planes`` ``(P, *size)``, by torch's rule."""
    nd = len(positions)
    strides = _plane_strides(planes.shape[1:])
    plane = np.arange(planes.shape[0]).reshape((-1,) + (1,) * nd)
    best = best_index = None
    for taps in itertools.product(*(range(p.shape[-1]) for p in positions)):
        index = []
        for d, (p, k) in enumerate(zip(positions, taps)):
            shape = [p.shape[0]] + [1] * nd
            shape[1 + d] = p.shape[1]
            index.append(p[..., k].reshape(shape))
        values = planes[(plane, *index)]
        flat = sum(i * s for i, s in zip(index, strides))
        if best is None:
            best = values.copy()
            best_index = np.broadcast_to(flat, values.shape).astype(np.int64)
            continue
        better = values > best
        if values.dtype.kind == "f":
            better |= np.isnan(values)
        best = np.where(better, values, best)
        best_index = np.where(better, flat, best_index)
    return best, best_index


def adaptive_windows(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """Window ``o`` of an adaptive pool of ``size`` to ``out``: ``[floor(o * size / out),
    ceil((o + 1) * size / out))``, as ``(start, end)`` arrays."""
    o = np.arange(out)
    return (o * size) // out, -(-((o + 1) * size) // out)


def _adaptive_positions(size: int, out: int) -> np.ndarray:
    """``(1, out, width)``: the input positions of each adaptive window."""
    start, end = adaptive_windows(size, out)
    width = int((end - start).max()) if out else 1
    return np.minimum(start[:, None] + np.arange(width), end[:, None] - 1)[None]


class AdaptiveMaxPool(Op):
    """The maximum of adaptive windows of the last 2 or 3 dims of ``self`` (window ``i``
    of a dim covers ``[floor(i * size / out), ceil((i + 1) * size / out))``) and its flat
    index (second output, int64, without history)."""

    node_name = "AdaptiveMaxPool2DBackward0"
    input_names = ("self",)
    saves = ("self", "result1")
    differentiable_outputs = 1

    def __init__(self, output_size: tuple[int, ...]) -> None:
        self.output_size = output_size
        self.nd = len(output_size)
        self.node_name = f"AdaptiveMaxPool{self.nd}DBackward0"

    def forward(self, x: Any) -> Any:
        size = x.shape[x.ndim - self.nd :]
        positions = [_adaptive_positions(n, o) for n, o in zip(size, self.output_size)]
        best, index = window_max(x.reshape((-1,) + size), positions)
        shape = x.shape[: x.ndim - self.nd] + self.output_size
        return best.reshape(shape), index.reshape(shape)

    def backward(self, grad: Any) -> Any:
        x, indices = self.unpack()
        backward = IndexedMaxBackward(f"AdaptiveMaxPool{self.nd}D", self.nd)
        return grad._apply_op(backward, x, indices)


def fractional_starts(sample: np.ndarray, size: int, out: int, pool: int) -> np.ndarray:
    """torch's ``generate_intervals``: the pseudo-random window starts of a fractional max
    pool, one row per plane (``sample``: its uniform draw for this dim, in the input's
    dtype, so that the products round as torch's do)."""
    sample = sample[:, None]
    starts = np.empty((sample.shape[0], out), np.int64)
    if out > 1:
        alpha = sample.dtype.type(size - pool) / sample.dtype.type(out - 1)
        steps = np.arange(out - 1).astype(sample.dtype)
        starts[:, :-1] = ((steps + sample) * alpha).astype(np.int64) - (sample * alpha).astype(
            np.int64
        )
    if out > 0:
        starts[:, -1] = size - pool
    return starts


class FractionalMaxPool(Op):
    """Fractional max pooling (Graham, 2014) of the last 2 or 3 dims of ``self``: windows
    of ``kernel_size`` at pseudo-random starts drawn from ``samples`` ``(N, C, nd)`` (one
    uniform number per plane and dim), to ``output_size``; second output: flat indices."""

    node_name = "FractionalMaxPool2DBackward0"
    input_names = ("self",)
    saves = ("self", "result1")
    saved_attributes = ("kernel_size", "output_size")
    differentiable_outputs = 1

    def __init__(
        self, kernel_size: tuple[int, ...], output_size: tuple[int, ...], samples: np.ndarray
    ) -> None:
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.samples = samples
        self.nd = len(kernel_size)
        self.node_name = f"FractionalMaxPool{self.nd}DBackward0"

    def forward(self, x: Any) -> Any:
        size = x.shape[x.ndim - self.nd :]
        samples = self.samples.reshape(-1, self.nd).astype(x.dtype)
        # torch pairs the samples with the dims from the last one for 2-d, in order for 3-d.
        order = (1, 0) if self.nd == 2 else (0, 1, 2)
        positions = [
            fractional_starts(samples[:, order[d]], n, o, k)[:, :, None] + np.arange(k)
            for d, (n, o, k) in enumerate(zip(size, self.output_size, self.kernel_size))
        ]
        best, index = window_max(x.reshape((-1,) + size), positions)
        shape = x.shape[: x.ndim - self.nd] + self.output_size
        return best.reshape(shape), index.reshape(shape)

    def backward(self, grad: Any) -> Any:
        x, indices = self.unpack()
        backward = IndexedMaxBackward(f"FractionalMaxPool{self.nd}D", self.nd)
        return grad._apply_op(backward, x, indices)


class MaxUnpool(Op):
    """torch's ``max_unpool2d`` / ``max_unpool3d``: each value of ``self`` written at its
    flat ``indices`` in zero planes of ``output_size`` (a partial inverse of a max pool).
    Its gradient gathers at ``indices``."""

    node_name = "MaxUnpool2DBackward0"
    input_names = ("self", "indices")
    non_differentiable = ("indices",)
    saves = ("indices",)

    def __init__(self, output_size: tuple[int, ...]) -> None:
        self.output_size = output_size
        self.nd = len(output_size)
        self.node_name = f"MaxUnpool{self.nd}DBackward0"

    def forward(self, x: Any, indices: Any) -> Any:
        lead = x.shape[: x.ndim - self.nd]
        count, size = int(np.prod(lead)), int(np.prod(self.output_size))
        out = np.zeros((count, size), x.dtype)
        out[np.arange(count)[:, None], indices.reshape(count, -1)] = x.reshape(count, -1)
        return out.reshape(lead + self.output_size)

    def backward(self, grad: Any) -> Any:
        (indices,) = self.unpack()
        return max_pool_double_backward(grad, indices, self.nd), None


# ---------------------------------------------------------------- average pooling


def average_windows(
    size: int, kernel: int, stride: int, padding: int, ceil_mode: bool, count_include_pad: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The windows of a 1-d average pool: ``(out, size)`` membership and each window's
    divisor, with torch's window clipping and divisor rules."""
    out = pooled_size(size, kernel, stride, padding, 1, ceil_mode)
    start = np.arange(out) * stride - padding
    end = np.minimum(start + kernel, size + padding)
    divisor = end - start
    start, end = np.maximum(start, 0), np.minimum(end, size)
    if not count_include_pad:
        divisor = end - start
    position = np.arange(size)
    return (position >= start[:, None]) & (position < end[:, None]), divisor


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
    ``divide=False``)."""
    inside, divisor = average_windows(size, kernel, stride, padding, ceil_mode, count_include_pad)
    return inside / divisor[:, None] if divide else inside.astype(np.float64)


def adaptive_matrix(size: int, out: int) -> np.ndarray:
    """``(out, size)``: row ``o`` averages ``[floor(o*size/out), ceil((o+1)*size/out))``."""
    start, end = adaptive_windows(size, out)
    position = np.arange(size)
    inside = (position >= start[:, None]) & (position < end[:, None])
    return inside / (end - start)[:, None]


def separable(x: np.ndarray, matrices: Sequence[np.ndarray], scale: float) -> np.ndarray:
    """Matrix ``matrices[d]`` applied along each of the last ``len(matrices)`` dims of
    ``x`` (``A_1 @ ... @ A_n x``), times ``scale``."""
    nd = len(matrices)
    matrices = [m.astype(x.dtype) for m in matrices]
    lead, size = x.shape[: x.ndim - nd], x.shape[x.ndim - nd :]
    # The last dim as one matrix product, each other one as a tensordot.
    y = x.reshape(-1, size[-1]) @ matrices[-1].T
    y = y.reshape((-1,) + size[:-1] + (matrices[-1].shape[0],))
    for axis in range(nd - 2, -1, -1):
        y = np.moveaxis(np.tensordot(y, matrices[axis], axes=(axis + 1, 1)), -1, axis + 1)
    out = np.ascontiguousarray(y).reshape(lead + y.shape[1:])
    if scale != 1:
        out *= scale
    return out


class AvgPool(Op):
    """The mean of each ``kernel_size`` window of the last 2 or 3 dims of ``self``, with
    torch's ``ceil_mode``, ``count_include_pad`` and ``divisor_override`` rules.

    ``stride`` is kept as given (``()``: the kernel size, torch's default).
    """

    node_name = "AvgPool2DBackward0"
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
        kernel_size: tuple[int, ...],
        stride: tuple[int, ...],
        padding: tuple[int, ...],
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
        self.nd = len(kernel_size)
        self.node_name = f"AvgPool{self.nd}DBackward0"

    def forward(self, x: Any) -> Any:
        if x.dtype.kind in "iu":
            return self._integer_forward(x)
        divisor = self.divisor_override
        self.matrices = [
            average_matrix(n, k, s, p, self.ceil_mode, self.count_include_pad, divisor is None)
            for n, k, s, p in zip(
                x.shape[x.ndim - self.nd :],
                self.kernel_size,
                self.stride or self.kernel_size,
                self.padding,
            )
        ]
        self.scale = 1.0 if divisor is None else 1.0 / divisor
        return separable(x, self.matrices, self.scale)

    def _integer_forward(self, x: np.ndarray) -> np.ndarray:
        """Integer inputs as torch's kernel: each window's exact sum divided by its
        divisor, truncated toward zero."""
        sizes = x.shape[x.ndim - self.nd :]
        args = zip(sizes, self.kernel_size, self.stride or self.kernel_size, self.padding)
        sums, divisor = [], np.ones((), np.int64)
        for axis, (n, k, s, p) in enumerate(args):
            inside, counts = average_windows(n, k, s, p, self.ceil_mode, self.count_include_pad)
            sums.append(inside.astype(np.int64))
            shape = [1] * self.nd
            shape[axis] = len(counts)
            divisor = divisor * counts.reshape(shape)
        total = separable(x.astype(np.int64), sums, 1)
        if self.divisor_override is not None:
            divisor = np.int64(self.divisor_override)
        return (np.sign(total) * (np.abs(total) // divisor)).astype(x.dtype)

    def backward(self, grad: Any) -> Any:
        (x,) = self.unpack()
        return grad._apply_op(AvgPoolBackward(self), x)


class AvgPoolBackward(Op):
    """torch's ``avg_pool2d_backward`` (and 3-d): each window's gradient spread over it.
    Its gradient pools again; ``self`` gets zeros."""

    node_name = "AvgPool2DBackwardBackward0"
    input_names = ("grad_output", "self")
    saved_attributes = AvgPool.saved_attributes

    def __init__(self, pool: AvgPool) -> None:
        self.pool = pool
        self.node_name = f"AvgPool{pool.nd}DBackwardBackward0"
        for name in self.saved_attributes:
            setattr(self, name, getattr(pool, name))

    def forward(self, grad: Any, x: Any) -> Any:
        self.self_shape = x.shape
        pool = self.pool
        return separable(grad, [m.T for m in pool.matrices], pool.scale)

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_grad = None
        if needs[0]:
            pool = self.pool
            repeat = AvgPool(
                pool.kernel_size,
                pool.stride,
                pool.padding,
                pool.ceil_mode,
                pool.count_include_pad,
                pool.divisor_override,
            )
            grad_grad = grad._apply_op(repeat)
        return grad_grad, grad.new_zeros(self.self_shape) if needs[1] else None


class AdaptiveAvgPool(Op):
    """Average pooling of the last 2 or 3 dims of ``self`` to ``output_size``: window
    ``i`` of a dim covers ``[floor(i * size / out), ceil((i + 1) * size / out))``."""

    node_name = "AdaptiveAvgPool2DBackward0"
    input_names = ("self",)
    saves = ("self",)

    def __init__(self, output_size: tuple[int, ...]) -> None:
        self.output_size = output_size
        self.nd = len(output_size)
        self.node_name = f"AdaptiveAvgPool{self.nd}DBackward0"

    def forward(self, x: Any) -> Any:
        self.matrices = [
            adaptive_matrix(n, o) for n, o in zip(x.shape[x.ndim - self.nd :], self.output_size)
        ]
        return separable(x, self.matrices, 1.0)

    def backward(self, grad: Any) -> Any:
        (x,) = self.unpack()
        return grad._apply_op(AdaptiveAvgPoolBackward(self), x)


class AdaptiveAvgPoolBackward(Op):
    """torch's ``_adaptive_avg_pool2d_backward`` (and 3-d). Its gradient pools again (to
    the size of ``grad_output``); ``self`` gets zeros."""

    node_name = "AdaptiveAvgPool2DBackwardBackward0"
    input_names = ("grad_output", "self")

    def __init__(self, pool: AdaptiveAvgPool) -> None:
        self.pool = pool
        self.node_name = f"AdaptiveAvgPool{pool.nd}DBackwardBackward0"
        # torch shows the output size as ``grad_output_sym_argsize_minus_<k>``.
        self.saved_attributes = tuple(
            f"grad_output_sym_argsize_minus_{k}" for k in range(1, pool.nd + 1)
        )
        for k, size in enumerate(reversed(pool.output_size), 1):
            setattr(self, f"grad_output_sym_argsize_minus_{k}", size)

    def forward(self, grad: Any, x: Any) -> Any:
        self.self_shape = x.shape
        return separable(grad, [m.T for m in self.pool.matrices], 1.0)

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_grad = None
        if needs[0]:
            grad_grad = grad._apply_op(AdaptiveAvgPool(self.pool.output_size))
        return grad_grad, grad.new_zeros(self.self_shape) if needs[1] else None
