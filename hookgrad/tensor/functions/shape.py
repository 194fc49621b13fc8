"""Shape and view functions (reshape, transpose, permute, squeeze, flip, roll, repeat, pad)
and the Tensor methods of the whole shape family.

Each function checks its arguments the way torch does (same error types and messages),
wraps negative dims, and runs one op of ``hookgrad.ops.shape``. Views (reshape of
contiguous data, transpose, permute, squeeze, unsqueeze, expand) share memory with their
input, as in torch. Joining and splitting (cat, split, narrow, diagonal ...) live in
``hookgrad.tensor.functions.joining``; ``ShapeMethods`` binds them as methods too.

``__all__`` lists what torch has as functions (``torch.flatten`` ...); ``view``, ``expand``
and the like are Tensor methods only, as in torch. ``pad`` (torch's
``nn.functional.pad``) is here too, outside ``__all__``.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.grad_mode import is_grad_enabled
from hookgrad.ops import conversion as conversion_ops
from hookgrad.ops import diagonal as diagonal_ops
from hookgrad.ops import indexing as indexing_ops
from hookgrad.ops import padding
from hookgrad.ops import shape as ops
from hookgrad.ops.strides import compute_stride, torch_strides
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, apply_arrays
from hookgrad.tensor.dispatch import broadcast_shapes as broadcast_shapes_of
from hookgrad.tensor.functions.conversion import view_as_complex, view_as_real
from hookgrad.tensor.functions.indexing import (
    index_copy,
    index_fill,
    index_reduce_op,
    masked_scatter,
    put,
    scatter_reduce_op,
)
from hookgrad.tensor.functions.inplace import _inplace, _inplace_op
from hookgrad.tensor.functions.joining import (
    _ints,
    _split,
    _split_with_sizes,
    _tensor_list,
    cat,
    chunk,
    diag,
    diag_embed,
    diagflat,
    diagonal,
    diagonal_scatter,
    dsplit,
    hsplit,
    narrow,
    select,
    select_scatter,
    slice_scatter,
    split,
    split_with_sizes,
    stack,
    tensor_split,
    tril,
    triu,
    unbind,
    unsafe_chunk,
    unsafe_split,
    unsafe_split_with_sizes,
    vsplit,
)
from hookgrad.tensor.layout import _memory_root, contiguous, memory_format
from hookgrad.tensor.layout import channels_last as channels_last_format
from hookgrad.tensor.layout import storage_offset as storage_offset_of
from hookgrad.tensor.size import Size

__all__ = [
    "adjoint",
    "alias_copy",
    "as_strided",
    "as_strided_copy",
    "as_strided_scatter",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "conj_physical",
    "conj_physical_",
    "detach",
    "detach_",
    "detach_copy",
    "diagonal_copy",
    "expand_copy",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "is_conj",
    "is_neg",
    "moveaxis",
    "movedim",
    "narrow_copy",
    "permute",
    "permute_copy",
    "ravel",
    "reshape",
    "resolve_conj",
    "resolve_neg",
    "roll",
    "rot90",
    "select_copy",
    "slice_copy",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze",
    "squeeze_copy",
    "swapaxes",
    "swapdims",
    "t",
    "t_copy",
    "tile",
    "transpose",
    "transpose_copy",
    "unbind_copy",
    "unflatten",
    "unfold_copy",
    "unsqueeze",
    "unsqueeze_copy",
    "view_as_complex_copy",
    "view_as_real_copy",
    "view_copy",
]


# ---------------------------------------------------------------- argument helpers


def _varargs(values: tuple[Any, ...], fn: str, arg: str) -> tuple[int, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` alike: the ints of a varargs argument."""
    if len(values) == 1 and isinstance(values[0], Sequence):
        values = tuple(values[0])
    return _ints(values, fn, arg)


def _given_dims(dims: Any) -> tuple[int, ...]:
    """An int-or-sequence dim argument as a tuple of ints, as given (torch saves it so)."""
    return tuple(operator.index(d) for d in (dims if isinstance(dims, Sequence) else (dims,)))


