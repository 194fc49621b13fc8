"""The backward engine: order, buffers, validation, memory, threads, reentrancy."""

from __future__ import annotations

import gc
import random
import threading
import warnings
import weakref
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad import engine
from hookgrad.graph import Node
from hookgrad.graph.node import next_sequence_nr


class Scale(Node):
    """A hand-made node for engine tests: multiplies the gradient by ``factor``."""

    def __init__(self, inputs: list[Any], factor: float, wrong: str = "") -> None:
        self.next_functions = tuple(x._gradient_edge() for x in inputs)
        self._input_meta = tuple((x._data.shape, x.dtype) for x in inputs)
        self.factor = factor
        self.wrong = wrong
        self._seq = next_sequence_nr()

    def _apply(self, grad_outputs: list[Any]) -> Any:
        grad = grad_outputs[0] * self.factor
        if self.wrong == "count":
            return (grad,) * (len(self.next_functions) + 1)
        if self.wrong == "shape":
            return tuple(grad.reshape(-1, 1).expand(-1, 3) for _ in self.next_functions)
        return tuple(grad for _ in self.next_functions)


def output_of(node: Node, like: Any) -> Any:
    return like.detach()._as_output_of(node, 0)


# ------------------------------------------------------------------------------ ordering


def test_ready_queue_is_a_max_heap() -> None:
    rng = random.Random(1)

    class Keyed(Node):
        def __init__(self, key: int) -> None:
            self._seq = key

    for _ in range(100):
        keys = [rng.randrange(10) for _ in range(rng.randrange(2, 40))]
        heap: list[Any] = []
        for key in keys:
            engine._push(heap, Keyed(key))
        out = []
        while len(heap) > 1:
            out.append(engine._pop(heap)._seq)
        out.append(heap.pop()[0])
        assert out == sorted(keys, reverse=True)


def test_every_node_runs_after_all_its_consumers() -> None:
    """Topological check on random graphs: a node runs once, after every node feeding it."""
    rng = random.Random(2)
    for _ in range(10):
        x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
        pool = [x]
        for _ in range(30):
            a, b = rng.choice(pool), rng.choice(pool)
            pool.append(a * b * 0.5 if rng.random() < 0.5 else a + b)
        order: list[Node] = []
        nodes = {t.grad_fn for t in pool[1:]}
        for node in nodes:
            node.register_prehook(lambda go, node=node, order=order: order.append(node))
        sum(t.sum() for t in pool[-5:]).backward()
        position = {node: i for i, node in enumerate(order)}
        assert len(position) == len(order)
        for node in order:
            for child, _ in node.next_functions:
                if child in position:
                    assert position[child] > position[node]


# ------------------------------------------------------------------- buffers, validation


def test_gradients_into_one_slot_are_summed_before_the_node_runs() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * 2 + y * 5 + y).sum().backward()
    assert seen == [[8.0, 8.0]]
    assert x.grad.tolist() == [24.0, 24.0]


def test_engine_sums_broadcast_gradients_and_casts_dtype() -> None:
    x = hookgrad.tensor([[1.0, 2.0]], requires_grad=True)
    node = Scale([x], 2.0)
    out = output_of(node, hookgrad.ones(3, 2, dtype=hookgrad.float64))
    out.backward(hookgrad.ones(3, 2, dtype=hookgrad.float64))
    assert x.grad.dtype == hookgrad.float32
    assert x.grad.tolist() == [[6.0, 6.0]]


def test_wrong_number_of_gradients_from_a_node() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    node = Scale([x], 1.0, wrong="count")
    with pytest.raises(
        RuntimeError, match=r"returned an incorrect number of gradients \(expected 1"
    ):
        output_of(node, x).backward(hookgrad.ones(2))


def test_gradient_of_an_incompatible_shape_from_a_node() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    node = Scale([x], 1.0, wrong="shape")
    message = r"Scale returned an invalid gradient at index 0 - got \[2, 3\] but expected shape"
    with pytest.raises(RuntimeError, match=message):
        output_of(node, x).backward(hookgrad.ones(2))


def test_node_with_only_none_gradients_is_skipped_but_hooks_fire() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    calls = []
    y.grad_fn.register_prehook(lambda go: (None,))
    acc = y.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: calls.append(go))
    y.grad_fn.register_hook(lambda gi, go: calls.append((gi, go)))
    y.sum().backward()
    assert calls == [((None, None), (None,)), (None,)]
    assert x.grad is None


# ------------------------------------------------------------------------------ memory


def test_saved_tensors_are_freed_after_backward() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    e = h.exp()
    y = (e * h).sum()
    refs = [weakref.ref(h), weakref.ref(e)]
    del h, e
    assert all(ref() is not None for ref in refs)
    y.backward()
    # Freed by reference counting alone: the graph holds no cycle through them.
    assert all(ref() is None for ref in refs)
    assert y.grad_fn is not None


def test_retain_graph_keeps_saved_tensors_until_the_last_backward() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    y = (h * h).sum()
    ref = weakref.ref(h)
    del h
    y.backward(retain_graph=True)
    assert ref() is not None
    y.backward()
    assert ref() is None
    assert x.grad.tolist() == [16.0, 32.0]


