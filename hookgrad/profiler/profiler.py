"""``hookgrad.profiler.profile``: torch's profiler API (activities, a step ``schedule``,
``on_trace_ready``) on the recorder of ``hookgrad.autograd.profiler``.

A profile runs through steps (``prof.step()``); the schedule says, per step, whether to
do nothing, warm up, record, or record and then hand the trace to ``on_trace_ready``
(``tensorboard_trace_handler`` writes it as a Chrome trace JSON file). Without a
schedule every step records, and the results are read after the block. Example::

    with hookgrad.profiler.profile(
        schedule=hookgrad.profiler.schedule(wait=1, warmup=1, active=2),
        on_trace_ready=hookgrad.profiler.tensorboard_trace_handler("./log"),
    ) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()
"""

from __future__ import annotations

import enum
import gzip
import json
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from hookgrad.autograd import profiler as prof
from hookgrad.autograd.profiler_util import EventList, ProfilerActivity

__all__ = [
    "ExecutionTraceObserver",
    "ProfilerAction",
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]

PROFILER_STEP_NAME = "ProfilerStep"


def supported_activities() -> set[ProfilerActivity]:
    """The activities hookgrad can record: CPU only."""
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What the profiler does at a step (a schedule's answer)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """A schedule for ``profile``: skip ``skip_first`` steps, then cycles of ``wait``
    idle steps, ``warmup`` steps and ``active`` recorded steps (the last of them saves
    the trace), ``repeat`` times (0: until the end). ``skip_first_wait`` skips the first
    cycle's wait. Example::

        schedule(wait=1, warmup=1, active=2)(3)   # ProfilerAction.RECORD_AND_SAVE
    """

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        if mod_step < num_steps - 1:
            return ProfilerAction.RECORD
        return ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    """Without a schedule: always record."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(
    dir_name: str,
    worker_name: str | None = None,
    use_gzip: bool = False,
    use_python_export: bool = False,
) -> Callable[[Any], None]:
    """An ``on_trace_ready`` handler that writes each trace into ``dir_name`` (made if
    needed) as ``<worker_name>.<time_ns>.pt.trace.json`` (``.gz`` with ``use_gzip``);
    ``worker_name`` defaults to ``<hostname>_<pid>``. Example::

        profile(on_trace_ready=tensorboard_trace_handler("./log"))
    """

    def handler_fn(prof: Any) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as error:
                raise RuntimeError("Can't create directory: " + dir_name) from error
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class _KinetoProfile:
    """The recording part of ``profile``: start/stop, results and their export."""

    def __init__(
        self,
        *,
        activities: Iterable[Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Callable[[], str] | None = None,
    ) -> None:
        self.activities = _activities(activities)
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.profiler: prof.profile | None = None
        self.use_device = None
        self.preset_metadata: dict[str, str] = {}
        self._trace_metadata: dict[str, str] = {}

    def start(self) -> None:
        self.prepare_trace()
        self.start_trace()

    def stop(self) -> None:
        self.stop_trace()

    def prepare_trace(self) -> None:
        if self.profiler is None or not self.acc_events:
            self.profiler = prof.profile(
                use_cpu=ProfilerActivity.CPU in self.activities,
                record_shapes=self.record_shapes,
                with_flops=self.with_flops,
                profile_memory=self.profile_memory,
                with_stack=self.with_stack,
                with_modules=self.with_modules,
                use_kineto=True,
                experimental_config=self.experimental_config,
                acc_events=self.acc_events,
                custom_trace_id_callback=self.custom_trace_id_callback,
            )
        self.profiler.entered = False

    def start_trace(self) -> None:
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler._start_trace()
        for flag in ("profile_memory", "with_stack", "record_shapes", "with_modules", "with_flops"):
            if getattr(self, flag):
                self.add_metadata_json(flag, "1")
        for key, value in self.preset_metadata.items():
            self.add_metadata_json(key, value)

    def stop_trace(self) -> None:
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler.__exit__(None, None, None)

    def export_chrome_trace(self, path: str) -> None:
        """Write the last recorded cycle as a Chrome trace (Kineto's JSON layout:
        ``traceEvents`` of complete events with categories ``cpu_op`` and
        ``user_annotation``, metadata at the top); gzipped when ``path`` ends in ``.gz``."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        trace = _kineto_trace(self.events(), self._trace_metadata, self.record_shapes)
        trace["traceName"] = path
        text = json.dumps(trace)
        if path.endswith(".gz"):
            with gzip.open(path, "wt") as file:
                file.write(text)
        else:
            with open(path, "w") as file:
                file.write(text)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write the recorded stacks with ``metric`` (needs ``with_stack=True``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        self.profiler.export_stacks(path, metric)

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """The events summed by name (see ``EventList.key_averages``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler.key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def events(self) -> EventList:
        """The recorded ``FunctionEvent``s (in the trace callback or after profiling)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler._events()

    def add_metadata(self, key: str, value: str) -> None:
        """Put ``key: value`` (a string) at the top of the exported trace."""
        self._trace_metadata[key] = '"' + value.replace('"', '\\"') + '"'

    def add_metadata_json(self, key: str, value: str) -> None:
        """Put ``key`` with ``value`` (JSON text) at the top of the exported trace."""
        self._trace_metadata[key] = value

    def preset_metadata_json(self, key: str, value: str) -> None:
        """Metadata added each time recording starts."""
        self.preset_metadata[key] = value

    def toggle_collection_dynamic(self, enable: bool, activities: Iterable[Any]) -> None:
        """Switch recording of ``activities`` (CPU) off and on inside a cycle."""
        if self.profiler is None or ProfilerActivity.CPU not in set(activities):
            return
        session = self.profiler._session
        if session is None:
            return
        if enable:
            prof._start(session)
        else:
            prof._stop(session)


class profile(_KinetoProfile):
    """The profiler context manager: records the CPU ops (``aten::*``) and
    ``record_function`` ranges run inside it, step by step.

    Arguments (torch's): ``activities`` (``ProfilerActivity.CPU``; the default is
    every supported one), ``schedule`` (a function of the step number giving a
    ``ProfilerAction``; ``schedule(...)`` makes one), ``on_trace_ready`` (called with the
    profiler when a cycle's trace is ready), ``record_shapes``, ``profile_memory``,
    ``with_stack``, ``with_flops``, ``with_modules``, ``acc_events`` (keep events across
    cycles); ``use_cuda`` is deprecated, as in torch. Each step is recorded as a
    ``ProfilerStep#<n>`` range when there is a schedule. Example::

        with hookgrad.profiler.profile(record_shapes=True) as prof:
            model(x)
        print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    """

    def __init__(
        self,
        *,
        activities: Iterable[Any] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[..., Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Callable[[], str] | None = None,
    ) -> None:
        chosen = _activities(activities)
        if use_cuda is not None:
            warnings.warn(
                "`use_cuda` is deprecated, use `activities` argument instead",
                FutureWarning,
                stacklevel=2,
            )
            if use_cuda:
                chosen.add(ProfilerActivity.CUDA)
            else:
                chosen.discard(ProfilerActivity.CUDA)
        if not chosen:
            raise AssertionError("No valid profiler activities found")
        super().__init__(
            activities=chosen,
            record_shapes=record_shapes,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_flops=with_flops,
            with_modules=with_modules,
            experimental_config=experimental_config,
            execution_trace_observer=execution_trace_observer,
            acc_events=acc_events,
            custom_trace_id_callback=custom_trace_id_callback,
        )
        if schedule:
            self.schedule = schedule
            self.record_steps = True
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn: prof.record_function | None = None
        self.action_map = _action_map(self)
        prof.KinetoStepTracker.init_step_count(PROFILER_STEP_NAME)

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
        prof.KinetoStepTracker.erase_step_count(PROFILER_STEP_NAME)

    def start(self) -> None:
        """Begin profiling (as entering the block does)."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = prof.record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        """End profiling (as leaving the block does); a recording cycle hands its trace
        to ``on_trace_ready``."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Signal that the next step starts: the schedule may start, stop or save."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self.current_action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError(
                "ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not "
                "be returned by a user-provided schedule"
            )
        self._transit_action(previous, self.current_action)
        if self.record_steps:
            self.step_rec_fn = prof.record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def set_custom_trace_id_callback(self, callback: Callable[[], str]) -> None:
        """Set the function that names each cycle's trace."""
        self.custom_trace_id_callback = callback

    def get_trace_id(self) -> str | None:
        """The current trace's id (None before recording)."""
        return None if self.profiler is None else self.profiler.trace_id

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, previous: ProfilerAction, current: ProfilerAction | None) -> None:
        for action in self.action_map.get((previous, current), ()):
            action()


def _action_map(p: profile) -> dict[tuple[ProfilerAction, ProfilerAction | None], list[Any]]:
    """torch's transitions between two steps' actions."""
    none, warmup = ProfilerAction.NONE, ProfilerAction.WARMUP
    record, save = ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
    restart = [p.stop_trace, p._trace_ready, p.prepare_trace, p.start_trace]
    return {
        (none, warmup): [p.prepare_trace],
        (none, record): [p.prepare_trace, p.start_trace],
        (none, save): [p.prepare_trace, p.start_trace],
        (warmup, none): [
            partial(warnings.warn, "Incorrect schedule: WARMUP followed by NONE"),
            p.start_trace,
            p.stop_trace,
        ],
        (warmup, record): [p.start_trace],
        (warmup, save): [p.start_trace],
        (record, none): [
            partial(warnings.warn, "Incorrect schedule: RECORD followed by NONE"),
            p.stop_trace,
        ],
        (record, warmup): [
            partial(warnings.warn, "Incorrect schedule: RECORD followed by WARMUP"),
            p.stop_trace,
        ],
        (save, none): [p.stop_trace, p._trace_ready],
        (save, warmup): [p.stop_trace, p._trace_ready, p.prepare_trace],
        (save, record): restart,
        (save, save): restart,
        (warmup, None): [p.start_trace, p.stop_trace],
        (record, None): [p.stop_trace, p._trace_ready],
        (save, None): [p.stop_trace, p._trace_ready],
    }


def _activities(activities: Iterable[Any] | None) -> set[ProfilerActivity]:
    """The activity groups asked for (a ``ProfilerActivity`` or a dict of them)."""
    if activities is None:
        return supported_activities()
    chosen: set[ProfilerActivity] = set()
    for item in activities:
        if isinstance(item, ProfilerActivity):
            chosen.add(item)
        elif isinstance(item, dict):
            chosen.update(item.keys())
    return chosen


def _kineto_trace(events: EventList, metadata: dict[str, str], shapes: bool) -> dict[str, Any]:
    """The events in Kineto's trace layout (times in microseconds)."""
    trace: dict[str, Any] = {"schemaVersion": 1, "deviceProperties": []}
    for key, value in metadata.items():
        trace[key] = json.loads(value)
    pid = os.getpid()
    trace_events = []
    for number, event in enumerate(events, start=1):
        args: dict[str, Any] = {"External id": number, "Record function id": 0}
        if shapes and event.input_shapes is not None:
            args["Input Dims"] = event.input_shapes
        trace_events.append(
            {
                "ph": "X",
                "cat": "user_annotation" if event.is_user_annotation else "cpu_op",
                "name": event.trace_name,
                "pid": pid,
                "tid": event.thread,
                "ts": event.time_range.start,
                "dur": event.time_range.elapsed_us(),
                "args": args,
            }
        )
    trace["traceEvents"] = trace_events
    trace["displayTimeUnit"] = "ms"
    return trace


class ExecutionTraceObserver:
    """torch's execution-trace observer (operator graphs for replay): hookgrad records
    none. ``register_callback(path)`` remembers the file; ``start``/``stop`` do nothing;
    ``get_output_file_path()`` names it."""

    def __init__(self) -> None:
        self._registered = False
        self.output_file_path = ""

    @staticmethod
    def build_execution_trace_obs_from_env() -> ExecutionTraceObserver | None:
        """None: hookgrad records no execution trace."""
        return None

    def register_callback(self, output_file_path: str) -> ExecutionTraceObserver:
        self.output_file_path = output_file_path
        self._registered = True
        return self

    def unregister_callback(self) -> None:
        self._registered = False

    def is_registered(self) -> bool:
        return self._registered

    def is_running(self) -> bool:
        return False

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def cleanup(self) -> None:
        self.unregister_callback()

    def get_output_file_path(self) -> str | None:
        return self.output_file_path or None
