"""Convolution ops: N-d convolution and transposed convolution (torch's one
``ConvolutionBackward0`` node for both), with groups, stride, padding and dilation.

Forward: im2col through a strided window view (``sliding_window_view``) and one batched
matrix product per call (groups are a batch axis of that product). A transposed
convolution multiplies first and then scatter-adds one strided slice per kernel position.

Backward, written with these same ops so that ``create_graph=True`` works:
    grad_input  = conv_transpose(grad, weight)       (of a convolution; and vice versa)
    grad_weight = conv(input with batch and channels swapped, grad as the kernel),
                  with stride and dilation exchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from hookgrad.ops.base import Op

# ---------------------------------------------------------------- array kernels


def windows(
    x: np.ndarray, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int]
) -> np.ndarray:
    """A view ``(N, C, *out, *kernel)`` of every (strided, dilated) window of ``x``
    (shape ``(N, C, *spatial)``, already padded)."""
    nd = len(kernel)
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    view = sliding_window_view(x, span, axis=tuple(range(2, 2 + nd)))
    steps = tuple(slice(None, None, s) for s in stride)
    dilate = tuple(slice(None, None, d) for d in dilation)
    return view[(slice(None), slice(None)) + steps + dilate]


def kernel_slices(
    position: Sequence[int],
    out_size: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
) -> tuple[slice, ...]:
    """The strided slices of a (padded) input that kernel ``position`` meets over all
    ``out_size`` window positions: ``windows(x)[..., *position]`` is ``x[..., *slices]``."""
    return tuple(
        slice(k * d, k * d + (o - 1) * s + 1, s)
        for k, d, o, s in zip(position, dilation, out_size, stride)
    )


def kernel_positions(kernel: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every position of a kernel, in row-major order."""
    return itertools.product(*(range(k) for k in kernel))


def _pad(x: np.ndarray, padding: Sequence[int], value: float = 0.0) -> np.ndarray:
    if not any(padding):
        return x
    return np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding], constant_values=value)


