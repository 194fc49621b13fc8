"""Shape and view functions and their Tensor methods."""

from __future__ import annotations

import math
from typing import Any

from hookgrad.ops import shape as ops
from hookgrad.tensor.dispatch import apply

__all__ = [
    "expand",
    "expand_as",
    "reshape",
    "view",
]


def _size_args(size: tuple[Any, ...]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _infer_shape(shape: tuple[int, ...], numel: int, given: tuple[int, ...]) -> tuple[int, ...]:
    """Resolve a single ``-1`` and check the element count (torch's errors)."""
    if given.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in given if s != -1)
    if -1 in given:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(given)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in given)
    if known != numel:
        raise RuntimeError(f"shape '{list(given)}' is invalid for input of size {numel}")
    return given


def reshape(input: Any, *shape: Any) -> Any:
    """The same elements in a new shape (one dim may be ``-1``)."""
    target = _infer_shape(input._data.shape, input._data.size, _size_args(shape))
    return apply(ops.Reshape(target), input)


def view(input: Any, *shape: Any) -> Any:
    """Like ``reshape`` (hookgrad never needs a contiguity check)."""
    return reshape(input, *shape)


def expand(input: Any, *sizes: Any) -> Any:
    """Broadcast to ``sizes`` (``-1`` keeps a dim) without copying."""
    given = _size_args(sizes)
    current = input._data.shape
    if len(given) < len(current):
        raise RuntimeError(
            f"expand(torch.{input.dtype.type_name[3:]}{{{list(current)}}}, size={list(given)}): "
            f"the number of sizes provided ({len(given)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(current)})"
        )
    lead = len(given) - len(current)
    target = list(given)
    for i, size in enumerate(current):
        wanted = given[lead + i]
        if wanted == -1:
            target[lead + i] = size
        elif size != 1 and size != wanted:
            raise RuntimeError(
                f"The expanded size of the tensor ({wanted}) must match the existing size "
                f"({size}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"{list(given)}.  Tensor sizes: {list(current)}"
            )
    return apply(ops.Expand(tuple(target)), input)


def expand_as(input: Any, other: Any) -> Any:
    return expand(input, other._data.shape)


class ShapeMethods:
    """Shape and view methods of ``Tensor``."""

    __slots__ = ()

    reshape = reshape
    view = view
    expand = expand
    expand_as = expand_as
