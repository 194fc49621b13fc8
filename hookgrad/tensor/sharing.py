"""``asarray`` and ``frombuffer``: tensors made on memory that already exists (a tensor,
a NumPy array, a Python buffer), sharing it where torch does and copying only when asked
or when the dtype differs."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import (
    _is_tensor,
    new_leaf,
)
from hookgrad.tensor.device import check_device, factory_device
from hookgrad.tensor.nested_data import to_array

__all__ = ["asarray", "frombuffer"]


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool | None = None,
) -> Any:
    """``obj`` (a tensor, a NumPy array or scalar, a buffer, nested sequences, a number)
    as a tensor, sharing its memory where it can (``copy=False`` demands it, ``copy=True``
    refuses it). A tensor is returned as it is, or converted with its history kept.

    ``requires_grad`` unspecified follows ``obj`` (with torch's warning when that differs
    from the old default, False); given, it is set on the result, as torch does even on
    ``obj`` itself when that is the result. Example::

        a = numpy.zeros(3)
        hookgrad.asarray(a)[0] = 1.0   # a[0] is now 1.0
    """
    check_device(factory_device(device))
    target = None if dtype is None else dtypes.to_dtype(dtype)
    if _is_tensor(obj):
        out = _tensor_as_array(obj, target, copy)
        if requires_grad is None:
            requires_grad = obj.requires_grad
            if requires_grad:
                warnings.warn(ASARRAY_WARNING, UserWarning, stacklevel=2)
    elif isinstance(obj, (np.ndarray, np.generic)):
        return new_leaf(_array_as_array(np.asarray(obj), target, copy), bool(requires_grad))
    elif isinstance(obj, (bytes, bytearray, memoryview)):
        array = frombuffer(obj, dtype=target or dtypes.get_default_dtype())._data
        return new_leaf(array.copy() if copy else array, bool(requires_grad))
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return new_leaf(to_array(obj, target), bool(requires_grad))
    if bool(requires_grad) != out.requires_grad:
        if out.is_leaf:
            out.requires_grad_(bool(requires_grad))
        else:
            out = out.detach()
    return out


ASARRAY_WARNING = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
    "warning."
)


def _alias_error(source: Any, target: dtypes.dtype) -> ValueError:
    return ValueError(
        f"can't alias tensor with dtype '{source.type_name[3:-4]}' into dtype "
        f"'{target.type_name[3:-4]}'."
    )


def _tensor_as_array(obj: Any, target: Any, copy: bool | None) -> Any:
    """``asarray`` of a tensor: itself, a copy (``clone``), or cast (``to``)."""
    if target is None or target is obj.dtype:
        return obj.clone() if copy else obj
    if copy is False:
        raise _alias_error(obj.dtype, target)
    return obj.to(target)


def _array_as_array(array: np.ndarray, target: Any, copy: bool | None) -> np.ndarray:
    """``asarray`` of a NumPy array: the array itself where its dtype is kept."""
    own = dtypes.from_numpy_dtype(array.dtype)
    if target is not None and target is not own:
        if copy is False:
            raise _alias_error(own, target)
        return array.astype(target.np)
    if own.np != array.dtype:
        return array.astype(own.np)
    return array.copy() if copy else array


def frombuffer(
    buffer: Any,
    *,
    dtype: Any = None,
    count: int = -1,
    offset: int = 0,
    requires_grad: bool = False,
) -> Any:
    """A 1-dim tensor sharing memory with a Python buffer (``bytearray``, ``array``,
    ``memoryview`` ...): ``count`` elements of ``dtype`` (all by default) from byte
    ``offset``.

    Example: ``hookgrad.frombuffer(bytearray(b"ab"), dtype=hookgrad.uint8)`` is
    ``tensor([97, 98], dtype=torch.uint8)``.
    """
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    target = dtypes.to_dtype(dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, size = view.nbytes, target.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % size:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be "
                f"a multiple of element size ({size})"
            )
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    if view.readonly:
        warnings.warn(FROMBUFFER_WARNING, UserWarning, stacklevel=2)
    array = np.frombuffer(buffer, target.np, count, offset)
    return new_leaf(array, requires_grad)


FROMBUFFER_WARNING = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
    "This means you can write to the underlying (supposedly non-writable) buffer using the "
    "tensor. You may want to copy the buffer to protect its data or make it writable before "
    "converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program."
)
