"""Memory layout, as torch reports it: strides in elements, the storage a tensor shares
with its views, the offset into it, memory formats, ``is_contiguous`` and ``contiguous``.

A tensor's NumPy array already carries torch's layout (the view ops of
``hookgrad.ops.shape`` build their outputs with torch's strides), so everything here is
read from the array: ``stride()`` is its strides divided by its itemsize, and its storage
is the memory of the array at the root of its NumPy ``base`` chain.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hookgrad.ops import shape as ops
from hookgrad.ops.as_strided import memory_owner, storage_view
from hookgrad.ops.strides import dense_strides_in_order, torch_strides
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes, shared_memory
from hookgrad.tensor.device import cpu
from hookgrad.tensor.dispatch import apply

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "layout",
    "legacy_contiguous_format",
    "memory_format",
    "preserve_format",
    "strided",
]


# ---------------------------------------------------------------- layouts


class layout:  # noqa: N801  (torch's name)
    """How a tensor's elements are stored (torch's ``torch.layout``). hookgrad has one:
    ``strided`` (dense, with ``stride()``); torch's sparse layouts are not reproduced.
    Instances cannot be made. Example: ``hookgrad.zeros(2).layout is hookgrad.strided``.
    """

    __slots__ = ("_name",)
    _name: str

    def __new__(cls, *args: Any, **kwargs: Any) -> layout:
        raise TypeError("cannot create 'torch.layout' instances")

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


strided = object.__new__(layout)
strided._name = "strided"


# ---------------------------------------------------------------- memory formats


class memory_format:  # noqa: N801  (torch's name)
    """How a tensor's elements are ordered in memory (torch's ``torch.memory_format``).

    The instances are ``contiguous_format`` (C order), ``channels_last`` (NHWC order of a
    4-d NCHW tensor), ``channels_last_3d`` (NDHWC of a 5-d tensor) and ``preserve_format``
    (keep the input's layout; for ``clone``, ``*_like``). Example::

        x.is_contiguous(memory_format=hookgrad.channels_last)
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
# torch's old name of the C-order format (the same object).
legacy_contiguous_format = contiguous_format

# The order in which dims get increasing strides, and the rank each format needs.
_CHANNELS_LAST = {channels_last: ((1, 3, 2, 0), 4), channels_last_3d: ((1, 4, 3, 2, 0), 5)}


def _check_format(fn: str, value: Any) -> None:
    """torch's TypeError for a ``memory_format`` argument that is not one."""
    if not isinstance(value, memory_format):
        raise TypeError(
            f"{fn}(): argument 'memory_format' must be torch.memory_format, not "
            f"{type(value).__name__}"
        )


def _check_no_positional(fn: str, args: tuple[Any, ...]) -> None:
    """torch's TypeError for a keyword-only argument given by position."""
    if args:
        raise TypeError(f"{fn}() takes 0 positional arguments but {len(args)} was given")


def _is_dense_in_order(
    shape: tuple[int, ...], strides: tuple[int, ...], order: tuple[int, ...]
) -> bool:
    """Whether the dims in ``order`` (innermost first) have strides of a dense layout;
    size-1 dims may have any stride."""
    expected = 1
    for dim in order:
        if shape[dim] != 1:
            if strides[dim] != expected:
                return False
            expected *= shape[dim]
    return True


# ---------------------------------------------------------------- strides and storage


class StorageBase:
    """The base class of storages (torch's ``torch.StorageBase``); it cannot be made
    itself. Example: ``isinstance(x.untyped_storage(), hookgrad.StorageBase)``."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is StorageBase:
            raise RuntimeError(
                "Cannot directly construct StorageBase; subclass it and then construct that"
            )
        return super().__new__(cls)


class UntypedStorage(StorageBase):
    """The memory a tensor shares with its views (torch's ``untyped_storage()``): bytes.

    Example: ``x.untyped_storage().data_ptr() == x[1:].untyped_storage().data_ptr()``.
    """

    __slots__ = ("_array",)

    def __init__(self, array: np.ndarray) -> None:
        self._array = array  # the root array that owns the memory

    def data_ptr(self) -> int:
        """The address of the first byte (0 for an empty storage, as torch)."""
        if not self._array.nbytes:
            return 0
        return int(self._array.__array_interface__["data"][0])

    def nbytes(self) -> int:
        """The size of the storage in bytes."""
        return int(self._array.nbytes)

    def size(self) -> int:
        """The size in bytes (an untyped storage's elements are bytes)."""
        return int(self._array.nbytes)

    def __len__(self) -> int:
        return int(self._array.nbytes)

    def element_size(self) -> int:
        """1: an untyped storage holds bytes."""
        return 1

    def is_shared(self) -> bool:
        """Whether the memory is shared with other processes (see ``share_memory_``)."""
        return shared_memory.descriptor(self._array) is not None

    @property
    def device(self) -> Any:
        return cpu

    def __repr__(self) -> str:
        return f"<UntypedStorage of {self.nbytes()} bytes at {self.data_ptr():#x}>"


_TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
    "be the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
    "of tensor.storage()"
)


class TypedStorage:
    """A storage read as elements of one dtype (torch's deprecated
    ``torch.storage.TypedStorage``, what ``Tensor.storage()`` returns): all of the
    memory a tensor shares with its views, from its first byte. Indexing reads and
    writes that memory. Example::

        x = hookgrad.arange(4.0)
        s = x[1:].storage()      # all 4 elements: s.size() == 4
        s[0] = 5.0               # x[0] is now 5
    """

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, untyped: UntypedStorage, dtype: dtypes.dtype) -> None:
        self._untyped_storage = untyped
        self.dtype = dtype

    @property
    def _untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def _elements(self) -> np.ndarray:
        """The memory as a vector of ``dtype`` elements."""
        root = self._untyped_storage._array
        count = root.nbytes // self.dtype.itemsize
        return storage_view(root, self.dtype.np, (count,), (1,), 0)

    @property
    def device(self) -> Any:
        return self._untyped_storage.device

    def size(self) -> int:
        """The number of elements."""
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    def nbytes(self) -> int:
        """The size in bytes."""
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        """The address of the first element."""
        return self._untyped_storage.data_ptr()

    def untyped(self) -> UntypedStorage:
        """The same memory as bytes."""
        return self._untyped_storage

    def is_shared(self) -> bool:
        """Whether the memory is shared with other processes."""
        return self._untyped_storage.is_shared()

    def type(self) -> str:
        """torch's legacy name of the storage type (``"torch.FloatStorage"``)."""
        return f"torch.{dtypes.legacy_name(self.dtype)}Storage"

    def tolist(self) -> list:
        """The elements as a list of Python numbers."""
        return self._elements().tolist()

    def __getitem__(self, index: Any) -> Any:
        return self._elements()[index].tolist()

    def __setitem__(self, index: Any, value: Any) -> None:
        self._elements()[index] = getattr(value, "_data", value)

    def fill_(self, value: Any) -> TypedStorage:
        """Set every element to ``value``; returns the storage."""
        self._elements().fill(value)
        return self

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def __repr__(self) -> str:
        values = self._elements()
        lines = [f" {value}" for value in values.tolist()]
        lines.append(
            f"[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {values.size}]"
        )
        return "\n".join(lines)


def stride(input: Any, dim: int | None = None) -> Any:
    """The step in memory, in elements, between neighbours along each dim (a tuple), or
    along ``dim``. Example: ``hookgrad.zeros(2, 3).stride() == (3, 1)``;
    ``hookgrad.zeros(2, 3).t().stride(0) == 1``."""
    strides = torch_strides(input._data)
    if dim is None:
        return strides
    if not strides:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return strides[wrap_dim(dim, len(strides))]


def untyped_storage(input: Any) -> UntypedStorage:
    """The memory this tensor shares with its base, its views and ``detach()``-ed aliases."""
    return UntypedStorage(memory_owner(input._data))


def storage(input: Any) -> TypedStorage:
    """The tensor's storage read as elements of its dtype (deprecated in torch, which
    warns; prefer ``untyped_storage()``)."""
    warnings.warn(_TYPED_STORAGE_WARNING, UserWarning, stacklevel=2)
    return TypedStorage(untyped_storage(input), input.dtype)


def storage_type(input: Any) -> type:
    """The legacy storage class of the tensor's dtype (``FloatStorage`` ...; see
    ``hookgrad.storage``)."""
    return legacy_storage_class(input.dtype)


_LEGACY_STORAGES: dict[Any, type] = {}


def legacy_storage_class(dtype: dtypes.dtype) -> type:
    """torch's per-dtype storage class (``FloatStorage`` for float32): a ``TypedStorage``
    of that dtype, made once per dtype."""
    cls = _LEGACY_STORAGES.get(dtype)
    if cls is None:
        name = f"{dtypes.legacy_name(dtype)}Storage"
        cls = type(name, (TypedStorage,), {"__slots__": (), "__module__": "torch"})
        _LEGACY_STORAGES[dtype] = cls
    return cls


def share_memory_(input: Any) -> Any:
    """Move the tensor's storage into memory shared between processes, in place (a
    no-op when it is there already); returns ``input``. A child process started
    afterwards, or receiving the tensor through ``hookgrad.multiprocessing`` (a
    ``Queue``, a ``Process`` argument), then sees the same memory: writes in one
    process show in all (Hogwild training).

    NOTE: torch moves the storage itself, so every tensor on it follows; here only
    ``input`` moves to the shared copy (its views made before keep the old memory).
    Example::

        model.weight.share_memory_()
        model.weight.is_shared()      # True
    """
    data = input._data
    root = memory_owner(data)
    if shared_memory.descriptor(root) is not None:
        return input
    shared = shared_memory.allocate(root.nbytes)
    shared[:] = root.ravel(order="K").view(np.uint8)
    offset = storage_offset(input)
    input._data = storage_view(shared, data.dtype, data.shape, torch_strides(data), offset)
    return input


def is_shared(input: Any) -> bool:
    """Whether the tensor's storage is in memory shared between processes (after
    ``share_memory_()``, or received so from another process)."""
    return shared_memory.descriptor(memory_owner(input._data)) is not None


def storage_offset(input: Any) -> int:
    """Where the first element lies in the storage, in elements.

    Example: ``hookgrad.arange(6.0)[2:].storage_offset() == 2``.
    """
    data = input._data
    root = memory_owner(data)
    start = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return start // data.itemsize


def data_ptr(input: Any) -> int:
    """The address of the first element (0 for a tensor without storage, as torch)."""
    data = input._data
    if not memory_owner(data).nbytes:
        return 0
    return int(data.__array_interface__["data"][0])


def is_contiguous(input: Any, *args: Any, memory_format: Any = contiguous_format) -> bool:
    """Whether the elements lie densely in ``memory_format``'s order (C order by default;
    ``channels_last``: a 4-d NCHW tensor stored as NHWC). Size-1 dims may have any stride
    and an empty tensor is always contiguous in C order, as torch.

    Example: ``x = hookgrad.zeros(2, 3)``: ``x.is_contiguous()``, not ``x.t().is_contiguous()``.
    """
    _check_no_positional("is_contiguous", args)
    _check_format("is_contiguous", memory_format)
    data = input._data
    if memory_format in _CHANNELS_LAST:
        order, rank = _CHANNELS_LAST[memory_format]
        shape = data.shape
        return len(shape) == rank and _is_dense_in_order(shape, torch_strides(data), order)
    # NOTE: NumPy's flag is torch's test: size-1 dims may have any stride, empty is dense.
    return bool(data.flags.c_contiguous)


def contiguous(input: Any, *args: Any, memory_format: Any = contiguous_format) -> Any:
    """``input`` itself when it is contiguous in ``memory_format``, else a copy laid out
    so (recorded as ``CloneBackward0``, as torch).

    Example: ``y.transpose(1, 2).contiguous().view(B, T, C)`` (a transposed tensor
    cannot be viewed with a merged shape; its contiguous copy can).
    """
    _check_no_positional("contiguous", args)
    _check_format("contiguous", memory_format)
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if is_contiguous(input, memory_format=memory_format):
        return input
    if memory_format in _CHANNELS_LAST:
        order, rank = _CHANNELS_LAST[memory_format]
        shape = input._data.shape
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {memory_format._name} format")
        return apply(ops.ContiguousCopy(dense_strides_in_order(shape, order)), input)
    return apply(ops.ContiguousCopy(), input)


def copy_in_format(input: Any, memory_format: Any) -> Any:
    """A copy of ``input`` laid out in ``memory_format`` (``contiguous_format`` or a
    channels-last format), recorded as ``CloneBackward0``: ``clone(memory_format=...)``."""
    _check_format("clone", memory_format)
    if memory_format in _CHANNELS_LAST:
        order, rank = _CHANNELS_LAST[memory_format]
        shape = input._data.shape
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {memory_format._name} format")
        return apply(ops.ContiguousCopy(dense_strides_in_order(shape, order)), input)
    return apply(ops.ContiguousCopy(), input)


def _layout(input: Any) -> layout:
    """The tensor's layout: ``strided`` (hookgrad's only one)."""
    return strided


def _is_nested(input: Any) -> bool:
    """False: hookgrad has no nested (jagged) tensors."""
    return False


class LayoutMethods:
    """Memory-layout methods of ``Tensor``."""

    layout = property(_layout)

    stride = stride
    storage_offset = storage_offset
    data_ptr = data_ptr
    const_data_ptr = data_ptr
    untyped_storage = untyped_storage
    storage = storage
    storage_type = storage_type
    share_memory_ = share_memory_
    is_shared = is_shared
    is_nested = property(_is_nested)
    is_contiguous = is_contiguous
    contiguous = contiguous
