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

# NOTE: imported for its entries: the special functions' public entries (lgamma,
# digamma ...) are generated with the unary ones (``hookgrad.tensor.functions.generated``).
from hookgrad.ops import special  # noqa: F401
from hookgrad.ops.table import entry, helper


def _unary(schema: str, kernel: Any, formula: str, **options: Any) -> Any:
    """An entry of one tensor ``self`` whose kernel may leave its domain quietly."""
    return entry(schema, kernel, quiet=True, self=formula, **options)


def _real(schema: str, kernel: Any, formula: str, doc: str, **options: Any) -> Any:
    """A function of the reals (and complex numbers) with generated public function,
    method and in-place variant: integer and bool tensors compute in the default float
    dtype."""
    return _unary(schema, kernel, formula, promotion="float", public=True, doc=doc, **options)


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


def _sgn(a: Any) -> Any:
    if a.dtype.kind != "c":
        return sign_array(a)
    magnitude = np.abs(a)
    return np.where(magnitude == 0, 0, a / np.where(magnitude == 0, 1, magnitude))


def _angle(a: Any) -> Any:
    if a.dtype.kind == "c":
        return np.angle(a)
    return np.where(a < 0, np.pi, np.where(np.isnan(a), a, 0)).astype(a.dtype)


# sgn: only the part of ``grad`` orthogonal to ``sgn(x)`` survives, scaled by 1/|x|; 0 for
# real x. angle: ``grad * i z / |z|^2`` for complex z (0 at 0), 0 for real input.
helper(
    "sgn_backward(x, gx, sgn)",
    "((gx - (sgn * sgn) * gx.conj()) / (2.0 * x.abs())).masked_fill(x.abs() == 0.0, 0.0)"
    " if x.is_complex() else zeros_like(sgn)",
)
helper(
    "angle_backward(grad, self)",
    "where(self == 0.0, 0.0, grad * self / self.abs().pow(2) * 1j)"
    " if self.is_complex() else zeros_like(self)",
)

# ``x / |x|`` (0 at 0); the sign for real tensors.
Sgn = _unary("sgn(Tensor self) -> Tensor", _sgn, "sgn_backward(self, grad, result)")
# The argument of a complex number (in ``(-pi, pi]``); for real numbers 0, or pi below
# zero (NaN stays NaN).
Angle = _unary("angle(Tensor self) -> Tensor", _angle, "angle_backward(grad, self)")


# ---------------------------------------------------------------- angles

_PI_180 = math.pi / 180


def _angle_conversion(name: str, factor: float) -> Any:
    """``x * factor`` (a number rounded to the element's type, as torch's ``mul`` by a
    Scalar); complex tensors are refused with torch's error."""

    def kernel(a: Any) -> Any:
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return a * factor

    return kernel


helper("deg2rad_backward(grad)", "grad * (M_PI / 180.0)")
helper("rad2deg_backward(grad)", "grad * (180.0 / M_PI)")

