"""The pickler ``save`` uses: it writes hookgrad's tensors, dtypes, ``Size`` and devices
under torch's names, so that ``torch.load`` reads the file.

A tensor becomes a call of ``torch._utils._rebuild_tensor_v2`` on a storage persistent id
(a Parameter: ``_rebuild_parameter`` around that); a dtype becomes the global
``torch.float32``. Python's C pickler writes a global only after importing it, and torch is
not importable here, so this is the pure-Python pickler with those names written directly.
Anything else is pickled as ``pickle`` does.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from collections.abc import Callable
from typing import IO, Any, ClassVar

from hookgrad.nn.parameter import Parameter
from hookgrad.serialization.storage import (
    CLASS_OF_DTYPE,
    SavedStorage,
    StorageTable,
    UnsupportedDtype,
)
from hookgrad.tensor import dtypes
from hookgrad.tensor.device import device
from hookgrad.tensor.layout import memory_format
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor


class TorchGlobal:
    """A torch global (``torch._utils._rebuild_tensor_v2``) to write into a pickle."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args: Any) -> Any:
        # NOTE: pickle accepts only a callable as a reduce function; this one only names.
        raise TypeError(f"{self.module}.{self.name} is torch's, not callable in hookgrad")


_REBUILD_TENSOR = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
_REBUILD_FROM_TYPE = TorchGlobal("torch._tensor", "_rebuild_from_type_v2")
_SIZE = TorchGlobal("torch", "Size")
_DEVICE = TorchGlobal("torch", "device")
_STORAGE_CLASSES = {name: TorchGlobal("torch", cls) for name, cls in CLASS_OF_DTYPE.items()}


class _TensorArgs:
    """The arguments of ``_rebuild_tensor_v2`` for a Parameter's data (pickled as that call)."""

    __slots__ = ("args",)

    def __init__(self, args: tuple[Any, ...]) -> None:
        self.args = args


def _save_torch_global(pickler: TorchPickler, obj: Any) -> None:
    """Write ``obj`` (a ``TorchGlobal``, dtype or memory format) as a global named by torch."""
    if isinstance(obj, TorchGlobal):
        module, name = obj.module, obj.name
    else:
        module, name = "torch", repr(obj).removeprefix("torch.")
    pickler.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())  # type: ignore[attr-defined]
    pickler.memoize(obj)  # type: ignore[attr-defined]


class TorchPickler(pickle._Pickler):
    """Pickles an object in torch's checkpoint format, its tensors' memory collected in
    ``storages`` (written by the caller as records ``data/<key>``).

    Example::

        storages = StorageTable()
        TorchPickler(buffer, 2, storages).dump({"weight": w})
    """

    dispatch: ClassVar[dict[type, Callable[..., None]]] = {  # type: ignore[misc]
        **pickle._Pickler.dispatch,
        **dict.fromkeys(
            (TorchGlobal, dtypes.dtype, UnsupportedDtype, memory_format), _save_torch_global
        ),
    }

    def __init__(
        self, file: IO[bytes], protocol: int, storages: StorageTable, legacy: bool = False
    ) -> None:
        super().__init__(file, protocol)
        self.storages = storages
        self.legacy = legacy

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, _TensorArgs):
            return (_REBUILD_TENSOR, obj.args)
        if isinstance(obj, Size):
            return (_SIZE, (tuple(obj),))
        if isinstance(obj, device):
            return (_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def _reduce_tensor(self, tensor: Tensor) -> tuple[Any, ...]:
        saved, offset, stride = self.storages.locate(tensor)
        size = tuple(tensor.shape)
        if type(tensor) is Parameter:
            data = _TensorArgs((saved, offset, size, stride, False, OrderedDict()))
            return (_REBUILD_PARAMETER, (data, tensor.requires_grad, OrderedDict()))
        args: tuple[Any, ...] = (saved, offset, size, stride, tensor.requires_grad, OrderedDict())
        if type(tensor) is Tensor:
            return (_REBUILD_TENSOR, args)
        return (_REBUILD_FROM_TYPE, (_REBUILD_TENSOR, type(tensor), args, {}))

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, SavedStorage):
            return obj.persistent_id(_STORAGE_CLASSES[obj.dtype_name], self.legacy)
        return None
