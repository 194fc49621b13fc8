"""Joining and splitting functions: cat/stack (and hstack/vstack/dstack/column_stack,
atleast_*d), split/chunk/unbind/tensor_split (and hsplit/vsplit/dsplit, the ``unsafe_``
variants), narrow/select, the ``*_scatter`` copies, diagonals (diagonal, diag, diag_embed,
diagflat, block_diag), tril/triu, the grids and products of sets (meshgrid,
cartesian_prod, combinations), and complex tensors joined from two real ones (complex,
polar).

Each function checks its arguments the way torch does (same error types and messages),
wraps negative dims, and runs one op of ``hookgrad.ops.shape``. narrow, select, the
split/chunk/unbind pieces and diagonal are views that share memory with their input.
Their Tensor methods are in ``hookgrad.tensor.functions.shape.ShapeMethods``.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import diagonal as diagonal_ops
from hookgrad.ops import shape as ops
from hookgrad.ops import shape_copies as copy_ops
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, apply_arrays, wrap_constant, write_inplace
from hookgrad.tensor.functions.arguments import (
    int_tuple,
    tensor_list,
)
from hookgrad.tensor.promotion import cast_operand
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "cartesian_prod",
    "cat",
    "chunk",
    "column_stack",
    "combinations",
    "complex",
    "concat",
    "concatenate",
    "diag",
    "diag_embed",
    "diagflat",
    "diagonal",
    "diagonal_scatter",
    "dsplit",
    "dstack",
    "hsplit",
    "hstack",
    "meshgrid",
    "narrow",
    "polar",
    "row_stack",
    "select",
    "select_scatter",
    "slice_scatter",
    "split",
    "split_with_sizes",
    "stack",
    "tensor_split",
    "tril",
    "triu",
    "unbind",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
    "vsplit",
    "vstack",
]


# ---------------------------------------------------------------- joining


def _promoted_arrays(tensors: list[Any]) -> list[Any]:
    """The tensors' arrays, cast to the dtype they promote to."""
    result = tensors[0].dtype
    for tensor in tensors[1:]:
        result = dtypes.promote_types(result, tensor.dtype)
    return [cast_operand(tensor, result.np) for tensor in tensors]


def cat(tensors: Sequence[Any], dim: int = 0) -> Any:
    """Concatenate tensors along an existing dim (dtypes promote as in arithmetic).

    Example: ``cat([zeros(2, 3), ones(1, 3)]).shape == (3, 3)``.
    """
    tensors = tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for index, tensor in enumerate(tensors):
        if tensor._data.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {index}) cannot be concatenated"
            )
    # NOTE: torch skips 1-d empty tensors whatever the other shapes (legacy behaviour).
    skip = tuple(t._data.shape == (0,) for t in tensors)
    if all(skip):
        skip = (False,) * len(tensors)
    reference = next(t for t, s in zip(tensors, skip) if not s)._data.shape
    given = operator.index(dim)
    dim = wrap_dim(given, len(reference))
    for index, tensor in enumerate(tensors):
        if skip[index]:
            continue
        shape = tensor._data.shape
        if len(shape) != len(reference):
            raise RuntimeError(
                "Tensors must have same number of dimensions: got "
                f"{len(reference)} and {len(shape)}"
            )
        for d, (expected, got) in enumerate(zip(reference, shape)):
            if d != dim and expected != got:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{expected} but got size {got} for tensor number {index} in the list."
                )
    return apply_arrays(ops.Cat(given, skip), tensors, _promoted_arrays(tensors))


concat = cat
concatenate = cat


def stack(tensors: Sequence[Any], dim: int = 0) -> Any:
    """Join same-shaped tensors along a new dim ``dim``.

    Example: ``stack([zeros(2), ones(2)], dim=1).shape == (2, 2)``.
    """
    tensors = tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    reference = tensors[0]._data.shape
    for index, tensor in enumerate(tensors):
        if tensor._data.shape != reference:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(reference)} at "
                f"entry 0 and {list(tensor._data.shape)} at entry {index}"
            )
    dim = operator.index(dim)
    wrap_dim(dim, len(reference) + 1)
    return apply_arrays(ops.Stack(dim), tensors, _promoted_arrays(tensors))


# ---------------------------------------------------------------- splitting


