"""Steps of torch's C++ composites as torch records them, for the composite functions
written here (``statistics.py``, ``differences.py``): ``at::slice`` (``slice_along``,
recorded as ``SliceBackward0`` with the arguments as given) and a tensor times or over a
number (``mul_number``, ``div_number``: the ``Scalar`` overloads, ``MulBackward1`` and
``DivBackward1``, not a wrapped-number tensor).

Example: ``mul_number(x, 0.5).grad_fn`` is a ``MulBackward1`` for a float ``x`` that
requires grad.
"""

from __future__ import annotations

from typing import Any

from hookgrad.ops.shape import Slice
from hookgrad.ops.table import call
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.tensor import Tensor


def slice_along(x: Tensor, dim: int, start: int | None, end: int | None = None) -> Tensor:
    """``at::slice(x, dim, start, end)``: a view, recorded as torch's ``SliceBackward0``
    with the arguments as given."""
    return apply(Slice(dim, start, end, 1), x)


def is_floating(value: Any) -> bool:
    """Whether ``value`` is a floating or complex tensor (a number is not)."""
    return isinstance(value, Tensor) and (value.dtype.is_floating_point or value.dtype.is_complex)


def mul_number(a: Any, b: Any) -> Tensor:
    """``a * b`` as torch's C++ writes it: with a number on one side, the ``Scalar``
    overload (``MulBackward1``, one edge), not a wrapped-number tensor. (An integer
    tensor, which records nothing, takes the public op and its type promotion.)"""
    if is_floating(a) or is_floating(b):
        return call("_mul", a, b)
    return a * b


def div_number(a: Tensor, number: Any) -> Tensor:
    """``a / number``, torch's ``Scalar`` overload (``DivBackward1``); see ``mul_number``."""
    return call("_div", a, number) if is_floating(a) else a / number
