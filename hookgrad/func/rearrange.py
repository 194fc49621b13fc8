"""``rearrange``: einops' reordering of a tensor's dims by a pattern, as ``torch.func``
has it: ``"b h w c -> b (c h w)"`` names the input's dims on the left and says on the
right how they are ordered and grouped; a group on the left splits a dim (its other
sizes given as keywords), a group on the right merges dims, ``...`` stands for the
dims not named, and ``()`` or ``1`` is a dim of size 1. It is one reshape, one permute and
one reshape, so autograd and ``vmap`` see ordinary views.
"""

from __future__ import annotations

import math
import re
from typing import Any

from hookgrad.tensor.functions.joining import stack
from hookgrad.tensor.tensor import Tensor

__all__ = ["rearrange"]

_ELLIPSIS = "…"
_TOKEN = re.compile(r"\(|\)|\.\.\.|[A-Za-z_][A-Za-z0-9_]*|\d+")


def _parse(side: str, text: str) -> list[list[str]]:
    """One side of the pattern as its dims, each a group of axis names (``"1"`` for a
    size-1 axis, ``_ELLIPSIS`` for the dims ``...`` stands for; a bracketed group starts
    with ``"("``)."""
    groups: list[list[str]] = []
    current: list[str] | None = None
    position = 0
    for match in _TOKEN.finditer(text):
        if text[position : match.start()].strip():
            raise ValueError(f"Unknown character in {side} of pattern: {text!r}")
        position = match.end()
        token = match.group()
        if token == "(":
            if current is not None:
                raise ValueError(
                    f"Axis composition is one-level (brackets inside brackets): {text!r}"
                )
            current = ["("]
        elif token == ")":
            if current is None:
                raise ValueError(f"Brackets are not balanced: {text!r}")
            groups.append(current)
            current = None
        else:
            name = _ELLIPSIS if token == "..." else token
            if token.isdigit() and token != "1":
                raise ValueError(f"Non-unitary anonymous axes are not supported: {token}")
            if current is None:
                groups.append([name])
            else:
                current.append(name)
    if text[position:].strip() or current is not None:
        raise ValueError(f"Brackets are not balanced: {text!r}")
    return groups


def rearrange(tensor: Any, pattern: str, **axes_lengths: int) -> Tensor:
    """``tensor`` (or a sequence of tensors, stacked along a new first dim) with its dims
    reordered, split and merged as ``pattern`` says (einops' ``rearrange``).

    Example::

        images = hookgrad.randn(32, 30, 40, 3)
        rearrange(images, "b h w c -> b c h w").shape                  # (32, 3, 30, 40)
        rearrange(images, "b (h1 h) (w1 w) c -> (b h1 w1) h w c", h1=2, w1=2).shape
    """
    if not isinstance(tensor, Tensor):
        tensor = stack(list(tensor))
    if pattern.count("->") != 1:
        raise ValueError(f"Pattern must contain a single '->' separator: {pattern}")
    left_text, right_text = pattern.split("->")
    left, right = _parse("left", left_text), _parse("right", right_text)
    left_names = _names(left)
    right_names = _names(right)
    for names, side in ((left_names, "left"), (right_names, "right")):
        if len(set(names)) != len(names):
            raise ValueError(
                f"Indexing expression contains duplicate dimension on {side}: {pattern}"
            )
    if set(left_names) != set(right_names):
        difference = sorted(set(left_names) ^ set(right_names))
        raise ValueError(
            f"Identifiers only on one side of expression (should be on both): {difference}"
        )
    unknown = set(axes_lengths) - set(left_names)
    if unknown:
        raise ValueError(f"Identifiers not found in expression: {sorted(unknown)}")
    sizes = _axis_sizes(tensor, left, axes_lengths, pattern)
    elementary = [sizes[name] for name in left_names]
    flat = tensor.reshape(tuple(s for size in elementary for s in _as_dims(size)))
    positions = {}
    start = 0
    for name in left_names:
        count = len(_as_dims(sizes[name]))
        positions[name] = list(range(start, start + count))
        start += count
    permutation = [p for name in right_names for p in positions[name]]
    moved = flat.permute(tuple(permutation))
    shape: list[int] = []
    for group in right:
        if group == [_ELLIPSIS]:
            shape.extend(sizes[_ELLIPSIS])
        else:
            names = [n for n in group if n not in ("(", "1")]
            shape.append(math.prod(math.prod(_as_dims(sizes[n])) for n in names))
    return moved.reshape(tuple(shape))


def _names(groups: list[list[str]]) -> list[str]:
    return [n for group in groups for n in group if n not in ("(", "1")]


def _as_dims(size: Any) -> tuple[int, ...]:
    return tuple(size) if isinstance(size, tuple) else (size,)


def _axis_sizes(tensor: Tensor, left: list[list[str]], given: dict[str, int], pattern: str) -> dict:
    """The size of each named axis (the dims of ``...`` as a tuple under ``_ELLIPSIS``)."""
    shape = tuple(tensor.shape)
    ellipsis = sum(group == [_ELLIPSIS] for group in left)
    if any(_ELLIPSIS in group and group != [_ELLIPSIS] for group in left) or ellipsis > 1:
        raise ValueError(f"Ellipsis may appear once, not inside brackets: {pattern}")
    fixed = len(left) - ellipsis
    if (ellipsis and len(shape) < fixed) or (not ellipsis and len(shape) != fixed):
        raise ValueError(
            f"Wrong shape: expected {fixed}{'+' if ellipsis else ''} dims. Received "
            f"{len(shape)}-dim tensor."
        )
    sizes: dict[str, Any] = dict(given)
    dims = list(shape)
    for group in left:
        if group == [_ELLIPSIS]:
            count = len(shape) - fixed
            sizes[_ELLIPSIS] = tuple(dims[:count])
            dims = dims[count:]
            continue
        size = dims.pop(0)
        names = [n for n in group if n not in ("(", "1")]
        missing = [n for n in names if n not in sizes]
        known = math.prod(sizes[n] for n in names if n in sizes)
        if len(missing) > 1:
            raise ValueError(f"Could not infer sizes for {missing}")
        if missing:
            if known == 0 or size % known:
                raise ValueError(
                    f"Shape mismatch, can't divide axis of length {size} in chunks of {known}"
                )
            sizes[missing[0]] = size // known
        elif known != size:
            raise ValueError(f"Shape mismatch, {known} != {size}")
    return sizes
