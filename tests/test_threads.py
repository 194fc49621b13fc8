"""Multithreaded backward: concurrent passes give the single-threaded results.

Each ``backward()`` / ``autograd.grad()`` call is a self-contained graph task, grad mode
is per thread, and accumulation into a shared leaf's ``.grad`` is locked.
"""

from __future__ import annotations

import collections
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import hookgrad

THREADS = 8
PASSES = 200


@pytest.fixture(autouse=True)
def frequent_switches() -> Iterator[None]:
    """Switch threads every few bytecodes, so that passes really interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(interval)


def run_threads(work: Callable[[int], Any], count: int = THREADS) -> list[Any]:
    """Run ``work(index)`` in ``count`` threads started together; their results in order.

    An exception in any thread fails the test (re-raised here).
    """
    results: list[Any] = [None] * count
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def target(index: int) -> None:
        try:
            barrier.wait(5)
            results[index] = work(index)
        except BaseException as error:  # noqa: BLE001 (re-raised in the main thread)
            errors.append(error)

    threads = [threading.Thread(target=target, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    if errors:
        raise errors[0]
    return results


def integer_data(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    """Small integers as float64: sums of gradients are exact in any order."""
    return np.random.default_rng(seed).integers(-3, 4, size=shape).astype(np.float64)


def forward(w: Any, x: Any) -> Any:
    """A small graph with shared subexpressions, a matmul, a reduction and a broadcast."""
    return loss_of(x @ w, w, x)


def loss_of(h: Any, w: Any, x: Any) -> Any:
    return ((h * h + h) * x.sum(1, keepdim=True)).sum() - (w * 2).sum()


# -- own graphs -------------------------------------------------------------------------
def test_own_graphs_match_the_serial_run() -> None:
    w = hookgrad.tensor(integer_data(0, (3, 2)), requires_grad=True)

    def passes(index: int) -> list[tuple[list, list]]:
        """PASSES passes on graphs of this thread; ``w`` is shared, ``x`` is its own."""
        out = []
        for step in range(PASSES):
            x = hookgrad.tensor(integer_data(100 * index + step % 5, (4, 3)), requires_grad=True)
            (grad_x,) = hookgrad.autograd.grad(forward(w, x.tanh()), x)
            forward(w, x).backward()  # accumulates into the shared w.grad
            out.append((grad_x.tolist(), x.grad.tolist()))
        return out

    expected = [passes(index) for index in range(THREADS)]
    serial_sum = w.grad.clone()
    w.grad = None
    assert run_threads(passes) == expected
    assert np.array_equal(w.grad.numpy(), serial_sum.numpy())


# -- a shared graph ---------------------------------------------------------------------
def test_shared_retained_graph_matches_the_serial_run() -> None:
    w = hookgrad.tensor(integer_data(1, (3, 2)), requires_grad=True)
    x = hookgrad.tensor(integer_data(2, (4, 3)), requires_grad=True)
    h = x @ w
    h.retain_grad()
    loss = loss_of(h, w, x)
    seen_by: list[int] = []  # list.append is atomic: no lock needed
    h.register_hook(lambda grad: seen_by.append(threading.get_ident()))

    def passes(index: int) -> tuple[int, list, list]:
        for _ in range(PASSES // 2):
            grads = hookgrad.autograd.grad(loss, (x, w), retain_graph=True)
            loss.backward(retain_graph=True)
        return threading.get_ident(), grads[0].tolist(), grads[1].tolist()

    serial = hookgrad.autograd.grad(loss, (x, w), retain_graph=True)
    for _ in range(THREADS * PASSES // 2):
        loss.backward(retain_graph=True)
    serial_sums = (x.grad.clone(), w.grad.clone())
    seen_by.clear()
    x.grad = w.grad = None

    results = run_threads(passes)
    for _, grad_x, grad_w in results:
        assert grad_x == serial[0].tolist()
        assert grad_w == serial[1].tolist()
    assert np.array_equal(x.grad.numpy(), serial_sums[0].numpy())
    assert np.array_equal(w.grad.numpy(), serial_sums[1].numpy())
    # every hook call happened in the thread that ran that backward pass
    assert collections.Counter(seen_by) == {ident: PASSES for ident, _, _ in results}


def test_accumulations_into_a_leaf_never_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock serialises ``.grad`` writes, even when one of them is slow."""
    original = hookgrad.Tensor._accumulate_grad
    inside: list[int] = []
    overlaps: list[int] = []

    def slow_accumulate(self: Any, grad: Any) -> None:
        inside.append(1)
        if len(inside) > 1:
            overlaps.append(len(inside))
        time.sleep(1e-4)  # let the other threads run meanwhile
        original(self, grad)
        inside.pop()

    monkeypatch.setattr(hookgrad.Tensor, "_accumulate_grad", slow_accumulate)
    w = hookgrad.tensor([1.0, 2.0], requires_grad=True)

    def work(index: int) -> None:
        for _ in range(10):
            (w * w).sum().backward()

    run_threads(work)
    assert overlaps == []
    assert w.grad.tolist() == [2.0 * 10 * THREADS, 4.0 * 10 * THREADS]