def _batched_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` over a leading groups axis, always through BLAS."""
    if a.shape[0] == 1:
        return (a[0] @ b[0])[None]
    # NOTE: NumPy's stacked matmul leaves BLAS (for a loop ~1000x slower) when an operand
    # is a transposed view; a copy is far cheaper.
    return np.matmul(np.ascontiguousarray(a), np.ascontiguousarray(b))


def _channels_first(out: np.ndarray) -> np.ndarray:
    """``(groups, N, *S, C_g)`` as a contiguous ``(N, groups * C_g, *S)``."""
    # NOTE: a channel-last view would save this copy, but the elementwise ops that follow
    # (relu and its backward, mixing it with contiguous gradients) then run slower.
    out = np.moveaxis(out, -1, 2).swapaxes(0, 1)
    return np.ascontiguousarray(out).reshape((out.shape[0], -1) + out.shape[3:])


def conv_forward(
    x: np.ndarray,
    w: np.ndarray,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> np.ndarray:
    """``x (N, C, *S)`` convolved (cross-correlated) with ``w (O, C/groups, *K)``."""
    nd = x.ndim - 2
    kernel = w.shape[2:]
    win = windows(_pad(x, padding), kernel, stride, dilation)
    n, c = x.shape[:2]
    out_size = win.shape[2 : 2 + nd]
    cg, og = c // groups, w.shape[0] // groups
    win = win.reshape((n, groups, cg) + out_size + kernel)
    spatial, taps = tuple(range(3, 3 + nd)), tuple(range(3 + nd, 3 + 2 * nd))
    if int(np.prod(kernel)) <= int(np.prod(out_size)):
        # Many small windows (a layer's forward): per sample, weight @ columns, whose
        # copy moves whole rows of the input and whose product is already (N, O, *out).
        cols = np.ascontiguousarray(win.transpose((0, 1, 2) + taps + spatial))
        cols = cols.reshape(n, groups, cg * int(np.prod(kernel)), -1)
        out = np.matmul(np.ascontiguousarray(w).reshape(groups, og, -1), cols)
        return out.reshape((n, groups * og) + out_size)
    # Few large windows (a weight gradient): one product with rows of windows.
    cols = win.transpose((1, 0) + spatial + (2,) + taps)
    cols = cols.reshape(groups, -1, cg * int(np.prod(kernel)))
    out = _batched_matmul(cols, w.reshape(groups, og, -1).transpose(0, 2, 1))
    return _channels_first(out.reshape((groups, n) + out_size + (og,)))


def conv_transpose_forward(
    x: np.ndarray,
    w: np.ndarray,
    stride: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> np.ndarray:
    """``x (N, C, *S)`` transposed-convolved with ``w (C, O/groups, *K)``: one matrix
    product, then each kernel position's products added into a strided slice."""
    kernel = w.shape[2:]
    n, c = x.shape[:2]
    in_size = x.shape[2:]
    cg, og = c // groups, w.shape[1]
    wt = w.reshape(groups, cg, -1).transpose(0, 2, 1)  # (groups, og * K, cg)
    xm = x.reshape(n, groups, cg, -1).transpose(1, 2, 0, 3).reshape(groups, cg, -1)
    cols = _batched_matmul(wt, xm)  # (groups, og * K, N * S)
    cols = cols.reshape((groups, og) + kernel + (n,) + in_size)
    full = tuple(
        (i - 1) * s + d * (k - 1) + 1 + op
        for i, s, d, k, op in zip(in_size, stride, dilation, kernel, output_padding)
    )
    result = np.zeros((groups, og, n) + full, cols.dtype)
    lead = (slice(None),) * 3
    for position in kernel_positions(kernel):
        target = kernel_slices(position, in_size, stride, dilation)
        result[lead + target] += cols[(slice(None), slice(None)) + position]
    result = result[lead + tuple(slice(p, f - p) for p, f in zip(padding, full))]
    result = np.ascontiguousarray(np.moveaxis(result, 2, 0))  # (N, groups, og, *out)
    return result.reshape((n, groups * og) + result.shape[3:])


# ---------------------------------------------------------------- the op


class Convolution(Op):
    """Convolution or transposed convolution of ``input`` with ``weight`` (+ ``bias``)."""

    node_name = "ConvolutionBackward0"
    input_names = ("input", "weight", "bias")
    saves = ("input", "weight")
    saved_for = {"input": ("weight",), "weight": ("input",)}

    def __init__(
        self,
        stride: tuple[int, ...],
        padding: tuple[int, ...],
        dilation: tuple[int, ...],
        transposed: bool,
        output_padding: tuple[int, ...],
        groups: int,
    ) -> None:
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups

    def forward(self, x: Any, w: Any, b: Any) -> Any:
        self.input_size = x.shape[2:]
        self.kernel_size = w.shape[2:]
        if self.transposed:
            out = conv_transpose_forward(
                x, w, self.stride, self.padding, self.output_padding, self.dilation, self.groups
            )
        else:
            out = conv_forward(x, w, self.stride, self.padding, self.dilation, self.groups)
        if b is not None:
            out += b.reshape((-1,) + (1,) * (x.ndim - 2))
        return out

    def backward(self, grad: Any) -> Any:
        x, w = self.unpack()
        needs = self.needs_input_grad
        grad_x = grad_w = grad_b = None
        if self.transposed:
            if needs[0]:
                grad_x = convolution(
                    grad,
                    w,
                    None,
                    self.stride,
                    self.padding,
                    self.dilation,
                    False,
                    (0,) * len(self.stride),
                    self.groups,
                )
            if needs[1]:
                grad_w = _weight_grad(grad, x, self)
        else:
            if needs[0]:
                output_padding = tuple(
                    size + 2 * p - ((o - 1) * s + d * (k - 1) + 1)
                    for size, p, o, s, d, k in zip(
                        self.input_size,
                        self.padding,
                        grad.shape[2:],
                        self.stride,
                        self.dilation,
                        self.kernel_size,
                    )
                )
                grad_x = convolution(
                    grad,
                    w,
                    None,
                    self.stride,
                    self.padding,
                    self.dilation,
                    True,
                    output_padding,
                    self.groups,
                )
            if needs[1]:
                grad_w = _weight_grad(x, grad, self)
        if needs[2]:
            grad_b = grad.sum((0,) + tuple(range(2, grad.dim())))
        return grad_x, grad_w, grad_b


def _weight_grad(x: Any, grad: Any, op: Convolution) -> Any:
    """d(sum(grad * conv(x, w))) / dw: a convolution of ``x`` (batch and channels swapped)
    with ``grad`` as the kernel, stride and dilation exchanged, cut to the kernel's size."""
    groups = op.groups
    n, c = x.shape[:2]
    o = grad.shape[1]
    spatial = tuple(x.shape[2:])
    nd = len(spatial)
    if groups == 1:  # plain transposes: views, copied once by the im2col
        xt, gt = x.transpose(0, 1), grad.transpose(0, 1)
    else:
        rest = tuple(range(3, 3 + nd))
        xt = x.reshape((n, groups, c // groups) + spatial).permute((2, 1, 0) + rest)
        xt = xt.reshape((c // groups, groups * n) + spatial)
        gt = grad.reshape((n, groups, o // groups) + tuple(grad.shape[2:]))
        gt = gt.permute((1, 2, 0) + rest).reshape((o, n) + tuple(grad.shape[2:]))
    result = convolution(xt, gt, None, op.dilation, op.padding, op.stride, False, (0,) * nd, groups)
    if tuple(result.shape[2:]) != tuple(op.kernel_size):
        result = result[(slice(None), slice(None)) + tuple(slice(k) for k in op.kernel_size)]
    return result.transpose(0, 1)


def convolution(
    x: Any,
    w: Any,
    b: Any,
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    transposed: bool,
    output_padding: tuple[int, ...],
    groups: int,
) -> Any:
    """Apply ``Convolution`` to tensors (arguments already checked)."""
    op = Convolution(stride, padding, dilation, transposed, output_padding, groups)
    return x._apply_op(op, w, b)
