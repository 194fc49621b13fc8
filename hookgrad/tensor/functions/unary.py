"""Elementwise math functions (exp, sin, sigmoid, clamp, round, atan2 ...) and their
Tensor methods.

dtypes follow torch: functions that are only defined on real numbers (exp, sin, sqrt,
erf ...) compute integer and bool tensors in the default float dtype, while abs, sign,
relu, clamp and the rounding functions keep integer dtypes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops import special
from hookgrad.ops import unary as ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply_arrays, wrap_constant
from hookgrad.tensor.functions.generated import check_out, public, write_out
from hookgrad.tensor.promotion import binary_arrays, float_arrays, is_scalar
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "abs",
    "absolute",
    "angle",
    "arctan2",
    "atan2",
    "ceil",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "fix",
    "floor",
    "frac",
    "igamma",
    "igammac",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "lerp",
    "logit",
    "nan_to_num",
    "polygamma",
    "relu",
    "round",
    "sgn",
    "sign",
    "signbit",
    "square",
    "trunc",
    "xlogy",
]

# ---------------------------------------------------------------- checks and dispatch


def _check_tensor(value: Any, function: str, argument: str = "input", position: int = 1) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


def _type_name(dtype: Any) -> str:
    """torch's scalar-type name in kernel errors: ``Float``, ``Long``, ``ComplexFloat``."""
    return dtypes.to_dtype(dtype).type_name[3:-4]


def _no_kernel(kernel: str, dtype: Any) -> NotImplementedError:
    """torch's error for a dtype a kernel lacks; ``dtype`` a hookgrad or NumPy dtype."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(dtype)}'")


def _floating(op: Any, input: Any, function: str) -> Any:
    """Run ``op``; integer and bool tensors compute in the default float dtype."""
    _check_tensor(input, function)
    data = input._data
    if data.dtype.kind not in "fc":
        data = data.astype(dtypes.get_default_dtype().np)
    return apply_arrays(op, (input,), (data,))


def _real_floating(op: Any, input: Any, function: str, kernel: str) -> Any:
    """Like ``_floating`` for functions torch does not define on complex numbers."""
    _check_tensor(input, function)
    if input._data.dtype.kind == "c":
        raise _no_kernel(kernel, input.dtype)
    return _floating(op, input, function)


def _same_dtype(op: Any, input: Any, function: str) -> Any:
    """Run ``op`` on the input's own array (its dtype is kept)."""
    _check_tensor(input, function)
    return apply_arrays(op, (input,), (input._data,))


# ---------------------------------------------------------------- exponentials and logs


# ---------------------------------------------------------------- powers and roots


def square(input: Any) -> Any:
    """Elementwise ``input ** 2`` (integer tensors stay integer; bool becomes int64)."""
    _check_tensor(input, "square")
    return input.pow(2)


# ---------------------------------------------------------------- sign and magnitude


def abs(input: Any) -> Any:
    """Elementwise absolute value (the magnitude, a real tensor, for complex input).

    The gradient at 0 is 0. Example: ``hookgrad.abs(hookgrad.tensor([-1, 2]))`` is
    ``tensor([1, 2])``.
    """
    _check_tensor(input, "abs")
    if input._data.dtype.kind == "b":
        raise _no_kernel("abs_cpu", input.dtype)
    return _same_dtype(ops.Abs(), input, "abs")


absolute = abs


def sign(input: Any) -> Any:
    """Elementwise -1, 0 or 1 (0 for NaN); zero gradient. Use ``sgn`` for complex input."""
    _check_tensor(input, "sign")
    if input._data.dtype.kind == "c":
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please "
            "use torch.sgn instead."
        )
    return _same_dtype(ops.Sign(), input, "sign")


def sgn(input: Any) -> Any:
    """``input / |input|`` (0 where ``input`` is 0); ``sign`` for real tensors."""
    return _same_dtype(ops.Sgn(), input, "sgn")


def angle(input: Any) -> Any:
    """Elementwise argument (phase) in radians: ``atan2(imag, real)`` for complex input,
    0 or pi for real input. The result is real. Example: ``hookgrad.angle(hookgrad.tensor(
    [1j, -1]))`` is ``tensor([1.5708, 3.1416])``.
    """
    return _floating(ops.Angle(), input, "angle")


def signbit(input: Any) -> Any:
    """Elementwise: is the sign bit set (true for -0.0 and negative NaN)?"""
    _check_tensor(input, "signbit")
    data = input._data
    if data.dtype.kind == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if data.dtype.kind == "b":
        return wrap_constant(np.zeros(data.shape, np.bool_))
    return wrap_constant(np.signbit(data))


# ---------------------------------------------------------------- trigonometric


