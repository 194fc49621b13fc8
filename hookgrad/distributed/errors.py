"""torch's distributed exceptions and debug level: ``DistError`` (a RuntimeError) and its
kinds, and ``DebugLevel`` with ``get_debug_level``/``set_debug_level`` (read from
``TORCH_DISTRIBUTED_DEBUG``; ``INFO`` or ``DETAIL`` makes DDP's unused-parameter error
name the parameters)."""

from __future__ import annotations

import enum
import os

__all__ = [
    "DebugLevel",
    "DistBackendError",
    "DistError",
    "DistNetworkError",
    "DistStoreError",
    "QueueEmptyError",
    "get_debug_level",
    "set_debug_level",
    "set_debug_level_from_env",
]


class DistError(RuntimeError):
    """An error of the distributed package. Example::

    try:
        dist.all_reduce(t)            # another rank passed a tensor of another size
    except dist.DistError as error:
        print(error)
    """


class DistBackendError(DistError):
    """An error in a collective: the ranks disagree on what they pass, or it timed out."""


class DistNetworkError(DistError):
    """An error reaching another process."""


class DistStoreError(DistError):
    """An error of the key-value store that processes meet through."""


class QueueEmptyError(DistStoreError):
    """A queue of the store was empty."""


class DebugLevel(enum.Enum):
    """How much the distributed package reports: ``OFF``, ``INFO``, ``DETAIL``."""

    OFF = 0
    INFO = 1
    DETAIL = 2


_level = [DebugLevel.OFF]


def get_debug_level() -> DebugLevel:
    """The current debug level. Example: ``dist.get_debug_level()``."""
    return _level[0]


def set_debug_level(level: DebugLevel) -> None:
    """Set the debug level. Example: ``dist.set_debug_level(dist.DebugLevel.INFO)``."""
    _level[0] = DebugLevel(level)


def set_debug_level_from_env() -> None:
    """Set the debug level from ``TORCH_DISTRIBUTED_DEBUG`` (``OFF``, ``INFO``,
    ``DETAIL``)."""
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if value not in DebugLevel.__members__:
        raise ValueError(
            f"The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL, but got {value}."
        )
    _level[0] = DebugLevel[value]


set_debug_level_from_env()
