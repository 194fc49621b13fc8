"""Special functions: the error function family, the gamma family (``lgamma``,
``digamma``, ``polygamma``, ``mvlgamma``), the incomplete gamma and zeta functions, the
modified Bessel functions ``i0``/``i1`` (and their scaled forms), the normal
distribution's ``ndtri``/``log_ndtr``/``erfcx``, ``entr``, ``sinc``, and the binary
elementwise ops atan2, xlogy, xlog1py and lerp.

Every op is an entry of the derivative table (``hookgrad.ops.table``) with torch's
formulas; the kernels are torch's algorithms (``hookgrad.ops.kernels.cephes``,
``faddeeva``, ``libm``). At non-differentiable points they follow torch (atan2 has a 0
gradient at the origin, xlogy's gradient for ``self`` is 0 where ``self == 0`` and
``log(other)`` is not finite); where torch has no derivative (``igamma`` in its first
argument, ``zeta`` in its first) the backward raises torch's error.

A kernel takes arrays already promoted (integers to the default float dtype); it refuses
what torch's kernel refuses (complex numbers, float16 for some) with torch's error, and
computes float16 in float32, as torch does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops import array_api
from hookgrad.ops.kernels import cephes, faddeeva, igamma, libm, modified_bessel, sleef_gamma
from hookgrad.ops.table import call, entry, function, helper

_SQRT_PI = math.sqrt(math.pi)
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)

# torch's names of the scalar types, as its kernels' errors name them.
_TYPE_NAMES = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}


def no_kernel(kernel: str, dtype: np.dtype) -> NotImplementedError:
    """torch's error for a dtype its kernel ``kernel`` has no code for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_TYPE_NAMES[dtype.name]}'")


def floating_kernel(compute: Any, name: str, half: bool = True) -> Any:
    """The kernel of a function torch computes on real floating types only: complex
    arrays (and float16 ones unless ``half``) raise torch's error naming ``name``;
    float16 computes in float32. ``compute`` takes float32 or float64 arrays (the first
    argument decides) and any further arguments."""

    def kernel(a: Any, *args: Any) -> Any:
        dtype = a.dtype
        if dtype.kind != "f" or (dtype == _F16 and not half):
            raise no_kernel(name, dtype)
        if dtype == _F16:
            wide = tuple(x.astype(_F32) if isinstance(x, np.ndarray) else x for x in args)
            return compute(a.astype(_F32), *wide).astype(_F16)
        return compute(a, *args)

    return kernel


def _not_implemented(name: str) -> Any:
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


# torch's ``not_implemented("name")`` formula: the backward raises when it must run.
function("not_implemented", _not_implemented, _not_implemented)

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
    floating_kernel(lambda a: _in_float64(erf_array, a), "erf_vml_cpu"),
    quiet=True,
    promotion="float",
    public=True,
    doc="Elementwise error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``. Example: "
    "``hookgrad.erf(hookgrad.tensor([0.5]))`` is ``tensor([0.5205])``.",
    self="2.0 / M_PI ** 0.5 * exp(-(self.pow(2))) * grad",
    elementwise=True,
)
Erfc = entry(
    "erfc(Tensor self) -> Tensor",
    floating_kernel(lambda a: _in_float64(erfc_array, a), "erfc_vml_cpu"),
    quiet=True,
    promotion="float",
    public=True,
    doc="Elementwise ``1 - erf(input)``, accurate where ``erf`` is close to 1. Example: "
    "``hookgrad.erfc(hookgrad.tensor([0.5]))`` is ``tensor([0.4795])``.",
    self="-2.0 / M_PI ** 0.5 * exp(-(self.pow(2))) * grad",
    elementwise=True,
)
Erfinv = entry(
    "erfinv(Tensor self) -> Tensor",
    floating_kernel(lambda a: _in_float64(erfinv_array, a), "erfinv_vml_cpu"),
    quiet=True,
    promotion="float",
    public=True,
    doc="Elementwise inverse of ``erf``: ``±inf`` at ``±1``, NaN outside [-1, 1]. Example: "
    "``hookgrad.erfinv(hookgrad.tensor([0.5]))`` is ``tensor([0.4769])``.",
    self="0.5 * M_PI ** 0.5 * exp(self.erfinv().pow(2)) * grad",
    elementwise=True,
)


# ---------------------------------------------------------------- the gamma family


