"""The window functions of torch's top level: ``hamming_window``, ``hann_window``,
``blackman_window``, ``bartlett_window`` and ``kaiser_window`` (periodic by default), with
torch's checks and values (and its factory options: ``layout`` may only be ``strided``,
``pin_memory=True`` fails). (``torch.signal.windows`` is ``hookgrad.signal.windows``.)

Example: ``hookgrad.hann_window(4)`` is ``tensor([0.0000, 0.5000, 1.0000, 0.5000])``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.tensor.creation import OPTION_DTYPE_NAMES, check_options, new_leaf, resolve_dtype
from hookgrad.tensor.device import check_device, factory_device


# -- window functions ----------------------------------------------------------------------
def _window(
    name: str, window_length: int, periodic: bool, dtype: Any, device: Any, requires_grad: bool
) -> tuple[Any, int] | Any:
    """The checks and trivial lengths every window shares: the dtype and, for a length of
    0 or 1, the finished window; else the length to compute (one more when ``periodic``,
    whose last value is dropped)."""
    check_device(factory_device(device))
    target = resolve_dtype(dtype)
    if not target.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{OPTION_DTYPE_NAMES.get(target, target.name)}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"
        )
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    if window_length <= 1:
        return new_leaf(np.ones(window_length, target.np), requires_grad)
    return target, window_length + 1 if periodic else window_length


def _finished(window: np.ndarray, periodic: bool, requires_grad: bool) -> Any:
    return new_leaf(window[:-1] if periodic else window, requires_grad)


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """The Hamming window ``alpha - beta cos(2 pi n / (N - 1))`` (``N``: the length, one
    more when ``periodic``, the default, for spectral analysis), computed step by step in
    the dtype as torch's. Example: ``hookgrad.hamming_window(4, periodic=False)``."""
    check_options("hamming_window", layout, pin_memory)
    prepared = _window("hamming_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    target, length = prepared
    kind = target.np.type
    window = np.arange(length, dtype=target.np) * kind(math.pi * 2.0 / (length - 1))
    window = np.cos(window) * kind(-beta) + kind(alpha)
    return _finished(window, periodic, requires_grad)


def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (``hamming_window`` with
    ``alpha = beta = 0.5``). Example: ``hookgrad.hann_window(4)`` is
    ``tensor([0.0000, 0.5000, 1.0000, 0.5000])``."""
    check_options("hann_window", layout, pin_memory)
    prepared = _window("hann_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    return hamming_window(
        window_length, periodic, 0.5, 0.5, dtype=dtype, requires_grad=requires_grad
    )


def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    Example: ``hookgrad.blackman_window(5, periodic=False)``.
    """
    check_options("blackman_window", layout, pin_memory)
    prepared = _window("blackman_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    target, length = prepared
    kind = target.np.type
    window = np.arange(length, dtype=target.np) * kind(math.pi / (length - 1))
    four = np.cos(window * kind(4)) * kind(0.08)
    two = np.cos(window * kind(2)) * kind(0.5)
    return _finished(four - two + kind(0.42), periodic, requires_grad)


def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """The Bartlett (triangular) window: rising from 0 to 1 and back.

    Example: ``hookgrad.bartlett_window(5, periodic=False)`` is
    ``tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])``.
    """
    check_options("bartlett_window", layout, pin_memory)
    prepared = _window("bartlett_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    target, length = prepared
    kind = target.np.type
    window = np.arange(length, dtype=target.np) * kind(2.0 / (length - 1))
    half = ((length - 1) >> 1) + 1
    window[half:] = window[half:] * kind(-1) + kind(2)
    return _finished(window, periodic, requires_grad)


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """The Kaiser window ``I0(beta sqrt(1 - ((n - a) / a) ** 2)) / I0(beta)`` with
    ``a = (N - 1) / 2`` and ``I0`` the modified Bessel function of order 0.

    Example: ``hookgrad.kaiser_window(4, periodic=False, beta=5.0)``.
    """
    check_options("kaiser_window", layout, pin_memory)
    prepared = _window("kaiser_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    target, length = prepared
    alpha = (length - 1) / 2.0
    ratio = (np.arange(length, dtype=np.float64) - alpha) / alpha
    window = np.i0(beta * np.sqrt(np.abs(1 - ratio**2))) / np.i0(beta)
    return _finished(window.astype(target.np), periodic, requires_grad)
