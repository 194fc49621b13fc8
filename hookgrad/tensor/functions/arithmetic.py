"""Arithmetic and comparison functions, and the Tensor operators that call them."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops import arithmetic as ops
from hookgrad.ops.strides import elementwise_layout
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply_arrays, wrap_constant
from hookgrad.tensor.promotion import binary_arrays, check_operand, float_arrays, is_scalar
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "add",
    "allclose",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "div",
    "divide",
    "eq",
    "equal",
    "floor_divide",
    "ge",
    "gt",
    "isclose",
    "le",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "maximum",
    "minimum",
    "mul",
    "multiply",
    "ne",
    "neg",
    "negative",
    "pow",
    "remainder",
    "rsub",
    "sub",
    "subtract",
    "true_divide",
    "where",
]


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


def add(input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``input + alpha * other``, broadcasting, with torch's type promotion."""
    a, b = binary_arrays(input, other)
    return apply_arrays(ops.Add() if alpha == 1 else ops.Add(alpha), (input, other), (a, b))


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``input - alpha * other``."""
    _check_bool_subtraction(input, other)
    a, b = binary_arrays(input, other)
    return apply_arrays(ops.Sub() if alpha == 1 else ops.Sub(alpha), (input, other), (a, b))


subtract = sub


def _check_bool_subtraction(a: Any, b: Any) -> None:
    """torch refuses ``-`` on bools (tensors or Python ``True``/``False``)."""
    a_bool = isinstance(a, bool) or (_is_tensor(a) and a._data.dtype.kind == "b")
    b_bool = isinstance(b, bool) or (_is_tensor(b) and b._data.dtype.kind == "b")
    if a_bool and b_bool and _is_tensor(a) and _is_tensor(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
            "the `^` or `logical_xor()` operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``other - alpha * input``."""
    _check_bool_subtraction(other, input)
    a, b = binary_arrays(input, other)
    if is_scalar(other):
        return apply_arrays(ops.RSub(b, alpha), (input,), (a,))
    return apply_arrays(ops.Sub(alpha), (other, input), (b, a))


def mul(input: Any, other: Any) -> Any:
    """Elementwise product."""
    a, b = binary_arrays(input, other)
    return apply_arrays(ops.Mul(), (input, other), (a, b))


multiply = mul


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Any:
    """Elementwise division; ``rounding_mode`` None (true), ``"trunc"`` or ``"floor"``."""
    if rounding_mode is None:
        a, b = float_arrays(input, other)
        return apply_arrays(ops.Div(), (input, other), (a, b))
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    a, b = binary_arrays(input, other)
    _check_real(f"div_{rounding_mode}_cpu", a)
    return apply_arrays(ops.DivRounding(rounding_mode), (input, other), (a, b))


divide = div
true_divide = div


def floor_divide(input: Any, other: Any) -> Any:
    """Elementwise division rounded down."""
    return div(input, other, rounding_mode="floor")


def remainder(input: Any, other: Any) -> Any:
    """Python-style modulus (the result has the sign of ``other``)."""
    a, b = binary_arrays(input, other)
    _check_real("remainder_cpu", a)
    op = ops.RemainderScalar() if is_scalar(other) else ops.Remainder()
    return apply_arrays(op, (input, other), (a, b))


def neg(input: Any) -> Any:
    """``-input``."""
    if input.dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return apply_arrays(ops.Neg(), (input,), (input._data,))


negative = neg


def pow(input: Any, exponent: Any) -> Any:
    """``input ** exponent``; either may be a Python number."""
    if not _is_tensor(input):
        a, b = binary_arrays(input, exponent)
        return apply_arrays(ops.RPow(a), (exponent,), (b,))
    if is_scalar(exponent):
        a, _ = binary_arrays(input, exponent)
        return apply_arrays(ops.PowScalar(exponent), (input,), (a,))
    a, b = binary_arrays(input, exponent)
    return apply_arrays(ops.Pow(), (input, exponent), (a, b))


def where(condition: Any, input: Any, other: Any) -> Any:
    """``input`` where ``condition`` is true, else ``other`` (both broadcast)."""
    if condition.dtype is not dtypes.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{dtypes.legacy_name(condition.dtype)}"
        )
    a, b = binary_arrays(input, other)
    return apply_arrays(ops.Where(), (condition, input, other), (condition._data, a, b))


def maximum(input: Any, other: Any) -> Any:
    """Elementwise maximum of two tensors (ties split the gradient evenly)."""
    a, b = binary_arrays(input, other)
    if a.dtype.kind == "c":
        raise RuntimeError("maximum not implemented for complex tensors.")
    return apply_arrays(ops.Maximum(), (input, other), (a, b))


def minimum(input: Any, other: Any) -> Any:
    """Elementwise minimum of two tensors (ties split the gradient evenly)."""
    a, b = binary_arrays(input, other)
    if a.dtype.kind == "c":
        raise RuntimeError("minimum not implemented for complex tensors.")
    return apply_arrays(ops.Minimum(), (input, other), (a, b))


# ---------------------------------------------------------------- not differentiable


def _compare(ufunc: Any, input: Any, other: Any) -> Any:
    a, b = binary_arrays(input, other)
    return wrap_constant(elementwise_layout(ufunc(a, b), (a, b)))


