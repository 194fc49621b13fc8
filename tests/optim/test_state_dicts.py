"""Optimizer state dicts across libraries (``hookgrad.save`` read by ``torch.load`` with
``weights_only=True`` and loaded into torch's optimizer, and the other way), parameter
groups made from ``named_parameters()``, the state-dict hooks, and
``swap_in_optimizer_params_and_state``."""

import numpy as np
import pytest

import hookgrad

OPTIMIZERS = [
    ("Adadelta", {"weight_decay": 0.1}),
    ("Adafactor", {}),
    ("Adamax", {}),
    ("ASGD", {"t0": 1}),
    ("NAdam", {"decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("RAdam", {}),
    ("Rprop", {}),
    ("SparseAdam", {}),
    ("Muon", {}),
]
SHAPES = [(3, 4), (4, 2)]


def _sparse(grad):
    """A torch gradient in the layout of an embedding's: rows (dim 0) as entries."""
    return grad.to_sparse(sparse_dim=1) if grad.ndim > 1 else grad.to_sparse()


def _grads(lib, params, rng, sparse):
    for p in params:
        values = rng.standard_normal(tuple(p.shape)) * (rng.random(tuple(p.shape)) < 0.7)
        grad = lib.tensor(values, dtype=p.dtype)
        p.grad = _sparse(grad) if sparse and lib is not hookgrad else grad


def _steps(lib, params, optimizer, rng, steps, sparse):
    for _ in range(steps):
        _grads(lib, params, rng, sparse)
        optimizer.step()


def _start(lib, name, options, seed=3):
    rng = np.random.default_rng(seed)
    params = [
        lib.nn.Parameter(lib.tensor(rng.standard_normal(s), dtype=lib.float32)) for s in SHAPES
    ]
    groups = [{"params": params[:1]}, {"params": params[1:], "lr": 0.02}]
    return params, getattr(lib.optim, name)(groups, **options)


@pytest.mark.parametrize("name, options", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_state_dict_saved_by_one_library_resumes_in_the_other(
    torch, torch_rounding, tmp_path, name, options
):
    sparse = name == "SparseAdam"
    source = {hookgrad: torch, torch: hookgrad}
    finals = []
    for first in (hookgrad, torch):
        second = source[first]
        params, optimizer = _start(first, name, options)
        rng = np.random.default_rng(5)
        _steps(first, params, optimizer, rng, 3, sparse)
        first.save(optimizer.state_dict(), tmp_path / "opt.pt")
        loaded = (
            torch.load(tmp_path / "opt.pt", weights_only=True)
            if second is torch
            else hookgrad.load(tmp_path / "opt.pt")
        )
        resumed_params, resumed = _start(second, name, options, seed=9)
        with second.no_grad():
            for p, q in zip(resumed_params, params):
                p.copy_(second.tensor(q.detach().numpy()))
        resumed.load_state_dict(loaded)
        state = resumed.state_dict()
        assert state["param_groups"] == optimizer.state_dict()["param_groups"]
        assert [list(s) for s in state["state"].values()] == [
            list(s) for s in optimizer.state_dict()["state"].values()
        ]
        _steps(second, resumed_params, resumed, rng, 3, sparse)
        finals.append([p.detach().numpy() for p in resumed_params])
    tol = 1e-5 if name in ("Adafactor", "Muon") else 0
    for ours, theirs in zip(*finals):
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def test_named_parameters_are_kept_as_param_names(torch):
    states = []
    for lib in (hookgrad, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Linear(3, 1))
        opt = lib.optim.NAdam(model.named_parameters(), lr=0.01)
        assert opt.param_groups[0]["params"] == list(model.parameters())
        state = opt.state_dict()
        states.append(state["param_groups"])
        with pytest.raises(ValueError, match="cannot add param group without names"):
            opt.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))]})
        with pytest.raises(ValueError, match="Some param names are missing"):
            lib.optim.SGD([("w", lib.nn.Parameter(lib.ones(1))), lib.nn.Parameter(lib.ones(1))])
        fresh = lib.optim.NAdam(model.parameters(), lr=0.01)
        fresh.load_state_dict(state)
        assert fresh.param_groups[0]["param_names"] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert states[0] == states[1]


def _hook_log(lib):
    log = []
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.Adamax([p])
    opt.register_state_dict_pre_hook(lambda o: log.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: log.append("pre first"), prepend=True)
    handle = opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1
    handle.remove()
    assert "extra" not in opt.state_dict()

    def load_pre(o, sd):
        log.append("load pre")
        sd = dict(sd)
        sd["param_groups"] = [{**sd["param_groups"][0], "lr": 0.5}]
        return sd

    opt.register_load_state_dict_pre_hook(load_pre)
    opt.register_load_state_dict_post_hook(lambda o: log.append(o.param_groups[0]["lr"]))
    opt.load_state_dict(opt.state_dict())
    return log


def test_state_dict_hooks_run_as_torchs(torch):
    expected = ["pre first", "pre"] * 3 + ["load pre", 0.5]
    assert _hook_log(hookgrad) == _hook_log(torch) == expected


def _swap_in(lib):
    params, optimizer = _start(lib, "Adamax", {})
    rng = np.random.default_rng(4)
    _steps(lib, params, optimizer, rng, 2, False)
    other, other_optimizer = _start(lib, "Adamax", {}, seed=11)
    _steps(lib, other, other_optimizer, rng, 1, False)
    saved = other_optimizer.state_dict()
    before = [p.detach().numpy().copy() for p in params]
    named = {f"p{i}": p for i, p in enumerate(other)}
    _grads(lib, other, rng, False)
    swap = lib.optim.swap_in_optimizer_params_and_state
    with swap(optimizer, named, saved):
        assert optimizer.param_groups[0]["params"] == [other[0]]
        optimizer.step()
    assert optimizer.param_groups[0]["params"] == [params[0]]
    for p, b in zip(params, before):
        np.testing.assert_array_equal(p.detach().numpy(), b)
    return [p.detach().numpy() for p in other], float(saved["state"][0]["step"])


def test_swap_in_optimizer_params_and_state_matches_torch(torch):
    ours, theirs = _swap_in(hookgrad), _swap_in(torch)
    for p, q in zip(ours[0], theirs[0]):
        np.testing.assert_array_equal(p, q)
    assert ours[1] == theirs[1] == 2.0


@pytest.mark.parametrize(
    "change",
    [
        lambda sd: {"state": [], "param_groups": sd["param_groups"]},
        lambda sd: {"state": sd["state"], "param_groups": sd["param_groups"][:1]},
        lambda sd: {"state": {**sd["state"], 7: {}}, "param_groups": sd["param_groups"]},
        lambda sd: {
            "state": sd["state"],
            "param_groups": [{**sd["param_groups"][0], "extra": 1}, sd["param_groups"][1]],
        },
    ],
)
def test_swap_in_errors_match_torch(torch, change):
    messages = []
    for lib in (hookgrad, torch):
        params, optimizer = _start(lib, "Adamax", {})
        _steps(lib, params, optimizer, np.random.default_rng(0), 1, False)
        swap = lib.optim.swap_in_optimizer_params_and_state
        with pytest.raises(RuntimeError) as info:
            with swap(optimizer, dict(enumerate(params)), change(optimizer.state_dict())):
                pass
        messages.append(str(info.value))
    assert messages[0] == messages[1]
