"""Special functions (the error function erf/erfc/erfinv) and the binary elementwise ops
atan2, xlogy and lerp.

Backwards are written with tensor ops, so they are differentiable themselves; at
non-differentiable points they follow torch (atan2 has a 0 gradient at the origin, xlogy's
gradient for ``self`` is 0 where ``self == 0`` and ``log(other)`` is not finite).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.unary import UnaryOp

_SQRT_PI = math.sqrt(math.pi)

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
