"""In-place changes of a tensor's layout or storage: the in-place view ops (``squeeze_``,
``unsqueeze_``, ``t_``, ``transpose_``, ``as_strided_``), ``set_``, ``resize_``; and the
functions built on a tensor's memory: ``fill_diagonal_``, ``slice_inverse``,
``is_set_to``, the legacy ``resize``.

An in-place view op gives the tensor itself a new shape and strides on the same memory.
As in torch it is checked as any in-place op (a leaf that requires grad, a view of one, a
view made under ``no_grad`` ...), bumps the version counter and, when autograd tracks
it, records the out-of-place view's node under torch's in-place name (``squeeze_()``:
``SqueezeBackward3``, ``t_()``: ``TBackward1``), its edge to the tensor's old history.
Unlike other in-place ops, a view stays a view of its base (the base's ``grad_fn`` does
not change), and hooks registered on the tensor stay bound to the old node, later ones
too (torch's ``set_history``, ``hookgrad.graph.history.restride_history``).

Storage: a tensor's storage is the NumPy array owning its memory (see
``hookgrad.tensor.layout``). ``set_`` points a tensor at another tensor's or storage's
memory. ``resize_`` re-lays a tensor out in C order on its storage, and when that is too
small moves it to a larger copy: NOTE: torch grows the storage itself, so that other
tensors on it see the new memory; here they keep the old one.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.graph import history
from hookgrad.ops import as_strided as as_strided_ops
from hookgrad.ops import restride as ops
from hookgrad.ops import shape as shape_ops
from hookgrad.ops.as_strided import memory_owner, storage_view
from hookgrad.ops.strides import contiguous_strides, dense_strides_in_order, torch_strides
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor.dispatch import apply, record
from hookgrad.tensor.functions.as_strided import apply_as_strided
from hookgrad.tensor.functions.inplace import old_value_stand_in, prepare_inplace
from hookgrad.tensor.functions.shape import squeeze_op
from hookgrad.tensor.layout import (
    UntypedStorage,
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from hookgrad.tensor.layout import storage_offset as storage_offset_of
from hookgrad.tensor.tensor import Tensor
from hookgrad.tensor.views import check_inplace

__all__ = ["as_strided_", "resize_as_", "slice_inverse"]

_state = grad_mode._state


# ---------------------------------------------------------------- in-place view ops


def _restride(input: Any, view: Callable[[Any], Any], node_name: str) -> Any:
    """``input`` given, in place, the layout ``view(t)`` (an out-of-place view op on a
    tensor ``t`` on ``input``'s memory) makes; its node is recorded as ``node_name``."""
    tracked = prepare_inplace(input, ())
    source = old_value_stand_in(input, False) if tracked else Tensor._make(input._data)
    out = view(source)
    node = out._grad_fn if tracked else None
    if node is not None:
        node.node_name = node_name
        node._name_class()
    input._data = out._data
    input._bump_version()
    if node is not None:
        history.restride_history(input, node)
    return input


def _named(op: Any, node_name: str) -> Any:
    """``op`` to be recorded as ``node_name`` (torch's name for its in-place form)."""
    op.node_name = node_name
    return op


def squeeze_(input: Any, dim: Any = None) -> Any:
    """Remove size-1 dims of ``input`` in place: all of them, or those among ``dim`` (an
    int or a tuple); returns ``input``. Example::

        x = hookgrad.zeros(2, 1, 3)
        x.squeeze_(1)        # x.shape == (2, 3), the same memory
    """
    if dim is None:
        name = "SqueezeBackward3"
    elif isinstance(dim, Sequence):
        name = "SqueezeBackward5"
    else:
        name = "SqueezeBackward4"
    ndim = input._data.ndim
    return _restride(input, lambda t: apply(squeeze_op(ndim, dim), t), name)


def unsqueeze_(input: Any, dim: int) -> Any:
    """Insert a size-1 dim at ``dim`` of ``input`` in place; returns ``input``.

    Example: ``hookgrad.zeros(3).unsqueeze_(0).shape == (1, 3)``.
    """
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim + 1)
    op = shape_ops.Unsqueeze(dim)
    return _restride(input, lambda t: apply(op, t), "UnsqueezeBackward1")


