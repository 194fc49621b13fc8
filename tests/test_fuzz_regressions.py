"""Disagreements with torch 2.13 that the differential fuzzer (``tests/fuzz``) found, each
reduced to a small program run on both libraries and compared.

Each case is ``case(lib)`` returning what it observed (values, node class names and
``name()`` strings, hook arguments); an exception is an observation too (type and
message). The test runs it on torch and on hookgrad and compares the observations.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import hookgrad
from tests.oracle import observe, outcome


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


# ------------------------------------------------------------ double-backward graphs


def graph(node: Any, depth: int = 6) -> Any:
    """The graph under ``node`` as nested ``(name, children)``, to ``depth`` levels."""
    if node is None or depth == 0:
        return None if node is None else node.name()
    return (node.name(), [graph(child, depth - 1) for child, _ in node.next_functions])


def double_backward(make: Callable[[Any, Any], Any]) -> Callable[[Any], Any]:
    """The graph ``autograd.grad(make(v, lib), v, create_graph=True)`` records, for ``v``
    a non-leaf (so its node is not in the graph), and the values of a second pass."""

    def case(lib: Any) -> Any:
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        v = x * 1
        out = make(v, lib)
        seed = lib.ones_like(out).requires_grad_()
        (g,) = lib.autograd.grad(out, v, seed, create_graph=True)
        g.pow(2).sum().backward()
        return graph(g.grad_fn), g, seed.grad

    return case


DOUBLE_BACKWARDS: dict[str, Callable[[Any, Any], Any]] = {
    # torch's unsqueeze_to: no node when squeeze removed nothing (seed 2641)
    "squeeze() of no size-1 dim": lambda v, lib: v.squeeze(),
    "squeeze() of size-1 dims": lambda v, lib: v.reshape(2, 1, 3, 1).squeeze(),
    "squeeze(dim)": lambda v, lib: v.reshape(1, 2, 3).squeeze(0),
    "squeeze(dims)": lambda v, lib: v.reshape(1, 2, 1, 3).squeeze((0, 2, 3)),
    # DiagonalBackwardBackward0, as select's and slice's
    "diagonal": lambda v, lib: v.diagonal(1),
    # torch's repeat_backward: sums of a reshape, no view after them
    "repeat": lambda v, lib: v.repeat(2, 1, 3),
    "repeat once": lambda v, lib: v.repeat(1, 1),
    "repeat with 0": lambda v, lib: v.repeat(0, 2),
    # var's formula, seed 1112 (that program's node differs by its hooks, a known entry)
    "var(dim)": lambda v, lib: v.var(0),
    "var()": lambda v, lib: v.var(),
}


def inplace_on_view_double_backward(
    view: Callable[[Any], Any], change: Callable[[Any, Any], Any]
) -> Callable[[Any], Any]:
    """CopySlices under create_graph records torch's steps: a CopyBackwards into a new
    tensor, an AsStridedBackward0 view of it, a CloneBackward0, the op's double backward,
    and a CopySlices (seed 4148); values of a second pass through it."""

    def case(lib: Any) -> Any:
        a = leaf(lib, (1.5, 0.5, 2.0, 4.0))
        w = leaf(lib, (0.5, 2.0))
        b = a / lib.tensor([1.5, 0.8, 1.0, 2.0])
        change(view(b), w)
        seed = lib.tensor([0.2, -0.6, 1.0, 2.0], requires_grad=True)
        grads = lib.autograd.grad(b, [a, w], seed, create_graph=True)
        (grads[0].pow(2).sum() + grads[1].sum()).backward()
        return [graph(g.grad_fn) for g in grads], grads, seed.grad, a.grad, w.grad

    return case


def stale_view_double_backward(change: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A view whose base changed in place regenerates an AsStridedBackward0; under
    create_graph its backward (as_strided_backward) squeezes size-1 dims, copies into
    zeros laid out as the base (CopySlices) and returns an as_strided view (seed 6709)."""

    def case(lib: Any) -> Any:
        a = leaf(lib, (1.0, 2.0, 3.0, 4.0))
        base = a * 1
        view = base.view(2, 1, 2)[1]
        change(base)
        seed = lib.tensor([[0.5, -1.5]], requires_grad=True)
        out = view * lib.tensor([[2.0, 3.0]])
        (g,) = lib.autograd.grad(out, a, seed, create_graph=True)
        g.pow(2).sum().backward()
        return graph(view.grad_fn), graph(g.grad_fn, 8), g, seed.grad

    return case


