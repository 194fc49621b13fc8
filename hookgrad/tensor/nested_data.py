"""Nested Python data as an array, as ``torch.tensor`` reads it: the dtype it infers
(bools, ints, floats, complex numbers, NumPy scalars, 0-dim tensors), torch's checks of
ragged or mixed nesting and their messages, and ``to_array``.

Example: ``to_array([[1, 2], [3, 4]], None)`` is an int64 array of shape (2, 2).
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor.tensor import Tensor

# The sequences torch reads element by element (any Python sequence but str and bytes).
SEQUENCES = (list, tuple, range, collections.deque)
_NUMBERS = (bool, int, float, complex, np.number, np.bool_)


# -- nested Python data -> array -----------------------------------------------------------
def _infer_dtype(data: Any) -> dtypes.dtype:
    """torch's dtype for nested data: the promotion of every element's dtype, where a
    Python number is bool, int64, the default float or the default complex dtype and a
    NumPy array or scalar, or a tensor, has its own dtype."""
    result = None
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, SEQUENCES):
            stack.extend(item)
            continue
        if isinstance(item, Tensor):
            item_dtype = item.dtype
        elif isinstance(item, (np.ndarray, np.generic)):
            item_dtype = dtypes.from_numpy_dtype(item.dtype)
        elif isinstance(item, (bool, int, float, complex)):
            item_dtype = dtypes.scalar_dtype(item)
        elif isinstance(item, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")
        result = item_dtype if result is None else dtypes.promote_types(result, item_dtype)
    return dtypes.get_default_dtype() if result is None else result


def _check_leaf(item: Any, target: dtypes.dtype) -> None:
    """Raise torch's error if ``item`` cannot be one element of a ``target`` tensor."""
    if isinstance(item, Tensor):
        if item.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return
    is_complex = isinstance(item, (complex, np.complexfloating))
    if isinstance(item, _NUMBERS) and not (is_complex and target._category in (1, 2)):
        return
    if isinstance(item, str):
        raise ValueError(f"too many dimensions '{type(item).__name__}'")
    if target._category in (2, 3):
        raise TypeError(f"must be real number, not {type(item).__name__}")
    raise TypeError(f"'{type(item).__name__}' object cannot be interpreted as an integer")


def _first_shape(data: Any) -> list[int]:
    """The shape torch reads off the first element at each depth (a tensor there is
    taken as one element)."""
    shape: list[int] = []
    item = data
    while True:
        if isinstance(item, np.ndarray):
            return shape + list(item.shape)
        if not isinstance(item, SEQUENCES):
            return shape
        shape.append(len(item))
        if len(item) == 0:
            return shape
        item = item[0]


def _check_shape(data: Any, shape: list[int], target: dtypes.dtype) -> None:
    """Raise torch's error unless nested ``data`` has ``shape`` everywhere and each
    element fits ``target``; checked one depth at a time."""
    level = [data]
    for depth, length in enumerate(shape):
        children: list[Any] = []
        for item in level:
            if isinstance(item, np.ndarray) or isinstance(item, Tensor):
                found = list(item.shape)
                if found != shape[depth:]:
                    got = found[0] if found else 0
                    raise ValueError(
                        f"expected sequence of length {length} at dim {depth} (got {got})"
                    )
            elif not isinstance(item, SEQUENCES):
                raise TypeError("not a sequence")
            elif len(item) != length:
                raise ValueError(
                    f"expected sequence of length {length} at dim {depth} (got {len(item)})"
                )
            else:
                children.extend(item)
        level = children
    for item in level:
        _check_leaf(item, target)


def _unwrap_nested(data: Any, depth: int) -> Any:
    """Nested lists with tensors replaced by arrays (reshaped to scalars at depth 0)."""
    if isinstance(data, SEQUENCES):
        return [_unwrap_nested(item, depth - 1) for item in data]
    if isinstance(data, Tensor):
        return data._data.reshape(()) if depth == 0 else data._data
    return data


def to_array(data: Any, dtype: Any = None, copy: bool = True) -> np.ndarray:
    """``data`` (nested lists, numbers, arrays, tensors) as an array of a torch dtype.

    With ``copy=False`` an array or tensor of the right dtype is returned as it is.
    """
    target = None if dtype is None else dtypes.to_dtype(dtype)
    if isinstance(data, Tensor) or isinstance(data, np.ndarray):
        array = data._data if isinstance(data, Tensor) else data
        if target is None:
            target = dtypes.from_numpy_dtype(array.dtype)
        if array.dtype.kind == "c" and target.np.kind != "c":
            array = array.real
        return np.array(array, dtype=target.np, copy=copy or None)
    if target is None:
        target = _infer_dtype(data)
    shape = _first_shape(data)
    _check_shape(data, shape, target)
    if target in dtypes.SMALL_INTEGERS:
        values = np.array(_unwrap_nested(data, len(shape)))
        dtypes.check_fits(values, target)
        return values.astype(target.np).reshape(shape)
    try:
        return np.array(_unwrap_nested(data, len(shape)), dtype=target.np).reshape(shape)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
