"""Arithmetic and comparison functions (the Tensor operators that call them are in
``arithmetic_methods.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops import arithmetic as ops
from hookgrad.ops.strides import elementwise_layout
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply_arrays, broadcast_shapes, wrap_constant
from hookgrad.tensor.functions.generated import check_out, write_out
from hookgrad.tensor.promotion import binary_arrays, check_operand, float_arrays, is_scalar
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "add",
    "allclose",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "copysign",
    "div",
    "divide",
    "eq",
    "equal",
    "float_power",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "gcd",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "heaviside",
    "hypot",
    "isclose",
    "lcm",
    "ldexp",
    "le",
    "less",
    "less_equal",
    "logaddexp",
    "logaddexp2",
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
    "nextafter",
    "not_equal",
    "positive",
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
    _check_real(f"div_{rounding_mode}_cpu", a, boolean=False)
    return apply_arrays(ops.DivRounding(rounding_mode), (input, other), (a, b))


divide = div
true_divide = div


def floor_divide(input: Any, other: Any) -> Any:
    """Elementwise division rounded down: ``div(input, other, rounding_mode='floor')``'s
    values (integers stay integers), with no derivative (torch's ``NotImplemented``
    node). Example: ``hookgrad.tensor([5, -7]) // 2`` is ``tensor([ 2, -4])``."""
    arrays = floor_divide_arrays(input, other)
    return apply_arrays(ops.FloorDivide().edges_for((input, other)), (input, other), arrays)


def floor_divide_arrays(input: Any, other: Any) -> tuple[Any, Any]:
    """The arrays ``floor_divide`` (and ``floor_divide_``) computes on, after torch's
    dtype checks."""
    a, b = binary_arrays(input, other)
    _check_real("div_floor_cpu", a, boolean=False)
    return a, b


def remainder(input: Any, other: Any) -> Any:
    """Python-style modulus (the result has the sign of ``other``)."""
    a, b = binary_arrays(input, other)
    _check_real("remainder_cpu", a, boolean=False)
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


# ---------------------------------------------------------------- pointwise binary functions


def _type_name(np_dtype: np.dtype) -> str:
    return dtypes.legacy_name(dtypes.to_dtype(np_dtype))


def _check_tensors(name: str, input: Any, other: Any, other_name: str = "other") -> None:
    """torch's ``TypeError`` for an operand that must be a tensor."""
    for value, argument, position in ((input, "input", 1), (other, other_name, 2)):
        if not _is_tensor(value):
            raise TypeError(
                f"{name}(): argument '{argument}' (position {position}) must be Tensor, not "
                f"{type(value).__name__}"
            )


def _invalid_combination(name: str, input: Any, other: Any, second: str = "other") -> TypeError:
    """torch's ``TypeError`` for a function of (Tensor, Tensor) or (Tensor, Number)."""
    got = ", ".join("Tensor" if _is_tensor(v) else type(v).__name__ for v in (input, other))
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n * (Tensor input, Tensor {second}, *, Tensor out = None)\n"
        f" * (Tensor input, Number {second}, *, Tensor out = None)\n"
    )


def _floating_binary(op: Any, name: str, input: Any, other: Any, complex_ok: bool = False) -> Any:
    """A function of two tensors torch computes on floating types only (in their promoted
    dtype: integers are refused, as torch's kernel ``<name>_cpu`` refuses them)."""
    _check_tensors(name, input, other)
    a, b = binary_arrays(input, other)
    if a.dtype.kind not in ("fc" if complex_ok else "f"):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_type_name(a.dtype)}'")
    return apply_arrays(op, (input, other), (a, b))


def logaddexp(input: Any, other: Any) -> Any:
    """``log(exp(input) + exp(other))``, elementwise and broadcast, without overflow.

    Example: ``hookgrad.logaddexp(hookgrad.tensor([0.0]), hookgrad.tensor([0.0]))`` is
    ``log 2``, ``tensor([0.6931])``.
    """
    return _floating_binary(ops.Logaddexp(), "logaddexp", input, other, complex_ok=True)


