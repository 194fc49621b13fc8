"""Reductions: sum, mean, var/std, prod, max/min/median, amax/amin, nansum, aminmax,
logsumexp and vector norms. (cumsum/cumprod, softmax and log_softmax are in
``hookgrad.ops.scans``; sorting, selection and the other scans in
``hookgrad.ops.sorting``.)

sum, mean, var, std, amax/amin, max/min/median of all elements, nansum, logsumexp and the
vector norm are entries of the derivative table (``hookgrad.ops.table``) with torch's
formulas. The others are hand-written: var_mean, std_mean and aminmax (two
outputs), prod (its gradient at zeros is an algorithm) and the
``(values, indices)`` ops along a dim (two outputs); their backward is torch's too, written
on tensors, so a ``create_graph=True`` gradient records torch's double-backward graph.

Every op takes its ``dim`` as the caller gave it (a tuple of ints in any order, negative
ones included, or None for all dims; an int for the ops along one dim), because torch's
node saves it so (``_saved_dim``); kernels and formulas wrap it where they need an index.

Example: ``x.mean((-1, -2)).grad_fn._saved_dim`` is ``(-1, -2)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import array_api
from hookgrad.ops.base import Op
from hookgrad.ops.dims import wrapped
from hookgrad.ops.table import call, entry, function, helper


def _axis(dim: Any, ndim: int) -> Any:
    """NumPy's ``axis`` for torch's ``dim`` (as given) over ``ndim`` dims: None or ``()``
    reduces every dim, and so does any dim of a 0-dim tensor."""
    return tuple(dim) if dim and ndim else None


def _wrapped_dims(dim: Any, ndim: int) -> tuple[int, ...] | None:
    """``dim`` (a tuple as given, or None) as non-negative dims; None: every dim."""
    return tuple(wrapped(d, ndim) for d in dim) if dim and ndim else None


def _drop(array: Any, dims: tuple[int, ...] | None, keepdim: bool) -> Any:
    """A keepdim-layout array without its reduced ``dims`` (None: all) unless ``keepdim``."""
    return array if keepdim else np.squeeze(array, axis=dims)


def _count(shape: tuple[int, ...], dims: tuple[int, ...] | None) -> int:
    """How many elements each output element of a reduction over ``dims`` reduces."""
    return math.prod(shape) if dims is None else math.prod(shape[d] for d in dims)


def _add(a: Any, b: Any) -> Any:
    """The sum of two optional gradients (None: no gradient)."""
    return b if a is None else a if b is None else a + b


# ---------------------------------------------------------------- sum / mean

# torch's FunctionsManual helpers, written over sizes and dims as Python tuples. Dims are
# as the caller gave them; ``unsqueeze_multiple`` wraps them and inserts them in ascending
# order, as torch's loop over ``dim_list_to_bitset`` does.
helper("_sorted_dims(dim, n_dims)", "tuple(sorted(d % n_dims for d in dim))")
helper(
    "_unsqueeze_sorted(t, dims)",
    "t if not dims else _unsqueeze_sorted(t.unsqueeze(dims[0]), dims[1:])",
)
helper(
    "unsqueeze_multiple(t, dim, n_dims)",
    "t.unsqueeze(dim[0]) if len(dim) == 1 else _unsqueeze_sorted(t, _sorted_dims(dim, n_dims))",
)
helper(
    "sum_backward(grad, sizes, dims, keepdim)",
    "grad.expand(sizes) if keepdim or not sizes or not dims "
    "else unsqueeze_multiple(grad, dims, len(sizes)).expand(sizes)",
)
helper(
    "_safe_size(sizes, dim)",
    "1 if not sizes or not dim else sizes[dim[0]] * _safe_size(sizes, dim[1:])",
)
helper(
    "mean_backward(grad, shape, dim, numel, keepdim)",
    "sum_backward(grad, shape, dim, keepdim) / (numel if not dim else _safe_size(shape, dim))",
)


def _sum(a: Any, dim: Any, keepdim: bool, dtype: Any) -> Any:
    """``torch.sum`` on an array: floating arrays in torch's order, in ``dtype`` if given."""
    if a.dtype.kind in "fc" and (dtype is None or np.dtype(dtype).kind in "fc"):
        return array_api.sum(_cast(a, dtype), _axis(dim, a.ndim), keepdim)
    return np.sum(a, axis=_axis(dim, a.ndim), keepdims=keepdim, dtype=dtype)


