"""Arithmetic ops: add, sub, mul, div, neg, pow, where.

Broadcasting needs no code here: the engine sums each gradient down to its input's
shape (and casts it to the input's dtype) after every backward.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.base import Op

# ---------------------------------------------------------------- add / sub / neg


class Add(Op):
    """``self + alpha * other``."""

    def __init__(self, alpha: Any = 1) -> None:
        self.alpha = alpha

    def forward(self, a: Any, b: Any) -> Any:
        return a + b if self.alpha == 1 else a + self.alpha * b

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_b = None
        if needs[1]:
            grad_b = grad if self.alpha == 1 else grad * _conj(self.alpha)
        return grad if needs[0] else None, grad_b


class Sub(Op):
    """``self - alpha * other``."""

    def __init__(self, alpha: Any = 1) -> None:
        self.alpha = alpha

    def forward(self, a: Any, b: Any) -> Any:
        return a - b if self.alpha == 1 else a - self.alpha * b

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_b = None
        if needs[1]:
            grad_b = -grad if self.alpha == 1 else grad * (-_conj(self.alpha))
        return grad if needs[0] else None, grad_b


class RSub(Op):
    """``other - alpha * self`` with a Python-number ``other``."""

    node_name = "RsubBackward1"
    input_names = ("self",)

    def __init__(self, other: Any, alpha: Any = 1) -> None:
        self.other = other
        self.alpha = alpha

    def forward(self, a: Any) -> Any:
        return self.other - a if self.alpha == 1 else self.other - self.alpha * a

    def backward(self, grad: Any) -> Any:
        return -grad if self.alpha == 1 else grad * (-_conj(self.alpha))


class Neg(Op):
    input_names = ("self",)

    def forward(self, a: Any) -> Any:
        return np.negative(a)

    def backward(self, grad: Any) -> Any:
        return -grad


# ---------------------------------------------------------------- mul / div


class Mul(Op):
    """Elementwise product; each factor is saved only for the other's gradient."""

    saves = ("other", "self")
    saved_for = {"other": ("self",), "self": ("other",)}

    def forward(self, a: Any, b: Any) -> Any:
        return a * b

    def backward(self, grad: Any) -> Any:
        b, a = self.unpack()
        needs = self.needs_input_grad
        return (grad * _conj(b) if needs[0] else None, grad * _conj(a) if needs[1] else None)


class Div(Op):
    """True division (``rounding_mode=None``)."""

    quiet = True
    saves = ("other", "self")
    saved_for = {"self": ("other",)}

    def forward(self, a: Any, b: Any) -> Any:
        return np.true_divide(a, b)

    def backward(self, grad: Any) -> Any:
        b, a = self.unpack()
        needs = self.needs_input_grad
        grad_a = grad / _conj(b) if needs[0] else None
        grad_b = None
        if needs[1]:
            grad_b = -grad * _conj(a / (b * b))
        return grad_a, grad_b


class DivRounding(Op):
    """Division rounded toward zero or down: piecewise constant, so zero gradient."""

    quiet = True
    node_name = "DivBackward2"

    def __init__(self, rounding_mode: str) -> None:
        self.rounding_mode = rounding_mode

    def forward(self, a: Any, b: Any) -> Any:
        if self.rounding_mode == "floor":
            return np.floor_divide(a, b)
        quotient = np.true_divide(a, b)
        return np.trunc(quotient).astype(np.result_type(a, b), copy=False)

    def backward(self, grad: Any) -> Any:
        zero = grad * 0
        return zero if self.needs_input_grad[0] else None, zero if self.needs_input_grad[
            1
        ] else None


class Remainder(Op):
    """``self - floor(self / other) * other``; d/dself = 1, d/dother = -floor(self/other)."""

    node_name = "RemainderBackward1"
    quiet = True
    saves = ("other", "self")
    saved_for = {"other": ("other",), "self": ("other",)}

    def forward(self, a: Any, b: Any) -> Any:
        return np.remainder(a, b)

    def backward(self, grad: Any) -> Any:
        b, a = self.unpack()
        grad_b = None
        if self.needs_input_grad[1]:
            grad_b = -grad * a.div(b, rounding_mode="floor")
        return grad if self.needs_input_grad[0] else None, grad_b


class RemainderScalar(Remainder):
    """``self % other`` with a Python-number ``other``."""

    node_name = "RemainderBackward0"


