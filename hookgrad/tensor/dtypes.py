"""dtypes (``hookgrad.float32`` ...), ``finfo``/``iinfo``, and torch's type-promotion rules.

hookgrad has torch's bool, uint8, int8, int16, int32, int64, float16/32/64 and
complex64/128; it has no bfloat16, complex32, uint16/32/64 or quantized dtypes. NumPy arrays
of uint16/uint32/uint64 are converted to int32/int64 when they become tensors. Where torch
would produce complex32 (float16 with a complex operand) hookgrad gives complex64, as NumPy
has no complex32.
"""

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
        self.is_signed = category != 0 and self.np.kind != "u"
        self.itemsize = self.np.itemsize
        self.type_name = type_name  # torch's legacy type string, used in hook errors

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (by_name, (self.name,))

    def to_real(self) -> dtype:
        """The real dtype of the same precision (``complex64.to_real()`` is float32)."""
        return _COMPLEX_TO_REAL.get(self, self)

    def to_complex(self) -> dtype:
        """The complex dtype of the same precision (``float64.to_complex()`` is complex128)."""
        if self._category < 2:
            raise RuntimeError(f"Unknown Complex ScalarType for {_LEGACY_NAMES[self]}")
        return _REAL_TO_COMPLEX.get(self, self)


bool_ = dtype("bool", np.bool_, 0, "CPUBoolType")
uint8 = dtype("uint8", np.uint8, 1, "CPUByteType")
int8 = dtype("int8", np.int8, 1, "CPUCharType")
int16 = dtype("int16", np.int16, 1, "CPUShortType")
int32 = dtype("int32", np.int32, 1, "CPUIntType")
int64 = dtype("int64", np.int64, 1, "CPULongType")
float16 = dtype("float16", np.float16, 2, "CPUHalfType")
float32 = dtype("float32", np.float32, 2, "CPUFloatType")
float64 = dtype("float64", np.float64, 2, "CPUDoubleType")
complex64 = dtype("complex64", np.complex64, 3, "CPUComplexFloatType")
complex128 = dtype("complex128", np.complex128, 3, "CPUComplexDoubleType")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_BY_NUMPY = {d.np: d for d in ALL}
_EXTRA_NUMPY = {
    np.dtype(np.uint16): int32,
    np.dtype(np.uint32): int64,
    np.dtype(np.uint64): int64,
}
_COMPLEX_TO_REAL = {complex64: float32, complex128: float64}
_REAL_TO_COMPLEX = {float16: complex64, float32: complex64, float64: complex128}
_BY_NAME = {d.name: d for d in ALL}
# torch's C++ names, used in its "not implemented for 'Long'" error messages.
_LEGACY_NAMES = {
    bool_: "Bool",
    uint8: "Byte",
    int8: "Char",
    int16: "Short",
    int32: "Int",
    int64: "Long",
    float16: "Half",
    float32: "Float",
    float64: "Double",
    complex64: "ComplexFloat",
    complex128: "ComplexDouble",
}


# The integer dtypes whose values torch range-checks where a Python number becomes one.
SMALL_INTEGERS = (uint8, int8, int16)


def check_fits(values: Any, target: dtype, c_name: bool = False) -> None:
    """Raise torch's RuntimeError when a number (or array of numbers) ``values`` does not fit
    the small integer dtype ``target``; other dtypes are not checked.

    As torch's ``checked_convert``: floats must lie in the type's range (no NaN or inf);
    integers may be negative down to ``-max`` for uint8, as they wrap (``-1`` is 255).
    torch names the type ``uint8`` in ``tensor()`` and ``uint8_t`` (``c_name``) in
    ``full``/``fill_``. Example: ``check_fits(300, uint8)`` raises.
    """
    if target not in SMALL_INTEGERS:
        return
    values = np.asarray(values)
    info = np.iinfo(target.np)
    if values.dtype.kind == "f":
        bad = np.isnan(values) | (values < info.min) | (values > info.max)
    elif values.dtype.kind in "iuO":
        low = -info.max if info.min == 0 else info.min
        bad = (values < low) | (values > info.max)
    else:
        return
    if np.any(bad):
        name = f"{target.name}_t" if c_name else target.name
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def checked_scalar(value: Any, target: dtype) -> Any:
    """The Python number ``value`` as ``full``/``fill_`` store it in ``target``: checked
    as ``check_fits`` does, an integer wrapped into a small integer dtype (``-1`` into
    uint8 is 255); other values are returned as they are."""
    check_fits(value, target, c_name=True)
    if target in SMALL_INTEGERS and isinstance(value, (int, np.integer)):
        return np.asarray(value).astype(target.np).item()
    return value


def by_name(name: str) -> dtype:
    """The dtype called ``name`` (``"float32"``); how dtypes are unpickled."""
    return _BY_NAME[name]


