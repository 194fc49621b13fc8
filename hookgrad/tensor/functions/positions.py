"""Functions of element positions: ``take`` and ``put`` (by flat index),
``take_along_dim``, ``nonzero``/``argwhere``/``nonzero_static``, ``unravel_index`` and
``repeat_interleave``, with torch's checks and errors; and their ``Tensor`` methods
(``PositionMethods``).

Example: ``hookgrad.tensor([[0, 1], [2, 0]]).nonzero()`` is ``tensor([[0, 1], [1, 0]])``.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import index as _as_int
from typing import Any

import numpy as np

from hookgrad.ops import indexing as ops
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.index_parsing import (
    is_tensor,
    scalar_type_name,
)
from hookgrad.tensor.functions.indexing import gather
from hookgrad.tensor.layout import contiguous_format

__all__ = [
    "argwhere",
    "nonzero",
    "nonzero_static",
    "put",
    "repeat_interleave",
    "take",
    "take_along_dim",
    "unravel_index",
]


# ---------------------------------------------------------------- take / put / nonzero


def take(input: Any, index: Any) -> Any:
    """The elements of ``input`` read as a flat vector at ``index`` (negative counts back).

    The result has ``index``'s shape. Example: ``x.take(hookgrad.tensor([0, -1]))`` is the
    first and last elements of ``x``.
    """
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}"
        )
    numel, array = input._data.size, index._data
    if numel == 0 and array.size:
        raise IndexError("take(): tried to take from an empty tensor")
    if array.size and (array.min() < -numel or array.max() >= numel):
        bad = array[(array < -numel) | (array >= numel)].flat[0]
        raise IndexError(
            f"out of range: tried to access index {bad} on a tensor of {numel} elements."
        )
    return apply(ops.Take(), input, index)


def put(input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:
    """``input`` with the elements of ``source`` written (added, with ``accumulate``) at
    the positions ``index`` of the flattened tensor (negative ones count back).

    Example::

        hookgrad.zeros(2, 2).put(hookgrad.tensor([0, -1]), hookgrad.tensor([1.0, 2.0]))
        # tensor([[1., 0.], [0., 2.]])
    """
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_type_name(input.dtype)} and source.dtype = {scalar_type_name(source.dtype)}"
        )
    numel, array = input._data.size, index._data
    if source._data.size != array.size:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source._data.size}, index.numel() = {array.size}"
        )
    if array.size and (array.min() < -numel or array.max() >= numel):
        bad = array[(array < -numel) | (array >= numel)].flat[0]
        raise IndexError(
            f"out of range: tried to access index {bad} on a tensor of {numel} elements."
        )
    return apply(ops.Put(bool(accumulate)), input, index, source)


def take_along_dim(input: Any, indices: Any, dim: int | None = None) -> Any:
    """``gather`` with ``input`` and ``indices`` broadcast against each other except on ``dim``.

    With ``dim=None`` both are read flat. Negative indices along ``dim`` count back.
    Example: ``x.take_along_dim(x.argmax(1, keepdim=True), dim=1)`` is the row maxima.
    """
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{scalar_type_name(indices.dtype)}"
        )
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    shape, index_shape = input._data.shape, indices._data.shape
    if len(shape) != len(index_shape):
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {len(shape)} dimensions for input, and {len(index_shape)} "
            "dimensions for indices"
        )
    dim = wrap_dim(dim, len(shape))
    input_shape = shape
    if shape:
        common = np.broadcast_shapes(_without(shape, dim), _without(index_shape, dim))
        input_shape = common[:dim] + (shape[dim],) + common[dim + 1 :]
        index_array = np.broadcast_to(
            indices._data, common[:dim] + (index_shape[dim],) + common[dim + 1 :]
        )
        index_array = np.where(index_array < 0, index_array + shape[dim], index_array)
        indices = wrap_constant(index_array)
    # NOTE: torch's ``broadcast_to`` records ExpandBackward0 even to the same shape.
    return gather(input.expand(input_shape), dim, indices)


def _without(shape: tuple[int, ...], dim: int) -> tuple[int, ...]:
    """``shape`` with ``dim`` set to 1 (so it broadcasts with anything)."""
    return shape[:dim] + (1,) + shape[dim + 1 :]


def nonzero(input: Any, *, as_tuple: bool = False) -> Any:
    """The positions of the nonzero elements: an int64 ``(count, ndim)`` tensor.

    With ``as_tuple=True``, one int64 vector per dim instead (a 0-dim input counts as
    1-dim). Not differentiable. Example: ``hookgrad.nonzero(hookgrad.tensor([0, 3, 5]))``
    is ``tensor([[1], [2]])``.
    """
    array = input._data
    if as_tuple:
        return tuple(
            wrap_constant(p.astype(np.int64))
            for p in np.nonzero(array.reshape(array.shape or (1,)))
        )
    return wrap_constant(np.argwhere(array).astype(np.int64))


def argwhere(input: Any) -> Any:
    """The positions of the nonzero elements, as ``nonzero(input)``."""
    return nonzero(input)


def nonzero_static(input: Any, *, size: int, fill_value: int = -1) -> Any:
    """``nonzero(input)`` with exactly ``size`` rows: cut, or padded with ``fill_value``.

    Example: ``hookgrad.nonzero_static(hookgrad.tensor([0, 1, 2]), size=3)`` is
    ``tensor([[1], [2], [-1]])``.
    """
    size = _as_int(size)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = np.argwhere(input._data).astype(np.int64)[:size]
    out = np.full((size, input._data.ndim), _as_int(fill_value), np.int64)
    out[: len(found)] = found
    return wrap_constant(out)


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """The coordinates, in a tensor of ``shape``, of the flat positions ``indices``: one
    int64 tensor per dim of ``shape``, each of ``indices``' shape (positions outside
    wrap around, as in torch).

    Example: ``hookgrad.unravel_index(hookgrad.tensor([4, 1]), (2, 3))`` is
    ``(tensor([1, 0]), tensor([1, 1]))``.
    """
    if indices.is_complex() or indices.is_floating_point() or indices.dtype is dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for size in shape:
        if not isinstance(size, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(size)}")
    shape = tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    strides = [int(np.prod(shape[d + 1 :], dtype=object)) for d in range(len(shape))]
    flat = indices._data.astype(np.int64)[..., None]
    coordinates = np.floor_divide(flat, np.array(strides, np.int64)) % np.array(shape, np.int64)
    return tuple(wrap_constant(coordinates[..., d].copy()) for d in range(len(shape)))


def repeat_interleave(
    input: Any, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None
) -> Any:
    """Repeat each element (each slice along ``dim``) ``repeats`` times, in place of
    ``tile``'s whole-tensor repetition; without ``dim`` the input is flattened first.

    ``repeats`` is an int, or an int tensor with one count per slice (or a single one).
    ``repeat_interleave(counts)`` alone gives ``arange(len(counts))`` repeated by
    ``counts``. Example::

        hookgrad.tensor([1, 2]).repeat_interleave(2)                       # [1, 1, 2, 2]
        hookgrad.tensor([[1, 2], [3, 4]]).repeat_interleave(hookgrad.tensor([1, 2]), 0)
        # [[1, 2], [3, 4], [3, 4]]
    """
    if repeats is None:
        return _repeated_positions(input, output_size)
    if isinstance(repeats, bool) or not (is_tensor(repeats) or isinstance(repeats, int)):
        raise TypeError(
            "repeat_interleave() received an invalid combination of arguments - got "
            f"({type(repeats).__name__}), but expected one of:\n"
            " * (Tensor repeats, int dim = None, *, int output_size = None)\n"
            " * (int repeats, int dim = None, *, int output_size = None)\n"
        )
    flat = input if dim is not None else input.flatten()
    if not is_tensor(repeats):
        # torch: unsqueeze, expand, a contiguous clone, flatten the two dims again.
        at = wrap_dim(0 if dim is None else _as_int(dim), input._data.ndim)
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        spread = flat.unsqueeze(at + 1)
        shape = list(spread._data.shape)
        shape[at + 1] = repeats
        if output_size is not None and output_size != repeats * shape[at]:
            raise RuntimeError(
                "repeat_interleave: Invalid output_size, expected "
                f"{repeats * shape[at]} but got {output_size}"
            )
        copy = spread.expand(shape).clone(memory_format=contiguous_format)
        return copy.flatten(at, at + 1)
    given = 0 if dim is None else _as_int(dim)
    size = flat._data.shape[wrap_dim(given, flat._data.ndim)]
    counts = repeats
    if repeats._data.ndim == 0 or repeats._data.shape == (1,):
        counts = wrap_constant(np.broadcast_to(repeats._data.reshape(1), (size,)))
    elif repeats._data.ndim == 1:
        if repeats._data.shape[0] != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) "
                f"= {repeats._data.shape[0]} and input.size({given}) = {size}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return flat.index_select(given, _repeated_positions(counts, output_size))


def _repeated_positions(repeats: Any, output_size: int | None) -> Any:
    """``repeat_interleave(repeats)``: each position ``i`` repeated ``repeats[i]`` times,
    in ``repeats``' dtype."""
    counts = repeats._data
    if counts.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{scalar_type_name(repeats.dtype)}'"
        )
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(counts.sum()):
        raise RuntimeError("allocated size does not match required size")
    positions = np.repeat(np.arange(counts.size, dtype=counts.dtype), counts)
    return wrap_constant(positions)


class PositionMethods:
    """The position methods of ``Tensor`` (``take``, ``nonzero`` ...)."""

    take = take
    put = put
    take_along_dim = take_along_dim
    nonzero = nonzero
    argwhere = argwhere
    nonzero_static = nonzero_static
    repeat_interleave = repeat_interleave
