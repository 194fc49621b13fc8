"""Joining and splitting functions: cat/stack, split/chunk/unbind/tensor_split,
narrow/select, the ``*_scatter`` copies, diagonals (diagonal, diag, diag_embed) and
tril/triu.

Each function checks its arguments the way torch does (same error types and messages),
wraps negative dims, and runs one op of ``hookgrad.ops.shape``. narrow, select, the
split/chunk/unbind pieces and diagonal are views that share memory with their input.
Their Tensor methods are in ``hookgrad.tensor.functions.shape.ShapeMethods``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from hookgrad.ops import diagonal as diagonal_ops
from hookgrad.ops import shape as ops
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, apply_arrays
from hookgrad.tensor.promotion import cast_operand
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "cat",
    "chunk",
    "concat",
    "concatenate",
    "diag",
    "diag_embed",
    "diagonal",
    "diagonal_scatter",
    "narrow",
    "select",
    "select_scatter",
    "slice_scatter",
    "split",
    "stack",
    "tensor_split",
    "tril",
    "triu",
    "unbind",
]


# ---------------------------------------------------------------- argument helpers


def _ints(values: Any, fn: str, arg: str) -> tuple[int, ...]:
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


# ---------------------------------------------------------------- joining


def _tensor_list(tensors: Any, fn: str) -> list[Any]:
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
    tensors = _tensor_list(tensors, "cat")
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
    tensors = _tensor_list(tensors, "stack")
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
    shape = tensor._data.shape
    if isinstance(split_size_or_sections, Sequence):
        return _split_with_sizes(tensor, split_size_or_sections, dim)
    if not shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = operator.index(dim)
    split_size = operator.index(split_size_or_sections)
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
    return apply(ops.Split(dim, sizes, split_size), tensor)


def _split_with_sizes(tensor: Any, sections: Sequence[Any], dim: int) -> tuple[Any, ...]:
    given = operator.index(dim)
    dim = wrap_dim(given, tensor._data.ndim)
    sizes = _ints(sections, "split_with_sizes", "split_sizes")
    size = tensor._data.shape[dim]
    if sum(sizes) != size or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={list(sizes)}"
        )
    return apply(ops.SplitWithSizes(given, sizes), tensor)


def chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Any, ...]:
    """Split into ``chunks`` pieces of equal size (the last may be smaller, and there
    may be fewer pieces); the pieces are views."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input._data.shape[wrap_dim(dim, input._data.ndim)]
    if size == 0:
        return _split_with_sizes(input, [0] * chunks, dim)
    return split(input, -(-size // chunks), dim)


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
        bounds = [0, *_ints(indices_or_sections, "tensor_split", "indices"), size]
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
