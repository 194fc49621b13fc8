"""torch-level names that belong to no op family: ``typename``, ``get_device_module``,
the warn-always and deterministic-debug flags, ``classproperty``, torch's exception
classes, and the CPU ``Event`` and ``Stream`` (as a CPU-only torch gives them).

``hookgrad/__init__.py`` exports them; none of them computes on tensors.
"""

from __future__ import annotations

import builtins
import functools
import importlib
from typing import Any

from hookgrad.backends import _settings
from hookgrad.tensor.device import device
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "AcceleratorError",
    "Event",
    "FatalError",
    "JITException",
    "OutOfMemoryError",
    "Stream",
    "classproperty",
    "get_deterministic_debug_mode",
    "get_device_module",
    "is_warn_always_enabled",
    "matrix_rank",
    "native_norm",
    "set_deterministic_debug_mode",
    "set_warn_always",
    "typename",
]


# ---------------------------------------------------------------- exceptions


class AcceleratorError(RuntimeError):
    """An error an accelerator reported (torch's ``torch.AcceleratorError``); hookgrad,
    on the CPU only, raises none, but code may catch it."""


class OutOfMemoryError(RuntimeError):
    """Memory ran out on a device (torch's ``torch.OutOfMemoryError``, also
    ``torch.cuda.OutOfMemoryError``); code may catch it."""


class FatalError(Exception):
    """torch's ``torch.FatalError``: an unrecoverable internal error."""


class JITException(Exception):
    """torch's ``torch.jit.Error`` (exported as ``torch.JITException``): an error raised
    by TorchScript code, which hookgrad does not run."""


JITException.__qualname__ = JITException.__name__ = "Error"


# ---------------------------------------------------------------- small utilities


