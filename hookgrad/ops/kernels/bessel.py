"""torch's Bessel and Airy functions (ATen's ``native/Math.h``, from Cephes), vectorised:
``bessel_j0``/``j1``/``y0``/``y1``, ``spherical_bessel_j0`` and ``airy_ai`` (the modified
Bessel functions are in ``hookgrad.ops.kernels.modified_bessel``).

As in ``hookgrad.ops.kernels.cephes``, each function runs torch's scalar C++ on whole
arrays in the element's type (rational approximations near 0, Hankel's asymptotic forms
beyond), with the C library's ``sin``, ``cos``, ``exp``, ``log`` and the multiply-adds the
compiled code fuses. Every function takes a float32 or float64 array of any shape and
returns one of the same dtype and shape.

Example::

    bessel_j0(np.float64([0.0, 2.404825557695773]))  # [1.0, ~0.0]
"""

from __future__ import annotations

import math

import numpy as np

from hookgrad.ops.kernels import libm
from hookgrad.ops.kernels.cephes_common import elementwise, fmadd, polevl

_F64 = np.dtype(np.float64)

# ---------------------------------------------------------------- Bessel functions J and Y

_PP0 = (
    7.96936729297347051624e-04,
    8.28352392107440799803e-02,
    1.23953371646414299388e00,
    5.44725003058768775090e00,
    8.74716500199817011941e00,
    5.30324038235394892183e00,
    9.99999999999999997821e-01,
)
_PQ0 = (
    9.24408810558863637013e-04,
    8.56288474354474431428e-02,
    1.25352743901058953537e00,
    5.47097740330417105182e00,
    8.76190883237069594232e00,
    5.30605288235394617618e00,
    1.00000000000000000218e00,
)
_QP0 = (
    -1.13663838898469149931e-02,
    -1.28252718670509318512e00,
    -1.95539544257735972385e01,
    -9.32060152123768231369e01,
    -1.77681167980488050595e02,
    -1.47077505154951170175e02,
    -5.14105326766599330220e01,
    -6.05014350600728481186e00,
)
_QQ0 = (
    6.43178256118178023184e01,
    8.56430025976980587198e02,
    3.88240183605401609683e03,
    7.24046774195652478189e03,
    5.93072701187316984827e03,
    2.06209331660327847417e03,
    2.42005740240291393179e02,
)
_RP0 = (
    -4.79443220978201773821e09,
    1.95617491946556577543e12,
    -2.49248344360967716204e14,
    9.70862251047306323952e15,
)
_RQ0 = (
    4.99563147152651017219e02,
    1.73785401676374683123e05,
    4.84409658339962045305e07,
    1.11855537045356834862e10,
    2.11277520115489217587e12,
    3.10518229857422583814e14,
    3.18121955943204943306e16,
    1.71086294081043136091e18,
)
_YP0 = (
    1.55924367855235737965e04,
    -1.46639295903971606143e07,
    5.43526477051876500413e09,
    -9.82136065717911466409e11,
    8.75906394395366999549e13,
    -3.46628303384729719441e15,
    4.42733268572569800351e16,
    -1.84950800436986690637e16,
)
_YQ0 = (
    1.04128353664259848412e03,
    6.26107330137134956842e05,
    2.68919633393814121987e08,
    8.64002487103935000337e10,
    2.02979612750105546709e13,
    3.17157752842975028269e15,
    2.50596256172653059228e17,
)
_PP1 = (
    7.62125616208173112003e-04,
    7.31397056940917570436e-02,
    1.12719608129684925192e00,
    5.11207951146807644818e00,
    8.42404590141772420927e00,
    5.21451598682361504063e00,
    1.00000000000000000254e00,
)
_PQ1 = (
    5.71323128072548699714e-04,
    6.88455908754495404082e-02,
    1.10514232634061696926e00,
    5.07386386128601488557e00,
    8.39985554327604159757e00,
    5.20982848682361821619e00,
    9.99999999999999997461e-01,
)
_QP1 = (
    5.10862594750176621635e-02,
    4.98213872951233449420e00,
    7.58238284132545283818e01,
    3.66779609360150777800e02,
    7.10856304998926107277e02,
    5.97489612400613639965e02,
    2.11688757100572135698e02,
    2.52070205858023719784e01,
)
_QQ1 = (
    7.42373277035675149943e01,
    1.05644886038262816351e03,
    4.98641058337653607651e03,
    9.56231892404756170795e03,
    7.99704160447350683650e03,
    2.82619278517639096600e03,
    3.36093607810698293419e02,
)
_RP1 = (
    -8.99971225705559398224e08,
    4.52228297998194034323e11,
    -7.27494245221818276015e13,
    3.68295732863852883286e15,
)
_RQ1 = (
    6.20836478118054335476e02,
    2.56987256757748830383e05,
    8.35146791431949253037e07,
    2.21511595479792499675e10,
    4.74914122079991414898e12,
    7.84369607876235854894e14,
    8.95222336184627338078e16,
    5.32278620332680085395e18,
)
_YP1 = (
    1.26320474790178026440e09,
    -6.47355876379160291031e11,
    1.14509511541823727583e14,
    -8.12770255501325109621e15,
    2.02439475713594898196e17,
    -7.78877196265950026825e17,
)
_YQ1 = (
    5.94301592346128195359e02,
    2.35564092943068577943e05,
    7.34811944459721705660e07,
    1.87601316108706159478e10,
    3.88231277496238566008e12,
    6.20557727146953693363e14,
    6.87141087355300489866e16,
    3.97270608116560655612e18,
)
_J0_ZEROS_SQUARED = (5.78318596294678452118e00, 3.04712623436620863991e01)
_J1_ZEROS_SQUARED = (1.46819706421238932572e01, 4.92184563216946036703e01)
_SQRT_2_PI = 0.797884560802865355879892119868763737  # sqrt(2 / pi)
_PI_4 = 0.785398163397448309615660845819875721
_3PI_4 = 2.356194490192344928846982537459627163
_2_PI = 0.636619772367581343075535053490057448


