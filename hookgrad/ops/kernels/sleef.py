"""Sleef 3.8's ``pow``, bit for bit: what the vector lanes of torch's CPU ``pow`` compute.

torch's AVX2 and AVX-512 kernels call ``Sleef_powf8_u10`` / ``Sleef_powf16_u10`` (float32)
and ``Sleef_powd4_u10`` / ``Sleef_powd8_u10`` (float64), built with fused multiply-adds.
Sleef computes ``exp(y * log|x|)`` with the logarithm and the product carried as unevaluated
sums of two numbers (a "pair": double-float for float32, double-double for float64), then
patches in zeros, infinities, NaNs and negative bases. Its AVX2 and AVX-512 builds differ
only in how the logarithm splits ``|x|`` into a mantissa in [0.75, 1.5) and an exponent,
and both give the same split for every finite ``x > 0``: one emulation serves both.

Each step below is Sleef's own operation on the same values (``xpowf``/``xpow`` in
src/libm/sleefsimdsp.c and sleefsimddp.c, the pair arithmetic of src/common/df.h and dd.h):
NumPy rounds every float32 and float64 operation correctly, and each fused multiply-add is
rounded once (float32 ones through float64, float64 ones by ``fma64``).

Example::

    powf_u10(np.float32([2.0, 0.5]), np.float32([10.0, 1.7]))  # as Sleef_powf16_u10
    powd_u10(np.float64([2.0]), np.float64([0.1]))  # as Sleef_powd8_u10
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hookgrad.ops.kernels.fma import fma32, fma64

_F32 = np.float32
_F64 = np.float64
Pair = tuple[np.ndarray, np.ndarray]

# Arrays are worked through in slices of this many elements, which keeps the many
# intermediate arrays in the CPU's caches.
_CHUNK = 1 << 15


# ---------------------------------------------------------------- fused multiply-add


# A float32 midpoint written as a float64 ends in bit 28 followed by 28 zero bits (in the
# normal range) or in at least 29 zero bits (below it, where float32 is subnormal).
_LOW_28_BITS = np.int64((1 << 28) - 1)
_BIT_28 = np.int64(1 << 28)
_ABS_BITS = np.int64((1 << 63) - 1)
_TINY_BITS = np.float64(2.0**-126).view(np.int64)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` rounded once, in ``a``'s precision (float32 or float64)."""
    if a.dtype != _F32:
        return fma64(a, b, c)
    # The product of two float32 numbers is exact in float64 and the sum is rounded once
    # there; rounding it again to float32 is right unless the float64 sum landed on a
    # float32 midpoint. Those few are redone exactly.
    total = a.astype(_F64) * b
    total += c
    result = total.astype(_F32)
    bits = total.view(np.int64)
    suspect = (bits & _LOW_28_BITS) == 0
    if suspect.any():
        # Most of these are exact float32 values (zeros among them), which are right.
        magnitude = bits & _ABS_BITS
        tiny = (magnitude != 0) & (magnitude < _TINY_BITS)
        suspect &= ((bits & _BIT_28) != 0) | tiny
        if suspect.any():
            a, b, c = np.broadcast_arrays(a, b, c)
            result[suspect] = fma32(a[suspect], b[suspect], c[suspect])
    return result


