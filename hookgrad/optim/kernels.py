"""The tensor arithmetic torch's optimizers are written in, on NumPy arrays, rounded as
torch's CPU kernels round it.

torch's optimizers update parameters with a handful of tensor ops (``add`` with
``alpha``, ``mul``, ``addcmul``, ``addcdiv``, ``lerp``, ``sqrt``, ``dot``). Their CPU
kernels are C++ whose multiply-adds are fused: ``a.add_(b, alpha=s)`` rounds
``a + s * b`` once, ``a.addcmul_(b, c, value=s)`` is ``fma(s * b, c, a)``, and
``a.lerp_(b, w)`` is ``fma(w, b - a, a)`` (or, for ``|w| >= 0.5``,
``fma(w - 1, b - a, b)``), while ``addcdiv`` and the plain products and quotients round
each operation. The functions below compute exactly that, so an optimizer written with
them, in the order of torch's single-tensor (for-loop) implementation, updates parameters
to the last bit as torch does. A Python number is first cast to the array's dtype (as
torch's kernels cast it); float16 arrays compute in float32 and round once per op, as
torch's vector lanes do (its scalar tail, the last ``n % 32`` elements, rounds each
float16 product and sum, and is not reproduced).

Two ops are not torch's bits: ``sqrt`` is correctly rounded (torch's is MKL's ``vsSqrt``,
one ulp low on about 0.7% of elements), and ``dot`` is NumPy's (torch's is MKL's ``sdot``
or ``ddot``, whose summation order is not known). Both are looked up here at call time,
so a test can put torch's in their place and check the rest bit for bit.

Each function returns a new array; the optimizer writes it back into its tensors.

Example::

    add(np.float32([1.0, 2.0]), np.float32([0.5, 0.5]), alpha=-0.1)   # [0.95, 1.95]
"""

from __future__ import annotations

import numpy as np

from hookgrad.ops.kernels.fma import fma32, fma64

__all__ = [
    "add",
    "addcdiv",
    "addcmul",
    "as_real",
    "div",
    "dot",
    "lerp",
    "mul",
    "sqrt",
]


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype torch's kernels compute in (their ``opmath`` type)."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


# float64 bits below float32's last bit, and the pattern of a float32 rounding midpoint
_BELOW_FLOAT32 = np.int64((1 << 29) - 1)
_MIDPOINT = np.int64(1 << 28)
_FLOAT32_TINY = np.float32(2.0**-126)


def _fma(a: np.ndarray, b: np.ndarray | float, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` rounded once, in the dtype of ``c``."""
    a, b, c = np.broadcast_arrays(a, b, c)
    shape = c.shape
    a, b, c = (x.reshape(-1) for x in (a, b, c))  # NOTE: fma64 needs arrays, not 0-d
    out = fma64(a, b, c) if c.dtype == np.float64 else _fma_float32(a, b, c)
    return out.reshape(shape)


def _fma_float32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``fma32`` in fewer passes: the float64 ``a * b + c`` (an exact product, one
    rounding) rounded to float32 is right unless it lies on a float32 midpoint or the
    result is subnormal; only those elements go through ``fma32``."""
    total = np.multiply(a, b, dtype=np.float64)
    np.add(total, c, out=total)
    out = total.astype(np.float32)
    suspect = np.bitwise_and(total.view(np.int64), _BELOW_FLOAT32) == _MIDPOINT
    suspect |= np.abs(out) < _FLOAT32_TINY
    if suspect.any():
        out[suspect] = fma32(a[suspect], b[suspect], c[suspect])
    return out


def _operands(a: np.ndarray, *others: np.ndarray) -> tuple[np.dtype, list[np.ndarray]]:
    dtype = _compute_dtype(a.dtype)
    return a.dtype, [np.asarray(x, dtype) for x in (a, *others)]


def as_real(array: np.ndarray) -> np.ndarray:
    """A complex array as real pairs in a trailing dimension of 2 (torch's
    ``view_as_real``), sharing memory; a real array is returned as is."""
    if array.dtype.kind != "c":
        return array
    if array.ndim == 0:
        return array.reshape(1).view(array.real.dtype)
    return array.view(array.real.dtype).reshape(*array.shape, 2)


def add(a: np.ndarray, b: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """torch's ``a.add(b, alpha=alpha)``: ``a + alpha * b`` rounded once (``alpha`` is
    first rounded to ``a``'s dtype, float16 included). Complex arrays round the product
    and the sum separately, as torch's complex arithmetic does."""
    if a.dtype.kind == "c":
        return a + a.dtype.type(alpha) * b
    dtype, (a, b) = _operands(a, b)
    if alpha == 1:
        return (a + b).astype(dtype, copy=False)
    return _fma(b, a.dtype.type(dtype.type(alpha)), a).astype(dtype, copy=False)


def mul(a: np.ndarray, other: np.ndarray | float) -> np.ndarray:
    """torch's ``a.mul(other)``."""
    dtype, (a,) = _operands(a)
    other = np.asarray(other, a.dtype)
    return (a * other).astype(dtype, copy=False)


def div(a: np.ndarray, other: np.ndarray | float) -> np.ndarray:
    """torch's ``a.div(other)`` (true division)."""
    dtype, (a,) = _operands(a)
    other = np.asarray(other, a.dtype)
    return (a / other).astype(dtype, copy=False)


def addcmul(a: np.ndarray, b: np.ndarray, c: np.ndarray, value: float = 1.0) -> np.ndarray:
    """torch's ``a.addcmul(b, c, value=value)``: ``fma(value * b, c, a)``."""
    dtype, (a, b, c) = _operands(a, b, c)
    scaled = b if value == 1 else b * a.dtype.type(value)
    return _fma(scaled, c, a).astype(dtype, copy=False)


def addcdiv(a: np.ndarray, b: np.ndarray, c: np.ndarray, value: float = 1.0) -> np.ndarray:
    """torch's ``a.addcdiv(b, c, value=value)``: ``a + value * b / c``, each op rounded."""
    dtype, (a, b, c) = _operands(a, b, c)
    scaled = b if value == 1 else a.dtype.type(value) * b
    return (a + scaled / c).astype(dtype, copy=False)


def lerp(a: np.ndarray, b: np.ndarray, weight: float) -> np.ndarray:
    """torch's ``a.lerp(b, weight)`` for a scalar weight: ``a + weight * (b - a)``, from the
    nearer end (``b - (1 - weight) * (b - a)`` for ``|weight| >= 0.5``), rounded once."""
    dtype, (a, b) = _operands(a, b)
    w = a.dtype.type(weight)
    difference = b - a
    if abs(w) < 0.5:
        return _fma(difference, w, a).astype(dtype, copy=False)
    return _fma(difference, w - a.dtype.type(1), b).astype(dtype, copy=False)


def sqrt(a: np.ndarray) -> np.ndarray:
    """The square root, correctly rounded (see the module's docstring)."""
    dtype, (a,) = _operands(a)
    return np.sqrt(a).astype(dtype, copy=False)


def dot(a: np.ndarray, b: np.ndarray) -> np.generic:
    """The dot product of two vectors, a 0-d scalar of their dtype (see the module's
    docstring for its rounding)."""
    return a.dtype.type(np.dot(a, b))
