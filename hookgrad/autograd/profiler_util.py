"""The profiler's results: ``FunctionEvent`` (one recorded op or ``record_function``
range), ``FunctionEventAvg`` (events of one key summed), and ``EventList`` (a list of
either, with torch's ``table()``, ``key_averages()``, ``total_average()`` and
``export_chrome_trace()``); and, as torch's public path to them, the enums torch's
profiler exposes (``DeviceType``, ``ProfilerActivity``, ``ProfilerState``),
``ProfilerConfig`` and ``ProfilerEvent``, which live in ``profiler_config.py``.

Times are microseconds from the start of the profiled range. One event is the CPU child
of another when its interval lies inside the other's (on the same thread); a parent's
*self* time is its time less its children's.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
from collections import defaultdict, namedtuple
from operator import attrgetter
from typing import Any

from hookgrad.autograd.profiler_config import (
    MEMORY_EVENT_NAME,
    OUT_OF_MEMORY_EVENT_NAME,
    DeviceType,
    ProfilerActivity,
    ProfilerConfig,
    ProfilerEvent,
    ProfilerState,
)

__all__ = [
    "MEMORY_EVENT_NAME",
    "OUT_OF_MEMORY_EVENT_NAME",
    "DeviceType",
    "EventList",
    "FormattedTimesMixin",
    "FunctionEvent",
    "FunctionEventAvg",
    "Interval",
    "Kernel",
    "MemRecordsAcc",
    "ProfilerActivity",
    "ProfilerConfig",
    "ProfilerEvent",
    "ProfilerState",
    "StringTable",
]


# ---------------------------------------------------------------- formatting


def _format_time(time_us: float) -> str:
    """``1.234ms`` ...: torch's unit choice for a time in microseconds."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_time_us: float) -> str:
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes: int) -> str:
    kilo = 1024
    for unit, size in (("GB", kilo**3), ("MB", kilo**2), ("KB", kilo)):
        if abs(nbytes) >= size:
            return f"{nbytes * 1.0 / size:.2f} {unit}"
    return f"{nbytes} B"


def _in_unit(time_us: float, time_unit: str | None) -> str:
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


def _formatted(name: str) -> property:
    return property(lambda self: _format_time(getattr(self, name)))


class FormattedTimesMixin:
    """``cpu_time`` (the average per call) and the ``*_str`` forms of the times, for
    classes with ``cpu_time_total``, ``device_time_total`` and ``count``."""

    cpu_time_str = _formatted("cpu_time")
    device_time_str = _formatted("device_time")
    cpu_time_total_str = _formatted("cpu_time_total")
    device_time_total_str = _formatted("device_time_total")
    self_cpu_time_total_str = _formatted("self_cpu_time_total")
    self_device_time_total_str = _formatted("self_device_time_total")

    @property
    def cpu_time(self) -> float:
        count = self.count  # type: ignore[attr-defined]
        total = self.cpu_time_total  # type: ignore[attr-defined]
        return 0.0 if count == 0 else 1.0 * total / count

    @property
    def device_time(self) -> float:
        count = self.count  # type: ignore[attr-defined]
        total = self.device_time_total  # type: ignore[attr-defined]
        return 0.0 if count == 0 else 1.0 * total / count


class Interval:
    """A time range ``[start, end]`` in microseconds."""

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        """The length of the interval."""
        return self.end - self.start


Kernel = namedtuple("Kernel", ["name", "device", "duration"])


class StringTable(defaultdict):
    """Names as the table shows them (torch demangles C++ names here; hookgrad's are
    already readable)."""

    def __missing__(self, key: str) -> str:
        self[key] = key
        return key


class MemRecordsAcc:
    """Memory records (``(event, ...)`` pairs with ``start_ns()``) by start time, for the
    ones inside an interval."""

    def __init__(self, mem_records: list[Any]) -> None:
        self._mem_records = mem_records
        pairs = sorted((record[0].start_ns(), i) for i, record in enumerate(mem_records))
        self._start_nses = [start for start, _ in pairs]
        self._indices = [i for _, i in pairs]

    def in_interval(self, start_ns: int, end_ns: int) -> Any:
        """The records that start in ``[start_ns, end_ns]``."""
        first = bisect.bisect_left(self._start_nses, start_ns)
        last = bisect.bisect_right(self._start_nses, end_ns)
        for i in range(first, last):
            yield self._mem_records[self._indices[i]]


