"""torch's legacy constructors: ``Tensor(...)``/``FloatTensor(...)`` (``legacy_init``,
``legacy_array``: sizes, data or a storage, with torch's argument errors) and the
``Tensor.new(...)``/``new_empty_strided`` methods, which ``hookgrad.tensor.methods``
attaches.

Example: ``hookgrad.tensor([1, 2]).new(2, 3).dtype`` is ``hookgrad.int64``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops import shape as shape_ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import (
    OPTION_DTYPE_NAMES,
    empty_strided,
    is_index,
    is_tensor,
    new_leaf,
    resolve_dtype,
    type_name,
)
from hookgrad.tensor.device import device as _device
from hookgrad.tensor.nested_data import SEQUENCES, to_array
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor


def legacy_init(
    self: Tensor, *args: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> None:
    """``Tensor(*args)``, torch's legacy constructor (``Tensor.__init__``).

    ``Tensor(2, 3)`` is a (zero-filled here) 2x3 tensor, ``Tensor([1, 2])`` makes floats of
    integer data, and ``Tensor(t)`` copies the tensor ``t`` with its dtype. Example::

        Tensor([1, 2]).dtype     # hookgrad.float32
    """
    check_legacy_device(device)
    if len(args) == 1 and is_tensor(args[0]):
        self._data = to_array(args[0])
    else:
        self._data = legacy_array(args, resolve_dtype(dtype))
    if requires_grad:
        self.requires_grad = True


def check_legacy_device(value: Any) -> None:
    """Raise torch's error unless the device given to a legacy constructor is the CPU."""
    if value is not None and _device(value).type != "cpu":
        raise RuntimeError(
            f"legacy constructor expects device type: cpu but device type: "
            f"{_device(value).type} was passed"
        )


def legacy_array(args: tuple[Any, ...], target: dtypes.dtype) -> np.ndarray:
    """The array that torch's legacy constructors (``Tensor(2, 3)``, ``FloatTensor([1, 2])``)
    make of ``args`` (other than one tensor), with elements of dtype ``target``.

    Sizes (ints or a ``Size``) give zeros of that shape (torch leaves them uninitialised);
    one sequence or NumPy array is data, converted to ``target``, without a copy for an
    array that has it already.
    """
    if not args:
        return np.zeros((0,), target.np)
    if len(args) == 1 and isinstance(args[0], Size):
        sizes: tuple[Any, ...] = tuple(args[0])
    elif is_index(args[0]):
        sizes = args
    elif len(args) == 1:
        return _legacy_data(args[0], target)
    else:
        raise TypeError(legacy_arguments_error(args, {}))
    for position, s in enumerate(sizes):
        if not is_index(s):
            raise TypeError(
                f"new(): argument 'size' failed to unpack the object at pos {position + 1} "
                f'with error "type must be tuple of ints,but got {type_name(s)}"'
            )
    shape = tuple(int(s) for s in sizes)
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
    return np.zeros(shape, target.np)


def _legacy_data(data: Any, target: dtypes.dtype) -> np.ndarray:
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, (*SEQUENCES, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type_name(data)})")
    return to_array(data, target, copy=False)


def legacy_arguments_error(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """torch's message for arguments that fit no form of a legacy constructor."""
    got = [type(a).__name__ for a in args]
    got += [f"{key}={type(value).__name__}" for key, value in kwargs.items()]
    return (
        f"new() received an invalid combination of arguments - got ({', '.join(got)}), but "
        "expected one of:\n * (*, torch.device device = None)\n * (torch.Storage storage)\n"
        " * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
        " * (object data, *, torch.device device = None)\n"
    )


def tensor_new(self: Tensor, *args: Any, device: Any = None) -> Any:
    """``Tensor.new(*args)``: torch's legacy constructor with ``self``'s dtype. Sizes
    give a new tensor of that shape (zero-filled here), data a new tensor of it, and a
    tensor of ``self``'s dtype an alias of it. Example::

        hookgrad.tensor([1, 2]).new(2, 3).dtype    # hookgrad.int64
    """
    check_legacy_device(device)
    if len(args) == 1 and is_tensor(args[0]):
        other = args[0]
        if other.dtype is not self.dtype:
            raise TypeError(f"expected {_options(self.dtype)} (got {_options(other.dtype)})")
        return other._apply_op(shape_ops.Alias())
    return new_leaf(legacy_array(args, self.dtype))


def _options(dtype: dtypes.dtype) -> str:
    """torch's ``TensorOptions`` text for a CPU tensor of ``dtype``."""
    return (
        f"TensorOptions(dtype={OPTION_DTYPE_NAMES.get(dtype, dtype.name)}, device=cpu, "
        "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


def new_empty_strided(
    self: Tensor,
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Any:
    """``empty_strided`` with ``self``'s dtype unless ``dtype`` is given."""
    return empty_strided(
        size, stride, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad
    )
