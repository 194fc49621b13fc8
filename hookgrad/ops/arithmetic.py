"""Arithmetic ops: add, sub, mul, div, neg, pow, remainder, maximum/minimum, where, and
the pointwise binary functions fmod, fmax/fmin, logaddexp/logaddexp2, hypot, copysign,
nextafter, ldexp, frexp and heaviside.

Every op is an entry of the derivative table (``hookgrad.ops.table``). Broadcasting
needs no code here: the engine sums each gradient down to its input's shape (and casts
it to the input's dtype) after every backward. A Python-number operand takes a tensor
input's place with no edge (``x * 2``), as torch's wrapped numbers do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.kernels import libm
from hookgrad.ops.kernels import pow as pow_kernels
from hookgrad.ops.kernels.fma import fma32, fma64
from hookgrad.ops.not_implemented import NotImplementedBackward
from hookgrad.ops.table import entry, helper

# ---------------------------------------------------------------- add / sub / neg

helper("maybe_multiply(t, s)", "t if s == 1 else t * s")

Add = entry(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    lambda a, b, alpha: a + b if alpha == 1 else a + alpha * b,
    self="grad",
    other="maybe_multiply(grad, alpha.conj())",
    elementwise=True,
)
Sub = entry(
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    lambda a, b, alpha: a - b if alpha == 1 else a - alpha * b,
    self="grad",
    other="maybe_multiply(-grad, alpha.conj())",
    elementwise=True,
)
# ``other - alpha * self`` with a Python-number ``other``.
RSub = entry(
    "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    lambda a, other, alpha: other - a if alpha == 1 else other - alpha * a,
    node="RsubBackward1",
    self="maybe_multiply(-grad, alpha.conj())",
)
Neg = entry("neg(Tensor self) -> Tensor", np.negative, self="grad.neg()")

# The ``Scalar`` overloads: what torch's C++ formulas record for ``tensor * 2.0`` (one
# edge, ``_saved_other`` a number). Python's ``x * 2`` wraps the number instead.
AddScalar = entry(
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    lambda a, other, alpha: a + alpha * other,
    node="AddBackward1",
    self="grad",
)
SubScalar = entry(
    "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    lambda a, other, alpha: a - alpha * other,
    node="SubBackward1",
    self="grad",
)
MulScalar = entry(
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    np.multiply,
    node="MulBackward1",
    self="grad * other.conj()",
)
DivScalar = entry(
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    np.true_divide,
    node="DivBackward1",
    quiet=True,
    self="grad / other.conj()",
)

# ---------------------------------------------------------------- mul / div

# Each factor is saved only when the other one needs a gradient.
Mul = entry(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    np.multiply,
    self="grad * other.conj()",
    other="grad * self.conj()",
    elementwise=True,
)
Div = entry(
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    np.true_divide,
    quiet=True,
    self="grad / other.conj()",
    other="-grad * ((self / other) / other).conj()",
    elementwise=True,
)


def _check_divisor(a: Any, b: Any) -> None:
    """Integer division refuses a zero divisor, as torch's kernels do."""
    if a.dtype.kind in "iub" and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def _div_rounding(a: Any, b: Any, rounding_mode: str) -> Any:
    _check_divisor(a, b)
    if rounding_mode == "floor":
        return np.floor_divide(a, b)
    quotient = np.true_divide(a, b)
    return np.trunc(quotient).astype(np.result_type(a, b), copy=False)


# Division rounded toward zero or down: piecewise constant, so a zero gradient.
DivRounding = entry(
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    _div_rounding,
    node="DivBackward2",
    quiet=True,
    self="zeros_like(grad)",
    other="zeros_like(grad)",
    elementwise=True,
)


def _remainder(a: Any, b: Any) -> Any:
    _check_divisor(a, b)
    return np.remainder(a, b)


