"""Process-wide settings that torch keeps in its C++ context, here plain values:
thread counts, the float32 matmul precision and the deterministic-algorithms switch.

hookgrad computes with NumPy, whose BLAS chooses its own threads, and its ops are
deterministic: the settings are stored and checked as torch checks them. The intra-op
thread count decides, as in torch, how a large sum is split between threads
(``hookgrad.ops.kernels.cpu``), and so its last bits; the others change no result.
``hookgrad`` exports them at the top level (``hookgrad.set_num_threads``).
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from hookgrad.ops.kernels import cpu


def _cpu_count() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_threads = {"inter-op": _cpu_count()}
_interop_set = False


def _thread_count(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return value


def set_num_threads(int: Any) -> None:  # noqa: A002 (torch's argument name)
    """Set the number of threads used within an op (NumPy's BLAS picks its own; sums split
    as torch's would between this many threads, and long kernels written as many NumPy
    passes, as float32 ``normal_``, run their row blocks on this many threads).

    Example::

        hookgrad.set_num_threads(4)
        hookgrad.get_num_threads()      # 4
    """
    cpu.set_num_threads(_thread_count("set_num_threads", int))


def get_num_threads() -> int:
    """The number of threads used within an op (the CPUs this process may use, unless
    ``set_num_threads`` changed it)."""
    return cpu.num_threads()


def set_num_interop_threads(int: Any) -> None:  # noqa: A002 (torch's argument name)
    """Set the number of threads that run ops side by side; as in torch, only once per
    process."""
    global _interop_set
    count = _thread_count("set_num_interop_threads", int)
    if _interop_set:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _threads["inter-op"] = count
    _interop_set = True


def get_num_interop_threads() -> int:
    """The number of threads that run ops side by side."""
    return _threads["inter-op"]


_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """Set the internal precision of float32 matrix products: ``"highest"`` (the
    default), ``"high"`` or ``"medium"``. Stored only: NumPy multiplies in float32."""
    global _matmul_precision
    if not isinstance(precision, str):
        raise RuntimeError(
            f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}"
        )
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _matmul_precision = precision


def get_float32_matmul_precision() -> str:
    """The internal precision of float32 matrix products (``"highest"`` by default)."""
    return _matmul_precision


_deterministic = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms only: hookgrad's always are. Example::

    hookgrad.use_deterministic_algorithms(True)
    hookgrad.are_deterministic_algorithms_enabled()     # True
    """
    for position, (name, value) in enumerate((("mode", mode), ("warn_only", warn_only))):
        if not isinstance(value, bool):
            where = f"(position {position + 1}) " if name == "mode" else ""
            raise TypeError(
                f"_set_deterministic_algorithms(): argument '{name}' {where}must be bool, "
                f"not {type(value).__name__}"
            )
    _deterministic.update(mode=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in effect."""
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether ``use_deterministic_algorithms`` was called with ``warn_only=True``."""
    return _deterministic["warn_only"]
