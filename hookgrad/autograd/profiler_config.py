"""The enums and settings torch's profiler exposes: ``DeviceType``, ``ProfilerActivity``,
``ProfilerState``, ``ProfilerConfig``, the legacy API's ``ProfilerEvent`` and the names of
memory events. ``hookgrad.autograd.profiler_util`` (torch's public path) exports them.

Example: ``ProfilerActivity.CPU`` is what ``profile(activities=[...])`` takes.
"""

from __future__ import annotations

import enum
from typing import Any

__all__ = [
    "MEMORY_EVENT_NAME",
    "OUT_OF_MEMORY_EVENT_NAME",
    "DeviceType",
    "ProfilerActivity",
    "ProfilerConfig",
    "ProfilerEvent",
    "ProfilerState",
]


MEMORY_EVENT_NAME = "[memory]"
OUT_OF_MEMORY_EVENT_NAME = "[OutOfMemory]"


class _IntEnum(enum.Enum):
    """An enum whose members convert to their int value (as torch's bound C++ enums)."""

    def __int__(self) -> int:
        return self.value

    def __index__(self) -> int:
        return self.value


class DeviceType(_IntEnum):
    """The device an event ran on (torch's ``c10::DeviceType``). Example::

    event.device_type == DeviceType.CPU
    """

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    MTIA = 19
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    PrivateUse1 = 20


class ProfilerActivity(_IntEnum):
    """What a profiler records: ``CPU`` is the only activity hookgrad has. Example::

    hookgrad.profiler.profile(activities=[ProfilerActivity.CPU])
    """

    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerState(_IntEnum):
    """The kind of profiler a ``ProfilerConfig`` asks for (torch's names)."""

    Disabled = 0
    CPU = 1
    CUDA = 2
    NVTX = 3
    ITT = 4
    PRIVATEUSE1 = 5
    KINETO = 6
    KINETO_GPU_FALLBACK = 7
    KINETO_PRIVATEUSE1_FALLBACK = 8
    KINETO_PRIVATEUSE1 = 9


class ProfilerConfig:
    """A profiler's settings, as torch's ``ProfilerConfig(state, report_input_shapes,
    profile_memory, with_stack, with_flops, with_modules, experimental_config,
    trace_id='')``. Example::

        ProfilerConfig(ProfilerState.CPU, True, False, False, False, False, None)
    """

    def __init__(
        self,
        state: ProfilerState,
        report_input_shapes: bool,
        profile_memory: bool,
        with_stack: bool,
        with_flops: bool,
        with_modules: bool,
        experimental_config: Any,
        trace_id: str = "",
    ) -> None:
        self.state = state
        self.report_input_shapes = report_input_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.trace_id = trace_id


class ProfilerEvent:
    """An event of the legacy profiler's C++ API (torch's ``ProfilerEvent``): a name, a
    kind (``"push"``/``"pop"`` of a range, or ``"mark"``), a thread and a time.
    Example::

        start.cpu_elapsed_us(end)   # microseconds between two events
    """

    def __init__(
        self, kind: str, name: str, thread_id: int, start_us: float, shapes: Any = ()
    ) -> None:
        self._kind = kind
        self._name = name
        self._thread_id = thread_id
        self._start_us = start_us
        self._shapes = list(shapes)

    def kind(self) -> str:
        return self._kind

    def name(self) -> str:
        return self._name

    def thread_id(self) -> int:
        return self._thread_id

    def fwd_thread_id(self) -> int:
        return self._thread_id

    def start_us(self) -> float:
        return self._start_us

    def cpu_elapsed_us(self, other: ProfilerEvent) -> float:
        """Microseconds from this event to ``other``."""
        return other._start_us - self._start_us

    def shapes(self) -> list[Any]:
        return self._shapes

    def has_cuda(self) -> bool:
        return False

    def device(self) -> int:
        return -1

    def is_async(self) -> bool:
        return False

    def is_remote(self) -> bool:
        return False

    def node_id(self) -> int:
        return -1

    def sequence_nr(self) -> int:
        return -1

    def scope(self) -> int:
        return 0

    def cpu_memory_usage(self) -> int:
        return 0

    def cuda_memory_usage(self) -> int:
        return 0

    def flops(self) -> int:
        return 0

    def stack(self) -> list[str]:
        return []

    def correlation_id(self) -> int:
        return 0

    def handle(self) -> int:
        return 0

    def cuda_elapsed_us(self, other: ProfilerEvent) -> float:
        raise RuntimeError("Events were not recorded for CUDA")
