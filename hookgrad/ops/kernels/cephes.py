"""torch's Cephes-derived special functions (ATen's ``native/Math.h``), vectorised:
``digamma``, ``trigamma``, ``zeta``, ``polygamma`` and ``ndtri``. The modified Bessel
functions (``i0`` ...) are in ``modified_bessel.py``, the incomplete gamma functions in
``igamma.py``, ``erfcx`` and ``log_ndtr`` in ``faddeeva.py``; what these ports share
(``elementwise``, ``fmadd``, ``polevl``, ``chbevl``) in ``cephes_common.py``.

torch computes these functions with scalar C++ templates, one element at a time, in the
element's own type: a float32 tensor in ``float`` arithmetic (except where the C++ mixes
in a ``double`` literal, which widens that expression), a float64 one in ``double``. Each
function below runs the same steps on whole arrays of the input's dtype: NumPy rounds each
float32 operation as C does, loops whose length depends on the element run masked, and the
C library's ``exp``/``log``/``sin`` ... are the C library's own
(``hookgrad.ops.kernels.libm``). ``(float)`` and ``double`` in the notes below name C's
types.

Every function takes a float32 or float64 array of any shape and returns an array of the
same dtype and shape; NaN propagates. Example::

    digamma(np.float32([0.5, 1.0]))  # tensor([-1.9635, -0.5772]) as torch.digamma gives
"""

from __future__ import annotations

import math

import numpy as np

from hookgrad.ops.kernels import libm
from hookgrad.ops.kernels.cephes_common import elementwise, fmadd, polevl

_F32 = np.dtype(np.float32)
_F64 = np.float64
_PI = math.pi


# ---------------------------------------------------------------- digamma and polygamma

_PSI_10 = 2.25175258906672110764
_DIGAMMA_ASYMPTOTIC = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)


def _digamma_from_positive(x: np.ndarray) -> np.ndarray:
    """``calc_digamma`` past its reflection: ``x`` pushed to >= 10 by the recurrence
    ``psi(x) = psi(x + 1) - 1/x``, then the asymptotic series (or ``psi(10)`` exactly)."""
    result = np.zeros_like(x)
    x = x.copy()
    while True:
        low = x < 10
        if not low.any():
            break
        result = np.where(low, result - 1 / x, result)
        x = np.where(low, x + 1, x)
    z = 1 / (x * x)
    y = np.where(x < 1.0e17, z * polevl(z, _DIGAMMA_ASYMPTOTIC), 0)
    value = result + libm.log(x) - (0.5 / x) - y
    return np.where(x == 10, result + _PSI_10, value)


@elementwise
def digamma(x: np.ndarray) -> np.ndarray:
    """torch's ``digamma`` (``calc_digamma``): ``-inf``/``inf`` at ``+0``/``-0``, NaN at
    the negative integers; below zero ``psi(1 - x) - pi / tan(pi * r)`` with ``r`` the
    fractional part of ``x`` (``tan`` in double, also for float)."""
    negative = x < 0
    integer = x == np.trunc(x)
    reflected = negative & ~integer
    # NOTE: the negative integers (-inf among them) never reach the recurrence.
    out = _digamma_from_positive(np.where(reflected, 1 - x, np.where(negative, 1, x)))
    if reflected.any():
        r = x[reflected].astype(_F64)
        r = r - np.trunc(r)
        correction = (_PI / libm.tan(_PI * r)).astype(x.dtype)
        out[reflected] = out[reflected] - correction
    out = np.where(negative & integer, np.nan, out)
    return np.where(x == 0, np.copysign(np.inf, -x), out).astype(x.dtype)


