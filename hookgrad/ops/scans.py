"""The ops along one dim whose result has the input's shape: the scans ``cumsum`` and
``cumprod`` and the normalisations ``softmax`` and ``log_softmax`` (with their backward
entries ``_softmax_backward_data`` ...), derivative-table entries with torch's node names
and formulas; their results are C-contiguous, as torch's.

Example: ``hookgrad.tensor([1.0, 2.0]).cumsum(0)`` runs ``Cumsum`` (``CumsumBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops.base import Op
from hookgrad.ops.dims import wrapped
from hookgrad.ops.table import call, entry, function, helper

# ---------------------------------------------------------------- cumsum / cumprod


def _along(a: Any) -> Any:
    """A 0-dim array as 1-dim, so that NumPy's scans accept ``axis=0``."""
    return a.reshape(1) if a.ndim == 0 else a


def _c_order(a: Any) -> Any:
    """``a`` in C order: torch's scans and softmaxes make their result contiguous,
    whatever the input's layout (NumPy follows the input's)."""
    return a if a.flags.c_contiguous else np.array(a, order="C")


helper("reversed_cumsum(w, dim)", "w.flip(dim).cumsum(dim).flip(dim)")
helper(
    "cumsum_backward(grad, dim)",
    "grad if grad.numel() <= 1 or grad.shape[dim] == 1 else reversed_cumsum(grad, dim)",
)
# ``x.to(dtype)`` in a formula (a ``dtype=`` result's gradient back in the input's dtype).
function("to", lambda x, dtype: x.astype(dtype, copy=False), lambda x, dtype: x.to(dtype))
Cumsum = entry(
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    lambda a, dim, dtype: _c_order(np.cumsum(_along(a), axis=dim, dtype=dtype).reshape(a.shape)),
    self="cumsum_backward(grad.to(self.scalar_type()), dim)",
)


class Cumprod(Op):
    """Running product along ``dim``; torch's ``cumprod_backward``."""

    input_names = ("self",)
    saves = ("self", "result")
    saved_attributes = ("dim",)

    def __init__(self, dim: int, np_dtype: Any = None) -> None:
        self.dim = dim
        self.np_dtype = np_dtype

    def forward(self, a: Any) -> Any:
        return _c_order(np.cumprod(_along(a), axis=self.dim, dtype=self.np_dtype).reshape(a.shape))

    def backward(self, grad: Any) -> Any:
        x, result = self.unpack()
        grad = grad.to(x.dtype)
        if x.numel() <= 1:
            return grad
        dim = wrapped(self.dim, x.ndim)
        size = x.shape[dim]
        if size == 1:
            return grad
        x_conj, result_conj = x.conj(), result.conj()
        if not bool((x == 0).any()):
            w = result_conj * grad
            return w.flip(dim).cumsum(dim).flip(dim).div(x_conj)
        if not grad_mode.is_grad_enabled():
            return grad.new_tensor(_cumprod_zeros_backward(grad, x_conj, result_conj, dim))
        return _cumprod_omitted_backward(grad, x_conj, dim, size)


def _cumprod_zeros_backward(grad: Any, x: Any, result: Any, dim: int) -> Any:
    """The gradient of a running product whose input has zeros, on arrays in O(n) (torch's
    path without a graph; ``x``, ``result`` conjugated). Before the first zero of a slice
    it is the reversed running sum of ``result * grad`` over ``x``; at the first zero, the
    product of the elements before it times the running products after it (up to the
    second zero) against ``grad``; zero after it."""
    g, x, out = (np.moveaxis(t._data, dim, -1) for t in (grad, x, result))
    zero = x == 0
    count = np.cumsum(zero, axis=-1)
    before = count == 0
    w = np.where(before, out * g, 0)
    reversed_sums = np.flip(np.cumsum(np.flip(w, -1), -1), -1)
    grad_input = np.where(before, reversed_sums / np.where(before, x, 1), 0)
    first = zero & (count == 1)
    after_first = (count == 1) & ~first
    running = np.cumprod(np.where(after_first, x, 1), axis=-1)
    total = np.sum(running * np.where(count == 1, g, 0), axis=-1, keepdims=True)
    prefix = np.prod(np.where(before, x, 1), axis=-1, keepdims=True)
    grad_input = np.where(first, total * prefix, grad_input)
    return np.moveaxis(grad_input, -1, dim).astype(g.dtype, copy=False)


