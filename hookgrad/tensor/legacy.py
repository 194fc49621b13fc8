"""torch's legacy tensor types: the constructors ``FloatTensor``, ``LongTensor`` ... (and
their ``hookgrad.cuda`` twins), ``Tensor.type()`` and ``set_default_tensor_type``.

Each type is a class whose call makes a plain ``Tensor`` of its dtype, as torch's do
(``type(FloatTensor([1.]))`` is ``Tensor``), and against which ``isinstance`` checks a
tensor's dtype. The names are torch's (``'torch.FloatTensor'``), since programs compare
them. Types whose dtype hookgrad lacks (``BFloat16Tensor``) exist and refuse to make
tensors; the CUDA types refuse as a CPU-only torch's do.
"""

from __future__ import annotations

import warnings
from typing import Any

from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import new_leaf
from hookgrad.tensor.device import NO_CUDA
from hookgrad.tensor.legacy_construction import (
    check_legacy_device,
    legacy_arguments_error,
    legacy_array,
)
from hookgrad.tensor.tensor import Tensor

# torch's legacy type names and the dtype each stands for.
_DTYPE_NAMES = {
    "Double": "float64",
    "Float": "float32",
    "BFloat16": "bfloat16",
    "Half": "float16",
    "Long": "int64",
    "Int": "int32",
    "Short": "int16",
    "Char": "int8",
    "Byte": "uint8",
    "Bool": "bool",
}


class tensortype(type):
    """The metaclass of the legacy tensor types: calling one makes a tensor, and
    ``isinstance(x, FloatTensor)`` is true for a float32 tensor ``x``."""

    _dtype_name: str
    is_cuda: bool

    @property
    def dtype(cls) -> dtypes.dtype:
        """The dtype of the tensors this type makes (``FloatTensor.dtype`` is float32)."""
        try:
            return dtypes.by_name(cls._dtype_name)
        except KeyError:
            raise TypeError(
                f"type {_name(cls)} not available: hookgrad has no {cls._dtype_name} dtype"
            ) from None

    def __instancecheck__(cls, instance: Any) -> bool:
        return (
            isinstance(instance, Tensor)
            and not cls.is_cuda
            and instance.dtype.name == cls._dtype_name
        )

    def __call__(cls, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        if cls.is_cuda:
            raise TypeError(f"type {_name(cls)} not available. {NO_CUDA}.")
        target = cls.dtype
        if kwargs:
            raise TypeError(legacy_arguments_error(args, kwargs))
        check_legacy_device(device)
        if len(args) == 1 and isinstance(args[0], Tensor):
            return _alias(args[0], target)
        return new_leaf(legacy_array(args, target))

    def __repr__(cls) -> str:
        return f"<class '{_name(cls)}'>"


def _name(t: tensortype) -> str:
    """The type's name as torch writes it: ``'torch.FloatTensor'``."""
    return f"{t.__module__}.{t.__qualname__}"


def _alias(source: Tensor, target: dtypes.dtype) -> Any:
    """``FloatTensor(t)``: a new tensor on ``t``'s memory (``AliasBackward0`` when ``t``
    needs gradients), for a ``t`` of the type's dtype only."""
    if source.dtype is not target:
        raise TypeError(
            f"expected TensorOptions(dtype={dtypes.cpp_name(target)}, device=cpu, "
            "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
            f"memory_format=(nullopt)) (got TensorOptions(dtype={dtypes.cpp_name(source.dtype)}, "
            "device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false "
            "(default), memory_format=(nullopt)))"
        )
    return source[...]


def _make_types(module: str, is_cuda: bool) -> dict[str, tensortype]:
    types = {}
    for prefix, dtype_name in _DTYPE_NAMES.items():
        name = f"{prefix}Tensor"
        doc = f"torch's legacy ``{module}.{name}``: " + (
            f"refuses, as a CPU-only torch does ({NO_CUDA})."
            if is_cuda
            else f"``{name}(data)``, ``{name}(*sizes)`` or ``{name}()`` makes a {dtype_name} "
            f"tensor. Example: ``{name}(2, 3).shape`` is ``Size([2, 3])``."
        )
        namespace = {
            "_dtype_name": dtype_name,
            "is_cuda": is_cuda,
            "__module__": module,
            "__qualname__": name,
            "__doc__": doc,
        }
        types[name] = tensortype(name, (), namespace)
    return types


CPU_TYPES = _make_types("torch", is_cuda=False)
CUDA_TYPES = _make_types("torch.cuda", is_cuda=True)
_BY_NAME = {_name(t): t for t in (*CPU_TYPES.values(), *CUDA_TYPES.values())}
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def type_name(d: dtypes.dtype) -> str:
    """torch's legacy type name of the dtype ``d`` (``'torch.FloatTensor'``)."""
    return f"torch.{dtypes.legacy_name(d)}Tensor"


# Every dtype's name, including those without a constructor (``'torch.ComplexFloatTensor'``).
_NAMED_DTYPES = {type_name(d): d for d in dtypes.ALL}


def _target(value: Any) -> dtypes.dtype:
    """The dtype that ``Tensor.type(value)`` converts to."""
    if isinstance(value, dtypes.dtype):
        return value
    if isinstance(value, str):
        if value == "torch.Tensor":
            return dtypes.get_default_dtype()
        if value.startswith("torch.cuda."):
            raise RuntimeError("Cannot initialize CUDA without ATen_cuda library.")
        if value in _NAMED_DTYPES:
            return _NAMED_DTYPES[value]
        if value not in _BY_NAME:
            raise ValueError(f"invalid type: '{value}'")
        value = _BY_NAME[value]
    if isinstance(value, tensortype):
        if value.is_cuda:
            raise RuntimeError("Cannot initialize CUDA without ATen_cuda library.")
        return value.dtype
    if value is Tensor:
        return dtypes.get_default_dtype()
    if isinstance(value, type):
        # As torch prints a type's C name: bare for Python classes and builtins.
        name = value.__name__
        if not value.__flags__ & _HEAP_TYPE and value.__module__ != "builtins":
            name = f"{value.__module__}.{name}"
        raise ValueError(f"invalid type: '{name}'")
    raise TypeError("dtype must be a type, str, or dtype object")


def tensor_type(self: Any, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """``Tensor.type()``: with no ``dtype``, the legacy type name (``'torch.FloatTensor'``);
    otherwise ``self`` converted to ``dtype``: a dtype, a legacy type or its name.

    Example::

        hookgrad.ones(2).type()                         # 'torch.FloatTensor'
        hookgrad.ones(2).type(hookgrad.LongTensor)      # tensor([1, 1])
        hookgrad.ones(2).type('torch.DoubleTensor')     # tensor([1., 1.], dtype=torch.float64)
    """
    if dtype is None:
        return type_name(self.dtype)
    return self.to(_target(dtype))


def set_default_tensor_type(t: Any) -> None:
    """Deprecated in torch: set the default dtype from a legacy type (``DoubleTensor``) or
    its name; use ``set_default_dtype``. Example::

        hookgrad.set_default_tensor_type(hookgrad.DoubleTensor)
        hookgrad.get_default_dtype()        # torch.float64
    """
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        if t not in _BY_NAME:
            raise TypeError(f"invalid type: '{t}'")
        t = _BY_NAME[t]
    if not isinstance(t, tensortype):
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if t.is_cuda:
        raise TypeError(f"type {_name(t)} not available. {NO_CUDA}.")
    dtypes.set_default_dtype(t.dtype)
