"""``hookgrad.profiler.itt``: Intel ITT ranges for VTune. hookgrad is not built with ITT,
so ``is_available()`` is False and the range functions raise torch's error."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

__all__ = ["is_available", "mark", "range", "range_pop", "range_push"]

_NOT_BUILT = "ITT functions not installed. Are you sure you have a ITT build?"


def is_available() -> bool:
    """Whether ITT is available: never in hookgrad."""
    return False


def range_push(msg: str) -> NoReturn:
    """Push an ITT range named ``msg`` (a RuntimeError: no ITT build)."""
    raise RuntimeError(_NOT_BUILT)


def range_pop() -> NoReturn:
    """Pop the innermost ITT range (a RuntimeError: no ITT build)."""
    raise RuntimeError(_NOT_BUILT)


def mark(msg: str) -> NoReturn:
    """Mark an instant named ``msg`` (a RuntimeError: no ITT build)."""
    raise RuntimeError(_NOT_BUILT)


@contextmanager
def range(msg: str, *args: Any, **kwargs: Any) -> Iterator[None]:  # noqa: A001 (torch's name)
    """Push a range named ``msg.format(*args, **kwargs)`` for the block, pop it after.
    Example: ``with itt.range("step {}", 3): ...``"""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
