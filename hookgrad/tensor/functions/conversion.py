"""Copies, dtype conversions (``to``, ``float()``, ``type()`` ...), and the ``new_*``
constructors that follow a tensor's dtype."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hookgrad.ops import conversion as ops
from hookgrad.ops import inplace as inplace_ops
from hookgrad.ops.shape import Alias
from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import (
    COPY_CONSTRUCT_WARNING,
    constant_tensor,
    full,
    new_leaf,
    size_args,
)
from hookgrad.tensor.device import check_device
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.layout import copy_in_format, preserve_format
from hookgrad.tensor.nested_data import to_array
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "clone",
    "conj",
    "fill",
    "from_dlpack",
    "to_dlpack",
    "imag",
    "real",
    "view_as_complex",
    "view_as_real",
]


def clone(input: Any, *, memory_format: Any = None) -> Any:
    """A copy of ``input`` with its own memory; differentiable (``CloneBackward0``).

    The copy keeps the input's layout (``preserve_format``, the default) or takes
    ``memory_format`` (``contiguous_format``, ``channels_last`` ...).
    """
    if memory_format is None or memory_format is preserve_format:
        return apply(ops.Clone(), input)
    return copy_in_format(input, memory_format)


def fill(input: Any, value: Any) -> Any:
    """A new tensor of ``input``'s shape, dtype and layout with every element ``value``
    (a number, cast to the dtype, or a 0-dim tensor, which then gets the summed
    gradient; ``input`` gets none). The out-of-place form of ``fill_``. Example::

        hookgrad.fill(hookgrad.zeros(3), 2.0)     # tensor([2., 2., 2.])
    """
    if not isinstance(value, Tensor):
        op = inplace_ops.Fill(dtypes.checked_scalar(value, input.dtype))
        op.node_name = "FillBackward0"
        return apply(op, input)
    if value._data.ndim:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value._data.ndim} dimensions."
        )
    op = inplace_ops.FillTensor()
    op.node_name = "FillBackward1"
    return apply(op, input, value)


def _to_dtype(input: Any, dtype: dtypes.dtype, copy: bool = False) -> Any:
    """``input`` cast to ``dtype`` (``ToCopyBackward0``); ``input`` itself if it has that
    dtype already and no ``copy`` is asked for."""
    if dtype.np == input._data.dtype and not copy:
        return input
    if input.dtype.is_complex and not dtype.is_complex:
        warnings.warn(
            "Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3
        )
    return apply(ops.ToCopy(dtype.np), input)


def to(
    input: Any,
    *args: Any,
    dtype: Any = None,
    device: Any = None,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: Any = None,
) -> Any:
    """``input`` with another dtype: ``to(dtype)``, ``to(other_tensor)``,
    ``to(device, dtype)``, ``to(dtype=..., copy=True)``.

    Returns ``input`` itself when nothing changes (and ``copy`` is False). Only the CPU
    exists, so a device argument changes nothing. Example::

        x.to(hookgrad.float64)      # tensor(..., dtype=torch.float64, grad_fn=<ToCopyBackward0>)
    """
    for arg in args:
        if hasattr(arg, "_data"):
            dtype = arg.dtype
        elif isinstance(arg, (dtypes.dtype, np.dtype)) or arg in (float, int, bool, complex):
            if dtype is not None:
                raise TypeError(
                    "to() received an invalid combination of arguments - got two dtypes"
                )
            dtype = arg
        elif arg is not None:
            check_device(arg)
    check_device(device)
    return _to_dtype(input, input.dtype if dtype is None else dtypes.to_dtype(dtype), copy)


def type_as(input: Any, other: Any) -> Any:
    """``input`` cast to ``other``'s dtype."""
    return _to_dtype(input, other.dtype)


def conj(input: Any) -> Any:
    """The complex conjugate (``input`` itself for real tensors)."""
    if input._data.dtype.kind != "c":
        return input
    return apply(ops.Conj(), input)


def real(input: Any) -> Any:
    """The real part of a complex tensor, sharing its memory; ``input`` itself if real.

    Example: ``hookgrad.tensor([1 + 2j]).real`` is ``tensor([1.])``.
    """
    if input._data.dtype.kind != "c":
        return input
    return apply(ops.Real(), input)


