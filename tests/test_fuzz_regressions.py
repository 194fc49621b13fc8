"""Disagreements with torch 2.13 that the differential fuzzer (``tests/fuzz``) found, each
reduced to a small program run on both libraries and compared.

Each case is ``case(lib)`` returning what it observed (values, node class names and
``name()`` strings, hook arguments); an exception is an observation too (type and
message). The test runs it on torch and on hookgrad and compares the observations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import hookgrad
from tests.oracle import observe, outcome

torch = pytest.importorskip("torch")


def leaf(lib: Any, data: Any = (1.0, 2.0)) -> Any:
    return lib.tensor(list(data), requires_grad=True)


# ------------------------------------------------------------ node class names


def copy_backwards_name(lib: Any) -> Any:
    b = leaf(lib) * 1
    b.copy_(leaf(lib, (3.0, 4.0)))
    return b.grad_fn


def copy_slices_name(lib: Any) -> Any:
    b = leaf(lib) * 1
    b[0] = leaf(lib, (3.0,))[0]
    return b.grad_fn, b.grad_fn.next_functions[0][0].next_functions[0][0]


# ------------------------------------------------------------ cat/stack hooks


def list_op_grads(op: str, run: str) -> Callable[[Any], Any]:
    """A post-hook of cat/stack sees a gradient for every input, constants included."""

    def case(lib: Any) -> Any:
        a, b = leaf(lib), leaf(lib, (5.0, 6.0))
        c = lib.tensor([3.0, 4.0])
        y = getattr(lib, op)([b, c, a.double()])
        log: list[Any] = []
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: log.append(grad_inputs))
        if run == "backward":
            y.sum().backward()
        else:
            lib.autograd.grad(y.sum(), [a])
        return log

    return case


# ------------------------------------------------------------ writes into expanded tensors


def expanded_write(write: Callable[[Any, Any], Any]) -> Callable[[Any], Any]:
    """``write(e, lib)`` on ``e``, ``[[1], [2]]`` expanded to 2x3; then ``e`` and its base."""

    def case(lib: Any) -> Any:
        base = lib.tensor([[1.0], [2.0]])
        e = base.expand(2, 3)
        write(e, lib)
        return e, base

    return case


def expanded_write_backward(lib: Any) -> Any:
    """torch's CopySlices refuses a view whose elements share memory in backward."""
    x = leaf(lib).reshape(2, 1) * 1
    e = x.expand(2, 3)
    e.zero_()
    names = e.grad_fn, x.grad_fn
    x.sum().backward()
    return names


EXPANDED_WRITES: dict[str, Callable[[Any, Any], Any]] = {
    "zero_": lambda e, lib: e.zero_(),
    "fill_": lambda e, lib: e.fill_(1.5),
    "fill_tensor": lambda e, lib: e.fill_(lib.tensor(5.0)),
    "copy_": lambda e, lib: e.copy_(lib.ones(2, 3)),
    "add_": lambda e, lib: e.add_(1.0),
    "uniform_": lambda e, lib: e.uniform_(),
    "row zero_": lambda e, lib: e[0].zero_(),
    "row fill_tensor": lambda e, lib: e[0].fill_(lib.tensor(5.0)),
    "column zero_": lambda e, lib: e[:, 0].zero_(),
    "setitem row": lambda e, lib: e.__setitem__(0, 5.0),
    "setitem all": lambda e, lib: e.__setitem__(slice(None), 5.0),
    "setitem element": lambda e, lib: e.__setitem__((0, 1), 5.0),
    "setitem column": lambda e, lib: e.__setitem__((slice(None), 0), lib.tensor([7.0, 8.0])),
}


def expanded_write_requires_grad(lib: Any) -> Any:
    x = leaf(lib).reshape(2, 1) * 1
    e = x.expand(2, 3)
    e[:, 0] = 5.0
    return e.grad_fn, x.grad_fn, x


# ------------------------------------------------------------ results of autograd.grad


def grad_result_inplace(make: Callable[[Any, Any], Any]) -> Callable[[Any], Any]:
    """``g.add_(y)`` on the result ``g`` of ``autograd.grad(make(x, lib), x)``, where ``y``
    requires grad: an error where ``g`` is a view made in backward (no_grad), else fine."""

    def case(lib: Any) -> Any:
        x = lib.tensor([[0.5, 1.5, 2.0]], requires_grad=True)
        out = make(x, lib)
        (g,) = lib.autograd.grad(out, x, lib.ones_like(out))
        g.add_(lib.tensor([1.0, 2.0, 3.0], requires_grad=True))
        return g, g.grad_fn

    return case


GRAD_RESULTS: dict[str, Callable[[Any, Any], Any]] = {
    "prod": lambda x, lib: x.prod(),
    "prod of 0-dim": lambda x, lib: x[0, 0].prod(),
    "sum to 0-dim": lambda x, lib: x[0, 0] - lib.ones(2, 3),
    "reshape": lambda x, lib: x.reshape(3),
}