class Maximum(Op):
    """Elementwise maximum; at ties each input gets half the gradient."""

    saves = ("other", "self")

    def forward(self, a: Any, b: Any) -> Any:
        return np.maximum(a, b)

    def backward(self, grad: Any) -> Any:
        b, a = self.unpack()
        return _split_ties(grad, a > b, a == b, self.needs_input_grad)


class Minimum(Op):
    """Elementwise minimum; at ties each input gets half the gradient."""

    saves = ("other", "self")

    def forward(self, a: Any, b: Any) -> Any:
        return np.minimum(a, b)

    def backward(self, grad: Any) -> Any:
        b, a = self.unpack()
        return _split_ties(grad, a < b, a == b, self.needs_input_grad)


def _split_ties(grad: Any, first_wins: Any, tie: Any, needs: tuple[bool, ...]) -> Any:
    half = grad / 2
    zero = grad.new_zeros(())
    grad_a = grad_b = None
    if needs[0]:
        grad_a = grad.where(first_wins, half.where(tie, zero))
    if needs[1]:
        grad_b = zero.where(first_wins, half.where(tie, grad))
    return grad_a, grad_b


# ---------------------------------------------------------------- pow


class PowScalar(Op):
    """``self ** exponent`` with a Python-number exponent."""

    quiet = True
    node_name = "PowBackward0"
    input_names = ("self",)
    saves = ("self",)

    def __init__(self, exponent: Any) -> None:
        self.exponent = exponent

    def forward(self, a: Any) -> Any:
        return np.power(a, self.exponent)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        exponent = self.exponent
        if exponent == 0:
            return grad * 0
        return grad * _conj(a.pow(exponent - 1) * exponent)


class Pow(Op):
    """``self ** exponent`` with a tensor exponent."""

    quiet = True
    node_name = "PowBackward1"
    input_names = ("self", "exponent")
    saves = ("exponent", "self", "result")

    def forward(self, a: Any, b: Any) -> Any:
        return np.power(a, b)

    def backward(self, grad: Any) -> Any:
        b, a, result = self.unpack()
        needs = self.needs_input_grad
        grad_a = grad_b = None
        if needs[0]:
            grad_a = (grad * _conj(b * a.pow(b - 1))).masked_fill(b == 0, 0)
        if needs[1]:
            grad_b = grad * _conj(result * a.log())
            # 0 ** b has a zero gradient in b for real b >= 0 (torch's condition)
            grad_b = grad_b.masked_fill((a == 0) & _nonnegative_real(b), 0)
        return grad_a, grad_b


class RPow(Op):
    """``base ** exponent`` with a Python-number base."""

    quiet = True
    node_name = "PowBackward2"
    input_names = ("exponent",)
    saves = ("exponent", "result")

    def __init__(self, base: Any) -> None:
        self.base = base

    def forward(self, b: Any) -> Any:
        return np.power(self.base, b)

    def backward(self, grad: Any) -> Any:
        b, result = self.unpack()
        if self.base == 0:
            # d/db 0 ** b is 0 for real b >= 0 and -inf * 0 ** b (= -inf) for b < 0
            return (grad * _conj(result * -math.inf)).masked_fill(_nonnegative_real(b), 0)
        return grad * _conj(result * np.log(self.base).item())  # item(): a Python number


def _nonnegative_real(b: Any) -> Any:
    """Where the exponent ``b`` is a real number >= 0 (a zero imaginary part if complex)."""
    mask = b.real >= 0
    return mask & (b.imag == 0) if b.is_complex() else mask


# ---------------------------------------------------------------- where


class Where(Op):
    """``where(condition, self, other)``; the condition gets no gradient."""

    input_names = ("condition", "self", "other")
    saves = ("condition",)

    def forward(self, condition: Any, a: Any, b: Any) -> Any:
        return np.where(condition, a, b)

    def backward(self, grad: Any) -> Any:
        (condition,) = self.unpack()
        needs = self.needs_input_grad
        zero = grad.new_zeros(())
        return (
            None,
            grad.where(condition, zero) if needs[1] else None,
            zero.where(condition, grad) if needs[2] else None,
        )


def _conj(value: Any) -> Any:
    """The complex conjugate of a tensor or Python number (itself when real)."""
    return value.conjugate() if not isinstance(value, (int, float)) else value
