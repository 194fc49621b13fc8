"""``hookgrad.accelerator``: torch's device-agnostic accelerator API, with none present.

``is_available()`` is False, ``current_accelerator()`` None and ``device_count()`` 0;
whatever needs the accelerator raises torch's "Cannot access accelerator device when
none is available.". Example::

    acc = hookgrad.accelerator.current_accelerator()
    device = acc if acc is not None else hookgrad.device("cpu")
"""

from __future__ import annotations

from typing import Any

from hookgrad.tensor.device import NO_ACCELERATOR, device

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "current_stream",
    "device_count",
    "empty_cache",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "set_device_idx",
    "set_device_index",
    "synchronize",
]


def is_available() -> bool:
    """False: there is no accelerator (GPU, MPS ...)."""
    return False


def current_accelerator(check_available: bool = False) -> device | None:
    """The accelerator's device type: None, as there is none."""
    return None


def device_count() -> int:
    """0: there is no accelerator."""
    return 0


def _needs_accelerator(name: str) -> Any:
    """The function ``name`` of torch's accelerator API that needs an accelerator: it
    raises ``RuntimeError`` as torch's does without one."""

    def needs_accelerator(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(NO_ACCELERATOR)

    needs_accelerator.__name__ = needs_accelerator.__qualname__ = name
    needs_accelerator.__doc__ = (
        f"Needs an accelerator: raises ``RuntimeError('{NO_ACCELERATOR}')``."
    )
    return needs_accelerator


current_device_index = _needs_accelerator("current_device_index")
current_device_idx = _needs_accelerator("current_device_idx")
set_device_index = _needs_accelerator("set_device_index")
set_device_idx = _needs_accelerator("set_device_idx")
current_stream = _needs_accelerator("current_stream")
synchronize = _needs_accelerator("synchronize")
empty_cache = _needs_accelerator("empty_cache")
memory_allocated = _needs_accelerator("memory_allocated")
max_memory_allocated = _needs_accelerator("max_memory_allocated")
memory_reserved = _needs_accelerator("memory_reserved")
max_memory_reserved = _needs_accelerator("max_memory_reserved")