def _asymptotic(x: np.ndarray, order: int, second_kind: bool) -> np.ndarray:
    """Hankel's asymptotic form for ``x > 5``: ``sqrt(2/(pi x)) (P cos(x - phase) - 5/x Q
    sin(x - phase))`` (``sin``/``cos`` swapped and ``+`` for the second kind)."""
    dtype = x.dtype.type
    pp, pq, qp, qq = (_PP0, _PQ0, _QP0, _QQ0) if order == 0 else (_PP1, _PQ1, _QP1, _QQ1)
    if order == 0:
        w = dtype(25.0) / (x * x)
    else:
        w = dtype(5.0) / x * (dtype(5.0) / x)
    p = polevl(w, pp) / polevl(w, pq)
    q = dtype(5.0) / x * (polevl(w, qp) / polevl(w, qq))
    shifted = x - dtype(_PI_4 if order == 0 else _3PI_4)
    sin, cos = libm.sin(shifted), libm.cos(shifted)
    if second_kind:
        combined = fmadd(p, sin, q * cos)
    else:
        combined = fmadd(p, cos, -(q * sin))
    return combined * dtype(_SQRT_2_PI) / np.sqrt(x)


def _j0_small(x: np.ndarray) -> np.ndarray:
    dtype = x.dtype.type
    # NOTE: ``x * x - z`` is not fused: the compiler computes ``x * x`` once for all its uses.
    first, second = (x * x - dtype(z) for z in _J0_ZEROS_SQUARED)
    rp, rq = polevl(x * x, _RP0), polevl(x * x, _RQ0)
    return np.where(x < dtype(0.00001), 1 - x * x / dtype(4.0), first * second * rp / rq)


@elementwise
def bessel_j0(x: np.ndarray) -> np.ndarray:
    """The Bessel function of the first kind of order 0 (torch's ``bessel_j0_forward``)."""
    x = np.abs(x)
    out = np.empty_like(x)
    small = x <= 5
    out[small] = _j0_small(x[small])
    out[~small] = _asymptotic(x[~small], 0, second_kind=False)
    return out


def _j1_positive(x: np.ndarray) -> np.ndarray:
    dtype = x.dtype.type
    out = np.empty_like(x)
    small = x <= 5
    xs = x[small]
    rational = polevl(xs * xs, _RP1) / polevl(xs * xs, _RQ1)
    first, second = (xs * xs - dtype(z) for z in _J1_ZEROS_SQUARED)
    out[small] = rational * xs * first * second
    out[~small] = _asymptotic(x[~small], 1, second_kind=False)
    return out