def test_a_failing_thread_leaves_the_others_alone() -> None:
    w = hookgrad.tensor([2.0], requires_grad=True)

    def work(index: int) -> str:
        for _ in range(20):
            y = (w * w).sum()
            y.backward()
            if index % 2:
                try:
                    y.backward()  # the graph was freed: this thread's error only
                except RuntimeError as error:
                    message = str(error)
        return message if index % 2 else "ok"

    results = run_threads(work)
    assert results[0::2] == ["ok"] * (THREADS // 2)
    assert all(
        r.startswith("Trying to backward through the graph a second time") for r in results[1::2]
    )
    assert w.grad.tolist() == [4.0 * 20 * THREADS]


# -- per-thread state -------------------------------------------------------------------
def test_no_grad_in_one_thread_does_not_affect_another() -> None:
    inside, done = threading.Event(), threading.Event()
    recorded = {}

    def other() -> None:
        with hookgrad.no_grad():
            inside.set()
            done.wait(5)
            recorded["other"] = (hookgrad.ones(1, requires_grad=True) * 2).requires_grad

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(5)
    x = hookgrad.tensor([3.0], requires_grad=True)
    (grad,) = hookgrad.autograd.grad(x**3, x, create_graph=True)
    (second,) = hookgrad.autograd.grad(grad, x)
    recorded["main"] = grad.requires_grad
    done.set()
    thread.join(5)
    assert recorded == {"other": False, "main": True}
    assert second.tolist() == [18.0]


def test_backward_grad_mode_is_per_thread() -> None:
    """A create_graph pass turns grad mode on only in its own thread."""
    in_hook, checked = threading.Event(), threading.Event()
    modes = {}

    def hook(grad: Any) -> None:
        modes["hook"] = hookgrad.is_grad_enabled()
        in_hook.set()
        checked.wait(5)

    def other() -> None:
        with hookgrad.no_grad():
            assert in_hook.wait(5)
            modes["other"] = hookgrad.is_grad_enabled()
            checked.set()

    thread = threading.Thread(target=other)
    thread.start()
    x = hookgrad.tensor([1.0], requires_grad=True)
    y = x * 2
    y.register_hook(hook)
    hookgrad.autograd.grad(y.sum(), x, create_graph=True)
    thread.join(5)
    assert modes == {"hook": True, "other": False}
    assert hookgrad.is_grad_enabled()


def test_saved_tensors_hooks_are_per_thread() -> None:
    inside, done = threading.Event(), threading.Event()
    packed_by: list[str] = []

    def pack(tensor: Any) -> Any:
        packed_by.append(threading.current_thread().name)
        return tensor

    def other() -> None:
        with hookgrad.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            inside.set()
            done.wait(5)
            x = hookgrad.ones(2, requires_grad=True)
            (x * x).sum().backward()

    thread = threading.Thread(target=other, name="hooked")
    thread.start()
    assert inside.wait(5)
    x = hookgrad.ones(2, requires_grad=True)
    (x * x).sum().backward()  # saves x twice, without the other thread's hooks
    done.set()
    thread.join(5)
    assert packed_by == ["hooked", "hooked"]
