"""Anomaly detection: ``detect_anomaly`` and ``set_detect_anomaly``.

With anomaly mode on, every node records the Python stack of the forward call that
created it; when a node fails in backward, a ``UserWarning`` shows that stack (and, for
nodes created in a backward pass, the stack of the node whose backward created them),
and with ``check_nan`` a node that returns NaN raises ``RuntimeError``. Like torch's,
the mode is process-wide, not per thread. When it is off, the engine checks nothing.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from hookgrad.graph import anomaly

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]


def is_anomaly_enabled() -> bool:
    """True while anomaly detection is on."""
    return anomaly.state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """True if anomaly mode raises on NaN gradients (when it is on)."""
    return anomaly.state.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (prefer the context managers below)."""
    anomaly.state.enabled = bool(enabled)
    anomaly.state.check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on.

    Inside it, an error raised by a node in backward is preceded by a ``UserWarning``
    showing the forward stack that created the node, and with ``check_nan`` a node that
    returns a gradient containing NaN raises ``RuntimeError("Function 'XBackward0'
    returned nan values in its 0th output.")``. It slows every op: debugging only.
    Example::

        with hookgrad.autograd.detect_anomaly():
            x = hookgrad.tensor([0.0], requires_grad=True)
            (x.sqrt() * 0).sum().backward()  # RuntimeError: ... SqrtBackward0 ...
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self._previous: list[tuple[bool, bool]] = []
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self._previous.append((anomaly.state.enabled, anomaly.state.check_nan))
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(*self._previous.pop())

    def __call__(self, fn: F) -> F:
        """Decorate ``fn`` so that each call runs with anomaly detection on."""

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class set_detect_anomaly:
    """Turn anomaly detection on or off: at once as a function, or for a ``with`` block.

    ``mode``: on (True) or off (False); ``check_nan``: whether NaN gradients raise.
    Leaving the ``with`` block restores the previous setting. Example::

        with hookgrad.autograd.set_detect_anomaly(False):
            loss.backward()  # no checks, even inside detect_anomaly()
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = (anomaly.state.enabled, anomaly.state.check_nan)
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(*self._previous)
