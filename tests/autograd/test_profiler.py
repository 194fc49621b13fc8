"""The profiler (``hookgrad.autograd.profiler``, ``profiler_util``, ``profiler_legacy``,
``hookgrad.profiler``) against torch's, and the small names of ``hookgrad.autograd``."""

from __future__ import annotations

import gzip
import json
import os
import warnings

import pytest

import hookgrad
from hookgrad.autograd import profiler, profiler_util
from hookgrad.tensor import dispatch
from tests.oracle import outcome

# ---------------------------------------------------------------- results, exactly as torch's


def _events(util):
    """Synthetic events (fixed times): a labelled range holding two ops, one of which holds
    another, then a top-level op, on two threads."""
    spec = [
        (1, "forward", 1, 0.0, 100.0, [], 0),
        (2, "aten::linear", 1, 5.0, 60.0, [[4, 3], [2, 3], [2]], 96),
        (3, "aten::addmm", 1, 10.0, 50.0, [[2], [4, 3], [3, 2], [], []], 64),
        (4, "aten::relu", 1, 62.0, 70.0, [[4, 2]], 32),
        (5, "aten::relu", 1, 120.0, 121.5, [[4, 2]], 32),
        (6, "aten::addmm", 2, 3.0, 2003.0, [[2], [4, 3], [3, 2], [], []], 64),
    ]
    events = util.EventList(
        [
            util.FunctionEvent(
                id=i,
                name=name,
                thread=thread,
                start_us=start,
                end_us=end,
                input_shapes=shapes,
                cpu_memory_usage=memory,
                stack=[],
                overload_name="",
                trace_name=name,
            )
            for i, name, thread, start, end, shapes, memory in spec
        ],
        profile_memory=True,
    )
    events._build_tree()
    return events


def _summaries(util):
    events = _events(util)
    averages = events.key_averages()
    by_shape = events.key_averages(group_by_input_shapes=True)
    return [
        events.table(),
        events.table(sort_by="self_cpu_time_total", row_limit=3),
        events.table(top_level_events_only=True, header="HEADER", time_unit="ms"),
        averages.table(sort_by="cpu_time_total"),
        by_shape.table(sort_by="count"),
        [(e.name, e.cpu_parent and e.cpu_parent.name, e.self_cpu_time_total) for e in events],
        [(a.key, a.count, a.cpu_time, a.self_cpu_memory_usage) for a in averages],
        repr(events[1]),
        repr(averages[0]),
        repr(events.total_average()),
        events.self_cpu_time_total,
    ]


def test_tables_and_averages_as_torch(torch):
    mine = _summaries(profiler_util)
    theirs = _summaries(torch.autograd.profiler_util)
    for ours, expected in zip(mine, theirs):
        assert ours == expected


def test_chrome_trace_as_torch(torch, tmp_path):
    _events(profiler_util).export_chrome_trace(str(tmp_path / "ours.json"))
    _events(torch.autograd.profiler_util).export_chrome_trace(str(tmp_path / "torch.json"))
    ours = json.loads((tmp_path / "ours.json").read_text())
    theirs = json.loads((tmp_path / "torch.json").read_text())
    assert ours == theirs


def test_stacks_export(tmp_path):
    events = _events(profiler_util)
    events[2].stack = ["train.py(12): step", "train.py(40): <module>"]
    events.export_stacks(str(tmp_path / "stacks.txt"), "self_cpu_time_total")
    assert (tmp_path / "stacks.txt").read_text() == (
        "train.py(40):_<module>;train.py(12):_step 40\n"
    )
    with pytest.raises(ValueError, match="metric should be one of"):
        events.export_stacks(str(tmp_path / "x"), "cpu_time")


# ---------------------------------------------------------------- recording ops


def _program(lib):
    x = lib.ones(4, 3)
    w = lib.ones(2, 3, requires_grad=True)
    with lib.autograd.profiler.profile(record_shapes=True) as prof:
        with lib.autograd.profiler.record_function("forward"):
            y = lib.mm(x, w.t())
            z = y.relu()
        z.sum()
    return prof