# ---------------------------------------------------------------- events


class FunctionEvent(FormattedTimesMixin):
    """One profiled call: an op (``aten::mm``) or a ``record_function`` range.

    Attributes: ``id``, ``name``, ``time_range`` (an ``Interval`` in microseconds),
    ``thread``, ``input_shapes`` (with ``record_shapes``), ``stack`` (with
    ``with_stack``), ``cpu_memory_usage`` (with ``profile_memory``), ``flops`` (with
    ``with_flops``), ``cpu_children`` and ``cpu_parent``, ``count`` (1) and
    ``device_type`` (``DeviceType.CPU``). Example::

        event.cpu_time_total   # microseconds, children included
    """

    def __init__(
        self,
        id: int,
        name: str,
        thread: int,
        start_us: float,
        end_us: float,
        overload_name: str | None = None,
        fwd_thread: int | None = None,
        input_shapes: Any = None,
        stack: list[str] | None = None,
        scope: int = 0,
        use_device: str | None = None,
        cpu_memory_usage: int = 0,
        device_memory_usage: int = 0,
        is_async: bool = False,
        is_remote: bool = False,
        sequence_nr: int = -1,
        node_id: int = -1,
        device_type: DeviceType = DeviceType.CPU,
        device_index: int = 0,
        device_resource_id: int | None = None,
        is_legacy: bool = False,
        flops: int | None = None,
        trace_name: str | None = None,
        concrete_inputs: Any = None,
        kwinputs: Any = None,
        is_user_annotation: bool = False,
    ) -> None:
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels: list[Any] = []
        self.count = 1
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = thread if device_resource_id is None else device_resource_id
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.self_cpu_percent: Any = -1
        self.total_cpu_percent: Any = -1
        self.total_device_percent: Any = -1

    def append_kernel(self, name: str, device: int, duration: float) -> None:
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child: FunctionEvent) -> None:
        """Add a direct CPU child (only direct children: self times depend on it)."""
        if not isinstance(child, FunctionEvent):
            raise AssertionError("Expected child to be a FunctionEvent")
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: FunctionEvent) -> None:
        """Set the event whose interval directly contains this one."""
        if not isinstance(parent, FunctionEvent):
            raise AssertionError("Expected parent to be a FunctionEvent")
        self.cpu_parent = parent

    @property
    def self_cpu_memory_usage(self) -> int:
        if self.is_async:
            return 0
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self) -> int:
        return 0

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        if self.is_async:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self) -> float:
        return 0

    @property
    def self_device_time_total(self) -> float:
        return 0

    @property
    def key(self) -> str:
        return self.name

    def __repr__(self) -> str:
        device = self.use_device
        return (
            f"<FunctionEvent id={self.id} name={self.name} overload_name="
            f"{self.overload_name or ''} device_type={self.device_type} node_id={self.node_id} "
            f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
            f"end_us={self.time_range.end} cpu_children={[c.id for c in self.cpu_children]} "
            f"{device}_time={self.device_time_str} name={self.name} thread={self.thread} "
            f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
            f"{device}_memory_usage={self.device_memory_usage} is_async={self.is_async} "
            f"is_remote={self.is_remote} seq_nr={self.sequence_nr} is_legacy={self.is_legacy}>"
        )


class FunctionEventAvg(FormattedTimesMixin):
    """The events of one key summed (``EventList.key_averages``): ``count`` calls,
    ``cpu_time_total``, ``self_cpu_time_total`` ..., and ``cpu_time``, their average.
    Example::

        avg = prof.key_averages()[0]
        avg.key, avg.count, avg.cpu_time
    """

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device: str | None = None
        self.cpu_time_total: float = 0
        self.device_time_total: float = 0
        self.self_cpu_time_total: float = 0
        self.self_device_time_total: float = 0
        self.input_shapes: Any = None
        self.overload_name: str | None = None
        self.stack: list[str] | None = None
        self.scope: int | None = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children: list[FunctionEvent] | None = None
        self.cpu_parent: FunctionEvent | None = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops: int | None = 0

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        """Sum ``other`` (an event or an average of the same key) into this one."""
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        return self.add(other)

    def __repr__(self) -> str:
        device = self.use_device or "cuda"
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str}  self_{device}_time={self.self_device_time_total_str} "
            f"{device}_time={self.device_time_str} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage} "
            f"{device}_memory_usage={self.device_memory_usage}>"
        )