# ------------------------------------------------------------ retain_grad on changed views


def no_grad_view_retain_grad(lib: Any) -> Any:
    """torch's retain_grad() reads the stored grad_fn (None): a no-op, no error."""
    x = leaf(lib) * 1
    with lib.no_grad():
        (v,) = x.chunk(1)
    x.zero_()
    v.retain_grad()
    x.sum().backward()
    return v.retains_grad, v.grad


def retain_grad_after_regenerated_view(again: bool) -> Callable[[Any], Any]:
    """A second retain_grad() on a view whose base changed keeps the hook where it was."""

    def case(lib: Any) -> Any:
        x = leaf(lib) * 1
        v = x.view(-1)
        s = v.sum()
        if again:
            v.retain_grad()
        s.backward(retain_graph=True)
        with lib.no_grad():
            x.add_(0.5)
        v.retain_grad()
        s.backward()
        return v.grad, v.retains_grad, v.grad_fn

    return case


# ------------------------------------------------------------ multi-grad hooks


def multi_hook_captured_unreachable(lib: Any) -> Any:
    """Which nodes count as executed: a lone root and a captured node the pass cannot reach
    do not, so a mode="all" multi-grad hook waits for a gradient that never comes."""
    a, b = leaf(lib, (1.0, 2.0, 3.0, 4.0)), leaf(lib, (1.0, 2.0, 3.0, 4.0))
    c = a.add(b, alpha=0.5)
    first, second = c.split(3)
    other = c.exp().div(2.0)
    unused = leaf(lib)
    log: list[Any] = []
    nodes = {"split": first.grad_fn, "div": other.grad_fn, "add": c.grad_fn}
    will = lib._C._will_engine_execute_node if lib is torch else lib.engine.will_engine_execute_node
    first.register_hook(lambda g: log.append({k: will(n) for k, n in nodes.items()}))
    hook = logged(log, "multi")
    lib.autograd.graph.register_multi_grad_hook((unused, first, other), hook, mode="all")
    lib.autograd.grad([first], [a, b], lib.ones(3), allow_unused=True)
    lib.autograd.grad([second], [c, b, other], lib.ones(1), allow_unused=True)
    return log


def logged(log: list[Any], name: str) -> Callable[..., None]:
    return lambda *args: log.append((name, observe(args)))


# ------------------------------------------------------------ copy_ of a view from itself


def copy_from_itself(lib: Any) -> Any:
    """The view's grad_fn is regenerated on its base's CopySlices."""
    x = leaf(lib, (1.0, 2.0, 3.0)) * 2
    v = x[:2]
    v.copy_(v)
    copy_slices = x.grad_fn
    names = v.grad_fn, v.grad_fn.next_functions[0][0], copy_slices.next_functions
    x.sum().backward()
    return names


def copy_slices_released(lib: Any) -> Any:
    """A view's in-place op leaves the base on CopySlices; after a backward through it
    without retain_graph, a backward through the view again is an error (seed 5071)."""
    base = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    view = base.flatten()
    view.add_(leaf(lib, (1.0, 2.0, 3.0, 4.0)))
    base.backward(lib.ones(2, 2))
    view.backward(lib.ones(4))
    return view


CASES: dict[str, Callable[[Any], Any]] = {
    "copy_ node class": copy_backwards_name,
    "CopySlices and AccumulateGrad classes": copy_slices_name,
    "cat post-hook, backward": list_op_grads("cat", "backward"),
    "cat post-hook, grad": list_op_grads("cat", "grad"),
    "stack post-hook, backward": list_op_grads("stack", "backward"),
    "stack post-hook, grad": list_op_grads("stack", "grad"),
    **{f"expanded {name}": expanded_write(write) for name, write in EXPANDED_WRITES.items()},
    "expanded write, backward": expanded_write_backward,
    "expanded write, requires grad": expanded_write_requires_grad,
    **{f"grad result of {name}, add_": grad_result_inplace(f) for name, f in GRAD_RESULTS.items()},
    "retain_grad on a changed no_grad view": no_grad_view_retain_grad,
    "retain_grad again after regeneration": retain_grad_after_regenerated_view(True),
    "retain_grad first after regeneration": retain_grad_after_regenerated_view(False),
    "multi-grad hook, captured unreachable": multi_hook_captured_unreachable,
    "copy_ of a view from itself": copy_from_itself,
    "expand() without sizes": lambda lib: lib.ones(2).expand(),
    "CopySlices run twice": copy_slices_released,
}


@pytest.mark.parametrize("name", list(CASES))
def test_as_torch(name: str) -> None:
    case = CASES[name]
    assert outcome(case, hookgrad, first_line=True) == outcome(case, torch, first_line=True)
