"""``hookgrad.autograd.profiler``: time every op, as torch's autograd profiler does.

While a ``profile`` is active, every op that passes through dispatch is timed and
recorded (``aten::mm``, with its input shapes, output bytes, Python stack and FLOPs when
asked); ``record_function("label")`` records a labelled range around any code, and the
ops inside become its children. Outside a profile nothing is watched, so ops pay nothing.
Results are ``FunctionEvent``s in an ``EventList`` (``hookgrad.autograd.profiler_util``):
``prof.key_averages().table()`` prints torch's table, ``export_chrome_trace`` writes a
trace for ``chrome://tracing``.

Example::

    with hookgrad.autograd.profiler.profile(record_shapes=True) as prof:
        with hookgrad.autograd.profiler.record_function("forward"):
            y = model(x)
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))

hookgrad records the ops of the forward pass (and of a backward pass run with
``create_graph=True``); a backward pass on arrays runs past dispatch and records none.
"""

from __future__ import annotations

import functools
import os
import threading
import traceback
import warnings
from collections.abc import Callable
from time import perf_counter_ns
from typing import Any

import numpy as np

from hookgrad.autograd.profiler_util import (
    MEMORY_EVENT_NAME,
    OUT_OF_MEMORY_EVENT_NAME,
    DeviceType,
    EventList,
    FunctionEvent,
    MemRecordsAcc,
    ProfilerActivity,
    ProfilerConfig,
    ProfilerState,
)
from hookgrad.tensor import dispatch
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "DeviceType",
    "EnforceUnique",
    "EventList",
    "FunctionEvent",
    "KinetoStepTracker",
    "MEMORY_EVENT_NAME",
    "MemRecordsAcc",
    "OUT_OF_MEMORY_EVENT_NAME",
    "ProfilerActivity",
    "ProfilerConfig",
    "ProfilerState",
    "emit_itt",
    "emit_nvtx",
    "kineto_available",
    "load_nvprof",
    "parse_nvprof_trace",
    "profile",
    "record_function",
]


def kineto_available() -> bool:
    """Whether the Kineto profiler backend is there: never in hookgrad (its profiler is
    the Python recorder of this module)."""
    return False


# ---------------------------------------------------------------- recording


class _Record:
    """One recorded call before it becomes a ``FunctionEvent``."""

    __slots__ = ("name", "start", "end", "thread", "shapes", "memory", "stack", "flops", "user")

    def __init__(self, name: str, start: int, thread: int, user: bool) -> None:
        self.name = name
        self.start = start
        self.end = start
        self.thread = thread
        self.shapes: list[Any] = []
        self.memory = 0
        self.stack: list[str] = []
        self.flops = 0
        self.user = user


class _Session:
    """What one active profiler asked for, and the records it collects."""

    def __init__(
        self, record_shapes: bool, profile_memory: bool, with_stack: bool, with_flops: bool
    ) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.records: list[_Record] = []
        self.start = perf_counter_ns()
        self.lock = threading.Lock()


_sessions: list[_Session] = []
_sessions_lock = threading.Lock()
# OS thread ids as small numbers, in order of first appearance (as torch's tables show).
_threads: dict[int, int] = {}


def _thread() -> int:
    native = threading.get_native_id()
    number = _threads.get(native)
    if number is None:
        number = _threads.setdefault(native, len(_threads) + 1)
    return number


def _start(session: _Session) -> None:
    with _sessions_lock:
        if not _sessions:
            dispatch.add_observer(_OBSERVER)
        _sessions.append(session)


def _stop(session: _Session) -> None:
    with _sessions_lock:
        if session in _sessions:
            _sessions.remove(session)
            if not _sessions:
                dispatch.remove_observer(_OBSERVER)


def _op_name(op: Any) -> str:
    """torch's name of an op: ``aten::`` and its schema name (``aten::mul_`` in place)."""
    signature = getattr(type(op), "signature", None)
    if signature is not None:
        name = signature.name
    else:
        node = op.name().rpartition("::")[2]
        head = node.rpartition("Backward")[0] or node
        name = "".join(
            "_" + char.lower() if char.isupper() and index else char.lower()
            for index, char in enumerate(head)
        )
    if "_grad_enabled" in op.__dict__:
        name += "_"
    return "aten::" + name