def logaddexp2(input: Any, other: Any) -> Any:
    """``log2(2 ** input + 2 ** other)``, elementwise and broadcast, without overflow.

    Example: ``hookgrad.logaddexp2(hookgrad.tensor([1.0]), hookgrad.tensor([1.0]))`` is
    ``tensor([2.])``.
    """
    return _floating_binary(ops.Logaddexp2(), "logaddexp2", input, other)


def hypot(input: Any, other: Any) -> Any:
    """``sqrt(input ** 2 + other ** 2)``, elementwise and broadcast, without overflow.

    Example: ``hookgrad.hypot(hookgrad.tensor([3.0]), hookgrad.tensor([4.0]))`` is
    ``tensor([5.])``.
    """
    return _floating_binary(ops.Hypot(), "hypot", input, other)


def nextafter(input: Any, other: Any) -> Any:
    """The next floating-point value after ``input`` towards ``other``, elementwise.

    Example: ``hookgrad.nextafter(hookgrad.tensor([1.0]), hookgrad.tensor([2.0]))`` is
    ``1 + 2**-23`` in float32.
    """
    return _floating_binary(ops.Nextafter(), "nextafter", input, other)


def copysign(input: Any, other: Any) -> Any:
    """``|input|`` with the sign of ``other`` (a tensor or a number), elementwise; integer
    and bool tensors compute in the default float dtype. The gradient for ``input`` is
    ``grad * sign`` (0 at 0); ``other`` gets a zero gradient.

    Example: ``hookgrad.copysign(hookgrad.tensor([1.5, -2.0]), -1.0)`` is
    ``tensor([-1.5000, -2.0000])``.
    """
    if not _is_tensor(input) or not (_is_tensor(other) or is_scalar(other)):
        raise _invalid_combination("copysign", input, other)
    a, b = float_arrays(input, other)
    if a.dtype.kind == "c":
        raise NotImplementedError(f"\"copysign_cpu\" not implemented for '{_type_name(a.dtype)}'")
    if is_scalar(other):
        return apply_arrays(ops.CopysignScalar(b), (input,), (a,))
    return apply_arrays(ops.Copysign(), (input, other), (a, b))


def fmod(input: Any, other: Any) -> Any:
    """C's ``fmod``: the remainder of ``input / other`` rounded toward zero, with the sign
    of ``input`` (``remainder`` takes ``other``'s sign); ``other`` a tensor or a number.
    Integer tensors stay integer and refuse a zero divisor.

    Example: ``hookgrad.fmod(hookgrad.tensor([-3.0, 3.0]), 2)`` is ``tensor([-1., 1.])``.
    """
    if not _is_tensor(input) or not (_is_tensor(other) or is_scalar(other)):
        raise _invalid_combination("fmod", input, other)
    a, b = binary_arrays(input, other)
    if a.dtype.kind in "bc":
        raise NotImplementedError(f"\"fmod_cpu\" not implemented for '{_type_name(a.dtype)}'")
    if is_scalar(other):
        return apply_arrays(ops.FmodScalar(b), (input,), (a,))
    return apply_arrays(ops.Fmod(), (input, other), (a, b))


def _nan_ignoring(op: Any, name: str, input: Any, other: Any) -> Any:
    _check_tensors(name, input, other)
    a, b = binary_arrays(input, other)
    if a.dtype.kind == "c":
        raise RuntimeError(f"{name} not implemented for complex tensors.")
    return apply_arrays(op, (input, other), (a, b))


def fmax(input: Any, other: Any) -> Any:
    """The elementwise maximum, ignoring NaN (NaN only where both are NaN); integer
    tensors stay integer. The gradient goes to the input the result is (``input`` on ties).

    Example: ``hookgrad.fmax(hookgrad.tensor([1.0, nan]), hookgrad.tensor([nan, 2.0]))`` is
    ``tensor([1., 2.])``.
    """
    return _nan_ignoring(ops.Fmax(), "fmax", input, other)


