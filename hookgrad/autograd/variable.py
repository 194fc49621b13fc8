"""``Variable``: torch's deprecated alias of ``Tensor``, kept for code that imports it.

``isinstance(t, Variable)`` is true for every tensor, and ``Variable(t)`` /
``Variable(t, requires_grad=True)`` make a tensor as torch does: a detached alias of
``t`` (same data and version counter) with the given ``requires_grad``.
"""

from __future__ import annotations

import warnings
from typing import Any

from hookgrad.tensor.tensor import Tensor

VOLATILE_WARNING = (
    "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."
)


class VariableMeta(type):
    """Makes ``isinstance(x, Variable)`` true for every ``Tensor``."""

    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False, _grad_fn=None,
    name=None)``: a tensor sharing ``data``'s memory and version counter, detached from
    its graph, with ``requires_grad`` set; ``Variable()`` is an empty float tensor.

    Example::

        v = Variable(hookgrad.ones(2), requires_grad=True)   # a leaf that requires grad
        isinstance(v, Variable)                               # True
    """

    def __new__(
        cls,
        data: Any = None,
        requires_grad: bool = False,
        volatile: bool = False,
        _grad_fn: Any = None,
        name: str | None = None,
    ) -> Any:
        if volatile:
            warnings.warn(VOLATILE_WARNING, UserWarning, stacklevel=2)
        if data is None:
            data = Tensor()
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad and not (out.dtype.is_floating_point or out.dtype.is_complex):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        out.requires_grad = bool(requires_grad)
        return out
