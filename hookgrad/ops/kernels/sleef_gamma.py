"""Sleef's ``lgamma``, bit for bit: what torch's ``lgamma`` computes on the CPU.

torch's ``lgamma`` runs every element (the loop's tail too) through ``Vectorized<T>::lgamma``,
which is Sleef's ``Sleef_lgammaf16_u10`` / ``Sleef_lgammad8_u10`` on AVX-512 (``..f8``/``..d4``
on AVX2; the same arithmetic). Sleef computes ``log|Gamma(a)|`` as a pair (an unevaluated
sum of two numbers): ``gammafk``/``gammak`` in ``src/libm/sleefsimdsp.c`` and
``sleefsimddp.c`` give the logarithm of a Stirling series (or of a rational approximation
near 1 and 2) and a factor whose logarithm ``logk2f``/``logk2`` adds, with the reflection
``Gamma(a) Gamma(1 - a) = pi / sin(pi a)`` below 1/2. Each step below is Sleef's operation
on the same values, in the element's own precision, with each fused multiply-add rounded
once (``hookgrad.ops.kernels.fma``); the pair arithmetic is that of Sleef's
``src/common/df.h`` and ``dd.h`` (their FMA versions). One implementation serves float32
and float64, with the constants and degrees of each.

Example::

    lgamma(np.float32([0.5, 3.0]))  # as Sleef_lgammaf16_u10: [0.5723649, 0.6931472]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.kernels.fma import fma32, fma64

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
Pair = tuple[np.ndarray, np.ndarray]


def _fma(a: Any, b: Any, c: Any, dtype: np.dtype) -> np.ndarray:
    """``a * b + c`` rounded once, in ``dtype``."""
    return fma32(a, b, c) if dtype == _F32 else fma64(a, b, c)


# ---------------------------------------------------------------- pair arithmetic (df.h, dd.h)


def _add2(x: Pair, y: Pair) -> Pair:
    """``dfadd2_vf2_vf2_vf2``: the sum of two pairs, any magnitudes (a number is a pair
    with a zero second part, which the formula adds exactly)."""
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def _add2_value(x: Pair, y: np.ndarray) -> Pair:
    """``dfadd2_vf2_vf2_vf``: a pair plus a number, any magnitudes."""
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _add2_values(x: np.ndarray, y: np.ndarray) -> Pair:
    """``dfadd2_vf2_vf_vf``: two numbers' exact sum (Knuth's two-sum)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _add2_value_pair(x: np.ndarray, y: Pair) -> Pair:
    """``dfadd2_vf2_vf_vf2``: a number plus a pair, any magnitudes."""
    s = x + y[0]
    v = s - x
    return s, ((x - (s - v)) + (y[0] - v)) + y[1]


def _add(x: Pair, y: Pair) -> Pair:
    """``dfadd_vf2_vf2_vf2``: the sum of two pairs with ``|x| >= |y|``."""
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _normalize(x: Pair) -> Pair:
    s = x[0] + x[1]
    return s, (x[0] - s) + x[1]


def _neg(x: Pair) -> Pair:
    return -x[0], -x[1]


def _abs(x: Pair) -> Pair:
    """``dfabs``: the magnitude, the second part's sign flipped with the first's."""
    return np.abs(x[0]), np.where(np.signbit(x[0]), -x[1], x[1])


def _scale(x: Pair, s: Any) -> Pair:
    return x[0] * s, x[1] * s


def _mul_values(x: np.ndarray, y: np.ndarray) -> Pair:
    """``dfmul_vf2_vf_vf``: the exact product of two numbers."""
    s = x * y
    return s, _fma(x, y, -s, s.dtype)


def _mul_value(x: Pair, y: np.ndarray) -> Pair:
    """``dfmul_vf2_vf2_vf``."""
    s = x[0] * y
    return s, _fma(x[1], y, _fma(x[0], y, -s, s.dtype), s.dtype)


def _mul(x: Pair, y: Pair) -> Pair:
    """``dfmul_vf2_vf2_vf2``."""
    s = x[0] * y[0]
    low = _fma(x[1], y[0], _fma(x[0], y[0], -s, s.dtype), s.dtype)
    return s, _fma(x[0], y[1], low, s.dtype)


