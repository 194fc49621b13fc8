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

from hookgrad.ops import padding
from hookgrad.ops import shape as ops
from hookgrad.ops.strides import compute_stride, torch_strides
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.joining import (
    _ints,
    cat,
    chunk,
    diag,
    diag_embed,
    diagonal,
    diagonal_scatter,
    narrow,
    select,
    select_scatter,
    slice_scatter,
    split,
    stack,
    tensor_split,
    tril,
    triu,
    unbind,
)
from hookgrad.tensor.layout import contiguous

__all__ = [
    "flatten",
    "flip",
    "movedim",
    "moveaxis",
    "permute",
    "ravel",
    "reshape",
    "roll",
    "squeeze",
    "swapaxes",
    "swapdims",
    "t",
    "tile",
    "transpose",
    "unflatten",
    "unsqueeze",
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
    ndim = input._data.ndim
    if dim is None:
        return apply(ops.Squeeze(tuple(range(ndim))), input)
    if isinstance(dim, Sequence):
        return apply(ops.SqueezeDims(_dim_list(dim, ndim), _given_dims(dim)), input)
    return apply(ops.SqueezeDim(_dim_list(dim, ndim), operator.index(dim)), input)


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