def _mean(a: Any, dim: Any, keepdim: bool, dtype: Any) -> Any:
    """``torch.mean`` on an array (floating or complex, in ``dtype`` if given)."""
    if a.dtype.kind in "fc" and (dtype is None or np.dtype(dtype).kind in "fc"):
        return array_api.mean(_cast(a, dtype), _axis(dim, a.ndim), keepdim)
    return np.mean(a, axis=_axis(dim, a.ndim), keepdims=keepdim, dtype=dtype)


def _cast(a: Any, dtype: Any) -> Any:
    """``a`` in ``dtype`` (None: as it is), keeping its layout as torch's casts do."""
    return a if dtype is None or a.dtype == dtype else a.astype(dtype, order="K")


Sum = entry(
    "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    lambda a, dtype: _sum(a, None, False, dtype),
    self="grad.expand(self.sym_sizes())",
)
SumDim = entry(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
    " -> Tensor",
    _sum,
    node="SumBackward1",
    self="sum_backward(grad, self.sym_sizes(), dim, keepdim)",
)
Mean = entry(
    "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    lambda a, dtype: _mean(a, None, False, dtype),
    self="grad.expand(self.sym_sizes()) / self.sym_numel()",
)
MeanDim = entry(
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _mean,
    node="MeanBackward1",
    self="mean_backward(grad, self.sym_sizes(), dim, self.sym_numel(), keepdim)",
)


# ---------------------------------------------------------------- var / std