def inplace_saving_self(change: Callable[[Any, Any], Any]) -> Callable[[Any], Any]:
    """An in-place op whose node saves ``self`` saves torch's "original self", a clone
    (CloneBackward0) of the old value, while its edge stays the old history (seed 8939)."""

    def case(lib: Any) -> Any:
        a = leaf(lib, (1.5, 0.5))
        w = leaf(lib, (0.5, 2.0))
        b = a * 1
        change(b, w)
        saved = b.grad_fn._saved_self
        (gw,) = lib.autograd.grad(b, w, lib.ones(2), create_graph=True)
        return graph(b.grad_fn), graph(saved.grad_fn), graph(gw.grad_fn)

    return case


SAVING_SELF: dict[str, Callable[[Any, Any], Any]] = {
    "mul_": lambda b, w: b.mul_(w),
    "div_": lambda b, w: b.div_(w),
    "pow_": lambda b, w: b.pow_(w),
    "sin_": lambda b, w: b.add_(w).sin_(),
    "clamp_": lambda b, w: b.mul_(w).clamp_(0.6, 1.2),
}


def result_saved_on_a_view(stale: bool) -> Callable[[Any], Any]:
    """``exp_`` on a view saves its result as torch's in-place-on-view saved variable: it
    unpacks as an output of the view's regenerated AsStridedBackward0, and a later change
    names that node (seed 18767)."""

    def case(lib: Any) -> Any:
        a = leaf(lib, (0.5, 1.0, 1.5, 2.0))
        x = a * 1
        v = x[1:3]
        v.exp_()
        seed = lib.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
        (g,) = lib.autograd.grad(x, a, seed, create_graph=True)
        if stale:
            v.mul_(2)
        g.sum().backward()
        return graph(g.grad_fn, 8), g, seed.grad, a.grad

    return case


VIEWS: dict[str, Callable[[Any], Any]] = {
    "slice": lambda b: b[1:3],
    "strided slice": lambda b: b[::2],
    "select of a view": lambda b: b.view(2, 2)[0],
    "transposed": lambda b: b.view(2, 2).t()[1],
}
CHANGES: dict[str, Callable[[Any, Any], Any]] = {
    "add_": lambda v, w: v.add_(w),
    "copy_": lambda v, w: v.copy_(w),
    "setitem": lambda v, w: v.__setitem__(0, w[1]),
}


# ------------------------------------------------------------ []= through views of None


def setitem_none_key(grad: bool) -> Callable[[Any], Any]:
    """``x[None, 0] = x`` copies ``x`` onto itself: the view has torch's strides, not
    NumPy's stride 0 for the None dim (seeds 5558, 9200)."""

    def case(lib: Any) -> Any:
        x = lib.tensor([[1.5]], requires_grad=grad)
        x = x * 1 if grad else x
        x[None, 0] = x
        y = lib.tensor([2.5, 3.5, 4.5])
        y[None, ..., None] = 5.0
        z = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=grad)
        z = z * 1 if grad else z
        z[:, None] = z[:, None] * 2
        return x, x.grad_fn, y, z, z.grad_fn

    return case


