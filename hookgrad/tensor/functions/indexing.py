"""Indexing functions (``[]``, gather, scatter, masked_fill ...) and Tensor methods."""

from __future__ import annotations

from typing import Any

from hookgrad.ops import indexing as ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply

__all__ = [
    "masked_fill",
]


def masked_fill(input: Any, mask: Any, value: Any) -> Any:
    """``input`` with ``value`` where the bool ``mask`` (broadcast) is true."""
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.name}"
        )
    if hasattr(value, "_data"):
        value = value.item()
    return apply(ops.MaskedFill(value), input, mask)


class IndexingMethods:
    """Indexing methods of ``Tensor``."""

    __slots__ = ()

    masked_fill = masked_fill
