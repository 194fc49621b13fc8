"""``hookgrad.futures`` against ``torch.futures``: completion, waiting, chaining, errors and
joining several futures, each scenario run on both libraries."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

import hookgrad
from tests.oracle import outcome


def _completed(t: Any) -> Any:
    fut = t.futures.Future()
    before = fut.done()
    fut.set_result(3)
    return before, fut.done(), fut.value(), fut.wait()


def _twice(t: Any) -> Any:
    fut = t.futures.Future()
    fut.set_result(1)
    fut.set_result(2)


def _exception(t: Any) -> Any:
    fut = t.futures.Future()
    fut.set_exception(ValueError("boom"))
    return fut.done(), outcome(lambda _: fut.wait(), t), outcome(lambda _: fut.value(), t)


def _then(t: Any) -> Any:
    fut = t.futures.Future()
    chained = fut.then(lambda f: f.wait() + 1)
    fut.set_result(1)
    return chained.wait()


def _then_after_completion(t: Any) -> Any:
    fut = t.futures.Future()
    fut.set_result(t.ones(2))
    return fut.then(lambda f: f.wait() * 3).wait()


def _then_error(t: Any) -> Any:
    fut = t.futures.Future()
    chained = fut.then(lambda f: f.wait() * 2)
    fut.set_exception(ValueError("parent"))
    chained.wait()


def _callbacks(t: Any) -> Any:
    seen: list[Any] = []
    fut = t.futures.Future()
    fut.add_done_callback(lambda f: seen.append(("first", f.value())))
    fut.add_done_callback(lambda f: seen.append(("second", f.value())))
    fut.set_result(5)
    fut.add_done_callback(lambda f: seen.append(("late", f.value())))
    return seen


def _collect_all(t: Any) -> Any:
    a, b = t.futures.Future(), t.futures.Future()
    both = t.futures.collect_all([a, b])
    a.set_result(1)
    waiting = both.done()
    b.set_result(2)
    return waiting, [f.wait() for f in both.wait()], t.futures.collect_all([]).wait()


def _collect_all_error(t: Any) -> Any:
    a, b = t.futures.Future(), t.futures.Future()
    both = t.futures.collect_all([a, b])
    a.set_exception(ValueError("first"))
    b.set_result(2)
    both.wait()


def _wait_all(t: Any) -> Any:
    a, b = t.futures.Future(), t.futures.Future()
    a.set_result(1)
    b.set_result(2)
    return t.futures.wait_all([a, b])


def _wait_all_error(t: Any) -> Any:
    a, b = t.futures.Future(), t.futures.Future()
    a.set_result(1)
    b.set_exception(RuntimeError("bad"))
    t.futures.wait_all([a, b])


CASES = [
    _completed,
    _twice,
    _exception,
    _then,
    _then_after_completion,
    _then_error,
    _callbacks,
    _collect_all,
    _collect_all_error,
    _wait_all,
    _wait_all_error,
]


@pytest.mark.parametrize("case", CASES, ids=lambda f: f.__name__)
def test_futures_match_torch(case, torch):
    assert outcome(case, hookgrad, first_line=True) == outcome(case, torch, first_line=True)


def test_wait_blocks_until_another_thread_completes():
    fut = hookgrad.futures.Future()

    def complete() -> None:
        time.sleep(0.01)
        fut.set_result("done")

    thread = threading.Thread(target=complete)
    thread.start()
    assert fut.wait() == "done"
    thread.join()


def test_callback_errors_are_reported_and_dropped(capsys):
    fut = hookgrad.futures.Future()
    fut.add_done_callback(lambda f: 1 / 0)
    fut.set_result(1)
    assert "ZeroDivisionError: division by zero" in capsys.readouterr().err
    assert fut.value() == 1


def test_future_is_exported_at_top_level(torch):
    assert hookgrad.Future is hookgrad.futures.Future
    assert sorted(hookgrad.futures.__all__) == sorted(torch.futures.__all__)
