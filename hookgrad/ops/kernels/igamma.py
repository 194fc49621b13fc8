"""torch's regularised incomplete gamma functions ``igamma`` and ``igammac`` (ATen's
``calc_igamma``/``calc_igammac`` in ``native/Math.h``, after SciPy's), vectorised as the
other Cephes ports (``hookgrad.ops.kernels.cephes``): Cephes' series and continued
fraction, Temme's uniform asymptotic expansion where ``a`` is large and ``x`` near it, and
Boost's Lanczos approximation for the factor ``x^a e^-x / Gamma(a)``, in the element's type
and with the multiply-adds fused where torch's compiled copy fuses them.

Example::

    igamma(np.float64([1.0]), np.float64([1.0]))  # [0.6321205588285577] (1 - 1/e)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.kernels import cpu, libm
from hookgrad.ops.kernels.cephes_common import elementwise, fmadd
from hookgrad.ops.kernels.igamma_temme import IGAM_D
from hookgrad.ops.kernels.pow import scalar_lanes
from hookgrad.ops.strides import contiguous_strides, iterator_strides

_F64 = np.float64
_PI = math.pi


_LANCZOS_NUM = (
    0.006061842346248906525783753964555936883222,
    0.5098416655656676188125178644804694509993,
    19.51992788247617482847860966235652136208,
    449.9445569063168119446858607650988409623,
    6955.999602515376140356310115515198987526,
    75999.29304014542649875303443598909137092,
    601859.6171681098786670226533699352302507,
    3481712.15498064590882071018964774556468,
    14605578.08768506808414169982791359218571,
    43338889.32467613834773723740590533316085,
    86363131.28813859145546927288977868422342,
    103794043.1163445451906271053616070238554,
    56906521.91347156388090791033559122686859,
)
_LANCZOS_DENOM = (
    1.0,
    66.0,
    1925.0,
    32670.0,
    357423.0,
    2637558.0,
    13339535.0,
    45995730.0,
    105258076.0,
    150917976.0,
    120543840.0,
    39916800.0,
    0.0,
)
_LANCZOS_G = 6.024680040776729583740234375
_MAXITER = 2000


def _machep(dtype: np.dtype) -> float:
    return 1.11022302462515654042e-16 if dtype == _F64 else 5.9604644775390625e-8


def _wide(x: np.ndarray) -> np.ndarray:
    """``x`` as a double, as C widens a float where an expression mixes in a double."""
    return x.astype(_F64)


def _mul_add(a: np.ndarray, b: Any, c: Any, fused: bool) -> np.ndarray:
    """``a * b + c``: fused (``fmadd``) or rounded twice, as the copy of the C++ in use was
    compiled (see ``igamma``)."""
    return fmadd(a, b, c) if fused else a * b + c


def _ratevl(x: np.ndarray, numerator: tuple, denominator: tuple, fused: bool) -> np.ndarray:
    """Cephes' ``ratevl`` for equal degrees: ``P(x) / Q(x)``, evaluated in ``1 / x`` past
    ``|x| = 1``, where C's ``pow(x, 0)`` makes the quotient a double."""
    large = np.abs(x) > 1
    y = np.where(large, 1 / x, x)
    count = len(numerator)
    p = np.where(large, numerator[-1], numerator[0]).astype(x.dtype)
    q = np.where(large, denominator[-1], denominator[0]).astype(x.dtype)
    for i in range(1, count):
        low, high = numerator[i], numerator[count - 1 - i]
        p = _mul_add(p, y, np.where(large, high, low).astype(x.dtype), fused)
        low, high = denominator[i], denominator[count - 1 - i]
        q = _mul_add(q, y, np.where(large, high, low).astype(x.dtype), fused)
    return np.where(large, (_wide(p) / _wide(q)).astype(x.dtype), p / q)


