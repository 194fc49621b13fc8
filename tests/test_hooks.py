"""``RemovableHandle`` and the hook dicts of ``hookgrad.hooks``."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

import hookgrad
from hookgrad.hooks import HookDict, MultiHandle, RemovableHandle, add_hook, hook_name


def test_remove_is_idempotent() -> None:
    hooks = HookDict()
    first = add_hook(hooks, print)
    second = add_hook(hooks, repr)
    first.remove()
    first.remove()
    assert list(hooks.values()) == [repr]
    second.remove()
    assert len(hooks) == 0


def test_handle_is_a_context_manager() -> None:
    hooks = HookDict()
    with add_hook(hooks, print) as handle:
        assert isinstance(handle, RemovableHandle)
        assert hooks[handle.id] is print
    assert len(hooks) == 0


def test_context_manager_removes_on_error() -> None:
    hooks = HookDict()
    with pytest.raises(KeyError):
        with add_hook(hooks, print):
            raise KeyError("inside")
    assert len(hooks) == 0


def test_ids_are_unique_and_increasing() -> None:
    hooks = HookDict()
    ids = [add_hook(hooks, print).id for _ in range(5)]
    assert ids == sorted(set(ids))


def test_prepend_puts_the_hook_first() -> None:
    hooks = HookDict()
    add_hook(hooks, print)
    add_hook(hooks, repr, prepend=True)
    assert list(hooks.values()) == [repr, print]


def test_handle_does_not_keep_its_owner_alive() -> None:
    x = hookgrad.tensor([1.0], requires_grad=True)
    y = x * 2
    handle = y.register_hook(lambda g: g)
    owner = weakref.ref(y)
    del y
    gc.collect()
    assert owner() is None
    handle.remove()  # the dict is gone: nothing to do, no error
    handle.remove()


def test_removal_after_backward_and_graph_death() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.tolist()))
    (x * 3).sum().backward()
    del x
    gc.collect()
    handle.remove()
    assert seen == [[3.0, 3.0]]


def test_multi_handle_removes_every_hook() -> None:
    a = hookgrad.tensor([1.0], requires_grad=True)
    b = hookgrad.tensor([2.0], requires_grad=True)
    calls = []
    handle = hookgrad.autograd.graph.register_multi_grad_hook((a, b), calls.append)
    assert isinstance(handle, MultiHandle)
    assert len(a._backward_hooks) == 1 and len(b._backward_hooks) == 1
    with handle:
        (a * b).sum().backward()
    assert len(calls) == 1
    assert len(a._backward_hooks) == 0 and len(b._backward_hooks) == 0
    handle.remove()
    (a * b).sum().backward()
    assert len(calls) == 1


def test_hook_name() -> None:
    def my_hook(grad: Any) -> None:
        return None

    class Callable:
        def __call__(self, grad: Any) -> None:
            return None

    assert hook_name(my_hook) == "my_hook"
    assert hook_name(lambda g: g) == "<lambda>"
    assert hook_name(Callable()) == "Callable"


@pytest.mark.parametrize("name", ["torch", "hookgrad"])
def test_hooks_registered_during_backward_fire_next_time(torch: Any, name: str) -> None:
    lib = torch if name == "torch" else hookgrad
    x = lib.tensor([1.0], requires_grad=True)
    y = x * 2
    calls = []

    def register_more(grad: Any) -> None:
        calls.append("first")
        y.register_hook(lambda g: calls.append("late"))

    y.register_hook(register_more)
    y.sum().backward(retain_graph=True)
    assert calls == ["first"]
    y.sum().backward()
    assert calls == ["first", "first", "late"]
