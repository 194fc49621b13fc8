"""Elementwise math ops: exp/log, roots, trigonometric, activations, clamping and rounding.
The error function and the binary ops atan2, xlogy and lerp are in ``hookgrad.ops.special``.

Each backward is written with tensor ops (so it is differentiable itself) and follows
torch at non-differentiable points: relu'(0) = 0, abs'(0) = 0, sqrt'(0) = inf, clamp
passes the gradient on its closed interval, rounding ops have a zero gradient.
Derivatives are conjugated (``grad * f'(z).conj()``) so that holomorphic functions
give torch's gradient for complex inputs too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.base import Op

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


class UnaryOp(Op):
    input_names = ("self",)
    quiet = True  # log(0), sqrt(-1), exp(1000): inf / nan silently, as in torch


# ---------------------------------------------------------------- exponentials and logs


class Exp(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.exp(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad * result.conj()


class Exp2(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.exp2(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad * (result * _LN2).conj()


class Expm1(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.expm1(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad * (result + 1).conj()


class Log(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.log(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / a.conj()


class Log2(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.log2(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / (a * _LN2).conj()


class Log10(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.log10(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / (a * _LN10).conj()


class Log1p(UnaryOp):
    node_name = "Log1PBackward0"
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.log1p(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / (a + 1).conj()


# ---------------------------------------------------------------- roots and reciprocal


class Sqrt(UnaryOp):
    """``sqrt``; the gradient at 0 is ``inf`` (``grad / (2 * result)``)."""

    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.sqrt(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad / (result * 2).conj()


class Rsqrt(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return 1 / np.sqrt(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad * (result.pow(3) * -0.5).conj()


class Reciprocal(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.reciprocal(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return -grad * (result * result).conj()


# ---------------------------------------------------------------- sign and magnitude


class Abs(UnaryOp):
    """``|x|``; its gradient is ``grad * sgn(x)``, so 0 at 0 (and at NaN)."""

    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.abs(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad * a.sgn()


def sign_array(a: Any) -> Any:
    """-1, 0 or 1 in ``a``'s dtype; NaN and -0.0 give +0 as in torch."""
    if a.dtype.kind == "b":
        return a.copy()
    return np.subtract(a > 0, a < 0, dtype=a.dtype)


class Sign(UnaryOp):
    def forward(self, a: Any) -> Any:
        return sign_array(a)

    def backward(self, grad: Any) -> Any:
        return grad.new_zeros(grad.shape)


class Sgn(UnaryOp):
    """``x / |x|`` (0 at 0); the sign for real tensors."""

    saves = ("self", "result")

    def forward(self, a: Any) -> Any:
        if a.dtype.kind != "c":
            return sign_array(a)
        magnitude = np.abs(a)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(magnitude == 0, 0, a / magnitude)

    def backward(self, grad: Any) -> Any:
        a, result = self.unpack()
        if not a.is_complex():
            return grad.new_zeros(grad.shape)
        # Only the component of ``grad`` orthogonal to ``sgn`` survives, scaled by 1/|x|.
        along = grad * result.conj()
        along = (along + along.conj()) / 2
        magnitude = a.abs()
        return ((grad - along * result) / magnitude).masked_fill(magnitude == 0, 0)


class Angle(UnaryOp):
    """The argument of a complex number (in ``(-pi, pi]``); for real numbers 0, or pi
    below zero (NaN stays NaN).

    For complex ``z`` the gradient is ``grad * i / conj(z)`` (``i z / |z|^2``), 0 at 0;
    for real input it is 0 everywhere.
    """

    saves = ("self",)

    def forward(self, a: Any) -> Any:
        if a.dtype.kind == "c":
            return np.angle(a)
        return np.where(a < 0, np.pi, np.where(np.isnan(a), a, 0)).astype(a.dtype)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        if not a.is_complex():
            return grad.new_zeros(grad.shape)
        return (grad * 1j / a.conj()).masked_fill(a == 0, 0)


# ---------------------------------------------------------------- trigonometric