def imag(input: Any) -> Any:
    """The imaginary part of a complex tensor, sharing its memory."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return apply(ops.Imag(), input)


def view_as_real(input: Any) -> Any:
    """A complex tensor as a real one with a last dimension of size 2 (real, imaginary),
    sharing its memory.

    Example: ``hookgrad.view_as_real(hookgrad.tensor([1 + 2j]))`` is ``tensor([[1., 2.]])``.
    """
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return apply(ops.ViewAsReal(), input)


def view_as_complex(input: Any) -> Any:
    """A float32/float64 tensor whose last dimension has size 2 (real, imaginary) as a
    complex tensor, sharing its memory; the inverse of ``view_as_real``.

    Like torch, it needs that last dimension contiguous and the other strides and the
    offset in memory even. Example: ``hookgrad.view_as_complex(hookgrad.tensor([[1., 2.]]))``
    is ``tensor([1.+2.j])``.
    """
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {input.dtype.type_name[3:-4]}"
        )
    if data.dtype.itemsize < 4:
        raise RuntimeError("view_as_complex: hookgrad has no complex32 dtype for half tensors")
    _check_complex_layout(data)
    return apply(ops.ViewAsComplex(), input)


def _pairs_as_complex(input: Any) -> Any:
    """``view_as_complex`` for backward formulas: any layout (copied where it must be)."""
    return apply(ops.ViewAsComplex(), input)


def _check_complex_layout(data: np.ndarray) -> None:
    """torch's checks that real pairs in memory can be read as complex numbers."""
    if data.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if data.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    itemsize = data.itemsize
    if data.strides[-1] != itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(stride % (2 * itemsize) for stride in data.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    root = data
    while isinstance(root.base, np.ndarray):
        root = root.base
    offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if offset % (2 * itemsize):
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")


def _new_dtype(input: Any, dtype: Any) -> dtypes.dtype:
    return input.dtype if dtype is None else dtypes.to_dtype(dtype)


def new_zeros(
    input: Any,
    *args: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Zeros of the given size with ``input``'s dtype (unless given).

    Example: ``x.new_zeros(2, 3)`` or ``x.new_zeros((2, 3))``.
    """
    dtype = _new_dtype(input, dtype)
    return constant_tensor(
        np.zeros, "new_zeros", size_args(args, size), dtype, device, requires_grad
    )


def new_ones(
    input: Any,
    *args: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Ones of the given size with ``input``'s dtype (unless given)."""
    dtype = _new_dtype(input, dtype)
    return constant_tensor(np.ones, "new_ones", size_args(args, size), dtype, device, requires_grad)


def new_empty(
    input: Any,
    *args: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """An uninitialised tensor of the given size with ``input``'s dtype (unless given)."""
    dtype = _new_dtype(input, dtype)
    return constant_tensor(
        np.empty, "new_empty", size_args(args, size), dtype, device, requires_grad
    )


def new_full(
    input: Any,
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``fill_value`` everywhere in a tensor of shape ``size`` (a tuple), with ``input``'s
    dtype (unless given)."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"new_full(): argument 'size' (position 1) must be tuple of ints, not "
            f"{type(size).__name__}"
        )
    return full(
        size, fill_value, dtype=_new_dtype(input, dtype), device=device, requires_grad=requires_grad
    )


def new_tensor(
    input: Any,
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """A new leaf tensor holding a copy of ``data``, with ``input``'s dtype (unless given)."""
    check_device(device)
    if hasattr(data, "_data"):
        warnings.warn(
            COPY_CONSTRUCT_WARNING.replace("torch.tensor(", "tensor.new_tensor("),
            UserWarning,
            stacklevel=2,
        )
    return new_leaf(to_array(data, _new_dtype(input, dtype)), requires_grad)


def as_subclass(input: Any, cls: type) -> Any:
    """``input`` as an instance of ``cls`` (a subclass of ``Tensor``): a view of the same
    memory on the graph (``AliasBackward0``), as torch's ``as_subclass``. Example::

        class Tagged(hookgrad.Tensor): ...
        t = x.as_subclass(Tagged)     # type(t) is Tagged; x's gradient flows through it
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is "
            "not possible. Make sure your class inherits from Tensor."
        )
    out = apply(Alias(), input)
    out.__class__ = cls
    return out


def module_load(input: Any, other: Any, assign: bool = False) -> Any:
    """What ``Module.load_state_dict`` stores for a parameter or buffer ``input`` given
    the state dict's ``other`` (when parameters are swapped in): ``other.detach()`` with
    ``assign``, else ``input.copy_(other).detach()``. Subclasses override it."""
    if assign:
        return other.detach()
    return input.copy_(other).detach()


# ---------------------------------------------------------------- DLPack


def __dlpack__(input: Any, **kwargs: Any) -> Any:
    """The tensor as a DLPack capsule sharing its memory (the array API's exchange
    protocol; ``kwargs``: ``stream``, ``max_version``, ``dl_device``, ``copy``)."""
    if input.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    return input._data.__dlpack__(**kwargs)


def __dlpack_device__(input: Any) -> tuple[int, int]:
    """Where the memory is, for DLPack: ``(1, 0)``, the CPU."""
    return (1, 0)


def to_dlpack(tensor: Any) -> Any:
    """A DLPack capsule (``"dltensor"``) on ``tensor``'s memory, for another library's
    ``from_dlpack``; it can be consumed once. Example::

        capsule = hookgrad.to_dlpack(x)     # for another library's from_dlpack(capsule)
    """
    return __dlpack__(tensor)


class _Capsule:
    """A DLPack capsule given the protocol's methods, for NumPy to import it."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


class _WritableMemory:
    """The memory of ``array`` offered as writable (``__array_interface__``), holding
    ``array`` (and so the capsule's memory) alive. NOTE: NumPy imports a capsule of the
    unversioned protocol as read-only, since that protocol cannot say; torch, and so
    hookgrad, treat its memory as writable."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        interface = dict(array.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Any:
    """A tensor on the memory of ``ext_tensor`` (an object with ``__dlpack__``: a torch
    tensor, a NumPy array ...; or a DLPack capsule): writes through either are seen by
    both. ``copy=True`` copies instead; only CPU memory can be imported. Example::

        a = numpy.arange(3.0)
        t = hookgrad.from_dlpack(a)
        t[0] = 7.0            # a[0] is 7.0 too
    """
    check_device(device)
    if not hasattr(ext_tensor, "__dlpack__"):
        if type(ext_tensor).__name__ != "PyCapsule":
            raise RuntimeError(
                "from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                "consumed only once, so you might have already constructed a tensor from it "
                "once."
            )
        array = np.from_dlpack(_Capsule(ext_tensor), copy=copy)
        if not array.flags.writeable:
            array = np.asarray(_WritableMemory(array))
        return Tensor._make(array)
    return Tensor._make(np.from_dlpack(ext_tensor, copy=copy))


class ConversionMethods:
    """Conversion methods of ``Tensor``."""

    clone = clone
    to = to
    type_as = type_as
    conj = conj
    conjugate = conj
    real = property(real)
    imag = property(imag)
    _view_as_real = view_as_real  # for backward formulas; not a torch method
    _view_as_complex = _pairs_as_complex
    new_zeros = new_zeros
    new_ones = new_ones
    new_empty = new_empty
    new_full = new_full
    new_tensor = new_tensor
    as_subclass = as_subclass
    module_load = module_load
    __dlpack__ = __dlpack__
    __dlpack_device__ = __dlpack_device__

    def float(self) -> Any:
        """``self`` as float32."""
        return _to_dtype(self, dtypes.float32)

    def double(self) -> Any:
        """``self`` as float64."""
        return _to_dtype(self, dtypes.float64)

    def half(self) -> Any:
        """``self`` as float16."""
        return _to_dtype(self, dtypes.float16)

    def long(self) -> Any:
        """``self`` as int64."""
        return _to_dtype(self, dtypes.int64)

    def int(self) -> Any:
        """``self`` as int32."""
        return _to_dtype(self, dtypes.int32)

    def short(self) -> Any:
        """``self`` as int16."""
        return _to_dtype(self, dtypes.int16)

    def char(self) -> Any:
        """``self`` as int8."""
        return _to_dtype(self, dtypes.int8)

    def byte(self) -> Any:
        """``self`` as uint8."""
        return _to_dtype(self, dtypes.uint8)

    def bool(self) -> Any:
        """``self`` as bool."""
        return _to_dtype(self, dtypes.bool_)

    def cfloat(self) -> Any:
        """``self`` as complex64."""
        return _to_dtype(self, dtypes.complex64)

    def cdouble(self) -> Any:
        """``self`` as complex128."""
        return _to_dtype(self, dtypes.complex128)

    def cpu(self, memory_format: Any = None) -> Any:
        """``self``: tensors live on the CPU already (``memory_format`` is accepted as in
        torch, which also returns the tensor itself then)."""
        return self
