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

from hookgrad import grad_mode
from hookgrad.ops.kernels import blas
from hookgrad.ops.kernels import pow as pow_kernels
from hookgrad.ops.kernels import sum as sum_kernels


def conj(x: Any) -> Any:
    """The complex conjugate; a real array or number is returned as is (no copy)."""
    if type(x) is np.ndarray:
        return x.conj() if x.dtype.kind == "c" else x
    return x.conjugate() if isinstance(x, complex) else x


def rsqrt(x: Any) -> Any:
    return 1 / np.sqrt(x)


def pow(x: Any, exponent: Any) -> Any:  # noqa: A001 (torch's name)
    """``x ** exponent`` as torch computes it for a floating array (``x * x * x`` for 3,
    Sleef's ``pow`` for most exponents: ``hookgrad.ops.kernels.pow``)."""
    if isinstance(x, np.ndarray) and x.dtype in pow_kernels.FLOATING:
        if isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
            return pow_kernels.pow_tensor_scalar(x, exponent)
        if isinstance(exponent, np.ndarray) and exponent.dtype == x.dtype:
            return pow_kernels.pow_tensor_tensor(x, exponent)
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


def ones_like(x: Any) -> Any:
    return np.ones_like(x)


def new_zeros(x: Any, shape: Any) -> Any:
    return np.zeros(shape, x.dtype)


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


# ---------------------------------------------------------------- shapes, reductions, products


def expand(x: Any, sizes: Any) -> Any:
    """``x`` broadcast to ``sizes`` (a read-only view, as torch's expand is a view)."""
    return np.broadcast_to(x, tuple(sizes))


def unsqueeze(x: Any, dim: int) -> Any:
    return np.expand_dims(x, dim)


def reshape(x: Any, sizes: Any) -> Any:
    return np.reshape(x, sizes)


def sum(x: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001 (torch's name)
    """The sum over ``dim`` (an int or a tuple); None or ``()`` sums every dim, as torch's
    ``sum``, and so does any dim of a 0-d array. Floating arrays are summed in torch's
    order (``hookgrad.ops.kernels.sum``)."""
    dims = _dims(x, dim)
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return sum_kernels.sum(x, dims, keepdim)
    return np.sum(x, axis=dims, keepdims=keepdim)


def mean(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """The mean over ``dim`` (an int or a tuple; None or ``()``: every dim), as torch's
    ``mean`` (floating arrays: torch's sum, divided by the count)."""
    dims = _dims(x, dim)
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return sum_kernels.mean(x, dims, keepdim)
    return np.mean(x, axis=dims, keepdims=keepdim)


def _dims(x: Any, dim: Any) -> tuple[int, ...] | None:
    """NumPy's ``axis`` for torch's ``dim``: None (every dim) for None, ``()`` or a 0-d
    array."""
    if dim is None or not np.ndim(x):
        return None
    if isinstance(dim, (int, np.integer)):
        return (int(dim),)
    return tuple(dim) or None


def numel(x: Any) -> int:
    return int(np.size(x))


def t(x: Any) -> Any:
    """The transpose of a matrix (a vector or 0-d array as is)."""
    return x.T


def transpose(x: Any, dim0: int, dim1: int) -> Any:
    return np.swapaxes(x, dim0, dim1)


def flip(x: Any, dim: int) -> Any:
    return np.flip(x, dim)


def cumsum(x: Any, dim: int) -> Any:
    return np.cumsum(x, axis=dim)


def ger(x: Any, y: Any) -> Any:
    """The outer product of two vectors."""
    return np.multiply.outer(x, y)


# ---------------------------------------------------------------- activations


def type_as(x: Any, other: Any) -> Any:
    return x.astype(other.dtype, copy=False)


def is_grad_enabled() -> bool:
    """torch's ``GradMode::is_enabled()``, which some formulas ask (always False here:
    formulas run on arrays only when no graph is recorded)."""
    return grad_mode.is_grad_enabled()


def logit_backward(grad_output: Any, x: Any, eps: float | None = None) -> Any:
    """torch's ``logit_backward`` kernel: ``grad / (x (1 - x))``, NaN outside [0, 1]
    (0 outside ``[eps, 1 - eps]`` with ``eps``).

    ``|x (1 - x)|`` is ``x (1 - x)`` on [0, 1] but +0 rather than -0 at ``x = -0.0``,
    where torch's kernel gives ``grad * inf``.
    """
    low, high, outside = (0.0, 1.0, math.nan) if eps is None else (eps, 1 - eps, 0.0)
    inside = grad_output / np.abs(x * (1 - x))
    return np.where((x < low) | (x > high), outside, inside)


# Constants formulas use, as torch's C++ formulas do.
CONSTANTS = {
    "M_LN2": math.log(2.0),
    "M_LN10": math.log(10.0),
    "M_PI": math.pi,
    "inf": math.inf,
    "nan": math.nan,
}

FUNCTIONS: dict[str, Any] = {
    "abs": np.abs,
    "bmm": np.matmul,
    "conj": conj,
    "cos": np.cos,
    "cosh": np.cosh,
    "cumsum": cumsum,
    "div": div,
    "exp": np.exp,
    "expand": expand,
    "flip": flip,
    "ger": ger,
    "is_complex": is_complex,
    "is_grad_enabled": is_grad_enabled,
    "isfinite": np.isfinite,
    "isnan": np.isnan,
    "log": np.log,
    "logit_backward": logit_backward,
    "masked_fill": masked_fill,
    "mean": mean,
    "mm": blas.mm,
    "mv": blas.mv,
    "neg": np.negative,
    "new_zeros": new_zeros,
    "numel": numel,
    "ones_like": ones_like,
    "pow": pow,
    "reshape": reshape,
    "rsqrt": rsqrt,
    "sgn": sgn,
    "sin": np.sin,
    "sinh": np.sinh,
    "sqrt": np.sqrt,
    "sum": sum,
    "t": t,
    "transpose": transpose,
    "type_as": type_as,
    "unsqueeze": unsqueeze,
    "where": where,
    "zeros_like": zeros_like,
    "scalar_conj": scalar_conj,
    "scalar_log": scalar_log,
    **CONSTANTS,
}