def _summary(prof, names):
    """The recorded events of ``names``: their parent's name and input shapes."""
    return [
        (e.name, e.cpu_parent.name if e.cpu_parent else None, e.input_shapes)
        for e in prof.function_events
        if e.name in names
    ]


def test_records_ops_and_ranges_as_torch(torch):
    names = {"forward", "aten::mm", "aten::relu", "aten::sum"}
    ours, theirs = _program(hookgrad), _program(torch)
    assert _summary(ours, names) == _summary(theirs, names)
    averages = {a.key: a.count for a in ours.key_averages()}
    assert averages["aten::mm"] == 1 and averages["forward"] == 1
    for event in ours.function_events:
        assert 0 <= event.time_range.start <= event.time_range.end
    assert ours.self_cpu_time_total == pytest.approx(
        sum(e.self_cpu_time_total for e in ours.function_events)
    )
    table = ours.key_averages().table(sort_by="cpu_time_total")
    assert table.splitlines()[1].split() == theirs.key_averages().table().splitlines()[1].split()


def test_memory_stack_flops():
    x = hookgrad.ones(4, 3)
    w = hookgrad.ones(3, 2)
    with profiler.profile(profile_memory=True, with_stack=True, with_flops=True) as prof:
        with profiler.record_function("outer"):
            hookgrad.mm(x, w)
    outer, mm = prof.function_events
    assert (mm.name, mm.cpu_memory_usage, mm.flops) == ("aten::mm", 4 * 2 * 4, 2 * 4 * 3 * 2)
    assert outer.cpu_memory_usage == mm.cpu_memory_usage
    assert mm.stack and mm.stack[0].startswith(__file__)
    assert "Total FLOPs" in prof.key_averages().table()


def test_no_cost_outside_a_profile():
    assert dispatch._observer is None
    with profiler.profile():
        assert dispatch._observer is not None
    assert dispatch._observer is None


def _api_behaviour(lib):
    results = []
    prof = lib.autograd.profiler.profile()
    results.append([str(prof), repr(prof), list(prof.key_averages())])
    with prof:
        pass
    results.append(outcome(lambda _: prof.__enter__(), lib))
    results.append(lib.autograd.profiler.profile(enabled=False).__enter__())
    results.append(outcome(lambda _: lib.autograd.profiler.emit_nvtx().__enter__(), lib))
    with lib.autograd.profiler.emit_itt():
        results.append("itt")

    @lib.autograd.profiler.record_function("label")
    def labelled(a):
        return a + 1

    results.append(labelled(2))
    with lib.autograd.profiler.record_function("block") as record:
        results.append(type(record).__name__)
    legacy = lib.autograd.profiler_legacy.profile()
    results.append(outcome(lambda _: legacy.table(), lib))
    results.append([str(legacy), repr(legacy)])
    return results


