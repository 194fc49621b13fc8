"""Corner cases of ``requires_grad``, ``grad_fn`` and hooks, run on torch and on hookgrad.

Each case is one function ``case(lib)`` returning what it observed (values, node names,
hook calls in order); an exception is an observation too (type and message). The test
runs every case on both libraries and compares the observations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import hookgrad
from tests.oracle import observe, outcome


def leaf(lib: Any, data: Any = (1.0, 2.0)) -> Any:
    return lib.tensor(list(data), requires_grad=True)


def logger(log: list[Any], name: str) -> Callable[..., None]:
    """A hook that records ``(name, what it received)``."""
    return lambda *args: log.append((name, observe(args[0] if len(args) == 1 else args)))


# ------------------------------------------------------------ 1. views made under no_grad


def no_grad_view_of_leaf(lib: Any) -> Any:
    a = leaf(lib, (1.0, 2.0, 3.0))
    with lib.no_grad():
        v = a[:2]
    return v.requires_grad, v.grad_fn, v.is_leaf, v._base is a, v._is_view()


def no_grad_view_modified_in_place(lib: Any) -> Any:
    a = leaf(lib, (1.0, 2.0, 3.0))
    with lib.no_grad():
        v = a.view(3)
    v.mul_(2)


def no_grad_view_after_base_changed(lib: Any) -> Any:
    b = leaf(lib) * 2
    with lib.no_grad():
        v = b[1:]
    b.add_(1)
    return v.requires_grad, v.grad, v * 2


def no_grad_view_changed_in_no_grad(lib: Any) -> Any:
    a = leaf(lib, (1.0, 2.0, 3.0))
    with lib.no_grad():
        v = a[:2]
        v.mul_(2)
    return v.grad_fn


def no_grad_view_detach_and_flags(lib: Any) -> Any:
    a = leaf(lib, (1.0, 2.0, 3.0))
    with lib.no_grad():
        v = a[:2]
    kept = v.requires_grad_(False).requires_grad
    v.requires_grad = False
    v.requires_grad_(True)
    (g,) = lib.autograd.grad((v * 2).sum(), v)
    return kept, v.is_leaf, g, v.detach().requires_grad, v.detach()._is_view()


# ------------------------------------------------------------ 2. multi-grad hooks


def multi_grad_hook_case(mode: str, run: str) -> Callable[[Any], Any]:
    def case(lib: Any) -> Any:
        log: list[Any] = []
        a = leaf(lib)
        u = leaf(lib, (5.0,))
        b = a * 2
        c = b.sum()
        d = (u * 3).sum()
        lib.autograd.graph.register_multi_grad_hook((c, b, a, u), logger(log, "multi"), mode=mode)
        for name, tensor in (("c", c), ("b", b), ("a", a), ("u", u)):
            tensor.register_hook(logger(log, name))
        if run == "backward":
            c.backward(retain_graph=True)
            c.backward()
        elif run == "inputs":
            c.backward(inputs=[a])
        elif run == "grad":
            lib.autograd.grad(c, b)
        elif run == "two roots":
            lib.autograd.backward([c, d])
        elif run == "seeded root":
            c.backward(lib.tensor(5.0))
        return log

    return case


def multi_grad_hook_on_leaf_root(mode: str) -> Callable[[Any], Any]:
    def case(lib: Any) -> Any:
        log: list[Any] = []
        x = lib.tensor(2.0, requires_grad=True)
        lib.autograd.graph.register_multi_grad_hook((x,), logger(log, "multi"), mode=mode)
        x.register_hook(logger(log, "x"))
        x.backward()
        return log, x.grad

    return case


def multi_grad_hook_not_requiring_grad(lib: Any) -> Any:
    lib.autograd.graph.register_multi_grad_hook((leaf(lib), lib.ones(1)), lambda g: None)


# ------------------------------------------------------------ 3. backward(inputs=...)


def backward_inputs_case(inputs: str, retain: bool) -> Callable[[Any], Any]:
    def case(lib: Any) -> Any:
        log: list[Any] = []
        a = leaf(lib)
        d = leaf(lib)
        b = a * 2
        c = b.sum()
        for name, tensor in (("c", c), ("b", b), ("a", a)):
            tensor.register_hook(logger(log, name))
        c.grad_fn.register_prehook(logger(log, "c-pre"))
        if retain:
            c.retain_grad()
        chosen = {"c": [c], "c, a": [c, a], "b": [b], "unused": [d]}[inputs]
        c.backward(inputs=chosen, retain_graph=True)
        c.backward(inputs=chosen)
        return log, c.grad, c.retains_grad, b.grad, b.retains_grad, a.grad, d.grad

    return case


def backward_inputs_unused_two_roots(lib: Any) -> Any:
    log: list[Any] = []
    a, d = leaf(lib), leaf(lib)
    c, e = (a * 2).sum(), (a * 3).sum()
    c.register_hook(logger(log, "c"))
    c.retain_grad()
    lib.autograd.backward([c, e], inputs=[d])
    return log, c.grad


def grad_of_unused_input_runs_root_hooks(lib: Any) -> Any:
    log: list[Any] = []
    a, d = leaf(lib), leaf(lib)
    c = (a * 2).sum()
    c.register_hook(logger(log, "c"))
    return lib.autograd.grad(c, d, allow_unused=True), log


# ------------------------------------------------------------ 4. post-accumulate-grad hooks


def post_accumulate_returning(result: str) -> Callable[[Any], Any]:
    def case(lib: Any) -> Any:
        p = leaf(lib)
        choices: dict[str, Callable[[Any], Any]] = {
            "optimizer step": lambda t: t.add_(t.grad, alpha=-0.1),
            "itself": lambda t: t,
            "a number": lambda t: 5,
            "a tuple": lambda t: (t,),
            "a new tensor": lambda t: lib.zeros(2),
            "a wrong shape": lambda t: lib.zeros(3),
            "a wrong dtype": lambda t: lib.zeros(2, dtype=lib.float64),
        }
        hook = choices[result]
        hook.__name__ = "step"
        p.register_post_accumulate_grad_hook(hook)
        (p * 3).sum().backward()
        return p, p.grad, p._version

    return case


def post_accumulate_result_passed_on(lib: Any) -> Any:
    p = leaf(lib)
    seen: list[Any] = []
    p.register_post_accumulate_grad_hook(lambda t: lib.ones(2) * 7)
    p.register_post_accumulate_grad_hook(lambda t: t)
    p.register_post_accumulate_grad_hook(lambda t: seen.append((t is p, observe(t))))
    try:
        (p * 3).sum().backward()
    except RuntimeError as error:
        return str(error), seen, p.grad
    return None


# ------------------------------------------------------------ 5. grad(materialize_grads=True)


def materialize_case(**kwargs: Any) -> Callable[[Any], Any]:
    def case(lib: Any) -> Any:
        x = leaf(lib)
        u = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = (x * 2).sum()
        options = {key: value for key, value in kwargs.items() if key != "batched"}
        if kwargs.get("batched"):
            return lib.autograd.grad(y, [x, u], lib.ones(3), is_grads_batched=True, **options)
        return lib.autograd.grad(y, [x, u], **options)

    return case


def grad_with_dict_inputs(lib: Any) -> Any:
    x, u = leaf(lib), leaf(lib)
    return lib.autograd.grad((x * x).sum(), {"x": x, "u": u}, materialize_grads=True)


def grad_batched_second_order(lib: Any) -> Any:
    x = leaf(lib)
    (g,) = lib.autograd.grad((x**3).sum(), x, create_graph=True)
    return lib.autograd.grad(g, x, lib.eye(2), is_grads_batched=True)


# ------------------------------------------------------------ 6. inference tensors


def inference_flags(lib: Any) -> Any:
    x = lib.ones(2)
    with lib.inference_mode():
        i = lib.ones(2)
        j = x * 2
    with lib.inference_mode(False):
        m = lib.ones(2)
    return (
        lib.is_inference(x),
        lib.is_inference(i),
        i.is_inference(),
        j.is_inference(),
        m.is_inference(),
        i.detach().is_inference(),
        i.clone().is_inference(),
        (i * 2).is_inference(),
    )


def is_inference_of_a_number(lib: Any) -> Any:
    return lib.is_inference(1.0)


# ------------------------------------------------------------ 7. detach_()


def detach_saved_input(lib: Any) -> Any:
    b = leaf(lib) * 1
    c = (b * b).sum()
    b.detach_()
    observed = (b.requires_grad, b.grad_fn, b.is_leaf, b._version)
    c.backward()
    return observed


def detach_saved_input_through_grad(lib: Any) -> Any:
    a = leaf(lib)
    b = a * 1
    c = (b * b).sum()
    b.detach_()
    return lib.autograd.grad(c, a)


def detach_saved_output(lib: Any) -> Any:
    a = leaf(lib)
    b = a.exp()
    c = (b * 2).sum()
    b.detach_()
    c.backward()
    return a.grad


def detach_saved_by_function(lib: Any) -> Any:
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * x

    a = leaf(lib)
    b = a * 1
    c = Twice.apply(b).sum()
    b.detach_()
    c.backward()
    return a.grad


def leaf_detached_after_use(how: str) -> Callable[[Any], Any]:
    def case(lib: Any) -> Any:
        log: list[Any] = []
        a = leaf(lib)
        a.register_hook(logger(log, "hook"))
        a.register_post_accumulate_grad_hook(lambda t: log.append(("post", observe(t.grad))))
        c = (a * a).sum()
        if how == "detach_":
            a.detach_()
        else:
            a.requires_grad_(False)
        c.backward()
        return log, a.grad

    return case


def detach_view_in_place(lib: Any) -> Any:
    a = leaf(lib, (1.0, 2.0, 3.0))
    a[:1].detach_()


# ------------------------------------------------------------ 8. Variable


def variable_alias(lib: Any) -> Any:
    Variable = lib.autograd.Variable
    t = lib.tensor([1.0, 2.0])
    a = leaf(lib)
    b = a * 2
    v = Variable(t)
    w = Variable(t, requires_grad=True)
    v.add_(1)
    return (
        isinstance(t, Variable),
        isinstance(1, Variable),
        v is t,
        v.requires_grad,
        t,
        t._version,
        w.requires_grad,
        w.is_leaf,
        t.requires_grad,
        Variable(b).requires_grad,
        Variable(b, True).grad_fn,
        Variable(a).requires_grad,
        Variable().shape,
    )


def variable_of_a_list(lib: Any) -> Any:
    return lib.autograd.Variable([1.0, 2.0])


def variable_of_integers_requiring_grad(lib: Any) -> Any:
    return lib.autograd.Variable(lib.tensor([1]), requires_grad=True)


# ------------------------------------------------------------ 9. small ones


def leaf_in_place_under_no_grad(lib: Any) -> Any:
    a = leaf(lib)
    with lib.no_grad():
        same = a.mul_(2) is a
        a.zero_()
        a[0] = 5
    return same, a.grad_fn, a.is_leaf, a.requires_grad, a._version, a


def retain_grad_on_leaf(lib: Any) -> Any:
    a = leaf(lib)
    a.retain_grad()
    a.retain_grad()
    (a * 2).sum().backward()
    return a.retains_grad, a.grad


CASES: dict[str, Callable[[Any], Any]] = {
    "no_grad view of a leaf": no_grad_view_of_leaf,
    "no_grad view modified in place": no_grad_view_modified_in_place,
    "no_grad view after its base changed": no_grad_view_after_base_changed,
    "no_grad view changed under no_grad": no_grad_view_changed_in_no_grad,
    "no_grad view: requires_grad flags and detach": no_grad_view_detach_and_flags,
    "multi-grad hook on a leaf root (any)": multi_grad_hook_on_leaf_root("any"),
    "multi-grad hook on a leaf root (all)": multi_grad_hook_on_leaf_root("all"),
    "multi-grad hook on a tensor without grad": multi_grad_hook_not_requiring_grad,
    "backward(inputs=) unused, two roots": backward_inputs_unused_two_roots,
    "grad() of an unused input runs the root's hooks": grad_of_unused_input_runs_root_hooks,
    "post-accumulate hook result passed on": post_accumulate_result_passed_on,
    "grad() with dict inputs": grad_with_dict_inputs,
    "grad() batched second order": grad_batched_second_order,
    "inference flags": inference_flags,
    "is_inference of a number": is_inference_of_a_number,
    "detach_ of a saved input": detach_saved_input,
    "detach_ of a saved input, grad()": detach_saved_input_through_grad,
    "detach_ of a saved output": detach_saved_output,
    "detach_ of an input a Function saved": detach_saved_by_function,
    "detach_ of a leaf after use": leaf_detached_after_use("detach_"),
    "requires_grad_(False) of a leaf after use": leaf_detached_after_use("requires_grad_"),
    "detach_ of a view": detach_view_in_place,
    "Variable": variable_alias,
    "Variable of a list": variable_of_a_list,
    "Variable of integers requiring grad": variable_of_integers_requiring_grad,
    "in-place on a leaf under no_grad": leaf_in_place_under_no_grad,
    "retain_grad on a leaf": retain_grad_on_leaf,
    "register_hook without grad": lambda lib: lib.ones(2).register_hook(lambda g: g),
    "retain_grad without grad": lambda lib: lib.ones(2).retain_grad(),
    "requires_grad_(False) on a non-leaf": lambda lib: (leaf(lib) * 2).requires_grad_(False),
    "requires_grad = False on a non-leaf": lambda lib: setattr(
        leaf(lib) * 2, "requires_grad", False
    ),
    "requires_grad_(True) on a non-leaf": lambda lib: (leaf(lib) * 2).requires_grad_(True).grad_fn,
    "requires_grad_ of a str": lambda lib: lib.ones(1).requires_grad_("yes"),
    "requires_grad = 1": lambda lib: setattr(lib.ones(1), "requires_grad", 1),
    "requires_grad_ on integers": lambda lib: lib.ones(2, dtype=lib.int64).requires_grad_(),
}
for _mode in ("all", "any"):
    for _run in ("backward", "inputs", "grad", "two roots", "seeded root"):
        CASES[f"multi-grad hook ({_mode}) with the root: {_run}"] = multi_grad_hook_case(
            _mode, _run
        )
for _inputs in ("c", "c, a", "b", "unused"):
    for _retain in (False, True):
        CASES[f"backward(inputs=[{_inputs}]) retain_grad={_retain}"] = backward_inputs_case(
            _inputs, _retain
        )
for _result in (
    "optimizer step",
    "itself",
    "a number",
    "a tuple",
    "a new tensor",
    "a wrong shape",
    "a wrong dtype",
):
    CASES[f"post-accumulate hook returning {_result}"] = post_accumulate_returning(_result)
_MATERIALIZE: dict[str, dict[str, Any]] = {
    "materialize": {"materialize_grads": True},
    "materialize, allow_unused=True": {"materialize_grads": True, "allow_unused": True},
    "materialize, allow_unused=False": {"materialize_grads": True, "allow_unused": False},
    "materialize, create_graph": {"materialize_grads": True, "create_graph": True},
    "allow_unused": {"allow_unused": True},
    "unused": {},
    "batched, materialize": {"batched": True, "materialize_grads": True},
    "batched, materialize, allow_unused=False": {
        "batched": True,
        "materialize_grads": True,
        "allow_unused": False,
    },
    "batched, allow_unused": {"batched": True, "allow_unused": True},
}
for _name, _kwargs in _MATERIALIZE.items():
    CASES[f"grad(): {_name}"] = materialize_case(**_kwargs)


@pytest.mark.parametrize("name", list(CASES))
def test_same_as_torch(name: str, torch: Any) -> None:
    case = CASES[name]
    assert outcome(case, hookgrad) == outcome(case, torch)


def test_cases_observe_something(torch: Any) -> None:
    # Guards the comparison above against cases that observe nothing on both sides.
    silent = [name for name, case in CASES.items() if outcome(case, torch) == ("ok", None)]
    assert silent == ["no_grad view modified in place"] or not silent
    errors = sum(outcome(case, torch)[0] == "error" for case in CASES.values())
    assert 10 < errors < len(CASES) - 10


def test_variable_warns_about_volatile() -> None:
    with pytest.warns(UserWarning, match="volatile was removed"):
        v = hookgrad.autograd.Variable(hookgrad.ones(1), volatile=True)
    assert not v.requires_grad


def test_grad_only_inputs_false_warns() -> None:
    x = hookgrad.tensor([1.0], requires_grad=True)
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
        (g,) = hookgrad.autograd.grad((x * 3).sum(), x, only_inputs=False)
    assert g.tolist() == [3.0]


def test_grad_mapping_inputs_other_than_dict() -> None:
    from types import MappingProxyType

    x = hookgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="must be a dict, not mappingproxy"):
        hookgrad.autograd.grad(x.sum(), MappingProxyType({"x": x}))


def test_grad_of_gradient_edges() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    edge = hookgrad.autograd.graph.get_gradient_edge(h)
    (g,) = hookgrad.autograd.grad((h * h).sum(), edge)
    assert g.tolist() == [6.0, 12.0]
    unused = hookgrad.autograd.graph.get_gradient_edge(x * 5)
    with pytest.raises(RuntimeError, match="materialize_grads cannot be used"):
        hookgrad.autograd.grad((h * h).sum(), unused, materialize_grads=True)


def test_will_engine_execute_node_for_a_captured_leaf() -> None:
    a = hookgrad.tensor([1.0], requires_grad=True)
    c = (a * 2).sum()
    node = a._gradient_edge()[0]
    errors = []

    def hook(grad: Any) -> None:
        try:
            hookgrad.engine.will_engine_execute_node(node)
        except RuntimeError as error:
            errors.append(str(error))

    c.register_hook(hook)
    hookgrad.autograd.grad(c, a)
    assert errors == [
        "A leaf node was passed to _will_engine_execute_node but we are currently running "
        "autograd.grad(). This is currently not supported."
    ]