# ``self - floor(self / other) * other``; with a Python-number ``other`` it gets no edge.
Remainder = entry(
    "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
    _remainder,
    node="RemainderBackward1",
    quiet=True,
    self="grad",
    other="-grad * self.div(other, rounding_mode='floor')",
    elementwise=True,
)
RemainderScalar = entry(
    "remainder.Scalar(Tensor self, Tensor other) -> Tensor",
    _remainder,
    node="RemainderBackward0",
    quiet=True,
    self="grad",
)
# At ties each input gets half the gradient.
Maximum = entry(
    "maximum(Tensor self, Tensor other) -> Tensor",
    np.maximum,
    self="where(self == other, grad / 2, grad).masked_fill(self < other, 0)",
    other="where(self == other, grad / 2, grad).masked_fill(self > other, 0)",
    elementwise=True,
)
Minimum = entry(
    "minimum(Tensor self, Tensor other) -> Tensor",
    np.minimum,
    self="where(self == other, grad / 2, grad).masked_fill(self > other, 0)",
    other="where(self == other, grad / 2, grad).masked_fill(self < other, 0)",
    elementwise=True,
)

# ---------------------------------------------------------------- pow

# Where the exponent is a real number >= 0 (a zero imaginary part if complex): there
# ``0 ** b`` has a zero gradient in ``b`` (torch's condition).
helper("nonnegative_real(b)", "((b.real >= 0) & (b.imag == 0)) if b.is_complex() else (b >= 0)")
helper(
    "pow_backward(grad, self, exponent)",
    "zeros_like(grad) if exponent == 0 else grad * (exponent * self.pow(exponent - 1)).conj()",
)


def _pow_scalar(a: Any, exponent: Any) -> Any:
    if a.dtype in pow_kernels.FLOATING and not isinstance(exponent, complex):
        return pow_kernels.pow_tensor_scalar(a, exponent)
    return np.power(a, exponent)


def _pow(a: Any, exponent: Any) -> Any:
    if a.dtype in pow_kernels.FLOATING:
        return pow_kernels.pow_tensor_tensor(a, exponent)
    return np.power(a, exponent)


def _rpow(exponent: Any, base: Any) -> Any:
    if exponent.dtype in pow_kernels.FLOATING and np.ndim(base) == 0 and np.isrealobj(base):
        return pow_kernels.pow_scalar_tensor(base.item(), exponent)
    return np.power(base, exponent)


PowScalar = entry(
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    _pow_scalar,
    node="PowBackward0",
    quiet=True,
    self="pow_backward(grad, self, exponent)",
)
Pow = entry(
    "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    _pow,
    node="PowBackward1",
    quiet=True,
    self="where(exponent == 0.0, grad.new_zeros(()),"
    " grad * (exponent * self.pow(exponent - 1)).conj())",
    exponent="grad * where((self == 0) & nonnegative_real(exponent), grad.new_zeros(()),"
    " (result * self.log()).conj())",
    elementwise=True,
)
# ``base ** exponent`` with a Python-number base; d/db 0 ** b is 0 for real b >= 0 and
# -inf * 0 ** b (= -inf) for b < 0.
RPow = entry(
    "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
    _rpow,
    node="PowBackward2",
    quiet=True,
    exponent="(grad * (result * -inf).conj()).masked_fill(nonnegative_real(exponent), 0)"
    " if self == 0 else grad * (result * self.log()).conj()",
)

# ---------------------------------------------------------------- where

# The condition gets no gradient.
Where = entry(
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    np.where,
    self="where(condition, grad, 0)",
    other="where(condition, 0, grad)",
    elementwise=True,
)


# ---------------------------------------------------------------- fmod, fmax, fmin


def _fmod(a: Any, b: Any) -> Any:
    """C's ``fmod`` (the remainder with the sign of ``a``); integers refuse a zero divisor
    as torch does."""
    if a.dtype.kind in "iub" and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    return np.fmod(a, b)