@elementwise
def bessel_j1(x: np.ndarray) -> np.ndarray:
    """The Bessel function of the first kind of order 1 (odd: ``j1(-x) = -j1(x)``)."""
    value = _j1_positive(np.where(x < 0, -x, x))  # -0.0 stays -0.0, as in C
    return np.where(x < 0, -value, value)


@elementwise
def bessel_y0(x: np.ndarray) -> np.ndarray:
    """The Bessel function of the second kind of order 0: -inf at 0, NaN below."""
    dtype = x.dtype.type
    out = np.empty_like(x)
    small = x <= 5
    xs = x[small]
    rational = polevl(xs * xs, _YP0) / polevl(xs * xs, _YQ0)
    j0 = _j0_small(np.abs(xs))
    out[small] = fmadd(dtype(_2_PI) * libm.log(xs), j0, rational)
    out[~small] = _asymptotic(x[~small], 0, second_kind=True)
    out = np.where(x < 0, np.nan, out)
    return np.where(x == 0, -np.inf, out).astype(x.dtype)


@elementwise
def bessel_y1(x: np.ndarray) -> np.ndarray:
    """The Bessel function of the second kind of order 1: -inf at 0, NaN below."""
    dtype = x.dtype.type
    out = np.empty_like(x)
    small = x <= 5
    xs = x[small]
    rational = polevl(xs * xs, _YP1) / polevl(xs * xs, _YQ1)
    j1 = _j1_positive(np.abs(xs))
    bracket = fmadd(j1, libm.log(xs), -(dtype(1.0) / xs))
    out[small] = fmadd(xs, rational, dtype(_2_PI) * bracket)
    out[~small] = _asymptotic(x[~small], 1, second_kind=True)
    out = np.where(x < 0, np.nan, out)
    return np.where(x == 0, -np.inf, out).astype(x.dtype)


# ---------------------------------------------------------------- spherical Bessel, Airy


@elementwise
def spherical_bessel_j0(x: np.ndarray) -> np.ndarray:
    """``sin(x) / x``, by its Taylor series below 0.5; 0 at the infinities."""
    dtype = x.dtype.type
    square = x * x
    series = dtype(1.0) / dtype(6227020800.0)
    for denominator in (-39916800.0, 362880.0, -5040.0, 120.0, -6.0):
        term = dtype(math.copysign(1.0, denominator)) / dtype(abs(denominator))
        series = fmadd(square, series, term)
    series = fmadd(square, series, dtype(1.0))
    value = np.where(np.abs(x) < dtype(0.5), series, libm.sin(x) / x)
    return np.where(np.isinf(x), 0, value).astype(x.dtype)


_AIRY_AN = (
    3.46538101525629032477e-01,
    1.20075952739645805542e01,
    7.62796053615234516538e01,
    1.68089224934630576269e02,
    1.59756391350164413639e02,
    7.05360906840444183113e01,
    1.40264691163389668864e01,
    9.99999999999999995305e-01,
)
_AIRY_AD = (
    5.67594532638770212846e-01,
    1.47562562584847203173e01,
    8.45138970141474626562e01,
    1.77318088145400459522e02,
    1.64234692871529701831e02,
    7.14778400825575695274e01,
    1.40959135607834029598e01,
    1.00000000000000000470e00,
)
_AIRY_AFN = (
    -1.31696323418331795333e-01,
    -6.26456544431912369773e-01,
    -6.93158036036933542233e-01,
    -2.79779981545119124951e-01,
    -4.91900132609500318020e-02,
    -4.06265923594885404393e-03,
    -1.59276496239262096340e-04,
    -2.77649108155232920844e-06,
    -1.67787698489114633780e-08,
)
_AIRY_AFD = (
    1.33560420706553243746e01,
    3.26825032795224613948e01,
    2.67367040941499554804e01,
    9.18707402907259625840e00,
    1.47529146771666414581e00,
    1.15687173795188044134e-01,
    4.40291641615211203805e-03,
    7.54720348287414296618e-05,
    4.51850092970580378464e-07,
)
_AIRY_AGN = (
    1.97339932091685679179e-02,
    3.91103029615688277255e-01,
    1.06579897599595591108e00,
    9.39169229816650230044e-01,
    3.51465656105547619242e-01,
    6.33888919628925490927e-02,
    5.85804113048388458567e-03,
    2.82851600836737019778e-04,
    6.98793669997260967291e-06,
    8.11789239554389293311e-08,
    3.41551784765923618484e-10,
)
_AIRY_AGD = (
    9.30892908077441974853e00,
    1.98352928718312140417e01,
    1.55646628932864612953e01,
    5.47686069422975497931e00,
    9.54293611618961883998e-01,
    8.64580826352392193095e-02,
    4.12656523824222607191e-03,
    1.01259085116509135510e-04,
    1.17166733214413521882e-06,
    4.91834570062930015649e-09,
)
_ISPI = 5.64189583547756286948e-01  # 1 / sqrt(pi)