def split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:
    """Split into pieces of ``split_size`` along ``dim`` (the last may be smaller), or
    into pieces of the sizes in a list. The pieces are views.

    Example: ``arange(5.0).split(2)`` gives pieces of 2, 2 and 1 elements.
    """
    if isinstance(split_size_or_sections, Sequence):
        return run_split_with_sizes(tensor, split_size_or_sections, dim)
    return run_split(tensor, split_size_or_sections, dim, ops.Split)


def run_split(tensor: Any, split_size: Any, dim: int, op: Any) -> tuple[Any, ...]:
    """``split`` into pieces of ``split_size`` with torch's checks, run as ``op``
    (``Split`` or its ``unsafe_`` variant)."""
    shape = tensor._data.shape
    if not shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = operator.index(dim)
    split_size = operator.index(split_size)
    size = shape[wrap_dim(dim, len(shape))]
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    if split_size == 0 and size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    count = max(-(-size // split_size), 1) if split_size else 1
    sizes = tuple(min(split_size, size - i * split_size) for i in range(count))
    return apply(op(dim, sizes, split_size), tensor)


def split_with_sizes(input: Any, split_sizes: Sequence[int], dim: int = 0) -> tuple[Any, ...]:
    """Split ``dim`` into pieces of the given sizes, which add up to its size (views).

    Example: ``hookgrad.arange(5.0).split_with_sizes([2, 3])`` gives pieces of 2 and 3.
    """
    if not isinstance(split_sizes, Sequence):
        raise TypeError(
            "split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, "
            f"not {type(split_sizes).__name__}"
        )
    return run_split_with_sizes(input, split_sizes, dim)


def run_split_with_sizes(
    tensor: Any, sections: Sequence[Any], dim: int, op: Any = ops.SplitWithSizes
) -> tuple[Any, ...]:
    """``split_with_sizes`` with torch's checks, run as ``op`` (``SplitWithSizes`` or its
    ``unsafe_`` variant)."""
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    given = operator.index(dim)
    dim = wrap_dim(given, tensor._data.ndim)
    sizes = int_tuple(sections, "split_with_sizes", "split_sizes")
    size = tensor._data.shape[dim]
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={list(sizes)}"
        )
    if sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={list(sizes)}"
        )
    return apply(op(given, sizes), tensor)


def chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Any, ...]:
    """Split into ``chunks`` pieces of equal size (the last may be smaller, and there
    may be fewer pieces); the pieces are views."""
    return _chunk(input, chunks, dim, ops.Split, ops.SplitWithSizes)


def _chunk(input: Any, chunks: int, dim: int, split_op: Any, sizes_op: Any) -> tuple[Any, ...]:
    """``chunk`` with torch's checks, as ``split`` (``split_op``) or, along an empty dim,
    ``split_with_sizes`` (``sizes_op``)."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input._data.shape[wrap_dim(dim, input._data.ndim)]
    if size == 0:
        return run_split_with_sizes(input, [0] * chunks, dim, sizes_op)
    return run_split(input, -(-size // chunks), dim, split_op)


def unsafe_split(tensor: Any, split_size: int, dim: int = 0) -> tuple[Any, ...]:
    """``split`` whose pieces autograd does not track as views (changing one in place
    is then not checked against the others). Example: ``hookgrad.unsafe_split(x, 2)``."""
    return run_split(tensor, split_size, dim, ops.UnsafeSplit)


def unsafe_split_with_sizes(input: Any, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """``split_with_sizes`` whose pieces autograd does not track as views."""
    return run_split_with_sizes(input, split_sizes, dim, ops.UnsafeSplitWithSizes)


def unsafe_chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Any, ...]:
    """``chunk`` whose pieces autograd does not track as views."""
    return _chunk(input, chunks, dim, ops.UnsafeSplit, ops.UnsafeSplitWithSizes)


def unbind(input: Any, dim: int = 0) -> tuple[Any, ...]:
    """All slices along ``dim``, each without that dim (views)."""
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim)
    return apply(ops.Unbind(dim), input)


def tensor_split(input: Any, indices_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:
    """Split into ``n`` nearly equal pieces (an int), or at the given indices (views).

    Example: ``arange(5.0).tensor_split(2)`` gives pieces of 3 and 2 elements;
    ``arange(5.0).tensor_split([1, 4])`` pieces of 1, 3 and 1.
    """
    if input._data.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    dim = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, Sequence):
        bounds = [0, *int_tuple(indices_or_sections, "tensor_split", "indices"), size]
        slices = [slice(a, b).indices(size)[:2] for a, b in zip(bounds, bounds[1:])]
    else:
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(size, sections)
        starts = [i * small + min(i, extra) for i in range(sections + 1)]
        slices = list(zip(starts, starts[1:]))
    return tuple(apply(ops.Slice(dim, start, max(start, end)), input) for start, end in slices)


def narrow(input: Any, dim: int, start: Any, length: int) -> Any:
    """Elements ``start`` to ``start + length`` of dim ``dim`` (a view)."""
    shape = input._data.shape
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = operator.index(dim)
    size = shape[wrap_dim(dim, len(shape))]
    start = operator.index(start)
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return apply(ops.Slice(dim, start, start + length), input)


def select(input: Any, dim: int, index: Any) -> Any:
    """Index ``index`` of dim ``dim``, which disappears (a view): ``x[:, i]`` on dim 1."""
    shape = input._data.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    given = operator.index(dim)
    dim = wrap_dim(given, len(shape))
    index = operator.index(index)
    if not -shape[dim] <= index < shape[dim]:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(shape)} at "
            f"dimension {dim}"
        )
    return apply(ops.Select(given, index), input)


def _check_src(src: Any, expected: tuple[int, ...]) -> None:
    if src._data.shape != expected:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src._data.shape)}, slice size = {list(expected)}"
        )


def _scatter(op: Any, input: Any, src: Any) -> Any:
    """Run a ``*_scatter`` op; ``src`` is cast to ``input``'s dtype."""
    arrays = (input._data, cast_operand(src, input._data.dtype))
    return apply_arrays(op, (input, src), arrays)