def _square(x: Pair) -> Pair:
    """``dfsqu_vf2_vf2``."""
    s = x[0] * x[0]
    return s, _fma(x[0] + x[0], x[1], _fma(x[0], x[0], -s, s.dtype), s.dtype)


def _div(n: Pair, d: Pair) -> Pair:
    """``dfdiv_vf2_vf2_vf2``: one reciprocal and fused corrections."""
    dtype = n[0].dtype
    t = 1 / d[0]
    s = n[0] * t
    u = _fma(t, n[0], -s, dtype)
    v = _fma(-d[1], t, _fma(-d[0], t, np.ones_like(t), dtype), dtype)
    return s, _fma(s, v, _fma(n[1], t, u, dtype), dtype)


def _where(condition: np.ndarray, x: Pair, y: Pair) -> Pair:
    return np.where(condition, x[0], y[0]), np.where(condition, x[1], y[1])


def _constant(value: float, dtype: np.dtype, low: float | None = None) -> Pair:
    """A constant as a pair in ``dtype``: Sleef's ``vcast_vf2_d`` (the double's float
    rounding and the rest) or, given ``low``, the two numbers (``vcast_vd2_d_d``)."""
    high = dtype.type(value)
    if low is None:
        low = dtype.type(value - float(high))
    return np.asarray(high, dtype), np.asarray(low, dtype)


# ---------------------------------------------------------------- logk2 and sinpik


def _exponent(d: np.ndarray) -> np.ndarray:
    """``vrint(vgetexp(d))`` for positive ``d``: ``floor(log2(d))`` as an integer (0 for
    zeros, infinities and NaNs, which only the special cases reach)."""
    exponent = np.frexp(d)[1].astype(np.int64) - 1
    return np.where(np.isfinite(d) & (d != 0), exponent, 0)


_LN2 = {
    _F32: (0.69314718246459960938, -1.904654323148236017e-09),
    _F64: (0.693147180559945286226764, 2.319046813846299558417771e-17),
}
_LOG_POLY_F = (
    0.2392828464508056640625,
    0.28518211841583251953125,
    0.400005877017974853515625,
    0.666666686534881591796875,
)
_LOG_POLY_D = (
    0.13860436390467167910856,
    0.131699838841615374240845,
    0.153914168346271945653214,
    0.181816523941564611721589,
    0.22222224632662035403996,
    0.285714285511134091777308,
    0.400000000000914013309483,
)


def _logk2(d: Pair) -> Pair:
    """``logk2f``/``logk2``: the logarithm of a positive pair, as a pair."""
    dtype = d[0].dtype
    e = _exponent(d[0] * dtype.type(1.0 / 0.75))
    # Both parts scaled by 2^-e, exactly: dfscale by vpow2i (float32), ldexp2 (float64).
    m = (np.ldexp(d[0], -e), np.ldexp(d[1], -e))
    one = np.ones((), dtype)
    x = _div(_add2_value(m, -one), _add2_value(m, one))
    x2 = _square(x)
    if dtype == _F32:
        t = np.full_like(x2[0], _LOG_POLY_F[0])
        for c in _LOG_POLY_F[1:]:
            t = _fma(t, x2[0], dtype.type(c), dtype)
    else:
        t = _poly7(x2[0], _LOG_POLY_D)
        t = _fma(t, x2[0], dtype.type(0.666666666666664853302393), dtype)
    s = _mul_value(_constant(_LN2[dtype][0], dtype, _LN2[dtype][1]), e.astype(dtype))
    s = _add(s, _scale(x, dtype.type(2)))
    return _add(s, _mul_value(_mul(x2, x), t))


def _poly7(x: np.ndarray, c: tuple[float, ...]) -> np.ndarray:
    """Sleef's ``POLY7`` (Estrin's scheme, highest coefficient first)."""
    dtype = x.dtype
    x2 = x * x
    x4 = x2 * x2

    def k(v: float) -> np.ndarray:
        return np.asarray(v, dtype)

    high = _fma(x2, k(c[0]), _fma(x, k(c[1]), k(c[2]), dtype), dtype)
    low = _fma(x2, _fma(x, k(c[3]), k(c[4]), dtype), _fma(x, k(c[5]), k(c[6]), dtype), dtype)
    return _fma(x4, high, low, dtype)