class Sin(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.sin(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad * a.cos().conj()


class Cos(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.cos(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad * (-a.sin()).conj()


class Tan(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.tan(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad * (result * result + 1).conj()


class Asin(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.arcsin(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / (1 - a * a).sqrt().conj()


class Acos(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.arccos(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return -grad / (1 - a * a).sqrt().conj()


class Atan(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.arctan(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / (a * a + 1).conj()


class Sinh(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.sinh(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad * a.cosh().conj()


class Cosh(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.cosh(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad * a.sinh().conj()


class Tanh(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.tanh(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad * (1 - result * result).conj()


class Asinh(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.arcsinh(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / (a * a + 1).sqrt().conj()


class Acosh(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.arccosh(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        # sqrt(x - 1) * sqrt(x + 1), not sqrt(x*x - 1): the right branch for complex x.
        return grad / ((a - 1).sqrt() * (a + 1).sqrt()).conj()


class Atanh(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.arctanh(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / (1 - a * a).conj()


# ---------------------------------------------------------------- activations


class Sigmoid(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        if a.dtype.kind == "c":
            return 1 / (1 + np.exp(-a))
        # exp of a non-positive number only: no overflow, full precision for x << 0.
        small = np.exp(-np.abs(a))
        return np.where(a >= 0, 1, small) / (1 + small)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad * (result * (1 - result)).conj()


class Relu(UnaryOp):
    """``max(x, 0)``; the gradient is 0 where the result is <= 0 (so relu'(0) = 0)."""

    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.maximum(a, 0)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad.masked_fill(result <= 0, 0)


class Logit(UnaryOp):
    """``log(x / (1 - x))``, with ``x`` first clamped to ``[eps, 1 - eps]`` if ``eps``.

    Outside that interval the gradient is 0; without ``eps`` it is NaN outside [0, 1].
    """

    saves = ("self",)

    def __init__(self, eps: float | None) -> None:
        self.eps = eps

    def forward(self, a: Any) -> Any:
        if self.eps is not None:
            a = np.clip(a, self.eps, 1 - self.eps)
        return np.log(a / (1 - a))

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        # |x (1 - x)| is x (1 - x) on [0, 1], but +0 rather than -0 at x = -0.0 (torch: +inf)
        grad = grad / (a * (1 - a)).abs()
        if self.eps is None:
            return grad.masked_fill((a < 0) | (a > 1), math.nan)
        return grad.masked_fill((a < self.eps) | (a > 1 - self.eps), 0)


# ---------------------------------------------------------------- clamping


class Clamp(UnaryOp):
    """``min(max(x, min), max)`` with Python-number bounds (either may be None).

    The gradient passes where ``min <= x <= max``, bounds included.
    """

    node_name = "ClampBackward1"
    saves = ("self",)

    def __init__(self, min: Any, max: Any) -> None:
        self.min = min
        self.max = max

    def forward(self, a: Any) -> Any:
        if self.min is not None:
            a = np.maximum(a, self.min)
        if self.max is not None:
            a = np.minimum(a, self.max)
        return a

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        if self.min is None:
            inside = a <= self.max
        elif self.max is None:
            inside = a >= self.min
        else:
            inside = (a >= self.min) & (a <= self.max)
        return grad.where(inside, 0.0)


class ClampMin(Clamp):
    node_name = "ClampMinBackward0"

    def __init__(self, min: Any) -> None:
        super().__init__(min, None)


class ClampMax(Clamp):
    node_name = "ClampMaxBackward0"

    def __init__(self, max: Any) -> None:
        super().__init__(None, max)


def _clamp_grads(grad: Any, a: Any, low: Any, high: Any, needs: tuple[bool, ...]) -> Any:
    """Gradients of ``clamp(a, low, high)`` for tensor bounds (either may be None).

    ``a`` gets it on ``[low, high]``; a bound gets it where it is the result: ``low``
    where ``a < low < high``, ``high`` where ``a > high`` or ``low > high``.
    """
    if low is None:
        inside, to_low, to_high = a <= high, None, a > high
    elif high is None:
        inside, to_low, to_high = a >= low, a < low, None
    else:
        inside = (a >= low) & (a <= high)
        to_low = (a < low) & (low < high)
        to_high = (a > high) | (low > high)
    return (
        grad.where(inside, 0.0) if needs[0] else None,
        grad.where(to_low, 0.0) if to_low is not None and needs[1] else None,
        grad.where(to_high, 0.0) if to_high is not None and needs[2] else None,
    )


class ClampTensor(Op):
    """``clamp`` with tensor bounds; a missing bound is None (an input with no edge)."""

    node_name = "ClampBackward0"
    input_names = ("self", "min", "max")
    saves = ("self", "min", "max")

    def forward(self, a: Any, low: Any, high: Any) -> Any:
        if low is not None:
            a = np.maximum(a, low)
        if high is not None:
            a = np.minimum(a, high)
        return a

    def backward(self, grad: Any) -> Any:
        a, low, high = self.unpack()
        return _clamp_grads(grad, a, low, high, self.needs_input_grad)


class ClampMinTensor(Op):
    node_name = "ClampMinBackward1"
    input_names = ("self", "min")
    saves = ("self", "min")

    def forward(self, a: Any, low: Any) -> Any:
        return np.maximum(a, low)

    def backward(self, grad: Any) -> Any:
        a, low = self.unpack()
        return _clamp_grads(grad, a, low, None, (*self.needs_input_grad, False))[:2]


class ClampMaxTensor(Op):
    node_name = "ClampMaxBackward1"
    input_names = ("self", "max")
    saves = ("self", "max")

    def forward(self, a: Any, high: Any) -> Any:
        return np.minimum(a, high)

    def backward(self, grad: Any) -> Any:
        a, high = self.unpack()
        grad_a, _, grad_high = _clamp_grads(
            grad, a, None, high, (self.needs_input_grad[0], False, self.needs_input_grad[1])
        )
        return grad_a, grad_high


# ---------------------------------------------------------------- rounding


class PiecewiseConstant(UnaryOp):
    """An op whose gradient is zero wherever it is defined (torch uses zero everywhere)."""

    def backward(self, grad: Any) -> Any:
        return grad.new_zeros(grad.shape)


def _keep_integers(function: Any, a: Any) -> Any:
    return a.copy() if a.dtype.kind in "iub" else function(a)


class Floor(PiecewiseConstant):
    def forward(self, a: Any) -> Any:
        return _keep_integers(np.floor, a)


class Ceil(PiecewiseConstant):
    def forward(self, a: Any) -> Any:
        return _keep_integers(np.ceil, a)


class Trunc(PiecewiseConstant):
    def forward(self, a: Any) -> Any:
        return _keep_integers(np.trunc, a)


class Round(PiecewiseConstant):
    """Round half to even."""

    def forward(self, a: Any) -> Any:
        return _keep_integers(np.rint, a)


class RoundDecimals(PiecewiseConstant):
    """Round half to even at ``decimals`` digits after the point (negative: before)."""

    node_name = "RoundBackward1"

    def __init__(self, decimals: int) -> None:
        self._decimals = decimals  # torch does not expose it as ``_saved_decimals``

    def forward(self, a: Any) -> Any:
        return np.round(a, self._decimals)


class Frac(UnaryOp):
    """``x - trunc(x)``; the gradient passes unchanged."""

    def forward(self, a: Any) -> Any:
        return a - np.trunc(a)

    def backward(self, grad: Any) -> Any:
        return grad


class NanToNum(UnaryOp):
    """Replace NaN and infinities by finite numbers; the gradient is 0 where they were."""

    node_name = "NanToNumBackward0"
    saves = ("self",)

    def __init__(self, nan: float, posinf: float | None, neginf: float | None) -> None:
        self._replacements = (nan, posinf, neginf)

    def forward(self, a: Any) -> Any:
        nan, posinf, neginf = self._replacements
        return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad * a.isfinite()
