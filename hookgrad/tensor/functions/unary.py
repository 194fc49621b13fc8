"""Unary elementwise math functions and their Tensor methods."""

from __future__ import annotations

from typing import Any

from hookgrad.ops import unary as ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply_arrays

__all__ = [
    "exp",
    "log",
    "reciprocal",
]


def _float_data(input: Any) -> Any:
    """The input's array; integer and bool tensors compute in the default float dtype."""
    data = input._data
    if data.dtype.kind in "fc":
        return data
    return data.astype(dtypes.get_default_dtype().np)


def _unary(op: Any, input: Any) -> Any:
    return apply_arrays(op, (input,), (_float_data(input),))


def exp(input: Any) -> Any:
    """Elementwise ``e ** input``."""
    return _unary(ops.Exp(), input)


def log(input: Any) -> Any:
    """Elementwise natural logarithm."""
    return _unary(ops.Log(), input)


def reciprocal(input: Any) -> Any:
    """Elementwise ``1 / input``."""
    return _unary(ops.Reciprocal(), input)


class UnaryMethods:
    """Unary math methods of ``Tensor``."""

    __slots__ = ()

    exp = exp
    log = log
    reciprocal = reciprocal
