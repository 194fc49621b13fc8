"""Shape, view and joining functions and their Tensor methods.

Each function checks its arguments the way torch does (same error types and messages),
wraps negative dims, and runs one op of ``hookgrad.ops.shape``. Views (reshape of
contiguous data, transpose, permute, squeeze, unsqueeze, expand, narrow, select,
split/chunk/unbind pieces, diagonal) share memory with their input, as in torch.

``__all__`` lists what torch has as functions (``torch.cat`` ...); ``view``, ``expand``
and the like are Tensor methods only, as in torch. ``pad`` (torch's
``nn.functional.pad``) is here too, outside ``__all__``.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any

from hookgrad.ops import shape as ops
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor import tensor as _tensor_module
from hookgrad.tensor.dispatch import apply, apply_arrays
from hookgrad.tensor.promotion import cast_operand

__all__ = [
    "cat",
    "chunk",
    "concat",
    "concatenate",
    "diag",
    "diag_embed",
    "diagonal",
    "diagonal_scatter",
    "flatten",
    "flip",
    "movedim",
    "moveaxis",
    "narrow",
    "permute",
    "ravel",
    "reshape",
    "roll",
    "select",
    "select_scatter",
    "slice_scatter",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "swapdims",
    "t",
    "tensor_split",
    "tile",
    "transpose",
    "tril",
    "triu",
    "unbind",
    "unflatten",
    "unsqueeze",
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


def _varargs(values: tuple[Any, ...], fn: str, arg: str) -> tuple[int, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` alike: the ints of a varargs argument."""
    if len(values) == 1 and isinstance(values[0], Sequence):
        values = tuple(values[0])
    return _ints(values, fn, arg)


def _dim_list(dims: Any, ndim: int) -> tuple[int, ...]:
    """Wrapped dims of an int-or-sequence argument; torch's error for a repeated dim."""
    if not isinstance(dims, Sequence):
        dims = (dims,)
    wrapped = tuple(wrap_dim(operator.index(d), ndim) for d in dims)
    for i, dim in enumerate(wrapped):
        if dim in wrapped[:i]:
            raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
    return wrapped if ndim else ()


def _infer_shape(given: tuple[int, ...], numel: int) -> tuple[int, ...]:
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


# ---------------------------------------------------------------- reshape family


def reshape(input: Any, *args: Any, shape: Any = None) -> Any:
    """The same elements in a new shape (one dim may be ``-1``); a view when possible.

    Example: ``hookgrad.arange(6.0).reshape(2, -1).shape == (2, 3)``.
    """
    given = _varargs(args if shape is None else (shape,), "reshape", "shape")
    target = _infer_shape(given, input._data.size)
    return apply(ops.Reshape(target), input)


def view(input: Any, *shape: Any) -> Any:
    """Like ``reshape`` but always a view: raises where the data would need a copy."""
    target = _infer_shape(_varargs(shape, "view", "size"), input._data.size)
    return apply(ops.Reshape(target, allow_copy=False), input)


def view_as(input: Any, other: Any) -> Any:
    """``input.view(other.shape)``."""
    return view(input, other._data.shape)


def reshape_as(input: Any, other: Any) -> Any:
    """``input.reshape(other.shape)``."""
    return reshape(input, other._data.shape)


def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    """Merge dims ``start_dim`` to ``end_dim`` into one (a 0-d tensor becomes 1-d).

    Returns ``input`` itself when there is nothing to merge, as torch does.
    """
    shape = input._data.shape
    if not shape:
        return reshape(input, 1)
    start = wrap_dim(start_dim, len(shape))
    end = wrap_dim(end_dim, len(shape))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    merged = math.prod(shape[start : end + 1])
    return reshape(input, shape[:start] + (merged,) + shape[end + 1 :])


def ravel(input: Any) -> Any:
    """All elements in one dim (a view when possible)."""
    return reshape(input, -1)