def setitem_from_own_element(grad: bool, index: Any) -> Callable[[Any], Any]:
    """``x[:3] = x[1]``: fill_ from a view of the tensor itself (torch clones the value;
    seed 6364), and ``fill_``'s node keeps the view's old edge."""

    def case(lib: Any) -> Any:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=grad)
        x = x * 1 if grad else x
        with lib.set_grad_enabled(grad):
            x[index] = x[1]
            x.fill_(x[2] * 1 if index == 0 else x[0])
        names = None if x.grad_fn is None else graph(x.grad_fn, 3)
        return x, names

    return case


# ------------------------------------------------------------ elementwise results' layout


def layouts(lib: Any) -> Any:
    """torch's TensorIterator lays a result out as the first operand that decides (NumPy
    lets C order win): strides of binary, comparison and erf results (seeds 6644, 6854)."""
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).t()  # (3, 2), strides (1, 3)
    y = lib.tensor([[1.0, 0.5], [2.0, 1.5], [0.5, 3.0]])
    row = lib.tensor([[7.0, 8.0]])
    col = lib.tensor([[1.0], [2.0], [3.0]]).expand(3, 2)
    results = [
        x + y, y + x, x - row, row * x, x / col, col - x, x.pow(y), lib.maximum(y, x),
        lib.where(x > 2, x, y), x < y, y == x, x.erf(), x.erfc(), (x / 9).erfinv(),
        lib.minimum(x.unsqueeze(0), y.unsqueeze(1)),
    ]  # fmt: skip
    return [(r.stride(), r) for r in results]


def view_of_broadcast_difference(lib: Any) -> Any:
    """Seed 6644: ``expanded - contiguous`` is laid out as the expanded operand's dims,
    so its ``view(-1)`` is refused, as torch refuses it."""
    a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]).t()
    b = a.expand(2, 3, 3) - lib.ones(2, 3, 3, requires_grad=True)
    return b.stride(), b.view(-1)


def reshape_of_erf(lib: Any) -> Any:
    """Seed 6854: erf of a transposed tensor is laid out transposed, so reshape copies
    (UnsafeViewBackward0 after CloneBackward0) rather than viewing."""
    t = leaf(lib, (1.0, 2.0, 3.0, 4.0)).view(2, 2).t()
    out = t.erf().reshape(4)
    return out, out.grad_fn, out.grad_fn.next_functions[0][0]


# ------------------------------------------------------------ wrapped numbers


