"""``swa_utils`` against torch's: averaged parameters and buffers under every averaging
function, ``update_bn``'s statistics, ``SWALR``'s learning rates and state, and errors."""

import warnings

import numpy as np
import pytest

import hookgrad


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(
        lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2)
    )


def _train_a_little(lib, model, rng):
    """Move the parameters and the batch-norm statistics, identically in both libraries."""
    with lib.no_grad():
        for p in model.parameters():
            p.add_(lib.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype))
    model(lib.tensor(rng.standard_normal((5, 3)), dtype=lib.float32))


def _averaging(lib, name):
    swa = lib.optim.swa_utils
    return {
        "swa": {},
        "ema": {"avg_fn": swa.get_ema_avg_fn(0.9)},
        "swa_fn": {"avg_fn": swa.get_swa_avg_fn()},
        "ema_multi": {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.75)},
        "swa_multi": {"multi_avg_fn": swa.get_swa_multi_avg_fn()},
        "custom": {"avg_fn": lambda avg, cur, n: avg * 0.5 + cur * 0.5},
        "swa_buffers": {"use_buffers": True},
        "ema_multi_buffers": {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.5), "use_buffers": True},
    }[name]


def _average(lib, name, updates=4):
    rng = np.random.default_rng(1)
    model = _model(lib)
    averaged = lib.optim.swa_utils.AveragedModel(model, **_averaging(lib, name))
    for _ in range(updates):
        _train_a_little(lib, model, rng)
        averaged.update_parameters(model)
    return {k: v.detach().numpy().copy() for k, v in averaged.state_dict().items()}


@pytest.mark.parametrize(
    "name",
    [
        "swa",
        "ema",
        "swa_fn",
        "ema_multi",
        "swa_multi",
        "custom",
        "swa_buffers",
        "ema_multi_buffers",
    ],
)
def test_averaged_model_matches_torch(torch, name):
    ours, theirs = _average(hookgrad, name), _average(torch, name)
    assert list(ours) == list(theirs)
    assert ours["n_averaged"] == 4 and ours["n_averaged"].dtype == np.int64
    for key in theirs:
        if "running" in key:  # batch norm's statistics, which hookgrad rounds differently
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-6, err_msg=key)
        else:
            np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


def test_averaged_model_runs_its_copy_and_keeps_the_original():
    model = _model(hookgrad)
    averaged = hookgrad.optim.swa_utils.AveragedModel(model)
    assert averaged.module is not model
    x = hookgrad.randn(2, 3)
    model.eval(), averaged.eval()
    np.testing.assert_array_equal(averaged(x).detach().numpy(), model(x).detach().numpy())
    with hookgrad.no_grad():
        model[0].weight.add_(1.0)
    assert not np.array_equal(
        averaged.module[0].weight.detach().numpy(), model[0].weight.detach().numpy()
    )


def _update_bn(lib, batches, momentum):
    rng = np.random.default_rng(2)
    model = _model(lib)
    model[1].momentum = momentum
    model.eval()
    data = [lib.tensor(rng.standard_normal((6, 3)), dtype=lib.float32) for _ in range(3)]
    loader = [(x, x.sum(1)) for x in data] if batches == "pairs" else data
    lib.optim.swa_utils.update_bn(loader, model)
    bn = model[1]
    return bn.running_mean.numpy(), bn.running_var.numpy(), bn.momentum, model.training


@pytest.mark.parametrize("batches", ["tensors", "pairs"])
def test_update_bn_matches_torch(torch, batches):
    ours, theirs = _update_bn(hookgrad, batches, 0.3), _update_bn(torch, batches, 0.3)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, atol=1e-7)
    assert ours[2:] == theirs[2:] == (0.3, False)


def test_update_bn_without_batch_norm_does_nothing():
    model = hookgrad.nn.Linear(2, 2)
    hookgrad.optim.swa_utils.update_bn([object()], model)


def _swalr(lib, options, steps=12):
    p = lib.nn.Parameter(lib.ones(1))
    q = lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=0.1)
    scheduler = lib.optim.swa_utils.SWALR(opt, **options)
    lrs = [scheduler.get_last_lr()]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
    state = {k: v for k, v in scheduler.state_dict().items()}
    return lrs, state, [g["swa_lr"] for g in opt.param_groups]


@pytest.mark.parametrize(
    "options",
    [
        {"swa_lr": 0.05},
        {"swa_lr": [0.01, 0.02], "anneal_epochs": 3, "anneal_strategy": "linear"},
        {"swa_lr": 0.2, "anneal_epochs": 0},
        {"swa_lr": 0.05, "anneal_epochs": 1, "anneal_strategy": "cos"},
    ],
)
def test_swalr_matches_torch(torch, options):
    assert _swalr(hookgrad, options) == _swalr(torch, options)


def test_swalr_state_dict_resumes():
    full, _, _ = _swalr(hookgrad, {"swa_lr": 0.05, "anneal_epochs": 5}, steps=8)
    p = hookgrad.nn.Parameter(hookgrad.ones(1))
    q = hookgrad.nn.Parameter(hookgrad.ones(1))
    opt = hookgrad.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=0.1)
    scheduler = hookgrad.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=5)
    for _ in range(3):
        opt.step()
        scheduler.step()
    saved_opt, saved = opt.state_dict(), scheduler.state_dict()
    assert "anneal_func" not in saved
    opt2 = hookgrad.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=0.1)
    resumed = hookgrad.optim.swa_utils.SWALR(opt2, swa_lr=0.05, anneal_strategy="linear")
    opt2.load_state_dict(saved_opt)
    resumed.load_state_dict(saved)
    assert resumed.anneal_func is resumed._cosine_anneal
    lrs = []
    for _ in range(5):
        opt2.step()
        resumed.step()
        lrs.append(resumed.get_last_lr())
    assert lrs == full[4:]


def test_get_lr_outside_step_warns(torch):
    messages = []
    for lib in (hookgrad, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        scheduler = lib.optim.swa_utils.SWALR(opt, swa_lr=0.05)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.get_lr()
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


ERRORS = [
    lambda lib: lib.optim.swa_utils.get_ema_avg_fn(1.5),
    lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1),
    lambda lib: lib.optim.swa_utils.AveragedModel(
        lib.nn.Linear(1, 1), avg_fn=abs, multi_avg_fn=abs
    ),
    lambda lib: lib.optim.swa_utils.SWALR(
        lib.optim.SGD([lib.nn.Parameter(lib.ones(1))]), swa_lr=0.1, anneal_strategy="exp"
    ),
    lambda lib: lib.optim.swa_utils.SWALR(
        lib.optim.SGD([lib.nn.Parameter(lib.ones(1))]), swa_lr=0.1, anneal_epochs=-1
    ),
    lambda lib: lib.optim.swa_utils.SWALR(
        lib.optim.SGD([lib.nn.Parameter(lib.ones(1))]), swa_lr=[0.1, 0.2]
    ),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(torch, index):
    raised = []
    for lib in (torch, hookgrad):
        with pytest.raises(Exception) as info:
            ERRORS[index](lib)
        raised.append((info.type, str(info.value)))
    assert raised[0] == raised[1]