def _cumprod_omitted_backward(grad: Any, x: Any, dim: int, size: int) -> Any:
    """torch's O(n^2) gradient of a running product with zeros under a graph: for each
    ``k``, the products that omit element ``k`` (the product of the elements before it
    times the running products after it) against ``grad`` from ``k`` on, copied into
    slice ``k`` of zeros. Its derivative is the second derivative of cumprod. ``x`` is
    conjugated."""
    ones_size = list(x.shape)
    ones_size[dim] = 1
    ones = grad.new_ones((1,)).expand(ones_size)
    grad_input = grad.new_zeros(x.shape)
    for k in range(size):
        if k == 0:
            omitted = grad._cat([ones, _slice(x, dim, k + 1).cumprod(dim)], dim)
        elif k == size - 1:
            omitted = _slice(x, dim, 0, k).prod(dim, True)
        else:
            until_k = _slice(x, dim, 0, k).prod(dim, True)
            after_k = _slice(x, dim, k + 1).cumprod(dim)
            omitted = grad._cat([until_k, until_k.expand_as(after_k) * after_k], dim)
        grad_input.select(dim, k).copy_((_slice(grad, dim, k) * omitted).sum(dim))
    return grad_input


def _slice(x: Any, dim: int, start: int, end: int | None = None) -> Any:
    """``x.slice(dim, start, end)`` as torch's C++ calls it (``end`` None: to the end)."""
    return call("slice_symint", x, dim, start, end, 1)


# ---------------------------------------------------------------- softmax


def _softmax(a: Any, dim: int, half_to_float: bool) -> Any:
    """``exp(a) / sum(exp(a))`` along ``dim``, shifted by the maximum."""
    if a.size == 0:
        return a.copy()
    axis = dim if a.ndim else None
    exp = np.exp(a - np.amax(a, axis=axis, keepdims=True))
    return _c_order(exp / np.sum(exp, axis=axis, keepdims=True))


def _log_softmax(a: Any, dim: int, half_to_float: bool) -> Any:
    """``a - logsumexp(a)`` along ``dim``, shifted by the maximum."""
    if a.size == 0:
        return a.copy()
    axis = dim if a.ndim else None
    shifted = a - np.amax(a, axis=axis, keepdims=True)
    return _c_order(shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True)))


def _softmax_backward_data(grad_output: Any, output: Any, dim: int, input_dtype: Any) -> Any:
    axis = dim if output.ndim else None
    product = grad_output * output
    return (product - output * np.sum(product, axis=axis, keepdims=True)).astype(
        input_dtype, copy=False
    )


def _log_softmax_backward_data(grad_output: Any, output: Any, dim: int, input_dtype: Any) -> Any:
    axis = dim if output.ndim else None
    total = np.sum(grad_output, axis=axis, keepdims=True)
    return (grad_output - np.exp(output) * total).astype(input_dtype, copy=False)


helper(
    "softmax_double_backward(grad, grad_output, dim, output)",
    "grad_output * grad - (output * grad_output).sum(dim, True) * grad"
    " - grad_output * (output * grad).sum(dim, True)",
)

# ``half_to_float`` is torch's CUDA half-precision path: always False here.
Softmax = entry(
    "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    _softmax,
    self="_softmax_backward_data(grad, result, dim, self.scalar_type())",
)
SoftmaxBackwardData = entry(
    "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype)"
    " -> Tensor",
    _softmax_backward_data,
    grad_output="_softmax_backward_data(grad, output, dim, input_dtype)",
    output="softmax_double_backward(grad, grad_output, dim, output)",
)
LogSoftmax = entry(
    "_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    _log_softmax,
    self="_log_softmax_backward_data(grad, result, dim, self.scalar_type())",
)
LogSoftmaxBackwardData = entry(
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim,"
    " ScalarType input_dtype) -> Tensor",
    _log_softmax_backward_data,
    grad_output="grad - (grad * output.exp()).sum(dim, True)",
    output="-grad_output.sum(dim, True) * output.exp() * grad",
)
