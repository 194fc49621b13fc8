"""How the shape and joining functions read their arguments, with torch's errors: int
sequences (``int_tuple``), varargs sizes (``varargs``: ``f(2, 3)`` and ``f((2, 3))``),
dims given as an int or a sequence (``given_dims``, ``dim_list``), a shape with one ``-1``
(``infer_shape``) and a sequence of tensors (``tensor_list``).

Example: ``infer_shape((2, -1), 6)`` is ``(2, 3)``; ``varargs(((2, 3),), "view", "size")``
is ``(2, 3)``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

from hookgrad.ops.util import wrap_dim
from hookgrad.tensor.tensor import Tensor


def int_tuple(values: Any, fn: str, arg: str) -> tuple[int, ...]:
    """A sequence of ints (Python ints or integer tensors), with torch's TypeError."""
    out = []
    for pos, value in enumerate(values):
        try:
            out.append(operator.index(value))
        except TypeError:
            raise TypeError(
                f"{fn}(): argument '{arg}' must be tuple of ints, but found element of type "
                f"{type(value).__name__} at pos {pos}"
            ) from None
    return tuple(out)


def tensor_list(tensors: Any, fn: str) -> list[Any]:
    """``tensors`` (a sequence of tensors) as a list, with torch's TypeError for anything
    else."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, Sequence):
        raise TypeError(
            f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    for index, item in enumerate(tensors):
        if not isinstance(item, Tensor):
            raise TypeError(
                f"expected Tensor as element {index} in argument 0, but got {type(item).__name__}"
            )
    return list(tensors)


def varargs(values: tuple[Any, ...], fn: str, arg: str) -> tuple[int, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` alike: the ints of a varargs argument."""
    if len(values) == 1 and isinstance(values[0], Sequence):
        values = tuple(values[0])
    return int_tuple(values, fn, arg)


def given_dims(dims: Any) -> tuple[int, ...]:
    """An int-or-sequence dim argument as a tuple of ints, as given (torch saves it so)."""
    return tuple(operator.index(d) for d in (dims if isinstance(dims, Sequence) else (dims,)))


def dim_list(dims: Any, ndim: int) -> tuple[int, ...]:
    """Wrapped dims of an int-or-sequence argument; torch's error for a repeated dim."""
    wrapped = tuple(wrap_dim(d, ndim) for d in given_dims(dims))
    for i, dim in enumerate(wrapped):
        if dim in wrapped[:i]:
            raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
    return wrapped if ndim else ()


def infer_shape(given: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """Resolve a single ``-1`` and check the element count (torch's errors)."""
    for index, size in enumerate(given):
        if size < -1:
            raise RuntimeError(
                f"invalid shape dimension {size} at index {index} of shape {list(given)}"
            )
    if given.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in given if s != -1)
    if -1 in given:
        if known == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(given)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if numel % known == 0:
            return tuple(numel // known if s == -1 else s for s in given)
    elif known == numel:
        return given
    raise RuntimeError(f"shape '{list(given)}' is invalid for input of size {numel}")
