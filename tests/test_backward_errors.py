"""Misuse of backward, grad and hooks raises torch's exception type and message.

Each case is written once as ``case(lib)`` and run on torch and on hookgrad; the test
compares the exception type and text. After every error hookgrad must still work: grad
mode is restored and a fresh backward pass gives the right gradient.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import hookgrad


def leaf(lib: Any, data: Any = (1.0, 2.0)) -> Any:
    return lib.tensor(list(data), requires_grad=True)


def named(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a hook a fixed ``__name__`` (error messages quote it)."""

    def rename(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__name__ = name
        return fn

    return rename


def backward_with_tensor_hook(lib: Any, hook: Callable[[Any], Any], on_leaf: bool = False) -> None:
    x = leaf(lib)
    y = x * 2
    (x if on_leaf else y).register_hook(hook)
    y.sum().backward()


def backward_with_node_hook(lib: Any, kind: str, hook: Callable[..., Any]) -> None:
    x = leaf(lib)
    y = x * 2
    if kind == "pre":
        y.grad_fn.register_prehook(hook)
    else:
        y.grad_fn.register_hook(hook)
    y.sum().backward()


def backward_with_post_accumulate(lib: Any) -> None:
    x = leaf(lib)
    x.register_post_accumulate_grad_hook(lambda t: t * 2)
    (x * 2).sum().backward()


def freed_graph(lib: Any) -> None:
    x = leaf(lib)
    y = (x * x).sum()
    y.backward()
    y.backward()


def freed_saved_result(lib: Any) -> None:
    x = leaf(lib)
    y = x.exp()
    y.sum().backward()
    _ = y.grad_fn._saved_result


def freed_in_create_graph(lib: Any) -> None:
    x = leaf(lib)
    y = (x * x * x).sum()
    (gx,) = lib.autograd.grad(y, x, create_graph=True)
    lib.autograd.grad(gx.sum(), x)
    lib.autograd.grad(gx.sum(), x)


CASES: dict[str, Callable[[Any], Any]] = {
    "backward of non-scalar without gradient": lambda lib: (leaf(lib) * 2).backward(),
    "grad of non-scalar without grad_outputs": lambda lib: lib.autograd.grad(
        leaf(lib) * 2, leaf(lib)
    ),
    "backward of tensor without grad": lambda lib: lib.tensor([1.0]).sum().backward(),
    "backward of int tensor": lambda lib: lib.autograd.backward(lib.tensor(1)),
    "backward of complex scalar": lambda lib: (
        (lib.tensor([1.0], dtype=lib.complex64, requires_grad=True) * 2).sum().backward()
    ),
    "backward through freed graph": freed_graph,
    "saved result after free": freed_saved_result,
    "freed graph of a double backward": freed_in_create_graph,
    "grad of unused input": lambda lib: lib.autograd.grad(
        (leaf(lib) * 2).sum(), [leaf(lib), leaf(lib)]
    ),
    "grad of input without grad": lambda lib: lib.autograd.grad(
        (leaf(lib) * 2).sum(), lib.tensor([1.0])
    ),
    "grad with empty inputs": lambda lib: lib.autograd.grad((leaf(lib) * 2).sum(), []),
    "backward with empty inputs": lambda lib: (leaf(lib) * 2).sum().backward(inputs=[]),
    "backward inputs without grad": lambda lib: (
        (leaf(lib) * 2).sum().backward(inputs=[lib.tensor([1.0])])
    ),
    "grad_outputs of wrong shape": lambda lib: lib.autograd.grad(
        leaf(lib) * 2, leaf(lib), lib.ones(3)
    ),
    "gradient of wrong shape": lambda lib: (leaf(lib) * 2).backward(lib.ones(3)),
    "complex gradient for real output": lambda lib: (leaf(lib) * 2).backward(
        lib.ones(2, dtype=lib.complex64)
    ),
    "tensor hook changes size": lambda lib: backward_with_tensor_hook(
        lib, named("shrink")(lambda g: g.sum())
    ),
    "leaf hook changes size": lambda lib: backward_with_tensor_hook(
        lib, lambda g: g.sum(), on_leaf=True
    ),
    "tensor hook changes dtype": lambda lib: backward_with_tensor_hook(
        lib, named("widen")(lambda g: g.to(lib.float64))
    ),
    "tensor hook returns complex": lambda lib: backward_with_tensor_hook(
        lib, named("cplx")(lambda g: g.to(lib.complex64))
    ),
    "tensor hook returns a float": lambda lib: backward_with_tensor_hook(lib, lambda g: 3.0),
    "tensor hook returns a list": lambda lib: backward_with_tensor_hook(lib, lambda g: [g]),
    "pre-hook returns too many": lambda lib: backward_with_node_hook(
        lib, "pre", named("two")(lambda go: (go[0], go[0]))
    ),
    "pre-hook returns a tensor": lambda lib: backward_with_node_hook(lib, "pre", lambda go: go[0]),
    "pre-hook changes size": lambda lib: backward_with_node_hook(
        lib, "pre", lambda go: (go[0].sum(),)
    ),
    "post-hook returns too few": lambda lib: backward_with_node_hook(
        lib, "post", lambda gi, go: (gi[0],)
    ),
    "post-hook changes size": lambda lib: backward_with_node_hook(
        lib, "post", lambda gi, go: (gi[0].sum(), None)
    ),
    "post-hook returns a list": lambda lib: backward_with_node_hook(
        lib, "post", lambda gi, go: [gi[0], None]
    ),
    "post-hook fills a None gradient": lambda lib: backward_with_node_hook(
        lib, "post", lambda gi, go: (gi[0], gi[0])
    ),
    "post-hook returns a float": lambda lib: backward_with_node_hook(
        lib, "post", lambda gi, go: (3.0, None)
    ),
    "hook on tensor without grad": lambda lib: lib.tensor([1.0]).register_hook(print),
    "post-accumulate hook on non-leaf": lambda lib: (
        leaf(lib) * 2
    ).register_post_accumulate_grad_hook(print),
    "post-accumulate hook without grad": lambda lib: lib.tensor(
        [1.0]
    ).register_post_accumulate_grad_hook(print),
    "post-accumulate hook returns a value": lambda lib: backward_with_post_accumulate(lib),
    "retain_grad without grad": lambda lib: lib.tensor([1.0]).retain_grad(),
    "requires_grad=False on non-leaf": lambda lib: setattr(leaf(lib) * 2, "requires_grad", False),
    "requires_grad=True on non-leaf": lambda lib: setattr(leaf(lib) * 2, "requires_grad", True),
    "requires_grad_(False) on non-leaf": lambda lib: (leaf(lib) * 2).requires_grad_(False),
    "requires_grad on int tensor": lambda lib: setattr(lib.tensor([1]), "requires_grad", True),
    "requires_grad_ on int tensor": lambda lib: lib.tensor([1]).requires_grad_(),
    "multi-grad hook on tensor without grad": lambda lib: (
        lib.autograd.graph.register_multi_grad_hook((leaf(lib), lib.tensor([1.0])), print)
    ),
    "multi-grad hook with a bad mode": lambda lib: lib.autograd.graph.register_multi_grad_hook(
        (leaf(lib),), print, mode="some"
    ),
    "get_gradient_edge without grad": lambda lib: lib.autograd.graph.get_gradient_edge(
        lib.tensor([1.0])
    ),
    "materialize_grads with allow_unused=False": lambda lib: lib.autograd.grad(
        (leaf(lib) * 2).sum(), leaf(lib), allow_unused=False, materialize_grads=True
    ),
    "will_engine_execute_node outside backward": lambda lib: (
        lib._C._will_engine_execute_node((leaf(lib) * 2).grad_fn)
        if lib is not hookgrad
        else hookgrad.engine.will_engine_execute_node((leaf(lib) * 2).grad_fn)
    ),
}


def outcome(lib: Any, case: Callable[[Any], Any]) -> tuple[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            case(lib)
        except Exception as error:  # noqa: BLE001 (any type: it is what we compare)
            return type(error).__name__, str(error)
    return "no error", ""


def assert_still_works() -> None:
    """After an error: grad mode is on and a new backward pass is right."""
    assert hookgrad.is_grad_enabled()
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0]
    assert hookgrad.engine.current_graph_task_id() == -1


@pytest.mark.parametrize("name", list(CASES))
def test_same_error_as_torch(torch: Any, name: str) -> None:
    expected = outcome(torch, CASES[name])
    actual = outcome(hookgrad, CASES[name])
    assert expected[0] != "no error"
    assert actual[0] == expected[0]
    # torch appends its C++ source location to a few messages; compare the text before it.
    assert actual[1] == expected[1].split(" (Triggered internally")[0]
    assert_still_works()


def test_error_inside_hook_propagates_and_restores_state() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2

    def boom(grad: Any) -> None:
        raise ValueError("boom")

    y.register_hook(boom)
    loss = y.sum()
    with hookgrad.no_grad():
        with pytest.raises(ValueError, match="boom"):
            loss.backward(create_graph=True)
        assert not hookgrad.is_grad_enabled()
    assert_still_works()


def test_error_in_node_hook_inside_autograd_grad() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.grad_fn.register_prehook(lambda go: (go[0].reshape(1, 2),))
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        hookgrad.autograd.grad(y.sum(), x)
    assert_still_works()


def test_grad_outputs_count_mismatch_raises() -> None:
    # NOTE: torch silently ignores the extra grad_output; hookgrad names the mismatch.
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="got 2 grad_outputs and 1 outputs"):
        hookgrad.autograd.grad(x * 2, x, [hookgrad.ones(2), hookgrad.ones(2)])
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        hookgrad.autograd.backward([x * 2, x * 3], [hookgrad.ones(2)])


