"""What a tensor is rather than what it holds: torch's lazy conjugate and negative bits
(``is_conj``, ``is_neg``, ``resolve_conj``, ``resolve_neg``, ``conj_physical``), ``detach``,
``ndimension`` and ``dim_order``.

NOTE: hookgrad's ``conj`` makes its result at once (a copy): no tensor carries torch's
lazy conjugate or negative bit, so ``is_conj`` / ``is_neg`` are False and the
``resolve_*`` functions return their input.

Example: ``hookgrad.ones(2, 3).dim_order()`` is ``(0, 1)``.
"""

from __future__ import annotations

from typing import Any

from hookgrad.ops import shape_copies as copy_ops
from hookgrad.ops.strides import torch_strides
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.inplace import run_inplace_op
from hookgrad.tensor.layout import channels_last as channels_last_format
from hookgrad.tensor.layout import memory_format

__all__ = [
    "conj_physical",
    "conj_physical_",
    "detach",
    "detach_",
    "is_conj",
    "is_neg",
    "resolve_conj",
    "resolve_neg",
]


# ---------------------------------------------------------------- conjugation flags, detach, layout
# NOTE: hookgrad's ``conj`` makes its result at once (a copy): no tensor carries torch's
# lazy conjugate or negative bit, so ``is_conj`` / ``is_neg`` are False and the
# ``resolve_*`` functions return their input.


def is_conj(input: Any) -> bool:
    """Whether ``input`` is a lazy conjugate (never in hookgrad: ``conj`` copies)."""
    return False


def is_neg(input: Any) -> bool:
    """Whether ``input`` has torch's lazy negative bit (never in hookgrad)."""
    return False


def resolve_conj(input: Any) -> Any:
    """``input`` with a lazy conjugation done: ``input`` itself here (see ``is_conj``)."""
    return input


def resolve_neg(input: Any) -> Any:
    """``input`` with a lazy negation done: ``input`` itself here (see ``is_neg``)."""
    return input


def conj_physical(input: Any) -> Any:
    """The complex conjugate as a new tensor (``ConjPhysicalBackward0``); a real tensor
    is returned itself. Example: ``hookgrad.conj_physical(hookgrad.tensor([1j]))`` is
    ``tensor([-0.-1.j])``."""
    if not input.dtype.is_complex:
        return input
    return apply(copy_ops.ConjPhysical(), input)


def conj_physical_(input: Any) -> Any:
    """``conj_physical`` in place (``ConjPhysicalBackward1``); returns ``input``."""
    if not input.dtype.is_complex:
        return input
    return run_inplace_op(input, copy_ops.ConjPhysicalInplace())


def detach(input: Any) -> Any:
    """``input.detach()``: the same data without history."""
    return input.detach()


def detach_(input: Any) -> Any:
    """``input.detach_()``: ``input`` cut from its history, in place."""
    return input.detach_()


def ndimension(input: Any) -> int:
    """The number of dims (``dim()``; torch's older name)."""
    return input._data.ndim


def dim_order(input: Any, *, ambiguity_check: Any = False) -> tuple[int, ...]:
    """The dims from outermost to innermost in memory (torch's order for ties).

    ``ambiguity_check=True`` raises when several orders fit (a size-1 dim, equal
    strides); a list of memory formats raises unless exactly one fits. Example:
    ``hookgrad.zeros(2, 3, 4).transpose(0, 2).dim_order() == (2, 1, 0)``.
    """
    if not isinstance(ambiguity_check, (bool, list)) or (
        isinstance(ambiguity_check, list)
        and not all(isinstance(f, memory_format) for f in ambiguity_check)
    ):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides = input._data.shape, torch_strides(input._data)
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    several = any(a == b for a, b in zip(strides, strides[1:])) or 1 in shape
    if check and several and sum(input.is_contiguous(memory_format=f) for f in formats) != 1:
        raise RuntimeError(
            "The tensor does not have unique dim order, or cannot map to exact one of the given "
            "memory formats."
        )
    order, ambiguous = _memory_order(input, shape, strides, ambiguity_check is not False)
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(order)


def _memory_order(
    input: Any, shape: tuple[int, ...], strides: tuple[int, ...], check: bool
) -> tuple[list[int], bool]:
    """torch's ``compute_elementwise_output_logical_to_physical_perm`` for one tensor."""
    ndim = len(shape)
    if ndim <= 1:
        return list(range(ndim)), False
    dense = input.is_contiguous()
    channels_last = ndim == 4 and input.is_contiguous(memory_format=channels_last_format)
    if dense and not channels_last:
        return list(range(ndim)), False
    if channels_last and not dense:
        return [0, *range(2, ndim), 1], False

    def at_least(a: int, b: int) -> bool:
        return b == 0 or (a != 0 and (a >= b or a % b == 0))

    def should_swap(a: int, b: int) -> int:
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] == strides[b]:
            return 0 if at_least(shape[b], shape[a]) else 1
        if at_least(strides[b], strides[a]):
            return -1
        return 1 if at_least(strides[a], strides[b]) else 0

    perm = list(reversed(range(ndim)))
    for i in range(1, ndim):
        second = i
        for first in reversed(range(i)):
            comparison = should_swap(perm[first], perm[second])
            if comparison > 0:
                perm[first], perm[second] = perm[second], perm[first]
                second = first
            elif comparison < 0:
                break
    ambiguous = check and any(should_swap(a, b) != -1 for a, b in zip(perm, perm[1:]))
    return list(reversed(perm)), ambiguous
