"""Every optimizer and option combination against torch: 5 steps from identical parameters
with identical gradients, float32 and float64; then the state each keeps."""

import itertools

import numpy as np
import pytest

import hookgrad
import hookgrad.optim as hoptim


def _combinations(**options):
    keys = list(options)
    return [dict(zip(keys, values)) for values in itertools.product(*options.values())]


CONFIGS = (
    [("SGD", {"lr": 0.1})]
    + [
        ("SGD", {"lr": 0.05, **c})
        for c in _combinations(
            momentum=[0.9],
            dampening=[0.0, 0.3],
            nesterov=[False, True],
            weight_decay=[0.0, 0.1],
            maximize=[False, True],
        )
        if not (c["nesterov"] and c["dampening"])
    ]
    + [
        (name, {"lr": 0.01, **c})
        for name in ("Adam", "AdamW")
        for c in _combinations(
            amsgrad=[False, True], weight_decay=[0.0, 0.1], maximize=[False, True]
        )
    ]
    + [
        (
            "Adam",
            {"betas": (0.8, 0.9), "eps": 1e-3, "decoupled_weight_decay": True, "weight_decay": 0.2},
        )
    ]
    + [
        ("RMSprop", {"lr": 0.01, **c})
        for c in _combinations(
            alpha=[0.9],
            momentum=[0.0, 0.5],
            centered=[False, True],
            weight_decay=[0.0, 0.1],
            maximize=[False, True],
        )
    ]
    + [
        ("Adagrad", {"lr": 0.1, **c})
        for c in _combinations(
            lr_decay=[0.0, 0.05],
            initial_accumulator_value=[0.0, 0.3],
            weight_decay=[0.0, 0.1],
            maximize=[False, True],
        )
    ]
)
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for name, kw in CONFIGS]

SHAPES = [(3, 4), (4,), ()]


def _run(lib, name, kwargs, dtype, steps=5, grads_from_loss=False):
    rng = np.random.default_rng(1)
    float_type = getattr(lib, dtype)
    params = [
        lib.nn.Parameter(lib.tensor(rng.standard_normal(shape), dtype=float_type))
        for shape in SHAPES
    ]
    optimizer = getattr(lib.optim, name)(params, **kwargs)
    for step in range(steps):
        optimizer.zero_grad()
        if grads_from_loss:
            loss = sum(((p * p).sum() * (i + 1) + p.sum() * step) for i, p in enumerate(params))
            loss.backward()
        else:
            for param in params:
                param.grad = lib.tensor(rng.standard_normal(param.shape), dtype=float_type)
        optimizer.step()
    return params, optimizer


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=IDS)
def test_five_steps_match_torch(torch, name, kwargs, dtype):
    ours, optimizer = _run(hookgrad, name, kwargs, dtype)
    theirs, reference = _run(torch, name, kwargs, dtype)
    tol = 2e-6 if dtype == "float32" else 1e-13
    for p, q in zip(ours, theirs):
        assert p.dtype == getattr(hookgrad, dtype)
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=tol, atol=tol)
    for p, q in zip(ours, theirs):
        state, expected = optimizer.state[p], reference.state[q]
        assert list(state) == list(expected)
        for key in expected:
            np.testing.assert_allclose(
                state[key].numpy(), expected[key].numpy(), rtol=tol * 10, atol=tol
            )
            assert str(state[key].dtype) == str(expected[key].dtype)
    ours_sd, theirs_sd = optimizer.state_dict(), reference.state_dict()
    assert ours_sd["param_groups"] == theirs_sd["param_groups"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_gradients_from_a_loss_match_torch(torch, name):
    kwargs = {"lr": 0.05, "momentum": 0.5} if name in ("SGD", "RMSprop") else {"lr": 0.05}
    ours, _ = _run(hookgrad, name, kwargs, "float64", grads_from_loss=True)
    theirs, _ = _run(torch, name, kwargs, "float64", grads_from_loss=True)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12)


def test_step_bumps_versions_and_skips_params_without_grad():
    a = hookgrad.nn.Parameter(hookgrad.ones(2))
    b = hookgrad.nn.Parameter(hookgrad.ones(2))
    opt = hoptim.SGD([a, b], lr=0.5)
    a.grad = hookgrad.ones(2)
    before = a._version, b._version
    opt.step()
    assert a._version == before[0] + 1
    assert b._version == before[1]
    np.testing.assert_allclose(a.detach().numpy(), [0.5, 0.5])
    np.testing.assert_allclose(b.detach().numpy(), [1.0, 1.0])


def test_step_runs_the_closure_with_grad_enabled():
    w = hookgrad.nn.Parameter(hookgrad.tensor([3.0]))
    opt = hoptim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with hookgrad.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 9.0
    assert w.item() == pytest.approx(2.4)
    assert not w.grad.requires_grad