@elementwise
def trigamma(x: np.ndarray) -> np.ndarray:
    """torch's ``trigamma`` (``polygamma(1, x)``): below 0.5 the reflection
    ``pi^2 / sin^2(pi x) - psi1(1 - x)``, then six steps of the recurrence and the
    asymptotic series."""
    dtype = x.dtype.type
    reflected = x < 0.5
    pi = dtype(_PI)
    sin_pi_x = libm.sin(pi * x)
    result = np.where(reflected, -(pi * pi) / (sin_pi_x * sin_pi_x), 0).astype(x.dtype)
    x = np.where(reflected, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    one = dtype(1)
    inner = fmadd(-ixx, one / dtype(42), one / dtype(30))
    total = fmadd(ixx, fmadd(-ixx, inner, one / dtype(6)), 1 + 1 / (2 * x))
    result = result + total / x
    return np.where(reflected, -result, result)


# Cephes' zeta: Euler-Maclaurin after at least nine terms of the sum; A[i] are
# (2i+2)! / B_{2i+2}.
_ZETA_A = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)
_MACHEP = 1.11022302462515654042e-16


@elementwise
def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function ``sum_k (k + q)^-x`` as torch's ``zeta`` computes it:
    in double for float32 (float for float16: torch's ``acc_type``), after ``s = q^-x`` in
    the element's own ``pow``; inf at ``x == 1``, NaN for ``x < 1``; for ``q <= 0`` inf at
    the integers and NaN where ``x`` is not an integer."""
    dtype = x.dtype
    accumulate = np.dtype(np.float32) if dtype == np.float16 else np.dtype(_F64)
    q_integer = q == np.floor(q)
    pole = (q <= 0) & q_integer
    undefined = (q <= 0) & ~q_integer & (x != np.floor(x))
    # C's ``std::pow(q, -x)`` in the element's type (float for float16), then the rest in
    # the accumulation type, with C's double ``::pow`` for the terms.
    s = libm.pow(q.astype(np.promote_types(dtype, _F32)), -x.astype(np.promote_types(dtype, _F32)))
    s = s.astype(accumulate)
    xd, a = x.astype(accumulate), q.astype(accumulate)
    machep = accumulate.type(_MACHEP)
    b = np.zeros_like(s)
    done = (x <= 1) | pole | undefined
    # The direct sum: at least nine terms, and on while a <= 9, unless a term is tiny.
    i = 0
    while True:
        active = ~done & ((i < 9) | (a <= 9.0))
        if not active.any():
            break
        i += 1
        a = np.where(active, a + 1, a)
        term = libm.pow(a.astype(_F64), -xd.astype(_F64)).astype(accumulate)
        b = np.where(active, term, b)
        s = np.where(active, s + b, s)
        done |= active & (-machep * s < b) & (b < machep * s)
    # The Euler-Maclaurin tail, term by term until a term is below MACHEP of the sum.
    w = a
    tail = ~done
    s = np.where(tail, s + b * w / (xd - 1), s)
    s = np.where(tail, s - accumulate.type(0.5) * b, s)
    a = np.ones_like(s)
    k = np.zeros_like(s)
    for coefficient in _ZETA_A:
        if not tail.any():
            break
        a = a * (xd + k)
        b = b / w
        t = a * b / accumulate.type(coefficient)
        s = np.where(tail, s + t, s)
        tail &= ~(np.abs(t / s) < machep)
        k = k + 1
        a = a * (xd + k)
        b = b / w
        k = k + 1
    out = np.where(undefined, np.nan, s.astype(dtype))
    out = np.where(pole, np.inf, out)
    out = np.where(x < 1, np.nan, out)
    return np.where(x == 1, np.inf, out).astype(dtype)


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """torch's ``polygamma(n, x)`` for ``n >= 0``: ``digamma`` and ``trigamma`` for 0 and
    1, else ``(-1)^(n+1) n! zeta(n + 1, x)`` with ``n!`` as ``exp(lgamma(n + 1))`` in the
    element's type."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    # NOTE: float16 takes ``n!`` in float and ``zeta`` in float16 (accumulated in float).
    wide = np.promote_types(x.dtype, _F32)
    factorial = libm.exp(libm.lgamma(np.array([n + 1], wide)))[0]
    sign = wide.type(1 if n % 2 else -1)
    with np.errstate(all="ignore"):
        return (sign * factorial * zeta(np.full_like(x, n + 1), x)).astype(x.dtype)


# ---------------------------------------------------------------- the normal distribution

_NDTRI_P0 = (
    -5.99633501014107895267e1,
    9.80010754185999661536e1,
    -5.66762857469070293439e1,
    1.39312609387279679503e1,
    -1.23916583867381258016e0,
)
_NDTRI_Q0 = (
    1.00000000000000000000e0,
    1.95448858338141759834e0,
    4.67627912898881538453e0,
    8.63602421390890590575e1,
    -2.25462687854119370527e2,
    2.00260212380060660359e2,
    -8.20372256168333339912e1,
    1.59056225126211695515e1,
    -1.18331621121330003142e0,
)
_NDTRI_P1 = (
    4.05544892305962419923e0,
    3.15251094599893866154e1,
    5.71628192246421288162e1,
    4.40805073893200834700e1,
    1.46849561928858024014e1,
    2.18663306850790267539e0,
    -1.40256079171354495875e-1,
    -3.50424626827848203418e-2,
    -8.57456785154685413611e-4,
)
_NDTRI_Q1 = (
    1.00000000000000000000e0,
    1.57799883256466749731e1,
    4.53907635128879210584e1,
    4.13172038254672030440e1,
    1.50425385692907503408e1,
    2.50464946208309415979e0,
    -1.42182922854787788574e-1,
    -3.80806407691578277194e-2,
    -9.33259480895457427372e-4,
)
_NDTRI_P2 = (
    3.23774891776946035970e0,
    6.91522889068984211695e0,
    3.93881025292474443415e0,
    1.33303460815807542389e0,
    2.01485389549179081538e-1,
    1.23716634817820021358e-2,
    3.01581553508235416007e-4,
    2.65806974686737550832e-6,
    6.23974539184983293730e-9,
)
_NDTRI_Q2 = (
    1.00000000000000000000e0,
    6.02427039364742014255e0,
    3.67983563856160859403e0,
    1.37702099489081330271e0,
    2.16236993594496635890e-1,
    1.34204006088543189037e-2,
    3.28014464682127739104e-4,
    2.89247864745380683936e-6,
    6.79019408009981274425e-9,
)
_EXP_M2 = 0.13533528323661269189  # exp(-2)
_SQRT_2PI = 2.50662827463100050242


@elementwise
def ndtri(y0: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal distribution function (torch's ``calc_ndtri``):
    a rational function of ``y - 1/2`` in the middle, of ``1 / sqrt(-2 log y)`` in the
    tails; -inf at 0, inf at 1, NaN outside [0, 1]."""
    dtype = y0.dtype.type
    upper = y0 > 1 - dtype(_EXP_M2)
    y = np.where(upper, 1 - y0, y0)
    central = y > dtype(_EXP_M2)
    out = np.empty_like(y)
    # The middle: x = y + y^3 P(y^2) / Q(y^2) around 0.
    c = y[central] - dtype(0.5)
    c2 = c * c
    ratio = c2 * polevl(c2, _NDTRI_P0) / polevl(c2, _NDTRI_Q0)
    out[central] = fmadd(c, ratio, c) * dtype(_SQRT_2PI)
    # The tails: x = sqrt(-2 log y) - log(x) / x - z P(z) / Q(z) with z = 1 / x; in
    # double (C's ``::log`` and ``::sqrt``), rounded to the element's type at each step.
    tail = y[~central]
    wide = tail.astype(_F64)
    x = np.sqrt(-2.0 * libm.log(wide)).astype(y.dtype)
    x_wide = x.astype(_F64)
    x0 = (x_wide - libm.log(x_wide) / x_wide).astype(y.dtype)
    z = 1 / x
    near = x < 8
    x1 = np.where(
        near,
        z * polevl(z, _NDTRI_P1) / polevl(z, _NDTRI_Q1),
        z * polevl(z, _NDTRI_P2) / polevl(z, _NDTRI_Q2),
    )
    out[~central] = x0 - x1
    out = np.where(upper | central, out, -out)
    out = np.where((y0 < 0) | (y0 > 1), np.nan, out)
    out = np.where(y0 == 1, np.inf, out)
    out = np.where(y0 == 0, -np.inf, out)
    return out.astype(y0.dtype)
