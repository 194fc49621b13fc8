"""The ``Optimizer`` base: parameter groups, zero_grad, state_dict round trips, step hooks,
and torch's errors for bad arguments."""

import copy
import warnings

import numpy as np
import pytest

import hookgrad
import hookgrad.optim as hoptim
from hookgrad.hooks import RemovableHandle


def _params(lib, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(2, 3), (3,)]
    return [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(np.float32))) for s in shapes]


def _steps(lib, optimizer, params, count, seed=5):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        for p in params:
            p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))
        optimizer.step()


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("SGD", {"lr": 0.1, "momentum": 0.9}),
        ("Adam", {"lr": 0.01, "amsgrad": True}),
        ("AdamW", {"lr": 0.01}),
        ("RMSprop", {"lr": 0.01, "momentum": 0.3, "centered": True}),
        ("Adagrad", {"lr": 0.1}),
    ],
)
def test_state_dict_round_trip_matches_torch(torch, name, kwargs):
    ours, theirs = _params(hookgrad), _params(torch)
    opt = getattr(hoptim, name)(
        [{"params": [ours[0]]}, {"params": [ours[1]], "lr": 0.02}], **kwargs
    )
    ref = getattr(torch.optim, name)(
        [{"params": [theirs[0]]}, {"params": [theirs[1]], "lr": 0.02}], **kwargs
    )
    _steps(hookgrad, opt, ours, 3)
    _steps(torch, ref, theirs, 3)
    state, expected = opt.state_dict(), ref.state_dict()
    assert state["param_groups"] == expected["param_groups"]
    assert sorted(state["state"]) == sorted(expected["state"]) == [0, 1]
    for index in expected["state"]:
        assert list(state["state"][index]) == list(expected["state"][index])
    # a fresh optimizer that loads the state continues exactly as the original does
    saved = copy.deepcopy(state)
    clones = [hookgrad.nn.Parameter(p.detach().clone()) for p in ours]
    resumed = getattr(hoptim, name)([{"params": [clones[0]]}, {"params": [clones[1]]}], **kwargs)
    resumed.load_state_dict(saved)
    assert resumed.param_groups[1]["lr"] == 0.02
    assert resumed.param_groups[1]["params"][0] is clones[1]
    _steps(hookgrad, opt, ours, 2, seed=9)
    _steps(hookgrad, resumed, clones, 2, seed=9)
    _steps(torch, ref, theirs, 2, seed=9)
    for p, c, q in zip(ours, clones, theirs):
        np.testing.assert_array_equal(p.detach().numpy(), c.detach().numpy())
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)
    # loading copied the state: the saved dict is untouched by later steps
    assert saved["state"][0] is not resumed.state[clones[0]]


def test_load_state_dict_casts_state_to_the_param_dtype():
    p = hookgrad.nn.Parameter(hookgrad.ones(2, dtype=hookgrad.float64))
    opt = hoptim.Adam([p])
    state = {
        "state": {
            0: {
                "step": hookgrad.tensor(2.0),
                "exp_avg": hookgrad.ones(2),
                "exp_avg_sq": hookgrad.ones(2),
            }
        },
        "param_groups": opt.state_dict()["param_groups"],
    }
    opt.load_state_dict(state)
    assert opt.state[p]["exp_avg"].dtype == hookgrad.float64
    assert opt.state[p]["step"].dtype == hookgrad.float32


def test_load_state_dict_errors():
    opt = hoptim.SGD(_params(hookgrad), lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0]}]})


