"""Reduction and scan functions (sum, mean, var, prod, max, median, nansum, nanmean,
aminmax, mode, cumsum, cummax, logcumsumexp, softmax ...) and their Tensor methods.

A ``dim`` argument is an int or a tuple of ints where torch takes one; ``()`` means all
dims, as in torch. Ops that pick elements along a dim (``max``, ``min``, ``median``,
``mode``, ``cummax`` ...) return a ``(values, indices)`` tuple with those names, like
``torch.return_types.max`` (``hookgrad.tensor.named_tuples``).

Example: ``hookgrad.tensor([[1.0, 3.0], [4.0, 2.0]]).max(dim=1).indices`` is
``tensor([1, 0])``.
"""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy as np

from hookgrad.ops import reduction as ops
from hookgrad.ops import scans as scan_ops
from hookgrad.ops import sorting as sorting_ops
from hookgrad.ops.util import Dims, wrap_dim, wrap_dims
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.inplace import run_inplace
from hookgrad.tensor.named_tuples import RETURN_TYPES
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "all",
    "amax",
    "amin",
    "aminmax",
    "any",
    "argmax",
    "argmin",
    "count_nonzero",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logcumsumexp",
    "logsumexp",
    "max",
    "mean",
    "median",
    "min",
    "mode",
    "nanmean",
    "nanmedian",
    "nansum",
    "prod",
    "softmax",
    "std",
    "std_mean",
    "sum",
    "sum_to_size",
    "var",
    "var_mean",
]


# ---------------------------------------------------------------- argument checks


def check_nonempty(name: str, input: Tensor, dim: int, shown: int) -> None:
    """torch's IndexError when a reduction without identity meets an empty dim."""
    shape = input._data.shape
    if shape and shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {shown} to have non-zero size.")


def _check_numel(name: str, input: Tensor) -> None:
    if input._data.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )


def saved_dims(dim: Dims) -> tuple[int, ...] | None:
    """A ``dim`` argument as torch's node saves it: a tuple of ints as given (in order,
    negative ones included), or None."""
    if dim is None:
        return None
    if isinstance(dim, int) or hasattr(dim, "__index__"):
        return (operator.index(dim),)
    return tuple(operator.index(d) for d in dim)


def _checked_dims(dim: Dims, ndim: int) -> tuple[int, ...] | None:
    """``dim`` as given (see ``saved_dims``), after torch's range and repetition checks."""
    wrap_dims(dim, ndim)
    return saved_dims(dim)


def _sum_dtype(input: Tensor, dtype: Any) -> Any:
    if dtype is not None:
        return dtypes.to_dtype(dtype).np
    if input._data.dtype.kind in "biu":
        return np.int64  # torch sums (and multiplies) integers and bools as int64
    return None


# ---------------------------------------------------------------- sum / mean / var / std


class _NoDim:
    """The default of ``sum``'s and ``mean``'s ``dim``: torch's overload without a dim,
    whose node is SumBackward0 / MeanBackward0 (``dim=None`` given records SumBackward1)."""

    def __repr__(self) -> str:
        return "None"


_NO_DIM: Any = _NoDim()


