"""Elementwise math ops: exp/log, roots, trigonometric, activations, clamping and rounding.
The error function and the binary ops atan2, xlogy and lerp are in ``hookgrad.ops.special``.

Most ops are entries of the derivative table (``hookgrad.ops.table``): a torch schema,
a NumPy kernel and torch's formula per input. Backwards follow torch at
non-differentiable points: relu'(0) = 0, abs'(0) = 0, sqrt'(0) = inf, clamp passes the
gradient on its closed interval, rounding ops have a zero gradient. Derivatives are
conjugated (``grad * f'(z).conj()``) so that holomorphic functions give torch's gradient
for complex inputs too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.table import entry, helper


class UnaryOp(Op):
    """A hand-written elementwise op of one tensor."""

    input_names = ("self",)
    quiet = True  # log(0), sqrt(-1), exp(1000): inf / nan silently, as in torch


def _unary(schema: str, kernel: Any, formula: str, **options: Any) -> Any:
    """An entry of one tensor ``self`` whose kernel may leave its domain quietly."""
    return entry(schema, kernel, quiet=True, self=formula, **options)


def _real(schema: str, kernel: Any, formula: str, doc: str) -> Any:
    """A function of the reals (and complex numbers): integer and bool tensors compute in
    the default float dtype."""
    return _unary(schema, kernel, formula, promotion="float", doc=doc)


# ---------------------------------------------------------------- exponentials and logs

Exp = _real(
    "exp(Tensor self) -> Tensor", np.exp, "grad * result.conj()", "Elementwise ``e ** input``."
)
Exp2 = _real(
    "exp2(Tensor self) -> Tensor",
    np.exp2,
    "grad * result.conj() * M_LN2",
    "Elementwise ``2 ** input``.",
)
Expm1 = _real(
    "expm1(Tensor self) -> Tensor",
    np.expm1,
    "grad * (result.conj() + 1)",
    "Elementwise ``exp(input) - 1``, accurate near 0.",
)
Log = _real(
    "log(Tensor self) -> Tensor", np.log, "grad.div(self.conj())", "Elementwise natural logarithm."
)
Log2 = _real(
    "log2(Tensor self) -> Tensor",
    np.log2,
    "grad / (self.conj() * M_LN2)",
    "Elementwise base-2 logarithm.",
)
Log10 = _real(
    "log10(Tensor self) -> Tensor",
    np.log10,
    "grad / (self.conj() * M_LN10)",
    "Elementwise base-10 logarithm.",
)
Log1p = _real(
    "log1p(Tensor self) -> Tensor",
    np.log1p,
    "grad / (self + 1).conj()",
    "Elementwise ``log(1 + input)``, accurate near 0.",
)

# ---------------------------------------------------------------- roots and reciprocal

Sqrt = _real(
    "sqrt(Tensor self) -> Tensor",
    np.sqrt,
    "grad / (2 * result.conj())",
    "Elementwise square root; its gradient at 0 is inf.",
)
Rsqrt = _real(
    "rsqrt(Tensor self) -> Tensor",
    lambda a: 1 / np.sqrt(a),
    "-0.5 * grad * result.pow(3).conj()",
    "Elementwise ``1 / sqrt(input)``.",
)
Reciprocal = _real(
    "reciprocal(Tensor self) -> Tensor",
    np.reciprocal,
    "-grad * (result * result).conj()",
    "Elementwise ``1 / input``.",
)

# ---------------------------------------------------------------- sign and magnitude


def sign_array(a: Any) -> Any:
    """-1, 0 or 1 in ``a``'s dtype; NaN and -0.0 give +0 as in torch."""
    if a.dtype.kind == "b":
        return a.copy()
    return np.subtract(a > 0, a < 0, dtype=a.dtype)


# ``|x|``: its gradient is ``grad * sgn(x)``, so 0 at 0 (and at NaN).
Abs = _unary("abs(Tensor self) -> Tensor", np.abs, "grad * self.sgn()")
Sign = _unary("sign(Tensor self) -> Tensor", sign_array, "zeros_like(grad)")


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

Sin = _real("sin(Tensor self) -> Tensor", np.sin, "grad * self.cos().conj()", "Elementwise sine.")
Cos = _real(
    "cos(Tensor self) -> Tensor", np.cos, "grad * -self.sin().conj()", "Elementwise cosine."
)
Tan = _real(
    "tan(Tensor self) -> Tensor",
    np.tan,
    "grad * (1 + result.pow(2)).conj()",
    "Elementwise tangent.",
)
Asin = _real(
    "asin(Tensor self) -> Tensor",
    np.arcsin,
    "grad * (-self * self + 1).rsqrt().conj()",
    "Elementwise inverse sine; NaN outside [-1, 1] for real input.",
)
Acos = _real(
    "acos(Tensor self) -> Tensor",
    np.arccos,
    "grad * -((-self * self + 1).rsqrt()).conj()",
    "Elementwise inverse cosine; NaN outside [-1, 1] for real input.",
)
Atan = _real(
    "atan(Tensor self) -> Tensor",
    np.arctan,
    "grad / (self * self + 1).conj()",
    "Elementwise inverse tangent.",
)
Sinh = _real(
    "sinh(Tensor self) -> Tensor",
    np.sinh,
    "grad * self.cosh().conj()",
    "Elementwise hyperbolic sine.",
)
Cosh = _real(
    "cosh(Tensor self) -> Tensor",
    np.cosh,
    "grad * self.sinh().conj()",
    "Elementwise hyperbolic cosine.",
)
Tanh = _real(
    "tanh(Tensor self) -> Tensor",
    np.tanh,
    "tanh_backward(grad, result)",
    "Elementwise hyperbolic tangent.",
)
Asinh = _real(
    "asinh(Tensor self) -> Tensor",
    np.arcsinh,
    "grad * (self.pow(2) + 1).rsqrt().conj()",
    "Elementwise inverse hyperbolic sine.",
)
# sqrt(x - 1) * sqrt(x + 1), not sqrt(x*x - 1): the right branch for complex x.
Acosh = _real(
    "acosh(Tensor self) -> Tensor",
    np.arccosh,
    "grad / ((self - 1).sqrt() * (self + 1).sqrt()).conj()",
    "Elementwise inverse hyperbolic cosine; NaN below 1 for real input.",
)
Atanh = _real(
    "atanh(Tensor self) -> Tensor",
    np.arctanh,
    "grad * 1 / (1 - self.pow(2)).conj()",
    "Elementwise inverse hyperbolic tangent; NaN outside [-1, 1] for real input.",
)

