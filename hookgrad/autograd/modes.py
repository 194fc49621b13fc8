"""Engine switches torch keeps beside the grad modes: multithreaded backward, view replay
and the gradient layout policy.

Each is a thread-local flag set by a class usable as a context manager, a decorator, or
a plain call (torch's semantics: the flag changes when the object is made, and leaving
the block restores it). hookgrad's engine runs every backward pass on the calling
thread, regenerates views with ``as_strided`` and accumulates gradients in the layout
NumPy gives them, so the flags change nothing else; they are kept so that programs
setting them run, and read back what they set.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "enforce_grad_layout_policy",
    "is_grad_layout_policy_enforced",
    "is_multithreading_enabled",
    "is_view_replay_enabled",
    "set_multithreading_enabled",
]


class _Flags(threading.local):
    multithreading = True
    view_replay = False
    grad_layout = True


_flags = _Flags()


def is_multithreading_enabled() -> bool:
    """Returns True if multithreading is currently enabled (see
    ``set_multithreading_enabled``)."""
    return _flags.multithreading


def is_view_replay_enabled() -> bool:
    """Returns True if view-replay is currently enabled (see
    ``_force_original_view_tracking``)."""
    return _flags.view_replay


def is_grad_layout_policy_enforced() -> bool:
    """Whether the gradient layout contract is enforced (see
    ``enforce_grad_layout_policy``)."""
    return _flags.grad_layout


class _FlagMode:
    """A flag set on construction and restored on exit; also a decorator."""

    _name = ""
    # torch's view-replay and layout modes restore the flag when they decorate.
    _restore_on_decorate = True

    def __init__(self, mode: bool) -> None:
        self.prev = getattr(_flags, self._name)
        self.mode = mode
        setattr(_flags, self._name, mode)

    def __enter__(self) -> None:
        setattr(_flags, self._name, self.mode)

    def __exit__(self, *exc_info: object) -> None:
        setattr(_flags, self._name, self.prev)

    def clone(self) -> _FlagMode:
        return type(self)(self.mode)

    def __call__(self, fn: F) -> F:
        # NOTE: as torch's, decorating may restore the flag now; each call sets it anew.
        if self._restore_on_decorate:
            setattr(_flags, self._name, self.prev)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class set_multithreading_enabled(_FlagMode):
    """Context manager (or function) that enables or disables multithreaded backward.

    torch runs the backward pass on per-device worker threads unless ``mode=False``;
    hookgrad always runs it on the calling thread, so only the flag changes. Thread
    local. Example::

        with hookgrad.autograd.set_multithreading_enabled(False):
            loss.backward()
    """

    _name = "multithreading"
    _restore_on_decorate = False


class _force_original_view_tracking(_FlagMode):
    """Context manager (or function) that sets whether autograd always replays the chain
    of views to regenerate a view changed in place (``mode=True``) or may use
    ``as_strided`` (hookgrad always does). Thread local. Example::

        with hookgrad.autograd._force_original_view_tracking(True):
            hookgrad.autograd.is_view_replay_enabled()   # True
    """

    _name = "view_replay"


class enforce_grad_layout_policy(_FlagMode):
    """Context manager (or function) that controls the gradient layout contract:
    accumulated gradients laid out as their parameters (``enable=True``, the default)
    or as they come. hookgrad accumulates in NumPy's layout either way. Thread local.
    Example::

        with hookgrad.autograd.enforce_grad_layout_policy(False):
            (p * 2).sum().backward()
    """

    _name = "grad_layout"

    def __init__(self, enable: bool = True) -> None:
        super().__init__(enable)
