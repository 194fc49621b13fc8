"""``save`` and ``load``: tensors and nested containers of them (state dicts), safely.

A file is a zip archive holding ``hookgrad/data.pkl``, a pickle of the saved object in
which every tensor, NumPy array and NumPy scalar is replaced by a reference, and one
``hookgrad/arrays/<key>.npy`` per array, in NumPy's format without pickled objects.
``load`` unpickles with an allow-list: plain Python values and containers, dtypes,
``Size``, ``device`` and references to the stored arrays. Any other global named in
the pickle (a class, a function such as ``os.system``) is refused with
``pickle.UnpicklingError`` before anything of it runs, so loading a file never executes
code it names.
"""

from __future__ import annotations

import collections
import importlib
import io
import os
import pickle
import zipfile
from typing import IO, Any, Union

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor.device import check_device, device
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

_PREFIX = "hookgrad/"
_FORMAT_VERSION = "1"
_SCALAR_KINDS = "biufc"
_ALLOWED_GLOBALS = {
    ("builtins", "complex"): complex,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "slice"): slice,
    ("builtins", "range"): range,
    ("builtins", "bytearray"): bytearray,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("hookgrad.tensor.dtypes", "by_name"): dtypes.by_name,
    ("hookgrad.tensor.size", "Size"): Size,
    ("hookgrad.tensor.device", "device"): device,
}

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]


class _Pickler(pickle.Pickler):
    """Pickles an object with its tensors and arrays written as ``.npy`` archive members."""

    def __init__(self, file: IO[bytes], archive: zipfile.ZipFile, protocol: int) -> None:
        super().__init__(file, protocol)
        self.archive = archive
        self.keys: dict[int, str] = {}

    def _store(self, obj: Any, array: np.ndarray) -> str:
        """The key of ``obj``'s array in the archive (written once per object)."""
        key = self.keys.get(id(obj))
        if key is None:
            if array.dtype.hasobject:
                raise TypeError("hookgrad.save cannot store NumPy arrays of Python objects")
            key = str(len(self.keys))
            with self.archive.open(f"{_PREFIX}arrays/{key}.npy", "w") as member:
                np.save(member, array, allow_pickle=False)
            self.keys[id(obj)] = key
        return key

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            cls = type(obj)
            subclass = None if cls is Tensor else f"{cls.__module__}:{cls.__qualname__}"
            return ("tensor", self._store(obj, obj._data), obj.requires_grad, subclass)
        if isinstance(obj, np.ndarray):
            return ("ndarray", self._store(obj, obj))
        if isinstance(obj, np.generic) and obj.dtype.kind in _SCALAR_KINDS:
            return ("scalar", obj.dtype.str, obj.tobytes())
        return None


class _Unpickler(pickle.Unpickler):
    """Unpickles only allow-listed globals, and rebuilds tensors from the archive."""

    def __init__(self, file: IO[bytes], archive: zipfile.ZipFile) -> None:
        super().__init__(file)
        self.archive = archive
        self.loaded: dict[str, Any] = {}

    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED_GLOBALS.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(
                f"hookgrad.load refuses the global '{module}.{name}': a file may hold only "
                "tensors, NumPy arrays and plain Python values and containers (lists, "
                "tuples, dicts, ...). Save a state dict instead of a whole object."
            )
        return found

    def _array(self, key: str) -> np.ndarray:
        with self.archive.open(f"{_PREFIX}arrays/{key}.npy") as member:
            return np.load(io.BytesIO(member.read()), allow_pickle=False)

    def persistent_load(self, pid: Any) -> Any:
        kind = pid[0]
        if kind == "scalar":
            _, dtype_str, raw = pid
            scalar_dtype = np.dtype(dtype_str)
            if scalar_dtype.kind not in _SCALAR_KINDS:
                raise pickle.UnpicklingError(f"unsupported scalar dtype '{dtype_str}'")
            return np.frombuffer(raw, dtype=scalar_dtype)[0]
        key = pid[1]
        if key not in self.loaded:
            self.loaded[key] = self._rebuild(kind, key, pid[2:])
        return self.loaded[key]

    def _rebuild(self, kind: str, key: str, extra: tuple[Any, ...]) -> Any:
        array = self._array(key)
        if kind == "ndarray":
            return array
        if kind != "tensor":
            raise pickle.UnpicklingError(f"unknown stored kind '{kind}'")
        requires_grad, subclass = extra
        dtypes.from_numpy_dtype(array.dtype)
        tensor = Tensor._make(array, bool(requires_grad))
        if subclass is None:
            return tensor
        return _tensor_subclass(subclass)(tensor, requires_grad=bool(requires_grad))


def _tensor_subclass(path: str) -> Any:
    """A hookgrad ``Tensor`` subclass (``nn.Parameter``) named ``module:qualname``."""
    module_name, _, qualname = path.partition(":")
    if not module_name.startswith("hookgrad.") or "." in qualname:
        raise pickle.UnpicklingError(f"hookgrad.load refuses the tensor class '{path}'")
    cls = getattr(importlib.import_module(module_name), qualname, None)
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise pickle.UnpicklingError(f"hookgrad.load refuses the tensor class '{path}'")
    return cls


def save(obj: Any, f: FileLike, pickle_protocol: int = pickle.DEFAULT_PROTOCOL) -> None:
    """Save ``obj`` (a tensor, or dicts/lists/tuples of tensors and plain values, such as
    a state dict) to the path or binary file ``f``.

    Each tensor keeps its dtype, shape, values and ``requires_grad`` (a tensor that is
    the same object twice in ``obj`` is loaded as one object); its ``.grad`` and graph
    are not saved. Example::

        hookgrad.save({"weight": w, "step": 3}, "checkpoint.pt")
        state = hookgrad.load("checkpoint.pt")
    """
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{_PREFIX}version", _FORMAT_VERSION)
        buffer = io.BytesIO()
        _Pickler(buffer, archive, pickle_protocol).dump(obj)
        archive.writestr(f"{_PREFIX}data.pkl", buffer.getvalue())


def load(f: FileLike, map_location: Any = None, *, weights_only: bool | None = None) -> Any:
    """Load an object saved by ``save`` from the path or binary file ``f``.

    Loading is always restricted (as torch's ``weights_only=True``): only tensors, NumPy
    arrays and plain Python values and containers are rebuilt; a file naming any other
    class or function raises ``pickle.UnpicklingError``. ``map_location`` may only name
    the CPU. Example::

        model_state = hookgrad.load("checkpoint.pt")["model"]
    """
    if isinstance(map_location, (str, device)):
        check_device(map_location)
    try:
        archive = zipfile.ZipFile(f, "r")
    except zipfile.BadZipFile:
        raise RuntimeError(
            "hookgrad.load: not a file written by hookgrad.save (not a zip archive)"
        ) from None
    with archive:
        names = set(archive.namelist())
        if f"{_PREFIX}data.pkl" not in names:
            raise RuntimeError("hookgrad.load: not a file written by hookgrad.save")
        data = archive.read(f"{_PREFIX}data.pkl")
        return _Unpickler(io.BytesIO(data), archive).load()