def test_training_loop_does_not_accumulate_nodes() -> None:
    w = hookgrad.tensor([0.5, -0.5], requires_grad=True)
    w.register_hook(lambda g: g * 1.0)

    def step() -> None:
        loss = ((w * 3.0).exp() * w).sum()
        loss.backward()
        with hookgrad.no_grad():
            w.grad = None

    def live_nodes() -> int:
        gc.collect()
        return sum(isinstance(o, Node) for o in gc.get_objects())

    for _ in range(3):
        step()
    before = live_nodes()
    for _ in range(30):
        step()
    assert live_nodes() <= before


def test_graph_task_state_is_dropped_after_backward() -> None:
    x = hookgrad.tensor([1.0], requires_grad=True)
    y = x * 2
    node = weakref.ref(y.grad_fn)
    y.backward()
    assert engine.current_graph_task_id() == -1
    del y
    assert node() is None


# ------------------------------------------------------------- reentrancy and threads


def test_backward_inside_a_hook(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = lib.tensor([3.0], requires_grad=True)

        def hook(grad: Any) -> Any:
            log.append(lib.is_grad_enabled())
            with lib.enable_grad():
                (inner,) = lib.autograd.grad((z * z).sum(), z)
                log.append(inner.tolist())
                (z * 4).sum().backward()
            log.append(lib.is_grad_enabled())
            return grad * inner

        y = x * 2
        y.register_hook(hook)
        y.sum().backward()
        log.append(x.grad.tolist())
        log.append(z.grad.tolist())
        return log

    assert run(hookgrad) == run(torch)


def test_graph_task_ids_inside_nested_backward() -> None:
    ids = []
    x = hookgrad.tensor([1.0], requires_grad=True)
    z = hookgrad.tensor([1.0], requires_grad=True)

    def inner_hook(grad: Any) -> None:
        ids.append(("inner", engine.current_graph_task_id()))

    z.register_hook(inner_hook)

    def outer_hook(grad: Any) -> None:
        ids.append(("outer", engine.current_graph_task_id()))
        with hookgrad.enable_grad():
            (z * 2).sum().backward()
        ids.append(("outer again", engine.current_graph_task_id()))

    y = x * 2
    y.register_hook(outer_hook)
    y.sum().backward()
    (outer, inner, again) = ids
    assert outer[1] == again[1] != inner[1]
    assert -1 not in (outer[1], inner[1])


def test_will_engine_execute_node_inside_a_hook() -> None:
    x = hookgrad.tensor([1.0], requires_grad=True)
    unrelated = hookgrad.tensor([1.0], requires_grad=True) * 3
    y = x * 2
    answers = []
    y.register_hook(
        lambda g: answers.append(
            (
                engine.will_engine_execute_node(y.grad_fn),
                engine.will_engine_execute_node(unrelated.grad_fn),
            )
        )
    )
    (y * 5).sum().backward(retain_graph=True)
    hookgrad.autograd.grad((y * 5).sum(), y)
    # A captured node counts as executed (as in torch), although it does not run.
    assert answers == [(True, False), (True, False)]


def test_concurrent_backward_on_a_shared_leaf() -> None:
    w = hookgrad.tensor(np.ones(3), requires_grad=True)
    errors = []

    def work() -> None:
        try:
            for _ in range(40):
                ((w * 2.0) * w).sum().backward()
        except Exception as error:  # noqa: BLE001 (reported by the assertion below)
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert w.grad.tolist() == [4.0 * 160] * 3


def test_grad_mode_of_other_threads_is_untouched() -> None:
    x = hookgrad.tensor([1.0], requires_grad=True)
    started = threading.Event()
    release = threading.Event()
    modes = []

    def hook(grad: Any) -> None:
        started.set()
        release.wait(5)

    def other() -> None:
        started.wait(5)
        modes.append(hookgrad.is_grad_enabled())
        release.set()

    y = x * 2
    y.register_hook(hook)
    thread = threading.Thread(target=other)
    thread.start()
    y.sum().backward()
    thread.join()
    assert modes == [True]


# --------------------------------------------------------------------------- seeds


@pytest.mark.parametrize("name", ["torch", "hookgrad"])
def test_seed_gradient_is_cast_to_the_output_dtype(torch: Any, name: str) -> None:
    lib = torch if name == "torch" else hookgrad
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.dtype))
    y.backward(lib.ones(2, dtype=lib.float64))
    assert seen == [lib.float32]
    assert x.grad.dtype == lib.float32


def test_backward_inputs_accept_a_single_tensor() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    w = hookgrad.tensor([3.0, 4.0], requires_grad=True)
    (x * w).sum().backward(inputs=x)
    assert x.grad.tolist() == [3.0, 4.0]
    assert w.grad is None


@pytest.mark.parametrize("name", ["torch", "hookgrad"])
def test_grad_from_backward_with_create_graph_is_differentiable(torch: Any, name: str) -> None:
    lib = torch if name == "torch" else hookgrad
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference-cycle warning (tested elsewhere)
        (x * x * x).sum().backward(create_graph=True)
    node = x.grad.grad_fn
    assert node.name() == "torch::autograd::CopyBackwards"
    assert node.next_functions[0] == (None, 0)
    assert x.grad.tolist() == [3.0, 12.0]
    (second,) = lib.autograd.grad(x.grad.sum(), x)
    assert second.tolist() == [6.0, 12.0]
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (w * 2).sum().backward(create_graph=True)
    assert w.grad.grad_fn is None
    assert not w.grad.requires_grad