def fmin(input: Any, other: Any) -> Any:
    """The elementwise minimum, ignoring NaN (see ``fmax``).

    Example: ``hookgrad.fmin(hookgrad.tensor([1.0, nan]), hookgrad.tensor([nan, 2.0]))`` is
    ``tensor([1., 2.])``.
    """
    return _nan_ignoring(ops.Fmin(), "fmin", input, other)


def ldexp(input: Any, other: Any) -> Any:
    """``input * 2 ** other``, elementwise and broadcast. An integer ``other`` is taken in
    ``input``'s floating dtype (the default one for an integer ``input``), as torch does.

    Example: ``hookgrad.ldexp(hookgrad.tensor([1.5]), hookgrad.tensor([3]))`` is
    ``tensor([12.])``.
    """
    _check_tensors("ldexp", input, other)
    a, b = input._data, other._data
    if b.dtype.kind not in "fc":
        floating = a.dtype if a.dtype.kind in "fc" else dtypes.get_default_dtype().np
        b = b.astype(floating)
    result = dtypes.promote_types(
        dtypes.from_numpy_dtype(a.dtype), dtypes.from_numpy_dtype(b.dtype)
    )
    return apply_arrays(ops.Ldexp(), (input, other), (a.astype(result.np, copy=False), b))


def float_power(input: Any, exponent: Any) -> Any:
    """``input ** exponent`` computed in float64 (complex128 if either is complex); either
    may be a Python number (torch's composite: ``pow`` of the operands converted).

    Example: ``hookgrad.float_power(hookgrad.tensor([2]), 0.5)`` is
    ``tensor([1.4142], dtype=torch.float64)``.
    """
    if not (_is_tensor(input) or _is_tensor(exponent)) or not all(
        _is_tensor(v) or is_scalar(v) for v in (input, exponent)
    ):
        got = ", ".join("Tensor" if _is_tensor(v) else type(v).__name__ for v in (input, exponent))
        raise TypeError(
            f"float_power() received an invalid combination of arguments - got ({got}), but "
            "expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
            " * (Number self, Tensor exponent, *, Tensor out = None)\n"
            " * (Tensor input, Number exponent, *, Tensor out = None)\n"
        )
    dtype = _float_power_dtype(input, exponent)
    base = input.to(dtype) if _is_tensor(input) else input
    power = exponent.to(dtype) if _is_tensor(exponent) else exponent
    return pow(base, power)


def _float_power_dtype(input: Any, exponent: Any) -> Any:
    """float64, or complex128 where an operand is complex."""
    complex_ = any(
        (v.dtype.is_complex if _is_tensor(v) else isinstance(v, complex)) for v in (input, exponent)
    )
    return dtypes.complex128 if complex_ else dtypes.float64


def positive(input: Any) -> Any:
    """``input`` itself (the unary ``+``); refused for bool tensors, as torch does.

    Example: ``hookgrad.positive(x) is x`` is True.
    """
    if input.dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def heaviside(input: Any, values: Any) -> Any:
    """The Heaviside step function: 0 where ``input < 0``, 1 where ``input > 0``, and
    ``values`` (broadcast) where ``input == 0``. Both must have one dtype; torch has no
    derivative for it (its node is ``NotImplemented``).

    Example: ``hookgrad.heaviside(hookgrad.tensor([-1.0, 0.0, 2.0]), hookgrad.tensor([0.5]))``
    is ``tensor([0.0000, 0.5000, 1.0000])``.
    """
    _check_tensors("heaviside", input, values, "values")
    if input.dtype.is_complex or values.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    op = ops.Heaviside().edges_for((input, values))
    return apply_arrays(op, (input, values), (input._data, values._data))


# ---------------------------------------------------------------- not differentiable


def _broadcastable(a: Any, b: Any) -> None:
    """torch's error for operands whose shapes do not broadcast (NumPy's is a ValueError)."""
    if np.shape(a) != np.shape(b):
        broadcast_shapes(np.shape(a), np.shape(b))


def _compare(ufunc: Any, input: Any, other: Any) -> Any:
    a, b = binary_arrays(input, other)
    _broadcastable(a, b)
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
    _broadcastable(a, b)
    return wrap_constant(elementwise_layout(ufunc(a, b), (a, b)))