def _airy_negative(x: np.ndarray) -> np.ndarray:
    """``Ai(x)`` for ``x < -2.09``: the oscillating asymptotic form."""
    dtype = x.dtype.type
    root = np.sqrt(-x)
    z = dtype(1.0) / (dtype(-2.0) * x * root / dtype(3.0))
    zz = z * z
    afn, afd = polevl(zz, _AIRY_AFN), polevl(zz, _AIRY_AFD)
    agn, agd = polevl(zz, _AIRY_AGN), polevl(zz, _AIRY_AGD)
    t = dtype(-2.0) * x * root / dtype(3.0) + dtype(0.25) * dtype(math.pi)
    f = dtype(1.0) + zz * afn / afd
    g = z * agn / agd
    return dtype(_ISPI) / np.sqrt(root) * fmadd(libm.sin(t), f, -(libm.cos(t) * g))


def _airy_positive(x: np.ndarray) -> np.ndarray:
    """``Ai(x)`` for ``x >= 2.09``: the decaying asymptotic form."""
    dtype = x.dtype.type
    zeta = dtype(2.0) * x * np.sqrt(x) / dtype(3.0)
    inverse = dtype(1.0) / zeta
    ratio = polevl(inverse, _AIRY_AN) / polevl(inverse, _AIRY_AD)
    return dtype(_ISPI) * ratio / (dtype(2.0) * np.sqrt(np.sqrt(x)) * libm.exp(zeta))


def _airy_series(x: np.ndarray) -> np.ndarray:
    """``Ai(x)`` near 0: the two Maclaurin series ``f`` and ``g``, summed until a term of
    ``f`` is below machine epsilon relative to it."""
    dtype = x.dtype.type
    eps = dtype(np.finfo(x.dtype).eps)
    f, g = np.ones_like(x), x.copy()
    k = np.ones_like(x)
    m, n = np.ones_like(x), x.copy()
    z = x * x * x
    active = np.arange(x.size)
    while active.size:
        i = active
        m[i] *= z[i]
        k[i] += 1
        m[i] /= k[i]
        n[i] *= z[i]
        k[i] += 1
        n[i] /= k[i]
        m[i] /= k[i]
        f[i] += m[i]
        k[i] += 1
        n[i] /= k[i]
        g[i] += n[i]
        active = i[np.abs(m[i] / f[i]) > eps]
    return fmadd(dtype(0.355028053887817239260), f, -(dtype(0.258819403792806798405) * g))


@elementwise
def airy_ai(x: np.ndarray) -> np.ndarray:
    """The Airy function ``Ai(x)`` (torch's ``airy_ai_forward``): 0 above 103.892, NaN at
    the infinities."""
    out = np.empty_like(x)
    negative = x < -2.09
    out[negative] = _airy_negative(x[negative])
    positive = (x >= 2.09) & (x <= 103.892)
    out[positive] = _airy_positive(x[positive])
    middle = ~negative & ((x < 2.09) | np.isnan(x))
    # NOTE: from 2.09 to 8.3203353 the C++ also sums the series, then returns the
    # asymptotic form: only the series' terms, not its value, would differ.
    out[middle] = _airy_series(x[middle])
    out = np.where(x > 103.892, 0, out)
    return np.where(np.isinf(x), np.nan, out).astype(x.dtype)