def _shapes(op: Any, inputs: Any) -> list[Any]:
    """Each input's shape (``[]`` for a number), then ``[]`` per other argument."""
    shapes = [list(x._data.shape) if isinstance(x, Tensor) else [] for x in inputs]
    params = getattr(type(op), "params", ())
    return shapes + [[] for _ in params]


def _flops(name: str, inputs: Any, outputs: Any) -> int:
    """torch's FLOP counts for the products (``2 * m * n * k``) and elementwise ``add``
    and ``mul`` (one per output element); zero for other ops."""
    shapes = [x._data.shape for x in inputs if isinstance(x, Tensor)]
    base = name[6:].rstrip("_")
    if base in ("mm", "addmm") and len(shapes) >= 2:
        a, b = shapes[-2], shapes[-1]
        return 2 * a[0] * a[1] * b[1]
    if base in ("bmm", "baddbmm") and len(shapes) >= 2:
        a, b = shapes[-2], shapes[-1]
        return 2 * a[0] * a[1] * a[2] * b[2]
    if base in ("add", "mul"):
        first = outputs[0] if type(outputs) is tuple else outputs
        return int(first._data.size)
    return 0


def _stack() -> list[str]:
    """The calling Python frames outside hookgrad, innermost first (``file(line): fn``)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = traceback.extract_stack()[:-1]
    return [
        f"{frame.filename}({frame.lineno}): {frame.name}"
        for frame in reversed(frames)
        if not os.path.abspath(frame.filename).startswith(package)
    ]


class _OpObserver:
    """The dispatch observer of the active profilers: times each op."""

    def observe(self, op: Any, inputs: Any, arrays: Any, run: Callable[[], Any]) -> Any:
        start = perf_counter_ns()
        outputs = run()
        end = perf_counter_ns()
        sessions = list(_sessions)
        if not sessions:
            return outputs
        name = _op_name(op)
        thread = _thread()
        for session in sessions:
            record = _Record(name, start, thread, False)
            record.end = end
            if session.record_shapes:
                record.shapes = _shapes(op, inputs)
            if session.profile_memory:
                record.memory = sum(
                    int(o._data.nbytes) for o in (outputs if type(outputs) is tuple else (outputs,))
                )
            if session.with_stack:
                record.stack = _stack()
            if session.with_flops:
                record.flops = _flops(name, inputs, outputs)
            with session.lock:
                session.records.append(record)
        return outputs

    def written(self, target: Any, array: np.ndarray) -> None:
        pass


_OBSERVER = _OpObserver()


def _events(
    session: _Session, use_device: str | None, profile_memory: bool, with_flops: bool
) -> EventList:
    """The session's records as ``FunctionEvent``s (ids in start order, times in
    microseconds from the start), nested by time."""
    records = sorted(session.records, key=lambda r: (r.start, -r.end))
    events = EventList(
        [
            FunctionEvent(
                id=index,
                # torch's tables sum the steps of a schedule as one ``ProfilerStep*``.
                name="ProfilerStep*" if record.name.startswith("ProfilerStep#") else record.name,
                thread=record.thread,
                start_us=(record.start - session.start) / 1000,
                end_us=(record.end - session.start) / 1000,
                overload_name="",
                fwd_thread=record.thread,
                input_shapes=record.shapes,
                stack=record.stack,
                use_device=use_device,
                cpu_memory_usage=record.memory,
                device_type=DeviceType.CPU,
                flops=record.flops,
                trace_name=record.name,
                is_user_annotation=record.user,
            )
            for index, record in enumerate(records, start=1)
        ],
        use_device=use_device,
        profile_memory=profile_memory,
        with_flops=with_flops,
    )
    events._build_tree()
    # An event's memory includes what its children allocated (torch counts every
    # allocation inside its interval); children start after their parents.
    for event in reversed(events):
        event.cpu_memory_usage += sum(child.cpu_memory_usage for child in event.cpu_children)
    return events


# ---------------------------------------------------------------- public API


class profile:
    """Context manager that records the ops run inside it (torch's autograd profiler).

    Arguments (torch's): ``enabled`` (False: a no-op), ``record_shapes`` (input shapes of
    each op), ``profile_memory`` (bytes each op allocates for its outputs),
    ``with_stack`` (the Python frames of each call), ``with_flops`` (FLOPs of products
    and elementwise sums/products; implies ``record_shapes``), ``use_device``/``use_cuda``
    (no device on hookgrad: ignored with torch's warning), ``acc_events`` (keep the
    events of every time it was entered); the others are accepted as torch's.

    After the block: ``function_events`` (an ``EventList``), ``key_averages()``,
    ``table()``, ``total_average()``, ``self_cpu_time_total``, ``export_chrome_trace(path)``
    and ``export_stacks(path, metric)``. Example::

        with profile() as prof:
            (x @ w).relu().sum()
        prof.key_averages()[0].key      # 'aten::mm'
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Callable[[], str] | None = None,
    ) -> None:
        self.enabled = enabled
        if not enabled:
            return
        if use_cuda:
            _warn(
                "The attribute `use_cuda` will be deprecated soon, please use "
                "``use_device = 'cuda'`` instead.",
                FutureWarning,
            )
            use_device = "cuda"
        if use_device is not None:
            if use_device not in ("cuda", "xpu", "mtia", "hpu"):
                _warn(f"The {use_device} is not a valid device option.")
            else:
                name = use_device.upper()
                _warn(f"{name} is not available, disabling {name} profiling")
            use_device = None
        if not use_cpu and not use_kineto:
            raise AssertionError("Device-only events supported only with Kineto (use_kineto=True)")
        self.use_cuda = False
        self.use_device = use_device
        self.record_shapes = record_shapes or with_flops
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.experimental_config = experimental_config
        self.custom_trace_id_callback = custom_trace_id_callback
        self.profiler_kind = ProfilerState.CPU
        self.kineto_activities = {ProfilerActivity.CPU} if use_cpu else set()
        self.entered = False
        self._session: _Session | None = None
        self._function_events: EventList | None = None
        self._old_function_events: EventList | None = None
        self.trace_id = ""

    def config(self, create_trace_id: bool = False) -> ProfilerConfig:
        """The ``ProfilerConfig`` this profiler records with."""
        if create_trace_id and self.custom_trace_id_callback is not None:
            self.trace_id = self.custom_trace_id_callback()
        return ProfilerConfig(
            self.profiler_kind,
            self.record_shapes,
            self.profile_memory,
            self.with_stack,
            self.with_flops,
            self.with_modules,
            self.experimental_config,
            self.trace_id,
        )

    def __enter__(self) -> profile | None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start_trace()
        return self

    def _start_trace(self) -> None:
        self.entered = True
        self.config(create_trace_id=True)
        self._session = _Session(
            self.record_shapes, self.profile_memory, self.with_stack, self.with_flops
        )
        _start(self._session)

    def __exit__(self, *exc_info: object) -> bool:
        if not self.enabled:
            return False
        session = self._session
        if session is not None:
            _stop(session)
        if self._function_events and self.acc_events:
            self._old_function_events = self._function_events
        self._function_events = None
        if session is not None:
            self._function_events = _events(
                session, self.use_device, self.profile_memory, self.with_flops
            )
            if self._old_function_events is not None:
                self._function_events.extend(self._old_function_events)
                self._old_function_events = None
        return False

    def __repr__(self) -> str:
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self._function_events)

    def __str__(self) -> str:
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self._function_events)

    def _events(self) -> EventList:
        if self._function_events is None:
            return EventList(
                use_device=self.use_device,
                profile_memory=self.profile_memory,
                with_flops=self.with_flops,
            )
        return self._function_events

    @property
    def function_events(self) -> EventList | None:
        """The recorded events (None before the profiler ran)."""
        return self._function_events

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
    ) -> str:
        """The events as torch's table (see ``EventList.table``)."""
        return self._events().table(
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
        )

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace to ``path`` (see ``EventList``)."""
        self._events().export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write the recorded stacks with ``metric`` (needs ``with_stack=True``)."""
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        self._events().export_stacks(path, metric)

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """The events summed by name (and input shapes, stack, overload when asked)."""
        events = self._events()
        events._tree_built = True
        return events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self) -> Any:
        """Every event summed into one (key ``"Total"``)."""
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """The total of the events' self CPU times, in microseconds."""
        return self._events().self_cpu_time_total


