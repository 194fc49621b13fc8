"""Reduction functions (sum, mean, ...) and their Tensor methods."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops import reduction as ops
from hookgrad.ops.util import wrap_dims
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply

__all__ = [
    "mean",
    "sum",
    "sum_to_size",
]


def _sum_dtype(input: Any, dtype: Any) -> Any:
    if dtype is not None:
        return dtypes.to_dtype(dtype).np
    if input._data.dtype.kind in "biu":
        return np.int64  # torch sums integers and bools as int64
    return None


def sum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    """Sum over ``dim`` (an int, a tuple of ints, or all dims when None)."""
    dims = wrap_dims(dim, input._data.ndim)
    return apply(ops.Sum(dims, keepdim, _sum_dtype(input, dtype)), input)


def mean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    """Mean over ``dim``; needs a floating or complex tensor (or ``dtype``)."""
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {input.dtype.name.capitalize()}"
        )
    dims = wrap_dims(dim, input._data.ndim)
    return apply(ops.Mean(dims, keepdim), input)


def sum_to_size(input: Any, *size: Any) -> Any:
    """Sum ``input`` down to ``size``, which it must broadcast from."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    current = input._data.shape
    if current == tuple(shape):
        return input
    lead = len(current) - len(shape)
    if lead < 0:
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(current)}")
    dims = list(range(lead))
    for i, size_i in enumerate(shape):
        if size_i == 1 and current[lead + i] != 1:
            dims.append(lead + i)
        elif size_i != current[lead + i]:
            raise RuntimeError(f"size {list(shape)} is not expandable to size {list(current)}")
    out = apply(ops.Sum(tuple(dims), True), input)
    return out.reshape(shape) if lead else out


class ReductionMethods:
    """Reduction methods of ``Tensor``."""

    __slots__ = ()

    sum = sum
    mean = mean
    sum_to_size = sum_to_size
