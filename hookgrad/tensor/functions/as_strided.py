"""``as_strided`` (a view of a tensor's memory with any sizes and strides), its copy
``as_strided_copy`` and ``as_strided_scatter``, with torch's checks of the layout.

Example: ``hookgrad.arange(4.0).as_strided((3, 2), (1, 1))`` is the three overlapping
windows of two elements.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from hookgrad.grad_mode import is_grad_enabled
from hookgrad.ops import as_strided as as_strided_ops
from hookgrad.ops.as_strided import memory_owner
from hookgrad.tensor.dispatch import apply, apply_arrays
from hookgrad.tensor.functions.arguments import (
    int_tuple,
)
from hookgrad.tensor.layout import contiguous
from hookgrad.tensor.layout import storage_offset as storage_offset_of

__all__ = ["as_strided", "as_strided_copy", "as_strided_scatter"]


# ---------------------------------------------------------------- as_strided


def _strided_layout(
    input: Any, size: Sequence[int], stride: Sequence[int], storage_offset: Any, fn: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """torch's checks of an ``as_strided`` layout: sizes and strides as tuples."""
    size, stride = int_tuple(size, fn, "size"), int_tuple(stride, fn, "stride")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if any(n < 0 for n in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    if storage_offset is not None and storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    return size, stride


def as_strided(
    input: Any, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Any:
    """A view of ``input``'s memory with shape ``size`` and ``stride`` (in elements), its
    first element ``storage_offset`` elements into the memory (default: where ``input``
    starts). Elements may overlap; the gradient adds up there. Example::

        hookgrad.arange(4.0).as_strided((3, 2), (1, 1))   # overlapping windows of 2
    """
    return apply_as_strided(input, size, stride, storage_offset, as_strided_ops.AsStridedView)


def apply_as_strided(
    input: Any, size: Sequence[int], stride: Sequence[int], storage_offset: Any, op: Any
) -> Any:
    """``as_strided`` (or its ``_copy``) after torch's checks of the layout's bounds."""
    size, stride = _strided_layout(input, size, stride, storage_offset, "as_strided")
    data = input._data
    root = memory_owner(data)
    start = storage_offset_of(input)
    offset = start if storage_offset is None else operator.index(storage_offset)
    available = root.nbytes // data.itemsize
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if 0 not in size else 0
    if needed > available:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {data.itemsize} requiring a storage size of {needed * data.itemsize} "
            f"are out of bounds for storage of size {available * data.itemsize}"
        )
    return apply(op(size, stride, storage_offset, root, (offset, start)), input)


def as_strided_copy(
    input: Any, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Any:
    """``as_strided`` as a new contiguous tensor (torch's ``AsStridedBackward0_copy``)."""
    return apply_as_strided(input, size, stride, storage_offset, as_strided_ops.AsStridedCopy)


def as_strided_scatter(
    input: Any,
    src: Any,
    size: Sequence[int],
    stride: Sequence[int],
    storage_offset: int | None = None,
) -> Any:
    """A contiguous copy of ``input`` with ``src`` written into its ``as_strided(size,
    stride, storage_offset)`` view (offsets count from the copy's start). ``input`` gets
    the gradient outside that view (torch's backward gives it the view's instead).

    Example: ``hookgrad.zeros(4).as_strided_scatter(hookgrad.ones(2), (2,), (2,))`` is
    ``tensor([1., 0., 1., 0.])``.
    """
    size, stride = _strided_layout(input, size, stride, storage_offset, "as_strided_scatter")
    if input.requires_grad and is_grad_enabled() and not input.is_contiguous():
        raise RuntimeError("as_strided_scatter is currently only supported for contiguous inputs")
    expected = as_strided(contiguous(input.detach()).clone(), size, stride, storage_offset)
    if src._data.shape != expected._data.shape:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src._data.shape)}, slice size = {list(expected._data.shape)}"
        )
    arrays = (input._data, src._data.astype(input._data.dtype, copy=False))
    return apply_arrays(
        as_strided_ops.AsStridedScatter(size, stride, storage_offset), (input, src), arrays
    )
