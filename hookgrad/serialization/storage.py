"""Tensors in torch's checkpoints: storages, the functions that rebuild tensors on them,
and, when saving, the storage each tensor lies in.

torch pickles a tensor as a call of a rebuild function (``torch._utils._rebuild_tensor_v2``)
with its storage, offset, size, stride and ``requires_grad``; the storage is a persistent
id naming a record of raw little-endian bytes. Tensors on one storage are loaded as NumPy
views of one array, so views saved together keep sharing memory. Tensors of dtypes hookgrad
lacks load widened, as hookgrad widens NumPy arrays (``uint16`` to int32, ``uint32`` to int64,
``bfloat16`` to float32): those are copies and do not share memory.
"""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np

from hookgrad.graph import history
from hookgrad.nn.parameter import Parameter
from hookgrad.ops.as_strided import memory_owner
from hookgrad.ops.strides import contiguous_strides, torch_strides
from hookgrad.tensor import dtypes
from hookgrad.tensor.tensor import Tensor

# The layout of one element of each torch dtype in a checkpoint (bytes are little-endian).
FILE_LAYOUTS = {
    "bool": np.dtype("?"),
    "uint8": np.dtype("u1"),
    "int8": np.dtype("i1"),
    "int16": np.dtype("<i2"),
    "uint16": np.dtype("<u2"),
    "int32": np.dtype("<i4"),
    "uint32": np.dtype("<u4"),
    "int64": np.dtype("<i8"),
    "uint64": np.dtype("<u8"),
    "float16": np.dtype("<f2"),
    "bfloat16": np.dtype("<u2"),  # the upper half of a float32's bits
    "float32": np.dtype("<f4"),
    "float64": np.dtype("<f8"),
    "complex64": np.dtype("<c8"),
    "complex128": np.dtype("<c16"),
}

# torch's typed storage classes (the persistent ids of its checkpoints name them).
STORAGE_CLASSES = {
    "DoubleStorage": "float64",
    "FloatStorage": "float32",
    "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16",
    "LongStorage": "int64",
    "IntStorage": "int32",
    "ShortStorage": "int16",
    "CharStorage": "int8",
    "ByteStorage": "uint8",
    "BoolStorage": "bool",
    "ComplexDoubleStorage": "complex128",
    "ComplexFloatStorage": "complex64",
}
CLASS_OF_DTYPE = {name: cls for cls, name in STORAGE_CLASSES.items()}

# torch dtypes that hookgrad can neither hold nor widen; a checkpoint may name them as values.
OTHER_TORCH_DTYPES = (
    "complex32", "qint8", "qint32", "quint8", "quint4x2", "quint2x4", "bits8", "bits16",
    "bits1x8", "bits2x4", "bits4x2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
    "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
    *(f"uint{bits}" for bits in range(1, 8)), *(f"int{bits}" for bits in range(1, 8)),
)  # fmt: skip


class UnsupportedDtype:
    """A torch dtype that hookgrad has no tensors of (``torch.bfloat16``, ``torch.uint16``),
    as a value read from a checkpoint. It prints and saves as torch's dtype.

    Example: ``hookgrad.load(path)["dtype"]`` is ``torch.bfloat16`` for a config that
    names it; tensors of that dtype load as float32.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


_UNSUPPORTED = {name: UnsupportedDtype(name) for name in (*FILE_LAYOUTS, *OTHER_TORCH_DTYPES)}


def torch_dtype(name: str) -> Any:
    """The value torch's dtype ``name`` loads as: hookgrad's dtype, or an ``UnsupportedDtype``."""
    try:
        return dtypes.by_name(name)
    except KeyError:
        return _UNSUPPORTED[name]


def _native_dtype(name: str) -> dtypes.dtype | None:
    """hookgrad's dtype for torch's ``name`` if its arrays hold the file's elements as is."""
    try:
        found = dtypes.by_name(name)
    except KeyError:
        return None
    return found if found.np == FILE_LAYOUTS[name].newbyteorder("=") else None


class StorageType:
    """A torch storage class named in a checkpoint (``torch.FloatStorage``): the dtype of
    its elements, or None for ``torch.UntypedStorage`` (bytes; the tensor names its dtype)."""

    __slots__ = ("dtype_name",)

    def __init__(self, dtype_name: str | None) -> None:
        self.dtype_name = dtype_name

    def element_size(self) -> int:
        return 1 if self.dtype_name is None else FILE_LAYOUTS[self.dtype_name].itemsize


class Storage:
    """A storage read from a checkpoint: its bytes (a writable 1-D uint8 array) and the
    dtype of its class. Tensors view ``elements(dtype)``, one array per dtype."""

    def __init__(self, raw: np.ndarray, dtype_name: str | None, big_endian: bool) -> None:
        self.raw = raw
        self.dtype_name = dtype_name
        self.big_endian = big_endian
        self._elements: dict[str, np.ndarray] = {}

    def elements(self, dtype_name: str) -> np.ndarray:
        """The storage's elements as ``dtype_name`` in native byte order (a view of ``raw``
        unless the file is big-endian)."""
        found = self._elements.get(dtype_name)
        if found is None:
            layout = FILE_LAYOUTS[dtype_name]
            if self.raw.nbytes % layout.itemsize:
                raise RuntimeError(
                    f"a storage of {self.raw.nbytes} bytes cannot hold {dtype_name} elements"
                )
            if self.big_endian and layout.itemsize > 1:
                found = self.raw.view(layout.newbyteorder(">")).astype(layout)
            else:
                found = self.raw.view(layout)
            self._elements[dtype_name] = found
        return found


