"""``hookgrad.cpu``: torch's per-device API for the CPU, the one device hookgrad has.
Example::

    hookgrad.cpu.is_available()         # True
    hookgrad.cpu.current_device()       # 'cpu'
"""

from __future__ import annotations

from typing import Any

from hookgrad.cpu import amp

__all__ = [
    "amp",
    "current_device",
    "device_count",
    "is_available",
    "is_initialized",
    "set_device",
    "synchronize",
]


def is_available() -> bool:
    """True: the CPU is always there."""
    return True


def is_initialized() -> bool:
    """True: the CPU needs no start-up."""
    return True


def device_count() -> int:
    """1: the CPU counts as one device."""
    return 1


def current_device() -> str:
    """``'cpu'``."""
    return "cpu"


def set_device(device: Any) -> None:
    """Select the CPU: nothing to do."""


def synchronize(device: Any = None) -> None:
    """Wait for the CPU's work: it is done when an op returns."""