class record_function:
    """Label a block (``with``) or a function (decorator) in the profiler's results: the
    block is recorded as one event named ``name`` while a profiler is active, and the
    ops run inside are its children. ``args`` is accepted as torch's. Example::

        with record_function("attention"):
            scores = q @ k.t()
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._records: list[tuple[_Session, _Record]] = []

    def __enter__(self) -> record_function:
        sessions = list(_sessions)
        if sessions:
            start = perf_counter_ns()
            thread = _thread()
            self._records = [(s, _Record(self.name, start, thread, True)) for s in sessions]
            for session, record in self._records:
                if session.with_stack:
                    record.stack = _stack()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self.run_callbacks_on_exit:
            return
        end = perf_counter_ns()
        for session, record in self._records:
            record.end = end
            with session.lock:
                session.records.append(record)
        self._records = []

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper

    def _call_end_callbacks_on_future(self, fut: Any) -> Any:
        """Record the block until ``fut`` completes (instead of until the block exits);
        returns a future of the same value."""
        if not self.run_callbacks_on_exit:
            raise RuntimeError("_call_end_callbacks_on_future can only be called once.")
        self.run_callbacks_on_exit = False
        records, self._records = self._records, []

        def finish(done: Any) -> Any:
            end = perf_counter_ns()
            for session, record in records:
                record.end = end
                with session.lock:
                    session.records.append(record)
            return done.value()

        return fut.then(finish)


class emit_nvtx:
    """NVTX ranges for NVIDIA's profilers: this needs CUDA, which hookgrad (a CPU-only
    torch) does not have; entering raises torch's error. Example::

        with emit_nvtx():   # AssertionError: Torch not compiled with CUDA enabled
            ...
    """

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self) -> emit_nvtx | None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        raise AssertionError("Torch not compiled with CUDA enabled")

    def __exit__(self, *exc_info: object) -> bool:
        return False


class emit_itt:
    """Intel ITT ranges for VTune: without an ITT collector there is nothing to emit, so
    the block runs as it is (as in torch without VTune attached). Example::

        with emit_itt():
            model(x)
    """

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self) -> emit_itt | None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("ITT annotation context manager is not reentrant")
        self.entered = True
        return self

    def __exit__(self, *exc_info: object) -> bool:
        self.entered = False
        return False


class EnforceUnique:
    """Raise if a key is seen twice (``see(*key)``); a helper of torch's nvprof reader."""

    def __init__(self) -> None:
        self.seen: set[Any] = set()

    def see(self, *key: Any) -> None:
        """Remember ``key``; a RuntimeError if it was seen before."""
        if key in self.seen:
            raise RuntimeError("duplicate key: " + str(key))
        self.seen.add(key)


