"""The ``Node`` API: names, ``next_functions``, metadata, sequence numbers, saved values."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest

import hookgrad
from hookgrad.graph import AccumulateGrad, Node


def structure(node: Any) -> Any:
    """A node's name and, recursively, its ``next_functions`` (None for a missing edge)."""
    if node is None:
        return None
    edges = tuple((structure(child), nr) for child, nr in node.next_functions)
    return (node.name(), edges)


def leaves(lib: Any) -> tuple[Any, Any]:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, 0.5], requires_grad=True)
    return x, y


GRAPHS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "mul add sum": lambda lib, x, y: (x * y + x).sum(),
    "scalar mul, exp, mean": lambda lib, x, y: (x * 2).exp().mean(),
    "div add log": lambda lib, x, y: (x / y + 3).log(),
    "reshape expand": lambda lib, x, y: x.reshape(2, 1).expand(2, 3).sum(),
    "rsub neg pow": lambda lib, x, y: (2 - x) * (-y) ** 2 + x**y,
    "leaf used twice": lambda lib, x, y: x + x,
    "constant operand": lambda lib, x, y: lib.tensor([1.0, 1.0]) * x + 1,
    "shared subexpression": lambda lib, x, y: (lambda s: s * s.exp())(x * y),
}


@pytest.mark.parametrize("graph", list(GRAPHS))
def test_next_functions_structure_matches_torch(torch: Any, graph: str) -> None:
    expected = structure(GRAPHS[graph](torch, *leaves(torch)).grad_fn)
    actual = structure(GRAPHS[graph](hookgrad, *leaves(hookgrad)).grad_fn)
    assert actual == expected


def test_accumulate_grad_nodes_point_at_their_leaf() -> None:
    x, y = leaves(hookgrad)
    z = x * y + x
    add = z.grad_fn
    mul = add.next_functions[0][0]
    acc_x = mul.next_functions[0][0]
    assert isinstance(acc_x, AccumulateGrad)
    assert acc_x.variable is x
    assert mul.next_functions[1][0].variable is y
    # One accumulator per leaf, shared by every op that uses it.
    assert add.next_functions[1][0] is acc_x
    assert acc_x.next_functions == ()
    assert acc_x.name() == "torch::autograd::AccumulateGrad"
    assert repr(acc_x).startswith("<AccumulateGrad object at 0x")
    assert repr(mul).startswith("<MulBackward0 object at 0x")
    assert type(x.grad_fn) is type(None)


def test_accumulator_lives_as_long_as_the_graph_uses_it() -> None:
    x = hookgrad.tensor([1.0], requires_grad=True)
    y = x * 2
    acc = weakref.ref(y.grad_fn.next_functions[0][0])
    assert (x * 3).grad_fn.next_functions[0][0] is acc()
    del y
    gc.collect()
    assert acc() is None
    assert (x * 3).grad_fn.next_functions[0][0].variable is x


def test_sequence_numbers_follow_creation_order(torch: Any) -> None:
    for lib in (torch, hookgrad):
        x, y = leaves(lib)
        b = x * 2
        c = x * 3
        d = (b + c).exp()
        nodes = [b.grad_fn, c.grad_fn, d.grad_fn.next_functions[0][0], d.grad_fn]
        numbers = [node._sequence_nr() for node in nodes]
        assert numbers == sorted(numbers)
        assert len(set(numbers)) == 4
        acc = b.grad_fn.next_functions[0][0]
        assert acc._sequence_nr() == 2**64 - 1


def test_metadata_is_one_dict_per_node(torch: Any) -> None:
    for lib in (torch, hookgrad):
        x, _ = leaves(lib)
        y = x * x
        assert y.grad_fn.metadata == {}
        y.grad_fn.metadata["layer"] = "fc1"
        z = y + 1
        assert z.grad_fn.next_functions[0][0].metadata == {"layer": "fc1"}
        assert z.grad_fn.metadata == {}


def test_saved_values_like_torch(torch: Any) -> None:
    for lib in (torch, hookgrad):
        x, y = leaves(lib)
        p = x.pow(3)
        assert p.grad_fn._saved_exponent == 3
        assert p.grad_fn._saved_self is x
        e = x.exp()
        result = e.grad_fn._saved_result
        assert result is not e
        assert result.grad_fn is e.grad_fn
        assert result.tolist() == e.tolist()
        m = x * y
        assert m.grad_fn._saved_self is x
        assert m.grad_fn._saved_other is y
        with pytest.raises(AttributeError):
            _ = m.grad_fn._saved_nothing


def test_saved_values_are_gone_after_backward(torch: Any) -> None:
    for lib in (torch, hookgrad):
        x, y = leaves(lib)
        e = x.exp()
        e.sum().backward()
        with pytest.raises(RuntimeError, match="after they have already been freed"):
            _ = e.grad_fn._saved_result


def test_node_hooks_return_removable_handles() -> None:
    x, _ = leaves(hookgrad)
    y = x * 2
    calls = []
    pre = y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    post = y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    y.sum().backward(retain_graph=True)
    pre.remove()
    post.remove()
    y.sum().backward()
    assert calls == ["pre", "post"]


def test_tensor_backward_hooks_dict(torch: Any) -> None:
    for lib in (torch, hookgrad):
        x, _ = leaves(lib)
        y = x * 2
        assert x._backward_hooks is None
        assert y._backward_hooks is None

        def hook(grad: Any) -> None:
            return None

        handle = y.register_hook(hook)
        assert list(y._backward_hooks.values()) == [hook]
        assert handle.id in y._backward_hooks
        handle.remove()
        assert len(y._backward_hooks) == 0


def test_a_node_subclass_runs_in_the_engine() -> None:
    class Double(Node):
        """A hand-made node: gradient times two for its one input."""

        def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
            return (grad_outputs[0] * 2,)

    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    node = Double()
    node.next_functions = (x._gradient_edge(),)
    node._seq = 0
    assert node._sequence_nr() == 0
    assert node.name() == "Double"
    out = x.detach()._as_output_of(node, 0)
    out.backward(hookgrad.ones(2))
    assert x.grad.tolist() == [2.0, 2.0]


def test_a_node_without_backward_says_so() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    node = Node()
    node.next_functions = (x._gradient_edge(),)
    with pytest.raises(NotImplementedError, match="Node does not implement backward"):
        x.detach()._as_output_of(node, 0).backward(hookgrad.ones(2))
