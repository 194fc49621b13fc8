"""Indexing ops: ``__getitem__``, gather, scatter, index_select, masked_fill."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class MaskedFill(Op):
    """``self`` with ``value`` where ``mask`` is true; no gradient at filled places."""

    input_names = ("self", "mask")
    saves = ("mask",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def forward(self, a: Any, mask: Any) -> Any:
        return np.where(mask, np.asarray(self.value, a.dtype), a)

    def backward(self, grad: Any) -> Any:
        (mask,) = self.unpack()
        return grad.masked_fill(mask, 0), None
