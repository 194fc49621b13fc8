"""Turning op operands into arrays of one dtype, by torch's promotion rules.

Python numbers are weak operands: ``float32 tensor * 2.5`` stays float32. So are torch's
"wrapped numbers": 0-dim tensors that stand for a Python number inside a derivative
formula (``x / 2.0``'s saved ``other``, made by ``wrapped_number``); promotion sees the
number, so a 0-dim float32 gradient divided by one stays float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.strides import cast
from hookgrad.tensor import dtypes
from hookgrad.tensor.tensor import Tensor

_SCALARS = (int, float, complex, bool, np.generic)


def is_scalar(value: Any) -> bool:
    """Python numbers (and NumPy scalars) are weak operands in promotion."""
    return isinstance(value, _SCALARS)


def wrapped_number(value: Any) -> Tensor:
    """The Python number ``value`` as torch's wrapped number: a 0-dim tensor of the
    number's own dtype (float64, int64, bool, complex128) that promotion treats as the
    number itself. A tensor is one when its ``_wrapped_number`` attribute is true.

    Example: ``hookgrad.tensor(1.0) / wrapped_number(2.0)`` is float32, as ``x / 2.0``.
    """
    tensor = Tensor._make(np.asarray(value))
    tensor.__dict__["_wrapped_number"] = True
    return tensor


def _weak(value: Any) -> Any:
    """``value``, a wrapped number as the number it stands for."""
    if isinstance(value, Tensor) and value.__dict__.get("_wrapped_number"):
        return value._data.item()
    return value


def check_operand(value: Any, name: str = "other") -> None:
    if not isinstance(value, Tensor) and not is_scalar(value):
        raise TypeError(
            f"unsupported operand type for {name}: '{type(value).__name__}' (expected "
            "Tensor or Number)"
        )


def cast_operand(value: Any, np_dtype: np.dtype) -> Any:
    """``value`` (tensor or scalar) as an array or NumPy scalar of ``np_dtype``."""
    if isinstance(value, Tensor):
        data = value._data
        return data if data.dtype == np_dtype else cast(data, np_dtype)
    if np_dtype.kind in "iu" and isinstance(value, (int, np.integer)):
        # NOTE: torch wraps an integer scalar to the tensor's width (uint8 + 300 adds 44).
        return np.int64(value).astype(np_dtype)
    return np_dtype.type(value)


def binary_arrays(a: Any, b: Any) -> tuple[Any, Any]:
    """The arrays an elementwise binary op computes on, both of the promoted dtype."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a._data.dtype == b._data.dtype:
            return a._data, b._data
    elif isinstance(a, Tensor) and type(b) is float and a._data.dtype.kind in "fc":
        return a._data, b  # NumPy keeps the array's float dtype for a Python float
    check_operand(a, "input")
    check_operand(b)
    np_dtype = dtypes.result_type(_weak(a), _weak(b)).np
    return cast_operand(a, np_dtype), cast_operand(b, np_dtype)


def float_arrays(a: Any, b: Any) -> tuple[Any, Any]:
    """Like ``binary_arrays``, with integer results promoted to the default float."""
    x, y = binary_arrays(a, b)
    kind = getattr(x, "dtype", np.dtype(type(x))).kind
    if kind in "fc":
        return x, y
    np_dtype = dtypes.get_default_dtype().np
    return cast(np.asarray(x), np_dtype), cast(np.asarray(y), np_dtype)
