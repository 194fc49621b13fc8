"""``ArithmeticMethods``: the operators (``+``, ``*``, ``==``, ``<<`` ...) and the
arithmetic, comparison, logical and bitwise methods of ``Tensor``, each the function of
``arithmetic.py`` of the same name (``methods.py`` sets them on the class)."""

from __future__ import annotations

from typing import Any

from hookgrad.tensor.functions.arithmetic import (
    add,
    allclose,
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    copysign,
    div,
    eq,
    equal,
    float_power,
    floor_divide,
    fmax,
    fmin,
    fmod,
    gcd,
    ge,
    greater,
    greater_equal,
    gt,
    heaviside,
    hypot,
    isclose,
    lcm,
    ldexp,
    le,
    less,
    less_equal,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    maximum,
    minimum,
    mul,
    ne,
    neg,
    nextafter,
    not_equal,
    positive,
    pow,
    remainder,
    rsub,
    sub,
    where,
)

__all__ = ["ArithmeticMethods"]


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
    greater = greater
    greater_equal = greater_equal
    less = less
    less_equal = less_equal
    not_equal = not_equal
    logaddexp = logaddexp
    logaddexp2 = logaddexp2
    hypot = hypot
    nextafter = nextafter
    copysign = copysign
    fmod = fmod
    fmax = fmax
    fmin = fmin
    ldexp = ldexp
    float_power = float_power
    positive = positive
    heaviside = heaviside
    gcd = gcd
    lcm = lcm
    bitwise_left_shift = bitwise_left_shift
    bitwise_right_shift = bitwise_right_shift

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
    __lshift__ = bitwise_left_shift
    __rshift__ = bitwise_right_shift

    def __rlshift__(self, other: Any) -> Any:
        return bitwise_left_shift(other, self)

    def __rrshift__(self, other: Any) -> Any:
        return bitwise_right_shift(other, self)

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
