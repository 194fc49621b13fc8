"""torch's orthogonal polynomials (ATen's ``native/Math.h``), vectorised: Chebyshev's
``T``, ``U``, ``V``, ``W`` and their shifted forms, Hermite's ``H`` and ``He``, Laguerre's
``L`` and Legendre's ``P``, each of degree ``n`` at ``x``.

torch evaluates them by their three-term recurrences, one element at a time, in the
element's type, with shortcuts: 0 for ``n < 0``, the closed values at the interval's ends,
and for Chebyshev's polynomials of high degree inside the interval the trigonometric forms
(``cos(n acos x)`` ...). The degree is the integer C's ``static_cast<int64_t>(n)`` gives
(truncation; NaN and the infinities become the smallest int64, so a zero result; Hermite's
take them as -1). Each function below takes ``x`` and ``n`` as float32 or float64 arrays of
one dtype (broadcast) and runs the recurrence masked, element by element as torch's loop.

Example::

    chebyshev_t(np.float64([0.5]), np.float64([3.0]))  # T_3(0.5) = -1.0
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hookgrad.ops.kernels import libm
from hookgrad.ops.kernels.cephes_common import elementwise, fmadd

_INT64_MIN = np.iinfo(np.int64).min


def _degree(n: np.ndarray) -> np.ndarray:
    """C's ``static_cast<int64_t>(n)`` on x86: truncation; NaN, infinities and values
    beyond the range give the smallest int64."""
    inside = np.isfinite(n) & (np.abs(n) < 2.0**63)
    return np.where(inside, np.trunc(np.where(inside, n, 0)), _INT64_MIN).astype(np.int64)


def _recurrence(
    x: np.ndarray,
    n: np.ndarray,
    first: np.ndarray,
    step: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    start: int = 2,
    stop_at_nan: bool = True,
) -> np.ndarray:
    """``q`` after ``p, q = q, step(x, q, p, k)`` for ``k = start .. n`` (or until ``q`` is
    NaN), from ``p = 1`` and ``q = first``, each element until its own degree."""
    p = np.ones_like(x)
    q = first.copy()
    active = np.flatnonzero(n >= start)
    k = start
    while active.size:
        r = step(x[active], q[active], p[active], np.asarray(k, x.dtype))
        p[active] = q[active]
        q[active] = r
        k += 1
        active = active[n[active] >= k]
        if stop_at_nan:
            active = active[~np.isnan(q[active])]
    return q


def _chebyshev_step(scale: Callable[[np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    """``r = s * q - p``, fused, with ``s = scale(x)`` (``x + x``, or ``4x - 2`` shifted)."""
    return lambda x, q, p, k: fmadd(scale(x), q, -p)


def _twice(x: np.ndarray) -> np.ndarray:
    return x + x


def _shifted_twice(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1.0)
    return x + x - one + (x + x - one)


def _finish(out: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.where(n < 0, 0, out).astype(out.dtype)


def _signed(n: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``value`` for even ``n``, ``-value`` for odd (C's ``n % 2 == 0``)."""
    return np.where(n % 2 == 0, value, -value)