def _dim_list(dims: Any, ndim: int) -> tuple[int, ...]:
    """Wrapped dims of an int-or-sequence argument; torch's error for a repeated dim."""
    wrapped = tuple(wrap_dim(d, ndim) for d in _given_dims(dims))
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
    """The same elements in a new shape (one dim may be ``-1``).

    As torch: a contiguous tensor is viewed (``ViewBackward0``); another is viewed too
    when torch's stride rules allow it (``ReshapeAliasBackward0``), else copied to a
    contiguous tensor and reshaped (``UnsafeViewBackward0`` after ``CloneBackward0``).
    Example: ``hookgrad.arange(6.0).reshape(2, -1).shape == (2, 3)``.
    """
    given = _varargs(args if shape is None else (shape,), "reshape", "shape")
    target = _infer_shape(given, input._data.size)
    data = input._data
    if data.flags.c_contiguous:  # torch's is_contiguous(), as NumPy's flag reads it
        return apply(ops.Reshape(target), input)
    if compute_stride(data.shape, torch_strides(data), target) is None:
        return apply(ops.UnsafeView(target), contiguous(input))
    return apply(ops.ReshapeAlias(target), input)


def view(input: Any, *shape: Any) -> Any:
    """The same memory in a new shape (one dim may be ``-1``): always a view.

    Works for some non-contiguous tensors too (splitting a dim, merging dims that lie
    contiguously); raises torch's RuntimeError where only a copy could have that shape.
    Example: ``x.transpose(1, 2).contiguous().view(B, T, C)``.
    """
    target = _infer_shape(_varargs(shape, "view", "size"), input._data.size)
    return apply(ops.Reshape(target), input)


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
    """All elements in one dim: ``contiguous().view(-1)`` (a view of a contiguous tensor;
    of a contiguous copy otherwise), as torch."""
    return view(contiguous(input), -1)


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
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
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
    dim0, dim1 = operator.index(dim0), operator.index(dim1)
    wrap_dim(dim0, ndim)
    wrap_dim(dim1, ndim)
    return apply(ops.Transpose(dim0, dim1), input)


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
    return apply(ops.Permute(order if ndim else ()), input)


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
    return apply(_squeeze_op(input._data.ndim, dim), input)


def _squeeze_op(ndim: int, dim: Any) -> Any:
    """The node of ``squeeze(dim)`` on a tensor of ``ndim`` dims (torch's checks)."""
    if dim is None:
        return ops.Squeeze(tuple(range(ndim)))
    if isinstance(dim, Sequence):
        return ops.SqueezeDims(_dim_list(dim, ndim), _given_dims(dim))
    return ops.SqueezeDim(_dim_list(dim, ndim), operator.index(dim))


def unsqueeze(input: Any, dim: int) -> Any:
    """Insert a size-1 dim at ``dim`` (a view); ``dim`` may be ``-input.dim() - 1``."""
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim + 1)
    return apply(ops.Unsqueeze(dim), input)


# ---------------------------------------------------------------- reordering copies


def flip(input: Any, *args: Any, dims: Any = None) -> Any:
    """Reverse the order of elements along ``dims`` (a copy): ``flip(x, [0])``,
    ``x.flip(0, 1)``."""
    if dims is None:
        dims = args[0] if len(args) == 1 else args
    _dim_list(dims, input._data.ndim)
    return apply(ops.Flip(_given_dims(dims)), input)


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
    given = tuple(operator.index(d) for d in dims)
    for dim in given:
        wrap_dim(dim, ndim)
    return apply(ops.Roll(shifts, given), input)


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


# ---------------------------------------------------------------- broadcasting


def broadcast_to(input: Any, size: Sequence[int]) -> Any:
    """``input`` broadcast to ``size`` without copying (``expand``: ``-1`` keeps a dim).

    Example: ``hookgrad.broadcast_to(hookgrad.ones(3, 1), (2, 3, 4)).shape == (2, 3, 4)``.
    """
    return expand(input, size)


