"""``hookgrad.autograd.profiler_legacy``: torch's deprecated legacy profiler, the same
recorder as ``hookgrad.autograd.profiler.profile`` (use ``hookgrad.profiler`` instead)."""

from __future__ import annotations

from typing import Any

from hookgrad.autograd import profiler
from hookgrad.autograd.profiler_util import (
    MEMORY_EVENT_NAME,
    DeviceType,
    EventList,
    FunctionEvent,
    ProfilerConfig,
    ProfilerState,
)

__all__ = [
    "MEMORY_EVENT_NAME",
    "DeviceType",
    "EventList",
    "FunctionEvent",
    "ProfilerConfig",
    "ProfilerState",
    "profile",
]


class profile(profiler.profile):
    """DEPRECATED: use ``hookgrad.profiler`` instead. Records as
    ``hookgrad.autograd.profiler.profile`` (``use_cuda``, ``record_shapes``,
    ``with_flops``, ``profile_memory``, ``with_stack``, ``with_modules``); its results
    are read only once it has run. Example::

        with profiler_legacy.profile() as prof:
            x.exp()
        prof.table()
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
    ) -> None:
        super().__init__(
            enabled,
            use_cuda=use_cuda,
            record_shapes=record_shapes,
            with_flops=with_flops,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_modules=with_modules,
        )

    def _events(self) -> EventList:
        if self._function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        for event in self._function_events:
            event.is_legacy = True
        return self._function_events

    def __repr__(self) -> str:
        if self._function_events is None:
            return "<unfinished profiler_legacy.profile>"
        return repr(self._function_events)

    def __str__(self) -> str:
        if self._function_events is None:
            return "<unfinished profile.profiler_legacy.profile>"
        return str(self._function_events)

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, *args: Any
    ) -> EventList:
        """The events summed by name (and input shapes or stack when asked)."""
        events = self._events()
        events._tree_built = True
        return events.key_averages(group_by_input_shape, group_by_stack_n)
