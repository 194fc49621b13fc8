"""The C library's elementary functions, as torch's scalar kernels call them.

torch's special functions (``digamma``, ``i0``, ``igamma``, the Bessel functions ...) are
C++ loops over elements that call ``std::exp``, ``std::log``, ``std::sin`` ... of the C
library (glibc on Linux): ``expf`` for a float, ``exp`` for a double. NumPy's own
vectorised ``exp`` and ``log`` round differently from glibc's in a few percent of cases
(float64) and its float32 functions in up to a third, and glibc's float functions are not
its double ones rounded. So each function here calls the C library itself, one element at
a time: float64 through Python's ``math`` module (which calls the C library's function
directly for these), float32 (and the double functions ``math`` computes itself, such as
``lgamma``) through ``ctypes``. Arguments keep their dtype: a float32 array gets ``expf``.

Example::

    exp(np.float32([1.0, 2.0]))  # glibc's expf of each element, a float32 array
    pow(np.float64([2.0]), np.float64([0.5]))  # glibc's pow
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

_F32 = np.dtype(np.float32)

# The double functions of Python's ``math`` module that are the C library's own; it
# raises where C returns an infinity or a NaN, and those elements go to the C function.
_MATH = {
    "exp": math.exp,
    "log": math.log,
    "log1p": math.log1p,
    "expm1": math.expm1,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "erf": math.erf,
    "erfc": math.erfc,
    "pow": math.pow,
}


@functools.cache
def _library() -> Any:
    return ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")


@functools.cache
def _c_function(name: str, c_type: Any, arity: int) -> Callable[..., float]:
    """The C library's ``name`` (``expf``, ``lgamma`` ...) of ``arity`` arguments."""
    function = getattr(_library(), name)
    function.argtypes = [c_type] * arity
    function.restype = c_type
    return function


def _guarded(fast: Callable[..., float], exact: Callable[..., float]) -> Callable[..., float]:
    def call(*args: float) -> float:
        try:
            return fast(*args)
        except (ValueError, OverflowError):
            return exact(*args)

    return call


@functools.cache
def _scalar(name: str, dtype: np.dtype, arity: int) -> Callable[..., float]:
    """The C function for one element of ``dtype``: ``name`` or ``name`` + ``f``."""
    if dtype == _F32:
        return _c_function(f"{name}f", ctypes.c_float, arity)
    exact = _c_function(name, ctypes.c_double, arity)
    return _guarded(_MATH[name], exact) if name in _MATH else exact


def _apply(name: str, *arrays: np.ndarray) -> np.ndarray:
    """The C function ``name`` of the elements of ``arrays`` (broadcast, one dtype)."""
    arrays = np.broadcast_arrays(*arrays)
    dtype = arrays[0].dtype
    function = _scalar(name, dtype, len(arrays))
    count = arrays[0].size
    values = map(function, *(a.ravel().tolist() for a in arrays))
    with np.errstate(over="ignore"):
        out = np.fromiter(values, np.float64, count).astype(dtype, copy=False)
    return out.reshape(arrays[0].shape)


def exp(x: np.ndarray) -> np.ndarray:
    """``std::exp`` of each element (``expf`` for float32)."""
    return _apply("exp", x)


def log(x: np.ndarray) -> np.ndarray:
    """``std::log`` of each element."""
    return _apply("log", x)


def log1p(x: np.ndarray) -> np.ndarray:
    """``std::log1p`` of each element."""
    return _apply("log1p", x)


def expm1(x: np.ndarray) -> np.ndarray:
    """``std::expm1`` of each element."""
    return _apply("expm1", x)


def sin(x: np.ndarray) -> np.ndarray:
    """``std::sin`` of each element."""
    return _apply("sin", x)


def cos(x: np.ndarray) -> np.ndarray:
    """``std::cos`` of each element."""
    return _apply("cos", x)


def tan(x: np.ndarray) -> np.ndarray:
    """``std::tan`` of each element."""
    return _apply("tan", x)


def acos(x: np.ndarray) -> np.ndarray:
    """``std::acos`` of each element."""
    return _apply("acos", x)


def erf(x: np.ndarray) -> np.ndarray:
    """``std::erf`` of each element."""
    return _apply("erf", x)


def erfc(x: np.ndarray) -> np.ndarray:
    """``std::erfc`` of each element."""
    return _apply("erfc", x)


def lgamma(x: np.ndarray) -> np.ndarray:
    """``std::lgamma`` of each element (glibc's, not Python's ``math.lgamma``)."""
    return _apply("lgamma", x)


def pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # noqa: A001 (C's name)
    """``std::pow`` of each pair of elements (``x`` and ``y`` of one dtype)."""
    return _apply("pow", x, y)


def exp2(x: np.ndarray) -> np.ndarray:
    """``std::exp2`` of each element."""
    return _apply("exp2", x)
