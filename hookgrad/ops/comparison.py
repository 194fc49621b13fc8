"""The nodes of the in-place comparisons (``eq_``, ``ne_``, ``lt_``, ``le_``, ``gt_``,
``ge_``): ``self`` becomes 1 where the comparison holds, else 0, in its own dtype. Their
gradient is zero for ``self`` and for a tensor ``other`` (torch's ``zeros_like``); the node
is torch's: ``EqBackward0`` with a number ``other``, ``EqBackward1`` with a tensor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class CompareInplace(Op):
    """``self.<name>_(other)`` with a tensor ``other``: ``compare(self, other)`` on the
    promoted arrays; the bools are written in ``self``'s dtype."""

    input_names = ("self", "other")

    def __init__(self, name: str, compare: Callable[[Any, Any], Any], overload: int) -> None:
        self.node_name = f"{name.title()}Backward{overload}"
        self.compare = compare

    def forward(self, a: Any, b: Any) -> Any:
        return np.asarray(self.compare(a, b))

    def backward(self, grad: Any) -> Any:
        grads = []
        for meta in self._input_meta:
            grads.append(None if meta is None else grad.new_zeros(meta[0], dtype=meta[1]))
        return tuple(grads)


class CompareScalarInplace(CompareInplace):
    """``self.<name>_(other)`` with a number ``other``."""

    input_names = ("self",)

    def __init__(self, name: str, compare: Callable[[Any, Any], Any], other: Any) -> None:
        super().__init__(name, compare, 0)
        self.other = other

    def forward(self, a: Any) -> Any:
        return np.asarray(self.compare(a, self.other))