@elementwise
def chebyshev_t(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """Chebyshev's polynomial of the first kind, ``T_n(x) = cos(n acos x)`` on [-1, 1]."""
    dtype = x.dtype.type
    n = _degree(degree)
    one = np.ones_like(x)
    out = _recurrence(x, n, x, _chebyshev_step(_twice))
    out = np.where(n == 1, x, np.where(n == 0, one, out))
    inner = (n > 6) & (np.abs(x) < 1)
    out = np.where(inner, libm.cos(n.astype(x.dtype) * libm.acos(x)), out)
    edge = np.abs(x) == 1
    out = np.where(edge, np.where((x > 0) | (n % 2 == 0), one, -one), out)
    return _finish(out, n).astype(dtype)


def _trig_u(x: np.ndarray, n: np.ndarray, angle: np.ndarray, at_zero: np.ndarray) -> np.ndarray:
    """``sin((n + 1) a) / sin(a)``, or ``(n + 1) cos((n + 1) a) / at_zero`` where ``sin(a)``
    is 0 (``a = acos`` of the argument)."""
    m = (n + 1).astype(x.dtype)
    sine = libm.sin(angle)
    with np.errstate(all="ignore"):
        ratio = libm.sin(m * angle) / sine
        fallback = m * libm.cos(m * angle) / at_zero
    return np.where(sine != 0, ratio, fallback)


@elementwise
def chebyshev_u(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """Chebyshev's polynomial of the second kind, ``U_n(cos a) = sin((n+1) a) / sin a``."""
    n = _degree(degree)
    twice = x + x
    out = _recurrence(x, n, twice, _chebyshev_step(_twice))
    out = np.where(n == 1, twice, np.where(n == 0, 1, out))
    inner = (n > 8) & (np.abs(x) < 1)
    out = np.where(inner, _trig_u(x, n, libm.acos(x), x), out)
    edge = np.abs(x) == 1
    count = (n + 1).astype(x.dtype)
    out = np.where(edge, np.where((x > 0) | (n % 2 == 0), count, -count), out)
    return _finish(out.astype(x.dtype), n)


def _trig_v(x: np.ndarray, n: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """``cos((n + 1/2) a) / cos(a / 2)`` where ``sin(a / 2) != 1``, else ``±(2n + 1)``."""
    half = angle / x.dtype.type(2.0)
    value = libm.cos((n.astype(x.dtype) + x.dtype.type(0.5)) * angle) / libm.cos(half)
    return np.where(libm.sin(half) != 1, value, _signed(n, (n + n + 1).astype(x.dtype)))


def _trig_w(x: np.ndarray, n: np.ndarray, angle: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """``sin((n + 1/2) a) / sin(a / 2)`` where ``cos(a / 2) != 1``, else ``2n + 1`` (for
    ``positive``) or ``±1``."""
    half = angle / x.dtype.type(2.0)
    with np.errstate(all="ignore"):
        value = libm.sin((n.astype(x.dtype) + x.dtype.type(0.5)) * angle) / libm.sin(half)
    ends = np.where(positive, (n + n + 1).astype(x.dtype), _signed(n, np.ones_like(x)))
    return np.where(libm.cos(half) != 1, value, ends)


@elementwise
def chebyshev_v(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """Chebyshev's polynomial of the third kind, ``V_n(cos a) = cos((n+1/2) a) / cos(a/2)``."""
    dtype = x.dtype.type
    n = _degree(degree)
    start = x + x - dtype(1.0)
    out = _recurrence(x, n, start, _chebyshev_step(_twice))
    out = np.where(n == 1, start, np.where(n == 0, 1, out))
    inner = (n > 8) & (np.abs(x) < 1)
    out = np.where(inner, _trig_v(x, n, libm.acos(x)), out)
    edge = np.abs(x) == 1
    ends = np.where(x > 0, 1, _signed(n, (n + n + 1).astype(x.dtype)))
    out = np.where(edge, ends, out)
    return _finish(out.astype(x.dtype), n)


@elementwise
def chebyshev_w(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """Chebyshev's polynomial of the fourth kind, ``W_n(cos a) = sin((n+1/2) a) / sin(a/2)``."""
    dtype = x.dtype.type
    n = _degree(degree)
    start = x + x + dtype(1.0)
    out = _recurrence(x, n, start, _chebyshev_step(_twice))
    out = np.where(n == 1, start, np.where(n == 0, 1, out))
    inner = (n > 8) & (np.abs(x) < 1)
    out = np.where(inner, _trig_w(x, n, libm.acos(x), x > 0), out)
    edge = np.abs(x) == 1
    ends = np.where(x > 0, (n + n + 1).astype(x.dtype), _signed(n, np.ones_like(x)))
    out = np.where(edge, ends, out)
    return _finish(out.astype(x.dtype), n)


def _shifted_arg(x: np.ndarray) -> np.ndarray:
    """``x + x - 1``, the shifted polynomials' argument on [-1, 1]."""
    return x + x - x.dtype.type(1.0)


@elementwise
def shifted_chebyshev_t(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """``T_n(2x - 1)``, Chebyshev's first kind on [0, 1]."""
    n = _degree(degree)
    y = _shifted_arg(x)
    out = _recurrence(x, n, y, _chebyshev_step(_shifted_twice))
    out = np.where(n == 1, y, np.where(n == 0, 1, out))
    inner = (n > 6) & (np.abs(y) < 1)
    out = np.where(inner, libm.cos(n.astype(x.dtype) * libm.acos(y)), out)
    out = np.where(x == 0, _signed(n, np.ones_like(x)), out)
    out = np.where(x == 1, 1, out)
    return _finish(out.astype(x.dtype), n)


@elementwise
def shifted_chebyshev_u(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """``U_n(2x - 1)``, Chebyshev's second kind on [0, 1]."""
    n = _degree(degree)
    y = _shifted_arg(x)
    start = y + y
    out = _recurrence(x, n, start, _chebyshev_step(_shifted_twice))
    out = np.where(n == 1, start, np.where(n == 0, 1, out))
    inner = (n > 6) & (np.abs(y) < 1)
    out = np.where(inner, _trig_u(x, n, libm.acos(y), y), out)
    count = (n + 1).astype(x.dtype)
    out = np.where(x == 0, _signed(n, count), out)
    out = np.where(x == 1, count, out)
    return _finish(out.astype(x.dtype), n)


@elementwise
def shifted_chebyshev_v(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """``V_n(2x - 1)``, Chebyshev's third kind on [0, 1]."""
    dtype = x.dtype.type
    n = _degree(degree)
    y = _shifted_arg(x)
    start = y + y - dtype(1.0)
    out = _recurrence(x, n, start, _chebyshev_step(_shifted_twice))
    out = np.where(n == 1, start, np.where(n == 0, 1, out))
    inner = (n > 6) & (np.abs(y) < 1)
    out = np.where(inner, _trig_v(x, n, libm.acos(y)), out)
    out = np.where(x == 0, _signed(n, (n + n + 1).astype(x.dtype)), out)
    out = np.where(x == 1, 1, out)
    return _finish(out.astype(x.dtype), n)


@elementwise
def shifted_chebyshev_w(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """``W_n(2x - 1)``, Chebyshev's fourth kind on [0, 1] (the trigonometric form from
    degree 5 on, as torch's)."""
    dtype = x.dtype.type
    n = _degree(degree)
    y = _shifted_arg(x)
    start = y + y + dtype(1.0)
    out = _recurrence(x, n, start, _chebyshev_step(_shifted_twice))
    out = np.where(n == 1, start, np.where(n == 0, 1, out))
    inner = (n > 4) & (np.abs(y) < 1)
    out = np.where(inner, _trig_w(x, n, libm.acos(y), np.zeros(x.shape, bool)), out)
    out = np.where(x == 0, _signed(n, np.ones_like(x)), out)
    out = np.where(x == 1, (n + n + 1).astype(x.dtype), out)
    return _finish(out.astype(x.dtype), n)


def _hermite_degree(degree: np.ndarray) -> np.ndarray:
    """Hermite's degree: NaN and the infinities count as -1."""
    return np.where(np.isfinite(degree), _degree(degree), -1)


def _hermite_limit(x: np.ndarray) -> int:
    return 128 if x.dtype == np.float32 else 512


@elementwise
def hermite_h(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """The physicists' Hermite polynomial ``H_n(x)``; NaN above degree 128 (float32) or
    512 (float64)."""
    n = _hermite_degree(degree)
    twice = x + x
    # torch's loop counts k = 2, 4, ..., 2n - 2: r = 2x q - k p.
    out = _recurrence(
        x, n, twice, lambda x, q, p, k: fmadd(x + x, q, -((k + k - 2) * p)), stop_at_nan=False
    )
    out = np.where(n == 1, twice, np.where(n == 0, 1, out))
    out = np.where(n > _hermite_limit(x), np.nan, out)
    return _finish(out.astype(x.dtype), n)


@elementwise
def hermite_he(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """The probabilists' Hermite polynomial ``He_n(x)``; NaN above degree 128 (float32) or
    512 (float64)."""
    n = _hermite_degree(degree)
    out = _recurrence(x, n, x, lambda x, q, p, k: fmadd(x, q, -((k - 1) * p)), stop_at_nan=False)
    out = np.where(n == 1, x, np.where(n == 0, 1, out))
    out = np.where(n > _hermite_limit(x), np.nan, out)
    return _finish(out.astype(x.dtype), n)


@elementwise
def laguerre_l(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """Laguerre's polynomial ``L_n(x)``: 1 at 0."""
    dtype = x.dtype.type
    n = _degree(degree)
    start = dtype(1.0) - x

    def step(x: np.ndarray, q: np.ndarray, p: np.ndarray, k: np.ndarray) -> np.ndarray:
        k = k - 1  # torch's k runs from 1
        return fmadd((k + k) + (dtype(1.0) - x), q, -(k * p)) / (k + 1)

    out = _recurrence(x, n, start, step)
    out = np.where(n == 1, start, np.where(n == 0, 1, out))
    out = np.where(np.abs(x) == 0, 1, out)
    return _finish(out.astype(x.dtype), n)


@elementwise
def legendre_p(x: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """Legendre's polynomial ``P_n(x)``: ``±1`` at ``x = ±1``."""
    n = _degree(degree)

    def step(x: np.ndarray, q: np.ndarray, p: np.ndarray, k: np.ndarray) -> np.ndarray:
        k = k - 1  # torch's k runs from 1
        return fmadd((k + k + 1) * x, q, -(k * p)) / (k + 1)

    out = _recurrence(x, n, x, step)
    out = np.where(n == 1, x, np.where(n == 0, 1, out))
    one = np.ones_like(x)
    out = np.where(np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), one, -one), out)
    return _finish(out.astype(x.dtype), n)