_CPP_NAMES = {
    "bool": "bool",
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def cpp_name(d: dtype) -> str:
    """The C++ element type torch's kernel errors print for ``d`` (``"long int"``)."""
    return _CPP_NAMES[d.name]


def legacy_name(d: dtype) -> str:
    """torch's C++ name of ``d`` (``"Float"``, ``"Long"``) as its kernel errors print it."""
    return _LEGACY_NAMES[d]


_default = float32


def get_default_dtype() -> dtype:
    """The dtype of new floating tensors (float32 unless changed)."""
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the dtype of new floating tensors and of float Python scalars in promotion.

    Complex defaults follow (float64 -> complex128). Example::

        hookgrad.set_default_dtype(hookgrad.float64)
        hookgrad.tensor(1.5).dtype      # torch.float64
    """
    global _default
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The hookgrad dtype for a NumPy dtype (TypeError when unsupported)."""
    np_dtype = np.dtype(np_dtype)
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        found = _EXTRA_NUMPY.get(np_dtype)
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The only "
            "supported types are: float64, float32, float16, complex64, complex128, int64, "
            "int32, int16, int8, uint64, uint32, uint16, uint8, and bool."
        )
    return found


_PYTHON_TYPES = {float: float64, int: int64, bool: bool_, complex: complex128}


def to_dtype(value: Any) -> dtype:
    """A hookgrad dtype given one, a Python type (as torch: ``float`` is float64) or a
    NumPy dtype."""
    if isinstance(value, dtype):
        return value
    found = _PYTHON_TYPES.get(value)
    if found is not None:
        return found
    return from_numpy_dtype(value)


def can_cast(from_: Any, to: Any) -> bool:
    """Whether torch allows a value of dtype ``from_`` to be written into a tensor of
    dtype ``to`` (in place or ``out=``): not complex to real, floating to integer, or
    anything but bool to bool. Example: ``hookgrad.can_cast(hookgrad.int32,
    hookgrad.float32)`` is True, ``hookgrad.can_cast(hookgrad.float32, hookgrad.int32)``
    False."""
    checked = []
    for position, (name, value) in enumerate((("from_", from_), ("to", to)), 1):
        if not (isinstance(value, dtype) or value in _PYTHON_TYPES):
            raise TypeError(
                f"can_cast(): argument '{name}' (position {position}) must be torch.dtype, "
                f"not {type(value).__name__}"
            )
        checked.append(to_dtype(value))
    source, target = checked
    if source._category > target._category and source._category >= 2:
        return False
    return source is bool_ or target is not bool_


def default_complex() -> dtype:
    """The complex dtype matching the default float dtype."""
    return complex128 if _default is float64 else complex64


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to without losing their category.

    Example: ``promote_types(int32, float16)`` is float16, ``(float64, complex64)`` is
    complex128, ``(uint8, int8)`` is int16.
    """
    for position, value in ((1, a), (2, b)):
        if not isinstance(value, dtype):
            raise TypeError(
                f"promote_types(): argument 'type{position}' (position {position}) must be "
                f"torch.dtype, not {type(value).__name__}"
            )
    if a is b:
        return a
    if a._category != b._category:
        high, low = (a, b) if a._category > b._category else (b, a)
        if high.is_complex and low.is_floating_point and low.itemsize > high.itemsize // 2:
            return low.to_complex()
        return high
    if {a, b} == {uint8, int8}:
        # NOTE: neither holds the other's range, so torch goes one size up.
        return int16
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
    raise TypeError(
        f"expected a Tensor or a Number (bool, int, float, complex), got {type(value).__name__}"
    )


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

    Example: ``result_type(tensor([1, 2]), 2.5)`` is the default float dtype.
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
            scalar_result = (
                current if scalar_result is None else promote_types(scalar_result, current)
            )
    return _combine(dim_result, _combine(zero_result, scalar_result))


class finfo:
    """Machine limits of a floating (or complex) dtype: ``bits``, ``eps``, ``max``, ``min``,
    ``tiny``, ``smallest_normal``, ``resolution`` and ``dtype`` (its name).

    Example: ``hookgrad.finfo(hookgrad.float32).eps`` is ``1.1920928955078125e-07``.
    """

    def __init__(self, type: dtype | None = None) -> None:
        type = _default if type is None else type
        if not (type.is_floating_point or type.is_complex):
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                "handle 'torch.finfo'"
            )
        info = np.finfo(type.to_real().np)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.smallest_normal)
        self.smallest_normal = self.tiny
        self.resolution = 10.0**-info.precision
        self.dtype = type.to_real().name

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
            f"tiny={self.tiny:g}, dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype: ``bits``, ``max``, ``min`` and ``dtype`` (its name).

    Example: ``hookgrad.iinfo(hookgrad.int32).max`` is ``2147483647``.
    """

    def __init__(self, type: dtype) -> None:
        if type is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type._category != 1:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                "'torch.iinfo'"
            )
        info = np.iinfo(type.np)
        self.bits = info.bits
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