# ``self - trunc(self / other) * other``: ``grad`` for ``self``; with a Python-number
# ``other`` it gets no edge.
Fmod = entry(
    "fmod.Tensor(Tensor self, Tensor other) -> Tensor",
    _fmod,
    node="FmodBackward1",
    quiet=True,
    self="grad",
    other="-grad * self.div(other, rounding_mode='trunc')",
    elementwise=True,
)
FmodScalar = entry(
    "fmod.Scalar(Tensor self, Scalar other) -> Tensor",
    _fmod,
    node="FmodBackward0",
    quiet=True,
    self="grad",
)
# The maximum (minimum) ignoring NaN: the gradient goes to the input the result is, to
# ``self`` on ties.
Fmax = entry(
    "fmax(Tensor self, Tensor other) -> Tensor",
    np.fmax,
    self="grad.masked_fill(((self >= other) | other.isnan()).logical_not(), 0)",
    other="grad.masked_fill((self >= other) | other.isnan(), 0)",
    elementwise=True,
)
Fmin = entry(
    "fmin(Tensor self, Tensor other) -> Tensor",
    np.fmin,
    self="grad.masked_fill(((self <= other) | other.isnan()).logical_not(), 0)",
    other="grad.masked_fill((self <= other) | other.isnan(), 0)",
    elementwise=True,
)

# ---------------------------------------------------------------- logaddexp, hypot


def _fused(a: Any, b: Any, c: Any) -> Any:
    return fma32(a, b, c) if a.dtype == np.float32 else fma64(a, b, c)


def _logaddexp(a: Any, b: Any) -> Any:
    """``log(exp(a) + exp(b))`` as torch's scalar kernel: ``m + log1p(exp(-|a - b|))``
    with ``m = max(a, b)`` (``a`` where both are the same infinity)."""
    if a.dtype.kind == "c":
        larger = np.where(a.real >= b.real, a, b)
        smaller = np.where(a.real >= b.real, b, a)
        return np.log1p(np.exp(smaller - larger)) + larger
    wide = a.dtype == np.float16
    x, y = (a.astype(np.float32), b.astype(np.float32)) if wide else (a, b)
    value = np.maximum(x, y) + libm.log1p(libm.exp(-np.abs(x - y)))
    value = np.where(np.isinf(x) & (x == y), x, value)
    return value.astype(a.dtype)


def _logaddexp2(a: Any, b: Any) -> Any:
    """``log2(2^a + 2^b)``: ``m + log1p(exp2(-|a - b|)) / ln 2`` (the product fused)."""
    wide = a.dtype == np.float16
    x, y = (a.astype(np.float32), b.astype(np.float32)) if wide else (a, b)
    inverse_ln2 = x.dtype.type(1.0 / np.log(2.0))
    value = _fused(libm.log1p(libm.exp2(-np.abs(x - y))), inverse_ln2, np.maximum(x, y))
    value = np.where(np.isinf(x) & (x == y), x, value)
    return value.astype(a.dtype)


Logaddexp = entry(
    "logaddexp(Tensor self, Tensor other) -> Tensor",
    _logaddexp,
    quiet=True,
    self="grad / (1 + exp(other - self)).conj()",
    other="grad / (1 + exp(self - other)).conj()",
    elementwise=True,
)
Logaddexp2 = entry(
    "logaddexp2(Tensor self, Tensor other) -> Tensor",
    _logaddexp2,
    quiet=True,
    self="grad / (1 + pow(2, other - self))",
    other="grad / (1 + pow(2, self - other))",
    elementwise=True,
)
# ``sqrt(self^2 + other^2)`` without overflow (the C library's ``hypot``).
Hypot = entry(
    "hypot(Tensor self, Tensor other) -> Tensor",
    np.hypot,
    quiet=True,
    self="grad * self / result",
    other="grad * other / result",
    elementwise=True,
)

# ---------------------------------------------------------------- copysign, nextafter