def sum(input: Tensor, dim: Dims = _NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Sum over ``dim`` (an int, a tuple of ints, or all dims when None).

    Example::

        hookgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(0)    # tensor([4., 6.])
    """
    np_dtype = _sum_dtype(input, dtype)
    if dim is _NO_DIM and not keepdim:
        return apply(ops.Sum(np_dtype), input)
    dims = None if dim is _NO_DIM else _checked_dims(dim, input._data.ndim)
    return apply(ops.SumDim(dims, keepdim, np_dtype), input)


def mean(input: Tensor, dim: Dims = _NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Mean over ``dim``; needs a floating or complex tensor, or a floating ``dtype``."""
    np_dtype = None if dtype is None else dtypes.to_dtype(dtype).np
    result_dtype = input.dtype if dtype is None else dtypes.to_dtype(dtype)
    if not (result_dtype.is_floating_point or result_dtype.is_complex):
        which = "Input" if dtype is None else "Optional"
        name = dtypes.legacy_name(result_dtype)
        raise RuntimeError(
            "mean(): could not infer output dtype. "
            f"{which} dtype must be either a floating point or complex dtype. Got: {name}"
        )
    if dim is _NO_DIM and not keepdim:
        return apply(ops.Mean(np_dtype), input)
    dims = None if dim is _NO_DIM else _checked_dims(dim, input._data.ndim)
    return apply(ops.MeanDim(dims, keepdim, np_dtype), input)


def nansum(input: Tensor, dim: Dims = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """:func:`sum` with NaNs counted as zero; its gradient is zero at the NaNs.

    Example::

        hookgrad.tensor([1.0, float("nan"), 2.0]).nansum()    # tensor(3.)
    """
    if input._data.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    dims = _checked_dims(dim, input._data.ndim)
    return apply(ops.Nansum(dims, keepdim, _sum_dtype(input, dtype)), input)


def nanmean(input: Tensor, dim: Dims = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of the elements that are not NaN: ``nansum`` over their count (as torch
    computes it: a ``NansumBackward0`` divided by the count).

    Example::

        hookgrad.tensor([1.0, float("nan"), 2.0]).nanmean()    # tensor(1.5000)
    """
    if input._data.dtype.kind not in "fc":
        name = dtypes.legacy_name(input.dtype)
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {name}"
        )
    axis = wrap_dims(dim, input._data.ndim)
    factor = np.sum(~np.isnan(input._data), axis=axis or None, keepdims=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype).div(wrap_constant(np.asarray(factor, np.int64)))


def _var_args(
    name: str, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any
) -> tuple[tuple[int, ...] | None, float]:
    """The dims and correction of var/std, accepting torch's legacy ``unbiased`` forms."""
    if input._data.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):  # var(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}(): pass either 'unbiased' or 'correction', not both")
    # As torch saves them: no dim and no correction are None (one over all dims, and 1).
    if correction is None and (unbiased is not None or dim is not None):
        correction = 0 if unbiased is False else 1
    dims = None if dim is None else wrap_dims(dim, input._data.ndim)
    shape = input._data.shape
    count = math.prod(shape[d] for d in dims) if dims else math.prod(shape)
    dims = saved_dims(dim)
    if count - (1 if correction is None else correction) <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel).",
            stacklevel=3,
        )
    return dims, correction


