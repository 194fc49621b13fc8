"""Ops of in-place changes: the nodes of ``zero_``, ``fill_`` and ``copy_`` (the random
fills are in ``hookgrad.ops.random``), and the two nodes torch records for views modified
in place.

``CopySlices`` becomes the ``grad_fn`` of a base after an in-place op on one of its views;
``AsStrided`` is the regenerated ``grad_fn`` of a view whose base changed. Both get a
``geometry`` from the tensor layer (``hookgrad.tensor.views.ViewGeometry``) that maps a
gradient between the view's and the base's shapes with differentiable ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.graph.node import Edge, Node, next_sequence_nr
from hookgrad.graph.saved import FREED_MESSAGE
from hookgrad.ops.base import Op

OVERLAP_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a "
    "single memory location. Please clone() the tensor before performing the operation."
)


_state = grad_mode._state


def has_internal_overlap(data: np.ndarray) -> bool:
    """torch's test of a written-to tensor: a dim of more than one element has stride 0."""
    return any(stride == 0 and size > 1 for stride, size in zip(data.strides, data.shape))


# ---------------------------------------------------------------- overwriting the values


class Overwrite(Op):
    """An op whose result does not depend on ``self``'s old values: its gradient is zero."""

    input_names = ("self",)

    def backward(self, grad: Any) -> Any:
        return grad.new_zeros(grad.shape)


class Zero(Overwrite):
    """``zero_``: every element becomes 0."""

    fills = True

    def forward(self, a: Any) -> Any:
        return np.zeros_like(a)


class Fill(Overwrite):
    """``fill_(value)`` with a Python number (cast to ``self``'s dtype)."""

    node_name = "FillBackward2"
    fills = True

    def __init__(self, value: Any) -> None:
        self.value = value

    def forward(self, a: Any) -> Any:
        return np.full_like(a, self.value)


class FillTensor(Op):
    """``fill_(value)`` with a 0-dim tensor, which gets the sum of the gradient."""

    node_name = "FillBackward3"
    input_names = ("self", "value")

    def forward(self, a: Any, value: Any) -> Any:
        return np.full_like(a, value)

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        return grad.new_zeros(grad.shape) if needs[0] else None, grad.sum() if needs[1] else None


class Copy(Op):
    """``copy_(src)``: ``src`` broadcast to ``self``'s shape and cast to its dtype.

    ``src`` gets the gradient (summed and cast back by the engine), ``self`` none.
    """

    node_name = "torch::autograd::CopyBackwards"
    input_names = ("self", "src")

    def forward(self, a: Any, src: Any) -> Any:
        if np.iscomplexobj(src) and not np.iscomplexobj(a):
            src = src.real
        out = np.empty_like(a)
        np.copyto(out, src, casting="unsafe")
        return out

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        return grad.new_zeros(grad.shape) if needs[0] else None, grad if needs[1] else None

    def __repr__(self) -> str:
        return f"<CopyBackwards object at {id(self):#x}>"


# ---------------------------------------------------------------- views modified in place


class AsStrided(Op):
    """The ``grad_fn`` regenerated for a view after its base changed in place (torch's
    ``AsStridedBackward0``): the view's gradient goes to its place in the base's.

    As an op (``CopySlices`` and this backward under ``create_graph=True``) it makes
    that view of a tensor laid out as the base (``squeezed``: without size-1 dims)."""

    view = True
    node_name = "AsStridedBackward0"
    input_names = ("self",)

    def __init__(self, geometry: Any, squeezed: bool = False) -> None:
        self.geometry = geometry
        self.squeezed = squeezed

    def forward(self, a: Any) -> Any:
        return self.geometry.part_of(a, self.squeezed)

    def backward(self, grad: Any) -> Any:
        return self.geometry.put(grad)


class CopySlices(Node):
    """The ``grad_fn`` of a base after an in-place op on one of its views (torch's node).

    ``fn`` is the in-place op's own node, recorded as if it ran on the view alone. The
    base's gradient passes through unchanged except in the view's part, which ``fn`` maps
    to the gradient of the view's old values (put back into that part) and to the
    gradients of ``fn``'s other inputs (this node's other edges).
    """

    def __init__(self, geometry: Any, base_edge: Edge, base_meta: Any, fn: Node) -> None:
        self.geometry = geometry
        self.fn = fn
        self.next_functions = (base_edge,) + fn.next_functions[1:]
        self._input_meta = (base_meta,) + fn._input_meta[1:]
        self._seq = next_sequence_nr()

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def __repr__(self) -> str:
        return f"<CopySlices object at {id(self):#x}>"

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        grad = grad_outputs[0]
        geometry = self.geometry
        if self.fn is None:
            raise RuntimeError(FREED_MESSAGE)
        if _state.grad_enabled and geometry.same_dtype:
            # create_graph=True: the steps torch takes, so that its graph is recorded.
            return geometry.copy_slices(grad, self.fn, self._input_meta[0] is not None)
        result = self.fn._apply([geometry.take(grad)])
        if type(result) is not tuple:
            result = (result,)
        grad_base = None
        if self._input_meta[0] is not None:
            if geometry.overlapping:
                # NOTE: torch copies the result into the view's part of the base's
                # gradient, which its elements share: an in-place copy_ it refuses.
                raise RuntimeError(OVERLAP_ERROR)
            values = result[0]
            if values is None:
                values = geometry.view_zeros(grad)
            grad_base = geometry.replace(grad, values)
        return (grad_base, *result[1:])

    def _release_variables(self) -> None:
        # NOTE: as torch's, a released CopySlices drops its op: running it again is an error.
        if self.fn is not None:
            self.fn._release_variables()
            self.fn = None