# ---------------------------------------------------------------- rebuilding tensors


def _check_ints(what: str, values: Any) -> tuple[int, ...]:
    if not isinstance(values, (tuple, list)) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values
    ):
        raise pickle.UnpicklingError(f"a tensor's {what} must be non-negative ints: {values!r}")
    return tuple(values)


def _view(storage: Any, offset: Any, size: Any, stride: Any, dtype_name: str) -> np.ndarray:
    """The elements ``size``/``stride`` from ``offset`` pick out of ``storage``: a view.

    NOTE: the bounds check is what keeps a crafted file from reading memory outside the
    storage through ``as_strided``.
    """
    if not isinstance(storage, Storage):
        raise pickle.UnpicklingError(f"a tensor's storage must be a storage, not {storage!r}")
    (offset,) = _check_ints("storage offset", (offset,))
    size = _check_ints("size", size)
    stride = _check_ints("stride", stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {size} and {stride}")
    elements = storage.elements(dtype_name)
    item = elements.itemsize
    if math.prod(size):
        needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
        if needed > len(elements):
            raise RuntimeError(
                "Trying to resize storage that is not resizable: sizes "
                f"{list(size)}, strides {list(stride)} and storage offset {offset} need "
                f"{needed * item} bytes of a storage of {elements.nbytes}"
            )
    start = elements[min(offset, len(elements)) :]
    return np.lib.stride_tricks.as_strided(start, size, tuple(s * item for s in stride))


def file_tensor(array: np.ndarray, dtype_name: str, requires_grad: Any = False) -> Tensor:
    """A leaf tensor of torch dtype ``dtype_name`` on ``array``, elements as a file holds
    them (widened, so copied, when hookgrad lacks the dtype)."""
    if _native_dtype(dtype_name) is None:
        if dtype_name == "bfloat16":
            bits = array.astype(np.uint32)
            bits <<= 16
            array = bits.view(np.float32)
        elif FILE_LAYOUTS[dtype_name].kind in "iu":
            array = array.astype(dtypes.from_numpy_dtype(array.dtype).np)
        else:
            raise RuntimeError(f"hookgrad cannot hold tensors of torch.{dtype_name}")
    tensor = Tensor._make(array)
    if not isinstance(requires_grad, bool):
        raise pickle.UnpicklingError(f"requires_grad must be a bool, not {requires_grad!r}")
    if requires_grad:
        if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        history.set_requires_grad(tensor, True)
    return tensor


def _storage_dtype(storage: Any) -> str:
    name = getattr(storage, "dtype_name", None)
    if name is None:
        raise pickle.UnpicklingError("a tensor on an untyped storage must name its dtype")
    return name


def rebuild_tensor(storage: Any, storage_offset: Any, size: Any, stride: Any) -> Tensor:
    """torch's ``_rebuild_tensor`` (files of torch < 1.0)."""
    dtype_name = _storage_dtype(storage)
    return file_tensor(_view(storage, storage_offset, size, stride, dtype_name), dtype_name, False)


def rebuild_tensor_v2(
    storage: Any,
    storage_offset: Any,
    size: Any,
    stride: Any,
    requires_grad: Any,
    backward_hooks: Any,
    metadata: Any = None,
) -> Tensor:
    """torch's ``_rebuild_tensor_v2``: a tensor on a typed storage. Backward hooks and
    torch's tensor metadata (conjugate and negative bits) are not kept."""
    dtype_name = _storage_dtype(storage)
    array = _view(storage, storage_offset, size, stride, dtype_name)
    return file_tensor(array, dtype_name, requires_grad)


def rebuild_tensor_v3(
    storage: Any,
    storage_offset: Any,
    size: Any,
    stride: Any,
    requires_grad: Any,
    backward_hooks: Any,
    dtype: Any,
    metadata: Any = None,
) -> Tensor:
    """torch's ``_rebuild_tensor_v3``: a tensor of ``dtype`` on an untyped storage."""
    if not isinstance(dtype, (dtypes.dtype, UnsupportedDtype)) or dtype.name not in FILE_LAYOUTS:
        raise pickle.UnpicklingError(f"hookgrad cannot hold tensors of {dtype!r}")
    array = _view(storage, storage_offset, size, stride, dtype.name)
    return file_tensor(array, dtype.name, requires_grad)


def _set_state(obj: Any, state: Any) -> None:
    """Set the Python attributes torch saved with a tensor (``param.note = ...``). Names
    the tensor class already has are refused, so a file cannot replace its internals."""
    if isinstance(state, tuple) and len(state) == 2:
        dict_state, slots_state = state
        state = {**(dict_state or {}), **(slots_state or {})}
    if not state:
        return
    if not isinstance(state, dict):
        raise pickle.UnpicklingError(f"a tensor's state must be a dict, not {type(state)}")
    for name, value in state.items():
        if not isinstance(name, str) or name.startswith("__") or hasattr(type(obj), name):
            raise pickle.UnpicklingError(f"hookgrad.load will not set a tensor's {name!r}")
        obj.__dict__[name] = value


def rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any) -> Parameter:
    """torch's ``_rebuild_parameter``: an ``nn.Parameter`` on ``data``'s memory."""
    if type(data) is not Tensor or not isinstance(requires_grad, bool):
        raise pickle.UnpicklingError("a Parameter is rebuilt from a tensor and a bool")
    return Parameter(data, requires_grad)