_SINPI_F = {
    "u": (
        (-0.2430611801e-7, 0.3093842054e-6),
        (0.3590577080e-5, -0.3657307388e-4),
        (-0.3259917721e-3, 0.2490393585e-2),
    ),
    "c1": (
        (0.015854343771934509277, 4.4940051354032242811e-10),
        (-0.080745510756969451904, -1.3373665339076936258e-09),
    ),
    "c0": (
        (-0.30842512845993041992, -9.0728339030733922277e-09),
        (0.78539818525314331055, -2.1857338617566484855e-08),
    ),
}
_SINPI_D = {
    "u": (
        (9.94480387626843774090208e-16, -2.02461120785182399295868e-14),
        (-3.89796226062932799164047e-13, 6.948218305801794613277840e-12),
        (1.150115825399960352669010e-10, -1.75724749952853179952664e-09),
        (-2.46113695010446974953590e-08, 3.133616889668683928784220e-07),
        (3.590860448590527540050620e-06, -3.65762041821615519203610e-05),
        (-0.000325991886927389905997954, 0.0024903945701927185027435600),
    ),
    "c1": (
        (0.0158543442438155018914259, -1.04693272280631521908845e-18),
        (-0.0807455121882807852484731, 3.61852475067037104849987e-18),
    ),
    "c0": (
        (-0.308425137534042437259529, -1.95698492133633550338345e-17),
        (0.785398163397448278999491, 3.06287113727155002607105e-17),
    ),
}


def _sinpik(d: np.ndarray) -> Pair:
    """``sinpifk``/``sinpik``: ``sin(pi d)`` as a pair, for ``|d|`` below 2^24 (2^31)."""
    dtype = d.dtype
    table = _SINPI_F if dtype == _F32 else _SINPI_D
    u = d * dtype.type(4.0)
    q = np.trunc(u).astype(np.int64)
    q = (q + ((q < 0).astype(np.int64) ^ 1)) & ~1
    o = (q & 2) == 2
    s = u - q.astype(dtype)
    t = s
    s = s * s
    s2 = _mul_values(t, t)
    first = table["u"][0]
    poly = np.where(o, dtype.type(first[0]), dtype.type(first[1]))
    for odd, even in table["u"][1:]:
        poly = _fma(poly, s, np.where(o, dtype.type(odd), dtype.type(even)), dtype)

    def select(pair: tuple) -> Pair:
        (h1, l1), (h0, l0) = pair
        return np.where(o, dtype.type(h1), dtype.type(h0)), np.where(
            o, dtype.type(l1), dtype.type(l0)
        )

    x = _add2_value_pair(poly * s, select(table["c1"]))
    x = _add2(_mul(s2, x), select(table["c0"]))
    x = _mul(x, _where(o, s2, (t, np.zeros_like(t))))
    x = _where(o, _add2_value(x, np.ones((), dtype)), x)
    flip = (q & 4) == 4
    return np.where(flip, -x[0], x[0]), np.where(flip, -x[1], x[1])


# ---------------------------------------------------------------- gammak


