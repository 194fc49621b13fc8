"""Learning-rate schedulers against torch's: the learning rates (and cycled momenta) of
many steps to the last bit, ``get_last_lr``, ``state_dict`` and resuming from it, chaining,
warnings, and torch's errors for bad arguments."""

import copy
import math
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


def _s(name, **kwargs):
    return lambda lib, opt: getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)


def _sequential(lib, opt):
    schedulers = lib.optim.lr_scheduler
    warmup = schedulers.LinearLR(opt, start_factor=0.2, total_iters=4)
    decay = schedulers.CosineAnnealingLR(opt, T_max=6, eta_min=0.001)
    step = schedulers.StepLR(opt, step_size=2, gamma=0.5)
    return schedulers.SequentialLR(opt, [warmup, decay, step], milestones=[4, 11])


def _chained(lib, opt):
    schedulers = lib.optim.lr_scheduler
    return schedulers.ChainedScheduler(
        [
            schedulers.ConstantLR(opt, factor=0.5, total_iters=3),
            schedulers.ExponentialLR(opt, gamma=0.9),
            schedulers.MultiplicativeLR(opt, lambda epoch: 0.97),
        ]
    )


def _nested(lib, opt):
    schedulers = lib.optim.lr_scheduler
    inner = schedulers.ChainedScheduler(
        [schedulers.LinearLR(opt, 0.5, total_iters=3), schedulers.ExponentialLR(opt, 0.95)]
    )
    return schedulers.SequentialLR(
        opt, [inner, schedulers.PolynomialLR(opt, total_iters=8, power=2.0)], milestones=[6]
    )


SCHEDULERS = {
    "StepLR": _s("StepLR", step_size=3, gamma=0.5),
    "StepLR-1": _s("StepLR", step_size=1),
    "MultiStepLR": _s("MultiStepLR", milestones=[2, 5, 5, 9], gamma=0.3),
    "ExponentialLR": _s("ExponentialLR", gamma=0.9),
    "CosineAnnealingLR": _s("CosineAnnealingLR", T_max=4),
    "CosineAnnealingLR-eta": _s("CosineAnnealingLR", T_max=5, eta_min=0.01),
    "LambdaLR": _s("LambdaLR", lr_lambda=lambda epoch: 1 / (epoch + 1)),
    "LambdaLR-list": _s("LambdaLR", lr_lambda=[lambda epoch: 0.9**epoch, Halving()]),
    "MultiplicativeLR": _s("MultiplicativeLR", lr_lambda=lambda epoch: 0.95),
    "MultiplicativeLR-list": _s(
        "MultiplicativeLR", lr_lambda=[lambda epoch: 0.9, lambda epoch: 1 - epoch / 100]
    ),
    "ConstantLR": _s("ConstantLR"),
    "ConstantLR-0.3": _s("ConstantLR", factor=0.3, total_iters=7),
    "LinearLR": _s("LinearLR"),
    "LinearLR-down": _s("LinearLR", start_factor=1.0, end_factor=0.05, total_iters=13),
    "PolynomialLR": _s("PolynomialLR"),
    "PolynomialLR-2": _s("PolynomialLR", total_iters=17, power=2.0),
    "CosineAnnealingWarmRestarts": _s("CosineAnnealingWarmRestarts", T_0=4),
    "CosineAnnealingWarmRestarts-mult": _s(
        "CosineAnnealingWarmRestarts", T_0=3, T_mult=2, eta_min=0.002
    ),
    "CyclicLR": _s("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=4),
    "CyclicLR-triangular2": _s(
        "CyclicLR",
        base_lr=[0.01, 0.02],
        max_lr=0.2,
        step_size_up=3,
        step_size_down=5,
        mode="triangular2",
        base_momentum=[0.7, 0.75],
        max_momentum=0.95,
    ),
    "CyclicLR-exp_range": _s(
        "CyclicLR", base_lr=0.001, max_lr=0.05, step_size_up=5, mode="exp_range", gamma=0.97
    ),
    "CyclicLR-scale_fn": _s(
        "CyclicLR",
        base_lr=0.001,
        max_lr=0.05,
        step_size_up=2,
        scale_fn=lambda x: 0.9**x,
        scale_mode="iterations",
        cycle_momentum=False,
    ),
    "OneCycleLR": _s("OneCycleLR", max_lr=0.5, total_steps=40),
    "OneCycleLR-linear": _s(
        "OneCycleLR",
        max_lr=[0.3, 0.6],
        epochs=4,
        steps_per_epoch=10,
        pct_start=0.25,
        anneal_strategy="linear",
        div_factor=10.0,
        final_div_factor=100.0,
    ),
    "OneCycleLR-three_phase": _s(
        "OneCycleLR",
        max_lr=0.2,
        total_steps=41,
        three_phase=True,
        base_momentum=0.8,
        max_momentum=[0.9, 0.99],
    ),
    "SequentialLR": _sequential,
    "ChainedScheduler": _chained,
    "SequentialLR-nested": _nested,
}
STEPS = 40


def _optimizer(lib, name="SGD"):
    weights = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))]
    groups = [{"params": weights[:1]}, {"params": weights[1:], "lr": 0.5}]
    if name == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return getattr(lib.optim, name)(groups, lr=0.1)


