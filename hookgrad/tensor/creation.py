"""Tensor creation: ``tensor``, ``zeros``, ``arange``, ``*_like`` ..."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor import tensor as _tensor_module
from hookgrad.tensor.dispatch import wrap_constant


def _infer_dtype(data: Any) -> dtypes.dtype:
    """torch's dtype for nested Python data: bool, int64, default float or complex."""
    kinds = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif hasattr(item, "_data"):
            kinds.add(item.dtype)
        elif isinstance(item, np.ndarray):
            kinds.add(dtypes.from_numpy_dtype(item.dtype))
        else:
            kinds.add(dtypes.scalar_dtype(item))
    result = None
    for kind in kinds:
        result = kind if result is None else dtypes.promote_types(result, kind)
    return dtypes.get_default_dtype() if result is None else result


def _unwrap_nested(data: Any) -> Any:
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(item) for item in data]
    if hasattr(data, "_data"):
        return data._data
    return data


def to_array(data: Any, dtype: Any = None, copy: bool = True) -> np.ndarray:
    """``data`` (nested lists, numbers, arrays, tensors) as an array of a torch dtype."""
    if hasattr(data, "_data"):
        array = data._data
        target = array.dtype if dtype is None else dtypes.to_dtype(dtype).np
        return np.array(array, dtype=target, copy=copy or None)
    if isinstance(data, np.ndarray):
        target = dtypes.from_numpy_dtype(data.dtype) if dtype is None else dtypes.to_dtype(dtype)
        return np.array(data, dtype=target.np, copy=copy or None)
    if isinstance(data, np.generic):
        data = data.item()
    target = _infer_dtype(data) if dtype is None else dtypes.to_dtype(dtype)
    try:
        return np.array(_unwrap_nested(data), dtype=target.np)
    except ValueError as error:
        raise ValueError(f"expected sequence of equal-length lists: {error}") from None


def _finish(array: np.ndarray, requires_grad: bool) -> Any:
    out = wrap_constant(array)
    if requires_grad:
        out.requires_grad_()
    return out


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """A new leaf tensor holding a copy of ``data``.

    Example::

        hookgrad.tensor([[1, 2], [3, 4]], dtype=hookgrad.float64, requires_grad=True)
    """
    return _finish(to_array(data, dtype), requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Any:
    """``data`` as a tensor, sharing memory with a tensor or array where possible."""
    if hasattr(data, "_data") and (dtype is None or dtypes.to_dtype(dtype) == data.dtype):
        return data
    return wrap_constant(to_array(data, dtype, copy=False))


def from_numpy(array: np.ndarray) -> Any:
    """A tensor sharing memory with the NumPy ``array``."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)
    return wrap_constant(array)


def _shape(size: tuple[Any, ...]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) and not hasattr(s, "__index__"):
            raise TypeError(
                f"zeros(): argument 'size' must be tuple of ints, but found element of type "
                f"{type(s).__name__}"
            )
    shape = tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
        )
    return shape


def _np_dtype(dtype: Any) -> np.dtype:
    return (dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)).np


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """A tensor of zeros of shape ``size``."""
    return _finish(np.zeros(_shape(size), _np_dtype(dtype)), requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """A tensor of ones of shape ``size``."""
    return _finish(np.ones(_shape(size), _np_dtype(dtype)), requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """An uninitialised tensor of shape ``size``."""
    return _finish(np.empty(_shape(size), _np_dtype(dtype)), requires_grad)


def full(
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """A tensor of shape ``size`` filled with ``fill_value`` (dtype inferred from it)."""
    target = dtypes.scalar_dtype(fill_value) if dtype is None else dtypes.to_dtype(dtype)
    return _finish(np.full(_shape((size,)), fill_value, target.np), requires_grad)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``[start, start + step, ...)`` up to ``end`` (exclusive)."""
    if end is None:
        start, end = 0, start
    values = [_number(v) for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        floating = any(isinstance(v, float) for v in values)
        target = dtypes.get_default_dtype() if floating else dtypes.int64
    else:
        target = dtypes.to_dtype(dtype)
    count = max(0, int(np.ceil((values[1] - values[0]) / values[2])))
    array = (values[0] + values[2] * np.arange(count, dtype=np.float64)).astype(target.np)
    if target is dtypes.int64 and all(isinstance(v, int) for v in values):
        array = np.arange(values[0], values[1], values[2], dtype=np.int64)
    return _finish(array, requires_grad)


def _number(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``steps`` evenly spaced values from ``start`` to ``end`` (inclusive)."""
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    array = np.linspace(_number(start), _number(end), int(steps)).astype(_np_dtype(dtype))
    return _finish(array, requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """An ``n x m`` identity matrix."""
    return _finish(np.eye(n, n if m is None else m, dtype=_np_dtype(dtype)), requires_grad)


def _like_dtype(input: Any, dtype: Any) -> np.dtype:
    return input._data.dtype if dtype is None else dtypes.to_dtype(dtype).np


def zeros_like(
    input: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    return _finish(np.zeros(input._data.shape, _like_dtype(input, dtype)), requires_grad)


def ones_like(
    input: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    return _finish(np.ones(input._data.shape, _like_dtype(input, dtype)), requires_grad)


def empty_like(
    input: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    return _finish(np.empty(input._data.shape, _like_dtype(input, dtype)), requires_grad)


def full_like(
    input: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    return _finish(np.full(input._data.shape, fill_value, _like_dtype(input, dtype)), requires_grad)


def is_tensor(obj: Any) -> bool:
    """True if ``obj`` is a hookgrad Tensor."""
    return isinstance(obj, _tensor_module.Tensor)