def unflatten(input: Any, dim: int, sizes: Sequence[int]) -> Any:
    """Split dim ``dim`` into ``sizes`` (one may be ``-1``).

    Example: ``x`` of shape (2, 6) -> ``x.unflatten(1, (3, -1))`` has shape (2, 3, 2).
    """
    shape = input._data.shape
    dim = wrap_dim(dim, len(shape))
    sizes = _ints(sizes, "unflatten", "sizes")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inner = _infer_shape(sizes, shape[dim])
    except RuntimeError as error:
        if "inferred" in str(error):
            raise
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({shape[dim]}) in the input tensor"
        ) from None
    return apply(ops.Reshape(shape[:dim] + inner + shape[dim + 1 :]), input)


def expand(input: Any, *sizes: Any) -> Any:
    """Broadcast to ``sizes`` (``-1`` keeps a dim) without copying."""
    given = _varargs(sizes, "expand", "size")
    current = input._data.shape
    if len(given) < len(current):
        raise RuntimeError(
            f"expand(torch.{input.dtype.type_name[3:-4]}Tensor{{{list(current)}}}, "
            f"size={list(given)}): "
            f"the number of sizes provided ({len(given)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(current)})"
        )
    lead = len(given) - len(current)
    for i in range(lead):
        if given[i] < 0:
            raise RuntimeError(
                f"The expanded size of the tensor ({given[i]}) isn't allowed in a leading, "
                f"non-existing dimension {i}"
            )
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
    """``input.expand(other.shape)``."""
    return expand(input, other._data.shape)


# ---------------------------------------------------------------- dim order


def transpose(input: Any, dim0: int, dim1: int) -> Any:
    """Swap dims ``dim0`` and ``dim1`` (a view)."""
    ndim = input._data.ndim
    return apply(ops.Transpose(wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)), input)


swapaxes = transpose
swapdims = transpose


def t(input: Any) -> Any:
    """Transpose a matrix; a 0-d or 1-d tensor is returned unchanged (a view)."""
    if input._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D"
        )
    return apply(ops.MatrixT(), input)


def permute(input: Any, *args: Any, dims: Any = None) -> Any:
    """Reorder the dims: output dim ``i`` is input dim ``dims[i]`` (a view).

    Example: ``x`` of shape (2, 3, 4) -> ``x.permute(2, 0, 1)`` has shape (4, 2, 3).
    """
    ndim = input._data.ndim
    order = _varargs(args if dims is None else (dims,), "permute", "dims")
    if len(order) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match "
            "the length of the desired ordering of dimensions i.e. input.dim() = "
            f"{ndim} is not equal to len(dims) = {len(order)}"
        )
    wrapped = tuple(wrap_dim(d, ndim) for d in order) if ndim else ()
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply(ops.Permute(wrapped), input)


def movedim(input: Any, source: Any, destination: Any) -> Any:
    """Move dims ``source`` to positions ``destination``; the others keep their order."""
    ndim = input._data.ndim
    source = source if isinstance(source, Sequence) else (source,)
    destination = destination if isinstance(destination, Sequence) else (destination,)
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) "
            f"should contain the same number of dims as destination ({list(destination)} "
            "dims)"
        )
    src = [wrap_dim(operator.index(d), ndim) for d in source]
    dst = [wrap_dim(operator.index(d), ndim) for d in destination]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    order: list[int | None] = [None] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    return permute(input, tuple(next(rest) if o is None else o for o in order))


moveaxis = movedim


def _reverse_dims(input: Any) -> Any:
    """``x.T``: all dims reversed (torch warns unless the tensor is a matrix)."""
    ndim = input._data.ndim
    if ndim == 0:
        warnings.warn(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            UserWarning,
            stacklevel=2,
        )
    elif ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=2,
        )
    return apply(ops.Permute(tuple(range(ndim - 1, -1, -1))), input)


