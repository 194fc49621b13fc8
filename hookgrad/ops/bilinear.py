"""The bilinear form of ``nn.Bilinear``: ``out[b, o] = sum_ij x1[b, i] w[o, i, j] x2[b, j]``.

torch computes it with its ``_trilinear`` kernel (node ``TrilinearBackward0``); each
gradient here is the same contraction with the operand's own index left out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class Trilinear(Op):
    """``einsum("bi,oij,bj->bo", i1, i2, i3)``: batch rows ``i1``, ``i3``, weight ``i2``."""

    input_names = ("i1", "i2", "i3")
    saves = ("i1", "i2", "i3")
    saved_for = {"i1": ("i2", "i3"), "i2": ("i1", "i3"), "i3": ("i1", "i2")}

    def forward(self, x1: Any, weight: Any, x2: Any) -> Any:
        # (x1 @ w) has shape (o, b, j); multiplying by x2 and summing j finishes the form.
        partial = np.matmul(x1, weight)
        return np.einsum("obj,bj->bo", partial, x2)

    def backward(self, grad: Any) -> Any:
        x1, weight, x2 = self.unpack()
        needs = self.needs_input_grad
        grad_x1 = grad._einsum("bo,oij,bj->bi", weight, x2) if needs[0] else None
        grad_weight = grad._einsum("bo,bi,bj->oij", x1, x2) if needs[1] else None
        grad_x2 = grad._einsum("bo,bi,oij->bj", x1, weight) if needs[2] else None
        return grad_x1, grad_weight, grad_x2