def slice_scatter(
    input: Any,
    src: Any,
    dim: int = 0,
    start: int | None = None,
    end: int | None = None,
    step: int = 1,
) -> Any:
    """A copy of ``input`` with ``src`` written into ``start:end:step`` of dim ``dim``."""
    ndim = input._data.ndim
    given = operator.index(dim)
    dim = wrap_dim(given, ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = input._data.shape[dim] if ndim else 1
    first, last, _ = slice(start, end).indices(size)
    expected = list(input._data.shape)
    expected[dim] = len(range(first, max(first, last), step))
    _check_src(src, tuple(expected))
    return _scatter(ops.SliceScatter(given, start, end, step), input, src)


def select_scatter(input: Any, src: Any, dim: int, index: int) -> Any:
    """A copy of ``input`` with ``src`` written into index ``index`` of dim ``dim``."""
    expected = select(input.detach(), dim, index)._data.shape
    _check_src(src, expected)
    return _scatter(ops.SelectScatter(operator.index(dim), operator.index(index)), input, src)


def _diagonal_dims(ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    """``dim1``, ``dim2`` as given (torch saves them so), checked."""
    dim1, dim2 = operator.index(dim1), operator.index(dim2)
    if wrap_dim(dim1, ndim) == wrap_dim(dim2, ndim):
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dim1, dim2


def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """The diagonal ``offset`` (> 0: above the main one) of the matrices over dims
    ``dim1``, ``dim2``, as the last dim (a view)."""
    dim1, dim2 = _diagonal_dims(input._data.ndim, dim1, dim2)
    return apply(diagonal_ops.Diagonal(offset, dim1, dim2), input)


def diagonal_scatter(input: Any, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """A copy of ``input`` with ``src`` written into the diagonal ``diagonal()`` reads."""
    expected = diagonal(input.detach(), offset, dim1, dim2)._data.shape
    _check_src(src, expected)
    dim1, dim2 = _diagonal_dims(input._data.ndim, dim1, dim2)
    return _scatter(diagonal_ops.DiagonalScatter(offset, dim1, dim2), input, src)


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """Matrices whose diagonal ``offset`` (over new dims ``dim1``, ``dim2``) is the last
    dim of ``input``; zeros elsewhere."""
    dim1, dim2 = _diagonal_dims(input._data.ndim + 1, dim1, dim2)
    return apply(diagonal_ops.DiagEmbed(offset, dim1, dim2), input)


def diag(input: Any, diagonal: int = 0) -> Any:
    """A vector -> the matrix with it on diagonal ``diagonal``; a matrix -> a copy of
    its diagonal ``diagonal``."""
    ndim = input._data.ndim
    if ndim == 1:
        return apply(diagonal_ops.DiagEmbed(diagonal, -2, -1), input)
    if ndim == 2:
        return apply(diagonal_ops.DiagonalCopy(diagonal, 0, 1), input)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


def _triangle(op: Any, name: str, input: Any) -> Any:
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return apply(op, input)


def tril(input: Any, diagonal: int = 0) -> Any:
    """Zero the elements above diagonal ``diagonal`` of the last two dims."""
    return _triangle(diagonal_ops.Tril(diagonal), "tril", input)


def triu(input: Any, diagonal: int = 0) -> Any:
    """Zero the elements below diagonal ``diagonal`` of the last two dims."""
    return _triangle(diagonal_ops.Triu(diagonal), "triu", input)


# ---------------------------------------------------------------- at least n dims, stacking


def _tensors_or_tuple(tensors: tuple[Any, ...], fn: str) -> tuple[list[Any], bool]:
    """``atleast_*d``'s arguments: tensors, or one sequence of them; whether one tensor
    was given (then one tensor is returned, else a tuple)."""
    if len(tensors) == 1:
        if isinstance(tensors[0], Tensor):
            return [tensors[0]], True
        if isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
    for item in tensors:
        if not isinstance(item, Tensor):
            name = type(item).__name__
            raise TypeError(
                f"{fn}() received an invalid combination of arguments - got ({name}), but "
                f"expected one of:\n * (Tensor input)\n      didn't match because some of the "
                f"arguments have invalid types: (!{name}!)\n * (tuple of Tensors tensors)\n"
                f"      didn't match because some of the arguments have invalid types: "
                f"(!{name}!)\n"
            )
    return list(tensors), False


def _at_least(tensors: tuple[Any, ...], fn: str, grow: Any) -> Any:
    items, single = _tensors_or_tuple(tensors, fn)
    out = tuple(grow(item) for item in items)
    return out[0] if single else out


def _at_least_1d(t: Any) -> Any:
    return t.reshape(1) if t._data.ndim == 0 else t


def _at_least_2d(t: Any) -> Any:
    ndim = t._data.ndim
    if ndim == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if ndim == 1 else t


def _at_least_3d(t: Any) -> Any:
    ndim = t._data.ndim
    if ndim == 0:
        return t.reshape(1, 1, 1)
    if ndim == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if ndim == 2 else t


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one dim (a 0-dim tensor becomes ``(1,)``, others are
    returned as they are): one tensor for one, a tuple for several or a sequence.

    Example: ``hookgrad.atleast_1d(hookgrad.tensor(1.0))`` is ``tensor([1.])``.
    """
    return _at_least(tensors, "atleast_1d", _at_least_1d)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two dims (a vector becomes one row ``(1, n)``).

    Example: ``hookgrad.atleast_2d(hookgrad.ones(3)).shape == (1, 3)``.
    """
    return _at_least(tensors, "atleast_2d", _at_least_2d)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dims (``(n,)`` -> ``(1, n, 1)``, ``(m, n)`` ->
    ``(m, n, 1)``). Example: ``hookgrad.atleast_3d(hookgrad.ones(2, 3)).shape == (2, 3, 1)``.
    """
    return _at_least(tensors, "atleast_3d", _at_least_3d)


def _stack_list(tensors: Any, fn: str) -> list[Any]:
    tensors = tensor_list(tensors, fn)
    if not tensors:
        raise RuntimeError(f"{fn} expects a non-empty TensorList")
    return tensors


def hstack(tensors: Sequence[Any]) -> Any:
    """Join tensors column-wise: along dim 1, or dim 0 for vectors (scalars count as
    vectors). Example: ``hookgrad.hstack([hookgrad.ones(2), hookgrad.zeros(3)]).shape
    == (5,)``."""
    pieces = [_at_least_1d(t) for t in _stack_list(tensors, "hstack")]
    return cat(pieces, 0 if pieces[0]._data.ndim == 1 else 1)


def vstack(tensors: Sequence[Any]) -> Any:
    """Join tensors row-wise (along dim 0), vectors as rows. Example:
    ``hookgrad.vstack([hookgrad.ones(3), hookgrad.zeros(3)]).shape == (2, 3)``."""
    return cat([_at_least_2d(t) for t in _stack_list(tensors, "vstack")], 0)


def row_stack(tensors: Sequence[Any]) -> Any:
    """``vstack`` (torch's other name for it)."""
    return cat([_at_least_2d(t) for t in _stack_list(tensors, "row_stack")], 0)


def dstack(tensors: Sequence[Any]) -> Any:
    """Join tensors depth-wise (along dim 2), each made at least 3-dim first. Example:
    ``hookgrad.dstack([hookgrad.ones(2, 3), hookgrad.zeros(2, 3)]).shape == (2, 3, 2)``."""
    return cat([_at_least_3d(t) for t in _stack_list(tensors, "dstack")], 2)


def column_stack(tensors: Sequence[Any]) -> Any:
    """Join tensors as columns (along dim 1): scalars and vectors become one column.
    Example: ``hookgrad.column_stack([hookgrad.ones(3), hookgrad.zeros(3, 2)]).shape
    == (3, 3)``."""
    pieces = [
        t.reshape(t._data.size, 1) if t._data.ndim <= 1 else t
        for t in _stack_list(tensors, "column_stack")
    ]
    return cat(pieces, 1)


def _split_along(input: Any, fn: str, dim: int, least: int, indices_or_sections: Any) -> tuple:
    """``hsplit`` / ``vsplit`` / ``dsplit``: ``tensor_split`` along ``dim``; a number of
    sections must divide that dim."""
    ndim = input._data.ndim
    if ndim < least:
        raise RuntimeError(
            f"torch.{fn} requires a tensor with at least {least} dimension, but got a tensor "
            f"with {ndim} dimensions!"
        )
    if not isinstance(indices_or_sections, Sequence):
        sections = operator.index(indices_or_sections)
        size = input._data.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(
                f"torch.{fn} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {sections}!"
            )
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    """Split column-wise (dim 1, or dim 0 of a vector): into equal sections, or at the
    given indices (views). Example: ``hookgrad.ones(3, 4).hsplit(2)`` gives two (3, 2)."""
    dim = 0 if input._data.ndim == 1 else 1
    return _split_along(input, "hsplit", dim, 1, indices_or_sections)


def vsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    """Split row-wise (dim 0) into equal sections or at the given indices (views)."""
    return _split_along(input, "vsplit", 0, 2, indices_or_sections)


def dsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    """Split depth-wise (dim 2) into equal sections or at the given indices (views)."""
    return _split_along(input, "dsplit", 2, 3, indices_or_sections)


# ---------------------------------------------------------------- grids and products of sets


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Any, ...]:
    """Coordinate grids: with inputs of sizes ``s0 ... sk`` (vectors or scalars), one
    tensor per input of shape ``(s0, ..., sk)``, each an expanded view of its input.

    ``indexing="ij"`` (the default, with torch's warning when not given) keeps that
    order; ``"xy"`` swaps the first two dims, as NumPy's default. Example::

        xs, ys = hookgrad.meshgrid(hookgrad.arange(3), hookgrad.arange(2), indexing="ij")
        xs.shape == (3, 2)
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    return _meshgrid(list(tensors), indexing)


MESHGRID_WARNING = (
    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
)


def _meshgrid(tensors: list[Any], indexing: str) -> tuple[Any, ...]:
    tensors = tensor_list(tensors, "meshgrid")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for tensor in tensors[1:]:
        if tensor.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for tensor in tensors:
        if tensor._data.ndim > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"a tensor of shape {list(tensor._data.shape)}"
            )
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = tuple(t._data.size for t in tensors)
    grids = []
    for i, tensor in enumerate(tensors):
        view_shape = [1] * len(tensors)
        view_shape[i] = -1
        grids.append(tensor.view(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _check_vector(tensor: Any) -> None:
    if tensor._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(tensor._data.shape)}")


def cartesian_prod(*tensors: Any) -> Any:
    """The cartesian product of vectors, as rows (``itertools.product`` order); one
    vector is returned as it is. Example::

        hookgrad.cartesian_prod(hookgrad.tensor([1, 2]), hookgrad.tensor([3, 4]))
        # tensor([[1, 3], [1, 4], [2, 3], [2, 4]])
    """
    for tensor in tensor_list(list(tensors), "cartesian_prod"):
        _check_vector(tensor)
    if len(tensors) == 1:
        return tensors[0]
    return stack([grid.flatten() for grid in _meshgrid(list(tensors), "ij")], 1)


def combinations(input: Any, r: int = 2, with_replacement: bool = False) -> Any:
    """The ``r``-element combinations of a vector's elements, as rows
    (``itertools.combinations`` order; ``combinations_with_replacement`` when asked).

    Example: ``hookgrad.combinations(hookgrad.tensor([1, 2, 3]))`` is
    ``tensor([[1, 2], [1, 3], [2, 3]])``.
    """
    _check_vector(input)
    r = operator.index(r)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return wrap_constant(np.empty((0,), input._data.dtype))
    grids = _meshgrid([input] * r, "ij")
    index = np.indices((input._data.size,) * r)
    mask = np.ones(index.shape[1:], np.bool_)
    for first, second in zip(index, index[1:]):
        mask &= first <= second if with_replacement else first < second
    selected = wrap_constant(mask)
    return stack([grid.masked_select(selected) for grid in grids], 1)


def block_diag(*tensors: Any) -> Any:
    """The tensors (0-, 1- or 2-dim; a vector is one row) as blocks along the diagonal
    of a matrix, zeros elsewhere; dtypes promote. Example::

        hookgrad.block_diag(hookgrad.ones(2, 2), hookgrad.tensor(3.0)).shape == (3, 3)
    """
    tensors = tuple(tensor_list(list(tensors), "block_diag"))
    for index, tensor in enumerate(tensors):
        if tensor._data.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{index} has {tensor._data.ndim} dimensions"
            )
    if not tensors:
        return wrap_constant(np.empty((1, 0), dtypes.get_default_dtype().np))
    return apply_arrays(copy_ops.BlockDiag(), tensors, _promoted_arrays(list(tensors)))


def diagflat(input: Any, offset: int = 0) -> Any:
    """The matrix with the flattened ``input`` on its diagonal ``offset``. Example:
    ``hookgrad.diagflat(hookgrad.ones(2, 2)).shape == (4, 4)``."""
    return diag(input.contiguous().view(-1), offset)


# ---------------------------------------------------------------- complex tensors from parts
def _parts(name: str, first: Any, second: Any, names: tuple[str, str]) -> None:
    """torch's checks of ``complex`` / ``polar``: two float tensors of one dtype."""
    for position, (label, value) in enumerate(zip(names, (first, second))):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{name}(): argument '{label}' (position {position + 1}) must be Tensor, not "
                f"{type(value).__name__}"
            )
    kinds = (dtypes.float16, dtypes.float32, dtypes.float64)
    if first.dtype not in kinds or second.dtype not in kinds:
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{first.dtype.type_name[3:-4]} and {second.dtype.type_name[3:-4]}"
        )
    if first.dtype is not second.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {first.dtype.type_name[3:-4]} but got scalar type "
            f"{second.dtype.type_name[3:-4]} for second argument"
        )
    if first.dtype is dtypes.float16:
        raise RuntimeError(f"{name}: hookgrad has no complex32 dtype for half tensors")


