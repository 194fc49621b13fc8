"""Convolution ops: N-d convolution and transposed convolution (torch's one
``ConvolutionBackward0`` node for both), with groups, stride, padding and dilation, and
their backward, ``convolution_backward`` (node ``ConvolutionBackwardBackward0``).

Forward: im2col through a strided window view (``sliding_window_view``) and one batched
matrix product per call (groups are a batch axis of that product). A transposed
convolution multiplies first and then scatter-adds one strided slice per kernel position.

Backward, with these same kernels:
    grad_input  = conv_transpose(grad, weight)       (of a convolution; and vice versa)
    grad_weight = conv(input with batch and channels swapped, grad as the kernel),
                  with stride and dilation exchanged.
The backward is itself an op, as in torch, so a ``create_graph=True`` gradient records
``ConvolutionBackwardBackward0``; its backward (torch's ``_convolution_double_backward``)
is made of convolutions and convolution backwards on tensors.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from hookgrad.ops.base import Op
from hookgrad.ops.util import unrequested

# ``(stride, padding, dilation, transposed, output_padding, groups)``: torch's arguments.
ConvParams = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], bool, tuple[int, ...], int]

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


def pad_spatial(x: np.ndarray, padding: Sequence[int], value: float = 0.0) -> np.ndarray:
    """``x`` with ``padding`` values on both sides of each spatial dim."""
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
    return np.ascontiguousarray(out).reshape(
        (out.shape[0], out.shape[1] * out.shape[2]) + out.shape[3:]
    )


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
    win = windows(pad_spatial(x, padding), kernel, stride, dilation)
    n, c = x.shape[:2]
    out_size = win.shape[2 : 2 + nd]
    cg, og = c // groups, w.shape[0] // groups
    win = win.reshape((n, groups, cg) + out_size + kernel)
    spatial, taps = tuple(range(3, 3 + nd)), tuple(range(3 + nd, 3 + 2 * nd))
    if int(np.prod(kernel)) <= int(np.prod(out_size)):
        # Many small windows (a layer's forward): per sample, weight @ columns, whose
        # copy moves whole rows of the input and whose product is already (N, O, *out).
        cols = np.ascontiguousarray(win.transpose((0, 1, 2) + taps + spatial))
        cols = cols.reshape(n, groups, cg * int(np.prod(kernel)), int(np.prod(out_size)))
        out = np.matmul(np.ascontiguousarray(w).reshape(groups, og, -1), cols)
        return out.reshape((n, groups * og) + out_size)
    # Few large windows (a weight gradient): one product with rows of windows.
    cols = win.transpose((1, 0) + spatial + (2,) + taps)
    cols = cols.reshape(groups, n * int(np.prod(out_size)), cg * int(np.prod(kernel)))
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
    size = int(np.prod(in_size))
    xm = x.reshape(n, groups, cg, size).transpose(1, 2, 0, 3).reshape(groups, cg, n * size)
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


def conv_input_grad(
    grad: np.ndarray, w: np.ndarray, input_size: Sequence[int], params: ConvParams
) -> np.ndarray:
    """The gradient of ``input`` (spatial size ``input_size``) of a (transposed)
    convolution with ``w``, from the gradient of its output."""
    stride, padding, dilation, transposed, _, groups = params
    if transposed:
        return conv_forward(grad, w, stride, padding, dilation, groups)
    # The transposed convolution that undoes the forward's rounding: the rows the windows
    # never reached come back as output padding.
    output_padding = tuple(
        size + 2 * p - ((o - 1) * s + d * (k - 1) + 1)
        for size, p, o, s, d, k in zip(
            input_size, padding, grad.shape[2:], stride, dilation, w.shape[2:]
        )
    )
    return conv_transpose_forward(grad, w, stride, padding, output_padding, dilation, groups)


def conv_weight_grad(
    x: np.ndarray, grad: np.ndarray, kernel_size: Sequence[int], params: ConvParams
) -> np.ndarray:
    """The gradient of the weight (spatial size ``kernel_size``) of a (transposed)
    convolution of ``x``, from the gradient of its output."""
    stride, padding, dilation, transposed, _, groups = params
    if transposed:
        # ``convT(x, w)`` is the input gradient of ``conv(., w)``: the roles swap.
        x, grad = grad, x
    n, c = x.shape[:2]
    o = grad.shape[1]
    if n == 0:
        return np.zeros((o, c // groups) + tuple(kernel_size), grad.dtype)
    spatial, grad_spatial = tuple(x.shape[2:]), tuple(grad.shape[2:])
    # A convolution of ``x`` (batch and channels swapped) with ``grad`` as the kernel, stride
    # and dilation exchanged, cut to the kernel's size.
    if groups == 1:
        xt, gt = x.swapaxes(0, 1), grad.swapaxes(0, 1)
    else:
        rest = tuple(range(3, 3 + len(spatial)))
        xt = x.reshape((n, groups, c // groups) + spatial).transpose((2, 1, 0) + rest)
        xt = xt.reshape((c // groups, groups * n) + spatial)
        gt = grad.reshape((n, groups, o // groups) + grad_spatial).transpose((1, 2, 0) + rest)
        gt = gt.reshape((o, n) + grad_spatial)
    result = conv_forward(xt, gt, dilation, padding, stride, groups)
    if tuple(result.shape[2:]) != tuple(kernel_size):
        result = result[(slice(None), slice(None)) + tuple(slice(k) for k in kernel_size)]
    return np.ascontiguousarray(result.swapaxes(0, 1))


# ---------------------------------------------------------------- the ops


class _ConvolutionParams(Op):
    """The arguments both convolution nodes show as ``_saved_<name>``."""

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

    @property
    def params(self) -> ConvParams:
        return (
            self.stride,
            self.padding,
            self.dilation,
            self.transposed,
            self.output_padding,
            self.groups,
        )


class Convolution(_ConvolutionParams):
    """Convolution or transposed convolution of ``input`` with ``weight`` (+ ``bias``)."""

    node_name = "ConvolutionBackward0"
    input_names = ("input", "weight", "bias")
    saves = ("input", "weight")
    saved_attributes = (
        "bias_sym_sizes_opt",
        "dilation",
        "groups",
        "output_padding",
        "padding",
        "stride",
        "transposed",
    )

    def forward(self, x: Any, w: Any, b: Any) -> Any:
        # torch shows the size of a missing bias as (0,).
        self.bias_sym_sizes_opt = (0,) if b is None else b.shape
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
        mask = self.needs_input_grad
        grads = grad._apply_op(ConvolutionBackward(*self.params, output_mask=mask), x, w)
        return tuple([g if needed else None for g, needed in zip(grads, mask)])


class ConvolutionBackward(_ConvolutionParams):
    """torch's ``convolution_backward``: the gradients of a convolution's input, weight
    and bias from ``grad_output`` (only those in ``output_mask``; zeros stand for the
    others)."""

    node_name = "ConvolutionBackwardBackward0"
    input_names = ("grad_output", "input", "weight")
    saves = ("grad_output", "input", "weight")
    saved_attributes = ("dilation", "groups", "output_padding", "padding", "stride", "transposed")

    def __init__(self, *params: Any, output_mask: tuple[bool, ...]) -> None:
        super().__init__(*params)
        self.output_mask = output_mask

    def forward(self, grad: Any, x: Any, w: Any) -> Any:
        need_input, need_weight, need_bias = self.output_mask
        params = self.params
        if np.iscomplexobj(x) or np.iscomplexobj(w):
            # The conjugate Wirtinger gradient: products with the conjugated operands.
            x, w = np.conj(x), np.conj(w)
        if need_input:
            grad_input = conv_input_grad(grad, w, x.shape[2:], params)
        else:
            grad_input = unrequested(x.shape, grad.dtype)
        if need_weight:
            grad_weight = conv_weight_grad(x, grad, w.shape[2:], params)
        else:
            grad_weight = unrequested(w.shape, grad.dtype)
        if need_bias:
            grad_bias = grad.sum((0,) + tuple(range(2, grad.ndim)))
        else:
            grad_bias = unrequested(grad.shape[1:2], grad.dtype)
        return grad_input, grad_weight, grad_bias

    def backward(self, grad_grad_input: Any, grad_grad_weight: Any, grad_grad_bias: Any) -> Any:
        # ``grad_input`` is linear in ``grad_output`` and ``weight``, ``grad_weight`` in
        # ``grad_output`` and ``input``: each gradient is one convolution or one
        # convolution backward of the two others.
        grad, x, w = self.unpack()
        needs = self.needs_input_grad
        params = self.params
        grad_grad = grad_x = grad_w = None
        if needs[0]:
            terms = []
            if grad_grad_input is not None:
                terms.append(convolution(grad_grad_input, w, None, *params))
            if grad_grad_weight is not None:
                terms.append(convolution(x, grad_grad_weight, None, *params))
            if grad_grad_bias is not None:
                shape = (1, -1) + (1,) * (grad.dim() - 2)
                terms.append(grad_grad_bias.reshape(shape).expand(grad.shape))
            for term in terms:
                grad_grad = term if grad_grad is None else grad_grad + term
        if needs[1] and grad_grad_weight is not None:
            mask = (True, False, False)
            grad_x = grad._apply_op(
                ConvolutionBackward(*params, output_mask=mask), x, grad_grad_weight
            )[0]
        if needs[2] and grad_grad_input is not None:
            mask = (False, True, False)
            grad_w = grad._apply_op(
                ConvolutionBackward(*params, output_mask=mask), grad_grad_input, w
            )[1]
        return grad_grad, grad_x, grad_w


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


class ConvTbc(Op):
    """torch's ``conv_tbc``: a 1-d convolution of a time-batch-channel ``self`` ``(T, B,
    C_in)`` with ``weight`` ``(K, C_in, C_out)`` plus ``bias``, ``pad`` zeros on each side
    of time. Its backward is ``convolution_backward`` of the channel-first layout."""

    input_names = ("self", "weight", "bias")
    saves = ("self", "weight", "bias")
    saved_attributes = ("pad",)

    def __init__(self, pad: int) -> None:
        self.pad = pad

    @property
    def params(self) -> ConvParams:
        return ((1,), (self.pad,), (1,), False, (0,), 1)

    def forward(self, x: Any, w: Any, b: Any) -> Any:
        out = conv_forward(x.transpose(1, 2, 0), w.transpose(2, 1, 0), (1,), (self.pad,), (1,), 1)
        return np.ascontiguousarray((out + b[:, None]).transpose(2, 0, 1))

    def backward(self, grad: Any) -> Any:
        x, w, _ = self.unpack()
        mask = self.needs_input_grad
        backward = ConvolutionBackward(*self.params, output_mask=mask)
        grad_input, grad_weight, grad_bias = grad.permute(1, 2, 0)._apply_op(
            backward, x.permute(1, 2, 0), w.permute(2, 1, 0)
        )
        return (
            grad_input.permute(2, 0, 1) if mask[0] else None,
            grad_weight.permute(2, 1, 0) if mask[1] else None,
            grad_bias if mask[2] else None,
        )
