"""Learning-rate schedulers: the lr sequences against torch's, get_last_lr, state_dict."""

import warnings

import pytest

import hookgrad
from hookgrad.optim import lr_scheduler


class Halving:
    """A callable object: LambdaLR saves its ``__dict__`` in the state dict."""

    def __init__(self):
        self.factor = 0.5

    def __call__(self, epoch):
        return self.factor ** (epoch // 3)


SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("StepLR", {"step_size": 1}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 4}),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    ("LambdaLR", {"lr_lambda": lambda epoch: 1 / (epoch + 1)}),
    ("LambdaLR", {"lr_lambda": [lambda epoch: 0.9**epoch, Halving()]}),
]


def _build(lib, name, kwargs):
    weights = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))]
    opt = lib.optim.SGD([{"params": weights[:1]}, {"params": weights[1:], "lr": 0.5}], lr=0.1)
    return getattr(lib.optim.lr_scheduler, name)(opt, **kwargs), opt


def _run(scheduler, opt, epochs):
    lrs = []
    for _ in range(epochs):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
        assert lrs[-1] == [group["lr"] for group in opt.param_groups]
    return lrs


def _schedule(lib, name, kwargs, epochs=14):
    scheduler, opt = _build(lib, name, kwargs)
    lrs = [scheduler.get_last_lr()] + _run(scheduler, opt, epochs)
    return lrs, scheduler, opt


@pytest.mark.parametrize("name, kwargs", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_lr_sequence_matches_torch(torch, name, kwargs):
    ours, scheduler, opt = _schedule(hookgrad, name, kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, reference, _ = _schedule(torch, name, kwargs)
    assert ours == theirs
    expected = reference.state_dict()
    expected.pop("_get_lr_called_within_step")  # torch's guard for calls of get_lr()
    assert scheduler.state_dict() == expected
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.5]


@pytest.mark.parametrize("name, kwargs", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_state_dict_resumes_the_schedule(name, kwargs):
    full, _, _ = _schedule(hookgrad, name, kwargs, epochs=10)
    _, scheduler, opt = _schedule(hookgrad, name, kwargs, epochs=4)
    resumed, resumed_opt = _build(hookgrad, name, kwargs)
    resumed_opt.load_state_dict(opt.state_dict())
    resumed.load_state_dict(scheduler.state_dict())
    assert _run(resumed, resumed_opt, 6) == full[5:]


def test_resuming_needs_initial_lr():
    opt = hookgrad.optim.SGD([hookgrad.nn.Parameter(hookgrad.ones(1))], lr=0.1)
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(opt, 2, last_epoch=3)


def test_errors():
    opt = hookgrad.optim.SGD([hookgrad.nn.Parameter(hookgrad.ones(1))], lr=0.1)
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], 2)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        lr_scheduler.LambdaLR(opt, [abs, abs])