def _matrix_transpose(input: Any) -> Any:
    """``x.mT``: swap the last two dims (a view)."""
    if input._data.ndim < 2:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. Got "
            f"{input._data.ndim}-D tensor."
        )
    return transpose(input, -2, -1)


# ---------------------------------------------------------------- squeeze / unsqueeze


def squeeze(input: Any, dim: Any = None) -> Any:
    """Remove size-1 dims: all of them, or those among ``dim`` (an int or a tuple)."""
    ndim = input._data.ndim
    if dim is None:
        return apply(ops.Squeeze(tuple(range(ndim))), input)
    if isinstance(dim, Sequence):
        return apply(ops.SqueezeDims(_dim_list(dim, ndim)), input)
    return apply(ops.SqueezeDim(_dim_list(dim, ndim)), input)


def unsqueeze(input: Any, dim: int) -> Any:
    """Insert a size-1 dim at ``dim`` (a view); ``dim`` may be ``-input.dim() - 1``."""
    return apply(ops.Unsqueeze(wrap_dim(dim, input._data.ndim + 1)), input)


# ---------------------------------------------------------------- joining


def _tensor_list(tensors: Any, fn: str) -> list[Any]:
    Tensor = _tensor_module.Tensor
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
    dim = wrap_dim(dim, len(reference))
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
    return apply_arrays(ops.Cat(dim, skip), tensors, _promoted_arrays(tensors))


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
    dim = wrap_dim(dim, len(reference) + 1)
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
    dim = wrap_dim(dim, len(shape))
    split_size = operator.index(split_size_or_sections)
    size = shape[dim]
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
    dim = wrap_dim(dim, tensor._data.ndim)
    sizes = _ints(sections, "split_with_sizes", "split_sizes")
    size = tensor._data.shape[dim]
    if sum(sizes) != size or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={list(sizes)}"
        )
    return apply(ops.SplitWithSizes(dim, sizes), tensor)


def chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Any, ...]:
    """Split into ``chunks`` pieces of equal size (the last may be smaller, and there
    may be fewer pieces); the pieces are views."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim]
    if size == 0:
        return _split_with_sizes(input, [0] * chunks, dim)
    return split(input, -(-size // chunks), dim)


def unbind(input: Any, dim: int = 0) -> tuple[Any, ...]:
    """All slices along ``dim``, each without that dim (views)."""
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return apply(ops.Unbind(wrap_dim(dim, input._data.ndim)), input)


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
    if isinstance(indices_or_sections, _tensor_module.Tensor):
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
    dim = wrap_dim(dim, len(shape))
    size = shape[dim]
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
    dim = wrap_dim(dim, len(shape))
    index = operator.index(index)
    if not -shape[dim] <= index < shape[dim]:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(shape)} at "
            f"dimension {dim}"
        )
    return apply(ops.Select(dim, index % shape[dim]), input)


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
    dim = wrap_dim(dim, ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = input._data.shape[dim] if ndim else 1
    start, end, _ = slice(start, end).indices(size)
    end = max(start, end)
    expected = list(input._data.shape)
    expected[dim] = len(range(start, end, step))
    _check_src(src, tuple(expected))
    return _scatter(ops.SliceScatter(dim, start, end, step), input, src)


def select_scatter(input: Any, src: Any, dim: int, index: int) -> Any:
    """A copy of ``input`` with ``src`` written into index ``index`` of dim ``dim``."""
    expected = select(input.detach(), dim, index)._data.shape
    _check_src(src, expected)
    dim = wrap_dim(dim, input._data.ndim)
    index = operator.index(index) % input._data.shape[dim]
    return _scatter(ops.SelectScatter(dim, index), input, src)


def _diagonal_dims(ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    wrapped = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return wrapped


def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """The diagonal ``offset`` (> 0: above the main one) of the matrices over dims
    ``dim1``, ``dim2``, as the last dim (a view)."""
    dim1, dim2 = _diagonal_dims(input._data.ndim, dim1, dim2)
    return apply(ops.Diagonal(offset, dim1, dim2), input)


def diagonal_scatter(input: Any, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """A copy of ``input`` with ``src`` written into the diagonal ``diagonal()`` reads."""
    expected = diagonal(input.detach(), offset, dim1, dim2)._data.shape
    _check_src(src, expected)
    dim1, dim2 = _diagonal_dims(input._data.ndim, dim1, dim2)
    return _scatter(ops.DiagonalScatter(offset, dim1, dim2), input, src)


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """Matrices whose diagonal ``offset`` (over new dims ``dim1``, ``dim2``) is the last
    dim of ``input``; zeros elsewhere."""
    dim1, dim2 = _diagonal_dims(input._data.ndim + 1, dim1, dim2)
    return apply(ops.DiagEmbed(offset, dim1, dim2), input)


def diag(input: Any, diagonal: int = 0) -> Any:
    """A vector -> the matrix with it on diagonal ``diagonal``; a matrix -> a copy of
    its diagonal ``diagonal``."""
    ndim = input._data.ndim
    if ndim == 1:
        return apply(ops.DiagEmbed(diagonal, 0, 1), input)
    if ndim == 2:
        return apply(ops.DiagonalCopy(diagonal, 0, 1), input)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


def _triangle(op: Any, name: str, input: Any) -> Any:
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return apply(op, input)


def tril(input: Any, diagonal: int = 0) -> Any:
    """Zero the elements above diagonal ``diagonal`` of the last two dims."""
    return _triangle(ops.Tril(diagonal), "tril", input)


def triu(input: Any, diagonal: int = 0) -> Any:
    """Zero the elements below diagonal ``diagonal`` of the last two dims."""
    return _triangle(ops.Triu(diagonal), "triu", input)


# ---------------------------------------------------------------- reordering copies


def flip(input: Any, *args: Any, dims: Any = None) -> Any:
    """Reverse the order of elements along ``dims`` (a copy): ``flip(x, [0])``,
    ``x.flip(0, 1)``."""
    if dims is None:
        dims = args[0] if len(args) == 1 else args
    return apply(ops.Flip(_dim_list(dims, input._data.ndim)), input)


def roll(input: Any, shifts: Any, dims: Any = None) -> Any:
    """Shift elements cyclically by ``shifts`` along ``dims`` (ints or sequences);
    without ``dims`` the tensor is rolled as if flattened."""
    shifts = _ints(shifts if isinstance(shifts, Sequence) else (shifts,), "roll", "shifts")
    if dims is None:
        dims = ()
    dims = dims if isinstance(dims, Sequence) else (dims,)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    ndim = input._data.ndim
    if dims and ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    wrapped = tuple(wrap_dim(operator.index(d), ndim) for d in dims)
    return apply(ops.Roll(shifts, wrapped), input)


def repeat(input: Any, *repeats: Any) -> Any:
    """Tile the tensor ``repeats[i]`` times along dim ``i`` (a copy; ``repeats`` may
    have more entries than ``input`` has dims)."""
    reps = _varargs(repeats, "repeat", "repeats")
    shape = input._data.shape
    if len(reps) < len(shape):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of "
            "dimensions of tensor"
        )
    padded = (1,) * (len(reps) - len(shape)) + shape
    out = [r * s for r, s in zip(reps, padded)]
    for size in out:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {out}")
    return apply(ops.Repeat(reps), input)


def tile(input: Any, dims: Any) -> Any:
    """Like ``repeat``, with ``dims`` padded with leading 1s to ``input.dim()`` entries."""
    reps = _varargs((dims,), "tile", "dims")
    return repeat(input, (1,) * (input._data.ndim - len(reps)) + reps)


# ---------------------------------------------------------------- padding


_PAD_COMBINATIONS = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input: Any, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Any:
    """Pad ``input`` as ``torch.nn.functional.pad``.

    ``pad`` lists ``(before, after)`` pairs starting from the last dim; negative values
    crop. ``mode`` is ``"constant"`` (fill with ``value``, default 0), ``"reflect"``,
    ``"replicate"`` or ``"circular"``; the last three pad the last 1-3 dims of a
    (batch of) (channel-first) input. Example::

        pad(x, (1, 1))                     # one zero on each side of the last dim
        pad(img, (2, 2, 2, 2), "reflect")  # img: (N, C, H, W)
    """
    pad = _ints(pad, "pad", "pad")
    shape = input._data.shape
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > len(shape):
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {len(shape)}"
        )
    pairs = [(len(shape) - 1 - k, pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)]
    if mode == "constant":
        for dim, before, after in pairs:
            if shape[dim] + before + after < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        return apply(ops.ConstantPad(pad, 0 if value is None else value), input)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if len(pairs) not in (1, 2, 3) or len(shape) not in (len(pairs) + 1, len(pairs) + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {len(shape)}D input tensor.\n"
            + _PAD_COMBINATIONS
        )
    for k, (dim, before, after) in enumerate(pairs):
        _check_pad(mode, shape, k, dim, before, after, one_dim=len(pairs) == 1)
    return apply(ops.IndexPad(mode, pad), input)


def _check_pad(
    mode: str, shape: tuple[int, ...], k: int, dim: int, before: int, after: int, one_dim: bool
) -> None:
    """torch's checks of one padded dim (``k`` counts from the last dim)."""
    size = shape[dim]
    out = size + before + after
    if mode == "circular":
        # torch wraps around what is left after cropping.
        kept = size + min(before, 0) + min(after, 0)
        if max(before, after) > max(kept, 0):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        return
    if mode == "reflect" and (before >= size or after >= size):
        raise RuntimeError(
            f"Argument #{2 * k + 4}: Padding size should be less than the corresponding input "
            f"dimension, but got: padding ({before}, {after}) at dimension {dim} of input "
            f"{list(shape)}"
        )
    if one_dim and out < 1:
        raise RuntimeError(f"input (W: {size}) is too small. Calculated output W: {out}")
    if out < 0:
        new = list(shape)
        new[dim] = out
        raise RuntimeError(f"Trying to create tensor with negative dimension {out}: {new}")