def var(
    input: Tensor,
    dim: Dims = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> Tensor:
    """Variance over ``dim``: the mean square deviation times ``n / (n - correction)``.

    ``correction`` defaults to 1 (Bessel's correction); ``unbiased=False`` means 0.

    Example::

        hookgrad.tensor([1.0, 2.0, 3.0, 4.0]).var()                  # tensor(1.6667)
        hookgrad.tensor([1.0, 2.0, 3.0, 4.0]).var(correction=0)      # tensor(1.2500)
    """
    dims, correction = _var_args("var", input, dim, unbiased, keepdim, correction)
    return apply(ops.Var(dims, correction, keepdim), input)


def std(
    input: Tensor,
    dim: Dims = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> Tensor:
    """Standard deviation over ``dim``: the square root of :func:`var`.

    Its gradient is 0 where the standard deviation is 0 (as torch's).
    """
    dims, correction = _var_args("std", input, dim, unbiased, keepdim, correction)
    return apply(ops.Std(dims, correction, keepdim), input)


def var_mean(
    input: Tensor,
    dim: Dims = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> tuple[Tensor, Tensor]:
    """``(var(input, ...), mean(input, ...))`` computed together."""
    dims, correction = _var_args("var_mean", input, dim, unbiased, keepdim, correction)
    return apply(ops.VarMean(dims, correction, keepdim), input)


def std_mean(
    input: Tensor,
    dim: Dims = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> tuple[Tensor, Tensor]:
    """``(std(input, ...), mean(input, ...))`` computed together."""
    dims, correction = _var_args("std_mean", input, dim, unbiased, keepdim, correction)
    return apply(ops.StdMean(dims, correction, keepdim), input)


# ---------------------------------------------------------------- prod


def prod(
    input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """Product of all elements, or along one ``dim``.

    The gradient is right where ``input`` has zeros: for one zero in a slice only that
    element gets a gradient (the product of the others), for two or more none does.

    Example::

        hookgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(1)    # tensor([ 2., 12.])
    """
    np_dtype = _sum_dtype(input, dtype)
    if dim is None:
        return apply(ops.Prod(np_dtype), input)
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim)
    return apply(ops.ProdDim(dim, keepdim, np_dtype), input)


# ---------------------------------------------------------------- max / min / median


def _no_complex_kernel(kernel: str, input: Tensor) -> NotImplementedError:
    """torch's error for an ordering reduction on a complex tensor."""
    return NotImplementedError(
        f"\"{kernel}\" not implemented for '{dtypes.legacy_name(input.dtype)}'"
    )


def _select(
    name: str, all_op: Any, dim_op: Any, input: Tensor, dim: int | None, keepdim: bool
) -> Any:
    complex_input = input._data.dtype.kind == "c"
    if dim is None:
        if name != "median":
            _check_numel(name, input)
        if complex_input:
            raise _no_complex_kernel("median_cpu" if name == "median" else f"{name}_all", input)
        return apply(all_op(), input)
    if complex_input:
        if name == "median":
            raise _no_complex_kernel("median_out", input)
        raise RuntimeError(f"{name}(): does not support complex input")
    dim = operator.index(dim)
    wrapped = wrap_dim(dim, input._data.ndim)
    check_nonempty(name, input, wrapped, wrapped)
    return RETURN_TYPES[name](apply(dim_op(dim, keepdim), input))


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The largest element, or ``(values, indices)`` of the largest along ``dim``.

    ``max(input, other)`` with a tensor ``other`` is :func:`maximum`. Over all elements,
    tied maxima share the gradient evenly; along ``dim`` the gradient goes to the
    returned index, the first occurrence.

    Example::

        x = hookgrad.tensor([[1.0, 5.0], [4.0, 2.0]])
        x.max()                       # tensor(5.)
        x.max(dim=1).indices          # tensor([1, 0])
    """
    if isinstance(dim, Tensor):
        return input.maximum(dim)
    return _select("max", ops.Max, ops.MaxDim, input, dim, keepdim)


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The smallest element, or ``(values, indices)`` along ``dim``; see :func:`max`."""
    if isinstance(dim, Tensor):
        return input.minimum(dim)
    return _select("min", ops.Min, ops.MinDim, input, dim, keepdim)


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median (no averaging), or ``(values, indices)`` along ``dim``.

    A slice holding NaN has median NaN. Over all elements, tied medians share the
    gradient evenly; along ``dim`` it goes to the returned index.

    Example::

        hookgrad.tensor([4.0, 1.0, 3.0, 2.0]).median()    # tensor(2.)
    """
    return _select("median", ops.Median, ops.MedianDim, input, dim, keepdim)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median of the elements that are not NaN (NaN only if all are), or
    ``(values, indices)`` along ``dim``; see :func:`median`.

    Example::

        hookgrad.tensor([1.0, float("nan"), 3.0, 2.0]).nanmedian()    # tensor(2.)
    """
    complex_input = input._data.dtype.kind == "c"
    if dim is None:
        if complex_input:
            raise _no_complex_kernel("nanmedian_cpu", input)
        return apply(sorting_ops.Nanmedian(), input)
    if complex_input:
        raise _no_complex_kernel("median_out", input)
    dim = operator.index(dim)
    wrapped = wrap_dim(dim, input._data.ndim)
    check_nonempty("median", input, wrapped, wrapped)
    return RETURN_TYPES["nanmedian"](apply(sorting_ops.NanmedianDim(dim, keepdim), input))


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of
    equally frequent ones) and the index of its last occurrence.

    Example::

        hookgrad.tensor([3, 1, 3, 1, 2]).mode()    # values=tensor(1), indices=tensor(3)
    """
    if input._data.dtype.kind == "c":
        raise _no_complex_kernel("mode_cpu", input)
    dim = operator.index(dim)
    wrapped = wrap_dim(dim, input._data.ndim)
    check_nonempty("mode", input, wrapped, wrapped)
    return RETURN_TYPES["mode"](apply(sorting_ops.Mode(dim, keepdim), input))


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """``(min, max)``: :func:`amin` and :func:`amax` over ``dim`` (all elements when
    None) in one pass, as ``torch.return_types.aminmax``.

    Example::

        hookgrad.tensor([[1.0, 5.0], [4.0, 2.0]]).aminmax(dim=1)
        # min=tensor([1., 2.]), max=tensor([5., 4.])
    """
    if input._data.dtype.kind == "c":
        raise _no_complex_kernel("aminmax_cpu", input)
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
    else:
        dim = operator.index(dim)
        wrapped = wrap_dim(dim, input._data.ndim)
        shape = input._data.shape
        if shape and shape[wrapped] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {wrapped} to have non-zero size.")
    return RETURN_TYPES["aminmax"](apply(ops.Aminmax(dim, keepdim), input))


def _extremum(name: str, op: Any, input: Tensor, dim: Dims, keepdim: bool) -> Tensor:
    if input._data.dtype.kind == "c":
        raise _no_complex_kernel(f"{name[1:]}_values_cpu", input)
    given = _checked_dims(dim, input._data.ndim) or ()
    if not given:
        _check_numel(name, input)
    for shown in given:
        check_nonempty(name, input, wrap_dim(shown, input._data.ndim), shown)
    return apply(op(given, keepdim), input)


def amax(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    """Maximum over ``dim`` (an int or tuple; all dims by default).

    Unlike :func:`max` it returns no indices, and tied maxima in a slice share the
    gradient evenly.
    """
    return _extremum("amax", ops.Amax, input, dim, keepdim)


def amin(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    """Minimum over ``dim``; see :func:`amax`."""
    return _extremum("amin", ops.Amin, input, dim, keepdim)


def _arg(name: str, pick: Any, input: Tensor, dim: int | None, keepdim: bool) -> Tensor:
    data = input._data
    if data.dtype.kind == "c":
        raise RuntimeError(f"{name}(): does not support complex input")
    if dim is None:
        if data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        return wrap_constant(np.asarray(pick(data, keepdims=keepdim), np.int64))
    wrapped = wrap_dim(dim, data.ndim)
    if data.ndim == 0:
        return wrap_constant(np.zeros((), np.int64))
    check_nonempty(name, input, wrapped, wrapped)
    return wrap_constant(np.asarray(pick(data, axis=wrapped, keepdims=keepdim), np.int64))


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the largest element (first occurrence) as int64; not differentiable.

    Without ``dim`` the index is into the flattened tensor.
    """
    return _arg("argmax", np.argmax, input, dim, keepdim)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the smallest element (first occurrence); see :func:`argmax`."""
    return _arg("argmin", np.argmin, input, dim, keepdim)


# ---------------------------------------------------------------- logsumexp / norm


def logsumexp(input: Tensor, dim: Dims, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input), dim))``, computed without overflow.

    Example::

        hookgrad.tensor([1000.0, 1000.0]).logsumexp(0)    # tensor(1000.6931)
    """
    if input._data.dtype.kind not in "fc":
        input = input.to(dtypes.get_default_dtype())
    return apply(ops.Logsumexp(_checked_dims(dim, input._data.ndim) or (), keepdim), input)


def check_inf_norm(input: Tensor, dims: tuple[int, ...] | None) -> None:
    """torch's errors for an infinity norm over an empty tensor or an empty reduced dim."""
    shape = input._data.shape
    if dims is None and input._data.size == 0:
        raise RuntimeError(
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
            "operation does not have an identity"
        )
    for dim in dims or ():
        if shape[dim] == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the inf norm on the dimension {dim}"
                "because this dimension is empty and the operation does not have an identity"
            )


# ---------------------------------------------------------------- cumsum / cumprod


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running sum along ``dim``: element ``i`` is the sum of elements ``0..i``.

    Example::

        hookgrad.tensor([1.0, 2.0, 3.0]).cumsum(0)    # tensor([1., 3., 6.])
    """
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim)
    return apply(scan_ops.Cumsum(dim, _sum_dtype(input, dtype)), input)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running product along ``dim``; the gradient is right with zeros in ``input``.

    Example::

        hookgrad.tensor([1.0, 2.0, 3.0]).cumprod(0)    # tensor([1., 2., 6.])
    """
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim)
    return apply(scan_ops.Cumprod(dim, _sum_dtype(input, dtype)), input)


def cumsum_(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place :func:`cumsum`."""
    return run_inplace(input, lambda x: cumsum(x, dim, dtype=dtype))


def cumprod_(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place :func:`cumprod`."""
    return run_inplace(input, lambda x: cumprod(x, dim, dtype=dtype), copy=True)


def _running(name: str, op: Any, input: Tensor, dim: int) -> Any:
    if input._data.dtype.kind == "c":
        raise _no_complex_kernel(f"{name}_cpu", input)
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim)
    return RETURN_TYPES[name](apply(op(dim), input))


def cummax(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running maximum along ``dim`` and the index each value
    came from (the latest of equal ones; a NaN stays from where it appears). The gradient
    goes to those indices.

    Example::

        hookgrad.tensor([1.0, 3.0, 2.0, 3.0]).cummax(0)
        # values=tensor([1., 3., 3., 3.]), indices=tensor([0, 1, 1, 3])
    """
    return _running("cummax", sorting_ops.Cummax, input, dim)


def cummin(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running minimum along ``dim``; see :func:`cummax`."""
    return _running("cummin", sorting_ops.Cummin, input, dim)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input), dim))``, computed without overflow.

    Example::

        hookgrad.tensor([0.0, 0.0, 1000.0]).logcumsumexp(0)
        # tensor([0.0000e+00, 6.9315e-01, 1.0000e+03])
    """
    kind = input._data.dtype.kind
    if kind not in "fc":
        name = dtypes.legacy_name(input.dtype)
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{name}'")
    if kind == "c":
        raise NotImplementedError("hookgrad: logcumsumexp of a complex tensor is not supported")
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim)
    return apply(sorting_ops.Logcumsumexp(dim), input)


# ---------------------------------------------------------------- softmax


def _softmax(name: str, op: Any, input: Tensor, dim: int, dtype: Any) -> Tensor:
    if dtype is not None:
        input = input.to(dtype)
    ndim = input._data.ndim
    dim = operator.index(dim)
    wrapped = wrap_dim(dim, ndim)
    if input._data.dtype.kind != "f":
        kernel = "lastdim_kernel_impl" if wrapped == _last_dim(ndim) else "kernel_impl"
        raise NotImplementedError(
            f"\"{name}_{kernel}\" not implemented for '{dtypes.legacy_name(input.dtype)}'"
        )
    return apply(op(dim, False), input)


def _last_dim(ndim: int) -> int:
    return ndim - 1 if ndim else 0


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``exp(input) / exp(input).sum(dim, keepdim=True)``, computed without overflow.

    With ``dtype`` the input is cast to it first.

    Example::

        hookgrad.tensor([0.0, 0.0]).softmax(0)    # tensor([0.5000, 0.5000])
    """
    return _softmax("softmax", scan_ops.Softmax, input, dim, dtype)


