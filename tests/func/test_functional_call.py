"""``functional_call`` and ``stack_module_state`` against torch's, and the programs of the
``torch.func`` tutorials written for both libraries: per-example gradients of an MLP and
of a CNN (``functional_call`` + ``vmap(grad)``), model ensembling, Jacobians and
Hessian-vector products of a model's loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hookgrad
from tests.oracle import assert_close, outcome

RNG = np.random.default_rng(2)


def _load(lib, module, seed):
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=p.dtype))
    return module


def _mlp(lib, dtype, seed=0):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
    return _load(lib, model.to(getattr(lib, dtype)), seed)


def _cnn(lib, dtype, seed=0):
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.GroupNorm(2, 4),
        nn.GELU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 4, 3, stride=2, groups=2),
        nn.AvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.5),
        nn.LayerNorm(4),
        nn.Linear(4, 3),
    )
    return _load(lib, model.to(getattr(lib, dtype)), seed).eval()


def _mixed(lib, dtype, seed=0):
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv1d(2, 4, 3),
        nn.BatchNorm1d(4),
        nn.PReLU(),
        nn.InstanceNorm1d(4, affine=True),
        nn.AdaptiveAvgPool1d(2),
        nn.Flatten(),
        nn.Unflatten(1, (2, 4)),
        nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True),
        nn.Flatten(),
        nn.Linear(8, 3),
    )
    return _load(lib, model.to(getattr(lib, dtype)), seed).eval()


NETWORKS = {"mlp": (_mlp, (5, 6)), "cnn": (_cnn, (5, 1, 8, 8)), "mixed": (_mixed, (5, 2, 7))}


def _per_example_grads(lib, model, x, y, loss_name):
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    loss_fn = getattr(lib.nn.functional, loss_name)

    def loss(params, buffers, sample, target):
        out = lib.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return loss_fn(out, target.unsqueeze(0))

    return lib.func.vmap(lib.func.grad(loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("network", sorted(NETWORKS))
def test_per_example_gradients_match_torch_and_the_loop(network: str, dtype: str) -> None:
    build, shape = NETWORKS[network]
    x = RNG.uniform(-1, 1, shape)
    y = RNG.integers(0, 3, 5)
    results = {}
    for lib in (hookgrad, torch):
        model = build(lib, dtype)
        xs = lib.tensor(x, dtype=getattr(lib, dtype))
        results[lib.__name__] = _per_example_grads(lib, model, xs, lib.tensor(y), "cross_entropy")
    ours, theirs = results["hookgrad"], results["torch"]
    rtol, atol = (2e-4, 2e-5) if dtype == "float32" else (1e-9, 1e-11)
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        assert_close(ours[name], theirs[name], rtol, atol)
    # The same numbers one example at a time, with hookgrad's own autograd.
    model = build(hookgrad, dtype)
    for i in (0, 4):
        model.zero_grad()
        out = model(hookgrad.tensor(x[i : i + 1], dtype=getattr(hookgrad, dtype)))
        hookgrad.nn.functional.cross_entropy(out, hookgrad.tensor(y[i : i + 1])).backward()
        for name, p in model.named_parameters():
            assert_close(ours[name][i], p.grad, rtol, atol)


def test_per_example_gradients_mse() -> None:
    x, y = RNG.uniform(-1, 1, (4, 6)), RNG.uniform(-1, 1, (4, 3))
    results = []
    for lib in (hookgrad, torch):
        model = _mlp(lib, "float64")
        results.append(_per_example_grads(lib, model, lib.tensor(x), lib.tensor(y), "mse_loss"))
    for name in results[1]:
        assert_close(results[0][name], results[1][name], 1e-9, 1e-11)


def test_model_ensembling_matches_torch() -> None:
    x = RNG.uniform(-1, 1, (7, 6))
    outs = []
    for lib in (hookgrad, torch):
        models = [_mlp(lib, "float64", seed) for seed in range(3)]
        params, buffers = lib.func.stack_module_state(models)
        assert all(p.requires_grad and p.is_leaf for p in params.values())
        base = models[0]

        def run(params, buffers, data, base=base, lib=lib):
            return lib.func.functional_call(base, (params, buffers), (data,))

        same = lib.vmap(run, in_dims=(0, 0, None))(params, buffers, lib.tensor(x))
        split = lib.vmap(run, in_dims=(0, 0, 0))(params, buffers, lib.tensor(x[:6]).view(3, 2, 6))
        same.pow(2).sum().backward()
        outs.append((same, split, [params[k].grad for k in sorted(params)]))
    assert_close(outs[0], outs[1], 1e-9, 1e-11)


def test_hessian_vector_product_of_a_loss() -> None:
    x, y = RNG.uniform(-1, 1, (4, 6)), RNG.integers(0, 3, 4)
    results = []
    for lib in (hookgrad, torch):
        model = _mlp(lib, "float64")
        params = {k: v.detach() for k, v in model.named_parameters()}
        tangents = {k: lib.ones_like(v) for k, v in params.items()}

        def loss(p, model=model, lib=lib):
            out = lib.func.functional_call(model, p, (lib.tensor(x),))
            return lib.nn.functional.cross_entropy(out, lib.tensor(y))

        _, hvp = lib.func.jvp(lib.func.grad(loss), (params,), (tangents,))
        jac = lib.func.jacrev(
            lambda p, model=model, lib=lib: lib.func.functional_call(model, p, (lib.tensor(x),))
        )(params)
        results.append(([hvp[k] for k in sorted(hvp)], [jac[k] for k in sorted(jac)]))
    assert_close(results[0], results[1], 1e-9, 1e-11)


def test_functional_call_forms_match_torch() -> None:
    def program(lib):
        model = _load(lib, lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3)), 4)
        model.eval()
        x = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3))
        weight = lib.ones(3, 3, dtype=lib.float32)
        one = lib.func.functional_call(model, {"0.weight": weight}, x.float())
        two = lib.func.functional_call(
            model, ({"0.weight": weight}, {"1.running_mean": lib.ones(3)}), (x.float(),)
        )
        three = lib.func.functional_call(model, {}, args=(), kwargs={"input": x.float()})
        return one, two, three, model[0].weight

    assert_close(program(hookgrad), program(torch), 1e-6, 1e-7)


def test_tied_weights() -> None:
    def program(lib, tie_weights):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
        model[1].weight = model[0].weight
        with lib.no_grad():
            model[0].weight.copy_(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
        new = lib.zeros(2, 2) + 0.5
        out = lib.func.functional_call(
            model, {"0.weight": new}, (lib.ones(1, 2),), tie_weights=tie_weights
        )
        return out

    for tie in (True, False):
        assert_close(program(hookgrad, tie), program(torch, tie), 1e-6, 1e-7)


ERRORS = {
    "strict_missing": lambda t: t.func.functional_call(
        t.nn.Linear(2, 2), {"weight": t.ones(2, 2)}, (t.ones(2),), strict=True
    ),
    "strict_unexpected": lambda t: t.func.functional_call(
        t.nn.Linear(2, 2),
        {"weight": t.ones(2, 2), "bias": t.ones(2), "x": t.ones(1)},
        (t.ones(2),),
        strict=True,
    ),
    "repeated_keys": lambda t: t.func.functional_call(
        t.nn.Linear(2, 2), ({"weight": t.ones(2, 2)}, {"weight": t.ones(2, 2)}), (t.ones(2),)
    ),
    "not_dicts": lambda t: t.func.functional_call(t.nn.Linear(2, 2), [{"weight": t.ones(2, 2)}, 3]),
    "not_a_dict": lambda t: t.func.functional_call(t.nn.Linear(2, 2), 3, (t.ones(2),)),
    "stack_no_models": lambda t: t.func.stack_module_state([]),
    "stack_modes": lambda t: t.func.stack_module_state(
        [t.nn.Linear(1, 1), t.nn.Linear(1, 1).eval()]
    ),
    "stack_classes": lambda t: t.func.stack_module_state([t.nn.Linear(1, 1), t.nn.Conv1d(1, 1, 1)]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name: str) -> None:
    ours = outcome(ERRORS[name], hookgrad)
    assert ours == outcome(ERRORS[name], torch)
    assert ours[0] == "error"


REARRANGE = [
    ("b h w c -> b c h w", {}),
    ("b h w c -> (b h) w c", {}),
    ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2}),
    ("b ... c -> c b ...", {}),
    ("... c -> (...) c", {}),
    ("b h w c -> b h w () c 1", {}),
    ("a b -> a", {}),
    ("a (b c) d e -> a b c d e", {}),
    ("a b c d -> a b c d", {"z": 2}),
]


@pytest.mark.parametrize("pattern,lengths", REARRANGE)
def test_rearrange_matches_torch(pattern, lengths) -> None:
    x = RNG.uniform(-1, 1, (4, 6, 8, 3))

    def case(lib):
        return lib.func.rearrange(lib.tensor(x), pattern, **lengths)

    ours, theirs = outcome(case, hookgrad), outcome(case, torch)
    if theirs[0] == "error":
        assert ours[0] == "error" and ours[1] == "ValueError"
    else:
        assert ours == theirs


def test_rearrange_of_a_list_and_its_gradient() -> None:
    results = []
    for lib in (hookgrad, torch):
        parts = [lib.tensor(np.arange(6.0).reshape(2, 3) + i, requires_grad=True) for i in range(2)]
        out = lib.func.rearrange(parts, "n h w -> h (n w)")
        (out * lib.arange(12.0, dtype=out.dtype).reshape(2, 6)).sum().backward()
        results.append((out, parts[0].grad, parts[1].grad))
    assert_close(results[0], results[1], 1e-12, 1e-12)


def test_debug_unwrap_and_batch_norm_replacement() -> None:
    seen = []
    hookgrad.vmap(lambda x: seen.append(hookgrad.func.debug_unwrap(x)) or x)(
        hookgrad.arange(6.0).reshape(2, 3)
    )
    assert_close(seen[0], torch.arange(6.0).reshape(2, 3), 0, 0)
    outer = hookgrad.tensor(1.0)
    assert hookgrad.func.debug_unwrap(outer) is outer
    for lib in (hookgrad, torch):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        assert lib.func.replace_all_batch_norm_modules_(model) is model
        bn = model[1]
        assert (bn.running_mean, bn.running_var, bn.num_batches_tracked) == (None, None, None)
        assert bn.track_running_stats is False
