"""Module hooks: event logs and values against torch, and SPEC.md section 2's differences.

Each scenario is written once against a ``lib`` argument and run on hookgrad and torch;
the logs (names and values, in firing order) must agree.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.nn.modules import module as hg_module

W1 = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75], [0.3, -0.6, 1.2]]
B1 = [0.1, -0.2, 0.3, -0.4]
W2 = [[1.0, -2.0, 0.5, 1.5]]
B2 = [0.25]
X = [[1.0, -1.0, 2.0], [0.5, 1.5, -1.0]]


def values(obj: Any) -> Any:
    """Tensors as arrays, recursively through tuples, lists and dicts."""
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (tuple, list)):
        return tuple(values(o) for o in obj)
    if isinstance(obj, dict):
        return {k: values(v) for k, v in sorted(obj.items())}
    return np.array(obj.detach().numpy(), dtype=np.float64)


def assert_same(ours: Any, theirs: Any) -> None:
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), (ours, theirs)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), (ours, theirs)
        for key in theirs:
            assert_same(ours[key], theirs[key])
    else:
        assert ours == theirs


def compare(scenario: Any, torch: Any) -> list[Any]:
    """Run ``scenario(lib)`` on both libraries; their logs must agree."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = scenario(torch)
        ours = scenario(hookgrad)
    assert len(ours) == len(theirs), (ours, theirs)
    assert [e[0] for e in ours] == [e[0] for e in theirs]
    assert_same(values(ours), values(theirs))
    return ours