# ``|self|`` with ``other``'s sign: ``self``'s gradient is ``grad * result / self`` (0 at
# 0); ``other`` gets a zero gradient.
helper(
    "copysign_tensor_self_backward(grad, self, result)",
    "grad * (result / self).masked_fill(self == 0, 0)",
)
Copysign = entry(
    "copysign.Tensor(Tensor self, Tensor other) -> Tensor",
    np.copysign,
    quiet=True,
    self="copysign_tensor_self_backward(grad, self, result)",
    # NOTE: torch's ``zeros_like(other)`` saves only ``other``'s shape: ``grad``'s, reduced
    # to it, is the same zero.
    other="zeros_like(grad)",
    elementwise=True,
)
CopysignScalar = entry(
    "copysign.Scalar(Tensor self, Scalar other) -> Tensor",
    np.copysign,
    node="CopysignBackward1",
    quiet=True,
    self="copysign_tensor_self_backward(grad, self, result)",
)
# The next representable number after ``self`` towards ``other``.
Nextafter = entry(
    "nextafter(Tensor self, Tensor other) -> Tensor",
    np.nextafter,
    self="where(self != other, grad, 0)",
    other="zeros_like(other)",
    elementwise=True,
)

# ---------------------------------------------------------------- ldexp, frexp


def _ldexp(a: Any, b: Any) -> Any:
    """``self * 2 ** other`` as torch's ``mul(self, pow(2.0, other))``: the power in
    ``other``'s floating dtype (the default one for integers), then the product."""
    if b.dtype.kind not in "fc":
        b = b.astype(_default_float(a))
    if b.dtype in pow_kernels.FLOATING:
        power = pow_kernels.pow_scalar_tensor(2.0, b)
    else:
        power = np.power(2.0, b).astype(b.dtype)
    return np.multiply(a, power)


def _default_float(a: Any) -> Any:
    """The float dtype ``pow(2.0, integer tensor)`` takes: the one of ``self`` when it is
    floating (the tensor layer passes integer ``self`` already as the default float)."""
    return a.dtype if a.dtype.kind in "fc" else np.dtype(np.float32)


Ldexp = entry(
    "ldexp.Tensor(Tensor self, Tensor other) -> Tensor",
    _ldexp,
    quiet=True,
    self="grad * pow(2, other).conj()",
    other="grad * result.conj() * M_LN2",
    elementwise=True,
)


class Frexp(Op):
    """``frexp(self)``: the mantissa in [0.5, 1) (signed) and the exponent (int32) with
    ``self = mantissa * 2 ** exponent``. The mantissa's gradient is ``grad / 2 **
    exponent``; the exponent is not differentiable."""

    input_names = ("self",)
    output_names = ("mantissa", "exponent")
    saves = ("exponent",)
    differentiable_outputs = 1

    def forward(self, a: Any) -> Any:
        mantissa, exponent = np.frexp(a)
        return mantissa, exponent.astype(np.int32)

    def backward(self, grad: Any) -> Any:
        (exponent,) = self.unpack()
        return (grad / exponent.exp2(),)


# ---------------------------------------------------------------- floor_divide and heaviside


class FloorDivide(NotImplementedBackward):
    """``floor_divide(input, other)``: ``div(..., rounding_mode='floor')``'s values, but
    torch has no derivative for it: its node is ``NotImplemented``, with an edge for each
    input that requires grad (``edges_for``)."""

    aten_name = "floor_divide"
    input_names = ("self", "other")
    quiet = True

    def __init__(self, aten_name: str = "floor_divide") -> None:
        self.aten_name = aten_name  # ``floor_divide_`` for the in-place variant

    def forward(self, a: Any, b: Any) -> Any:
        return _div_rounding(a, b, "floor")


class Heaviside(NotImplementedBackward):
    """``heaviside(input, values)``: 0 below 0, 1 above, ``values`` at 0. torch has no
    derivative for it: its node is ``NotImplemented``, with an edge for each input that
    requires grad (``edges_for``)."""

    aten_name = "heaviside"
    input_names = ("self", "values")

    def __init__(self, aten_name: str = "heaviside") -> None:
        self.aten_name = aten_name  # ``heaviside_`` for the in-place variant

    def forward(self, a: Any, values: Any) -> Any:
        return np.where(a == 0, values, a > 0).astype(np.result_type(a, values))