def _polygamma(a: Any, n: int) -> Any:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    name = "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma"
    if a.dtype == _F16 and n >= 2:
        return cephes.polygamma(n, a)  # torch's half arithmetic (see ``cephes.zeta``)
    return floating_kernel(lambda x, order: cephes.polygamma(order, x), name)(a, n)


# torch's lgamma is Sleef's in every lane (``hookgrad.ops.kernels.sleef_gamma``).
LGAMMA_KERNEL = floating_kernel(sleef_gamma.lgamma, "lgamma_vml_cpu")


def _mvlgamma_shifts(p: int, dtype: np.dtype) -> Any:
    """torch's ``arange(-p/2 + 1/2, 1/2, 1/2)``: ``0, -1/2, ..., -(p-1)/2`` in reverse."""
    return np.arange(-p * 0.5 + 0.5, 0.5, 0.5).astype(dtype)


def _mvlgamma(a: Any, p: int) -> Any:
    """``sum_j lgamma(a - j/2) + p (p - 1) / 4 log(pi)``, summed as torch sums."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if a.dtype.kind == "c":
        raise no_kernel("arange_cpu", a.dtype)  # torch fails making its shifts
    shifted = _mvlgamma_shifts(p, a.dtype) + a[..., None]
    total = array_api.sum(LGAMMA_KERNEL(shifted), -1)
    return total + p * (p - 1) * math.log(math.pi) * 0.25


def _mvlgamma_backward_arrays(grad: Any, a: Any, p: int) -> Any:
    shifted = _mvlgamma_shifts(p, a.dtype) + a[..., None]
    return grad * array_api.sum(cephes.digamma(shifted), -1)


def _mvlgamma_backward_tensors(grad: Any, a: Any, p: int) -> Any:
    shifts = a.new_tensor(_mvlgamma_shifts(p, a.dtype.np))
    return grad * shifts.add(a.unsqueeze(-1)).digamma_().sum(-1)


# torch's ``mvlgamma_backward``: ``grad * sum_j digamma(x - j/2)``, the sum of torch's
# ``args.add(self.unsqueeze(-1)).digamma_()``.
function("mvlgamma_backward", _mvlgamma_backward_arrays, _mvlgamma_backward_tensors)

# log|Gamma(x)|; its derivative is digamma, whose derivative is polygamma(1, .), and so on.
Lgamma = entry(
    "lgamma(Tensor self) -> Tensor",
    LGAMMA_KERNEL,
    quiet=True,
    promotion="float",
    public=True,
    doc="Elementwise ``log|Gamma(input)|``: inf at 0 and at the negative integers; its "
    "gradient is ``digamma``. Example: ``hookgrad.lgamma(hookgrad.tensor([0.5, 3.0]))`` is "
    "``tensor([0.5724, 0.6931])``.",
    self="grad * digamma(self)",
    elementwise=True,
)
Digamma = entry(
    "digamma(Tensor self) -> Tensor",
    floating_kernel(cephes.digamma, "digamma"),
    quiet=True,
    promotion="float",
    public=True,
    doc="Elementwise ``d/dx log Gamma(x)``: -inf at +0, inf at -0, NaN at the negative "
    "integers; its gradient is ``polygamma(1, x)``. Example: "
    "``hookgrad.digamma(hookgrad.tensor([1.0]))`` is ``tensor([-0.5772])``.",
    self="grad * polygamma(1, self)",
    elementwise=True,
)
# ``n`` comes first in torch's function, so the public function and method are written
# by hand (``hookgrad.tensor.functions.unary.polygamma``); torch's ``polygamma_`` has a node
# of its own.
Polygamma = entry(
    "polygamma(int n, Tensor self) -> Tensor",
    _polygamma,
    quiet=True,
    promotion="float",
    doc="Elementwise ``n``-th derivative of ``digamma`` (``n >= 0``).",
    self="grad * polygamma(n + 1, self)",
    elementwise=True,
)
PolygammaInplace = entry(
    "polygamma_(Tensor self, int n) -> Tensor",
    _polygamma,
    node="PolygammaBackward1",
    quiet=True,
    promotion="float",
    self="grad * polygamma(n + 1, self)",
)
Mvlgamma = entry(
    "mvlgamma(Tensor self, int p) -> Tensor",
    _mvlgamma,
    quiet=True,
    promotion="float",
    public=True,
    doc="Elementwise multivariate log-gamma function of dimension ``p`` (``p >= 1``): "
    "``p (p-1)/4 log(pi) + sum_{j<p} lgamma(x - j/2)``. Example: "
    "``hookgrad.mvlgamma(hookgrad.tensor([2.5]), 2)`` is ``tensor([0.8570])``.",
    self="mvlgamma_backward(grad, self, p)",
)

# ---------------------------------------------------------------- modified Bessel functions


def _i1_backward_arrays(grad: Any, a: Any, result: Any, scaled: bool) -> Any:
    eps = np.asarray(np.finfo(a.dtype).eps, a.dtype)
    not_tiny = np.abs(a) > eps
    safe = np.where(not_tiny, a, eps)
    if scaled:
        slope = modified_bessel.i0e(safe) - result * (array_api.sgn(safe) + 1 / safe)
    else:
        slope = modified_bessel.i0(safe) - result * (1 / safe)
    return grad * np.where(not_tiny, slope, np.asarray(0.5, a.dtype))


def _i1_backward_tensors(grad: Any, a: Any, result: Any, scaled: bool) -> Any:
    eps = float(np.finfo(a.dtype.np).eps)
    not_tiny = a.abs() > eps
    safe = call("where", not_tiny, a, eps)
    if scaled:
        slope = call("special_i0e", safe) - result * (safe.sgn() + safe.reciprocal())
    else:
        slope = safe.i0() - result * safe.reciprocal()
    return grad * call("where", not_tiny, slope, 0.5)


# torch's ``i1_backward`` and ``i1e_backward``: the derivative from i0 (i0e), with 1/2
# where |x| is below machine epsilon (the formula would divide by 0 there).
function(
    "i1_backward",
    lambda grad, a, result: _i1_backward_arrays(grad, a, result, False),
    lambda grad, a, result: _i1_backward_tensors(grad, a, result, False),
)
function(
    "i1e_backward",
    lambda grad, a, result: _i1_backward_arrays(grad, a, result, True),
    lambda grad, a, result: _i1_backward_tensors(grad, a, result, True),
)

# I0, I1: ``sum (x/2)^(2k+nu) / (k! (k+nu)!)``; i0e and i1e are them times ``exp(-|x|)``.
I0 = entry(
    "i0(Tensor self) -> Tensor",
    floating_kernel(modified_bessel.i0, "i0_vml_cpu"),
    quiet=True,
    promotion="float",
    public=True,
    doc="Elementwise modified Bessel function of the first kind of order 0; its gradient "
    "is ``special.i1``. Example: ``hookgrad.i0(hookgrad.tensor([1.0]))`` is "
    "``tensor([1.2661])``.",
    self="grad * special_i1(self)",
    elementwise=True,
)
SpecialI0E = entry(
    "special_i0e(Tensor self) -> Tensor",
    floating_kernel(modified_bessel.i0e, "i0e_cpu"),
    quiet=True,
    promotion="float",
    self="grad * (special_i1e(self) - self.sgn() * result)",
    elementwise=True,
)
SpecialI1 = entry(
    "special_i1(Tensor self) -> Tensor",
    floating_kernel(modified_bessel.i1, "i1_cpu"),
    quiet=True,
    promotion="float",
    self="i1_backward(grad, self, result)",
    elementwise=True,
)
SpecialI1E = entry(
    "special_i1e(Tensor self) -> Tensor",
    floating_kernel(modified_bessel.i1e, "i1e_cpu"),
    quiet=True,
    promotion="float",
    self="i1e_backward(grad, self, result)",
    elementwise=True,
)

# ---------------------------------------------------------------- the normal distribution

# ``ndtri``'s formula squares its result (``result.square()``, a ``PowBackward0`` on tensors).
function("square", np.square, lambda x: x.square())

SpecialNdtri = entry(
    "special_ndtri(Tensor self) -> Tensor",
    floating_kernel(cephes.ndtri, "ndtri_cpu", half=False),
    quiet=True,
    promotion="float",
    self="grad * (2 * M_PI) ** 0.5 * (result.square() / 2).exp()",
    elementwise=True,
)
SpecialLogNdtr = entry(
    "special_log_ndtr(Tensor self) -> Tensor",
    floating_kernel(faddeeva.log_ndtr, "log_ndtr_cpu", half=False),
    quiet=True,
    promotion="float",
    self="grad / (2 * M_PI) ** 0.5 * (result + self.pow(2) / 2).neg().exp()",
    elementwise=True,
)
SpecialErfcx = entry(
    "special_erfcx(Tensor self) -> Tensor",
    floating_kernel(faddeeva.erfcx, "erfcx_cpu", half=False),
    quiet=True,
    promotion="float",
    self="(2.0 * self * result - 2.0 / M_PI ** 0.5) * grad",
    elementwise=True,
)

# ---------------------------------------------------------------- incomplete gamma, zeta

# The regularised incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x); torch has
# no derivative in ``a``.
Igamma = entry(
    "igamma(Tensor self, Tensor other) -> Tensor",
    floating_kernel(igamma.igamma, "igamma_cpu"),
    quiet=True,
    self="not_implemented('igamma: input')",
    other="grad * exp((self - 1) * log(other) - other - lgamma(self))",
    elementwise=True,
)
Igammac = entry(
    "igammac(Tensor self, Tensor other) -> Tensor",
    floating_kernel(igamma.igammac, "igammac_cpu"),
    quiet=True,
    self="not_implemented('igammac: input')",
    other="-grad * exp((self - 1) * log(other) - other - lgamma(self))",
    elementwise=True,
)

_ZETA = floating_kernel(cephes.zeta, "zeta_cpu", half=False)


def _zeta(x: Any, q: Any) -> Any:
    return _ZETA(*_arrays(x, q))


# The Hurwitz zeta function ``sum_k (k + other)^-self``; torch has no derivative in ``self``.
SpecialZeta = entry(
    "special_zeta(Tensor self, Tensor other) -> Tensor",
    _zeta,
    quiet=True,
    self="not_implemented('zeta')",
    other="grad * -self * special_zeta(self + 1.0, other)",
    elementwise=True,
)
SpecialZetaNumberSelf = entry(
    "special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor",
    lambda b, value: _zeta(value, b),
    node="SpecialZetaBackward1",
    quiet=True,
    other="grad * -self * special_zeta(self + 1.0, other)",
)
SpecialZetaNumberOther = entry(
    "special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor",
    lambda a, value: _zeta(a, value),
    node="SpecialZetaBackward2",
    quiet=True,
    self="not_implemented('zeta')",
)


def _overloads(cls: Any, number_self: Any, number_other: Any) -> Any:
    """A binary op on tensors as torch's ``at::`` function picks its overload: ``cls`` for
    two tensors, ``number_self`` or ``number_other`` where one operand is a number."""

    def on_tensors(a: Any, b: Any) -> Any:
        if not hasattr(a, "_data"):
            return b._apply_op(number_self(a))
        if not hasattr(b, "_data"):
            return a._apply_op(number_other(b))
        return a._apply_op(cls(), b)

    return on_tensors


# What formulas call ``special_zeta``: its overloads, on arrays a number or an array each.
function(
    "special_zeta",
    _zeta,
    _overloads(SpecialZeta, SpecialZetaNumberSelf, SpecialZetaNumberOther),
)

# ---------------------------------------------------------------- entr, sinc


def _entr(a: Any) -> Any:
    """``-x log x``: 0 at 0, -inf below 0, NaN as is (torch's ``entr`` kernel). float16
    takes the logarithm in float rounded to float16, as c10's ``std::log(Half)``."""
    if a.dtype.kind != "f":
        raise no_kernel("entr_cpu", a.dtype)
    positive = np.where(a > 0, a, 1)
    if a.dtype == _F16:
        log = libm.log(positive.astype(_F32)).astype(_F16)
    else:
        log = libm.log(positive)
    value = np.where(a == 0, 0, np.where(a < 0, -np.inf, -a * log)).astype(a.dtype)
    return np.where(np.isnan(a), a, value)


SpecialEntr = entry(
    "special_entr(Tensor self) -> Tensor",
    _entr,
    quiet=True,
    promotion="float",
    self="grad * (-(1 + self.log()))",
    elementwise=True,
)


def _sinc(a: Any) -> Any:
    """``sin(pi x) / (pi x)`` and 1 at 0, computed in float for float16 (torch's opmath)."""
    dtype = a.dtype
    if dtype.kind == "c":
        product = math.pi * a
        value = np.sin(product) / product
    else:
        wide = a.astype(_F32) if dtype == _F16 else a
        product = math.pi * wide
        value = libm.sin(product) / product
    return np.where(a == 0, 1, value).astype(dtype)


def _sinc_backward_arrays(grad: Any, a: Any) -> Any:
    self_pi = a * math.pi
    squared = a * a * math.pi
    out = grad * array_api.conj((self_pi * np.cos(self_pi) - np.sin(self_pi)) / squared)
    return np.where(squared == 0.0, np.zeros((), grad.dtype), out)


def _sinc_backward_tensors(grad: Any, a: Any) -> Any:
    # ``x * M_PI`` in C++ is the Scalar overload (MulBackward1), as the table's ``_mul``.
    self_pi = call("_mul", a, math.pi)
    squared = call("_mul", a * a, math.pi)
    out = grad * (((self_pi * self_pi.cos()) - self_pi.sin()) / squared).conj()
    return call("where", squared == 0.0, grad.new_zeros(()), out)


# torch's ``sinc_backward``: ``grad * conj((pi x cos(pi x) - sin(pi x)) / (pi x^2))``, 0 at 0.
function("sinc_backward", _sinc_backward_arrays, _sinc_backward_tensors)

Sinc = entry(
    "sinc(Tensor self) -> Tensor",
    _sinc,
    quiet=True,
    promotion="float",
    public=True,
    doc="Elementwise normalised sinc ``sin(pi x) / (pi x)``, 1 at 0 (complex too). "
    "Example: ``hookgrad.sinc(hookgrad.tensor([0.0, 0.5]))`` is ``tensor([1.0000, 0.6366])``.",
    self="sinc_backward(grad, self)",
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


def _x_times(log: Any, a: Any, b: Any) -> Any:
    """torch's ``xlogy``/``xlog1py`` kernel: NaN where ``b`` is NaN, 0 where ``a == 0``,
    else ``a * log(b)`` (the C library's ``log``/``log1p``). float16 takes the logarithm
    in float rounded to float16 (c10's ``std::log(Half)``), then the float16 product."""
    a, b = _arrays(a, b)
    dtype = a.dtype
    with np.errstate(all="ignore"):
        if dtype == _F16:
            product = a * log(b.astype(_F32)).astype(_F16)
        else:
            product = a * log(b)
    return np.where(np.isnan(b), np.nan, np.where(a == 0, 0, product)).astype(dtype)


def _arrays(a: Any, b: Any) -> tuple[Any, Any]:
    """Two operands as arrays of one shape and dtype: a number takes the other's dtype (a
    wrapped number, as formulas pass them), two arrays their promoted one (formulas pass
    saved inputs as they were, before promotion)."""
    if not isinstance(a, np.ndarray):
        a = np.asarray(a, b.dtype)
    if not isinstance(b, np.ndarray):
        b = np.asarray(b, a.dtype)
    if a.dtype != b.dtype:
        dtype = np.result_type(a, b)
        a, b = a.astype(dtype), b.astype(dtype)
    return np.broadcast_arrays(a, b)


def xlogy_array(a: Any, b: Any) -> Any:
    """``a * log(b)``, and 0 where ``a == 0`` unless ``b`` is NaN."""
    return _x_times(libm.log, a, b)


def xlog1py_array(a: Any, b: Any) -> Any:
    """``a * log1p(b)``, and 0 where ``a == 0`` unless ``b`` is NaN."""
    return _x_times(libm.log1p, a, b)


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


# ``self * log1p(other)``, with xlogy's conventions moved to ``other <= -1``.
def _xlog1py(a: Any, b: Any) -> Any:
    if a.dtype.kind != "f":
        raise no_kernel("xlog1py_cpu", a.dtype)
    return xlog1py_array(a, b)


SpecialXlog1py = entry(
    "special_xlog1py(Tensor self, Tensor other) -> Tensor",
    _xlog1py,
    quiet=True,
    self="special_xlog1py(grad, other).masked_fill((self == 0.0) & (other <= -1.0), 0.0)",
    other="grad * self / (other + 1)",
    elementwise=True,
)
SpecialXlog1pyNumberSelf = entry(
    "special_xlog1py.self_scalar(Scalar self, Tensor other) -> Tensor",
    lambda b, value: xlog1py_array(np.asarray(value, b.dtype), b),
    node="SpecialXlog1PyBackward1",
    quiet=True,
    other="grad * self / (other + 1)",
)
SpecialXlog1pyNumberOther = entry(
    "special_xlog1py.other_scalar(Tensor self, Scalar other) -> Tensor",
    lambda a, value: xlog1py_array(a, np.asarray(value, a.dtype)),
    node="SpecialXlog1PyBackward2",
    quiet=True,
    self="special_xlog1py(grad, other) if other > -1.0"
    " else special_xlog1py(grad, other).masked_fill(self == 0.0, 0.0)",
)
function(
    "special_xlog1py",
    xlog1py_array,
    _overloads(SpecialXlog1py, SpecialXlog1pyNumberSelf, SpecialXlog1pyNumberOther),
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
