"""``autograd.graph.saved_tensors_hooks``, ``save_on_cpu`` and
``disable_saved_tensors_hooks``: event logs of pack/unpack calls compared with torch."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad


def describe(t: Any) -> tuple[Any, ...]:
    """What a hook saw: shape, where it comes from, values (comparable across libraries)."""
    if t.grad_fn is not None:
        origin = t.grad_fn.name()
    else:
        origin = "leaf" if t.requires_grad else "constant"
    values = np.ravel(t.tolist()).astype(float).round(4).tolist()
    return (tuple(t.shape), origin, values)


def logging_hooks(lib: Any, log: list[Any], tag: str = "") -> Any:
    """Hooks that log each call; pack keeps a detached tensor, as the torch docs advise."""

    def pack(t: Any) -> Any:
        log.append(("pack" + tag, lib.is_grad_enabled(), *describe(t)))
        return t.detach()

    def unpack(t: Any) -> Any:
        log.append(("unpack" + tag, lib.is_grad_enabled(), *describe(t)))
        return t

    return lib.autograd.graph.saved_tensors_hooks(pack, unpack)


def leaf(lib: Any, values: list[float]) -> Any:
    return lib.tensor(values, requires_grad=True)


# ---------------------------------------------------------------- scenarios


def exp_saves_its_result(lib: Any, log: list[Any]) -> None:
    x = leaf(lib, [0.5, 1.0, 2.0])
    with logging_hooks(lib, log):
        y = x.exp()
    log.append("forward done")
    y.sum().backward()
    log.append(describe(x.grad))


def pow_saves_self(lib: Any, log: list[Any]) -> None:
    x = leaf(lib, [0.5, 1.0, 2.0])
    with logging_hooks(lib, log):
        y = x.pow(2).sum()
    log.append("forward done")
    y.backward()
    log.append(describe(x.grad))


def leaf_saved_by_two_nodes(lib: Any, log: list[Any]) -> None:
    x = leaf(lib, [0.5, 1.0])
    with logging_hooks(lib, log):
        y = x.sin() + x.cos() + x * x
    y.sum().backward()
    log.append(describe(x.grad))


def chain_with_a_sum(lib: Any, log: list[Any]) -> None:
    x = leaf(lib, [0.5, 1.0, 1.5])
    with logging_hooks(lib, log):
        y = (x.tanh().sigmoid().sqrt() - 1).relu().sum()
    y.backward()
    log.append(describe(x.grad))


def custom_function(lib: Any, log: list[Any]) -> None:
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            result = a * b
            ctx.save_for_backward(a, result, None, b)
            log.append("forward")
            return result

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            log.append("backward")
            a, result, none, b = ctx.saved_tensors
            log.append(("second access", none))
            assert len(ctx.saved_tensors) == 4
            return grad * b, None

    x = leaf(lib, [1.0, 2.0])
    w = lib.tensor([3.0, 4.0])
    with logging_hooks(lib, log):
        y = Scale.apply(x, w)
        log.append("applied")
        log.append(("accessed", describe(y.grad_fn.saved_tensors[1])))
        Scale.apply(w, w)  # not recorded: nothing saved, nothing packed
    y.sum().backward()
    log.append(describe(x.grad))


def retain_graph_and_access_between(lib: Any, log: list[Any]) -> None:
    x = leaf(lib, [0.5, 1.0])
    with logging_hooks(lib, log):
        y = x.pow(3)
        z = y.exp()
    log.append(("saved", describe(z.grad_fn._saved_result)))
    log.append(("saved", describe(y.grad_fn._saved_self)))
    z.sum().backward(retain_graph=True)
    log.append(("grad", describe(x.grad)))
    log.append(("saved", describe(y.grad_fn._saved_self)))
    z.sum().backward()
    log.append(("grad", describe(x.grad)))


def nested_hooks_innermost_wins(lib: Any, log: list[Any]) -> None:
    x = leaf(lib, [0.5, 1.0])
    with logging_hooks(lib, log, " outer"):
        a = x.exp()
        with logging_hooks(lib, log, " inner"):
            b = a.sin()
        c = b.cos()
    c.sum().backward()


def mul_saves_both(lib: Any, log: list[Any]) -> None:
    a = leaf(lib, [1.0, 2.0])
    b = leaf(lib, [3.0, 5.0])
    with logging_hooks(lib, log):
        y = a * b
    y.sum().backward()


def mul_by_a_number(lib: Any, log: list[Any]) -> None:
    x = leaf(lib, [1.0, 2.0])
    with logging_hooks(lib, log):
        y = (x * 2).exp()
    y.sum().backward()


SCENARIOS = [
    exp_saves_its_result,
    pow_saves_self,
    leaf_saved_by_two_nodes,
    chain_with_a_sum,
    custom_function,
    retain_graph_and_access_between,
    nested_hooks_innermost_wins,
]


def events(lib: Any, scenario: Callable[[Any, list[Any]], None]) -> list[Any]:
    log: list[Any] = []
    scenario(lib, log)
    return log


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_pack_and_unpack_calls_match_torch(torch: Any, scenario: Any) -> None:
    ours = events(hookgrad, scenario)
    assert any(isinstance(e, tuple) and e[0].startswith("pack") for e in ours)
    assert ours == events(torch, scenario)


@pytest.mark.parametrize("scenario", [mul_saves_both, mul_by_a_number], ids=lambda s: s.__name__)
def test_mul_saves_as_torch(torch: Any, scenario: Any) -> None:
    assert events(hookgrad, scenario) == events(torch, scenario)


# ---------------------------------------------------------------- what each op saves

# name: (input shapes, the call). Each case runs with every input requiring a gradient,
# then with one input at a time, since torch saves a value only for the gradients using it.
SAVING_OPS: dict[str, tuple[tuple[tuple[int, ...], ...], Callable[..., Any]]] = {
    "mul": (((2,), (2,)), lambda lib, a, b: a * b),
    "mul_broadcast": (((2, 1), (3,)), lambda lib, a, b: a * b),
    "div": (((2,), (2,)), lambda lib, a, b: a / b),
    "div_by_a_number": (((2,),), lambda lib, a: a / 2),
    "number_div": (((2,),), lambda lib, a: 2 / a),
    "maximum": (((2,), (2,)), lambda lib, a, b: lib.maximum(a, b)),
    "pow": (((2,), (2,)), lambda lib, a, b: a**b),
    "number_pow": (((2,),), lambda lib, a: 2**a),
    "zero_pow": (((2,),), lambda lib, a: lib.pow(0, a * 4 - 2)),  # exponents -1, 0
    "vdot": (((2,), (2,)), lambda lib, a, b: lib.vdot(a, b)),
    "dot": (((2,), (2,)), lambda lib, a, b: lib.dot(a, b)),
    "mm": (((2, 3), (3, 2)), lambda lib, a, b: a.mm(b)),
    "bmm": (((2, 2, 3), (2, 3, 2)), lambda lib, a, b: a.bmm(b)),
    "mv": (((2, 3), (3,)), lambda lib, a, b: a.mv(b)),
    "matmul": (((2, 3), (3, 2)), lambda lib, a, b: a @ b),
    "matmul_batched": (((2, 2, 3), (2, 3, 2)), lambda lib, a, b: a @ b),
    "addmm": (((2, 2), (2, 3), (3, 2)), lambda lib, c, a, b: lib.addmm(c, a, b, alpha=2)),
    "addmv": (((2,), (2, 3), (3,)), lambda lib, c, a, b: lib.addmv(c, a, b)),
    "baddbmm": (((2, 2, 2), (2, 2, 3), (2, 3, 2)), lambda lib, c, a, b: lib.baddbmm(c, a, b)),
    "addr": (((2, 3), (2,), (3,)), lambda lib, c, a, b: lib.addr(c, a, b)),
    "gather": (((2, 3),), lambda lib, a: a.gather(1, lib.tensor([[2, 0], [1, 1]]))),
    "take": (((2, 3),), lambda lib, a: a.take(lib.tensor([4, 0, 4]))),
    "scatter_add": (((3,), (2,)), lambda lib, a, b: a.scatter_add(0, lib.tensor([2, 0]), b)),
    "index_add": (((3,), (2,)), lambda lib, a, b: a.index_add(0, lib.tensor([2, 0]), b)),
    "masked_select": (((2, 2),), lambda lib, a: a.masked_select(lib.tensor([True, False]))),
    "remainder": (((2,), (2,)), lambda lib, a, b: a % b),
}


def saving_cases() -> list[Any]:
    cases = []
    for name, (shapes, _) in SAVING_OPS.items():
        patterns = [(True,) * len(shapes)]
        if len(shapes) > 1:
            patterns += [tuple(i == k for i in range(len(shapes))) for k in range(len(shapes))]
        for needs in patterns:
            ids = "".join("T" if need else "F" for need in needs)
            cases.append(pytest.param(name, needs, id=f"{name}-{ids}"))
    return cases


def op_saving(name: str, needs: tuple[bool, ...]) -> Callable[[Any, list[Any]], None]:
    shapes, call = SAVING_OPS[name]

    def scenario(lib: Any, log: list[Any]) -> None:
        inputs = []
        for k, (shape, need) in enumerate(zip(shapes, needs)):
            values = (np.arange(np.prod(shape)).reshape(shape) + 1) / 4 + k
            inputs.append(lib.tensor(values.tolist(), dtype=lib.float64, requires_grad=need))
        with logging_hooks(lib, log):
            y = call(lib, *inputs)
        log.append(("forward done", y.grad_fn.name()))
        y.sum().backward()
        log.extend(describe(x.grad) for x in inputs if x.requires_grad)

    return scenario


@pytest.mark.parametrize(("name", "needs"), saving_cases())
def test_ops_save_what_torch_saves_in_its_order(
    torch: Any, name: str, needs: tuple[bool, ...]
) -> None:
    scenario = op_saving(name, needs)
    assert events(hookgrad, scenario) == events(torch, scenario)


def test_double_backward_through_packed_tensors(torch: Any) -> None:
    def grads(lib: Any, hooked: bool) -> list[Any]:
        x = leaf(lib, [0.5, 1.0])
        with logging_hooks(lib, []) if hooked else contextlib.nullcontext():
            y = (x.pow(3) * x.exp()).sum()
            (grad,) = lib.autograd.grad(y, x, create_graph=True)
            grad.sum().backward()
        return describe(grad) + describe(x.grad)

    assert grads(hookgrad, True) == grads(hookgrad, False) == grads(torch, True)


def test_gradients_with_hooks_equal_those_without(torch: Any) -> None:
    def grads(lib: Any, hooked: bool) -> list[float]:
        x = leaf(lib, [0.3, 0.6, 0.9])
        w = leaf(lib, [1.5, -0.5, 2.0])
        log: list[Any] = []
        with logging_hooks(lib, log) if hooked else contextlib.nullcontext():
            y = ((x * w).tanh() @ w.exp() + x.pow(3).sum()).sigmoid()
        y.backward()
        return [round(g, 5) for g in x.grad.tolist() + w.grad.tolist()]

    assert grads(hookgrad, True) == grads(hookgrad, False) == grads(torch, True)


# ---------------------------------------------------------------- scope


def test_hooks_are_per_thread() -> None:
    packed: list[Any] = []
    x = leaf(hookgrad, [1.0, 2.0])
    other_thread: list[Any] = []
    with hookgrad.autograd.graph.saved_tensors_hooks(packed.append, lambda p: p):
        thread = threading.Thread(target=lambda: other_thread.append(x.exp()))
        thread.start()
        thread.join()
        x.sin()
    assert len(packed) == 1
    assert other_thread[0].grad_fn._saved_result.equal(x.exp())


def test_exception_in_pack_hook_leaves_no_state_behind() -> None:
    def pack(t: Any) -> Any:
        raise ValueError("no room")

    x = leaf(hookgrad, [1.0])
    with pytest.raises(ValueError, match="no room"):
        with hookgrad.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
            x.exp()
    assert hookgrad.is_grad_enabled()
    y = x.exp()
    assert y.grad_fn._saved_result.equal(y)


def test_non_callable_hooks_are_rejected_on_enter(torch: Any) -> None:
    for lib in (hookgrad, torch):
        with pytest.raises(TypeError, match="incompatible function arguments"):
            with lib.autograd.graph.saved_tensors_hooks(1, 2):
                pass


# ---------------------------------------------------------------- save_on_cpu


@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu_keeps_the_tensor_or_a_copy_as_torch(torch: Any, pin_memory: bool) -> None:
    for lib in (hookgrad, torch):
        hooks = lib.autograd.graph.save_on_cpu(pin_memory=pin_memory)
        x = lib.tensor([1.0, 2.0])
        device, packed = hooks.pack_hook(x)
        assert (packed is x) != pin_memory
        assert packed.equal(x) and str(device) == "cpu"
        assert hooks.unpack_hook((device, packed)) is packed


def test_save_on_cpu_gradients_match_torch(torch: Any) -> None:
    grads = []
    for lib in (hookgrad, torch):
        x = leaf(lib, [0.5, 1.0, 1.5])
        with lib.autograd.graph.save_on_cpu(pin_memory=True):
            y = (x.exp() * x).sum()
        y.backward()
        grads.append([round(g, 4) for g in x.grad.tolist()])
    assert grads[0] == grads[1]


# ---------------------------------------------------------------- disable_saved_tensors_hooks


def disabled_cases(lib: Any) -> list[Callable[[], Any]]:
    graph = lib.autograd.graph
    x = leaf(lib, [1.0, 2.0])

    def entering_hooks() -> Any:
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with graph.saved_tensors_hooks(abs, abs):
                pass

    def saving_under_outer_hooks() -> Any:
        with graph.saved_tensors_hooks(abs, abs):
            with graph.disable_saved_tensors_hooks("no hooks here"):
                x.exp()

    def outer_message_after_inner_exit() -> Any:
        with graph.disable_saved_tensors_hooks("outer"):
            with graph.disable_saved_tensors_hooks("inner"):
                pass
            with graph.save_on_cpu():
                pass

    def register_hooks_still_works() -> Any:
        with graph.disable_saved_tensors_hooks("no hooks here"):
            y = x.exp()
            y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
            return describe(y.grad_fn._saved_result)

    def enabled_again_after_exit() -> Any:
        with graph.disable_saved_tensors_hooks("no hooks here"):
            pass
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            return describe(x.exp().grad_fn._saved_result)

    return [entering_hooks, saving_under_outer_hooks, outer_message_after_inner_exit,
            register_hooks_still_works, enabled_again_after_exit]  # fmt: skip


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("returned", fn())
    except Exception as error:  # noqa: BLE001 (the outcome is compared with torch's)
        return (type(error).__name__, str(error))


@pytest.mark.parametrize("case", range(len(disabled_cases(hookgrad))))
def test_disable_saved_tensors_hooks_as_torch(torch: Any, case: int) -> None:
    ours = outcome(disabled_cases(hookgrad)[case])
    assert ours == outcome(disabled_cases(torch)[case])
    x = leaf(hookgrad, [1.0])
    with hookgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        x.exp()  # hooks work again afterwards
