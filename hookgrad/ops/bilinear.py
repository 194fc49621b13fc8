"""torch's ``_trilinear``, the kernel of ``nn.Bilinear`` (node ``TrilinearBackward0``).

Each input is given size-1 dims at its ``expand`` positions, the three are multiplied
(broadcasting) and the product summed over ``sumdim``: for ``F.bilinear``,
``out[b, o] = sum_ij x1[b, i] w[o, i, j] x2[b, j]``. Each gradient is the same contraction
with the operand's own positions exchanged with ``sumdim`` (torch's
``_trilinear_backward``), so a ``create_graph=True`` gradient records
``TrilinearBackward0`` nodes again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class Trilinear(Op):
    """``sum over sumdim of unsqueezed(i1) * unsqueezed(i2) * unsqueezed(i3)``."""

    input_names = ("i1", "i2", "i3")
    saves = ("i1", "i2", "i3")
    saved_for = {"i1": ("i2", "i3"), "i2": ("i1", "i3"), "i3": ("i1", "i2")}
    saved_attributes = ("expand1", "expand2", "expand3", "sumdim")

    def __init__(
        self,
        expand1: tuple[int, ...],
        expand2: tuple[int, ...],
        expand3: tuple[int, ...],
        sumdim: tuple[int, ...],
    ) -> None:
        self.expand1 = expand1
        self.expand2 = expand2
        self.expand3 = expand3
        self.sumdim = sumdim

    def forward(self, i1: Any, i2: Any, i3: Any) -> Any:
        letters = _LETTERS[: i1.ndim + len(self.expand1)]

        def subscripts(left_out: tuple[int, ...]) -> str:
            return "".join(c for d, c in enumerate(letters) if d not in left_out)

        spec = ",".join(subscripts(e) for e in (self.expand1, self.expand2, self.expand3))
        out = np.einsum(f"{spec}->{subscripts(self.sumdim)}", i1, i2, i3, optimize=True)
        return np.ascontiguousarray(out)

    def backward(self, grad: Any) -> Any:
        i1, i2, i3 = self.unpack()
        needs = self.needs_input_grad
        e1, e2, e3, sumdim = self.expand1, self.expand2, self.expand3, self.sumdim
        grad_i1 = grad._apply_op(Trilinear(sumdim, e2, e3, e1), i2, i3) if needs[0] else None
        grad_i2 = i1._apply_op(Trilinear(e1, sumdim, e3, e2), grad, i3) if needs[1] else None
        grad_i3 = i1._apply_op(Trilinear(e1, e2, sumdim, e3), i2, grad) if needs[2] else None
        return grad_i1, grad_i2, grad_i3
