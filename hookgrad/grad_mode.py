"""Thread-local grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``; ``is_inference`` tells an inference tensor.

Each mode is a small class usable as a context manager and as a decorator. The state
lives in a ``threading.local``, so one thread's ``no_grad`` never affects another's.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    grad_enabled: bool = True
    inference: bool = False


_state = _State()


def is_grad_enabled() -> bool:
    """True when operations record the graph for autograd (the default)."""
    return _state.grad_enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return _state.inference


def is_inference(input: Any) -> bool:
    """True when ``input`` is an inference tensor (made inside ``inference_mode()``, or a
    view of one); torch's ``torch.is_inference``. Example::

        with hookgrad.inference_mode():
            t = hookgrad.ones(2)
        hookgrad.is_inference(t)     # True
    """
    # NOTE: duck-typed: this layer sits below ``Tensor``.
    if not hasattr(input, "_is_inference") or not hasattr(input, "_data"):
        raise TypeError(
            "is_inference(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return input.is_inference()


def _set_grad_enabled(mode: bool) -> None:
    _state.grad_enabled = bool(mode)


def _constructor(cls: type) -> Callable[..., Any]:
    def construct(*args: Any, **kwargs: Any) -> Any:
        return cls(*args, **kwargs)

    return construct


class _GradModeBase:
    """A context manager that is also a decorator (each call enters a fresh copy)."""

    def __call__(self, fn: F) -> F:
        func: Callable[..., Any] = fn
        if inspect.isclass(fn):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. "
                "You should only decorate functions or methods. To preserve the current "
                "behavior of class decoration, you can directly decorate the `__init__` "
                "method and nothing else.",
                FutureWarning,
                stacklevel=2,
            )
            func = _constructor(fn)
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def _wrap_generator(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        # NOTE: the mode must hold only while the generator's own code runs, not
        # while the caller runs between two ``next()`` calls.
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            gen = fn(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return wrapper

    def clone(self) -> _GradModeBase:
        return type(self)()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, *exc_info: object) -> None:
        raise NotImplementedError


class _NoParamDecorator(_GradModeBase):
    """A mode without parameters: ``@mode`` decorates like ``@mode()``."""

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Disable graph recording: results of operations do not require grad.

    Example::

        with hookgrad.no_grad():
            y = x * 2          # y.requires_grad is False

        @hookgrad.no_grad()    # or @hookgrad.no_grad
        def evaluate(model, x):
            return model(x)
    """

    def __init__(self) -> None:
        self._prev = True

    def __enter__(self) -> None:
        self._prev = _state.grad_enabled
        _state.grad_enabled = False

    def __exit__(self, *exc_info: object) -> None:
        _state.grad_enabled = self._prev


class enable_grad(_NoParamDecorator):
    """Enable graph recording, e.g. inside a ``no_grad`` block.

    Example::

        with hookgrad.no_grad():
            with hookgrad.enable_grad():
                y = x * 2      # recorded
    """

    def __init__(self) -> None:
        self._prev = True

    def __enter__(self) -> None:
        self._prev = _state.grad_enabled
        _state.grad_enabled = True

    def __exit__(self, *exc_info: object) -> None:
        _state.grad_enabled = self._prev


class set_grad_enabled(_GradModeBase):
    """Set grad mode to ``mode``. It takes effect at once; as a context manager it
    restores the previous mode on exit.

    Example::

        with hookgrad.set_grad_enabled(is_train):
            y = model(x)
    """

    def __init__(self, mode: bool) -> None:
        self._prev = _state.grad_enabled
        self.mode = bool(mode)
        _state.grad_enabled = self.mode

    def __call__(self, fn: F) -> F:
        # As a decorator the constructor's immediate effect is undone.
        _state.grad_enabled = self._prev
        return super().__call__(fn)

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self.mode)

    def __enter__(self) -> None:
        _state.grad_enabled = self.mode

    def __exit__(self, *exc_info: object) -> None:
        _state.grad_enabled = self._prev


class inference_mode(_GradModeBase):
    """Like ``no_grad``, and tensors created inside are *inference tensors*: they can
    never be saved for backward later, nor made to require grad outside the mode.
    ``inference_mode(False)`` leaves inference mode and turns grad mode on.

    Example::

        with hookgrad.inference_mode():
            y = model(x)      # y.is_inference() is True

        @hookgrad.inference_mode   # or @hookgrad.inference_mode()
        def predict(x):
            return model(x)
    """

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._prev = (True, False)

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)

    def __enter__(self) -> None:
        self._prev = (_state.grad_enabled, _state.inference)
        _state.grad_enabled = not self.mode
        _state.inference = self.mode

    def __exit__(self, *exc_info: object) -> None:
        _state.grad_enabled, _state.inference = self._prev