def _fma_exact_sum(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` rounded once, where the exact result has at most 53 significant bits
    when ``a``, ``b``, ``c`` are float32: it is exact in float64, so rounding it to
    float32 is the only rounding (no midpoint check needed)."""
    if a.dtype != _F32:
        return fma64(a, b, c)
    total = a.astype(_F64) * b
    total += c
    return total.astype(_F32)


_SPLITTER = 134217729.0  # 2**27 + 1: splits a float64 into two 26-bit halves


def _split(a: np.ndarray) -> Pair:
    scaled = _SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def _product_error(a: np.ndarray, b: np.ndarray, product: np.ndarray) -> np.ndarray:
    """``a * b - product`` exactly, where ``product`` is ``a * b`` rounded (Sleef's fused
    ``vfmapn``): float32 through float64, float64 by Dekker's splitting."""
    if a.dtype == _F32:
        total = a.astype(_F64) * b
        total -= product
        return total.astype(_F32)
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    if np.isfinite(error).all():
        return error
    # Past 2**996 the halves overflow: there the exact error is what float64 gives (an
    # infinite or NaN product's, or 0 for a product of 0).
    return np.where(np.isfinite(error), error, a * b - product)


# ---------------------------------------------------------------- pair arithmetic
# Sleef's df*/dd* functions (their FMA versions), one for each overload pow uses.


def _add_exact(x: np.ndarray, y: np.ndarray) -> Pair:
    """``x + y`` as a pair, exactly (Knuth's two-sum: ``dfadd2_vf2_vf_vf``)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _add_pair_value(x: Pair, y: np.ndarray) -> Pair:
    """``dfadd2_vf2_vf2_vf``: a pair plus a number, any magnitudes."""
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _add_pairs(x: Pair, y: Pair) -> Pair:
    """``dfadd_vf2_vf2_vf2``: the sum of two pairs, ``|x| >= |y|``."""
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _add_pairs_any(x: Pair, y: Pair) -> Pair:
    """``dfadd2_vf2_vf2_vf2``: the sum of two pairs, any magnitudes."""
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def _add_value_pair(x: np.ndarray, y: Pair) -> Pair:
    """``dfadd_vf2_vf_vf2``: a number plus a pair, ``|x| >= |y|``."""
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def _normalize(x: Pair) -> Pair:
    s = x[0] + x[1]
    return s, (x[0] - s) + x[1]


def _mul_pair_value(x: Pair, y: np.ndarray) -> Pair:
    """``dfmul_vf2_vf2_vf``."""
    s = x[0] * y
    return s, _fma(x[1], y, _product_error(x[0], y, s))


def _mul_pairs(x: Pair, y: Pair) -> Pair:
    """``dfmul_vf2_vf2_vf2``."""
    s = x[0] * y[0]
    low = _fma(x[1], y[0], _product_error(x[0], y[0], s))
    return s, _fma(x[0], y[1], low)


def _square(x: Pair) -> Pair:
    """``dfsqu_vf2_vf2``."""
    s = x[0] * x[0]
    return s, _fma(x[0] + x[0], x[1], _product_error(x[0], x[0], s))


def _div_value_pair(n: np.ndarray, d: Pair) -> Pair:
    """``dfdiv_vf2_vf2_vf2`` for a numerator with a zero second part: ``n / d`` from one
    reciprocal and fused corrections."""
    one = np.ones((), d[0].dtype)
    t = one / d[0]
    s = n * t
    u = _product_error(t, n, s)
    # Both fused steps are exact in float64, so rounding to float32 is their one rounding:
    # d[0] * t is within an ulp of 1, so 1 - d[0] * t is exact (Sterbenz), below 2**-23 and
    # a multiple of ulp(d[0]) * ulp(t) >= 2**-48; d[1] (the error of 1 + m) is 0 or
    # +-2**-24 or +-2**-23, so d[1] * t is below 2**-23 and a multiple of 2**-49; and the
    # float32 rounding of the first is 0 or a multiple of 2**-71: the second spans 51 bits.
    v = _fma_exact_sum(-d[1], t, _fma_exact_sum(-d[0], t, one))
    # NOTE: Sleef adds the numerator's second part as ``fma(0, t, u)``, which is ``u``
    # (``u``, an exact product error, is never -0).
    return s, _fma(s, v, u)


def _log_reduce(d: np.ndarray) -> tuple[np.ndarray, Pair]:
    """``|x| = m * 2**e`` with ``m`` in [0.75, 1.5), and ``(m - 1) / (m + 1)`` as a pair:
    the start of Sleef's ``logk``/``logkf``. Returns ``e`` and the quotient."""
    fraction, exponent = np.frexp(d)
    below = fraction < 0.75
    m = np.where(below, fraction + fraction, fraction)
    e = (exponent - below).astype(d.dtype)
    one = np.ones((), d.dtype)
    # m - 1 is exact (m is within a factor of two of 1), so its pair is (m - 1, 0).
    return e, _div_value_pair(m - one, _add_exact(one, m))


def _sign_bit(dtype: np.dtype) -> np.ndarray:
    return np.array(-0.0, dtype).view(_bits(dtype))


def _bits(dtype: np.dtype) -> type:
    return np.uint32 if dtype == _F32 else np.uint64


def _mulsign(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x`` with its sign flipped where ``y``'s sign bit is set (``vmulsign``)."""
    bits = _bits(x.dtype)
    return (x.view(bits) ^ (y.view(bits) & _sign_bit(x.dtype))).view(x.dtype)


def _round_to_int32(u: np.ndarray) -> np.ndarray:
    """``cvtps2dq``/``cvtpd2dq``: round half to even; NaN and out of range give INT_MIN."""
    with np.errstate(invalid="ignore"):
        rounded = np.rint(u)
        inside = np.abs(rounded) < 2.0**31
    return np.where(inside, rounded, -(2.0**31)).astype(np.int32)


def _special_cases(x: np.ndarray, y: np.ndarray, result: np.ndarray) -> np.ndarray:
    """The end of ``xpowf``/``xpow``: signs for negative bases, then infinite ``y``,
    zero or infinite ``x``, NaNs, and ``y == 0`` or ``x == 1``. None of them applies when
    every ``x`` is positive, finite and not 1 and every ``y`` finite and not 0."""
    dtype = x.dtype
    plain = (x > 0) & (x != 1) & (x < np.inf) & (np.abs(y) < np.inf) & (y != 0)
    if plain.all():
        return result
    # Sleef's integer and odd-integer tests (by truncation to int32 for float32, by
    # rounding y and y / 2 for float64) come to these; infinities are even integers.
    y_is_int = np.trunc(y) == y
    y_is_odd = np.abs(np.fmod(y, 2)) == 1
    one, inf, nan = (np.array(v, dtype) for v in (1.0, np.inf, np.nan))
    sign = np.where(x > 0, one, np.where(y_is_int, np.where(y_is_odd, -one, one), nan))
    result = result * sign
    distance = _mulsign(np.abs(x) - one, y)
    at_inf = np.where(distance < 0, np.zeros((), dtype), np.where(distance == 0, one, inf))
    result = np.where(np.isinf(y), at_inf, result)
    x_zero = x == 0
    edge = np.where(np.signbit(y) ^ x_zero, np.zeros((), dtype), inf)
    edge = _mulsign(edge, np.where(y_is_odd, x, one))
    result = np.where(np.isinf(x) | x_zero, edge, result)
    all_ones = np.array(-1, np.int64).astype(_bits(dtype)).view(dtype)
    result = np.where(np.isnan(x) | np.isnan(y), all_ones, result)
    return np.where((y == 0) | (x == 1), one, result)


def _chunked(kernel: Callable, x: np.ndarray, y: np.ndarray, dtype: type) -> np.ndarray:
    """``kernel(x, y)`` on ``x`` and ``y`` cast to ``dtype`` and broadcast, a slice at a
    time, with floating-point warnings off (Sleef's special cases make NaNs and zeros)."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype), np.asarray(y, dtype))
    flat_x, flat_y = x.ravel(), y.ravel()
    out = np.empty(flat_x.size, dtype)
    with np.errstate(all="ignore"):
        for start in range(0, flat_x.size, _CHUNK):
            chunk = slice(start, start + _CHUNK)
            out[chunk] = kernel(flat_x[chunk], flat_y[chunk])
    return out.reshape(x.shape)


# ---------------------------------------------------------------- float32: xpowf

_LN2_F = (_F32(0.69314718246459960938), _F32(-1.904654323148236017e-09))
_LOG_C_F = (_F32(0.66666662693023681640625), _F32(3.69183861259614332084311e-09))
_LOG_POLY_F = tuple(
    _F32(c)
    for c in (0.240320354700088500976562, 0.285112679004669189453125, 0.400007992982864379882812)
)
_EXP_POLY_F = tuple(
    _F32(c)
    for c in (
        0.00136324646882712841033936,
        0.00836596917361021041870117,
        0.0416710823774337768554688,
        0.166665524244308471679688,
        0.499999850988388061523438,
    )
)
_R_LN2_F = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U_F = _F32(0.693145751953125)
_L2L_F = _F32(1.428606765330187045e-06)


def _horner(coefficients: tuple, x: np.ndarray) -> np.ndarray:
    """Sleef's float32 polynomials: Horner's scheme with fused multiply-adds,
    ``coefficients`` highest degree first."""
    u = coefficients[0]
    for c in coefficients[1:]:
        u = _fma(np.asarray(u), x, c)
    return u


def _logkf(d: np.ndarray) -> Pair:
    e, x = _log_reduce(d)
    x2 = _square(x)
    t = _horner(_LOG_POLY_F, x2[0])
    # e is an integer below 2**8: ln2's parts times e and the product's error are exact in
    # float64 and span under 53 bits together (_mul_pair_value, with an exact last step).
    high = _LN2_F[0] * e
    s = high, _fma_exact_sum(_LN2_F[1], e, _product_error(_LN2_F[0], e, high))
    s = _add_pairs(s, (x[0] + x[0], x[1] + x[1]))
    x3 = _mul_pairs(x2, x)
    return _add_pairs(s, _mul_pairs(x3, _add_pairs_any(_mul_pair_value(x2, t), _LOG_C_F)))


def _ldexpf(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``vldexp_vf_vf_vi2``: ``x * 2**q`` as four multiplications by a clamped power of
    two and one by the rest (each may round, as in Sleef)."""
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    m = np.clip(m + 127, 0, 255).astype(np.int32)
    u = (m << 23).view(_F32)
    x = x * u * u * u * u
    return x * ((q + 127) << 23).astype(np.int32).view(_F32)


def _expkf(d: Pair) -> np.ndarray:
    q = _round_to_int32((d[0] + d[1]) * _R_LN2_F)
    qf = q.astype(_F32)
    s = _add_pair_value(d, qf * -_L2U_F)
    s = _normalize(_add_pair_value(s, qf * -_L2L_F))
    u = _horner(_EXP_POLY_F, s[0])
    t = _add_pairs(s, _mul_pair_value(_square(s), u))
    t = _add_value_pair(_F32(1), t)
    result = _ldexpf(t[0] + t[1], q)
    return np.where(d[0] < -104, _F32(0), result)


def _powf_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = _expkf(_mul_pair_value(_logkf(np.abs(x)), y))
    result = np.where(np.isnan(result), _F32(np.inf), result)
    return _special_cases(x, y, result)


def powf_u10(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x ** y`` for float32 as Sleef's ``Sleef_powf16_u10`` (and ``Sleef_powf8_u10``)
    computes it, elementwise with broadcasting. ``x`` and ``y`` are cast to float32.

    Example: ``powf_u10(np.float32([3.0]), np.float32([4.0]))``."""
    return _chunked(_powf_kernel, x, y, _F32)


# ---------------------------------------------------------------- float64: xpow

_LN2_D = (_F64(0.693147180559945286226764), _F64(2.319046813846299558417771e-17))
_LOG_C_D = (_F64(0.666666666666666629659233), _F64(3.80554962542412056336616e-17))
_LOG_POLY_D = (
    0.116255524079935043668677,
    0.103239680901072952701192,
    0.117754809412463995466069,
    0.13332981086846273921509,
    0.153846227114512262845736,
    0.181818180850050775676507,
    0.222222222230083560345903,
    0.285714285714249172087875,
    0.400000000000000077715612,
)
_EXP_POLY_D = (
    2.51069683420950419527139e-08,
    2.76286166770270649116855e-07,
    2.75572496725023574143864e-06,
    2.48014973989819794114153e-05,
    0.000198412698809069797676111,
    0.0013888888939977128960529,
    0.00833333333332371417601081,
    0.0416666666665409524128449,
    0.166666666666666740681535,
    0.500000000000000999200722,
)
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U = 0.69314718055966295651160180568695068359375
_L2L = 0.28235290563031577122588448175013436025525412068e-12
_LOG_DBL_MAX = 709.782712893384


def _estrin(powers: list[np.ndarray], coefficients: tuple) -> np.ndarray:
    """Sleef's ``POLYn`` macros: ``coefficients`` (highest degree first) evaluated by
    Estrin's scheme with fused multiply-adds; ``powers`` are ``x, x**2, x**4, ...``.

    With ``n`` coefficients and ``2**k`` the largest power of two below ``n``, the
    polynomial is ``high * x**(2**k) + low``: ``low`` of the lowest ``2**k`` coefficients,
    ``high`` of the others, each split the same way; a lone coefficient is a constant."""
    if len(coefficients) == 1:
        return np.asarray(_F64(coefficients[0]))
    level = (len(coefficients) - 1).bit_length() - 1
    split = len(coefficients) - (1 << level)
    high = _estrin(powers, coefficients[:split])
    low = _estrin(powers, coefficients[split:])
    return _fma(powers[level], high, low)


def _logk(d: np.ndarray) -> Pair:
    e, x = _log_reduce(d)
    x2 = _square(x)
    x4 = x2[0] * x2[0]
    x8 = x4 * x4
    t = _estrin([x2[0], x4, x8, x8 * x8], _LOG_POLY_D)
    s = _mul_pair_value(_LN2_D, e)
    s = _add_pairs(s, (x[0] * 2, x[1] * 2))
    x3 = _mul_pairs(x2, x)
    s = _add_pairs(s, _mul_pairs(x3, _LOG_C_D))
    return _add_pairs(s, _mul_pair_value(_mul_pairs(x2, x3), t))


def _pow2i(q: np.ndarray) -> np.ndarray:
    """``vpow2i_vd_vi``: ``2**q`` built from its exponent bits (int32 arithmetic)."""
    high = ((q + 0x3FF) << 20).astype(np.int32).view(np.uint32).astype(np.uint64)
    return (high << np.uint64(32)).view(_F64)


def _expk(d: Pair) -> np.ndarray:
    dq = np.rint((d[0] + d[1]) * _R_LN2)
    q = _round_to_int32(dq)
    s = _add_pair_value(d, dq * -_L2U)
    s = _normalize(_add_pair_value(s, dq * -_L2L))
    s2 = s[0] * s[0]
    s4 = s2 * s2
    u = _estrin([s[0], s2, s4, s4 * s4], _EXP_POLY_D)
    t = _add_value_pair(_F64(1), s)
    t = _add_pairs(t, _mul_pair_value(_square(s), u))
    half = q >> 1
    result = (t[0] + t[1]) * _pow2i(half) * _pow2i(q - half)
    return np.where(d[0] < -1000, _F64(0), result)


def _pow_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    d = _mul_pair_value(_logk(np.abs(x)), y)
    result = np.where(d[0] > _LOG_DBL_MAX, _F64(np.inf), _expk(d))
    return _special_cases(x, y, result)


def powd_u10(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x ** y`` for float64 as Sleef's ``Sleef_powd8_u10`` (and ``Sleef_powd4_u10``)
    computes it, elementwise with broadcasting. ``x`` and ``y`` are cast to float64.

    Example: ``powd_u10(np.float64([3.0]), np.float64([0.5]))``."""
    return _chunked(_pow_kernel, x, y, _F64)