def lt(input: Any, other: Any) -> Any:
    return _order(np.less, "lt_cpu", input, other)


def le(input: Any, other: Any) -> Any:
    return _order(np.less_equal, "le_cpu", input, other)


def gt(input: Any, other: Any) -> Any:
    return _order(np.greater, "gt_cpu", input, other)


def ge(input: Any, other: Any) -> Any:
    return _order(np.greater_equal, "ge_cpu", input, other)


def _check_real(kernel: str, data: np.ndarray, boolean: bool = True) -> None:
    """torch's error for an op that has no complex kernel (``data``: the promoted input);
    ``boolean=False``: no bool kernel either."""
    if data.dtype.kind == "c" or (not boolean and data.dtype.kind == "b"):
        name = dtypes.legacy_name(dtypes.to_dtype(data.dtype))
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _logical(ufunc: Any, name: str, input: Any, other: Any, out: Any) -> Any:
    """A logical op of two tensors (non-zero is true): a bool tensor, or written into
    ``out`` (any dtype)."""
    _check_tensors(name, input, other)
    result = _compare(ufunc, input, other)
    if out is None:
        return result
    check_out(name, (input, other), out)
    return write_out(result, out)


def logical_and(input: Any, other: Any, *, out: Any = None) -> Any:
    """Elementwise ``input and other`` (non-zero is true), as a bool tensor.

    Example: ``hookgrad.logical_and(hookgrad.tensor([0, 2]), hookgrad.tensor([1.0, 3.0]))``
    is ``tensor([False,  True])``.
    """
    return _logical(np.logical_and, "logical_and", input, other, out)


def logical_or(input: Any, other: Any, *, out: Any = None) -> Any:
    """Elementwise ``input or other`` (non-zero is true), as a bool tensor; see
    :func:`logical_and`."""
    return _logical(np.logical_or, "logical_or", input, other, out)


def logical_xor(input: Any, other: Any, *, out: Any = None) -> Any:
    """Elementwise exclusive or (non-zero is true), as a bool tensor; see
    :func:`logical_and`."""
    return _logical(np.logical_xor, "logical_xor", input, other, out)


def logical_not(input: Any, *, out: Any = None) -> Any:
    """Elementwise ``not input`` (zero is false), as a bool tensor, or written into
    ``out`` (any dtype). Example: ``hookgrad.logical_not(hookgrad.tensor([0, 2]))`` is
    ``tensor([ True, False])``."""
    if not _is_tensor(input):
        raise TypeError(
            "logical_not(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    result = wrap_constant(np.logical_not(input._data))
    if out is None:
        return result
    check_out("logical_not", (input,), out)
    return write_out(result, out)


def _bitwise(ufunc: Any, name: str, input: Any, other: Any) -> Any:
    check_operand(other)
    a, b = binary_arrays(input, other)
    np_dtype = getattr(a, "dtype", np.dtype(type(a)))
    if np_dtype.kind not in "biu":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_type_name(np_dtype)}'")
    _broadcastable(a, b)
    return wrap_constant(ufunc(a, b))


def bitwise_and(input: Any, other: Any) -> Any:
    return _bitwise(np.bitwise_and, "bitwise_and", input, other)


def bitwise_or(input: Any, other: Any) -> Any:
    return _bitwise(np.bitwise_or, "bitwise_or", input, other)


def bitwise_xor(input: Any, other: Any) -> Any:
    return _bitwise(np.bitwise_xor, "bitwise_xor", input, other)


def bitwise_not(input: Any) -> Any:
    """Elementwise bitwise NOT of an integer tensor (logical NOT of a bool one).

    Example: ``hookgrad.bitwise_not(hookgrad.tensor([0, -3]))`` is ``tensor([-1,  2])``.
    """
    if input._data.dtype.kind not in "biu":
        name = _type_name(input._data.dtype)
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{name}'")
    return wrap_constant(np.invert(input._data))


def _integral(name: str, input: Any, other: Any) -> tuple[Any, Any]:
    _check_tensors(name, input, other)
    a, b = binary_arrays(input, other)
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_type_name(a.dtype)}'")
    return a, b


