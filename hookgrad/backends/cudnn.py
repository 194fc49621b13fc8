"""``hookgrad.backends.cudnn``: cuDNN's flags as a CPU-only torch has them.

cuDNN is not available (``is_available()`` is False, ``version()`` None), but its flags
exist with torch's defaults and checks, so training scripts that set them run unchanged;
they change nothing here. Example::

    hookgrad.backends.cudnn.deterministic = True
    hookgrad.backends.cudnn.benchmark = False
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def is_available() -> bool:
    """False: cuDNN needs CUDA."""
    return False


def version() -> None:
    """cuDNN's version: None, as it is not available."""
    return None


def is_acceptable(tensor: Any) -> bool:
    """Whether cuDNN could run on ``tensor``: never."""
    return False


class _BoolFlag:
    """A module attribute that holds a bool, checked on assignment as torch checks it."""

    def __init__(self, setter: str) -> None:
        self.setter = setter

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, module: Any, owner: type) -> Any:
        return module.__dict__["_flags"][self.name]

    def __set__(self, module: Any, value: Any) -> None:
        if not isinstance(value, bool):
            raise RuntimeError(f"{self.setter} expects a bool, but got {type(value).__name__}")
        module.__dict__["_flags"][self.name] = value


class CudnnModule(types.ModuleType):
    """This module's type: its boolean flags are checked when set."""

    enabled = _BoolFlag("set_enabled_cudnn")
    benchmark = _BoolFlag("set_benchmark_cudnn")
    deterministic = _BoolFlag("set_deterministic_cudnn")
    allow_tf32 = _BoolFlag("set_allow_tf32_cublas")


_flags = {"enabled": True, "benchmark": False, "deterministic": False, "allow_tf32": True}
benchmark_limit: int | None = None
fp32_precision = "none"


@contextmanager
def flags(
    enabled: bool = False,
    benchmark: bool = False,
    benchmark_limit: int | None = 10,
    deterministic: bool = False,
    allow_tf32: bool = True,
    fp32_precision: str = "none",
    depthwise_kernel: str = "auto",
) -> Iterator[None]:
    """Set the flags for a ``with`` block, then restore them (arguments and defaults as
    torch's)."""
    module: Any = sys.modules[__name__]
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    values = (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    saved = [getattr(module, name) for name in names] + [module.fp32_precision]
    for name, value in zip(names, values):
        setattr(module, name, value)
    module.fp32_precision = fp32_precision
    try:
        yield
    finally:
        for name, value in zip(names, saved):
            setattr(module, name, value)
        module.fp32_precision = saved[-1]


sys.modules[__name__].__class__ = CudnnModule
