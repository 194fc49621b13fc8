"""Backward ops torch gives no derivative: their node is ``torch::autograd::NotImplemented``.

torch records such a node for the gradient of a backward op its derivatives table leaves
out (``hardsigmoid_backward``, ``multi_margin_loss_backward`` ...): the first gradient is
computed, and a second backward through it raises
``derivative for aten::<op> is not implemented``. A subclass gives the forward and the
``aten_name``. torch's in-place ``acosh_``, ``asinh_`` and ``atanh_`` have no derivative
either: their nodes (``AcoshBackward1`` ...) raise ``NotImplementedError``.
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

    def edges_for(self, inputs: tuple[Any, ...]) -> NotImplementedBackward:
        """This op, with edges for the ``inputs`` that require grad only, as torch's
        fallback for an op without a derivative (``floor_divide``) records them."""
        self.edge_inputs = tuple(
            index for index, x in enumerate(inputs) if getattr(x, "requires_grad", False)
        )
        return self


class InplaceWithoutDerivative(Op):
    """The in-place variant of an entry that torch gives no derivative (``acosh_``,
    ``asinh_``, ``atanh_``): the entry's values, recorded as torch's ``<Name>Backward1``
    (``AcoshBackward1``), whose backward raises torch's ``NotImplementedError``."""

    input_names = ("self",)

    def __init__(self, op: Op, name: str) -> None:
        self.op = op
        self.op_name = name
        self.quiet = op.quiet
        self.node_name = f"{type(op).node_name[:-1]}1"

    def forward(self, a: Any) -> Any:
        return self.op.forward(a)

    def backward(self, grad: Any) -> Any:
        raise NotImplementedError(
            f"the derivative for 'inplace version of {self.op_name}' is not implemented."
        )