def number_operand_under_create_graph(op: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Seed 6709: a formula on tensors reads a saved Python number (``x / 2.0``'s
    ``other``) as torch's wrapped number, which promotion treats as the number: a 0-dim
    float32 gradient stays float32, and the gradient's node is the formula's own (no
    ToCopyBackward0 casting a float64 result back)."""

    def case(lib: Any) -> Any:
        x = lib.tensor(3.0, requires_grad=True)
        seed = lib.tensor(0.5, requires_grad=True)
        (g,) = lib.autograd.grad(op(x), x, seed, create_graph=True)
        (gg,) = lib.autograd.grad(g, seed)
        return g, g.grad_fn, [node for node, _ in g.grad_fn.next_functions], gg

    return case


NUMBER_OPERANDS = {
    "x / 2.0": lambda x: x / 2.0,
    "x.div_(2.0)": lambda x: (x * x).div_(2.0),
    "x * 3": lambda x: x * 3,
    "2.5 / x": lambda x: 2.5 / x,
    "x ** 2.0": lambda x: x**2.0,
}


# ------------------------------------------------------------ leaf check on stale views


def inplace_on_stale_view_of_new_leaf(read_first: bool) -> Callable[[Any], Any]:
    """Seed 8035: ``base`` came to require grad through another view's in-place op. A view
    made before has no stored grad_fn, and torch's check reads the stored one: a leaf,
    unless reading ``grad_fn`` first regenerated it."""

    def case(lib: Any) -> Any:
        base = lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        early = base.view(3, 2, 1)
        base.view(6).mul_(leaf(lib, (0.5,)))
        if read_first:
            early.grad_fn  # noqa: B018 (reading it regenerates it)
        early.clamp_(min=-0.3, max=2.0)
        return early, early.grad_fn, base.grad_fn

    return case


# ------------------------------------------------------------ index_put_ into expanded


def expanded_index_put(write: Callable[[Any, Any], Any], grad: bool) -> Callable[[Any], Any]:
    """Seed 8667: torch writes the selected elements of an expanded tensor (their shared
    memory, the last value written staying) with a deprecation warning, under no_grad
    too; a bool-mask write warns again as masked_fill_."""

    def case(lib: Any) -> Any:
        base = lib.tensor([[1.0], [2.0]], requires_grad=grad)
        e = (base * 1 if grad else base).expand(2, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.set_grad_enabled(grad):
                write(e, lib)
        messages = [str(w.message).split(".")[0] for w in caught]
        return e, e._version, e.grad_fn, messages

    return case


EXPANDED_INDEX_PUTS: dict[str, Callable[[Any, Any], Any]] = {
    "list index": lambda e, lib: e.__setitem__(([1, 0], Ellipsis), 0.5),
    "part of a row": lambda e, lib: e.__setitem__((0, [0]), 9.0),
    "values": lambda e, lib: e.__setitem__([1], lib.tensor([[7.0, 8.0, 9.0]])),
    "mask": lambda e, lib: e.__setitem__(lib.tensor([True, False]), 4.0),
    "index_put_": lambda e, lib: e.index_put_((lib.tensor([1]),), lib.tensor(3.0)),
    "index_put_ accumulate": lambda e, lib: e.index_put_(
        (lib.tensor([1]), lib.tensor([0, 2])), lib.tensor(3.0), accumulate=True
    ),
    "masked_fill_": lambda e, lib: e.masked_fill_(lib.tensor([True, False, True]), 3.0),
}


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
    **{f"double backward of {n}": double_backward(f) for n, f in DOUBLE_BACKWARDS.items()},
    **{
        f"double backward of {c} on a {v}": inplace_on_view_double_backward(view, change)
        for v, view in VIEWS.items()
        for c, change in CHANGES.items()
    },
    "double backward of a regenerated view": stale_view_double_backward(lambda b: b.mul_(2)),
    "double backward of a view regenerated twice": stale_view_double_backward(
        lambda b: b.add_(1).sin_()
    ),
    **{f"{n} saves the original self": inplace_saving_self(f) for n, f in SAVING_SELF.items()},
    "exp_ on a view, double backward": result_saved_on_a_view(False),
    "exp_ on a view, changed again": result_saved_on_a_view(True),
    "[None, 0]= of itself": setitem_none_key(False),
    "[None, 0]= of itself, requires grad": setitem_none_key(True),
    "[:3]= of its own element": setitem_from_own_element(False, slice(3)),
    "[:3]= of its own element, requires grad": setitem_from_own_element(True, slice(3)),
    "[0]= of its own element, requires grad": setitem_from_own_element(True, 0),
    "elementwise layouts": layouts,
    "view of a broadcast difference": view_of_broadcast_difference,
    "reshape of erf": reshape_of_erf,
    **{
        f"{name} under create_graph": number_operand_under_create_graph(op)
        for name, op in NUMBER_OPERANDS.items()
    },
    "in-place on a stale view of a new leaf": inplace_on_stale_view_of_new_leaf(False),
    "in-place on a regenerated view of a new leaf": inplace_on_stale_view_of_new_leaf(True),
    **{
        f"expanded {name}{', requires grad' if grad else ''}": expanded_index_put(write, grad)
        for name, write in EXPANDED_INDEX_PUTS.items()
        for grad in (False, True)
    },
}


@pytest.mark.parametrize("name", list(CASES))
def test_as_torch(name: str) -> None:
    case = CASES[name]
    assert outcome(case, hookgrad, first_line=True) == outcome(case, torch, first_line=True)