# The polynomial of gammafk/gammak in t: for x >= 2.3 (Stirling's series in 1/x), for
# 0.5 <= x <= 1.2 (1.1 for double) and otherwise, highest degree first.
_GAMMA_U_F = (
    (0.000839498720672087279971000786, 0.9435157776e0, 0.1102489550e-3),
    (-5.17179090826059219329394422e-05, 0.8670063615e0, 0.8160019934e-4),
    (-0.000592166437353693882857342347, 0.4826702476e0, 0.1528468856e-3),
    (6.97281375836585777403743539e-05, -0.8855129778e-1, -0.2355068718e-3),
    (0.000784039221720066627493314301, 0.1013825238e0, 0.4962242092e-3),
    (-0.000229472093621399176949318732, -0.1493408978e0, -0.1193488017e-2),
    (-0.002681327160493827160473958490, 0.1697509140e0, 0.2891599433e-2),
    (0.003472222222222222222175164840, -0.2072454542e0, -0.7385451812e-2),
    (0.083333333333333333335592087900, 0.2705872357e0, 0.2058077045e-1),
)
_GAMMA_U_D = (
    (-156.801412704022726379848862, 0.2947916772827614196e2, 0.7074816000864609279e-7),
    (1.120804464289911606838558160000, 0.1281459691827820109e3, 0.4009244333008730443e-6),
    (13.39798545514258921833306020000, 0.2617544025784515043e3, 0.1040114641628246946e-5),
    (-0.116546276599463200848033357000, 0.3287022855685790432e3, 0.1508349150733329167e-5),
    (-1.391801093265337481495562410000, 0.2818145867730348186e3, 0.1288143074933901020e-5),
    (0.015056113040026424412918973400, 0.1728670414673559605e3, 0.4744167749884993937e-6),
    (0.179540117061234856098844714000, 0.7748735764030416817e2, -0.6554816306542489902e-7),
    (-0.002481743600264997730942489280, 0.2512856643080930752e2, -0.3189252471452599844e-6),
    (-0.029527880945699120504851034100, 0.5766792106140076868e1, 0.1358883821470355377e-6),
    (0.000540164767892604515196325186, 0.7270275473996180571e0, -0.4343931277157336040e-6),
    (0.006403362833808069794787256200, 0.8396709124579147809e-1, 0.9724785897406779555e-6),
    (-0.000162516262783915816896611252, -0.8211558669746804595e-1, -0.2036886057225966011e-5),
    (-0.001914438498565477526465972390, 0.6828831828341884458e-1, 0.4373363141819725815e-5),
    (7.20489541602001055898311517e-05, -0.7712481339961671511e-1, -0.9439951268304008677e-5),
    (0.000839498720672087279971000786, 0.8337492023017314957e-1, 0.2050727030376389804e-4),
    (-5.17179090826059219329394422e-05, -0.9094964931456242518e-1, -0.4492620183431184018e-4),
    (-0.000592166437353693882857342347, 0.1000996313575929358e0, 0.9945751236071875931e-4),
    (6.97281375836585777403743539e-05, -0.1113342861544207724e0, -0.2231547599034983196e-3),
    (0.000784039221720066627493314301, 0.1255096673213020875e0, 0.5096695247101967622e-3),
    (-0.000229472093621399176949318732, -0.1440498967843054368e0, -0.1192753911667886971e-2),
    (-0.002681327160493827160473958490, 0.1695571770041949811e0, 0.2890510330742210310e-2),
    (0.003472222222222222222175164840, -0.2073855510284092762e0, -0.7385551028674461858e-2),
    (0.083333333333333333335592087900, 0.2705808084277815939e0, 0.2058080842778455335e-1),
)


class _Precision:
    """The constants in which ``gammafk`` (float32) and ``gammak`` (float64) differ."""

    def __init__(self, dtype: np.dtype) -> None:
        single = dtype == _F32
        self.tiny = 1e-30 if single else 1e-306
        self.near_one_top = 1.2 if single else 1.1
        self.rising = 2 if single else 4  # x (x + 1) ... before the shift
        self.u = _GAMMA_U_F if single else _GAMMA_U_D
        self.z = (
            (
                (-0.400686534596170958447352690395, -0.673523028297382446749257758235e-1),
                (0.822466960142643054450325495997, 0.322467033928981157743538726901),
                (-0.577215665946766039837398973297, 0.422784335087484338986941629852),
            )
            if single
            else (
                (-0.4006856343865314862, -0.6735230105319810201e-1),
                (0.8224670334241132030, 0.3224670334241132030),
                (-0.5772156649015328655, 0.4227843350984671345),
            )
        )
        self.half_log_2pi = (0.91893853320467278056, None if single else -3.8782941580672414498e-17)
        self.log_tiny = (
            (41.58883083359671856503, None)
            if single
            else (83.1776616671934334590333, 3.67103459631568507221878e-15)
        )
        self.log_pi = (1.1447298858494001639, None if single else 1.026595116270782638e-17)
        self.period = 1 << 12 if single else 1 << 28
        self.tiny_scale = 2.0**60 if single else 2.0**120