def rebuild_parameter_with_state(
    data: Any, requires_grad: Any, backward_hooks: Any, state: Any
) -> Parameter:
    """torch's ``_rebuild_parameter_with_state``: a Parameter with Python attributes."""
    param = rebuild_parameter(data, requires_grad, backward_hooks)
    _set_state(param, state)
    return param


REBUILDERS = (rebuild_tensor, rebuild_tensor_v2, rebuild_tensor_v3, rebuild_parameter)


def rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Tensor:
    """torch's ``_rebuild_from_type_v2``: a tensor of class ``new_type`` (a ``Tensor``
    subclass, or ``Tensor`` with Python attributes in ``state``)."""
    if not any(func is rebuilder for rebuilder in REBUILDERS) or not isinstance(args, tuple):
        raise pickle.UnpicklingError(f"cannot rebuild a tensor with {func!r}")
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
        raise pickle.UnpicklingError(f"{new_type!r} is not a tensor class")
    tensor = func(*args)
    if type(tensor) is not new_type:
        rebuilt = object.__new__(new_type)
        rebuilt.__dict__.update(vars(tensor))
        tensor = rebuilt
    _set_state(tensor, state)
    return tensor


# ---------------------------------------------------------------- saving


class SavedStorage:
    """A storage being saved: its key (the record ``data/<key>``), the torch dtype of its
    elements and its bytes."""

    __slots__ = ("key", "dtype_name", "raw", "_pid")

    def __init__(self, key: str, dtype_name: str, raw: np.ndarray) -> None:
        self.key = key
        self.dtype_name = dtype_name
        self.raw = raw  # 1-D uint8 view of the memory
        self._pid: dict[bool, tuple[Any, ...]] = {}

    @property
    def numel(self) -> int:
        return self.raw.nbytes // FILE_LAYOUTS[self.dtype_name].itemsize

    def persistent_id(self, storage_class: Any, legacy: bool) -> tuple[Any, ...]:
        """torch's persistent id: ``('storage', FloatStorage, key, 'cpu', numel)``; the
        legacy format adds the view metadata (None). One tuple per storage, memoized."""
        pid = self._pid.get(legacy)
        if pid is None:
            pid = ("storage", storage_class, self.key, "cpu", self.numel)
            if legacy:
                pid += (None,)
            self._pid[legacy] = pid
        return pid


class StorageTable:
    """The storages of the tensors being saved, one per piece of memory and dtype, so
    tensors sharing memory (a tensor and its views) share a storage in the file."""

    def __init__(self) -> None:
        self.storages: list[SavedStorage] = []
        self._by_memory: dict[tuple[int, int, str], SavedStorage] = {}

    def _add(self, raw: np.ndarray, dtype_name: str) -> SavedStorage:
        storage = SavedStorage(str(len(self.storages)), dtype_name, raw)
        self.storages.append(storage)
        return storage

    def locate(self, tensor: Tensor) -> tuple[SavedStorage, int, tuple[int, ...]]:
        """The storage ``tensor`` lies in, its offset there and its strides (elements)."""
        array = tensor._data
        dtype_name = tensor.dtype.name
        root = memory_owner(array)
        start = _shared_start(array, root)
        if start is None:
            # NOTE: memory a torch storage cannot describe (negative strides, a foreign
            # layout, an empty view) is saved as a contiguous copy of its own.
            own = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("="))
            raw = own.reshape(-1).view(np.uint8)
            return self._add(raw, dtype_name), 0, contiguous_strides(array.shape)
        where = (root.__array_interface__["data"][0], root.nbytes, dtype_name)
        storage = self._by_memory.get(where)
        if storage is None:
            raw = root.reshape(-1, order="A").view(np.uint8)
            storage = self._by_memory[where] = self._add(raw, dtype_name)
        return storage, start // array.itemsize, torch_strides(array)


def _shared_start(array: np.ndarray, root: np.ndarray) -> int | None:
    """The byte offset of ``array`` in its root's memory, when a torch storage of the whole
    root memory can describe it (else None)."""
    item = array.itemsize
    if not array.size or not array.dtype.isnative or root.nbytes % item:
        return None
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    start = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if start < 0 or start % item:
        return None
    end = start + item
    for n, s in zip(array.shape, array.strides):
        if n > 1:
            if s < 0 or s % item:
                return None
            end += (n - 1) * s
    return start if end <= root.nbytes else None