def gcd(input: Any, other: Any) -> Any:
    """The greatest common divisor of integer tensors, elementwise (non-negative; 0 for
    two zeros). Example: ``hookgrad.gcd(hookgrad.tensor([12, -9]), hookgrad.tensor([8, 6]))``
    is ``tensor([4, 3])``.
    """
    a, b = _integral("gcd", input, other)
    return wrap_constant(elementwise_layout(np.gcd(a, b), (a, b)))


def lcm(input: Any, other: Any) -> Any:
    """The least common multiple of integer tensors, elementwise (non-negative; 0 where
    either is 0). Example: ``hookgrad.lcm(hookgrad.tensor([4, 6]), hookgrad.tensor([6, 4]))``
    is ``tensor([12, 12])``.
    """
    a, b = _integral("lcm", input, other)
    return wrap_constant(elementwise_layout(np.lcm(a, b), (a, b)))


def _shift(name: str, input: Any, other: Any, left: bool) -> Any:
    """torch's shifts: ``input`` and ``other`` (a tensor or a number) integral; a shift by a
    negative amount or by the width or more gives 0 (left) or the sign (right)."""
    if not (_is_tensor(input) or _is_tensor(other)):
        raise _invalid_combination(name, input, other)
    a, b = binary_arrays(input, other)
    dtype = np.asarray(a).dtype
    if dtype.kind not in "iu":
        kernel = "lshift" if left else "rshift"
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{_type_name(dtype)}'")
    a, b = np.asarray(a), np.asarray(b)
    bits = dtype.itemsize * 8
    amount = b.astype(np.int64)
    if left:
        inside = (amount >= 0) & (amount < bits)
        shifted = np.left_shift(a, np.where(inside, amount, 0).astype(dtype))
        result = np.where(inside, shifted, 0).astype(dtype)
    else:
        widest = bits - (dtype.kind == "i")
        clipped = np.where((amount < 0) | (amount >= widest), widest, amount).astype(dtype)
        result = np.right_shift(a, clipped)
    return wrap_constant(elementwise_layout(result, (a, b)))


def bitwise_left_shift(input: Any, other: Any) -> Any:
    """``input << other`` for integer tensors (``other`` a tensor or a number), with
    torch's rule for shifts by a negative amount or by the width or more: 0.

    Example: ``hookgrad.bitwise_left_shift(hookgrad.tensor([1, 3]), 2)`` is ``tensor([4, 12])``.
    """
    return _shift("bitwise_left_shift", input, other, left=True)


def bitwise_right_shift(input: Any, other: Any) -> Any:
    """``input >> other`` (arithmetic for signed integers), with torch's rule for shifts
    by a negative amount or by the width or more: the sign (0 or -1).

    Example: ``hookgrad.bitwise_right_shift(hookgrad.tensor([8, -8]), 2)`` is
    ``tensor([ 2, -2])``.
    """
    return _shift("bitwise_right_shift", input, other, left=False)


def _named_comparison(name: str, function: Any, input: Any, other: Any) -> Any:
    if not _is_tensor(input):
        raise _invalid_combination(name, input, other)
    return function(input, other)


def greater(input: Any, other: Any) -> Any:
    """``input > other`` as a bool tensor (torch's other name of ``gt``)."""
    return _named_comparison("greater", gt, input, other)


def greater_equal(input: Any, other: Any) -> Any:
    """``input >= other`` as a bool tensor (``ge``)."""
    return _named_comparison("greater_equal", ge, input, other)


def less(input: Any, other: Any) -> Any:
    """``input < other`` as a bool tensor (``lt``)."""
    return _named_comparison("less", lt, input, other)


def less_equal(input: Any, other: Any) -> Any:
    """``input <= other`` as a bool tensor (``le``)."""
    return _named_comparison("less_equal", le, input, other)


def not_equal(input: Any, other: Any) -> Any:
    """``input != other`` as a bool tensor (``ne``)."""
    return _named_comparison("not_equal", ne, input, other)


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
