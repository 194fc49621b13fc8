"""Arithmetic ops: add, sub, mul, div, neg, pow, remainder, maximum/minimum, where.

Every op is an entry of the derivative table (``hookgrad.ops.table``). Broadcasting
needs no code here: the engine sums each gradient down to its input's shape (and casts
it to the input's dtype) after every backward. A Python-number operand takes a tensor
input's place with no edge (``x * 2``), as torch's wrapped numbers do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.kernels import pow as pow_kernels
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


def _div_rounding(a: Any, b: Any, rounding_mode: str) -> Any:
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
# ``self - floor(self / other) * other``; with a Python-number ``other`` it gets no edge.
Remainder = entry(
    "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
    np.remainder,
    node="RemainderBackward1",
    quiet=True,
    self="grad",
    other="-grad * self.div(other, rounding_mode='floor')",
    elementwise=True,
)
RemainderScalar = entry(
    "remainder.Scalar(Tensor self, Tensor other) -> Tensor",
    np.remainder,
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