def mlp(lib: Any) -> Any:
    """Sequential(Linear(3, 4), ReLU, Linear(4, 1)) with fixed weights."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with lib.no_grad():
        model[0].weight.copy_(lib.tensor(W1))
        model[0].bias.copy_(lib.tensor(B1))
        model[2].weight.copy_(lib.tensor(W2))
        model[2].bias.copy_(lib.tensor(B2))
    return model


def affine_class(lib: Any) -> Any:
    """A Linear-like module made of several ops (matmul, add)."""

    class Affine(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = lib.nn.Parameter(lib.tensor(W1))
            self.bias = lib.nn.Parameter(lib.tensor(B1))

        def forward(self, x: Any) -> Any:
            return x.matmul(self.weight.t()) + self.bias

    return Affine


def hook_everything(model: Any, log: list[Any]) -> None:
    for name, module in model.named_modules():
        module.register_forward_pre_hook(lambda m, a, n=name: log.append(("fpre " + n, a)))
        module.register_forward_hook(lambda m, a, o, n=name: log.append(("fwd " + n, a, o)))
        module.register_full_backward_pre_hook(lambda m, go, n=name: log.append(("bpre " + n, go)))
        module.register_full_backward_hook(
            lambda m, gi, go, n=name: log.append(("bwd " + n, gi, go))
        )


# ---------------------------------------------------------------- event logs vs torch


def test_nested_modules_event_log(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        model = mlp(lib)
        hook_everything(model, log)
        x = lib.tensor(X, requires_grad=True)
        out = model(x)
        out.register_hook(lambda g: log.append(("tensor hook", g)))
        out.sum().backward()
        log.append(("grads", x.grad, model[0].weight.grad, model[2].bias.grad))
        return log

    log = compare(scenario, torch)
    assert [e[0] for e in log][-3:] == ["bwd 0", "bwd ", "grads"]


def test_forward_hook_sees_input_aliases_named_like_torch(torch: Any) -> None:
    names: dict[Any, list[str]] = {hookgrad: [], torch: []}
    for lib in (hookgrad, torch):
        model = mlp(lib)
        log = names[lib]
        model[0].register_forward_hook(lambda m, a, o, log=log: log.append(a[0].grad_fn.name()))
        model[0].register_full_backward_hook(lambda m, gi, go: None)
        model(lib.tensor(X, requires_grad=True))
    assert names[hookgrad] == names[torch] == ["BackwardHookFunctionBackward"]


def test_prepend_and_replacement(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        model = mlp(lib)
        lin = model[0]
        lin.register_forward_pre_hook(lambda m, a: log.append(("pre A", a)) or (a[0] * 2,))
        lin.register_forward_pre_hook(
            lambda m, a: log.append(("pre B", a)) or a[0] + 1, prepend=True
        )
        lin.register_forward_hook(lambda m, a, o: log.append(("fwd A", o)) or o * 3)
        lin.register_forward_hook(lambda m, a, o: log.append(("fwd B", o)), prepend=True)
        lin.register_full_backward_pre_hook(lambda m, go: log.append(("bpre A", go)))
        lin.register_full_backward_pre_hook(
            lambda m, go: log.append(("bpre B", go)) or (go[0] * 10,), prepend=True
        )
        lin.register_full_backward_hook(
            lambda m, gi, go: log.append(("bwd A", gi, go)) or (gi[0] - 1,)
        )
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("bwd B", gi, go)))
        x = lib.tensor(X, requires_grad=True)
        out = model(x)
        out.sum().backward()
        log.append(("grads", out, x.grad, lin.weight.grad, lin.bias.grad))
        return log

    compare(scenario, torch)


def test_with_kwargs_hooks(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []

        class Scale(lib.nn.Module):
            def forward(self, x: Any, *, scale: float = 1.0) -> Any:
                return x * scale

        module = Scale()

        def pre(m: Any, args: Any, kwargs: Any) -> Any:
            log.append(("pre", args, dict(kwargs)))
            return args, {"scale": kwargs["scale"] * 2}

        def fwd(m: Any, args: Any, kwargs: Any, out: Any) -> Any:
            log.append(("fwd", args, dict(kwargs), out))
            return out + 1

        module.register_forward_pre_hook(pre, with_kwargs=True)
        module.register_forward_hook(fwd, with_kwargs=True)
        out = module(lib.tensor([1.0, 2.0]), scale=3.0)
        log.append(("out", out))
        return log

    compare(scenario, torch)


def test_bad_pre_hook_return_with_kwargs() -> None:
    module = hookgrad.nn.ReLU()
    module.register_forward_pre_hook(lambda m, a, k: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        module(hookgrad.ones(2))


def test_always_call_runs_when_forward_raises(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []

        class Fails(lib.nn.Module):
            def forward(self, x: Any) -> Any:
                raise ValueError("boom")

        module = Fails()
        module.register_forward_hook(lambda m, a, o: log.append(("plain", o)))
        module.register_forward_hook(lambda m, a, o: log.append(("always", o)), always_call=True)
        module.register_forward_hook(
            lambda m, a, k, o: log.append(("always kw", k)), always_call=True, with_kwargs=True
        )
        try:
            module(
                lib.ones(1),
            )
        except ValueError as error:
            log.append(("raised", str(error)))
        return log

    log = compare(scenario, torch)
    assert [e[0] for e in log] == ["always", "always kw", "raised"]


def test_always_call_hook_error_becomes_warning() -> None:
    class Fails(hookgrad.nn.Module):
        def forward(self, x: Any) -> Any:
            raise ValueError("boom")

    module = Fails()
    module.register_forward_hook(lambda m, a, o: 1 / 0, always_call=True)
    with pytest.warns(UserWarning, match="silenced"), pytest.raises(ValueError, match="boom"):
        module(hookgrad.ones(1))


def test_global_hooks_fire_before_module_hooks(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        registry = lib.nn.modules.module
        model = mlp(lib)
        lin = model[2]
        lin.register_forward_pre_hook(lambda m, a: log.append(("own fpre", a)))
        lin.register_forward_hook(lambda m, a, o: log.append(("own fwd", o)))
        lin.register_full_backward_pre_hook(lambda m, go: log.append(("own bpre", go)))
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("own bwd", gi)))
        handles = [
            registry.register_module_forward_pre_hook(
                lambda m, a: log.append(("global fpre " + type(m).__name__, a))
            ),
            registry.register_module_forward_hook(
                lambda m, a, o: log.append(("global fwd " + type(m).__name__, o))
            ),
            registry.register_module_full_backward_pre_hook(
                lambda m, go: log.append(("global bpre " + type(m).__name__, go))
            ),
            registry.register_module_full_backward_hook(
                lambda m, gi, go: log.append(("global bwd " + type(m).__name__, gi, go))
            ),
        ]
        try:
            model(lib.tensor(X, requires_grad=True)).sum().backward()
        finally:
            for handle in handles:
                handle.remove()
        model(lib.tensor(X)).sum().backward()  # only the module's own hooks now
        return log

    compare(scenario, torch)


def test_global_forward_hook_flags(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []

        class Fails(lib.nn.Module):
            def forward(self, x: Any, *, flag: bool = False) -> Any:
                if flag:
                    raise ValueError("boom")
                return x + 1

        registry = lib.nn.modules.module
        module = Fails()
        always = registry.register_module_forward_hook(
            lambda m, a, o: log.append(("always", a, o)), always_call=True
        )
        with (
            always,
            registry.register_module_forward_hook(
                lambda m, a, k, o: log.append(("kw", dict(k), o)), with_kwargs=True
            ),
        ):
            module(lib.ones(1), flag=False)
            try:
                module(lib.ones(1), flag=True)
            except ValueError:
                log.append(("raised",))
        module(lib.ones(1))
        return log

    compare(scenario, torch)


def test_global_always_call_with_kwargs_gets_kwargs() -> None:
    # torch calls such a global hook without kwargs after an error (and silences the
    # resulting TypeError); hookgrad calls every hook with its own signature.
    class Fails(hookgrad.nn.Module):
        def forward(self, x: Any, *, flag: bool) -> Any:
            raise ValueError("boom")

    log = []
    with hg_module.register_module_forward_hook(
        lambda m, a, k, o: log.append(k), with_kwargs=True, always_call=True
    ):
        with pytest.raises(ValueError):
            Fails()(hookgrad.ones(1), flag=True)
    assert log == [{"flag": True}]


def test_module_called_twice_fires_twice_with_each_calls_grads(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        Affine = affine_class(lib)
        lin = Affine()
        square = lib.nn.Linear(4, 3)
        with lib.no_grad():
            square.weight.copy_(lib.tensor(W1).t())
            square.bias.zero_()
        lin.register_full_backward_pre_hook(lambda m, go: log.append(("bpre", go)))
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("bwd", gi, go)))
        x = lib.tensor(X, requires_grad=True)
        h = lin(x)
        out = lin(square(h) * 2)
        (out * out).sum().backward()
        log.append(("grads", x.grad, lin.weight.grad))
        return log

    log = compare(scenario, torch)
    assert [e[0] for e in log].count("bwd") == 2


def test_inputs_not_requiring_grad(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        model = mlp(lib)
        lin = model[0]
        lin.register_full_backward_pre_hook(lambda m, go: log.append(("bpre", go)))
        lin.register_full_backward_hook(
            lambda m, gi, go: log.append(("bwd", gi, go, m.weight.grad))
        )
        model(lib.tensor(X)).sum().backward()
        log.append(("grads", lin.weight.grad))
        return log

    log = compare(scenario, torch)
    assert log[1][1] == (None,)


def test_no_input_grad_hook_must_return_none() -> None:
    lin = mlp(hookgrad)[0]
    lin.register_full_backward_hook(lambda m, gi, go: (hookgrad.ones(2, 3),))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        with pytest.raises(RuntimeError, match="where no input requires gradient"):
            lin(hookgrad.tensor(X)).sum().backward()


def test_mixed_inputs_and_tuple_outputs(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []

        class Pair(lib.nn.Module):
            def forward(self, a: Any, b: Any, k: float) -> Any:
                return a * b * k, b + 1, a.sum() * 2

        module = Pair()
        module.register_full_backward_pre_hook(lambda m, go: log.append(("bpre", go)))
        module.register_full_backward_hook(lambda m, gi, go: log.append(("bwd", gi, go)))
        a = lib.tensor([1.0, -2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0])
        first, second, third = module(a, b, 0.5)
        (first.sum() + third).backward()
        log.append(("grads", a.grad))
        return log

    compare(scenario, torch)


def test_identity_and_outputs_from_several_nodes_or_a_leaf(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        nn = lib.nn

        class Two(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.w = nn.Parameter(lib.tensor([1.0, 2.0]))

            def forward(self, x: Any) -> Any:
                return x * self.w, self.w, x.sum()

        class Same(nn.Module):
            def forward(self, x: Any) -> Any:
                return x

        def doubling(m: Any, go: Any) -> Any:
            log.append(("pre " + type(m).__name__, go))
            return tuple(None if g is None else g * 2 for g in go)

        two, same = Two(), Same()
        for module in (two, same):
            module.register_full_backward_pre_hook(doubling)
            module.register_full_backward_hook(
                lambda m, gi, go: log.append(("bwd " + type(m).__name__, gi, go))
            )
        x = lib.tensor([3.0, 4.0], requires_grad=True)
        a, b, c = two(same(x))
        a.retain_grad()
        (a.sum() + (b * b).sum() + c * 3).backward()
        log.append(("grads", x.grad, two.w.grad, a.grad))
        with lib.no_grad():
            log.append(("no grad", two(x)[0].requires_grad))
        return log

    compare(scenario, torch)


def test_hook_removal(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        model = mlp(lib)
        handles = [
            model[0].register_forward_hook(lambda m, a, o: log.append(("fwd", o))),
            model[0].register_full_backward_hook(lambda m, gi, go: log.append(("bwd", gi))),
            model[0].register_forward_pre_hook(lambda m, a: log.append(("fpre", a))),
            model[0].register_full_backward_pre_hook(lambda m, go: log.append(("bpre", go))),
        ]
        x = lib.tensor(X, requires_grad=True)
        model(x).sum().backward()
        for handle in handles:
            handle.remove()
            handle.remove()  # idempotent
        model(x).sum().backward()
        log.append(("grad", x.grad))
        return log

    log = compare(scenario, torch)
    assert len(log) == 5


def test_forward_called_directly_runs_no_hooks() -> None:
    lin = mlp(hookgrad)[0]
    fired = []
    lin.register_forward_hook(lambda m, a, o: fired.append(1))
    lin.register_full_backward_hook(lambda m, gi, go: fired.append(2))
    lin.forward(hookgrad.tensor(X, requires_grad=True)).sum().backward()
    assert fired == []


def test_retain_graph_fires_each_backward_and_autograd_grad(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        model = mlp(lib)
        hook_everything(model, log)
        x = lib.tensor(X, requires_grad=True)
        loss = model(x).pow(2).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        (gx,) = lib.autograd.grad(model(x).sum(), x)
        log.append(("grads", x.grad, gx))
        return log

    compare(scenario, torch)


def test_double_backward_through_hooked_module(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
        with lib.no_grad():
            model[0].weight.copy_(lib.tensor(W1))
            model[2].weight.copy_(lib.tensor(W2))
            model[0].bias.zero_()
            model[2].bias.zero_()
        model[1].register_full_backward_hook(lambda m, gi, go: log.append(("bwd", gi, go)))
        x = lib.tensor(X, requires_grad=True)
        (gx,) = lib.autograd.grad(model(x).sum(), x, create_graph=True)
        first = log[:]
        gx.pow(2).sum().backward()
        return [*first, ("grads", gx, x.grad, model[0].weight.grad)]

    compare(scenario, torch)


def test_double_backward_reports_the_second_pass_through_the_module() -> None:
    # torch's wrappers skip the second pass (its gradient reaches the module's output
    # through saved tensors); hookgrad reports every pass through the output.
    log = []
    tanh = hookgrad.nn.Tanh()
    tanh.register_full_backward_hook(lambda m, gi, go: log.append(gi[0]))
    x = hookgrad.tensor([0.5, -1.0], requires_grad=True)
    (gx,) = hookgrad.autograd.grad(tanh(x).sum(), x, create_graph=True)
    gx.sum().backward()
    assert len(log) == 2
    np.testing.assert_allclose(log[1].numpy(), x.grad.numpy(), rtol=1e-6)


def test_wrong_number_of_values() -> None:
    lin = mlp(hookgrad)[0]
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    x = hookgrad.tensor(X, requires_grad=True)
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        lin(x).sum().backward()
    pre = mlp(hookgrad)[0]
    pre.register_full_backward_pre_hook(lambda m, go: ())
    with pytest.raises(RuntimeError, match="invalid number of grad_output, got 0, but expected 1"):
        pre(x).sum().backward()


def test_wrong_shape_names_hook_and_module() -> None:
    def bad_grad(m: Any, gi: Any, go: Any) -> Any:
        return (gi[0][0],)

    lin = mlp(hookgrad)[0]
    lin.register_full_backward_hook(bad_grad)
    x = hookgrad.tensor(X, requires_grad=True)
    with pytest.raises(
        RuntimeError, match=r"'bad_grad' of Linear .* shape \[3\], expected \[2, 3\]"
    ):
        lin(x).sum().backward()
    lin2 = mlp(hookgrad)[0]
    lin2.register_full_backward_pre_hook(lambda m, go: (go[0].sum(),))
    with pytest.raises(RuntimeError, match=r"grad_output\[0\] of shape \[\], expected \[2, 4\]"):
        lin2(x).sum().backward()
    # the library still works afterwards
    y = hookgrad.tensor([1.0], requires_grad=True)
    (y * 2).sum().backward()
    assert y.grad.tolist() == [2.0]


def test_non_tensor_output_warns() -> None:
    class Dict(hookgrad.nn.Module):
        def forward(self, x: Any) -> Any:
            return {"x": x * 2}

    module = Dict()
    module.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.warns(UserWarning, match="should be a Tensor or a tuple of Tensors"):
        module(hookgrad.ones(1, requires_grad=True))


# ---------------------------------------------------------------- SPEC 2.1: legacy name


@pytest.mark.parametrize("layer", ["linear", "affine", "conv"])
def test_register_backward_hook_means_full_hook(layer: str) -> None:
    nn = hookgrad.nn

    def build() -> Any:
        hookgrad.manual_seed(0)
        if layer == "linear":
            return nn.Linear(3, 4), hookgrad.randn(2, 3, requires_grad=True)
        if layer == "affine":
            return affine_class(hookgrad)(), hookgrad.randn(2, 3, requires_grad=True)
        return nn.Conv2d(2, 3, 3), hookgrad.randn(2, 2, 5, 5, requires_grad=True)

    seen = {}
    for kind in ("register_backward_hook", "register_full_backward_hook"):
        module, x = build()
        getattr(module, kind)(lambda m, gi, go, k=kind: seen.update({k: (gi, go)}))
        module(x).pow(2).sum().backward()
    legacy, full = seen["register_backward_hook"], seen["register_full_backward_hook"]
    assert len(legacy[0]) == 1 and legacy[0][0].shape == x.shape
    np.testing.assert_allclose(legacy[0][0].numpy(), full[0][0].numpy())
    np.testing.assert_allclose(legacy[1][0].numpy(), full[1][0].numpy())
    np.testing.assert_allclose(legacy[0][0].numpy(), x.grad.numpy())


def test_module_backward_hook_global_legacy_name() -> None:
    seen = []
    lin = mlp(hookgrad)[0]
    with hg_module.register_module_backward_hook(lambda m, gi, go: seen.append(gi)):
        x = hookgrad.tensor(X, requires_grad=True)
        lin(x).sum().backward()
    assert len(seen) == 1 and seen[0][0].shape == (2, 3)


# ---------------------------------------------------------------- SPEC 2.2: no views


def test_inplace_relu_after_hooked_linear(torch: Any) -> None:
    def scenario(lib: Any, hooks: bool) -> list[Any]:
        log: list[Any] = []
        model = mlp(lib)
        model[1] = lib.nn.ReLU(inplace=True)
        if hooks:
            hook_everything(model, log)
        x = lib.tensor(X, requires_grad=True)
        model(x).sum().backward()
        log.append(("grads", x.grad, model[0].weight.grad, model[2].weight.grad))
        return log

    plain = scenario(torch, hooks=False)
    ours = scenario(hookgrad, hooks=True)
    assert_same(values(ours[-1]), values(plain[-1]))
    # also the same events as torch's own hooks where torch can run them (no inplace)
    assert [e[0] for e in ours].count("bwd 1") == 1


def test_residual_inplace_add_inside_hooked_block(torch: Any) -> None:
    def scenario(lib: Any, hooks: bool) -> list[Any]:
        log: list[Any] = []
        Affine = affine_class(lib)

        class Block(lib.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inner = Affine()
                self.back = lib.nn.Linear(4, 3)
                with lib.no_grad():
                    self.back.weight.copy_(lib.tensor(W1).t())
                    self.back.bias.fill_(0.5)

            def forward(self, x: Any) -> Any:
                out = self.back(self.inner(x))
                out += x
                return lib.relu(out) * 1.5

        block = Block()
        if hooks:
            hook_everything(block, log)
        x = lib.tensor(X, requires_grad=True)
        y = block(x)
        y += 1.0  # in place on the hooked block's output as well
        (y * y).sum().backward()
        log.append(("grads", x.grad, block.inner.weight.grad, block.back.bias.grad))
        return log

    plain = scenario(torch, hooks=False)
    ours = scenario(hookgrad, hooks=True)
    assert_same(values(ours[-1]), values(plain[-1]))
    events = [e[0] for e in ours]
    assert events.count("bwd ") == 1 and events.count("bwd inner") == 1


def test_hooked_inplace_relu_module(torch: Any) -> None:
    def scenario(lib: Any) -> list[Any]:
        log: list[Any] = []
        model = mlp(lib)
        model[1] = lib.nn.ReLU(inplace=True)
        model[1].register_full_backward_hook(lambda m, gi, go: log.append(("bwd", gi, go)))
        x = lib.tensor(X, requires_grad=True)
        h = model[0](x)
        out = model[2](model[1](h))
        (out.sum() + h.sum()).backward()  # h was changed in place by the ReLU
        log.append(("grads", x.grad, model[0].weight.grad))
        return log

    ours = scenario(hookgrad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mlp(torch)
        model[1] = torch.nn.ReLU(inplace=True)
        x = torch.tensor(X, requires_grad=True)
        h = model[0](x)
        out = model[2](model[1](h))
        (out.sum() + h.sum()).backward()
    assert_same(values(ours[-1]), values(("grads", x.grad, model[0].weight.grad)))
    assert ours[0][0] == "bwd"


def test_inplace_through_a_hooked_identity_updates_the_callers_tensor(torch: Any) -> None:
    def scenario(lib: Any, hooks: bool) -> Any:
        nn = lib.nn
        lin = nn.Linear(2, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor([[1.0, -1.0], [0.5, 2.0]]))
            lin.bias.zero_()
        same, relu = nn.Identity(), nn.ReLU(inplace=True)
        if hooks:
            for module in (lin, same, relu):
                module.register_full_backward_hook(lambda m, gi, go: None)
        x = lib.tensor([[1.0, 2.0], [-3.0, 1.0]], requires_grad=True)
        h = lin(x)
        y = relu(same(h))
        (y.sum() * 2 + (h * h).sum()).backward()  # h itself was changed by the ReLU
        return values((x.grad, lin.weight.grad))

    assert_same(scenario(hookgrad, hooks=True), scenario(torch, hooks=False))


def test_inplace_on_leaf_input_of_hooked_module_raises() -> None:
    relu = hookgrad.nn.ReLU(inplace=True)
    relu.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        relu(hookgrad.tensor(X, requires_grad=True))


# ---------------------------------------------------------------- SPEC 2.3: parameter grads


def test_parameter_grad_hook_reads_batch_summed_grads(torch: Any) -> None:
    model = mlp(hookgrad)
    seen = []
    model[0].register_parameter_grad_hook(
        lambda m, grads: seen.append({n: g.numpy().copy() for n, g in grads.items()})
    )
    x = hookgrad.tensor(X, requires_grad=True)
    model(x).pow(2).sum().backward()

    reference = mlp(torch)
    reference(torch.tensor(X)).pow(2).sum().backward()
    assert len(seen) == 1 and set(seen[0]) == {"weight", "bias"}
    np.testing.assert_allclose(seen[0]["weight"], reference[0].weight.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(seen[0]["bias"], reference[0].bias.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(model[0].weight.grad.numpy(), reference[0].weight.grad.numpy())


def test_parameter_grad_hook_replaces_before_accumulation() -> None:
    model = mlp(hookgrad)
    model[2].register_parameter_grad_hook(lambda m, grads: {"weight": grads["weight"] * 0 + 7})
    events = []
    model[2].weight.register_hook(lambda g: events.append(g.numpy().copy()))
    model(hookgrad.tensor(X)).sum().backward()
    model(hookgrad.tensor(X)).sum().backward()
    assert model[2].weight.grad.tolist() == [[14.0] * 4]
    np.testing.assert_allclose(events[0], 7.0)
    assert model[2].bias.grad.tolist() == [4.0]  # not replaced


def test_parameter_grad_hook_fires_once_after_all_grads_and_per_call() -> None:
    lin = mlp(hookgrad)[0]
    order = []
    lin.register_parameter_grad_hook(lambda m, grads: order.append(sorted(grads)))
    lin.register_full_backward_hook(lambda m, gi, go: order.append("full"))
    x = hookgrad.tensor(X, requires_grad=True)
    (lin(x).sum() + lin(x * 2).sum()).backward()
    assert order == ["full", ["bias", "weight"], "full", ["bias", "weight"]]
    assert lin.weight.grad is not None


def test_parameter_grad_hook_recurse_and_conv() -> None:
    model = mlp(hookgrad)
    seen = []
    model.register_parameter_grad_hook(lambda m, grads: seen.append(sorted(grads)), recurse=True)
    own = []
    model.register_parameter_grad_hook(lambda m, grads: own.append(sorted(grads)))
    model(hookgrad.tensor(X)).sum().backward()
    assert seen == [["0.bias", "0.weight", "2.bias", "2.weight"]]
    assert own == []  # a Sequential has no parameters of its own
    hookgrad.manual_seed(0)
    conv = hookgrad.nn.Conv2d(2, 3, 3)
    got = {}
    conv.register_parameter_grad_hook(lambda m, grads: got.update(grads))
    x = hookgrad.randn(4, 2, 5, 5)
    conv(x).pow(2).sum().backward()
    assert got["weight"].shape == (3, 2, 3, 3) and got["bias"].shape == (3,)
    np.testing.assert_allclose(got["weight"].numpy(), conv.weight.grad.numpy())


def test_parameter_grad_hook_bad_returns() -> None:
    x = hookgrad.tensor(X)
    for result, error, match in [
        ([1], TypeError, "must return None or a dict"),
        ({"nope": hookgrad.ones(1)}, KeyError, "nope"),
        ({"bias": hookgrad.ones(3)}, RuntimeError, r"'bias' of \[3\], expected shape \[4\]"),
    ]:
        lin = mlp(hookgrad)[0]
        lin.register_parameter_grad_hook(lambda m, g, r=result: r)
        with pytest.raises(error, match=match):
            lin(x).sum().backward()


def test_parameter_grad_hook_leaves_parameters_in_place() -> None:
    lin = mlp(hookgrad)[0]
    weight = lin.weight
    lin.register_parameter_grad_hook(lambda m, g: None)
    seen = []
    lin.register_forward_hook(lambda m, a, o: seen.append(m.weight is weight))
    with hookgrad.no_grad():
        lin(hookgrad.tensor(X))
    lin(hookgrad.tensor(X))
    assert lin.weight is weight and seen == [True, True]
    assert list(lin._parameters.values())[0] is weight


def test_parameter_grad_hook_replaces_conv2d_grads_with_batch(torch: Any) -> None:
    hookgrad.manual_seed(1)
    conv = hookgrad.nn.Conv2d(2, 3, 3)
    reference = torch.nn.Conv2d(2, 3, 3)
    with torch.no_grad():
        reference.weight.copy_(torch.tensor(conv.weight.detach().numpy()))
        reference.bias.copy_(torch.tensor(conv.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((4, 2, 5, 5)).astype(np.float32)
    reference(torch.tensor(x)).pow(2).sum().backward()

    def halve_weight(module: Any, grads: dict) -> dict:
        return {"weight": grads["weight"] * 0.5}

    conv.register_parameter_grad_hook(halve_weight)
    conv(hookgrad.tensor(x)).pow(2).sum().backward()
    np.testing.assert_allclose(
        conv.weight.grad.numpy(), reference.weight.grad.numpy() * 0.5, rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(
        conv.bias.grad.numpy(), reference.bias.grad.numpy(), rtol=1e-4, atol=1e-4
    )