Deg2rad = _real(
    "deg2rad(Tensor self) -> Tensor",
    _angle_conversion("deg2rad", _PI_180),
    "deg2rad_backward(grad)",
    "Elementwise degrees to radians, ``input * pi / 180``. Example: "
    "``hookgrad.deg2rad(hookgrad.tensor([180.0]))`` is ``tensor([3.1416])``.",
    elementwise=True,
)
Rad2deg = _real(
    "rad2deg(Tensor self) -> Tensor",
    _angle_conversion("rad2deg", 180 / math.pi),
    "rad2deg_backward(grad)",
    "Elementwise radians to degrees, ``input * 180 / pi``. Example: "
    "``hookgrad.rad2deg(hookgrad.tensor([3.14159265]))`` is ``tensor([180.])``.",
    elementwise=True,
)


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
    aliases=("arcsin",),
)
Acos = _real(
    "acos(Tensor self) -> Tensor",
    np.arccos,
    "grad * -((-self * self + 1).rsqrt()).conj()",
    "Elementwise inverse cosine; NaN outside [-1, 1] for real input.",
    aliases=("arccos",),
)
Atan = _real(
    "atan(Tensor self) -> Tensor",
    np.arctan,
    "grad / (self * self + 1).conj()",
    "Elementwise inverse tangent.",
    aliases=("arctan",),
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
    aliases=("arcsinh",),
)
Acosh = _real(
    "acosh(Tensor self) -> Tensor",
    np.arccosh,
    # For complex x, sqrt(x - 1) * sqrt(x + 1): the branch torch's values take.
    "grad / ((self - 1).sqrt() * (self + 1).sqrt()).conj() if self.is_complex()"
    " else grad * (self * self - 1).rsqrt()",
    "Elementwise inverse hyperbolic cosine; NaN below 1 for real input.",
    aliases=("arccosh",),
)
Atanh = _real(
    "atanh(Tensor self) -> Tensor",
    np.arctanh,
    "grad / (1 - self.pow(2)).conj()",
    "Elementwise inverse hyperbolic tangent; NaN outside [-1, 1] for real input.",
    aliases=("arctanh",),
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


def _logit(a: Any, eps: float | None) -> Any:
    if eps is not None:
        a = np.clip(a, eps, 1 - eps)
    return np.log(a / (1 - a))


# NOTE: torch's formula asks ``GradMode::is_enabled()``. Formulas run on arrays only when
# no graph is recorded and on tensors only when one is, so each side answers it; on
# arrays ``logit_backward`` is torch's kernel, whose values differ from the composite's
# at -0.0 and NaN.
helper(
    "infinitely_differentiable_logit_backward(grad, self, eps)",
    "where((self >= 0.0) & (self <= 1.0), grad / (self * (1.0 - self)), float('nan'))"
    " if eps is None"
    " else where((self >= eps) & (self <= 1.0 - eps), grad / (self * (1.0 - self)), 0.0)",
)

# ``log(x / (1 - x))``, with ``x`` first clamped to ``[eps, 1 - eps]`` if ``eps``. Outside
# that interval the gradient is 0; without ``eps`` it is NaN outside [0, 1].
Logit = _real(
    "logit(Tensor self, float? eps=None) -> Tensor",
    _logit,
    "infinitely_differentiable_logit_backward(grad, self, eps) if is_grad_enabled()"
    " else logit_backward(grad, self, eps)",
    "Elementwise ``log(input / (1 - input))``.",
)


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


# With tensor bounds a bound gets the gradient where it is the result: ``min`` where
# ``x < min < max``, ``max`` where ``x > max`` or ``max < min`` (torch's
# ``clamp_backward_min_max``, one formula per bound here).
helper(
    "clamp_backward_min(grad, self, min, max)",
    "where(self < min, grad, 0) if max is None else where((self < min) & (min < max), grad, 0)",
)
helper(
    "clamp_backward_max(grad, self, min, max)",
    "where(self > max, grad, 0) if min is None else where((self > max) | (max < min), grad, 0)",
)

# ``clamp`` with tensor bounds; a missing bound is None (an input with no edge).
ClampTensor = entry(
    "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    _clamp,
    node="ClampBackward0",
    self="clamp_backward(grad, self, min, max)",
    min="clamp_backward_min(grad, self, min, max)",
    max="clamp_backward_max(grad, self, min, max)",
)
ClampMinTensor = entry(
    "clamp_min.Tensor(Tensor self, Tensor min) -> Tensor",
    np.maximum,
    node="ClampMinBackward1",
    self="where(self >= min, grad, 0)",
    min="where(self < min, grad, 0)",
)
ClampMaxTensor = entry(
    "clamp_max.Tensor(Tensor self, Tensor max) -> Tensor",
    np.minimum,
    node="ClampMaxBackward1",
    self="where(self <= max, grad, 0)",
    max="where(self > max, grad, 0)",
)


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
