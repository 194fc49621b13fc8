"""What a checkpoint may name: torch's globals and the hookgrad objects they stand for,
the subset ``weights_only`` loading allows (torch's), and the globals a user allows.

A pickle names classes and functions by module and name (``torch._utils
_rebuild_tensor_v2``); hookgrad never imports torch, so each name torch's checkpoints use
maps to hookgrad's own object here. ``add_safe_globals`` / ``safe_globals`` extend what
``weights_only`` loading accepts, as torch's functions of the same names do.
"""

from __future__ import annotations

import _compat_pickle
import collections
import pickle
from collections.abc import Callable, Iterable
from typing import Any

from hookgrad.nn.parameter import Parameter
from hookgrad.serialization import storage
from hookgrad.tensor import layout
from hookgrad.tensor.device import device
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals"]

# Modules never allowed, even by ``add_safe_globals`` (as torch).
BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt"})


def _unsupported(what: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"hookgrad cannot load {what}: it has dense CPU tensors only")

    return refuse


def _latin1_bytes(text: str, encoding: str = "utf-8") -> bytes:
    """``_codecs.encode`` as protocol 2 pickles use it to spell bytes; only ``latin1``, so
    a file cannot make the codec machinery import modules."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(f"_codecs.encode is allowed for latin1 only, not {encoding!r}")
    return text.encode("latin-1")


def _weights_only_table() -> dict[str, Any]:
    """torch's default ``weights_only`` allowlist, as hookgrad objects."""
    table: dict[str, Any] = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": _latin1_bytes,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor": storage.rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": storage.rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": storage.rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": storage.rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": storage.rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": storage.rebuild_from_type_v2,
        "torch.storage.UntypedStorage": storage.StorageType(None),
    }
    for name in (*storage.FILE_LAYOUTS, *storage.OTHER_TORCH_DTYPES):
        table[f"torch.{name}"] = storage.torch_dtype(name)
    for cls, dtype_name in storage.STORAGE_CLASSES.items():
        table[f"torch.{cls}"] = storage.StorageType(dtype_name)
    for rebuild, what in (
        ("_rebuild_qtensor", "quantized tensors"),
        ("_rebuild_sparse_tensor", "sparse tensors"),
        ("_rebuild_nested_tensor", "nested tensors"),
        ("_rebuild_meta_tensor_no_storage", "meta tensors"),
        ("_rebuild_wrapper_subclass", "wrapper tensor subclasses"),
        ("_rebuild_device_tensor_from_numpy", "tensors of other devices"),
        ("_rebuild_device_tensor_from_cpu_tensor", "tensors of other devices"),
    ):
        table[f"torch._utils.{rebuild}"] = _unsupported(what)
    table["torch.serialization._get_layout"] = _unsupported("tensors of a non-strided layout")
    return table


WEIGHTS_ONLY = _weights_only_table()
# With ``weights_only=False`` torch's memory formats load too.
TORCH_NAMES = {
    **WEIGHTS_ONLY,
    **{
        repr(fmt): fmt  # "torch.channels_last"
        for fmt in (
            layout.contiguous_format,
            layout.channels_last,
            layout.channels_last_3d,
            layout.preserve_format,
        )
    },
}


def py3_name(module: str, name: str) -> tuple[str, str]:
    """``module`` and ``name`` as Python 3 spells them (protocol 2 says ``__builtin__``)."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


# ---------------------------------------------------------------- user allowlist

_user_globals: set[Any] = set()


def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    """Allow ``weights_only`` loading to rebuild these classes and functions (or
    ``(object, "module.name")`` pairs, for an object saved under another name).

    Only allow what you trust: a class's ``__setstate__`` or ``__new__`` runs on the file's
    data. Example::

        hookgrad.serialization.add_safe_globals([MyConfig])
        hookgrad.load("checkpoint.pt")          # may now hold MyConfig objects
    """
    _user_globals.update(safe_globals)


def get_safe_globals() -> list[Any]:
    """The globals ``add_safe_globals`` allowed (and ``safe_globals`` is allowing)."""
    return list(_user_globals)


def clear_safe_globals() -> None:
    """Forget every global ``add_safe_globals`` allowed."""
    _user_globals.clear()


class safe_globals:  # noqa: N801  (torch's name)
    """A context manager allowing globals for ``weights_only`` loading inside it only.

    Example::

        with hookgrad.serialization.safe_globals([MyConfig]):
            state = hookgrad.load("checkpoint.pt")
    """

    def __init__(self, safe_globals: Iterable[Any]) -> None:
        self.safe_globals = list(safe_globals)

    def __enter__(self) -> None:
        self._added = [item for item in self.safe_globals if item not in _user_globals]
        _user_globals.update(self._added)

    def __exit__(self, *exc_info: Any) -> None:
        _user_globals.difference_update(self._added)


def user_globals() -> dict[str, Any]:
    """The user's allowed globals by full name (``module.qualname``)."""
    table = {}
    for item in _user_globals:
        if isinstance(item, tuple):
            if len(item) != 2 or not isinstance(item[1], str):
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), but got "
                    f"{item!r}"
                )
            table[item[1]] = item[0]
        else:
            table[f"{item.__module__}.{item.__qualname__}"] = item
    return table
