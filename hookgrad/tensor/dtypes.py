"""dtypes (``hookgrad.float32`` ...) and torch's type-promotion rules."""

from __future__ import annotations

from typing import Any

import numpy as np


class dtype:
    """A tensor element type, printed like torch's (``torch.float32``)."""

    __slots__ = (
        "name",
        "np",
        "is_floating_point",
        "is_complex",
        "is_signed",
        "itemsize",
        "_category",
        "type_name",
    )

    def __init__(self, name: str, np_dtype: Any, category: int, type_name: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = category != 0
        self.itemsize = self.np.itemsize
        self.type_name = type_name  # torch's legacy type string, used in hook errors

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name

    def to_real(self) -> dtype:
        return _COMPLEX_TO_REAL.get(self, self)

    def to_complex(self) -> dtype:
        return _REAL_TO_COMPLEX.get(self, self)


bool_ = dtype("bool", np.bool_, 0, "CPUBoolType")
int32 = dtype("int32", np.int32, 1, "CPUIntType")
int64 = dtype("int64", np.int64, 1, "CPULongType")
float16 = dtype("float16", np.float16, 2, "CPUHalfType")
float32 = dtype("float32", np.float32, 2, "CPUFloatType")
float64 = dtype("float64", np.float64, 2, "CPUDoubleType")
complex64 = dtype("complex64", np.complex64, 3, "CPUComplexFloatType")
complex128 = dtype("complex128", np.complex128, 3, "CPUComplexDoubleType")

ALL = (bool_, int32, int64, float16, float32, float64, complex64, complex128)
_BY_NUMPY = {d.np: d for d in ALL}
_EXTRA_NUMPY = {
    np.dtype(np.int8): int32,
    np.dtype(np.int16): int32,
    np.dtype(np.uint8): int64,
    np.dtype(np.uint16): int32,
    np.dtype(np.uint32): int64,
    np.dtype(np.uint64): int64,
}
_COMPLEX_TO_REAL = {complex64: float32, complex128: float64}
_REAL_TO_COMPLEX = {float16: complex64, float32: complex64, float64: complex128}

_default = float32


def get_default_dtype() -> dtype:
    """The dtype of new floating tensors (float32 unless changed)."""
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the dtype of new floating tensors (float32 or float64)."""
    global _default
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default = d


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The hookgrad dtype for a NumPy dtype (TypeError when unsupported)."""
    np_dtype = np.dtype(np_dtype)
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        found = _EXTRA_NUMPY.get(np_dtype)
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np_dtype}. The only supported types "
            "are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint8, and bool."
        )
    return found


def to_dtype(value: Any) -> dtype:
    """Accept a hookgrad dtype, a NumPy dtype or a Python type."""
    if isinstance(value, dtype):
        return value
    if value is float:
        return _default
    if value is int:
        return int64
    if value is bool:
        return bool_
    if value is complex:
        return default_complex()
    return from_numpy_dtype(value)


def default_complex() -> dtype:
    return complex128 if _default is float64 else complex64


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest dtype both ``a`` and ``b`` convert to."""
    if a is b:
        return a
    if a._category != b._category:
        high, low = (a, b) if a._category > b._category else (b, a)
        if high.is_complex and low.is_floating_point and low.itemsize > high.itemsize // 2:
            return low.to_complex()
        return high
    return a if a.itemsize >= b.itemsize else b


def scalar_dtype(value: Any) -> dtype:
    """The dtype torch gives a Python number: bool, int64, default float or complex."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return _default
    if isinstance(value, (complex, np.complexfloating)):
        return default_complex()
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _combine(higher: Any, lower: Any) -> Any:
    """Combine the result of a stronger operand group with a weaker one (torch's rule:
    a weaker group only matters when its category is higher)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> dtype:
    """torch.result_type over tensors and Python scalars.

    Tensors with dimensions dominate zero-dim tensors, which dominate Python scalars;
    a weaker operand only raises the category (bool < int < float < complex), e.g.
    ``float32 tensor * 2.5`` stays float32 and ``int tensor * 2.5`` is float32.
    """
    dim_result = zero_result = scalar_result = None
    for operand in operands:
        operand_dtype = getattr(operand, "dtype", None)
        if isinstance(operand_dtype, dtype):
            if operand.ndim:
                dim_result = (
                    operand_dtype
                    if dim_result is None
                    else promote_types(dim_result, operand_dtype)
                )
            else:
                zero_result = (
                    operand_dtype
                    if zero_result is None
                    else promote_types(zero_result, operand_dtype)
                )
        else:
            current = scalar_dtype(operand)
            if current.is_floating_point:
                current = _default
            scalar_result = (
                current if scalar_result is None else promote_types(scalar_result, current)
            )
    return _combine(dim_result, _combine(zero_result, scalar_result))