def transpose_(input: Any, dim0: int, dim1: int) -> Any:
    """Swap dims ``dim0`` and ``dim1`` of ``input`` in place; returns ``input``.

    Example: ``hookgrad.zeros(2, 3).transpose_(0, 1).stride() == (1, 3)``.
    """
    dim0, dim1 = operator.index(dim0), operator.index(dim1)
    ndim = input._data.ndim
    wrap_dim(dim0, ndim)
    wrap_dim(dim1, ndim)
    op = shape_ops.Transpose(dim0, dim1)
    return _restride(input, lambda t: apply(op, t), "TransposeBackward1")


def swapaxes_(input: Any, axis0: int, axis1: int) -> Any:
    """``transpose_(axis0, axis1)`` (NumPy's name)."""
    return transpose_(input, axis0, axis1)


def swapdims_(input: Any, dim0: int, dim1: int) -> Any:
    """``transpose_(dim0, dim1)``."""
    return transpose_(input, dim0, dim1)


def t_(input: Any) -> Any:
    """Transpose a matrix in place (a 0-d or 1-d tensor stays as it is); returns ``input``.

    Example: ``hookgrad.zeros(2, 3).t_().shape == (3, 2)``.
    """
    if input._data.ndim > 2:
        raise RuntimeError(
            f"t_() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D"
        )
    return _restride(input, lambda t: apply(shape_ops.MatrixT(), t), "TBackward1")