def test_api_behaviour_as_torch(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert outcome(lambda _: _api_behaviour(hookgrad), hookgrad) == outcome(
            lambda _: _api_behaviour(torch), torch
        )


def test_kineto_is_not_available():
    # torch's CPU build has Kineto; hookgrad's recorder is its own.
    assert hookgrad.autograd.kineto_available() is False
    assert hookgrad.profiler.supported_activities() == {hookgrad.profiler.ProfilerActivity.CPU}


# ---------------------------------------------------------------- torch.profiler


def _schedules(lib):
    P = lib.profiler
    results = []
    for kwargs in (
        {"wait": 1, "warmup": 1, "active": 2},
        {"wait": 2, "warmup": 1, "active": 1, "repeat": 2, "skip_first": 3},
        {"wait": 5, "warmup": 1, "active": 2, "skip_first": 1, "skip_first_wait": 1},
    ):
        fn = P.schedule(**kwargs)
        results.append([fn(step).name for step in range(14)])
    results.append(outcome(lambda _: P.schedule(wait=0, warmup=1, active=0), lib))
    results.append([a.name for a in P.ProfilerAction])
    return results


def test_schedule_as_torch(torch):
    assert _schedules(hookgrad) == _schedules(torch)
    with pytest.warns(UserWarning, match="won't be using warmup"):
        hookgrad.profiler.schedule(wait=1, warmup=0, active=1)


def _scheduled_run(lib, directory):
    P = lib.profiler
    ready = []
    x = lib.ones(3, 3)

    def on_ready(prof):
        ready.append((prof.step_num, sorted({e.name for e in prof.events()} & NAMES)))
        P.tensorboard_trace_handler(directory, worker_name="worker", use_gzip=True)(prof)

    with P.profile(
        activities=[P.ProfilerActivity.CPU],
        schedule=P.schedule(wait=1, warmup=1, active=2, repeat=1),
        on_trace_ready=on_ready,
    ) as prof:
        for _ in range(6):
            with P.record_function("body"):
                x.mm(x)
            prof.step()
    return ready


NAMES = {"body", "aten::mm", "ProfilerStep*"}


def test_scheduled_profile_as_torch(tmp_path):
    # torch 2.13 gives this (its first torch.profiler.profile costs ~3 s: run once, kept).
    ours = _scheduled_run(hookgrad, str(tmp_path / "ours"))
    assert ours == [(4, ["ProfilerStep*", "aten::mm", "body"])]
    files = sorted(os.listdir(tmp_path / "ours"))
    assert len(files) == 1 and all(
        f.startswith("worker.") and f.endswith(".pt.trace.json.gz") for f in files
    )
    with gzip.open(tmp_path / "ours" / files[0], "rt") as file:
        trace = json.load(file)
    names = [event["name"] for event in trace["traceEvents"]]
    assert names[:3] == ["ProfilerStep#2", "body", "aten::mm"]
    assert {event["cat"] for event in trace["traceEvents"]} == {"cpu_op", "user_annotation"}


def test_profile_without_schedule_records_everything(tmp_path):
    with hookgrad.profiler.profile(record_shapes=True) as prof:
        hookgrad.ones(2, 2).exp()
    prof.add_metadata("run", "one")
    path = str(tmp_path / "trace.json")
    prof.export_chrome_trace(path)
    trace = json.loads(open(path).read())
    assert trace["run"] == "one" and trace["record_shapes"] == 1
    assert [e["args"]["Input Dims"] for e in trace["traceEvents"]] == [[[2, 2]]]
    assert [a.key for a in prof.key_averages()] == ["aten::exp"]


# ---------------------------------------------------------------- the small names


def _small_names(lib):
    A = lib.autograd
    results = [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
    with A.set_multithreading_enabled(False):
        results.append(A.is_multithreading_enabled())
    results.append(A.is_multithreading_enabled())
    with A._force_original_view_tracking(True):
        results.append(A.is_view_replay_enabled())
    results.append(A.is_view_replay_enabled())
    with A.enforce_grad_layout_policy(False):
        results.append("layout")
    x = lib.ones(2, requires_grad=True)
    y = x * x
    results.append(isinstance(y.grad_fn._raw_saved_self, A.SavedTensor))
    results.append([(m.name, int(m.value)) for m in A.DeviceType.__members__.values()])
    results.append([(m.name, int(m.value)) for m in A.ProfilerActivity.__members__.values()])
    results.append([(m.name, int(m.value)) for m in A.ProfilerState.__members__.values()])
    results.append([str(A.DeviceType.CPU), repr(A.ProfilerActivity.CPU)])
    results.append([A.is_tensor_like(x), A.has_torch_function((x,))])
    return results


def test_small_names_as_torch(torch):
    assert _small_names(hookgrad) == _small_names(torch)


def test_nested_io_function_fails_as_torch(torch):
    def call(lib):
        class Twice(lib.autograd.NestedIOFunction):
            def forward_extended(self, a):
                return a * 2

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [
                outcome(lambda _: Twice()(lib.ones(2)), lib),
                issubclass(Twice, lib.autograd.Function),
            ]

    assert call(hookgrad) == call(torch)