def typename(obj: Any, /) -> str:
    """The fully qualified name of ``obj``'s type: a tensor's legacy type name
    (``"torch.FloatTensor"``), else ``module.QualifiedName`` (builtins unqualified).

    Example: ``hookgrad.typename(hookgrad.zeros(2, dtype=hookgrad.int64))`` is
    ``"torch.LongTensor"``; ``hookgrad.typename(3)`` is ``"int"``.
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in {"", "builtins"}:
        return qualname
    return f"{module}.{qualname}"


class _ClassPropertyDescriptor:
    """A read-only property of a class (see ``classproperty``)."""

    def __init__(self, fget: Any) -> None:
        self.fget = fget

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if owner is None:
            owner = type(instance)
        return self.fget.__get__(instance, owner)()


def classproperty(func: Any) -> _ClassPropertyDescriptor:
    """Decorate a method to read as a property of the class itself (torch's
    ``torch.classproperty``). Example::

        class Config:
            @hookgrad.classproperty
            def name(cls):
                return cls.__name__

        Config.name        # 'Config'
    """
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassPropertyDescriptor(func)


@functools.cache
def get_device_module(device_: Any = None) -> Any:
    """The module of a device type: ``hookgrad.cpu`` for ``"cpu"`` or None (there is no
    accelerator), ``hookgrad.cuda`` for ``"cuda"`` ... Example::

        hookgrad.get_device_module("cpu").device_count()     # 1
    """
    if isinstance(device_, device):
        name = device_.type
    elif isinstance(device_, str):
        name = device(device_).type
    elif device_ is None:
        name = "cpu"
    else:
        raise RuntimeError(
            f"Invalid value of device '{device_}', expect torch.device, str, or None"
        )
    try:
        return importlib.import_module(f"hookgrad.{name}")
    except ImportError:
        raise RuntimeError(
            f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'."
        ) from None


_warn_always = {"enabled": False}


def set_warn_always(b: bool, /) -> None:
    """Set the flag asking warnings that torch shows once per process to show every
    time (torch's ``set_warn_always``). hookgrad keeps the flag; its warnings follow
    Python's ``warnings`` filters. Example: ``hookgrad.set_warn_always(True)``."""
    _warn_always["enabled"] = bool(b)


def is_warn_always_enabled() -> bool:
    """Whether ``set_warn_always(True)`` is in effect (False by default)."""
    return _warn_always["enabled"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """Another form of ``use_deterministic_algorithms``: ``"default"``/0 (off),
    ``"warn"``/1 (on, warn only) or ``"error"``/2 (on). Example::

        hookgrad.set_deterministic_debug_mode("warn")
        hookgrad.get_deterministic_debug_mode()    # 1
    """
    if not isinstance(debug_mode, (builtins.int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode == 0:
        _settings.use_deterministic_algorithms(False)
    elif debug_mode == 1:
        _settings.use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        _settings.use_deterministic_algorithms(True)
    else:
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )


def get_deterministic_debug_mode() -> int:
    """The deterministic debug mode: 0 (off), 1 (warn only) or 2 (error); see
    ``set_deterministic_debug_mode``."""
    if not _settings.are_deterministic_algorithms_enabled():
        return 0
    return 1 if _settings.is_deterministic_algorithms_warn_only_enabled() else 2


# ---------------------------------------------------------------- removed or sparse-only ops


def matrix_rank(input: Any, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> Any:
    """Removed from torch (raises, as torch does): use ``hookgrad.linalg.matrix_rank``."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\n"
        "Please use the `torch.linalg.matrix_rank` function instead. The parameter "
        "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'."
    )


def native_norm(input: Any, *args: Any, **kwargs: Any) -> Any:
    """torch's ``native_norm`` runs on sparse tensors only, which hookgrad has not: it
    raises torch's error for a dense CPU tensor. Use ``hookgrad.linalg.vector_norm``."""
    raise NotImplementedError(
        "Could not run 'aten::native_norm' with arguments from the 'CPU' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build)."
    )


# ---------------------------------------------------------------- Event and Stream

_NO_EVENTS = "cpu backend doesn't support events."


def _cpu_device(value: Any) -> device:
    """The device an ``Event``/``Stream`` is made for: the CPU (there is no accelerator),
    with torch's errors for another."""
    if value is None:
        return device("cpu")
    chosen = value if isinstance(value, device) else device(value)
    if chosen.type != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {chosen.type} devices")
    return chosen


class Stream:
    """A queue of work on a device (torch's ``torch.Stream``). On the CPU, where work runs
    as it is issued, it is always done: ``query()`` is True, ``synchronize()`` returns at
    once, and recording an event raises as torch's CPU backend does. Also a context
    manager. Example::

        with hookgrad.Stream() as s:
            y = x * 2
        s.query()     # True
    """

    device_index = -1
    device_type = 0
    stream_id = 0

    def __init__(self, device: Any = None, *, priority: int = 0) -> None:
        self.device = _cpu_device(device)
        self.priority = priority

    def query(self) -> bool:
        """True: all work issued to the stream is done."""
        return True

    def synchronize(self) -> None:
        """Wait for the stream's work (none is pending on the CPU)."""

    def record_event(self, event: Any = None) -> Any:
        """Raises: torch's CPU backend supports no events."""
        raise RuntimeError(_NO_EVENTS)

    def wait_event(self, event: Any) -> None:
        """Make later work wait for ``event`` (nothing to wait for on the CPU)."""

    def wait_stream(self, stream: Any) -> None:
        """Raises: torch's CPU backend records an event here, which it does not support."""
        raise RuntimeError(_NO_EVENTS)

    @property
    def native_handle(self) -> Any:
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def is_capturing(self) -> bool:
        """False: no graph capture on the CPU."""
        return False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stream):
            return NotImplemented
        return self.device == other.device

    def __hash__(self) -> int:
        return hash((Stream, self.device_type, self.device_index))

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __repr__(self) -> str:
        return f"torch.Stream device_type=cpu, device_index=-1, stream_id={self.stream_id}"


class Event:
    """A marker in a stream's work (torch's ``torch.Event``). On the CPU it is always
    complete (``query()`` is True), and ``record`` raises as torch's CPU backend does.
    Example: ``hookgrad.Event().query()`` is True.
    """

    event_id = 0

    def __init__(
        self,
        device: Any = None,
        *,
        enable_timing: bool = False,
        blocking: bool = False,
        interprocess: bool = False,
    ) -> None:
        self.device = _cpu_device(device)
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess

    def query(self) -> bool:
        """True: the work before the event is done."""
        return True

    def record(self, stream: Any = None) -> None:
        """Raises: torch's CPU backend supports no events."""
        raise RuntimeError(_NO_EVENTS)

    def synchronize(self) -> None:
        """Wait for the event (it is complete)."""

    def wait(self, stream: Any = None) -> None:
        """Make ``stream``'s later work wait for the event (nothing to wait for)."""

    def elapsed_time(self, end_event: Any) -> float:
        """The time between two recorded events; CPU events cannot be recorded."""
        if not (self.enable_timing and getattr(end_event, "enable_timing", False)):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise RuntimeError(_NO_EVENTS)

    def ipc_handle(self) -> Any:
        raise NotImplementedError(
            "torch.Event ipc is not supported yet, please open an issue if you need this!"
        )

    @classmethod
    def from_ipc_handle(cls, device: Any, ipc_handle: Any) -> Event:
        raise NotImplementedError(
            "torch.Event ipc is not supported yet, please open an issue if you need this!"
        )

    def __repr__(self) -> str:
        flag = int(self.enable_timing)
        return (
            f"torch.Event device_type=cpu, device_index=-1, event_flag={flag}, "
            f"event_id={self.event_id}"
        )
