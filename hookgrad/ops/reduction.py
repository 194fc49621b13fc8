"""Reductions and scans: sum, mean, var/std, prod, max/min/median, amax/amin,
logsumexp, vector norms, cumsum/cumprod, softmax and log_softmax.

sum, mean, var, std, amax/amin, max/min/median of all elements, logsumexp, the vector
norm, cumsum, softmax and log_softmax (with their backward ops, whose nodes are torch's
double-backward nodes) are entries of the derivative table (``hookgrad.ops.table``) with
torch's formulas; their ``dim`` is a sorted tuple of non-negative dims (``()`` or None:
all of them), saved as torch saves it. The others are hand-written: var_mean and
std_mean (two outputs), prod and cumprod (their gradients at zeros are an algorithm) and
the ``(values, indices)`` ops along a dim (two outputs). There ``dim`` is a sorted tuple
(None: all dims) or, for ops along one dim, a non-negative int; a backward first puts the
reduced dims back as size 1 (``_restore``), so that its tensors broadcast against the
input.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.graph.saved import FREED_MESSAGE
from hookgrad.ops.base import Op
from hookgrad.ops.table import entry, helper
from hookgrad.ops.util import as_axis, reduced_shape


def _as_dims(dim: Any) -> Any:
    return (dim,) if isinstance(dim, int) else dim


def _restore(grad: Any, shape: tuple[int, ...], dim: Any, keepdim: bool) -> Any:
    """A reduced tensor reshaped to the keepdim layout (reduced dims of size 1)."""
    if keepdim:
        return grad
    return grad.reshape(reduced_shape(shape, _as_dims(dim)))


def _expand_back(grad: Any, shape: tuple[int, ...], dim: Any, keepdim: bool) -> Any:
    """Broadcast a reduced gradient back to the input's ``shape``."""
    return _restore(grad, shape, dim, keepdim).expand(shape)


def _drop(array: Any, dim: Any, keepdim: bool) -> Any:
    """A keepdim-layout array without its reduced dims unless ``keepdim``."""
    return array if keepdim else np.squeeze(array, axis=as_axis(_as_dims(dim)))


def _count(shape: tuple[int, ...], dim: tuple[int, ...] | None) -> int:
    """How many elements each output element of a reduction over ``dim`` reduces."""
    return math.prod(shape) if dim is None else math.prod(shape[d] for d in dim)


def _bool_constant(like: Any, array: Any) -> Any:
    """A fixed bool tensor (a mask computed from indices or shapes)."""
    return like.new_tensor(array, dtype=bool)


# ---------------------------------------------------------------- sum / mean

# torch's FunctionsManual helpers, written over sizes and dims as Python tuples. Dims are
# the non-negative, sorted dims the public functions pass (``unsqueeze_multiple`` inserts
# them in ascending order, as torch's loop does).
helper(
    "unsqueeze_multiple(t, dim)",
    "t if not dim else unsqueeze_multiple(t.unsqueeze(dim[0]), dim[1:])",
)
helper(
    "sum_backward(grad, sizes, dims, keepdim)",
    "grad.expand(sizes) if keepdim or not sizes or not dims "
    "else unsqueeze_multiple(grad, dims).expand(sizes)",
)
helper(
    "_safe_size(sizes, dim)",
    "1 if not sizes or not dim else sizes[dim[0]] * _safe_size(sizes, dim[1:])",
)
helper(
    "mean_backward(grad, shape, dim, numel, keepdim)",
    "sum_backward(grad, shape, dim, keepdim) / (numel if not dim else _safe_size(shape, dim))",
)


def _axis(dim: Any) -> Any:
    """NumPy's ``axis`` for torch's ``dim``: None or ``()`` reduces every dim."""
    return tuple(dim) if dim else None