def load_nvprof(path: str) -> EventList:
    """Read an nvprof trace: NVIDIA's profiler output needs CUDA, which hookgrad has
    not; a RuntimeError."""
    raise RuntimeError("load_nvprof needs an nvprof trace of CUDA kernels: hookgrad has no CUDA")


def parse_nvprof_trace(path: str) -> list[FunctionEvent]:
    """See ``load_nvprof``: a RuntimeError."""
    return load_nvprof(path)


class KinetoStepTracker:
    """Counts the steps of training loops (``increment_step(requester)``): the profiler's
    step is the largest count of any requester (torch's helper for ``optimizer.step``
    and ``profile.step``). Example::

        KinetoStepTracker.init_step_count("ProfilerStep")
    """

    _current_step = 0
    _step_dict: dict[str, int] = {}

    @classmethod
    def init_step_count(cls, requester: str) -> None:
        """Start counting for ``requester`` at the current step."""
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester: str) -> bool:
        """Stop counting for ``requester``; False if it was not counted."""
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester: str) -> int:
        """One more step for ``requester``; returns the (possibly advanced) step."""
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls) -> int:
        """The profiler's step."""
        return cls._current_step


def _warn(message: str, category: type[Warning] = UserWarning) -> None:
    warnings.warn(message, category, stacklevel=3)