def atan2(input: Any, other: Any) -> Any:
    """Elementwise angle of the point ``(other, input)`` in radians, in [-pi, pi].

    Both arguments are tensors (broadcast); the gradient at (0, 0) is 0.
    """
    _check_tensor(input, "atan2")
    _check_tensor(other, "atan2", "other", 2)
    a, b = float_arrays(input, other)
    if a.dtype.kind == "c":
        raise _no_kernel("atan2_cpu", a.dtype)
    return apply_arrays(special.Atan2(), (input, other), (a, b))


arctan2 = atan2


# ---------------------------------------------------------------- activations


def relu(input: Any) -> Any:
    """Elementwise ``max(input, 0)``; the gradient at 0 is 0. Integer dtypes are kept."""
    _check_tensor(input, "relu")
    kind = input._data.dtype.kind
    if kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    if kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    return apply_arrays(ops.Relu(), (input,), (input._data,))


def logit(input: Any, eps: float | None = None) -> Any:
    """Elementwise ``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to
    ``[eps, 1 - eps]`` (and the gradient is 0 outside that interval)."""
    return _real_floating(ops.Logit(eps), input, "logit", "logit_cpu")


# ---------------------------------------------------------------- the gamma family


def _with_out(result: Any, out: Any, name: str, inputs: tuple[Any, ...]) -> Any:
    """``result`` written into ``out`` with torch's rules when ``out`` is given."""
    if out is None:
        return result
    check_out(name, inputs, out)
    return write_out(result, out)