def _variance(a: Any, dims: tuple[int, ...] | None, correction: float) -> tuple[Any, Any]:
    """``(variance, mean)`` over ``dims`` (None: all) in keepdim layout; the variance is
    real."""
    mean = np.mean(a, axis=dims, keepdims=True)
    deviation = a - mean
    squares = (deviation * deviation.conj()).real if a.dtype.kind == "c" else deviation**2
    dof = max(_count(a.shape, dims) - correction, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(squares, axis=dims, keepdims=True) / dof, mean


def _moments(a: Any, dim: Any, correction: Any, keepdim: bool) -> tuple[Any, Any]:
    """``(variance, mean)`` over ``dim`` (as given; None or ``()``: all dims), dividing
    by ``count - correction`` (None: 1, Bessel's)."""
    dims = _wrapped_dims(dim, a.ndim)
    variance, mean = _variance(a, dims, 1 if correction is None else correction)
    return _drop(variance, dims, keepdim), _drop(mean, dims, keepdim)


def _var(a: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    return _moments(a, dim, correction, keepdim)[0]


def _std(a: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    return np.sqrt(_var(a, dim, correction, keepdim))


# torch's var_backward and std_backward. Without ``dim`` (None) and with no degrees of
# freedom left, the gradient is ``grad * inf`` (NaN at the mean). NOTE: as torch's, a
# ``dim`` of ``()`` takes the per-dim branch (one element per group: ``2 / (1 - 1)``),
# although the forward reduces every dim.
# NOTE: torch's C++ evaluates the right operand of ``a * b`` before the left one, and a
# second backward runs the nodes by creation order: ``_times(b, a)`` is ``a * b`` with
# ``b``'s nodes made first (Python evaluates arguments left to right).
helper("_times(right, left)", "left * right")
helper("_correction(correction)", "1 if correction is None else correction")
helper("_two_over(dof)", "2.0 / dof if dof != 0 else inf")
helper(
    "var_backward(grad, self, dim, correction, keepdim)",
    "_var_backward_all(grad, self, self.numel() - _correction(correction)) "
    "if self.ndim == 0 or dim is None "
    "else _var_backward_dims("
    "grad if keepdim or self.ndim <= 1 else unsqueeze_multiple(grad, dim, self.ndim),"
    " self, dim, correction)",
)
helper(
    "_var_backward_dims(grad, self, dim, correction)",
    "_times(self - self.mean(dim, True),"
    " _two_over(_safe_size(self.shape, dim) - _correction(correction)) * grad)",
)
helper(
    "_var_backward_all(grad, self, dof)",
    "grad * where(self == self.mean(), nan, inf) if dof <= 0 "
    "else _times(self - self.mean(), 2.0 / dof * grad)",
)
helper(
    "std_backward(result, grad, self, dim, correction, keepdim)",
    "var_backward((grad / (result * 2)).masked_fill(result == 0, 0), self, dim, correction,"
    " keepdim)",
)

# Variance over ``dim``, dividing by ``count - correction`` (None: 1, Bessel's).
Var = entry(
    "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None,"
    " bool keepdim=False) -> Tensor",
    _var,
    quiet=True,
    self="var_backward(grad, self, dim, correction, keepdim)",
)
# The standard deviation: the square root of the variance.
Std = entry(
    "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None,"
    " bool keepdim=False) -> Tensor",
    _std,
    quiet=True,
    self="std_backward(result, grad, self, dim, correction, keepdim)",
)


class VarMean(Op):
    """``(var, mean)`` in one node (two outputs, beyond the table): torch's
    ``var_mean_backward``, the sum of ``var_backward`` and ``mean_backward``."""

    input_names = ("self",)
    saves: tuple[str, ...] = ("self",)
    output_names = ("result0", "result1")
    saved_attributes = ("correction", "dim", "keepdim")
    quiet = True

    def __init__(self, dim: tuple[int, ...] | None, correction: Any, keepdim: bool) -> None:
        self.dim = dim
        self.correction = correction
        self.keepdim = keepdim

    def forward(self, a: Any) -> Any:
        return _moments(a, self.dim, self.correction, self.keepdim)

    def backward(self, grad_var: Any, grad_mean: Any) -> Any:
        (x,) = self.unpack()
        grad_input = None
        if grad_var is not None:
            grad_input = call("var_backward", grad_var, x, self.dim, self.correction, self.keepdim)
        return _add(grad_input, self._mean_backward(grad_mean, x))

    def _mean_backward(self, grad: Any, x: Any) -> Any:
        if grad is None:
            return None
        dim = () if self.dim is None else self.dim
        return call("mean_backward", grad, tuple(x.shape), dim, x.numel(), self.keepdim)


class StdMean(VarMean):
    """``(std, mean)`` in one node: torch's ``std_mean_backward``."""

    saves = ("self", "result0")

    def forward(self, a: Any) -> Any:
        variance, mean = _moments(a, self.dim, self.correction, self.keepdim)
        return np.sqrt(variance), mean

    def backward(self, grad_std: Any, grad_mean: Any) -> Any:
        x, std = self.unpack()
        grad_input = None
        if grad_std is not None:
            grad_input = call(
                "std_backward", std, grad_std, x, self.dim, self.correction, self.keepdim
            )
        return _add(grad_input, self._mean_backward(grad_mean, x))


# ---------------------------------------------------------------- prod


class Prod(Op):
    """Product of all elements; torch's ``prod_backward``."""

    input_names = ("self",)
    saves = ("self", "result")

    def __init__(self, np_dtype: Any = None) -> None:
        self.np_dtype = np_dtype

    def forward(self, a: Any) -> Any:
        return np.prod(a, dtype=self.np_dtype)

    def backward(self, grad: Any) -> Any:
        x, result = self.unpack()
        x = x.to(grad.dtype)
        if x.ndim == 0:
            return grad
        zeros = int((x == 0).sum())
        if not zeros:
            return grad * (result / x).conj()
        if zeros > 1 and not grad_mode.is_grad_enabled():
            return x.new_zeros(x.shape)
        flat = x.contiguous().view(-1)
        return prod_safe_zeros_backward(grad, flat, 0).view_as(x)


class ProdDim(Op):
    """Product along one dim; torch's ``prod_backward`` with a dim."""

    node_name = "ProdBackward1"
    input_names = ("self",)
    saves = ("self", "result")
    saved_attributes = ("dim", "keepdim")

    def __init__(self, dim: int, keepdim: bool, np_dtype: Any = None) -> None:
        self.dim = dim
        self.keepdim = keepdim
        self.np_dtype = np_dtype

    def forward(self, a: Any) -> Any:
        axis = wrapped(self.dim, a.ndim) if a.ndim else None
        return np.prod(a, axis=axis, keepdims=self.keepdim, dtype=self.np_dtype)

    def backward(self, grad: Any) -> Any:
        x, result = self.unpack()
        x = x.to(grad.dtype)
        if x.ndim == 0:
            return grad
        dim = wrapped(self.dim, x.ndim)
        if not self.keepdim:
            grad = grad.unsqueeze(dim)
            result = result.unsqueeze(dim)
        if not bool((x == 0).any()):
            return grad * (result / x).conj()
        return prod_safe_zeros_backward(grad, x, dim)


def prod_safe_zeros_backward(grad: Any, x: Any, dim: int) -> Any:
    """torch's ``prod_safe_zeros_backward``: the product of the other elements along
    ``dim`` (``grad`` keeps that dim) as exclusive running products from both ends, with
    no division (right at zeros, and for every derivative order)."""
    if x.numel() == 0:
        return grad.expand_as(x)
    size = x.shape[dim]
    ones_size = list(x.shape)
    ones_size[dim] = 1
    ones = grad.new_ones(ones_size)
    exclusive_normal = grad._cat([ones, x.narrow(dim, 0, size - 1)], dim).cumprod(dim)
    narrow_reverse = x.narrow(dim, 1, size - 1).flip(dim)
    exclusive_reverse = grad._cat([ones, narrow_reverse], dim).cumprod(dim).flip(dim)
    return grad * (exclusive_normal * exclusive_reverse).conj()


# ---------------------------------------------------------------- max / min / median


def lower_median(a: Any) -> Any:
    """The lower of the two middle elements (torch's median), NaN if there is one."""
    flat = a.reshape(-1)
    if flat.size == 0 or np.any(flat != flat):
        return np.asarray(np.nan, a.dtype)
    middle = (flat.size - 1) // 2
    return np.partition(flat, middle)[middle]


def _median_indices(a: Any, axis: int) -> Any:
    """Indices of the lower medians along ``axis`` (keepdims); the first NaN if any."""
    middle = (a.shape[axis] - 1) // 2
    order = np.argsort(a, axis=axis, kind="stable")
    indices = np.take(order, [middle], axis=axis)
    nan = a != a
    if nan.any():
        first_nan = np.argmax(nan, axis=axis, keepdims=True)
        indices = np.where(nan.any(axis=axis, keepdims=True), first_nan, indices)
    return indices


# Ties share the gradient evenly; a NaN result is the gradient of the NaN elements.
helper(
    "evenly_distribute_backward(grad, input, value)",
    "_fill_evenly(grad, input, input.isnan() if value.isnan() else input == value)",
)
helper("_fill_evenly(grad, input, mask)", "zeros_like(input).masked_fill(mask, grad / mask.sum())")

Max = entry(
    "max(Tensor self) -> Tensor",
    np.max,
    node="MaxBackward1",
    self="evenly_distribute_backward(grad, self, result)",
)
Min = entry(
    "min(Tensor self) -> Tensor",
    np.min,
    node="MinBackward1",
    self="evenly_distribute_backward(grad, self, result)",
)
Median = entry(
    "median(Tensor self) -> Tensor",
    lower_median,
    self="evenly_distribute_backward(grad, self, result)",
)


class SelectAlongDim(Op):
    """``(values, indices)`` along ``dim`` (as given); the gradient goes to the returned
    index: torch's ``value_selecting_reduction_backward``, the gradient scattered into
    zeros (a second backward records ``ScatterBackward0``)."""

    input_names = ("self",)
    output_names = ("values", "indices")
    saves = ("indices",)
    saved_attributes = ("dim", "keepdim", "self_sym_sizes")

    def __init__(self, dim: int, keepdim: bool) -> None:
        self.dim = dim
        self.keepdim = keepdim

    # The chosen element's index along an axis, with keepdims.
    indices_of: Callable[[Any, int], Any]

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        dim = wrapped(self.dim, a.ndim)
        chosen = self.indices_of(a, dim).astype(np.int64)
        values = np.take_along_axis(a, chosen, axis=dim)
        return _drop(values, (dim,), self.keepdim), _drop(chosen, (dim,), self.keepdim)

    def backward(self, grad: Any, grad_indices: Any = None) -> Any:
        (indices,) = self.unpack()
        dim = self.dim
        zeros = grad.new_zeros(self.self_sym_sizes)
        if self.keepdim or not self.self_sym_sizes:
            return zeros.scatter(dim, indices, grad)
        return zeros.scatter(dim, indices.unsqueeze(dim), grad.unsqueeze(dim))


def _argmax(a: Any, axis: int) -> Any:
    return np.argmax(a, axis=axis, keepdims=True)


def _argmin(a: Any, axis: int) -> Any:
    return np.argmin(a, axis=axis, keepdims=True)


class MaxDim(SelectAlongDim):
    """The largest element along ``dim`` and its index (the first one)."""

    node_name = "MaxBackward0"
    indices_of = staticmethod(_argmax)


class MinDim(SelectAlongDim):
    """The smallest element along ``dim`` and its index (the first one)."""

    node_name = "MinBackward0"
    indices_of = staticmethod(_argmin)


class MedianDim(SelectAlongDim):
    """The lower median along ``dim`` and its index."""

    node_name = "MedianBackward1"
    indices_of = staticmethod(_median_indices)


# ``restore_reduced_dims``: a reduced tensor with its reduced dims back as size 1.
helper(
    "_restored_sizes(sizes, dims)",
    "_restored(sizes, _sorted_dims(dims, len(sizes) + len(dims)))",
)
helper(
    "_restored(sizes, dims)",
    "tuple(1 if i in dims else sizes[i - len([d for d in dims if d < i])] "
    "for i in range(len(sizes) + len(dims)))",
)
helper(
    "restore_reduced_dims(output, dims, keepdim)",
    "output if keepdim else output.reshape(_restored_sizes(output.shape, dims))",
)
helper("scale_grad_by_count(grad, mask, dims)", "(grad / mask.sum(dims, True)) * mask")

Amax = entry(
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    lambda a, dim, keepdim: np.amax(a, axis=_axis(dim, a.ndim), keepdims=keepdim),
    self="scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), "
    "restore_reduced_dims(result, dim, keepdim) == self, dim)",
)
Amin = entry(
    "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    lambda a, dim, keepdim: np.amin(a, axis=_axis(dim, a.ndim), keepdims=keepdim),
    self="scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), "
    "restore_reduced_dims(result, dim, keepdim) == self, dim)",
)


# ---------------------------------------------------------------- nansum / aminmax


def _nansum(a: Any, dim: Any, keepdim: bool, dtype: Any) -> Any:
    """``torch.nansum``: the sum with NaNs counted as zero."""
    if a.dtype.kind in "fc":
        a = np.where(np.isnan(a), np.zeros((), a.dtype), a)
    return _sum(a, dim, keepdim, dtype)


function("logical_not", np.logical_not, lambda x: x.logical_not())
helper(
    "nansum_backward(grad, self, dim, keepdim)",
    "sum_backward(grad, tuple(self.shape), dim, keepdim) * self.isnan().logical_not()",
)
Nansum = entry(
    "nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)"
    " -> Tensor",
    _nansum,
    self="nansum_backward(grad.to(self.scalar_type()), self, dim, keepdim)",
)


class Aminmax(Op):
    """``(min, max)`` over ``dim`` (an int, or None for all elements) in one node: torch's
    ``aminmax_backward``, each gradient shared evenly by the tied extremes (as ``amin`` and
    ``amax``), the two added."""

    input_names = ("self",)
    output_names = ("min", "max")
    # NOTE: torch packs the saved outputs in the alphabetical order of their names.
    saves = ("self", "max", "min")
    saved_attributes = ("dim", "keepdim")

    def __init__(self, dim: int | None, keepdim: bool) -> None:
        self.dim = dim
        self.keepdim = keepdim

    def forward(self, a: Any) -> Any:
        if self.dim is None or a.ndim == 0:
            axis = None
            keepdims = self.keepdim and a.ndim > 0
        else:
            axis = wrapped(self.dim, a.ndim)
            keepdims = self.keepdim
        low = np.amin(a, axis=axis, keepdims=keepdims)
        high = np.amax(a, axis=axis, keepdims=keepdims)
        return np.asarray(low), np.asarray(high)

    def backward(self, grad_min: Any, grad_max: Any) -> Any:
        x, high, low = self.unpack()
        dims = () if self.dim is None else (self.dim,)
        grad_input = None
        for grad, extreme in ((grad_min, low), (grad_max, high)):
            if grad is not None:
                share = call("_share_evenly", grad, extreme, x, dims, self.keepdim)
                grad_input = _add(grad_input, share)
        return grad_input


helper(
    "_share_evenly(grad, result, self, dim, keepdim)",
    "scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), "
    "restore_reduced_dims(result, dim, keepdim) == self, dim)",
)


# ---------------------------------------------------------------- logsumexp / norm


def _logsumexp(a: Any, dim: Any, keepdim: bool) -> Any:
    """``log(sum(exp(a)))`` over ``dim``, shifted by the maximum so it cannot overflow."""
    axis = _axis(dim, a.ndim)
    shift = np.amax(a, axis=axis, keepdims=True) if a.size else np.zeros((), a.dtype)
    shift = np.where(np.isfinite(shift), shift, 0).astype(a.dtype)
    with np.errstate(divide="ignore"):
        total = np.log(np.sum(np.exp(a - shift), axis=axis, keepdims=True)) + shift
    return total if keepdim else np.squeeze(total, axis=axis)


helper(
    "logsumexp_backward(grad, self, result, dim, keepdim)",
    "grad * (self - result).exp().conj() if keepdim or self.ndim == 0 "
    "else unsqueeze_multiple(grad, dim, self.ndim)"
    " * (self - unsqueeze_multiple(result, dim, self.ndim)).exp().conj()",
)
Logsumexp = entry(
    "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
    _logsumexp,
    self="logsumexp_backward(grad, self, result, dim, keepdim)",
)


def _vector_norm(a: Any, ord: float, dim: Any, keepdim: bool, dtype: Any) -> Any:
    """``(sum |a|^ord)^(1/ord)`` over ``dim`` (None or ``()``: all dims), in ``dtype``."""
    if dtype is not None:
        a = a.astype(dtype)
    size = np.abs(a)
    axis = _axis(dim, a.ndim)
    if ord == math.inf:
        return np.amax(size, axis=axis, keepdims=keepdim)
    if ord == -math.inf:
        return np.amin(size, axis=axis, keepdims=keepdim)
    if ord == 0:
        return np.sum(size != 0, axis=axis, keepdims=keepdim, dtype=size.dtype)
    if ord == 1:
        return np.sum(size, axis=axis, keepdims=keepdim)
    if ord == 2:
        return np.sqrt(np.sum(size * size, axis=axis, keepdims=keepdim))
    return np.sum(size**ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)


# torch's norm_backward: by ``p``, 0 (no gradient), 1, 2, +-inf (ties share the gradient,
# NaNs take it), below 1, below 2, and the rest.
helper(
    "linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim)",
    "norm_backward(grad, self, ord, result, () if dim is None else dim, keepdim)",
)
helper(
    "norm_backward(grad, self, p, norm, dim, keepdim)",
    "_norm_backward(grad, self, p, norm, dim) if keepdim or self.ndim == 0 "
    "else _norm_backward(unsqueeze_multiple(grad, dim, self.ndim), self, p,"
    " unsqueeze_multiple(norm, dim, self.ndim), dim)",
)
helper(
    "_norm_backward(grad, self, p, norm, dim)",
    "None if p == 0 "
    "else self.sgn() * grad if p == 1 "
    "else grad * (self / norm).masked_fill(norm == 0, 0) if p == 2 "
    "else _inf_norm_backward(grad, self, (self.abs() == norm) | self.abs().isnan(), dim)"
    " if p == inf or p == -inf "
    "else _times(norm.pow(1 - p),"
    " _times(self.abs().pow_(p - 1).masked_fill(self == 0, 0), self.sgn()) * grad) if p < 1 "
    "else _times(self.abs().pow_(p - 1), self.sgn())"
    " * (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0) if p < 2 "
    "else self * self.abs().pow_(p - 2) * (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0)",
)
# NOTE: torch's ``norm_backward`` raises ``|self|`` to a power in place (``pow_``), so
# that node saves a clone of ``|self|`` (its ``_saved_self`` comes from CloneBackward0).
function("pow_", array_api.pow, lambda x, exponent: x.pow_(exponent))
helper(
    "_inf_norm_backward(grad, self, mask, dim)",
    "_times(grad / mask.sum(dim, True) * mask, self.sgn())",
)

# The vector ``ord``-norm over ``dim``; ord may be 0, inf or -inf too.
VectorNorm = entry(
    "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,"
    " ScalarType? dtype=None) -> Tensor",
    _vector_norm,
    quiet=True,
    self="linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim)",
)
