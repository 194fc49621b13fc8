"""What the ports of torch's scalar special-function kernels share (``cephes.py``,
``modified_bessel.py``, ``igamma.py``, ``bessel.py``, ``faddeeva.py``, ``polynomials.py``):
applying a function of flat arrays to arrays of any shape, the multiply-add the compiler
fuses, and Cephes' polynomial and Chebyshev series, each in the argument's dtype.

Example::

    polevl(np.float32([0.5]), (1.0, 2.0, 3.0))  # 1 * 0.5**2 + 2 * 0.5 + 3, in float32
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.ops.kernels.fma import fma32, fma64

_F32 = np.dtype(np.float32)


def elementwise(function: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """``function`` of flat arrays, applied to arrays of any shape (broadcast), with
    NumPy's floating-point warnings off (domains end in NaN and infinities, as in C).

    Example: ``elementwise(f)(np.ones((2, 3)), np.ones(3))`` runs ``f`` on two flat
    arrays of 6 elements and returns a (2, 3) array."""

    def run(*arrays: np.ndarray) -> np.ndarray:
        arrays = np.broadcast_arrays(*arrays)
        shape = arrays[0].shape
        with np.errstate(all="ignore"):
            out = function(*(np.array(a).reshape(-1) for a in arrays))
        return out.reshape(shape)

    run.__name__ = run.__qualname__ = function.__name__
    run.__doc__ = function.__doc__
    return run


def fmadd(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` rounded once, in the dtype of ``a`` (an array).

    NOTE: torch compiles these kernels with ``-mfma``, and the compiler fuses a product
    that is only added to or subtracted from (``x * y + z``, ``z - x * y``) into one
    ``fmadd``: the ports write ``fmadd`` exactly where C's ``a * b + c`` is fused.

    Example: ``fmadd(np.float32([0.1]), np.float32(3), np.float32(1))``."""
    fused = fma32 if a.dtype == _F32 else fma64
    result = fused(a, b, c)
    # NOTE: where the sum is zero its sign is the rounded operation's (``-0 * 1 + -0`` is
    # -0), which the emulation's exact sum does not keep.
    with np.errstate(all="ignore"):
        return np.where(result == 0, a * b + c, result)


def polevl(x: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """Cephes' ``polevl``: Horner's scheme from 0, highest coefficient first, each step
    fused, in ``x``'s dtype (each coefficient rounded to it, as the C++ arrays are ``T``).

    Example: ``polevl(np.float64([2.0]), (1.0, 0.0, -1.0))`` is ``[3.0]``."""
    result = np.zeros_like(x) * x + coefficients[0]
    for c in coefficients[1:]:
        result = fmadd(result, x, x.dtype.type(c))
    return result


def chbevl(x: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """Cephes' ``chbevl``: the Chebyshev series ``sum c_i T_i(x/2)`` by Clenshaw's
    recurrence, in ``x``'s dtype.

    Example: ``chbevl(np.float64([0.5]), (0.0, 2.0))`` is ``[1.0]``."""
    b0 = np.full_like(x, coefficients[0])
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = fmadd(x, b1, -b2) + c
    return 0.5 * (b0 - b2)
