"""Binds the derivative table to the tensor layer: formulas that run on tensors
(``create_graph=True``) call hookgrad's public functions, and the fast path wraps its
arrays as ``Tensor``. Imported once by ``hookgrad.tensor``."""

from __future__ import annotations

from hookgrad.ops import table
from hookgrad.tensor import creation, dispatch
from hookgrad.tensor.functions import (
    arithmetic,
    conversion,
    indexing,
    joining,
    linalg,
    reduction,
    shape,
    unary,
)
from hookgrad.tensor.tensor import Tensor

_MODULES = (arithmetic, conversion, indexing, joining, linalg, reduction, shape, unary)
_CREATION = ("zeros_like", "ones_like", "full_like", "empty_like", "zeros", "ones", "full")

table.bind(
    Tensor._make,
    dispatch.apply,
    {
        name: getattr(module, name)
        for module in _MODULES
        for name in getattr(module, "__all__", ())
        if callable(getattr(module, name))
    }
    | {name: getattr(creation, name) for name in _CREATION},
)