def test_registering_a_non_callable_hook_raises_at_once() -> None:
    # NOTE: torch accepts it and fails later inside backward; hookgrad fails at the call.
    x = hookgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="hook must be callable, got int"):
        x.register_hook(3)
    with pytest.raises(TypeError, match="hook must be callable"):
        (x * 2).grad_fn.register_prehook(None)
    assert x._backward_hooks is None or len(x._backward_hooks) == 0


def test_non_leaf_grad_warns_like_torch(torch: Any) -> None:
    for lib in (torch, hookgrad):
        y = leaf(lib) * 2
        with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
            assert y.grad is None
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert y.grad is None


TORCH_CREATE_GRAPH_WARNINGS = """
import warnings
import torch
x = torch.tensor([1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as record:
    warnings.simplefilter("always")
    for _ in range(2):
        (x * x).sum().backward(create_graph=True)
    torch.autograd.grad((x * x).sum(), x, create_graph=True)
for w in record:
    print(str(w.message).split(" (Triggered internally")[0])
"""


def test_backward_create_graph_warns_once() -> None:
    # torch warns once per process: its warnings are read from a fresh one.
    done = subprocess.run(
        [sys.executable, "-c", TORCH_CREATE_GRAPH_WARNINGS],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    expected = done.stdout.splitlines()
    from hookgrad.tensor import backward as backward_module

    backward_module._warned_create_graph = False
    x = hookgrad.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for _ in range(2):
            (x * x).sum().backward(create_graph=True)
        hookgrad.autograd.grad((x * x).sum(), x, create_graph=True)
    assert [str(w.message) for w in record] == expected
    assert len(expected) == 1 and "create a reference cycle" in expected[0]
