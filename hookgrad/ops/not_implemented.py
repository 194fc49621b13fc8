"""Backward ops torch gives no derivative: their node is ``torch::autograd::NotImplemented``.

torch records such a node for the gradient of a backward op its derivatives table leaves
out (``hardsigmoid_backward``, ``multi_margin_loss_backward`` ...): the first gradient is
computed, and a second backward through it raises
``derivative for aten::<op> is not implemented``. A subclass gives the forward and the
``aten_name``.
"""

from __future__ import annotations

from typing import Any

from hookgrad.ops.base import Op


class NotImplementedBackward(Op):
    """A backward op without a derivative (its subclasses' ``forward`` computes it)."""

    node_name = "torch::autograd::NotImplemented"
    aten_name = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        cls.node_name = NotImplementedBackward.node_name
        super().__init_subclass__(**kwargs)

    def backward(self, *grads: Any) -> Any:
        raise RuntimeError(f"derivative for aten::{self.aten_name} is not implemented")