def _group_values(opt):
    keys = ("lr", "momentum", "betas")
    return [{k: group[k] for k in keys if k in group} for group in opt.param_groups]


def _run(scheduler, opt, steps):
    trace = []
    for _ in range(steps):
        opt.step()
        scheduler.step()
        trace.append((scheduler.get_last_lr(), _group_values(opt)))
        assert trace[-1][0] == [group["lr"] for group in opt.param_groups]
    return trace


def _schedule(lib, build, steps=STEPS, optimizer="SGD"):
    """The learning rates and momenta of ``steps`` steps, and the warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt = _optimizer(lib, optimizer)
        scheduler = build(lib, opt)
        trace = [(scheduler.get_last_lr(), _group_values(opt))] + _run(scheduler, opt, steps)
    trace.append([str(w.message) for w in caught])
    return trace, scheduler, opt


def _comparable(state):
    """A scheduler state with the (unpicklable, unequal) functions it may hold removed."""
    state = {k: v for k, v in state.items() if not callable(v)}
    if "_schedulers" in state:
        state["_schedulers"] = [_comparable(s) for s in state["_schedulers"]]
    return state


@pytest.mark.parametrize("name", SCHEDULERS)
def test_schedule_matches_torch(torch, name):
    ours, scheduler, opt = _schedule(hookgrad, SCHEDULERS[name])
    theirs, reference, _ = _schedule(torch, SCHEDULERS[name])
    assert ours == theirs
    assert _comparable(scheduler.state_dict()) == _comparable(reference.state_dict())
    assert [sorted(g) for g in opt.param_groups] == [
        sorted(g) for g in reference.optimizer.param_groups
    ]


def test_adam_betas_are_cycled_as_torch_cycles_them(torch):
    build = _s("OneCycleLR", max_lr=0.1, total_steps=12)
    ours, _, _ = _schedule(hookgrad, build, steps=12, optimizer="Adam")
    theirs, _, _ = _schedule(torch, build, steps=12, optimizer="Adam")
    assert ours == theirs
    assert ours[3][1][0]["betas"][1] == 0.999


@pytest.mark.filterwarnings("ignore:Detected call of")
@pytest.mark.parametrize("name", SCHEDULERS)
def test_state_dict_resumes_the_schedule(name):
    build = SCHEDULERS[name]
    full, _, _ = _schedule(hookgrad, build, steps=20)
    _, scheduler, opt = _schedule(hookgrad, build, steps=7)
    saved_opt, saved = copy.deepcopy(opt.state_dict()), scheduler.state_dict()
    resumed_opt = _optimizer(hookgrad)
    resumed = build(hookgrad, resumed_opt)
    resumed_opt.load_state_dict(saved_opt)
    resumed.load_state_dict(saved)
    assert _run(resumed, resumed_opt, 13) == full[8:-1]


@pytest.mark.parametrize(
    "metrics, kwargs",
    [
        ([1.0, 0.9, 0.95, 0.93, 0.92, 0.91, 0.9, 0.95, 0.7, 0.71, 0.72, 0.73] * 3, {}),
        ([5, 4, 4, 4, 4, 3, 3, 3, 3, 3] * 3, {"patience": 1, "factor": 0.5, "cooldown": 2}),
        (
            [0.1, 0.2, 0.2, 0.25, 0.24, 0.24, 0.3, 0.3, 0.3] * 4,
            {"mode": "max", "threshold_mode": "abs", "threshold": 0.01, "patience": 0},
        ),
        (
            [3.0, 3.0, 2.9999, 2.0, 2.0, 2.0] * 5,
            {"mode": "max", "patience": 2, "min_lr": [0.05, 0.2], "factor": 0.3},
        ),
        ([1.0] * 30, {"patience": 0, "min_lr": 0.0099, "eps": 1e-3}),
    ],
)
def test_reduce_lr_on_plateau_matches_torch(torch, metrics, kwargs):
    runs = []
    for lib in (hookgrad, torch):
        opt = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        trace = []
        for index, metric in enumerate(metrics):
            opt.step()
            scheduler.step(lib.tensor(metric) if index % 2 else metric)
            trace.append((scheduler.get_last_lr(), scheduler.num_bad_epochs, scheduler.best))
        runs.append((trace, scheduler.state_dict()))
    assert runs[0] == runs[1]


def test_reduce_lr_on_plateau_resumes_and_follows_new_groups():
    opt = _optimizer(hookgrad)
    scheduler = lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
    for metric in (1.0, 2.0):
        scheduler.step(metric)
    resumed = lr_scheduler.ReduceLROnPlateau(_optimizer(hookgrad), patience=0, factor=0.5)
    resumed.load_state_dict(scheduler.state_dict())
    assert (resumed.best, resumed.last_epoch, resumed.mode_worse) == (1.0, 2, math.inf)
    opt.add_param_group({"params": [hookgrad.nn.Parameter(hookgrad.ones(1))], "lr": 0.4})
    scheduler.step(3.0)
    assert scheduler.get_last_lr() == [0.025, 0.125, 0.2]
    fixed = lr_scheduler.ReduceLROnPlateau(_optimizer(hookgrad), min_lr=[0, 0], patience=0)
    fixed.optimizer.add_param_group({"params": [hookgrad.nn.Parameter(hookgrad.ones(1))]})
    fixed.step(1.0)
    with pytest.raises(RuntimeError, match=r"param groups in the `optimizer` \(3\) differs"):
        fixed.step(2.0)


@pytest.mark.parametrize(
    "name, build, epochs",
    [
        ("StepLR", _s("StepLR", step_size=3, gamma=0.5), [4, 9, 2, 0]),
        ("MultiStepLR", _s("MultiStepLR", milestones=[2, 5, 5]), [6, 1, 5]),
        ("ConstantLR", _s("ConstantLR", factor=0.25, total_iters=3), [1, 4, 2]),
        ("LinearLR", _s("LinearLR", start_factor=0.1, total_iters=4), [2, 7, 1]),
        ("ExponentialLR", _s("ExponentialLR", gamma=0.8), [3, 1, 6]),
        ("PolynomialLR", _s("PolynomialLR", total_iters=6, power=3.0), [2, 9, 5]),
        ("CosineAnnealingLR", _s("CosineAnnealingLR", T_max=7), [3, 10, 1]),
        ("LambdaLR", _s("LambdaLR", lr_lambda=lambda e: 0.5**e), [3, 1]),
        ("WarmRestarts", _s("CosineAnnealingWarmRestarts", T_0=3, T_mult=2), [0.5, 4, 11.25, 2]),
        ("WarmRestarts-1", _s("CosineAnnealingWarmRestarts", T_0=4), [6.5, 1, 13]),
    ],
)
def test_step_with_an_epoch_warns_and_uses_the_closed_form(torch, name, build, epochs):
    runs = []
    for lib in (hookgrad, torch):
        opt = _optimizer(lib)
        scheduler = build(lib, opt)
        trace = []
        for epoch in epochs:
            opt.step()
            if name.startswith("WarmRestarts"):
                scheduler.step(epoch)
            else:
                with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step"):
                    scheduler.step(epoch)
            scheduler.step()
            trace.append(scheduler.get_last_lr())
        runs.append(trace)
    assert runs[0] == runs[1]


def _warnings(lib, action):
    opt = _optimizer(lib)
    scheduler = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action(opt, scheduler)
    return [str(w.message) for w in caught if w.category is UserWarning]


def _override_step(opt, scheduler):
    opt.step = lambda closure=None: None
    opt.step()
    scheduler.step()


@pytest.mark.parametrize(
    "action",
    [
        lambda opt, s: s.step(),
        lambda opt, s: (opt.step(), s.step(), s.step()),
        lambda opt, s: s.get_lr(),
        _override_step,
    ],
    ids=["scheduler-before-optimizer", "in-order", "get_lr", "overridden-step"],
)
def test_warnings_match_torch(torch, action):
    assert _warnings(hookgrad, action) == _warnings(torch, action)


def test_tensor_learning_rates_are_filled_in_place(torch):
    runs = []
    for lib in (hookgrad, torch):
        lr = lib.tensor(0.1, dtype=lib.float64)
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=lr)
        scheduler = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        opt.step()
        scheduler.step()
        last = scheduler.get_last_lr()[0]
        assert opt.param_groups[0]["lr"] is lr and last is not lr
        runs.append((lr.item(), last.item()))
    assert runs[0] == runs[1] == [(0.05, 0.05)][0]


def test_resuming_needs_initial_lr(torch):
    for lib in (hookgrad, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        with pytest.raises(KeyError, match=r"'initial_lr' is not specified in param_groups\[0\]"):
            lib.optim.lr_scheduler.StepLR(opt, 2, last_epoch=3)


def _opt(lib):
    return _optimizer(lib)


ERRORS = [
    lambda lib: lib.optim.lr_scheduler.StepLR([], 2),
    lambda lib: lib.optim.lr_scheduler.LambdaLR(_opt(lib), [abs, abs, abs]),
    lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(_opt(lib), [abs, 3]),
    lambda lib: lib.optim.lr_scheduler.ConstantLR(_opt(lib), factor=1.5),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_opt(lib), start_factor=0),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_opt(lib), end_factor=2),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), T_0=0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), 2, T_mult=1.5),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), 2, eta_min="0"),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), 2).step(-1),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_opt(lib), 0.1, [0.2, 0.3, 0.4]),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_opt(lib), 0.1, 0.2, mode="square"),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(
        _opt(
            lib,
        ),
        0.1,
        0.2,
        base_momentum=[1],
    ),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(
        lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))]), 0.1, 0.2
    ),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, total_steps=0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, epochs=2, steps_per_epoch=0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, epochs=0, steps_per_epoch=2),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, 10, pct_start=1),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, 10, anneal_strategy="exp"),
    lambda lib: (lambda s: [s.step() for _ in range(3)])(
        lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, 2)
    ),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), factor=1.0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), mode="avg"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), threshold_mode="x"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), min_lr=[0.1]),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(None),
    lambda lib: lib.optim.lr_scheduler.SequentialLR(_opt(lib), [], []),
    lambda lib: lib.optim.lr_scheduler.SequentialLR(_opt(lib), [object()], []),
    lambda lib: (
        lambda o: lib.optim.lr_scheduler.SequentialLR(
            o, [lib.optim.lr_scheduler.ReduceLROnPlateau(o)], []
        )
    )(_opt(lib)),
    lambda lib: (
        lambda o: lib.optim.lr_scheduler.SequentialLR(o, [lib.optim.lr_scheduler.StepLR(o, 2)], [3])
    )(_opt(lib)),
    lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]),
    lambda lib: (
        lambda o: lib.optim.lr_scheduler.ChainedScheduler(
            [lib.optim.lr_scheduler.StepLR(o, 2), lib.optim.lr_scheduler.StepLR(_opt(lib), 2)],
            optimizer=o,
        )
    )(_opt(lib)),
]


def _error(build):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            build()
        except Exception as error:  # noqa: BLE001
            return type(error), str(error)
    raise AssertionError("no error raised")


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(torch, index):
    build = ERRORS[index]
    error_type, message = _error(lambda: build(torch))
    ours_type, ours = _error(lambda: build(hookgrad))
    assert ours_type is error_type
    if "which is different from" in message:  # names the optimizers' reprs
        message, ours = message.split(" has ")[0], ours.split(" has ")[0]
    assert ours == message


def _warmup_scheduler(lib):
    """A user's scheduler written against the old base class name."""

    class Warmup(lib.optim.lr_scheduler._LRScheduler):
        def __init__(self, optimizer, warmup, last_epoch=-1):
            self.warmup = warmup
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            scale = min(1.0, (self.last_epoch + 1) / self.warmup)
            return [base * scale for base in self.base_lrs]

    return Warmup


def test_a_scheduler_subclassing_the_old_base_runs_as_in_torch(torch):
    runs = []
    for lib in (hookgrad, torch):
        opt = _optimizer(lib)
        scheduler = _warmup_scheduler(lib)(opt, warmup=4)
        runs.append([scheduler.get_last_lr()] + [r[0] for r in _run(scheduler, opt, 6)])
    assert runs[0] == runs[1]
    assert issubclass(lr_scheduler._LRScheduler, lr_scheduler.LRScheduler)