def polygamma(n: int, input: Any, *, out: Any = None) -> Any:
    """The ``n``-th derivative of the digamma function, elementwise (``n >= 0``;
    ``polygamma(0, x)`` is ``digamma(x)``). Integer tensors compute in the default float
    dtype. Example: ``hookgrad.polygamma(1, hookgrad.tensor([1.0]))`` is ``pi^2 / 6``.
    """
    if type(n) is not int:
        raise TypeError(
            f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    _check_tensor(input, "polygamma", "input", 2)
    return _POLYGAMMA(input, n, out=out)


_POLYGAMMA = public(special.Polygamma)


def _incomplete_gamma(op: Any, name: str, input: Any, other: Any, out: Any) -> Any:
    _check_tensor(input, name)
    _check_tensor(other, name, "other", 2)
    a, x = binary_arrays(input, other)
    return _with_out(apply_arrays(op, (input, other), (a, x)), out, name, (input, other))


def igamma(input: Any, other: Any, *, out: Any = None) -> Any:
    """The regularised lower incomplete gamma function ``P(input, other)`` =
    ``gamma(a, x) / Gamma(a)``, elementwise and broadcast, for floating tensors.

    Differentiable in ``other`` only (torch has no derivative in ``input``). Example:
    ``hookgrad.igamma(hookgrad.tensor([1.0]), hookgrad.tensor([2.0]))`` is ``1 - e^-2``.
    """
    return _incomplete_gamma(special.Igamma(), "igamma", input, other, out)


def igammac(input: Any, other: Any, *, out: Any = None) -> Any:
    """The regularised upper incomplete gamma function ``Q(input, other)`` =
    ``1 - P(input, other)``, elementwise and broadcast, for floating tensors.

    Differentiable in ``other`` only. Example: ``hookgrad.igammac(hookgrad.tensor([1.0]),
    hookgrad.tensor([2.0]))`` is ``e^-2``.
    """
    return _incomplete_gamma(special.Igammac(), "igammac", input, other, out)


# ---------------------------------------------------------------- clamping


def _check_bound(bound: Any, name: str) -> None:
    if bound is not None and not is_scalar(bound):
        _check_tensor(bound, "clamp", name, 2 if name == "min" else 3)


def _check_clampable(input: Any, function: str) -> None:
    _check_tensor(input, function)
    if input._data.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")


def _cast(value: Any, np_dtype: np.dtype) -> Any:
    """A tensor's array (or a number) in ``np_dtype``; None stays None."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        data = value._data
        return data if data.dtype == np_dtype else data.astype(np_dtype)
    return np_dtype.type(value)


_CLAMP_SIGNATURES = (
    " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
    " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"
)


def _number_bounds(input: Any, min: Any, max: Any) -> tuple[Any, Any]:
    """torch's overload choice when one bound is a number: a 0-dim tensor that does not
    require grad counts as a number too; any other tensor bound is a TypeError."""
    if not (is_scalar(min) or is_scalar(max)):
        return min, max
    bounds = []
    for bound in (min, max):
        if isinstance(bound, Tensor):
            if bound.ndim or bound.requires_grad:
                names = ", ".join(_argument_type(v) for v in (input, min, max) if v is not None)
                raise TypeError(
                    f"clamp() received an invalid combination of arguments - got ({names}), "
                    f"but expected one of:\n{_CLAMP_SIGNATURES}"
                )
            bound = bound.item()
        bounds.append(bound)
    return bounds[0], bounds[1]


def _argument_type(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _clamp_dtype(input: Any, *bounds: Any) -> np.dtype:
    return dtypes.result_type(input, *(b for b in bounds if b is not None)).np


def clamp(input: Any, min: Any = None, max: Any = None) -> Any:
    """Elementwise ``min(max(input, min), max)``; ``min``/``max`` are numbers or tensors
    (broadcast), either may be None. If ``min > max`` the result is ``max``.

    The gradient passes where ``min <= input <= max`` (bounds included). Example::

        hookgrad.clamp(hookgrad.tensor([-1.0, 0.5, 2.0]), 0, 1)  # tensor([0.0, 0.5, 1.0])
    """
    _check_clampable(input, "clamp")
    _check_bound(min, "min")
    _check_bound(max, "max")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    min, max = _number_bounds(input, min, max)
    np_dtype = _clamp_dtype(input, min, max)
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        op = ops.Clamp(_cast(min, np_dtype), _cast(max, np_dtype))
        return apply_arrays(op, (input,), (_cast(input, np_dtype),))
    arrays = (_cast(input, np_dtype), _cast(min, np_dtype), _cast(max, np_dtype))
    return apply_arrays(ops.ClampTensor(), (input, min, max), arrays)


clip = clamp


def clamp_min(input: Any, min: Any) -> Any:
    """Elementwise ``max(input, min)`` (``min`` a number or a tensor)."""
    _check_clampable(input, "clamp_min")
    _check_bound(min, "min")
    np_dtype = _clamp_dtype(input, min)
    if not isinstance(min, Tensor):
        op = ops.ClampMin(_cast(min, np_dtype))
        return apply_arrays(op, (input,), (_cast(input, np_dtype),))
    arrays = (_cast(input, np_dtype), _cast(min, np_dtype))
    return apply_arrays(ops.ClampMinTensor(), (input, min), arrays)


def clamp_max(input: Any, max: Any) -> Any:
    """Elementwise ``min(input, max)`` (``max`` a number or a tensor)."""
    _check_clampable(input, "clamp_max")
    _check_bound(max, "max")
    np_dtype = _clamp_dtype(input, max)
    if not isinstance(max, Tensor):
        op = ops.ClampMax(_cast(max, np_dtype))
        return apply_arrays(op, (input,), (_cast(input, np_dtype),))
    arrays = (_cast(input, np_dtype), _cast(max, np_dtype))
    return apply_arrays(ops.ClampMaxTensor(), (input, max), arrays)


# ---------------------------------------------------------------- rounding


def _rounding(op: Any, input: Any, function: str) -> Any:
    _check_tensor(input, function)
    kind = input._data.dtype.kind
    if kind == "b":
        raise _no_kernel(f"{function}_vml_cpu", input.dtype)
    if kind == "c":
        raise NotImplementedError(f"{function} is not supported for complex inputs")
    return apply_arrays(op, (input,), (input._data,))


def floor(input: Any) -> Any:
    """Elementwise largest integer <= ``input`` (integer tensors are returned as is)."""
    return _rounding(ops.Floor(), input, "floor")


def ceil(input: Any) -> Any:
    """Elementwise smallest integer >= ``input``."""
    return _rounding(ops.Ceil(), input, "ceil")


def trunc(input: Any) -> Any:
    """Elementwise rounding toward zero."""
    return _rounding(ops.Trunc(), input, "trunc")


fix = trunc


def round(input: Any, *, decimals: int | None = None) -> Any:
    """Elementwise rounding to ``decimals`` digits (default 0), halves to even
    (``round(2.5) == 2``); integer tensors are returned as they are.

    Negative ``decimals`` round to the left of the point: ``round(x, decimals=-2)``
    rounds to hundreds. Zero gradient.
    """
    _check_tensor(input, "round")
    kind = input._data.dtype.kind
    if decimals is None:
        if kind not in "iuf":
            raise _no_kernel("round_vml_cpu", input.dtype)
        return apply_arrays(ops.Round(), (input,), (input._data,))
    if kind != "f":
        raise _no_kernel("round_cpu" if decimals else "round_vml_cpu", input.dtype)
    # NOTE: like torch, an explicit ``decimals`` (even 0) records RoundBackward1.
    return apply_arrays(ops.RoundDecimals(decimals), (input,), (input._data,))


def frac(input: Any) -> Any:
    """Elementwise fractional part ``input - trunc(input)`` (floating tensors only)."""
    _check_tensor(input, "frac")
    if input._data.dtype.kind != "f":
        raise _no_kernel("frac_cpu", input.dtype)
    return apply_arrays(ops.Frac(), (input,), (input._data,))


# ---------------------------------------------------------------- NaN and infinity


def nan_to_num(
    input: Any, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Any:
    """Replace NaN by ``nan`` and ±inf by ``posinf``/``neginf`` (default: the largest /
    smallest finite value of the dtype). The gradient is 0 where a value was replaced."""
    _check_tensor(input, "nan_to_num")
    if input._data.dtype.kind not in "fc":
        return wrap_constant(input._data.copy())
    return apply_arrays(ops.NanToNum(nan, posinf, neginf), (input,), (input._data,))


def _predicate(function: Any, input: Any, name: str) -> Any:
    _check_tensor(input, name)
    return wrap_constant(function(input._data))


def isnan(input: Any) -> Any:
    """Elementwise: is it NaN? (a bool tensor)"""
    return _predicate(np.isnan, input, "isnan")


def isinf(input: Any) -> Any:
    """Elementwise: is it +inf or -inf? (complex: either part)"""
    return _predicate(np.isinf, input, "isinf")


def isposinf(input: Any) -> Any:
    """Elementwise: is it +inf?"""
    return _predicate(np.isposinf, input, "isposinf")


def isneginf(input: Any) -> Any:
    """Elementwise: is it -inf?"""
    return _predicate(np.isneginf, input, "isneginf")


def isfinite(input: Any) -> Any:
    """Elementwise: is it neither NaN nor infinite?"""
    return _predicate(np.isfinite, input, "isfinite")


# ---------------------------------------------------------------- xlogy and lerp


def xlogy(input: Any, other: Any) -> Any:
    """Elementwise ``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is
    NaN). Either argument may be a Python number."""
    if not isinstance(input, Tensor):
        _check_tensor(other, "xlogy", "other", 2)
    a, b = float_arrays(input, other)
    result_dtype = np.result_type(a, b)
    if result_dtype.kind == "c":
        raise _no_kernel("xlogy_cpu", result_dtype)
    if is_scalar(input):
        return apply_arrays(special.XlogyNumberSelf(input), (other,), (b,))
    if is_scalar(other):
        return apply_arrays(special.XlogyNumberOther(other), (input,), (a,))
    return apply_arrays(special.Xlogy(), (input, other), (a, b))


def lerp(input: Any, end: Any, weight: Any) -> Any:
    """Linear interpolation ``input + weight * (end - input)``, broadcast.

    ``end`` (and a tensor ``weight``) must have ``input``'s floating dtype; ``weight``
    may be a Python number. Example: ``lerp(a, b, 0.25)`` is a quarter of the way to b.
    """
    _check_tensor(input, "lerp")
    _check_tensor(end, "lerp", "end", 2)
    weight_is_tensor = isinstance(weight, Tensor)
    if not weight_is_tensor and not is_scalar(weight):
        _check_tensor(weight, "lerp", "weight", 3)
    if input._data.dtype.kind not in "fc":
        kernel = "lerp_kernel_tensor" if weight_is_tensor else "lerp_kernel_scalar"
        raise _no_kernel(kernel, input.dtype)
    for name, value in (("end", end), ("weight", weight)):
        if isinstance(value, Tensor) and value.dtype is not input.dtype:
            raise RuntimeError(
                f"expected dtype {dtypes.cpp_name(input.dtype)} for `{name}` but got "
                f"dtype {dtypes.cpp_name(value.dtype)}"
            )
    if weight_is_tensor:
        arrays = (input._data, end._data, weight._data)
        return apply_arrays(special.LerpTensor(), (input, end, weight), arrays)
    return apply_arrays(special.Lerp(weight), (input, end), (input._data, end._data))


class UnaryMethods:
    """Elementwise math methods of ``Tensor`` (``x.exp()``, ``x.clamp(0, 1)``, ``abs(x)``)."""

    square = square
    abs = abs
    absolute = abs
    __abs__ = abs
    sign = sign
    sgn = sgn
    angle = angle
    signbit = signbit
    atan2 = atan2
    arctan2 = atan2
    relu = relu
    logit = logit
    igamma = igamma
    igammac = igammac
    clamp = clamp
    clip = clamp
    clamp_min = clamp_min
    clamp_max = clamp_max
    floor = floor
    ceil = ceil
    trunc = trunc
    fix = trunc
    round = round
    frac = frac
    nan_to_num = nan_to_num
    isnan = isnan
    isinf = isinf
    isposinf = isposinf
    isneginf = isneginf
    isfinite = isfinite
    xlogy = xlogy
    lerp = lerp

    def polygamma(self, n: int) -> Any:
        """``hookgrad.polygamma(n, self)``: torch's method takes ``n`` only."""
        return polygamma(n, self)
