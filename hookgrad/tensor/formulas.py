"""Binds the derivative table to the tensor layer, once, from ``hookgrad.tensor``:
formulas that run on tensors (``create_graph=True``) call hookgrad's public functions,
and the fast path wraps its arrays as ``Tensor``. (``hookgrad.tensor.methods`` attaches
the table's methods, ``x.exp()`` and ``x.exp_()``.)"""

from __future__ import annotations

from hookgrad.ops import table
from hookgrad.tensor import creation, dispatch
from hookgrad.tensor.functions import (
    arithmetic,
    as_strided,
    conversion,
    einsum,
    flags,
    generated,
    index_functions,
    indexing,
    joining,
    linalg,
    positions,
    reduction,
    shape,
    unary,
    view_copies,
)
from hookgrad.tensor.tensor import Tensor

_MODULES = (
    arithmetic,
    conversion,
    generated,
    indexing,
    index_functions,
    positions,
    joining,
    linalg,
    einsum,
    reduction,
    shape,
    view_copies,
    as_strided,
    flags,
    unary,
)
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