def eq(input: Any, other: Any) -> Any:
    """Elementwise ``==`` as a bool tensor."""
    return _compare(np.equal, input, other)


def ne(input: Any, other: Any) -> Any:
    return _compare(np.not_equal, input, other)


def _order(ufunc: Any, kernel: str, input: Any, other: Any) -> Any:
    """An ordering comparison: not defined for complex numbers."""
    a, b = binary_arrays(input, other)
    _check_real(kernel, a)
    return wrap_constant(elementwise_layout(ufunc(a, b), (a, b)))


def lt(input: Any, other: Any) -> Any:
    return _order(np.less, "lt_cpu", input, other)


def le(input: Any, other: Any) -> Any:
    return _order(np.less_equal, "le_cpu", input, other)


def gt(input: Any, other: Any) -> Any:
    return _order(np.greater, "gt_cpu", input, other)


def ge(input: Any, other: Any) -> Any:
    return _order(np.greater_equal, "ge_cpu", input, other)


def _check_real(kernel: str, data: np.ndarray) -> None:
    """torch's error for an op that has no complex kernel (``data``: the promoted input)."""
    if data.dtype.kind == "c":
        name = dtypes.legacy_name(dtypes.to_dtype(data.dtype))
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def logical_and(input: Any, other: Any) -> Any:
    return _compare(np.logical_and, input, other)


def logical_or(input: Any, other: Any) -> Any:
    return _compare(np.logical_or, input, other)


def logical_xor(input: Any, other: Any) -> Any:
    return _compare(np.logical_xor, input, other)


def logical_not(input: Any) -> Any:
    return wrap_constant(np.logical_not(input._data))


def _bitwise(ufunc: Any, name: str, input: Any, other: Any) -> Any:
    check_operand(other)
    a, b = binary_arrays(input, other)
    if getattr(a, "dtype", np.dtype(type(a))).kind not in "biu":
        raise RuntimeError(f"\"{name}_cpu\" not implemented for 'Float'")
    return wrap_constant(ufunc(a, b))


def bitwise_and(input: Any, other: Any) -> Any:
    return _bitwise(np.bitwise_and, "bitwise_and", input, other)


def bitwise_or(input: Any, other: Any) -> Any:
    return _bitwise(np.bitwise_or, "bitwise_or", input, other)


def bitwise_xor(input: Any, other: Any) -> Any:
    return _bitwise(np.bitwise_xor, "bitwise_xor", input, other)


def bitwise_not(input: Any) -> Any:
    if input.dtype.is_floating_point or input.dtype.is_complex:
        raise RuntimeError("\"bitwise_not_cpu\" not implemented for 'Float'")
    return wrap_constant(np.invert(input._data))


def equal(input: Any, other: Any) -> bool:
    """True if both tensors have the same shape and elements."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def allclose(
    input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """True if ``|input - other| <= atol + rtol * |other|`` everywhere."""
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(
    input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Any:
    return wrap_constant(
        np.isclose(input._data, _data_of(other), rtol=rtol, atol=atol, equal_nan=equal_nan)
    )


def _data_of(value: Any) -> Any:
    return value._data if _is_tensor(value) else value


class ArithmeticMethods:
    """Operators and arithmetic methods of ``Tensor``."""

    add = add
    sub = sub
    subtract = sub
    mul = mul
    multiply = mul
    div = div
    divide = div
    true_divide = div
    floor_divide = floor_divide
    remainder = remainder
    neg = neg
    negative = neg
    pow = pow
    maximum = maximum
    minimum = minimum
    eq = eq
    ne = ne
    lt = lt
    le = le
    gt = gt
    ge = ge
    logical_and = logical_and
    logical_or = logical_or
    logical_xor = logical_xor
    logical_not = logical_not
    bitwise_not = bitwise_not
    equal = equal
    allclose = allclose
    isclose = isclose

    def where(self, condition: Any, other: Any) -> Any:
        """``self`` where ``condition``, else ``other``."""
        return where(condition, self, other)

    __add__ = add
    __radd__ = add
    __sub__ = sub
    __mul__ = mul
    __rmul__ = mul
    __truediv__ = div
    __floordiv__ = floor_divide
    __mod__ = remainder
    __neg__ = neg
    __pow__ = pow
    __eq__ = eq  # type: ignore[assignment]
    __ne__ = ne  # type: ignore[assignment]
    __lt__ = lt
    __le__ = le
    __gt__ = gt
    __ge__ = ge
    __invert__ = bitwise_not
    __and__ = bitwise_and
    __or__ = bitwise_or
    __xor__ = bitwise_xor
    __rand__ = bitwise_and
    __ror__ = bitwise_or
    __rxor__ = bitwise_xor

    def __pos__(self) -> Any:
        return self

    def __rsub__(self, other: Any) -> Any:
        return rsub(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return self.reciprocal() * other  # type: ignore[attr-defined]

    def __rfloordiv__(self, other: Any) -> Any:
        return floor_divide(other, self)

    def __rmod__(self, other: Any) -> Any:
        return remainder(other, self)

    def __rpow__(self, other: Any) -> Any:
        return pow(other, self)

    def __matmul__(self, other: Any) -> Any:
        return self.matmul(other)  # type: ignore[attr-defined]

    def __rmatmul__(self, other: Any) -> Any:
        return other.matmul(self)
