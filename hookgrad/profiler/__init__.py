"""``hookgrad.profiler``: torch's profiler API (``profile`` with a step ``schedule`` and
``on_trace_ready``, ``record_function``, ``tensorboard_trace_handler``), recording the
CPU ops hookgrad runs with the recorder of ``hookgrad.autograd.profiler``."""

from hookgrad.autograd.profiler import KinetoStepTracker, kineto_available, record_function
from hookgrad.autograd.profiler_util import DeviceType, ProfilerActivity
from hookgrad.profiler import itt
from hookgrad.profiler.profiler import (
    ExecutionTraceObserver,
    ProfilerAction,
    _KinetoProfile,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "DeviceType",
    "ExecutionTraceObserver",
    "KinetoStepTracker",
    "ProfilerAction",
    "ProfilerActivity",
    "_KinetoProfile",
    "itt",
    "kineto_available",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]