def _gammak(a: np.ndarray) -> tuple[Pair, Pair]:
    """``gammafk``/``gammak``: ``log|Gamma(a)|`` as ``clc + log|clln / clld|``, returned as
    the pairs ``clc`` and ``clln / clld``."""
    dtype = a.dtype
    k = _Precision(dtype)
    zero = np.zeros_like(a)
    one = np.ones((), dtype)
    otiny = np.abs(a) < dtype.type(k.tiny)
    oref = a < dtype.type(0.5)
    x = _where(oref, _add2_values(one, -a), (a, zero))
    x = _where(otiny, (zero, zero), x)
    o0 = (dtype.type(0.5) <= x[0]) & (x[0] <= dtype.type(k.near_one_top))
    o2 = dtype.type(2.3) <= x[0]

    y = _normalize(_mul(_add2_value(x, one), x))
    for step in range(2, k.rising + 1):
        y = _normalize(_mul(_add2_value(x, dtype.type(step)), y))
    o = o2 & (x[0] <= dtype.type(7))
    clln = _where(o, y, (np.ones_like(a), zero))
    x = _where(o, _add2_value(x, dtype.type(k.rising + 1)), x)
    shifted = _normalize(_add2_value(x, np.where(o0, dtype.type(-1), dtype.type(-2))))
    with np.errstate(divide="ignore"):
        t = np.where(o2, 1 / x[0], shifted[0])

    def pick(row: tuple[float, float, float]) -> np.ndarray:
        return np.where(
            o2, dtype.type(row[0]), np.where(o0, dtype.type(row[1]), dtype.type(row[2]))
        )

    u = pick(k.u[0])
    for row in k.u[1:]:
        u = _fma(u, t, pick(row), dtype)

    y = _mul(_add2_value(x, dtype.type(-0.5)), _logk2(x))
    y = _add2(y, _neg(x))
    y = _add2(y, _constant(k.half_log_2pi[0], dtype, k.half_log_2pi[1]))

    def z_constant(pair: tuple[float, float]) -> np.ndarray:
        return np.where(o0, dtype.type(pair[0]), dtype.type(pair[1]))

    z = _add2_value(_mul_values(u, t), z_constant(k.z[0]))
    z = _add2_value(_mul_value(z, t), z_constant(k.z[1]))
    z = _add2_value(_mul_value(z, t), z_constant(k.z[2]))
    z = _mul_value(z, t)

    clc = _where(o2, y, z)
    clld = _where(o2, _add2_value(_mul_values(u, t), one), (np.ones_like(a), zero))
    y = clln

    log_pi = _constant(k.log_pi[0], dtype, k.log_pi[1])
    clc = _where(oref, _add2(log_pi, _neg(clc)), clc)
    clc = _where(otiny, _constant(k.log_tiny[0], dtype, k.log_tiny[1]), clc)
    clln = _where(oref, clln, clld)
    clln = _where(otiny, (np.ones_like(a), zero), clln)

    # The reflection's sin(pi a), of a reduced modulo the period (exact for |a| < 2^31).
    period = dtype.type(k.period)
    with np.errstate(invalid="ignore"):
        whole = np.trunc(a * dtype.type(1.0 / k.period))
    whole = np.where(np.abs(whole) < 2.0**31, whole, dtype.type(-(2.0**31)))
    reflected = _mul(clld, _sinpik(a - period * whole.astype(dtype)))

    clld = _where(oref, reflected, y)
    clld = _where(otiny, (a * dtype.type(k.tiny_scale), zero), clld)
    return clc, _div(clln, clld)


def lgamma(a: np.ndarray) -> np.ndarray:
    """``log|Gamma(a)|`` of a float32 or float64 array as Sleef's ``xlgammaf_u1`` /
    ``xlgamma_u1`` computes it: inf at the poles (0 and the negative integers) and at
    ``±inf``, NaN for NaN.

    Example: ``lgamma(np.float64([0.5]))`` is ``[0.5723649429247001]``."""
    a = np.asarray(a)
    shape = a.shape
    flat = a.reshape(-1)
    with np.errstate(all="ignore"):
        clc, ratio = _gammak(flat)
        y = _add2(clc, _logk2(_abs(ratio)))
        r = y[0] + y[1]
        integer = np.trunc(flat) == flat
        infinite = np.isinf(flat) | ((flat <= 0) & integer) | (np.isfinite(flat) & np.isnan(r))
        r = np.where(infinite, np.inf, r)
        r = np.where(np.isnan(flat), np.nan, r).astype(a.dtype)
    return r.reshape(shape)
