"""Elementwise math ops: exp/log, roots, trigonometric, activations, the error function,
clamping and rounding, plus the small binary ops of the same kind (atan2, xlogy, lerp).

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
_SQRT_PI = math.sqrt(math.pi)


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


# ---------------------------------------------------------------- error function

# erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n 2^n x^(2n+1) / (2n+1)!!: positive terms (no
# cancellation); 32 of them reach float64 precision for |x| < 2. Highest power first.
_ERF_SERIES = np.cumprod([1.0] + [2.0 / (2 * n + 1) for n in range(1, 32)])[::-1].copy()
_SERIES_LIMIT = 2.0
# Beyond it, erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))).
_FRACTION_DEPTH = 40


def _erf_series(x: Any) -> Any:
    square = x * x
    total = np.full_like(x, _ERF_SERIES[0])
    for coefficient in _ERF_SERIES[1:]:
        total *= square
        total += coefficient
    total *= x
    total *= np.exp(-square)
    return total * (2 / _SQRT_PI)


def _erfc_fraction(x: Any) -> Any:
    """erfc for x >= _SERIES_LIMIT (or NaN) by its continued fraction."""
    x = np.minimum(x, 30.0)  # erfc underflows to 0 long before; keeps inf finite
    tail = x.copy()
    for k in range(_FRACTION_DEPTH, 0, -1):
        np.divide(k / 2, tail, out=tail)
        tail += x
    # exp(-x*x) without the rounding error of x*x, which exp magnifies to ~1e-13 near
    # x = 26: split x = high + low with high*high exact.
    high = np.round(x * 4096) / 4096
    low = x - high
    return np.exp(-high * high) * np.exp(-low * (high + x)) / _SQRT_PI / tail


def erf_array(x: Any) -> Any:
    """The error function of a 1-d float64 array (about 1e-15 relative accuracy)."""
    small = np.abs(x) < _SERIES_LIMIT
    if small.all():
        return _erf_series(x)
    out = np.empty_like(x)
    out[small] = _erf_series(x[small])
    large = ~small
    out[large] = np.copysign(1 - _erfc_fraction(np.abs(x[large])), x[large])
    return out


def erfc_array(x: Any) -> Any:
    """``1 - erf(x)`` of a 1-d float64 array, accurate in relative terms for large ``x``."""
    small = np.abs(x) < _SERIES_LIMIT
    if small.all():
        return 1 - _erf_series(x)
    out = np.empty_like(x)
    out[small] = 1 - _erf_series(x[small])
    large = ~small
    tail = _erfc_fraction(np.abs(x[large]))
    out[large] = np.where(x[large] > 0, tail, 2 - tail)
    return out


def erfinv_array(y: Any) -> Any:
    """The inverse error function of a 1-d float64 array: Winitzki's closed-form estimate
    (error < 2e-3) polished by two Halley steps (cubic convergence) on ``erf(x) - y``."""
    magnitude = np.abs(y)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        log_term = np.log1p(-magnitude * magnitude)
        a = 0.147
        shift = 2 / (math.pi * a) + log_term / 2
        x = np.sqrt(np.sqrt(shift * shift - log_term / a) - shift)
        # Near |y| = 1 the residual is computed as (1 - |y|) - erfc(x): 1 - |y| is exact.
        tail = magnitude > 0.5
        residual = np.empty_like(x)
        for _ in range(2):
            residual[tail] = (1 - magnitude[tail]) - erfc_array(x[tail])
            residual[~tail] = erf_array(x[~tail]) - magnitude[~tail]
            step = residual * (_SQRT_PI / 2) * np.exp(x * x)
            x = x - step / (1 + x * step)
    x[magnitude == 1] = math.inf
    return np.copysign(x, y)


def _in_float64(function: Any, a: Any) -> Any:
    """``function`` of a flat float64 copy of ``a``, back in ``a``'s shape and dtype."""
    flat = a.astype(np.float64).reshape(-1)
    return function(flat).reshape(a.shape).astype(a.dtype, copy=False)


