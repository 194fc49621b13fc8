"""What derivative formulas call when they run on NumPy arrays (no graph recorded).

A formula is written with tensor methods (``result.conj()``, ``grad.masked_fill(m, 0)``);
on arrays each method call ``x.f(...)`` becomes ``f(x, ...)`` with ``f`` from
``FUNCTIONS`` below, and each free function is looked up there too. Each function takes
arrays (or Python numbers) and returns an array, in torch's semantics for the formulas'
needs: ``conj`` of a real value is the value itself, ``masked_fill`` copies.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def conj(x: Any) -> Any:
    """The complex conjugate; a real array or number is returned as is (no copy)."""
    if type(x) is np.ndarray:
        return x.conj() if x.dtype.kind == "c" else x
    return x.conjugate() if isinstance(x, complex) else x


def rsqrt(x: Any) -> Any:
    return 1 / np.sqrt(x)


def pow(x: Any, exponent: Any) -> Any:  # noqa: A001 (torch's name)
    return np.power(x, exponent)


def sgn(x: Any) -> Any:
    """``x / |x|`` (0 at 0); for real ``x`` its sign, in ``x``'s dtype."""
    if x.dtype.kind == "c":
        magnitude = np.abs(x)
        return np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude))
    return np.subtract(x > 0, x < 0, dtype=x.dtype)


def masked_fill(x: Any, mask: Any, value: Any) -> Any:
    """A copy of ``x`` with ``value`` where ``mask`` is true (broadcast to both)."""
    return np.where(mask, np.asarray(value, dtype=x.dtype), x)


def where(condition: Any, x: Any, y: Any) -> Any:
    return np.where(condition, x, y)


def zeros_like(x: Any) -> Any:
    return np.zeros_like(x)


def div(x: Any, y: Any, rounding_mode: str | None = None) -> Any:
    if rounding_mode == "floor":
        return np.floor_divide(x, y)
    if rounding_mode == "trunc":
        return np.trunc(np.true_divide(x, y))
    return np.true_divide(x, y)


def is_complex(x: Any) -> bool:
    return x.dtype.kind == "c"


def scalar_conj(value: Any) -> Any:
    """The conjugate of a Python number (non-tensor arguments such as ``alpha``)."""
    return value.conjugate() if isinstance(value, complex) else value


def scalar_log(value: Any) -> Any:
    """The natural logarithm of a Python or NumPy number, as a Python number."""
    return np.log(value).item()


# Constants formulas use, as torch's C++ formulas do.
CONSTANTS = {"M_LN2": math.log(2.0), "M_LN10": math.log(10.0), "M_PI": math.pi, "inf": math.inf}

FUNCTIONS: dict[str, Any] = {
    "abs": np.abs,
    "conj": conj,
    "cos": np.cos,
    "cosh": np.cosh,
    "div": div,
    "exp": np.exp,
    "is_complex": is_complex,
    "isfinite": np.isfinite,
    "log": np.log,
    "masked_fill": masked_fill,
    "neg": np.negative,
    "pow": pow,
    "rsqrt": rsqrt,
    "sgn": sgn,
    "sin": np.sin,
    "sinh": np.sinh,
    "sqrt": np.sqrt,
    "where": where,
    "zeros_like": zeros_like,
    "scalar_conj": scalar_conj,
    "scalar_log": scalar_log,
    **CONSTANTS,
}