TanhBackward = entry(
    "tanh_backward(Tensor grad_output, Tensor output) -> Tensor",
    lambda grad_output, output: grad_output * np.conj(1 - output * output),
    grad_output="tanh_backward(grad, output.conj())",
    output="grad.conj() * (-2 * output.conj() * grad_output).conj()",
)

# ---------------------------------------------------------------- activations


def _sigmoid(a: Any) -> Any:
    if a.dtype.kind == "c":
        return 1 / (1 + np.exp(-a))
    # exp of a non-positive number only: no overflow, full precision for x << 0.
    small = np.exp(-np.abs(a))
    return np.where(a >= 0, 1, small) / (1 + small)


Sigmoid = _real(
    "sigmoid(Tensor self) -> Tensor",
    _sigmoid,
    "sigmoid_backward(grad, result)",
    "Elementwise logistic function ``1 / (1 + exp(-input))``.",
)
SigmoidBackward = entry(
    "sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor",
    lambda grad_output, output: grad_output * np.conj((1 - output) * output),
    grad_output="sigmoid_backward(grad, output.conj())",
    output="grad.conj() * grad_output * (-2 * output.conj() + 1)",
)

# ``max(x, 0)``; the gradient is 0 where the result is <= 0 (so relu'(0) = 0).
Relu = entry(
    "relu(Tensor self) -> Tensor",
    lambda a: np.maximum(a, 0),
    self="threshold_backward(grad, result, 0)",
)
# NOTE: a product with the mask, not ``np.where``: several times faster on large arrays.
# ``~(x <= t)``, not ``x > t``: torch passes the gradient where ``x`` is NaN.
ThresholdBackward = entry(
    "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    lambda grad_output, self, threshold: grad_output * ~(self <= threshold),
    grad_output="threshold_backward(grad, self, threshold)",
    self="zeros_like(grad)",
)


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


helper(
    "clamp_backward(grad, self, min, max)",
    "where(self >= min, grad, 0) if max is None else where(self <= max, grad, 0) if min is None"
    " else where((self >= min) & (self <= max), grad, 0)",
)


def _clamp(a: Any, min: Any, max: Any) -> Any:
    if min is not None:
        a = np.maximum(a, min)
    if max is not None:
        a = np.minimum(a, max)
    return a


# ``min(max(x, min), max)`` with Python-number bounds (either may be None); the gradient
# passes where ``min <= x <= max``, bounds included.
Clamp = entry(
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    _clamp,
    node="ClampBackward1",
    self="clamp_backward(grad, self, min, max)",
)
ClampMin = entry(
    "clamp_min(Tensor self, Scalar min) -> Tensor",
    np.maximum,
    self="where(self >= min, grad, 0)",
)
ClampMax = entry(
    "clamp_max(Tensor self, Scalar max) -> Tensor",
    np.minimum,
    self="where(self <= max, grad, 0)",
)


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


def _keep_integers(function: Any) -> Any:
    """A rounding kernel that returns integer and bool arrays unchanged (as copies)."""
    return lambda a: a.copy() if a.dtype.kind in "iub" else function(a)


# Rounding: piecewise constant, so a zero gradient (torch's, everywhere).
Floor = _unary("floor(Tensor self) -> Tensor", _keep_integers(np.floor), "zeros_like(grad)")
Ceil = _unary("ceil(Tensor self) -> Tensor", _keep_integers(np.ceil), "zeros_like(grad)")
Trunc = _unary("trunc(Tensor self) -> Tensor", _keep_integers(np.trunc), "zeros_like(grad)")
# Round half to even; with ``decimals``, at that many digits after the point.
Round = _unary("round(Tensor self) -> Tensor", _keep_integers(np.rint), "zeros_like(grad)")
RoundDecimals = _unary(
    "round.decimals(Tensor self, *, int decimals) -> Tensor",
    np.round,
    "zeros_like(grad)",
    node="RoundBackward1",
)
# ``x - trunc(x)``: the gradient passes unchanged.
Frac = _unary("frac(Tensor self) -> Tensor", lambda a: a - np.trunc(a), "grad")
# NaN and infinities replaced by finite numbers: the gradient is 0 where they were.
NanToNum = _unary(
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    lambda a, nan, posinf, neginf: np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf),
    "grad * self.isfinite()",
)