class EventList(list):
    """A list of ``FunctionEvent`` (or ``FunctionEventAvg``) with torch's summaries:
    ``table()``, ``key_averages()``, ``total_average()``, ``export_chrome_trace(path)``,
    ``export_stacks(path, metric)`` and ``self_cpu_time_total``. Example::

        print(prof.key_averages().table(sort_by="self_cpu_time_total"))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._tree_built = False
        self._with_flops = with_flops

    def _build_tree(self) -> None:
        self._populate_cpu_children()
        self._tree_built = True

    def __str__(self) -> str:
        return self.table()

    def _populate_cpu_children(self) -> None:
        """Make each event the child of the innermost event (same thread) whose interval
        contains it; partly overlapping intervals are not nested."""
        events = sorted((e for e in self if not e.is_async), key=attrgetter("thread"))
        for _, thread_events in itertools.groupby(events, key=lambda e: (e.thread, e.node_id)):
            ordered = sorted(thread_events, key=lambda e: [e.time_range.start, -e.time_range.end])
            stack: list[FunctionEvent] = []
            for event in ordered:
                while stack:
                    parent = stack[-1]
                    if (
                        event.time_range.start >= parent.time_range.end
                        or event.time_range.end > parent.time_range.end
                    ):
                        stack.pop()
                    else:
                        parent.append_cpu_child(event)
                        event.set_cpu_parent(parent)
                        break
                stack.append(event)

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of every event's self CPU time (microseconds)."""
        return sum(event.self_cpu_time_total for event in self)

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
        time_unit: str | None = None,
    ) -> str:
        """The events as torch's text table: name, self and total CPU time (and shares),
        average, number of calls (and input shapes, memory, stacks, FLOPs when recorded).

        ``sort_by``: an attribute to sort by, largest first (``"cpu_time_total"``,
        ``"self_cpu_time_total"``, ``"count"`` ...); ``row_limit`` rows at most;
        ``top_level_events_only``: events without a parent only; ``time_unit``: ``"s"``,
        ``"ms"`` or ``"us"`` for every time.
        """
        return _build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            profile_memory=self._profile_memory,
            with_flops=self._with_flops,
            top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto): a JSON
        list of complete events (``"ph": "X"``) with microsecond times."""
        records = [
            {
                "name": event.trace_name,
                "ph": "X",
                "ts": event.time_range.start,
                "dur": event.time_range.elapsed_us(),
                "tid": event.thread,
                "pid": "CPU functions",
                "args": {},
            }
            for event in self
            if event.trace_name is not None
        ]
        with open(path, "w") as file:
            json.dump(records, file)

    def supported_export_stacks_metrics(self) -> list[str]:
        return [
            "self_cpu_time_total",
            "self_cuda_time_total",
            "self_xpu_time_total",
            "self_privateuse1_time_total",
        ]

    def export_stacks(self, path: str, metric: str) -> None:
        """Write one line per event with a stack: its frames (outermost first, ``;``
        separated) and its ``metric`` (flame-graph input)."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError(
                "metric should be one of: " + str(self.supported_export_stacks_metrics())
            )
        translate = str.maketrans(" ;\t\n", "____")
        attribute = metric.replace("cuda", "device").replace("xpu", "device")
        attribute = attribute.replace("privateuse1", "device")
        with open(path, "w") as file:
            for event in self:
                value = int(getattr(event, attribute))
                if event.stack and value > 0:
                    frames = ";".join(entry.translate(translate) for entry in reversed(event.stack))
                    file.write(f"{frames} {value}\n")

    def key_averages(
        self,
        group_by_input_shapes: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """The events summed by key (their name; also their input shapes, first
        ``group_by_stack_n`` frames or overload name, as asked): an ``EventList`` of
        ``FunctionEventAvg`` in order of first appearance."""
        if not self._tree_built:
            raise AssertionError("Expected tree to be built before calling key_averages")
        stats: dict[tuple[str, ...], FunctionEventAvg] = defaultdict(FunctionEventAvg)
        for event in self:
            key = [
                str(event.key),
                str(event.node_id),
                str(event.device_type),
                str(event.is_legacy),
                str(event.is_user_annotation),
            ]
            if group_by_overload_name:
                key.append(str(event.overload_name))
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += (event.stack or [])[:group_by_stack_n]
            stats[tuple(key)].add(event)
        averages = EventList(
            stats.values(),
            use_device=self._use_device,
            profile_memory=self._profile_memory,
            with_flops=self._with_flops,
        )
        for average in averages:
            average.stack = (average.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                average.input_shapes = ""
            if not group_by_overload_name:
                average.overload_name = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        """Every event summed into one ``FunctionEventAvg`` of key ``"Total"``."""
        total = FunctionEventAvg()
        for event in self:
            total += event
            total.key = None
        total.key = "Total"
        return total


def _build_table(
    events: EventList,
    sort_by: str | None = None,
    header: str | None = None,
    row_limit: int = 100,
    max_src_column_width: int = 75,
    max_name_column_width: int = 55,
    max_shapes_column_width: int = 80,
    with_flops: bool = False,
    profile_memory: bool = False,
    top_level_events_only: bool = False,
    time_unit: str | None = None,
) -> str:
    """torch's profiler table for ``events`` (same columns, widths and footer)."""
    if len(events) == 0:
        return ""
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    has_overloads = any(e.overload_name for e in events)
    if sort_by is not None:
        attribute = sort_by.replace("cuda", "device").replace("xpu", "device")
        attribute = attribute.replace("privateuse1", "device")
        events = EventList(sorted(events, key=attrgetter(attribute), reverse=True))
    name_width = min(max(len(e.key) for e in events) + 4, max_name_column_width)
    shapes_width = min(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_width = 0
    if stacks:
        longest = max(len(entry) for stack in stacks for entry in stack)
        src_width = min(longest + 4, max_src_column_width)

    headers = ["Name"] + (["Overload Name"] if has_overloads else [])
    headers += ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] * (1 + has_overloads) + [12] * (len(headers) - 1 - has_overloads)
    align = [">"] * len(widths)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
        align.append(">")
    if stacks:
        headers.append("Source Location")
        widths.append(src_width)
        align.append("<")
    flops_scale = 1.0
    if with_flops:
        raw = [e.flops for e in events if e.flops and e.flops > 0]
        if raw:
            flops_scale, flops_header = _flops_scale(min(raw))
            headers.append(f"Total {flops_header}")
            widths.append(12)
            align.append(">")
        else:
            with_flops = False
    row_format = "".join(f"{{: {a}{w}}}  " for a, w in zip(align, widths))
    separator = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2

    total_self = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        event.self_cpu_percent = _format_time_share(event.self_cpu_time_total, total_self)
        event.total_cpu_percent = (
            _format_time_share(event.cpu_time_total, total_self) if not event.is_async else 0
        )
        row = [name] + ([event.overload_name] if has_overloads else [])
        row += [
            event.self_cpu_percent,
            _in_unit(event.self_cpu_time_total, time_unit),
            event.total_cpu_percent,
            _in_unit(event.cpu_time_total, time_unit),
            _in_unit(event.cpu_time, time_unit),
        ]
        if profile_memory:
            row += [
                _format_memory(event.cpu_memory_usage),
                _format_memory(event.self_cpu_memory_usage),
            ]
        row.append(event.count)
        # NOTE: torch's order (its headers put the source before the FLOPs).
        if has_shapes:
            row.append(str(event.input_shapes)[:shapes_width])
        if with_flops:
            row.append("--" if not event.flops else f"{event.flops * flops_scale:8.3f}")
        if stacks:
            row.append(_trim_path(event.stack[0], src_width) if event.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (event.stack or [])[1:]:
                lines.append(row_format.format(*(blank + [_trim_path(entry, src_width)])))
            lines.append(row_format.format(*(blank + [""])))
    lines.append(separator)
    lines.append(f"Self CPU time total: {_in_unit(total_self, time_unit)}")
    return "".join(line + "\n" for line in lines)


def _flops_scale(flops: int) -> tuple[float, str]:
    headers = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
    level = int(max(0, min(math.log10(flops) / 3, float(len(headers) - 1))))
    return 10 ** (level * -3.0), headers[level]


def _trim_path(path: str, width: int) -> str:
    if len(path) > width:
        path = path[len(path) - width :]
        if len(path) > 3:
            path = "..." + path[3:]
    return path