def as_strided_(
    input: Any, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Any:
    """Give ``input`` the shape ``size`` and ``stride`` (in elements) on its memory, its
    first element ``storage_offset`` elements into it (default: where it starts), in
    place; returns ``input``. Example::

        x = hookgrad.arange(6.0)
        x.as_strided_((2, 2), (1, 2), 1)     # tensor([[1., 3.], [2., 4.]])
    """

    def op(*args: Any) -> Any:
        return _named(as_strided_ops.AsStridedView(*args), "AsStridedBackward1")

    def view(t: Any) -> Any:
        return apply_as_strided(t, size, stride, storage_offset, op)

    return _restride(input, view, "AsStridedBackward1")


# ---------------------------------------------------------------- on a tensor's memory


def fill_diagonal_(input: Any, fill_value: Any, wrap: bool = False) -> Any:
    """Fill the main diagonal of ``input`` (2 or more dims, all of one length beyond 2)
    with the number ``fill_value`` (or a 0-dim tensor's value), in place; ``wrap``: for
    a tall matrix, start again below the end of the diagonal every ``columns + 1`` rows.
    Returns ``input``.

    As torch, it is ``fill_`` of ``as_strided`` views (autograd records ``CopySlices``).
    Example::

        hookgrad.zeros(3, 3).fill_diagonal_(1.0)      # the identity matrix
    """
    if isinstance(fill_value, Tensor) and fill_value.ndim == 0 and not fill_value.requires_grad:
        fill_value = fill_value.item()
    if not isinstance(fill_value, (bool, int, float, complex)):
        raise TypeError(
            "fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = shape[0], shape[1]
    if len(shape) > 2 and any(size != height for size in shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    offset = storage_offset_of(input)
    step = sum(input.stride())
    size = min(height, width)
    input.as_strided((size,), (step,), offset).fill_(fill_value)
    if wrap and len(shape) == 2 and height > width + 1:
        numel = height * width
        wrap_size = (numel + width) // (width + 1) - size
        wrap_offset = offset + input.stride(0) * (width + 1)
        input.as_strided((wrap_size,), (step,), wrap_offset).fill_(fill_value)
    return input


def slice_inverse(
    input: Any,
    src: Any,
    dim: int = 0,
    start: int | None = None,
    end: int | None = None,
    step: int = 1,
) -> Any:
    """The inverse of slicing: ``input``'s memory viewed with ``src``'s sizes, strides and
    storage offset, where ``input`` is ``src`` sliced ``start:end:step`` along ``dim``.
    ``input`` gets the gradient of that slice, ``src`` the rest. Example::

        base = hookgrad.arange(6.0)
        hookgrad.slice_inverse(base[2:], base, 0, 2)    # all of base: tensor([0., ..., 5.])
    """
    return apply(ops.SliceInverse(dim, start, end, step), input, src)


def is_set_to(input: Any, tensor: Any) -> bool:
    """True if ``input`` and ``tensor`` lie on the same storage with the same storage
    offset, sizes and strides (as after ``input.set_(tensor)``)."""
    if memory_owner(input._data) is not memory_owner(tensor._data):
        return False
    return (
        storage_offset_of(input) == storage_offset_of(tensor)
        and input._data.shape == tensor._data.shape
        and torch_strides(input._data) == torch_strides(tensor._data)
    )


# ---------------------------------------------------------------- set_


# torch's C++ element type names in ``set_``'s dtype error.
_SET_TYPE_NAMES = {
    "bool": "bool",
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def set_(
    input: Any,
    source: Any = None,
    storage_offset: int | None = None,
    size: Sequence[int] | None = None,
    stride: Sequence[int] | None = None,
) -> Any:
    """Point ``input`` at other memory, in place; returns ``input``. Forms:

    - ``set_()``: an empty tensor (shape ``(0,)``) on new, empty storage;
    - ``set_(tensor)``: ``tensor``'s storage, offset, sizes and strides (same dtype);
    - ``set_(storage)``: all of ``storage`` (``x.untyped_storage()``) as a vector;
    - ``set_(storage, storage_offset, size, stride=None)``: that layout on ``storage``
      (C order without ``stride``).

    Writes through either tensor are then seen by the other. torch gives ``set_`` no
    derivative: when autograd tracks it, a backward through it raises. Example::

        a = hookgrad.arange(6.0)
        b = hookgrad.zeros(2).set_(a.untyped_storage(), 1, (2, 2), (1, 2))
        b          # tensor([[1., 3.], [2., 4.]])
    """
    dtype = input._data.dtype
    operands: tuple[Any, ...] = ()
    if source is None:
        array = np.empty((0,), dtype)
    elif isinstance(source, Tensor):
        if source._data.dtype != dtype:
            raise RuntimeError(
                f"Could not set tensor of type {_SET_TYPE_NAMES[source._data.dtype.name]} to a "
                f"tensor of type {_SET_TYPE_NAMES[dtype.name]}"
            )
        array = source._data.view()
        operands = (source,)
    else:
        array = _storage_layout(source, dtype, storage_offset, size, stride)
    tracked = prepare_inplace(input, operands, overlap=False)
    if tracked:
        node = ops.SetStorage()
        record(node, (old_value_stand_in(input, False), *operands), Tensor._make(array))
    input._data = array
    input._bump_version()
    if tracked:
        history.rebase_history(input, node)
    return input


def _storage_layout(
    storage: Any, dtype: np.dtype, offset: Any, size: Any, stride: Any
) -> np.ndarray:
    """A view of ``storage``'s memory as elements of ``dtype`` laid out as asked."""
    root = getattr(storage, "_untyped", storage)
    if not isinstance(root, UntypedStorage):
        raise TypeError(
            "set_(): argument 'source' (position 1) must be Storage or Tensor, not "
            f"{type(storage).__name__}"
        )
    memory = root._array
    itemsize = np.dtype(dtype).itemsize
    if size is None:
        if offset is not None:
            raise TypeError("set_(): argument 'size' (position 3) must be tuple of ints")
        return storage_view(memory, dtype, (memory.nbytes // itemsize,), (1,), 0)
    offset = operator.index(offset or 0)
    shape = tuple(operator.index(n) for n in size)
    strides = contiguous_strides(shape) if not stride else tuple(operator.index(s) for s in stride)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if ops.storage_bytes_needed(shape, strides, offset) * itemsize > memory.nbytes:
        raise RuntimeError(
            ops.out_of_bounds_message(shape, strides, offset, itemsize, memory.nbytes)
        )
    return storage_view(memory, dtype, shape, strides, offset)


# ---------------------------------------------------------------- resize


def resize_(input: Any, *sizes: Any, memory_format: Any = None) -> Any:
    """Give ``input`` the shape ``sizes`` in place, laid out in ``memory_format`` (C order
    by default) from its storage offset on; returns ``input``. Elements beyond the old
    storage are new (zeros here; torch leaves them uninitialised). The same shape without
    a ``memory_format`` keeps the strides. A tensor that requires grad cannot be resized.

    Example: ``hookgrad.arange(4.0).resize_(2, 2)`` is ``tensor([[0., 1.], [2., 3.]])``.
    """
    shape = _sizes(sizes, "resize_")
    if input.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    check_inplace(input, False)
    data = input._data
    if memory_format is None and shape == data.shape:
        input._bump_version()
        return input
    strides = _format_strides(shape, contiguous_format if memory_format is None else memory_format)
    offset = storage_offset_of(input)
    root = memory_owner(data)
    itemsize = data.itemsize
    needed = ops.storage_bytes_needed(shape, strides, offset) * itemsize
    if needed > root.nbytes:
        grown = np.zeros(needed, np.uint8)
        grown[: root.nbytes] = root.reshape(-1).view(np.uint8) if root.nbytes else grown[:0]
        root = grown
    input._data = storage_view(root, data.dtype, shape, strides, offset)
    input._bump_version()
    return input


def resize_as_(input: Any, the_template: Any, *, memory_format: Any = None) -> Any:
    """``input.resize_(the_template.shape, memory_format=memory_format)``."""
    return resize_(input, the_template._data.shape, memory_format=memory_format)


def _sizes(sizes: tuple[Any, ...], fn: str) -> tuple[int, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` alike, with torch's errors."""
    if len(sizes) == 1 and not isinstance(sizes[0], (int, np.integer, Tensor)):
        value = sizes[0]
        if not isinstance(value, Sequence) or isinstance(value, str):
            raise TypeError(
                f"{fn}(): argument 'size' (position 1) must be tuple of ints, not "
                f"{type(value).__name__}"
            )
        sizes = tuple(value)
    shape = []
    for pos, size in enumerate(sizes):
        try:
            shape.append(operator.index(size))
        except TypeError:
            raise TypeError(
                f"{fn}(): argument 'size' must be tuple of ints, but found element of type "
                f"{type(size).__name__} at pos {pos}"
            ) from None
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(shape)


_FORMAT_ORDERS = {channels_last: ((1, 3, 2, 0), 4), channels_last_3d: ((1, 4, 3, 2, 0), 5)}


def _format_strides(shape: tuple[int, ...], layout: Any) -> tuple[int, ...]:
    """The strides of a dense tensor of ``shape`` in the memory format ``layout``."""
    if not isinstance(layout, memory_format):
        raise TypeError(
            f"resize_(): argument 'memory_format' must be torch.memory_format, not "
            f"{type(layout).__name__}"
        )
    if layout is preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    if layout in _FORMAT_ORDERS:
        order, rank = _FORMAT_ORDERS[layout]
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {layout._name} format")
        return dense_strides_in_order(shape, order)
    return contiguous_strides(shape)


def resize(input: Any, *sizes: Any) -> Any:
    """Deprecated (torch warns): ``input``'s elements in C order with the shape ``sizes``,
    which must have as many elements; differentiable (``ResizeBackward``). Prefer
    ``reshape``."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _resize(input, _sizes(sizes, "resize"))


def resize_as(input: Any, tensor: Any) -> Any:
    """Deprecated (torch warns): ``input.resize(*tensor.shape)`` out of place."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _resize(input, tuple(tensor._data.shape))


def _resize(input: Any, sizes: tuple[Any, ...]) -> Any:
    numel = math.prod(sizes)
    if numel != input._data.size:
        requested = "x".join(str(n) for n in sizes)
        given = "x".join(str(n) for n in input._data.shape)
        raise RuntimeError(
            f"requested resize to {requested} ({numel} elements in total), but the given "
            f"tensor has a size of {given} ({input._data.size} elements). autograd's resize "
            "can only change the shape of a given tensor, while preserving the number of "
            "elements. "
        )
    return apply(ops.Resize(tuple(sizes)), input)


class RestrideMethods:
    """In-place layout and storage methods of ``Tensor``."""

    squeeze_ = squeeze_
    unsqueeze_ = unsqueeze_
    transpose_ = transpose_
    swapaxes_ = swapaxes_
    swapdims_ = swapdims_
    t_ = t_
    as_strided_ = as_strided_
    fill_diagonal_ = fill_diagonal_
    slice_inverse = slice_inverse
    is_set_to = is_set_to
    set_ = set_
    resize_ = resize_
    resize_as_ = resize_as_
    resize = resize
    resize_as = resize_as