def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``log(softmax(input, dim))``, computed as ``input - logsumexp(input, dim)``."""
    return _softmax("log_softmax", scan_ops.LogSoftmax, input, dim, dtype)


# ---------------------------------------------------------------- bool and counting


def _truth(ufunc: Any, input: Tensor, dim: Dims, keepdim: bool) -> Tensor:
    data = input._data
    axis = wrap_dims(dim, data.ndim)
    # NOTE: as torch's, a uint8 tensor answers in uint8 (0 or 1), all others in bool.
    result_dtype = np.uint8 if data.dtype == np.uint8 else np.bool_
    return wrap_constant(np.asarray(ufunc(data, axis=axis, keepdims=keepdim), result_dtype))


def all(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    """Whether every element (along ``dim``) is non-zero, as a bool tensor (uint8 for uint8)."""
    return _truth(np.all, input, dim, keepdim)


def any(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    """Whether some element (along ``dim``) is non-zero, as a bool tensor (uint8 for uint8)."""
    return _truth(np.any, input, dim, keepdim)


def count_nonzero(input: Tensor, dim: Dims = None) -> Tensor:
    """How many elements (along ``dim``, all by default) are non-zero, as int64."""
    dims = wrap_dims(dim, input._data.ndim) or None
    return wrap_constant(np.asarray(np.count_nonzero(input._data, axis=dims), np.int64))


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """Sum ``input`` down to ``size``, which it must broadcast from."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    current = input._data.shape
    if current == tuple(shape):
        return input
    if not shape:
        return sum(input)  # as torch's: a sum, not a view of one
    lead = len(current) - len(shape)
    if lead < 0:
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(current)}")
    dims = list(range(lead))
    for i, size_i in enumerate(shape):
        if size_i == 1 and current[lead + i] != 1:
            dims.append(lead + i)
        elif size_i != current[lead + i]:
            raise RuntimeError(f"size {list(shape)} is not expandable to size {list(current)}")
    out = apply(ops.SumDim(tuple(dims), True), input)
    return out.reshape(shape) if lead else out


class ReductionMethods:
    """Reduction methods of ``Tensor``."""

    sum = sum
    mean = mean
    var = var
    std = std
    prod = prod
    max = max
    min = min
    median = median
    amax = amax
    amin = amin
    argmax = argmax
    argmin = argmin
    logsumexp = logsumexp
    cumsum = cumsum
    cumprod = cumprod
    cumsum_ = cumsum_
    cumprod_ = cumprod_
    cummax = cummax
    cummin = cummin
    logcumsumexp = logcumsumexp
    nansum = nansum
    nanmean = nanmean
    nanmedian = nanmedian
    mode = mode
    aminmax = aminmax
    softmax = softmax
    log_softmax = log_softmax
    all = all
    any = any
    count_nonzero = count_nonzero
    sum_to_size = sum_to_size
