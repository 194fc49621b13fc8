"""Window functions (torch's ``torch.signal.windows``): each a length-``M`` tensor, the
symmetric window (``sym=True``, for filter design) or the periodic one (``sym=False``,
for spectral analysis: the symmetric window of ``M + 1`` without its last point).

Every window is torch's formula on a ``linspace`` grid, in the same tensor ops, so the
values round as torch's do (float32 by default, or float64). Common keyword arguments:
``sym``, ``dtype`` (float32 or float64), ``layout`` (``strided``), ``device`` (the CPU)
and ``requires_grad``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import empty, ones, tensor
from hookgrad.tensor.functions.generated import cos, exp, i0, sin, sqrt
from hookgrad.tensor.functions.unary import abs
from hookgrad.tensor.layout import strided
from hookgrad.tensor.ranges import arange, linspace

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _checks(function_name: str, M: int, dtype: Any, layout: Any) -> Any:
    """torch's checks of the common arguments; the dtype to use."""
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{function_name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{function_name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"{function_name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M: int, dtype: Any, device: Any, requires_grad: bool, ones_at_one: bool) -> Any:
    """The window of length 0 (empty), or of length 1 (ones) when ``ones_at_one``."""
    if M == 0:
        return empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and ones_at_one:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _grid(start: Any, end: Any, M: int, dtype: Any, device: Any, requires_grad: bool) -> Any:
    return linspace(start, end, M, dtype=dtype, device=device, requires_grad=requires_grad)


def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``exp(-|n - center| / tau)``; ``center`` defaults to the middle (only for a
    periodic window may it be given). Example: ``exponential(5, tau=2.0)``."""
    dtype = _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad, False)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    start, end = -center * constant, (-center + (M - 1)) * constant
    return exp(-abs(_grid(start, end, M, dtype, device, requires_grad)))


def cosine(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The sine window ``sin(pi (n + 0.5) / M)``. Example: ``cosine(4)``."""
    dtype = _checks("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(M, dtype, device, requires_grad, False)
    start = 0.5
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    end = (start + (M - 1)) * constant
    return sin(_grid(start * constant, end, M, dtype, device, requires_grad))


def gaussian(
    M: int,
    *,
    std: float = 1.0,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``exp(-(n - middle)^2 / (2 std^2))``. Example: ``gaussian(7, std=2.0)``."""
    dtype = _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad, False)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    end = (start + (M - 1)) * constant
    k = _grid(start * constant, end, M, dtype, device, requires_grad)
    return exp(-(k**2))


def kaiser(
    M: int,
    *,
    beta: float = 12.0,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)``. Example: ``kaiser(6)``."""
    dtype = _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, device, requires_grad, True)
    if trivial is not None:
        return trivial
    beta_t = tensor(beta, dtype=dtype, device=device)
    start = -beta_t
    constant = 2.0 * beta_t / (M if not sym else M - 1)
    end = (start + (M - 1) * constant).minimum(beta_t)
    k = _grid(start, end, M, dtype, device, requires_grad)
    return i0(sqrt(beta_t * beta_t - k.pow(2))) / i0(beta_t)


def hamming(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``0.54 - 0.46 cos(2 pi n / (M - 1))``. Example: ``hamming(5)``."""
    return general_hamming(
        M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def hann(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``0.5 - 0.5 cos(2 pi n / (M - 1))``. Example: ``hann(5, sym=False)``."""
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def blackman(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The Blackman window: ``general_cosine`` with ``a = [0.42, 0.5, 0.08]``."""
    dtype = _checks("blackman", M, dtype, layout)
    return general_cosine(
        M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def bartlett(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The triangular window ``1 - |2n / (M - 1) - 1|``. Example: ``bartlett(5)``."""
    dtype = _checks("bartlett", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad, True)
    if trivial is not None:
        return trivial
    start = -1
    constant = 2 / (M if not sym else M - 1)
    k = _grid(start, start + (M - 1) * constant, M, dtype, device, requires_grad)
    return 1 - abs(k)


def general_cosine(
    M: int,
    *,
    a: Iterable[float],
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))`` for the coefficients ``a``.

    Example: ``general_cosine(6, a=[0.46, 0.23, 0.31])``.
    """
    dtype = _checks("general_cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad, True)
    if trivial is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _grid(0, (M - 1) * constant, M, dtype, device, requires_grad)
    coefficients = [(-1) ** i * w for i, w in enumerate(a)]
    a_i = tensor(coefficients, device=device, dtype=dtype, requires_grad=requires_grad)
    i = arange(a_i.shape[0], dtype=a_i.dtype, device=device, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(
    M: int,
    *,
    alpha: float = 0.54,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))``. Example: ``general_hamming(5, alpha=0.6)``."""
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def nuttall(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The minimum 4-term Blackman-Harris window of Nuttall. Example: ``nuttall(5)``."""
    return general_cosine(
        M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
        layout=layout, device=device, requires_grad=requires_grad,
    )  # fmt: skip
