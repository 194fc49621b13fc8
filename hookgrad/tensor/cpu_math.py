"""Floating-point arithmetic as torch's compiled CPU random kernels do it, in NumPy.

torch's kernels are C++ compiled with fused multiply-add contraction (``x * y + z`` is one
rounding), and its vectorised float32 Box-Muller uses the AVX polynomial ``log`` and
``sincos`` of ``avx_mathfun.h`` (cephes coefficients) instead of libm. Reproducing its
random numbers bit for bit needs the same roundings, so this module provides:

- ``fma32`` / ``fma64`` (from ``hookgrad.ops.kernels.fma``): ``a * b + c`` rounded once
  (``fma32_normal`` in the polynomials, whose steps never round to subnormals);
- ``avx_log`` / ``avx_sincos``: the float32 AVX2 polynomials, step by step, with the
  fused steps the compiler makes of them;
- ``libm``: double-precision ``log``, ``log1p``, ``sin``, ``cos`` ... as the C library
  computes them (NumPy's own SIMD versions, used on AVX-512 machines, may differ in the
  last bit, so they are checked against the C library once before being trusted).

Example::

    avx_log(np.float32([0.5, 2.0]))    # float32 log as torch's AVX2 Box-Muller computes it
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from hookgrad.ops.kernels.fma import fma32_normal

_F32 = np.float32


# -- avx_mathfun.h ---------------------------------------------------------------------------
# cephes' single-precision coefficients, as avx_mathfun.h spells them.
_LOG_POLYNOMIAL = (
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
)
_LOG_Q1 = _F32(-2.12194440e-4)
_LOG_Q2 = _F32(0.693359375)
_SQRT_HALF = _F32(0.707106781186547524)
_MIN_NORMAL = _F32(1.17549435e-38)
_FOUR_OVER_PI = _F32(1.27323954473516)
_MINUS_PI_OVER_4 = (
    _F32(-0.78515625),
    _F32(-2.4187564849853515625e-4),
    _F32(-3.77489497744594108e-8),
)
_COS_POLYNOMIAL = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
_SIN_POLYNOMIAL = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)


def avx_log(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` of avx_mathfun.h on a float32 array of positive numbers, with the
    multiply-adds fused as torch's AVX2 build compiles them."""
    x = np.maximum(x.astype(_F32), _MIN_NORMAL)
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 0x7F).astype(_F32) + _F32(1)
    x = ((bits & ~0x7F800000) | 0x3F000000).view(_F32)  # the mantissa, in [0.5, 1)
    small = x < _SQRT_HALF
    below_half_sqrt = np.where(small, x, _F32(0))
    x = x - _F32(1)
    exponent = exponent - small.astype(_F32)
    x = x + below_half_sqrt
    z = x * x
    y = np.full_like(x, _F32(_LOG_POLYNOMIAL[0]))
    for coefficient in _LOG_POLYNOMIAL[1:]:
        y = fma32_normal(y, x, _F32(coefficient))
    y = y * x
    y = fma32_normal(y, z, exponent * _LOG_Q1)
    y = y - z * _F32(0.5)
    x = x + y
    return x + exponent * _LOG_Q2


def avx_sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` of avx_mathfun.h on a float32 array of non-negative numbers:
    ``(sin(x), cos(x))``, with the multiply-adds fused as torch's AVX2 build compiles
    them."""
    x = x.astype(_F32)
    octant = (x * _FOUR_OVER_PI).astype(np.int32)
    octant = (octant + 1) & ~1
    y = octant.astype(_F32)
    for part in _MINUS_PI_OVER_4:  # x - y * pi/4 in three parts (extended precision)
        x = fma32_normal(y, part, x)
    z = x * x
    cos_poly = np.full_like(x, _F32(_COS_POLYNOMIAL[0]))
    for coefficient in _COS_POLYNOMIAL[1:]:
        cos_poly = fma32_normal(cos_poly, z, _F32(coefficient))
    cos_poly = cos_poly * z
    cos_poly = fma32_normal(cos_poly, z, -(z * _F32(0.5))) + _F32(1)
    sin_poly = np.full_like(x, _F32(_SIN_POLYNOMIAL[0]))
    for coefficient in _SIN_POLYNOMIAL[1:]:
        sin_poly = fma32_normal(sin_poly, z, _F32(coefficient))
    sin_poly = fma32_normal(sin_poly * z, x, x)
    use_sin_poly = (octant & 2) == 0
    sine = np.where(use_sin_poly, sin_poly, cos_poly).view(np.int32)
    cosine = np.where(use_sin_poly, cos_poly, sin_poly).view(np.int32)
    # the octant's sign bits, xor-ed into the results' sign bits
    sine ^= (octant & 4) << 29
    cosine ^= (~(octant - 2) & 4) << 29
    return sine.view(_F32), cosine.view(_F32)


# -- the C library's double-precision functions ----------------------------------------------
_NUMPY_FUNCTIONS: dict[Callable[[float], float], np.ufunc] = {
    math.log: np.log,
    math.log1p: np.log1p,
    math.sin: np.sin,
    math.cos: np.cos,
    math.tan: np.tan,
    math.exp: np.exp,
}


@functools.cache
def _numpy_matches(function: Callable[[float], float]) -> bool:
    """Whether NumPy's float64 version of ``function`` returns the C library's bits on a
    spread of arguments (NumPy uses libm on most machines, SIMD code on AVX-512 ones)."""
    probe = np.random.default_rng(0).random(4096) * 8.0 - 4.0
    if function in (math.log, math.log1p):
        probe = np.abs(probe) + 1e-3
    if function is math.exp:
        probe = probe * 20.0
    expected = np.fromiter(map(function, probe.tolist()), np.float64, count=probe.size)
    return bool(np.array_equal(_NUMPY_FUNCTIONS[function](probe), expected))


def libm(function: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """``function`` (one of ``math.log``, ``log1p``, ``sin``, ``cos``, ``tan``, ``exp``)
    applied to the float64 array ``x`` with the C library's rounding, as torch's kernels
    call it."""
    x = np.asarray(x, np.float64)
    if _numpy_matches(function):
        return _NUMPY_FUNCTIONS[function](x)
    return np.fromiter(map(function, x.ravel().tolist()), np.float64, count=x.size).reshape(x.shape)
