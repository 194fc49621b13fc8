"""Shape and view functions (reshape, transpose, permute, squeeze, flip, roll, repeat)
and the Tensor methods of the whole shape family.

Each function checks its arguments the way torch does (same error types and messages),
wraps negative dims, and runs one op of ``hookgrad.ops.shape``. Views (reshape of
contiguous data, transpose, permute, squeeze, unsqueeze, expand) share memory with their
input, as in torch. ``ShapeMethods`` binds as methods the functions of the neighbouring
modules too: joining and splitting (cat, split, narrow, diagonal ...: ``joining.py``),
``as_strided.py``, the conjugation flags and ``detach`` (``flags.py``), the in-place
indexing variants (``indexing_inplace.py``) and ``apply_``/``map_`` (``python_map.py``).
The ``*_copy`` functions are in ``view_copies.py``, ``pad`` in ``padding.py``, argument
parsing in ``arguments.py``.

``__all__`` lists what torch has as functions (``torch.flatten`` ...); ``view``, ``expand``
and the like are Tensor methods only, as in torch.

Example: ``hookgrad.arange(6.0).reshape(2, -1).t().shape`` is ``(3, 2)``.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any

from hookgrad.ops import shape as ops
from hookgrad.ops import shape_copies as copy_ops
from hookgrad.ops.strides import compute_stride, torch_strides
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.dispatch import broadcast_shapes as broadcast_shapes_of
from hookgrad.tensor.functions.arguments import (
    dim_list,
    given_dims,
    infer_shape,
    int_tuple,
    tensor_list,
    varargs,
)
from hookgrad.tensor.functions.as_strided import as_strided, as_strided_scatter
from hookgrad.tensor.functions.flags import (
    conj_physical,
    conj_physical_,
    dim_order,
    is_conj,
    is_neg,
    ndimension,
    resolve_conj,
    resolve_neg,
)
from hookgrad.tensor.functions.indexing_inplace import (
    index_copy_,
    index_fill_,
    index_reduce_,
    masked_scatter_,
    put_,
    scatter_reduce_,
    tril_,
    triu_,
)
from hookgrad.tensor.functions.joining import (
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
from hookgrad.tensor.functions.python_map import apply_, map2_, map_
from hookgrad.tensor.layout import contiguous
from hookgrad.tensor.size import Size

__all__ = [
    "adjoint",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "moveaxis",
    "movedim",
    "narrow_copy",
    "permute",
    "ravel",
    "reshape",
    "roll",
    "rot90",
    "squeeze",
    "swapaxes",
    "swapdims",
    "t",
    "tile",
    "transpose",
    "unflatten",
    "unsqueeze",
]


# ---------------------------------------------------------------- reshape family


def reshape(input: Any, *args: Any, shape: Any = None) -> Any:
    """The same elements in a new shape (one dim may be ``-1``).

    As torch: a contiguous tensor is viewed (``ViewBackward0``); another is viewed too
    when torch's stride rules allow it (``ReshapeAliasBackward0``), else copied to a
    contiguous tensor and reshaped (``UnsafeViewBackward0`` after ``CloneBackward0``).
    Example: ``hookgrad.arange(6.0).reshape(2, -1).shape == (2, 3)``.
    """
    given = varargs(args if shape is None else (shape,), "reshape", "shape")
    target = infer_shape(given, input._data.size)
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
    target = infer_shape(varargs(shape, "view", "size"), input._data.size)
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
    sizes = int_tuple(sizes, "unflatten", "sizes")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inner = infer_shape(sizes, shape[dim])
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
    given = varargs(sizes, "expand", "size")
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
    order = varargs(args if dims is None else (dims,), "permute", "dims")
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
    return apply(squeeze_op(input._data.ndim, dim), input)


def squeeze_op(ndim: int, dim: Any) -> Any:
    """The node of ``squeeze(dim)`` on a tensor of ``ndim`` dims (torch's checks)."""
    if dim is None:
        return ops.Squeeze(tuple(range(ndim)))
    if isinstance(dim, Sequence):
        return ops.SqueezeDims(dim_list(dim, ndim), given_dims(dim))
    return ops.SqueezeDim(dim_list(dim, ndim), operator.index(dim))


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
    dim_list(dims, input._data.ndim)
    return apply(copy_ops.Flip(given_dims(dims)), input)


def roll(input: Any, shifts: Any, dims: Any = None) -> Any:
    """Shift elements cyclically by ``shifts`` along ``dims`` (ints or sequences);
    without ``dims`` the tensor is rolled as if flattened."""
    shifts = int_tuple(shifts if isinstance(shifts, Sequence) else (shifts,), "roll", "shifts")
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
    return apply(copy_ops.Roll(shifts, given), input)


def repeat(input: Any, *repeats: Any) -> Any:
    """Tile the tensor ``repeats[i]`` times along dim ``i`` (a copy; ``repeats`` may
    have more entries than ``input`` has dims)."""
    reps = varargs(repeats, "repeat", "repeats")
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
    return apply(copy_ops.Repeat(reps), input)


def tile(input: Any, dims: Any) -> Any:
    """Like ``repeat``, with ``dims`` padded with leading 1s to ``input.dim()`` entries."""
    reps = varargs((dims,), "tile", "dims")
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
    tensors = tuple(tensor_list(tensors, "broadcast_tensors"))
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
    dims = int_tuple(dims, "rot90", "dims")
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
    return apply(copy_ops.Rot90(operator.index(k), dims), input)


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
    return apply(copy_ops.Unfold(operator.index(dimension), size, step), input)


def narrow_copy(input: Any, dim: int, start: int, length: int) -> Any:
    """``narrow`` as a new tensor: ``length`` elements of ``dim`` from ``start``.

    Example: ``hookgrad.arange(5.0).narrow_copy(0, 1, 2)`` is ``tensor([1., 2.])``.
    """
    narrow(input.detach(), dim, start, length)
    return apply(copy_ops.NarrowCopy(operator.index(dim), operator.index(start), length), input)


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
