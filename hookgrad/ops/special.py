"""Special functions (the error function erf/erfc/erfinv) and the binary elementwise ops
atan2, xlogy and lerp.

Every op is an entry of the derivative table (``hookgrad.ops.table``) with torch's
formulas; at non-differentiable points they follow torch (atan2 has a 0 gradient at the
origin, xlogy's gradient for ``self`` is 0 where ``self == 0`` and ``log(other)`` is not
finite).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.table import entry, helper

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


# The derivative of erf is 2/sqrt(pi) exp(-x^2); erfinv's is its reciprocal at erfinv(x).
Erf = entry(
    "erf(Tensor self) -> Tensor",
    lambda a: _in_float64(erf_array, a),
    quiet=True,
    promotion="float",
    self="2.0 / M_PI ** 0.5 * exp(-(self.pow(2))) * grad",
    elementwise=True,
)
Erfc = entry(
    "erfc(Tensor self) -> Tensor",
    lambda a: _in_float64(erfc_array, a),
    quiet=True,
    promotion="float",
    self="-2.0 / M_PI ** 0.5 * exp(-(self.pow(2))) * grad",
    elementwise=True,
)
Erfinv = entry(
    "erfinv(Tensor self) -> Tensor",
    lambda a: _in_float64(erfinv_array, a),
    quiet=True,
    promotion="float",
    self="0.5 * M_PI ** 0.5 * exp(self.erfinv().pow(2)) * grad",
    elementwise=True,
)


# ---------------------------------------------------------------- binary: atan2, xlogy, lerp

# ``1 / x``, and 0 where ``x == 0``: atan2's gradient is 0 at the origin, as torch's.
helper("reciprocal_or_zero(x)", "x.reciprocal().masked_fill(x == 0, 0)")

# ``atan2(self, other)``, the angle of the point (other, self). torch computes both
# gradients in one ``atan2_backward``; here one formula per input.
Atan2 = entry(
    "atan2(Tensor self, Tensor other) -> Tensor",
    np.arctan2,
    self="grad * other * reciprocal_or_zero(self * self + other * other)",
    other="grad * -self * reciprocal_or_zero(self * self + other * other)",
    elementwise=True,
)


def xlogy_array(a: Any, b: Any) -> Any:
    """``a * log(b)``, and 0 where ``a == 0`` unless ``b`` is NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        product = a * np.log(b)
    return np.where((a == 0) & ~np.isnan(b), 0, product)


# ``self * log(other)``; the gradient for ``self`` is 0 where ``self == 0`` and
# ``log(other)`` is not finite (torch's note on xlogy at x = 0, y <= 0).
Xlogy = entry(
    "xlogy.Tensor(Tensor self, Tensor other) -> Tensor",
    xlogy_array,
    self="xlogy(grad, other).masked_fill((self == 0.0) & (other <= 0.0), 0.0)",
    other="grad * self / other",
    elementwise=True,
)
# ``xlogy`` with a Python-number ``self`` (read back as ``_saved_self``, like torch).
XlogyNumberSelf = entry(
    "xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor",
    lambda b, value: xlogy_array(np.asarray(value, b.dtype), b),
    node="XlogyBackward1",
    other="grad * self / other",
)
# ``xlogy`` with a Python-number ``other``.
XlogyNumberOther = entry(
    "xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor",
    lambda a, value: xlogy_array(a, np.asarray(value, a.dtype)),
    node="XlogyBackward2",
    self="xlogy(grad, other) if other > 0.0 else xlogy(grad, other).masked_fill(self == 0.0, 0.0)",
)


def lerp_array(start: Any, end: Any, weight: Any) -> Any:
    """``start + weight * (end - start)``, computed from the nearer end as torch does."""
    difference = end - start
    return np.where(
        np.abs(weight) < 0.5, start + weight * difference, end - difference * (1 - weight)
    )


# ``lerp(self, end, weight)`` with a Python-number weight, then with a tensor weight.
Lerp = entry(
    "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
    lerp_array,
    self="grad * (1 - weight.conj())",
    end="grad * weight.conj()",
    elementwise=True,
)
LerpTensor = entry(
    "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
    lerp_array,
    node="LerpBackward1",
    self="grad * (1 - weight).conj()",
    end="grad * weight.conj()",
    weight="grad * (end - self).conj()",
    elementwise=True,
)
