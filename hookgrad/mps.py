"""``hookgrad.mps``: Apple's Metal (MPS) device API, which hookgrad does not have.

``is_available()`` is False and ``device_count()`` 0; seeding is a no-op; what needs the
backend raises torch's "Cannot execute ... without MPS backend.".
"""

from __future__ import annotations

__all__ = [
    "current_allocated_memory",
    "device_count",
    "driver_allocated_memory",
    "empty_cache",
    "is_available",
    "manual_seed",
    "seed",
    "synchronize",
]


def is_available() -> bool:
    """False: hookgrad has no MPS backend."""
    return False


def device_count() -> int:
    """0: there is no MPS device."""
    return 0


def manual_seed(seed: int) -> None:
    """Seed the MPS generator: nothing to seed (``seed`` is checked to be an int)."""
    int(seed)


def _no_backend(call: str) -> RuntimeError:
    return RuntimeError(f"Cannot execute {call}() without MPS backend.")


def seed() -> None:
    """Seed the MPS generator randomly: fails, there is no MPS backend."""
    raise _no_backend("getDefaultGenerator")


def synchronize() -> None:
    """Wait for the MPS device: fails, there is no MPS backend."""
    raise _no_backend("deviceSynchronize")


def empty_cache() -> None:
    """Release cached MPS memory: fails, there is no MPS backend."""
    raise _no_backend("emptyCache")


def current_allocated_memory() -> int:
    """MPS memory in use: fails, there is no MPS backend."""
    raise _no_backend("getCurrentAllocatedMemory")


def driver_allocated_memory() -> int:
    """MPS driver memory: fails, there is no MPS backend."""
    raise _no_backend("getDriverAllocatedMemory")