def broadcast_tensors(*tensors: Any) -> tuple[Any, ...]:
    """The tensors broadcast to one shape (expanded views; a tensor of that shape
    already is returned itself). Example::

        a, b = hookgrad.broadcast_tensors(hookgrad.ones(3, 1), hookgrad.ones(4))
        a.shape == b.shape == (3, 4)
    """
    tensors = tuple(_tensor_list(tensors, "broadcast_tensors"))
    shape = broadcast_shapes_of(*(t._data.shape for t in tensors))
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of ``shapes`` (ints or sequences of ints) broadcast to,
    without making them. Example: ``hookgrad.broadcast_shapes((2,), (3, 1))`` is
    ``hookgrad.Size([3, 2])``."""
    given = tuple((x,) if isinstance(x, int) else x for x in shapes if x is not None)
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, got "
                f"{shape}"
            )
    for shape in given:
        for position, size in enumerate(shape):
            if not isinstance(size, int):
                raise TypeError(
                    f"torch.Size() takes an iterable of 'int' (item {position} is "
                    f"'{type(size).__name__}')"
                )
    common = [1] * max((len(shape) for shape in given), default=0)
    for position, shape in enumerate(given):
        for index in range(-1, -1 - len(shape), -1):
            if shape[index] == common[index]:
                continue
            if common[index] == 1:
                if shape[index] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[index] = shape[index]
            if shape[index] != 1 and common[index] != shape[index]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[index]} at {index}! "
                    f"Mismatching argument at index {position} had {shape}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    return Size(common)


# ---------------------------------------------------------------- rotations, windows, copies


def rot90(input: Any, k: int = 1, dims: Sequence[int] = (0, 1)) -> Any:
    """Rotate by ``k`` quarter turns in the plane of ``dims``, from the first dim towards
    the second (a copy). Example: ``hookgrad.tensor([[1, 2], [3, 4]]).rot90()`` is
    ``tensor([[2, 4], [1, 3]])``."""
    ndim = input._data.ndim
    dims = _ints(dims, "rot90", "dims")
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    for dim in dims:
        wrap_dim(dim, ndim)
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == ndim:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    return apply(ops.Rot90(operator.index(k), dims), input)


def fliplr(input: Any) -> Any:
    """Reverse the columns (dim 1) of a tensor of at least 2 dims (a copy)."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Any) -> Any:
    """Reverse the rows (dim 0) of a tensor of at least 1 dim (a copy)."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def adjoint(input: Any) -> Any:
    """The conjugate transpose of (a batch of) matrices: the last two dims swapped, and
    complex values conjugated. Example: ``hookgrad.ones(2, 3).adjoint().shape == (3, 2)``."""
    return _adjoint(input, "tensor.adjoint()")


def _adjoint(input: Any, name: str) -> Any:
    if input._data.ndim < 2:
        raise RuntimeError(
            f"{name} is only supported on matrices or batches of matrices. Got "
            f"{input._data.ndim}-D tensor."
        )
    swapped = transpose(input, -2, -1)
    return swapped.conj() if input.dtype.is_complex else swapped


def _matrix_adjoint(input: Any) -> Any:
    """``x.mH``: ``adjoint``."""
    return _adjoint(input, "tensor.mH")


def _conjugate_transpose(input: Any) -> Any:
    """``x.H``: the conjugate transpose of a matrix (a 0-dim tensor as it is)."""
    ndim = input._data.ndim
    if ndim == 0:
        return input
    if ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor.{hint}"
        )
    return _adjoint(input, "tensor.H")


def unfold(input: Any, dimension: int, size: int, step: int) -> Any:
    """Every window of ``size`` elements of ``dimension``, ``step`` apart, as a new last
    dim (a view). Example: ``hookgrad.arange(5.0).unfold(0, 2, 2)`` is
    ``tensor([[0., 1.], [2., 3.]])``."""
    shape = input._data.shape
    dim = wrap_dim(operator.index(dimension), len(shape))
    length = shape[dim] if shape else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {dim} is {length} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return apply(ops.Unfold(operator.index(dimension), size, step), input)


def narrow_copy(input: Any, dim: int, start: int, length: int) -> Any:
    """``narrow`` as a new tensor: ``length`` elements of ``dim`` from ``start``.

    Example: ``hookgrad.arange(5.0).narrow_copy(0, 1, 2)`` is ``tensor([1., 2.])``.
    """
    narrow(input.detach(), dim, start, length)
    return apply(ops.NarrowCopy(operator.index(dim), operator.index(start), length), input)


def _copied(op: Any, input: Any) -> Any:
    """The view op ``op`` run as a ``*_copy`` op: new contiguous tensors, recorded as
    torch's ``<view node>_copy`` (the caller has made torch's checks)."""
    return apply(ops.ViewCopy(op), input)


def view_copy(input: Any, size: Sequence[int]) -> Any:
    """``view`` as a new tensor (any layout; torch's ``ViewBackward0_copy``)."""
    target = _infer_shape(_varargs((size,), "view_copy", "size"), input._data.size)
    return _copied(ops.Reshape(target), input)


def permute_copy(input: Any, dims: Sequence[int]) -> Any:
    """``permute`` as a new contiguous tensor."""
    permute(input.detach(), dims)
    return _copied(ops.Permute(tuple(dims) if input._data.ndim else ()), input)


def expand_copy(input: Any, size: Sequence[int], *, implicit: bool = False) -> Any:
    """``expand`` as a new tensor (every element in its own memory)."""
    target = expand(input.detach(), size)._data.shape
    return _copied(ops.Expand(target), input)


def t_copy(input: Any) -> Any:
    """``t`` as a new contiguous tensor."""
    t(input.detach())
    return _copied(ops.MatrixT(), input)


def transpose_copy(input: Any, dim0: int, dim1: int) -> Any:
    """``transpose`` as a new contiguous tensor."""
    transpose(input.detach(), dim0, dim1)
    return _copied(ops.Transpose(operator.index(dim0), operator.index(dim1)), input)


def squeeze_copy(input: Any, dim: Any = None) -> Any:
    """``squeeze`` as a new tensor."""
    return _copied(_squeeze_op(input._data.ndim, dim), input)


def unsqueeze_copy(input: Any, dim: int) -> Any:
    """``unsqueeze`` as a new tensor."""
    unsqueeze(input.detach(), dim)
    return _copied(ops.Unsqueeze(operator.index(dim)), input)


def select_copy(input: Any, dim: int, index: int) -> Any:
    """``select`` as a new tensor."""
    select(input.detach(), dim, index)
    return _copied(ops.Select(operator.index(dim), operator.index(index)), input)


def slice_copy(
    input: Any, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Any:
    """``input`` sliced ``start:end:step`` along ``dim``, as a new tensor (the bounds as
    Python's slices take them: None, negative or past the end)."""
    if input._data.ndim == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _copied(ops.Slice(dim, start, end, step), input)


def split_copy(tensor: Any, split_size: int, dim: int = 0) -> tuple[Any, ...]:
    """``split`` into pieces of ``split_size``, as new tensors."""
    return _split(tensor, split_size, dim, lambda *args: ops.ViewCopy(ops.Split(*args)))


def split_with_sizes_copy(input: Any, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """``split_with_sizes`` as new tensors."""
    copy = lambda *args: ops.ViewCopy(ops.SplitWithSizes(*args))  # noqa: E731
    return _split_with_sizes(input, split_sizes, dim, copy)


def unbind_copy(input: Any, dim: int = 0) -> tuple[Any, ...]:
    """``unbind`` as new tensors."""
    unbind(input.detach(), dim)
    return _copied(ops.Unbind(operator.index(dim)), input)


def unfold_copy(input: Any, dimension: int, size: int, step: int) -> Any:
    """``Tensor.unfold`` as a new tensor (windows in their own memory)."""
    unfold(input.detach(), dimension, size, step)
    return _copied(ops.Unfold(operator.index(dimension), size, step), input)


def alias_copy(input: Any) -> Any:
    """A copy of ``input`` recorded as torch's ``AliasBackward0_copy``."""
    return _copied(ops.Alias(), input)


def diagonal_copy(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """``diagonal`` as a new tensor."""
    diagonal(input.detach(), offset, dim1, dim2)
    return apply(
        diagonal_ops.DiagonalCopy(offset, operator.index(dim1), operator.index(dim2)), input
    )


def view_as_real_copy(input: Any) -> Any:
    """``view_as_real`` as a new tensor."""
    view_as_real(input.detach())
    return _copied(conversion_ops.ViewAsReal(), input)


def view_as_complex_copy(input: Any) -> Any:
    """``view_as_complex`` as a new tensor (not differentiable, as in torch)."""
    view_as_complex(input.detach())
    if input.requires_grad and is_grad_enabled():
        raise RuntimeError(
            "view_as_complex_copy does not support automatic differentiation for outputs with "
            "complex dtype."
        )
    return _copied(conversion_ops.ViewAsComplex(), input)


def detach_copy(input: Any) -> Any:
    """A copy of ``input`` without its history. As torch's, a copy of a tensor that
    requires grad does too, through a node whose backward fails (torch's
    ``NotImplemented``: "derivative for aten::detach_copy is not implemented")."""
    return apply(ops.NotImplementedCopy("aten::detach_copy"), input)


# ---------------------------------------------------------------- as_strided


def _strided_layout(
    input: Any, size: Sequence[int], stride: Sequence[int], storage_offset: Any, fn: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """torch's checks of an ``as_strided`` layout: sizes and strides as tuples."""
    size, stride = _ints(size, fn, "size"), _ints(stride, fn, "stride")
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
    return _as_strided(input, size, stride, storage_offset, indexing_ops.AsStridedView)


def _as_strided(
    input: Any, size: Sequence[int], stride: Sequence[int], storage_offset: Any, op: Any
) -> Any:
    """``as_strided`` (or its ``_copy``) after torch's checks of the layout's bounds."""
    size, stride = _strided_layout(input, size, stride, storage_offset, "as_strided")
    data = input._data
    root = _memory_root(data)
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
    return _as_strided(input, size, stride, storage_offset, indexing_ops.AsStridedCopy)


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
        indexing_ops.AsStridedScatter(size, stride, storage_offset), (input, src), arrays
    )


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
        return apply(padding.ConstantPad(pad, 0 if value is None else value), input)
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
    if mode == "circular":
        return padding.pad_circular(input, pad)
    return apply(padding.IndexPad(mode, pad), input)


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


# ---------------------------------------------------------------- in-place variants
# NOTE: the in-place variants of shape and indexing ops that ``inplace.py`` does not
# have live here: this module may import it, ``indexing.py`` and ``joining.py`` may not
# (``inplace.py`` imports them).


def scatter_reduce_(
    input: Any, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True
) -> Any:
    """``scatter_reduce`` in place; returns ``input``."""
    op = scatter_reduce_op(input, dim, index, src, reduce, include_self)
    return _inplace_op(input, op, (index, src), copy=True)


def index_reduce_(
    input: Any, dim: int, index: Any, source: Any, reduce: str, *, include_self: bool = True
) -> Any:
    """``index_reduce`` in place; returns ``input``."""
    op = index_reduce_op(input, dim, index, source, reduce, include_self)
    return _inplace_op(input, op, (index, source), copy=True)


def index_copy_(input: Any, dim: int, index: Any, source: Any) -> Any:
    """``index_copy`` in place; returns ``input``."""
    return _inplace(input, lambda x, i, s: index_copy(x, dim, i, s), (index, source))


def index_fill_(input: Any, dim: int, index: Any, value: Any) -> Any:
    """``index_fill`` in place; returns ``input``."""
    return _inplace(input, lambda x, i, v: index_fill(x, dim, i, v), (index, value))


def masked_scatter_(input: Any, mask: Any, source: Any) -> Any:
    """``masked_scatter`` in place (``mask`` broadcasts to ``input``'s shape); returns
    ``input``."""
    shape, mask_shape = input._data.shape, mask._data.shape
    if len(mask_shape) > len(shape):
        raise RuntimeError(
            f"expand(CPU{dtypes.legacy_name(mask.dtype)}Type{{{list(mask_shape)}}}, "
            f"size={list(shape)}): the number of sizes provided ({len(shape)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({len(mask_shape)})"
        )
    mask.expand(shape)
    return _inplace(input, masked_scatter, (mask, source))


def put_(input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:
    """``put`` in place; returns ``input``."""
    return _inplace(input, lambda x, i, s: put(x, i, s, accumulate), (index, source))


def tril_(input: Any, diagonal: int = 0) -> Any:
    """``tril`` in place; returns ``input``."""
    return _inplace(input, lambda x: tril(x, diagonal))


def triu_(input: Any, diagonal: int = 0) -> Any:
    """``triu`` in place; returns ``input``."""
    return _inplace(input, lambda x: triu(x, diagonal))


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
    return apply(ops.ConjPhysical(), input)


def conj_physical_(input: Any) -> Any:
    """``conj_physical`` in place (``ConjPhysicalBackward1``); returns ``input``."""
    if not input.dtype.is_complex:
        return input
    return _inplace_op(input, ops.ConjPhysicalInplace())


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


# ---------------------------------------------------------------- Python functions elementwise


def apply_(input: Any, callable: Any) -> Any:  # noqa: A002 (torch's name)
    """Replace each element ``v`` of ``input`` by ``callable(v)`` (a Python function of
    a Python number), in place; slow, and not for tensors that require grad.

    Example: ``hookgrad.tensor([1.0, 2.0]).apply_(lambda v: v * 2)`` is
    ``tensor([2., 4.])``.
    """
    _check_python_map(input, "apply_")
    return _map_into(input, callable)


def map_(input: Any, tensor: Any, callable: Any) -> Any:  # noqa: A002 (torch's name)
    """``input[i] = callable(input[i], tensor[i])`` for every element, ``tensor``
    broadcast to ``input``'s shape and of its dtype; in place."""
    _check_python_map(input, "map_")
    return _map_into(input, callable, _mapped_operand(input, tensor, "map_", "other"))


def map2_(input: Any, x: Any, y: Any, callable: Any) -> Any:  # noqa: A002 (torch's name)
    """``input[i] = callable(input[i], x[i], y[i])`` for every element (``x``, ``y``
    broadcast to ``input``'s shape, of its dtype); in place."""
    _check_python_map(input, "map2_")
    operands = (_mapped_operand(input, x, "map2_", "x"), _mapped_operand(input, y, "map2_", "y"))
    return _map_into(input, callable, *operands)


def _check_python_map(input: Any, name: str) -> None:
    if input.requires_grad:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."
        )


def _mapped_operand(input: Any, operand: Any, name: str, label: str) -> np.ndarray:
    if operand.dtype is not input.dtype:
        raise TypeError(
            f"{name}: expected {_legacy_type(input)} for '{label}' (got {_legacy_type(operand)})"
        )
    return operand.expand(input._data.shape)._data


def _legacy_type(tensor: Any) -> str:
    return f"torch.{dtypes.legacy_name(tensor.dtype)}Tensor"


def _map_into(input: Any, function: Any, *operands: np.ndarray) -> Any:
    data = input._data
    kind = data.dtype.type
    for index in np.ndindex(data.shape):
        values = (data[index].item(), *(operand[index].item() for operand in operands))
        data[index] = kind(function(*values))
    input._bump_version()
    return input


# ---------------------------------------------------------------- Tensor methods


class ShapeMethods:
    """Shape, view and joining methods of ``Tensor`` (and ``__iter__``)."""

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
    split_with_sizes = split_with_sizes
    unsafe_split = unsafe_split
    unsafe_split_with_sizes = unsafe_split_with_sizes
    unsafe_chunk = unsafe_chunk
    hsplit = hsplit
    vsplit = vsplit
    dsplit = dsplit
    unfold = unfold
    narrow_copy = narrow_copy
    broadcast_to = broadcast_to
    adjoint = adjoint
    mH = property(_matrix_adjoint, doc="The conjugate transpose of (a batch of) matrices.")
    H = property(_conjugate_transpose, doc="The conjugate transpose of a matrix.")
    diagflat = diagflat
    is_conj = is_conj
    is_neg = is_neg
    resolve_conj = resolve_conj
    resolve_neg = resolve_neg
    conj_physical = conj_physical
    conj_physical_ = conj_physical_
    dim_order = dim_order
    ndimension = ndimension
    as_strided = as_strided
    as_strided_scatter = as_strided_scatter
    apply_ = apply_
    map_ = map_
    map2_ = map2_
    scatter_reduce_ = scatter_reduce_
    index_reduce_ = index_reduce_
    index_copy_ = index_copy_
    index_fill_ = index_fill_
    masked_scatter_ = masked_scatter_
    put_ = put_
    tril_ = tril_
    triu_ = triu_
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
    fliplr = fliplr
    flipud = flipud
    rot90 = rot90
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