def _igam_fac(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    """``x^a e^-x / Gamma(a)`` (``_igam_helper_fac``): from logarithms where ``x`` is far
    from ``a``, else by the Lanczos approximation."""
    dtype = a.dtype
    tiny = 7.09782712893383996843e2 if dtype == _F64 else 88.72283905206835
    g = dtype.type(_LANCZOS_G)
    out = np.empty_like(a)
    far = _wide(np.abs(a - x)) > 0.4 * _wide(np.abs(a))
    af, xf = a[far], x[far]
    ax = _mul_add(af, libm.log(xf), -xf, fused) - libm.lgamma(af)
    out[far] = np.where(ax < dtype.type(-tiny), 0, libm.exp(ax))
    an, xn = a[~far], x[~far]
    fac = (_wide(an + g) - 0.5).astype(dtype)
    lanczos = _ratevl(an, _LANCZOS_NUM, _LANCZOS_DENOM, fused)
    res = np.sqrt(fac / dtype.type(2.718281828459045)) / lanczos
    small = (an < 200) & (xn < 200)
    near = res * (libm.exp(an - xn) * libm.pow(xn / fac, an))
    num = (_wide((xn - an) - g) + 0.5).astype(dtype)
    numfac = num / fac
    spread = _wide(xn) * (0.5 - float(g)) / _wide(fac)
    if dtype == _F64:
        exponent = _mul_add(an, libm.log1p(numfac) - numfac, spread, fused)
    else:
        exponent = _wide(an * (libm.log1p(numfac) - numfac)) + spread
    large = (_wide(res) * libm.exp(exponent)).astype(dtype)
    out[~far] = np.where(small, near, large)
    return out


def _running(*arrays: np.ndarray) -> np.ndarray:
    """The indices where a series is summed: NaN arguments give NaN anyway (C runs its
    loop to the end for them)."""
    finite = np.ones(arrays[0].shape, bool)
    for array in arrays:
        finite &= ~np.isnan(array)
    return np.flatnonzero(finite)


def _igam_series(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    """The lower regularised incomplete gamma function by its power series (DLMF 8.11.4,
    ``_igam_helper_series``)."""
    dtype = a.dtype.type
    machep = dtype(_machep(a.dtype))
    ax = _igam_fac(a, x, fused)
    r, c, ans = a.copy(), np.ones_like(a), np.ones_like(a)
    active = _running(a, x, ax)
    active = active[ax[active] != 0]
    for _ in range(_MAXITER):
        if not active.size:
            break
        r[active] += 1
        c[active] *= x[active] / r[active]
        ans[active] += c[active]
        active = active[~(c[active] <= machep * ans[active])]
    return np.where(ax == 0, 0, ans * ax / a).astype(a.dtype)


def _igamc_series(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    """The upper regularised incomplete gamma function for small ``x`` (DLMF 8.7.3,
    ``_igamc_helper_series``)."""
    dtype = a.dtype.type
    machep = dtype(_machep(a.dtype))
    fac, total = np.ones_like(a), np.zeros_like(a)
    active = _running(a, x)
    for n in range(1, _MAXITER):
        if not active.size:
            break
        fac[active] *= -x[active] / dtype(n)
        term = fac[active] / (a[active] + dtype(n))
        total[active] += term
        active = active[~(np.abs(term) <= machep * np.abs(total[active]))]
    log_x = libm.log(x)
    term = -libm.expm1(_mul_add(a, log_x, -libm.lgamma(1 + a), fused))
    factor = libm.exp(_mul_add(a, log_x, -libm.lgamma(a), fused))
    return _mul_add(-factor, total, term, fused)


def _igam_asymptotic(a: np.ndarray, x: np.ndarray, lower: bool) -> np.ndarray:
    """Temme's uniform asymptotic expansion for large ``a`` near ``x`` (DLMF 8.12.3 and
    8.12.4, ``_igam_helper_asymptotic_series``): ``erfc`` of ``eta sqrt(a/2)`` plus a
    double sum over the rows of ``IGAM_D``, each row cut where its terms fall below
    MACHEP and the sum where its terms stop decreasing."""
    dtype = a.dtype
    machep = dtype.type(_machep(dtype))
    sign = -1 if lower else 1
    lam = x / a
    sigma = (x - a) / a
    eta = np.sqrt(-2 * (libm.log1p(sigma) - sigma))
    eta = np.where(lam > 1, eta, np.where(lam < 1, -eta, 0)).astype(dtype)
    res = (0.5 * _wide(libm.erfc(sign * eta * np.sqrt(a / 2)))).astype(dtype)
    powers = [np.ones_like(eta)]
    for _ in range(24):
        powers.append(eta * powers[-1])
    total = np.zeros_like(a)
    afac = np.ones_like(a)
    old = np.full_like(a, np.inf)
    active = np.ones(a.shape, bool)
    for row in IGAM_D.astype(dtype):
        ck = np.full_like(a, row[0])
        open_ = active.copy()
        for n in range(1, 25):
            term = row[n] * powers[n]
            ck = np.where(open_, ck + term, ck)
            open_ &= ~(np.abs(term) < machep * np.abs(ck))
        term = ck * afac
        magnitude = np.abs(term)
        active &= ~(magnitude > old)
        total = np.where(active, total + term, total)
        active &= ~(magnitude < machep * np.abs(total))
        old = np.where(active, magnitude, old)
        afac = afac / a
    # C: sqrt(2 * (float)pi * a), with 2 * pi in float also for double.
    two_pi = 2 * np.float32(_PI)
    scale = np.sqrt(two_pi * a) if dtype != _F64 else np.sqrt(float(two_pi) * a)
    weight = sign * libm.exp(-0.5 * _wide(a) * _wide(eta) * _wide(eta))
    return (_wide(res) + weight * _wide(total) / _wide(scale)).astype(dtype)


def _igamc_fraction(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    """The upper regularised incomplete gamma function by its continued fraction (DLMF
    8.9.2, ``_igamc_helper_continued_fraction``), rescaled when its terms grow large."""
    dtype = a.dtype
    t = dtype.type
    float32 = dtype != _F64
    machep = t(_machep(dtype))
    big = t(16777216.0 if float32 else 4.503599627370496e15)
    biginv = t(5.9604644775390625e-8 if float32 else 2.22044604925031308085e-16)
    ax = _igam_fac(a, x, fused)
    y = (1.0 - _wide(a)).astype(dtype)
    z = (_wide(x + y) + 1.0).astype(dtype)
    c = np.zeros_like(a)
    pkm2, qkm2 = np.ones_like(a), x.copy()
    pkm1 = (_wide(x) + 1.0).astype(dtype)
    qkm1 = z * x
    ans = pkm1 / qkm1
    active = _running(a, x, ax)
    active = active[ax[active] != 0]
    for _ in range(_MAXITER):
        if not active.size:
            break
        i = active
        c[i] += 1
        y[i] += 1
        z[i] += 2
        yc = y[i] * c[i]
        pk = _mul_add(pkm1[i], z[i], -(pkm2[i] * yc), fused)
        qk = _mul_add(qkm1[i], z[i], -(qkm2[i] * yc), fused)
        nonzero = qk != 0
        r = np.where(nonzero, pk / np.where(nonzero, qk, 1), 0)
        change = np.where(nonzero, np.abs((ans[i] - r) / r), 1)
        ans[i] = np.where(nonzero, r, ans[i])
        pkm2[i], pkm1[i], qkm2[i], qkm1[i] = pkm1[i], pk, qkm1[i], qk
        scale = np.abs(pk) > big
        for array in (pkm2, pkm1, qkm2, qkm1):
            array[i] = np.where(scale, array[i] * biginv, array[i])
        active = i[~(change <= machep)]
    return np.where(ax == 0, 0, ans * ax).astype(dtype)


def _asymptotic_regime(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Where Temme's expansion is used: ``20 < a < 200`` and ``|x - a| / a < 0.3``, or
    ``a > 200`` and ``|x - a| / a < 4.5 / sqrt(a)``."""
    t = a.dtype.type
    ratio = np.abs(x - a) / a
    moderate = (a > 20) & (a < 200) & (ratio < t(0.3))
    return moderate | ((a > 200) & (ratio < t(4.5) / np.sqrt(a)))


def _one_minus(values: np.ndarray) -> np.ndarray:
    """C's ``1.0 - v`` for a value of the element's type: in double, then rounded."""
    return (1.0 - _wide(values)).astype(values.dtype)


def _igammac_interior(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    """``calc_igammac`` past its boundary cases (``a, x`` finite and positive)."""
    out = np.empty_like(a)
    asymptotic = _asymptotic_regime(a, x)
    out[asymptotic] = _igam_asymptotic(a[asymptotic], x[asymptotic], lower=False)
    rest = ~asymptotic
    ar, xr = a[rest], x[rest]
    wide = _wide(xr)
    # Which method, by the C++'s comparisons (mostly with double literals).
    large_x = wide > 1.1
    small_x = (wide <= 0.5) & (-0.4 / _wide(libm.log(xr)) < _wide(ar))
    middle_x = ~large_x & (wide > 0.5) & (wide * 1.1 < _wide(ar))
    lower = (large_x & (xr < ar)) | small_x | middle_x
    fraction = large_x & ~lower
    value = np.empty_like(ar)
    value[lower] = _one_minus(_igam_series(ar[lower], xr[lower], fused))
    value[fraction] = _igamc_fraction(ar[fraction], xr[fraction], fused)
    series = ~lower & ~fraction
    value[series] = _igamc_series(ar[series], xr[series], fused)
    out[rest] = value
    return out


def _boundaries(a: np.ndarray, x: np.ndarray, lower: bool) -> tuple[np.ndarray, np.ndarray]:
    """The values ``calc_igamma`` (``lower``) or ``calc_igammac`` gives without computing,
    and where: NaN for negative arguments, the limits at ``a == 0``, ``x == 0`` and at
    infinities."""
    one, zero = (1.0, 0.0) if lower else (0.0, 1.0)
    value = np.full_like(a, np.nan)
    known = (x < 0) | (a < 0)
    at_zero = ~known & (a == 0)
    value[at_zero] = np.where(x[at_zero] > 0, one, np.nan)
    known |= at_zero
    x_zero = ~known & (x == 0)
    value[x_zero] = zero
    known |= x_zero
    a_inf = ~known & np.isinf(a)
    value[a_inf] = np.where(np.isinf(x[a_inf]), np.nan, zero)
    known |= a_inf
    x_inf = ~known & np.isinf(x)
    value[x_inf] = one
    return value, known | x_inf


# NOTE: which multiply-adds are fused depends on the copy of the C++ that runs: torch's
# kernels inline ``calc_igamma`` and ``calc_igammac`` (compiled with FMA), but the
# ``calc_igammac`` that ``calc_igamma`` calls for ``x > max(1, a)`` is an out-of-line copy
# compiled without it; the sum of each row of Temme's expansion is never fused (its term
# is also tested).
_FUSED = True
_UNFUSED = False


@elementwise
def igammac(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The upper regularised incomplete gamma function ``Gamma(a, x) / Gamma(a)``
    (torch's ``calc_igammac``)."""
    out, known = _boundaries(a, x, lower=False)
    rest = ~known
    out[rest] = _igammac_interior(a[rest], x[rest], _FUSED)
    return out


def _igamma_lanes(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    """``calc_igamma`` on flat arrays, its own series fused or not."""
    with np.errstate(all="ignore"):
        out, known = _boundaries(a, x, lower=True)
        rest = ~known
        ar, xr = a[rest], x[rest]
        value = np.empty_like(ar)
        asymptotic = _asymptotic_regime(ar, xr)
        value[asymptotic] = _igam_asymptotic(ar[asymptotic], xr[asymptotic], lower=True)
        upper = ~asymptotic & (xr > 1) & (xr > ar)
        value[upper] = _one_minus(_igammac_interior(ar[upper], xr[upper], _UNFUSED))
        series = ~asymptotic & ~upper
        value[series] = _igam_series(ar[series], xr[series], fused)
        out[rest] = value
    return out


def igamma(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The lower regularised incomplete gamma function ``gamma(a, x) / Gamma(a)``
    (torch's ``calc_igamma``): ``1 - igammac`` where ``x > 1`` and ``x > a``, else its
    power series (or Temme's expansion).

    NOTE: the copy torch's vector lanes run fuses the series' multiply-adds and the one
    its scalar lambda runs (a loop's last elements, short tensors) does not, so the
    elements are split as ``TensorIterator`` walks them (``a`` and ``x`` with torch's
    strides; the result is C-contiguous)."""
    shape = np.broadcast_shapes(a.shape, x.shape)
    if not math.prod(shape):
        return np.empty(shape, a.dtype)
    strides = iterator_strides(shape, [a, x]) or contiguous_strides(shape)
    order = sorted(range(len(shape)), key=lambda dim: strides[dim])
    axes = tuple(reversed(order))
    flat_a, flat_x = (np.broadcast_to(v, shape).transpose(axes).ravel() for v in (a, x))
    if cpu.capability() == "DEFAULT":
        tail = np.arange(flat_a.size)
    else:
        tail = scalar_lanes(shape, [dim for dim in order if shape[dim] > 1], [a, x])
    out = _igamma_lanes(flat_a, flat_x, _FUSED)
    if tail.size:
        out[tail] = _igamma_lanes(flat_a[tail], flat_x[tail], _UNFUSED)
    walked = out.reshape([shape[dim] for dim in axes])
    return np.ascontiguousarray(walked.transpose(np.argsort(axes)))