def complex(real: Any, imag: Any, *, out: Any = None) -> Any:  # noqa: A001 (torch's name)
    """The complex tensor ``real + i imag`` of two float tensors of one dtype (broadcast);
    float32 parts give complex64, float64 complex128. Differentiable in both.

    Example: ``hookgrad.complex(hookgrad.tensor([1.0]), hookgrad.tensor([2.0]))`` is
    ``tensor([1.+2.j])``.
    """
    _parts("complex", real, imag, ("real", "imag"))
    return _with_out("complex", apply(copy_ops.Complex(), real, imag), (real, imag), out)


def polar(abs: Any, angle: Any, *, out: Any = None) -> Any:  # noqa: A002 (torch's name)
    """The complex tensor ``abs * (cos(angle) + i sin(angle))`` of two float tensors of
    one dtype (broadcast). Differentiable in both.

    Example: ``hookgrad.polar(hookgrad.tensor([2.0]), hookgrad.tensor([0.0]))`` is
    ``tensor([2.+0.j])``.
    """
    _parts("polar", abs, angle, ("abs", "angle"))
    return _with_out("polar", apply(copy_ops.Polar(), abs, angle), (abs, angle), out)


def _with_out(name: str, result: Any, inputs: tuple[Any, ...], out: Any) -> Any:
    """``result``, or written into ``out`` with torch's rules for ``out=``."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if any(x.requires_grad for x in inputs) and grad_mode.is_grad_enabled():
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    if out._data.shape != result._data.shape:
        out._data = np.empty(result._data.shape, out._data.dtype)
    write_inplace(out, result._data)
    return out