Sum = entry(
    "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    lambda a, dtype: np.sum(a, dtype=dtype),
    self="grad.expand(self.sym_sizes())",
)
SumDim = entry(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
    " -> Tensor",
    lambda a, dim, keepdim, dtype: np.sum(a, axis=_axis(dim), keepdims=keepdim, dtype=dtype),
    node="SumBackward1",
    self="sum_backward(grad, self.sym_sizes(), dim, keepdim)",
)
Mean = entry(
    "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    lambda a, dtype: np.mean(a, dtype=dtype),
    self="grad.expand(self.sym_sizes()) / self.sym_numel()",
)
MeanDim = entry(
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    lambda a, dim, keepdim, dtype: np.mean(a, axis=_axis(dim), keepdims=keepdim, dtype=dtype),
    node="MeanBackward1",
    self="mean_backward(grad, self.sym_sizes(), dim, self.sym_numel(), keepdim)",
)


# ---------------------------------------------------------------- var / std


def _variance(a: Any, dim: tuple[int, ...] | None, correction: float) -> tuple[Any, Any]:
    """``(variance, mean)`` over ``dim`` in keepdim layout; the variance is real."""
    mean = np.mean(a, axis=as_axis(dim), keepdims=True)
    deviation = a - mean
    squares = (deviation * deviation.conj()).real if a.dtype.kind == "c" else deviation**2
    dof = max(_count(a.shape, dim) - correction, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(squares, axis=as_axis(dim), keepdims=True) / dof, mean


def _var(a: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    dims = tuple(dim) if dim else None
    variance, _ = _variance(a, dims, 1 if correction is None else correction)
    return _drop(variance, dims, keepdim)


def _std(a: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    return np.sqrt(_var(a, dim, correction, keepdim))


# torch's var_backward and std_backward. Without ``dim`` (or ``()``, all dims here) and
# with no degrees of freedom left, the gradient is ``grad * inf`` (NaN at the mean).
helper("_correction(correction)", "1 if correction is None else correction")
helper("_two_over(dof)", "2.0 / dof if dof != 0 else inf")
helper(
    "var_backward(grad, self, dim, correction, keepdim)",
    "_var_backward_all(grad, self, self.numel() - _correction(correction)) "
    "if self.ndim == 0 or not dim "
    "else _two_over(_safe_size(self.shape, dim) - _correction(correction)) "
    "* (grad if keepdim or self.ndim <= 1 else unsqueeze_multiple(grad, dim)) "
    "* (self - self.mean(dim, True))",
)
helper(
    "_var_backward_all(grad, self, dof)",
    "grad * where(self == self.mean(), nan, inf) if dof <= 0 "
    "else 2.0 / dof * grad * (self - self.mean())",
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


class _Moments(Op):
    """var_mean and std_mean (two outputs, beyond the table): dims, correction and their
    gradients."""

    input_names = ("self",)
    saves: tuple[str, ...] = ("self",)

    def __init__(self, dim: tuple[int, ...] | None, correction: float, keepdim: bool) -> None:
        self.dim = dim
        self.correction = correction
        self.keepdim = keepdim

    def _moments(self, a: Any) -> tuple[Any, Any]:
        """``(variance, mean)`` with the reduced dims dropped unless ``keepdim``."""
        self.input_shape = a.shape
        variance, mean = _variance(a, self.dim, self.correction)
        return _drop(variance, self.dim, self.keepdim), _drop(mean, self.dim, self.keepdim)

    def _var_backward(self, grad: Any, x: Any) -> Any:
        dof = _count(self.input_shape, self.dim) - self.correction
        scale = 2.0 / dof if dof > 0 else math.inf
        grad = _restore(grad, self.input_shape, self.dim, self.keepdim)
        return scale * grad * (x - x.mean(self.dim, keepdim=True))

    def _std_backward(self, grad: Any, x: Any, std: Any) -> Any:
        # NOTE: torch's convention: no gradient where the standard deviation is 0.
        return self._var_backward((grad / (2 * std)).masked_fill(std == 0, 0), x)

    def _mean_backward(self, grad: Any) -> Any:
        count = _count(self.input_shape, self.dim)
        return _expand_back(grad / count, self.input_shape, self.dim, self.keepdim)


def _add(a: Any, b: Any) -> Any:
    """The sum of two optional gradients (None: no gradient)."""
    return b if a is None else a if b is None else a + b


class VarMean(_Moments):
    """``(var, mean)`` in one node."""

    def forward(self, a: Any) -> Any:
        return self._moments(a)

    def backward(self, grad_var: Any, grad_mean: Any) -> Any:
        (x,) = self.unpack()
        grad_input = None if grad_var is None else self._var_backward(grad_var, x)
        return _add(grad_input, None if grad_mean is None else self._mean_backward(grad_mean))


class StdMean(_Moments):
    """``(std, mean)`` in one node."""

    saves = ("self", "result")

    def forward(self, a: Any) -> Any:
        variance, mean = self._moments(a)
        return np.sqrt(variance), mean

    def backward(self, grad_std: Any, grad_mean: Any) -> Any:
        x, std = self.unpack()
        grad_input = None if grad_std is None else self._std_backward(grad_std, x, std)
        return _add(grad_input, None if grad_mean is None else self._mean_backward(grad_mean))


# ---------------------------------------------------------------- prod


class Prod(Op):
    """Product of all elements."""

    input_names = ("self",)
    saves = ("self", "result")

    def __init__(self, np_dtype: Any = None) -> None:
        self.np_dtype = np_dtype

    def forward(self, a: Any) -> Any:
        return np.prod(a, dtype=self.np_dtype)

    def backward(self, grad: Any) -> Any:
        x, result = self.unpack()
        if x.ndim == 0:
            return grad
        if not (x == 0).any():
            # As torch's: without zeros, the gradient is no view of a flattened one.
            return grad * (result / x).conj()
        flat = _prod_backward(grad.reshape(1), x.reshape(-1), result.reshape(1), 0)
        return flat.reshape(x.shape)


class ProdDim(Op):
    """Product along one dim."""

    node_name = "ProdBackward1"
    input_names = ("self",)
    saves = ("self", "result")

    def __init__(self, dim: int, keepdim: bool, np_dtype: Any = None) -> None:
        self.dim = dim
        self.keepdim = keepdim
        self.np_dtype = np_dtype

    def forward(self, a: Any) -> Any:
        self.input_shape = a.shape
        axis = self.dim if a.ndim else None
        return np.prod(a, axis=axis, keepdims=self.keepdim, dtype=self.np_dtype)

    def backward(self, grad: Any) -> Any:
        x, result = self.unpack()
        if x.ndim == 0:
            return grad
        grad = _restore(grad, self.input_shape, self.dim, self.keepdim)
        result = _restore(result, self.input_shape, self.dim, self.keepdim)
        return _prod_backward(grad, x, result, self.dim)


def _prod_backward(grad: Any, x: Any, result: Any, dim: int) -> Any:
    """The gradient of a product along ``dim`` (``grad`` and ``result`` keep that dim).

    d prod / d x_j is the product of the other elements: ``result / x_j`` unless ``x``
    has zeros, where that division is 0/0.
    """
    zeros = x == 0
    if not zeros.any():
        return grad * (result / x).conj()
    if grad_mode.is_grad_enabled():
        return grad * _products_without_each(x, dim).prod(dim + 1).conj()
    # A slice with one zero: only that position sees a non-zero product of the others.
    count = zeros.sum(dim, keepdim=True)
    safe = x.masked_fill(zeros, 1)
    nonzero_prod = safe.prod(dim, keepdim=True)
    lone_zero = nonzero_prod.where(zeros & (count == 1), 0)
    others = (nonzero_prod / safe).where(count == 0, lone_zero)
    return grad * others.conj()


def _products_without_each(x: Any, dim: int) -> Any:
    """``x`` repeated along a new axis ``dim``: copy ``i`` has element ``i`` set to 1.

    Reducing it along ``dim + 1`` excludes each element in turn, exactly and for every
    derivative order, at n times the memory (used only where a division would be 0/0).
    """
    shape = tuple(x.shape)
    size = shape[dim]
    rows = x.reshape(shape[:dim] + (1,) + shape[dim:]).expand(shape[:dim] + (size,) + shape[dim:])
    eye = np.eye(size, dtype=bool).reshape((size, size) + (1,) * (len(shape) - dim - 1))
    return rows.masked_fill(_bool_constant(x, eye), 1)


# ---------------------------------------------------------------- max / min / median


def _lower_median(a: Any) -> Any:
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
    _lower_median,
    self="evenly_distribute_backward(grad, self, result)",
)


class _SelectAlongDim(Op):
    """``(values, indices)`` along ``dim``; the gradient goes to the returned index."""

    input_names = ("self",)

    def __init__(self, dim: int, keepdim: bool) -> None:
        self.dim = dim
        self.keepdim = keepdim

    # The chosen element's index along an axis, with keepdims.
    indices_of: Callable[[Any, int], Any]

    def forward(self, a: Any) -> Any:
        self.input_shape = a.shape
        if a.ndim == 0:
            self.indices = np.zeros((), np.int64)
            return a.copy(), self.indices.copy()
        chosen = self.indices_of(a, self.dim).astype(np.int64)
        values = np.take_along_axis(a, chosen, axis=self.dim)
        indices = _drop(chosen, self.dim, self.keepdim)
        self.indices = indices.copy()  # the caller may change the returned indices in place
        return _drop(values, self.dim, self.keepdim), indices

    def backward(self, grad: Any, grad_indices: Any = None) -> Any:
        if self.indices is None:
            raise RuntimeError(FREED_MESSAGE)
        if grad is None or not self.input_shape:
            return grad
        shape, dim = self.input_shape, self.dim
        if grad_mode.is_grad_enabled():
            # torch's value_selecting_reduction_backward: the gradient scattered into
            # zeros, so a second backward records ScatterBackward0.
            index = grad.new_tensor(self.indices, dtype=np.int64)
            if not self.keepdim:
                grad, index = grad.unsqueeze(dim), index.unsqueeze(dim)
            return grad.new_zeros(shape).scatter_(dim, index, grad)
        positions = np.arange(shape[dim]).reshape((-1,) + (1,) * (len(shape) - dim - 1))
        chosen = positions == self.indices.reshape(reduced_shape(shape, (dim,)))
        return _restore(grad, shape, dim, self.keepdim).where(_bool_constant(grad, chosen), 0)

    def _release_variables(self) -> None:
        # NOTE: torch saves the indices as a tensor, freed after a backward pass.
        self.indices = None


def _argmax(a: Any, axis: int) -> Any:
    return np.argmax(a, axis=axis, keepdims=True)


def _argmin(a: Any, axis: int) -> Any:
    return np.argmin(a, axis=axis, keepdims=True)


class MaxDim(_SelectAlongDim):
    """The largest element along ``dim`` and its index (the first one)."""

    node_name = "MaxBackward0"
    indices_of = staticmethod(_argmax)


class MinDim(_SelectAlongDim):
    """The smallest element along ``dim`` and its index (the first one)."""

    node_name = "MinBackward0"
    indices_of = staticmethod(_argmin)


class MedianDim(_SelectAlongDim):
    """The lower median along ``dim`` and its index."""

    node_name = "MedianBackward1"
    indices_of = staticmethod(_median_indices)


# ``restore_reduced_dims``: a reduced tensor with its reduced dims back as size 1.
helper(
    "_restored_sizes(sizes, dims)",
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
    lambda a, dim, keepdim: np.amax(a, axis=_axis(dim), keepdims=keepdim),
    self="scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), "
    "restore_reduced_dims(result, dim, keepdim) == self, dim)",
)
Amin = entry(
    "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    lambda a, dim, keepdim: np.amin(a, axis=_axis(dim), keepdims=keepdim),
    self="scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), "
    "restore_reduced_dims(result, dim, keepdim) == self, dim)",
)


# ---------------------------------------------------------------- logsumexp / norm


def _logsumexp(a: Any, dim: Any, keepdim: bool) -> Any:
    """``log(sum(exp(a)))`` over ``dim``, shifted by the maximum so it cannot overflow."""
    axis = _axis(dim)
    shift = np.amax(a, axis=axis, keepdims=True) if a.size else np.zeros((), a.dtype)
    shift = np.where(np.isfinite(shift), shift, 0).astype(a.dtype)
    with np.errstate(divide="ignore"):
        total = np.log(np.sum(np.exp(a - shift), axis=axis, keepdims=True)) + shift
    return total if keepdim else np.squeeze(total, axis=axis)


helper(
    "logsumexp_backward(grad, self, result, dim, keepdim)",
    "grad * (self - result).exp().conj() if keepdim or self.ndim == 0 "
    "else unsqueeze_multiple(grad, dim) * (self - unsqueeze_multiple(result, dim)).exp().conj()",
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
    axis = _axis(dim)
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
    "norm_backward(grad, self, ord, result, dim, keepdim)",
)
helper(
    "norm_backward(grad, self, p, norm, dim, keepdim)",
    "_norm_backward(grad, self, p, norm, dim) if keepdim or self.ndim == 0 "
    "else _norm_backward(unsqueeze_multiple(grad, dim), self, p,"
    " unsqueeze_multiple(norm, dim), dim)",
)
helper(
    "_norm_backward(grad, self, p, norm, dim)",
    "None if p == 0 "
    "else self.sgn() * grad if p == 1 "
    "else grad * (self / norm).masked_fill(norm == 0, 0) if p == 2 "
    "else _inf_norm_backward(grad, self, (self.abs() == norm) | self.abs().isnan(), dim)"
    " if p == inf or p == -inf "
    "else self.sgn() * self.abs().pow(p - 1).masked_fill(self == 0, 0) * grad"
    " * norm.pow(1 - p) if p < 1 "
    "else self.sgn() * self.abs().pow(p - 1) * (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0)"
    " if p < 2 "
    "else self * self.abs().pow(p - 2) * (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0)",
)
helper(
    "_inf_norm_backward(grad, self, mask, dim)", "self.sgn() * (grad / mask.sum(dim, True) * mask)"
)

# The vector ``ord``-norm over ``dim``; ord may be 0, inf or -inf too.
VectorNorm = entry(
    "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,"
    " ScalarType? dtype=None) -> Tensor",
    _vector_norm,
    quiet=True,
    self="linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim)",
)


# ---------------------------------------------------------------- cumsum / cumprod


def _along(a: Any) -> Any:
    """A 0-dim array as 1-dim, so that NumPy's scans accept ``axis=0``."""
    return a.reshape(1) if a.ndim == 0 else a


def _c_order(a: Any) -> Any:
    """``a`` in C order: torch's scans and softmaxes make their result contiguous,
    whatever the input's layout (NumPy follows the input's)."""
    return a if a.flags.c_contiguous else np.array(a, order="C")


def _reversed_cumsum(t: Any, dim: int) -> Any:
    """Element ``i`` is the sum of the elements ``i, i+1, ...`` of ``t`` along ``dim``."""
    return t.flip(dim).cumsum(dim).flip(dim) if t.ndim else t


helper("reversed_cumsum(w, dim)", "w.flip(dim).cumsum(dim).flip(dim)")
helper(
    "cumsum_backward(grad, dim)",
    "grad if grad.numel() <= 1 or grad.shape[dim] == 1 else reversed_cumsum(grad, dim)",
)
Cumsum = entry(
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    lambda a, dim, dtype: _c_order(np.cumsum(_along(a), axis=dim, dtype=dtype).reshape(a.shape)),
    self="cumsum_backward(grad, dim)",
)


class Cumprod(Op):
    """Running product along ``dim``."""

    input_names = ("self",)
    saves = ("self", "result")

    def __init__(self, dim: int, np_dtype: Any = None) -> None:
        self.dim = dim
        self.np_dtype = np_dtype

    def forward(self, a: Any) -> Any:
        return _c_order(np.cumprod(_along(a), axis=self.dim, dtype=self.np_dtype).reshape(a.shape))

    def backward(self, grad: Any) -> Any:
        x, result = self.unpack()
        if x.ndim == 0:
            return grad
        dim = self.dim
        if not (x == 0).any():
            return _reversed_cumsum(grad * result.conj(), dim) / x.conj()
        # d result_j / d x_i = product of x_k for k <= j, k != i (zero for j < i).
        size = x.shape[dim]
        partial = _products_without_each(x, dim).cumprod(dim + 1)
        later = np.triu(np.ones((size, size), dtype=bool))
        later = later.reshape((size, size) + (1,) * (x.ndim - dim - 1))
        spread = grad.reshape(tuple(x.shape[:dim]) + (1,) + tuple(x.shape[dim:]))
        terms = (spread * partial.conj()).where(_bool_constant(x, later), 0)
        return terms.sum(dim + 1)


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