class Erf(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return _in_float64(erf_array, a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad * (-a * a).exp() * (2 / _SQRT_PI)


class Erfc(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return _in_float64(erfc_array, a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad * (-a * a).exp() * (-2 / _SQRT_PI)


class Erfinv(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return _in_float64(erfinv_array, a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        root = a.erfinv()
        return grad * (root * root).exp() * (_SQRT_PI / 2)


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


# ---------------------------------------------------------------- binary: atan2, xlogy, lerp


class Atan2(Op):
    """``atan2(self, other)``, the angle of the point (other, self); 0 gradient at (0, 0)."""

    saves = ("self", "other")

    def forward(self, a: Any, b: Any) -> Any:
        return np.arctan2(a, b)

    def backward(self, grad: Any) -> Any:
        a, b = self.unpack()
        square = a * a + b * b
        at_origin = square == 0
        needs = self.needs_input_grad
        return (
            (grad * b / square).masked_fill(at_origin, 0) if needs[0] else None,
            (grad * -a / square).masked_fill(at_origin, 0) if needs[1] else None,
        )


def xlogy_array(a: Any, b: Any) -> Any:
    """``a * log(b)``, and 0 where ``a == 0`` unless ``b`` is NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        product = a * np.log(b)
    return np.where((a == 0) & ~np.isnan(b), 0, product)


def _xlogy_grad_self(grad: Any, a: Any, b: Any) -> Any:
    # torch: log(other), except 0 where self == 0 and log(other) is -inf or NaN.
    return grad * b.log().masked_fill((a == 0) & (b <= 0), 0)


class Xlogy(Op):
    saves = ("self", "other")

    def forward(self, a: Any, b: Any) -> Any:
        return xlogy_array(a, b)

    def backward(self, grad: Any) -> Any:
        a, b = self.unpack()
        needs = self.needs_input_grad
        return (
            _xlogy_grad_self(grad, a, b) if needs[0] else None,
            grad * a / b if needs[1] else None,
        )


class XlogyNumberSelf(Op):
    """``xlogy`` with a Python-number ``self``."""

    node_name = "XlogyBackward1"
    input_names = ("other",)
    saves = ("other",)

    def __init__(self, value: Any) -> None:
        self.self = value  # read back as ``_saved_self``, like torch

    def forward(self, b: Any) -> Any:
        return xlogy_array(np.asarray(self.self, b.dtype), b)

    def backward(self, grad: Any) -> Any:
        (b,) = self.unpack()
        return grad * self.self / b


class XlogyNumberOther(Op):
    """``xlogy`` with a Python-number ``other``."""

    node_name = "XlogyBackward2"
    input_names = ("self",)
    saves = ("self",)

    def __init__(self, value: Any) -> None:
        self.other = value

    def forward(self, a: Any) -> Any:
        return xlogy_array(a, np.asarray(self.other, a.dtype))

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return _xlogy_grad_self(grad, a, grad.new_full((), self.other))


def lerp_array(start: Any, end: Any, weight: Any) -> Any:
    """``start + weight * (end - start)``, computed from the nearer end as torch does."""
    difference = end - start
    return np.where(
        np.abs(weight) < 0.5, start + weight * difference, end - difference * (1 - weight)
    )


class Lerp(Op):
    """``lerp(self, end, weight)`` with a Python-number weight."""

    input_names = ("self", "end")

    def __init__(self, weight: Any) -> None:
        self.weight = weight

    def forward(self, a: Any, end: Any) -> Any:
        return lerp_array(a, end, self.weight)

    def backward(self, grad: Any) -> Any:
        weight = self.weight
        conj = weight.conjugate()
        needs = self.needs_input_grad
        return grad * (1 - conj) if needs[0] else None, grad * conj if needs[1] else None


class LerpTensor(Op):
    """``lerp(self, end, weight)`` with a tensor weight."""

    node_name = "LerpBackward1"
    input_names = ("self", "end", "weight")
    saves = ("self", "end", "weight")

    def forward(self, a: Any, end: Any, weight: Any) -> Any:
        return lerp_array(a, end, weight)

    def backward(self, grad: Any) -> Any:
        a, end, weight = self.unpack()
        needs = self.needs_input_grad
        return (
            grad * (1 - weight).conj() if needs[0] else None,
            grad * weight.conj() if needs[1] else None,
            grad * (end - a).conj() if needs[2] else None,
        )
