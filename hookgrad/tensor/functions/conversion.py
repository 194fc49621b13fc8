"""Copies, dtype conversions, and ``new_*`` constructors that follow a tensor's dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops import conversion as ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant

__all__ = [
    "clone",
    "conj",
]


def clone(input: Any, *, memory_format: Any = None) -> Any:
    """A copy of ``input`` with its own memory; differentiable."""
    return apply(ops.Clone(), input)


def _to_dtype(input: Any, dtype: dtypes.dtype, copy: bool = False) -> Any:
    if dtype.np == input._data.dtype and not copy:
        return input
    return apply(ops.ToCopy(dtype.np), input)


def to(input: Any, *args: Any, **kwargs: Any) -> Any:
    """``to(dtype)``, ``to(device)``, ``to(other_tensor)`` or ``to(device, dtype)``.

    Only the CPU exists, so a device argument changes nothing.
    """
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    for arg in args:
        if isinstance(arg, dtypes.dtype):
            dtype = arg
        elif hasattr(arg, "_data"):
            dtype = arg.dtype
    if dtype is None:
        return clone(input) if copy else input
    return _to_dtype(input, dtypes.to_dtype(dtype), copy)


def type_as(input: Any, other: Any) -> Any:
    return _to_dtype(input, other.dtype)


def conj(input: Any) -> Any:
    """The complex conjugate (``input`` itself for real tensors)."""
    if input._data.dtype.kind != "c":
        return input
    return apply(ops.Conj(), input)


def contiguous(input: Any, memory_format: Any = None) -> Any:
    """``input`` itself: NumPy-backed tensors need no layout change for hookgrad."""
    return input


def _new(input: Any, array: Any, requires_grad: bool) -> Any:
    out = wrap_constant(array)
    if requires_grad:
        out.requires_grad_()
    return out


def _new_dtype(input: Any, dtype: Any) -> np.dtype:
    return input._data.dtype if dtype is None else dtypes.to_dtype(dtype).np


def _shape(size: tuple[Any, ...]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def new_zeros(
    input: Any, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Any:
    """Zeros of shape ``size`` with ``input``'s dtype (unless given)."""
    return _new(input, np.zeros(_shape(size), _new_dtype(input, dtype)), requires_grad)


def new_ones(
    input: Any, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Any:
    return _new(input, np.ones(_shape(size), _new_dtype(input, dtype)), requires_grad)


def new_empty(
    input: Any, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Any:
    return _new(input, np.empty(_shape(size), _new_dtype(input, dtype)), requires_grad)


def new_full(
    input: Any,
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    return _new(
        input, np.full(_shape((size,)), fill_value, _new_dtype(input, dtype)), requires_grad
    )


def new_tensor(
    input: Any, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Any:
    """A new leaf tensor from ``data`` with ``input``'s dtype (unless given)."""
    source = data._data if hasattr(data, "_data") else data
    return _new(input, np.array(source, _new_dtype(input, dtype)), requires_grad)


class ConversionMethods:
    """Conversion methods of ``Tensor``."""

    __slots__ = ()

    clone = clone
    to = to
    type_as = type_as
    conj = conj
    conjugate = conj
    contiguous = contiguous
    new_zeros = new_zeros
    new_ones = new_ones
    new_empty = new_empty
    new_full = new_full
    new_tensor = new_tensor

    def float(self) -> Any:
        return _to_dtype(self, dtypes.float32)

    def double(self) -> Any:
        return _to_dtype(self, dtypes.float64)

    def half(self) -> Any:
        return _to_dtype(self, dtypes.float16)

    def long(self) -> Any:
        return _to_dtype(self, dtypes.int64)

    def int(self) -> Any:
        return _to_dtype(self, dtypes.int32)

    def bool(self) -> Any:
        return _to_dtype(self, dtypes.bool_)

    def cpu(self) -> Any:
        return self
