"""``autocast`` and its state, and the ``custom_fwd``/``custom_bwd`` decorators for
``autograd.Function``, as a CPU-only torch has them.

hookgrad keeps autocast's per-thread state (``is_autocast_enabled``,
``get_autocast_dtype``), its checks and its warnings, but casts nothing: inside an
enabled region every op still runs in its inputs' dtype, where torch's CPU autocast runs
matmul-like ops in bfloat16 (a dtype hookgrad lacks; its CPU default here is float16).
CUDA autocast disables itself with torch's warning, as there is no GPU.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable
from typing import Any

from hookgrad.tensor import dtypes
from hookgrad.tensor.device import device
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "autocast",
    "custom_bwd",
    "custom_fwd",
    "get_autocast_dtype",
    "is_autocast_available",
    "is_autocast_enabled",
]

_DEVICE_TYPES = ("cpu", "cuda")
_DEFAULT_DTYPES = {"cpu": dtypes.float16, "cuda": dtypes.float16}
_CPU_DTYPES = (dtypes.float16,)


class _State(threading.local):
    """Autocast's state in one thread: enabled flag and dtype per device type."""

    def __init__(self) -> None:
        self.enabled = dict.fromkeys(_DEVICE_TYPES, False)
        self.dtype = dict(_DEFAULT_DTYPES)


_state = _State()


def is_autocast_available(device_type: str) -> bool:
    """Whether ``autocast(device_type)`` can be made: for ``"cpu"`` and ``"cuda"``."""
    device(device_type)  # torch's error for a string that names no device
    return device_type in _DEVICE_TYPES


def _checked(device_type: str) -> str:
    if not is_autocast_available(device_type):
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` in this thread (CUDA's when omitted,
    as in torch). Example::

        with hookgrad.autocast("cpu"):
            hookgrad.is_autocast_enabled("cpu")     # True
    """
    return _state.enabled[_checked("cuda" if device_type is None else device_type)]


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    """The dtype autocast names for ``device_type`` in this thread (float16 unless an
    enclosing ``autocast`` set another)."""
    return _state.dtype[_checked(device_type)]


class autocast:
    """Context manager and decorator: a mixed-precision region for ``device_type``.

    Arguments as torch's ``autocast(device_type, dtype=None, enabled=True,
    cache_enabled=None)``. hookgrad records the region (``is_autocast_enabled``) but runs
    every op in its inputs' dtype. ``autocast("cuda")`` warns and disables itself.
    Example::

        with hookgrad.autocast("cpu"):
            loss = model(x).sum()       # computed as without autocast
    """

    def __init__(
        self,
        device_type: str,
        dtype: dtypes.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        self._cache_enabled = True if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda":
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.",
                UserWarning,
                stacklevel=2,
            )
            enabled = False
        elif enabled and self.fast_dtype not in _CPU_DTYPES:
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                UserWarning,
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled

    def __enter__(self) -> autocast:
        self._previous = (_state.enabled[self.device], _state.dtype[self.device])
        _state.enabled[self.device] = self._enabled
        _state.dtype[self.device] = self.fast_dtype
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _state.enabled[self.device], _state.dtype[self.device] = self._previous

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return decorate_autocast


def _cast(value: Any, dtype: dtypes.dtype) -> Any:
    """``value`` with its floating-point tensors (also inside lists, tuples and dicts)
    cast to ``dtype``."""
    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, dict):
        return {key: _cast(item, dtype) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(item, dtype) for item in value)
    return value


def custom_fwd(
    fwd: Callable[..., Any] | None = None,
    *,
    device_type: str,
    cast_inputs: dtypes.dtype | None = None,
) -> Any:
    """Decorator for an ``autograd.Function``'s ``forward``: inside an enabled autocast
    region with ``cast_inputs``, it runs with autocast off on inputs cast to
    ``cast_inputs``; ``custom_bwd`` then runs ``backward`` in the forward's autocast state.

    Example::

        class Double(hookgrad.autograd.Function):
            @staticmethod
            @hookgrad.amp.custom_fwd(device_type="cpu")
            def forward(ctx, x):
                return x * 2

            @staticmethod
            @hookgrad.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                return grad * 2
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        enabled = is_autocast_enabled(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = enabled
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not enabled:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str) -> Any:
    """Decorator for an ``autograd.Function``'s ``backward``: it runs in the autocast
    state its ``forward`` (decorated with ``custom_fwd``) ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