# ---------------------------------------------------------------- Tensor methods


class ShapeMethods:
    """Shape, view and joining methods of ``Tensor`` (and ``__iter__``)."""

    __slots__ = ()

    reshape = reshape
    view = view
    view_as = view_as
    reshape_as = reshape_as
    flatten = flatten
    ravel = ravel
    unflatten = unflatten
    expand = expand
    expand_as = expand_as
    transpose = transpose
    swapaxes = swapaxes
    swapdims = swapdims
    t = t
    permute = permute
    movedim = movedim
    moveaxis = moveaxis
    T = property(_reverse_dims, doc="The tensor with its dims reversed (a matrix transposed).")
    mT = property(_matrix_transpose, doc="The last two dims swapped (batches of matrices).")
    squeeze = squeeze
    unsqueeze = unsqueeze
    split = split
    chunk = chunk
    unbind = unbind
    tensor_split = tensor_split
    narrow = narrow
    select = select
    slice_scatter = slice_scatter
    select_scatter = select_scatter
    diagonal = diagonal
    diagonal_scatter = diagonal_scatter
    diag_embed = diag_embed
    diag = diag
    tril = tril
    triu = triu
    flip = flip
    roll = roll
    repeat = repeat
    tile = tile
    # NOTE: backward formulas join gradients through these (ops never import this layer).
    _cat = staticmethod(cat)
    _stack = staticmethod(stack)

    def __iter__(self) -> Any:
        """Iterate over dim 0 (the pieces of ``unbind(0)``, as torch)."""
        if self._data.ndim == 0:  # type: ignore[attr-defined]
            raise TypeError("iteration over a 0-d tensor")
        return iter(unbind(self))
