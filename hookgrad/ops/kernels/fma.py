"""``a * b + c`` with a single rounding, in NumPy, for float32 and float64 arrays.

torch's kernels are C++ compiled with multiply-add contraction, and its vector code calls
``fmadd`` directly: where the C++ says ``x * y + z``, the machine rounds once. NumPy has
no fused multiply-add, so these compute the exactly rounded result from error-free
transformations.

Example::

    fma32(np.float32([0.1]), np.float32([3.0]), np.float32([1.0]))
"""

from __future__ import annotations

import numpy as np

_F32 = np.float32
_SPLITTER = 134217729.0  # 2**27 + 1: splits a double into two 26-bit halves


def _round_to_odd(total: np.ndarray, error: np.ndarray) -> np.ndarray:
    """``total + error`` (an exact pair, ``total`` rounded to nearest) rounded to odd: an
    inexact sum takes whichever neighbour has an odd last bit. A later rounding to fewer
    bits then rounds as if it saw the exact value (no double-rounding error)."""
    inexact = (error != 0) & ((total.view(np.int64) & 1) == 0)
    if not inexact.any():
        return total
    total = total.copy()
    total[inexact] = np.nextafter(total[inexact], np.copysign(np.inf, error[inexact]))
    return total


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(s, e)`` with ``s = a + b`` rounded and ``s + e == a + b`` exactly (Knuth)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scaled = _SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, e)`` with ``p = a * b`` rounded and ``p + e == a * b`` exactly (Dekker)."""
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def fma64(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """``a * b + c`` in float64 with a single rounding (C's ``std::fma``).

    Boldo and Melquiond's emulation: the exact product and sum as pairs, the small terms
    added with rounding to odd, then one rounding to nearest.
    """
    if np.isscalar(b) and np.isscalar(c) and b == 1 and c == 0:
        return np.asarray(a, np.float64)
    a, b, c = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in (a, b, c)))
    with np.errstate(invalid="ignore", over="ignore"):
        high, low = _two_product(a, b)
        total, total_error = _two_sum(c, high)
        tail, tail_error = _two_sum(total_error, low)
        result = total + _round_to_odd(tail, tail_error)
        special = ~np.isfinite(result) | ~np.isfinite(high)
    if special.any():
        result = np.where(special, a * b + c, result)
    return result


# float64 bits below float32's last bit: a float64 sum ending in exactly half of it lies
# on a float32 rounding midpoint, where rounding it again to float32 may be wrong.
_BELOW_FLOAT32 = np.int64((1 << 29) - 1)
_MIDPOINT = np.int64(1 << 28)


def fma32(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """``a * b + c`` in float32 with a single rounding (an AVX ``fmadd``).

    The product of two floats is exact in float64, so the float64 sum has one rounding;
    rounding it again to float32 is right except on a float32 midpoint (or below float32's
    normal range), where the sum is redone exactly and rounded to odd first.
    """
    product = np.asarray(np.multiply(a, b, dtype=np.float64))
    total = np.asarray(np.add(product, c, dtype=np.float64))
    bits = total.view(np.int64)
    suspect = (bits & _BELOW_FLOAT32) == _MIDPOINT
    suspect |= np.abs(total) < 2.0**-125
    if suspect.any():
        product, addend = np.broadcast_arrays(product, np.asarray(c, np.float64))
        total = np.array(total, copy=True)
        exact, error = _two_sum(product[suspect], addend[suspect])
        total[suspect] = _round_to_odd(exact, error)
    return total.astype(_F32)


def fma32_normal(a: np.ndarray, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """``fma32`` for arguments whose nonzero results are known to be normal floats (as in
    a polynomial's steps): the float64 sum is rounded to float32 directly unless one of
    them lies on a float32 midpoint, where the whole step is redone by ``fma32``."""
    total = np.multiply(a, b, dtype=np.float64)
    np.add(total, c, out=total)
    if ((total.view(np.int64) & _BELOW_FLOAT32) == _MIDPOINT).any():
        return fma32(a, b, c)
    return total.astype(_F32)