def test_zero_grad():
    params = _params(hookgrad)
    opt = hoptim.SGD(params, lr=0.1)
    for p in params:
        p.grad = hookgrad.ones(p.shape)
    grad = params[0].grad
    opt.zero_grad(set_to_none=False)
    assert params[0].grad is grad
    assert not grad.numpy().any()
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_param_groups_and_defaults(torch):
    ours, theirs = _params(hookgrad), _params(torch)
    opt = hoptim.SGD([ours[0]], lr=0.1, momentum=0.5)
    ref = torch.optim.SGD([theirs[0]], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": ours[1], "lr": 0.3})
    ref.add_param_group({"params": theirs[1], "lr": 0.3})
    assert opt.defaults == ref.defaults
    assert [sorted(g) for g in opt.param_groups] == [sorted(g) for g in ref.param_groups]
    assert opt.param_groups[1]["params"] == [ours[1]]
    assert opt.param_groups[1]["momentum"] == 0.5
    assert repr(opt) == repr(ref)


def _stepped(lib, optimizer):
    """``optimizer`` after one step with gradients of ones."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = lib.ones_like(p)
    optimizer.step()
    return optimizer


def _error(torch, build):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            build(torch)
        except Exception as error:  # noqa: BLE001
            return type(error), str(error)
    raise AssertionError("torch raised nothing")


@pytest.mark.parametrize(
    "build",
    [
        lambda lib: lib.optim.SGD(_params(lib)[0], lr=0.1),
        lambda lib: lib.optim.SGD([], lr=0.1),
        lambda lib: lib.optim.SGD([_params(lib)[0] * 2], lr=0.1),
        lambda lib: lib.optim.SGD([1.0], lr=0.1),
        lambda lib: lib.optim.SGD(_params(lib), lr=-0.1),
        lambda lib: lib.optim.SGD(_params(lib), momentum=-0.1),
        lambda lib: lib.optim.SGD(_params(lib), weight_decay=-0.1),
        lambda lib: lib.optim.SGD(_params(lib), lr=0.1, nesterov=True),
        lambda lib: lib.optim.SGD([{"params": _params(lib)[:1]}] * 2, lr=0.1),
        lambda lib: lib.optim.SGD(_params(lib), lr=0.1).add_param_group(_params(lib)),
        lambda lib: lib.optim.SGD(_params(lib), lr=0.1).add_param_group(
            {"params": set(_params(lib))}
        ),
        lambda lib: lib.optim.Adam(_params(lib), betas=(1.0, 0.9)),
        lambda lib: lib.optim.Adam(_params(lib), betas=(0.9, -0.1)),
        lambda lib: lib.optim.Adam(_params(lib), eps=-1.0),
        lambda lib: lib.optim.AdamW(_params(lib), weight_decay=-1.0),
        lambda lib: lib.optim.RMSprop(_params(lib), alpha=-1.0),
        lambda lib: lib.optim.Adagrad(_params(lib), lr_decay=-1.0),
        lambda lib: lib.optim.Adagrad(_params(lib), initial_accumulator_value=-1.0),
        lambda lib: lib.optim.Adadelta(_params(lib), lr=-1.0),
        lambda lib: lib.optim.Adadelta(_params(lib), rho=1.5),
        lambda lib: lib.optim.Adadelta(_params(lib), eps=-1.0),
        lambda lib: lib.optim.Adadelta(_params(lib), weight_decay=-1.0),
        lambda lib: lib.optim.Adadelta(_params(lib), lr=lib.ones(2)),
        lambda lib: lib.optim.Adamax(_params(lib), betas=(0.9, 1.0)),
        lambda lib: lib.optim.Adamax(_params(lib), eps=-1e-3),
        lambda lib: lib.optim.Adamax(_params(lib), weight_decay=-1.0),
        lambda lib: lib.optim.ASGD(_params(lib), lr=-0.1),
        lambda lib: lib.optim.ASGD(_params(lib), weight_decay=-0.1),
        lambda lib: lib.optim.NAdam(_params(lib), betas=(-0.1, 0.9)),
        lambda lib: lib.optim.NAdam(_params(lib), momentum_decay=-1.0),
        lambda lib: lib.optim.NAdam(_params(lib), eps=-1.0),
        lambda lib: lib.optim.RAdam(_params(lib), betas=(0.9, 1.5)),
        lambda lib: lib.optim.RAdam(_params(lib), weight_decay=-1.0),
        lambda lib: lib.optim.Rprop(_params(lib), etas=(1.2, 0.5)),
        lambda lib: lib.optim.Rprop(_params(lib), lr=-1),
        lambda lib: lib.optim.SparseAdam(_params(lib), lr=0.0),
        lambda lib: lib.optim.SparseAdam(_params(lib), eps=0.0),
        lambda lib: lib.optim.SparseAdam(_params(lib), betas=(0.9, 1.0)),
        lambda lib: lib.optim.SparseAdam([lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))]),
        lambda lib: lib.optim.Adafactor(_params(lib), lr=-1.0),
        lambda lib: lib.optim.Adafactor(_params(lib), beta2_decay=0.5),
        lambda lib: lib.optim.Adafactor(_params(lib), eps=(-1.0, 1e-3)),
        lambda lib: lib.optim.Adafactor(_params(lib), eps=(None, -1.0)),
        lambda lib: lib.optim.Adafactor(_params(lib), d=0.5),
        lambda lib: lib.optim.Adafactor(_params(lib), weight_decay=-0.5),
        lambda lib: lib.optim.Muon(_params(lib)),
        lambda lib: lib.optim.Muon(_params(lib)[:1], lr=-1.0),
        lambda lib: lib.optim.Muon(_params(lib)[:1], momentum=-1.0),
        lambda lib: lib.optim.Muon(_params(lib)[:1], weight_decay=-1.0),
        lambda lib: lib.optim.Muon(_params(lib)[:1], adjust_lr_fn="square"),
        lambda lib: _stepped(lib, lib.optim.Muon(_params(lib)[:1], ns_steps=100)),
        lambda lib: _stepped(lib, lib.optim.Muon(_params(lib)[:1], ns_coefficients=(1, 2))),
        lambda lib: lib.optim.Adadelta(_params(lib), fused=True),
        lambda lib: lib.optim.Muon(_params(lib)[:1], foreach=True),
        lambda lib: _stepped(lib, lib.optim.Adadelta(_params(lib), capturable=True)),
        lambda lib: _stepped(lib, lib.optim.Adamax(_params(lib), capturable=True)),
        lambda lib: _stepped(lib, lib.optim.ASGD(_params(lib), capturable=True)),
        lambda lib: _stepped(lib, lib.optim.NAdam(_params(lib), capturable=True)),
        lambda lib: _stepped(lib, lib.optim.RAdam(_params(lib), capturable=True)),
        lambda lib: _stepped(lib, lib.optim.Rprop(_params(lib), capturable=True)),
        lambda lib: _stepped(lib, lib.optim.NAdam(_params(lib), differentiable=True)),
        lambda lib: _stepped(lib, lib.optim.Adam(_params(lib), capturable=True)),
        lambda lib: _stepped(lib, lib.optim.AdamW(_params(lib), differentiable=True)),
        lambda lib: _stepped(lib, lib.optim.RMSprop(_params(lib), capturable=True)),
        lambda lib: _stepped(lib, lib.optim.SGD(_params(lib), differentiable=True)),
        lambda lib: _stepped(lib, lib.optim.Adagrad(_params(lib), differentiable=True)),
        lambda lib: _stepped(lib, lib.optim.Rprop(_params(lib), differentiable=True)),
        lambda lib: _stepped(
            lib, lib.optim.Adafactor([lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))])
        ),
    ],
)
def test_errors_match_torch(torch, build):
    error_type, message = _error(torch, build)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error_type) as info:
            build(hookgrad)
    assert str(info.value) == message


def test_duplicate_params_warn():
    p = _params(hookgrad)[0]
    with pytest.warns(UserWarning, match="duplicate parameters"):
        hoptim.SGD([p, p], lr=0.1)


def test_step_hooks():
    params = _params(hookgrad)
    opt = hoptim.SGD(params, lr=0.1)
    calls = []

    def pre(optimizer, args, kwargs):
        calls.append(("pre", optimizer, args, kwargs))

    def post(optimizer, args, kwargs):
        calls.append(("post", optimizer, args, kwargs))
        assert params[0].grad is not None

    pre_handle = opt.register_step_pre_hook(pre)
    post_handle = opt.register_step_post_hook(post)
    assert isinstance(pre_handle, RemovableHandle)
    for p in params:
        p.grad = hookgrad.ones(p.shape)
    opt.step()
    assert [c[0] for c in calls] == ["pre", "post"]
    assert calls[0][1] is opt and calls[0][2] == () and calls[0][3] == {}
    pre_handle.remove()
    post_handle.remove()
    opt.step()
    assert len(calls) == 2


def test_step_pre_hook_may_replace_arguments():
    w = hookgrad.nn.Parameter(hookgrad.tensor([1.0]))
    opt = hoptim.SGD([w], lr=0.1)
    seen = []

    def closure():
        seen.append(True)
        opt.zero_grad()
        (w * 2).sum().backward()

    opt.register_step_pre_hook(lambda optimizer, args, kwargs: ((closure,), {}))
    opt.step()
    assert seen == [True]
    assert w.item() == pytest.approx(0.8)


def test_global_step_hooks_run_around_the_optimizers_own_in_torchs_order(torch):
    logs = []
    import importlib

    for lib in (hookgrad, torch):
        log: list[str] = []
        note = log.append
        module = importlib.import_module(f"{lib.__name__}.optim.optimizer")
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1)
        handles = [
            module.register_optimizer_step_pre_hook(lambda o, a, k, note=note: note("global pre")),
            module.register_optimizer_step_post_hook(
                lambda o, a, k, note=note: note("global post")
            ),
            opt.register_step_pre_hook(lambda o, a, k, note=note: note("own pre")),
            opt.register_step_post_hook(lambda o, a, k, note=note: note("own post")),
        ]
        p.grad = lib.ones(2)
        opt.step()
        for handle in handles:
            handle.remove()
        opt.step()
        logs.append(log)
    assert logs[0] == logs[1] == ["global pre", "own pre", "own post", "global post"]
