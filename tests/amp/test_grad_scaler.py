"""``amp.GradScaler`` against torch: on the CPU it scales, unscales, skips steps with
inf/NaN gradients and adjusts its scale as torch's does; for CUDA (the default device) it
disables itself as a CPU-only torch's does (written here: a CUDA build of torch with a GPU
would not)."""

import math
import pickle
import warnings

import pytest

import hookgrad
from tests.oracle import observe, outcome


def _values(tensor):
    """A tensor's values and dtype, with infs and NaNs as strings (NaN != NaN)."""
    values = [v if math.isfinite(v) else repr(v) for v in tensor.detach().reshape(-1).tolist()]
    return values, str(tensor.dtype)


def _training(m, scaler_args, losses):
    """Run one step per loss factor with a GradScaler; log what the scaler and the
    parameter go through."""
    p = m.nn.Parameter(m.tensor([1.0, -2.0]))
    optimizer = m.optim.SGD([p], lr=0.1)
    scaler = m.amp.GradScaler("cpu", **scaler_args)
    log = [scaler.get_scale(), scaler.state_dict()]
    for factor in losses:
        optimizer.zero_grad()
        loss = scaler.scale((p * p).sum() * factor)
        log.append(_values(loss))
        loss.backward()
        log.append(_values(p.grad))
        log.append(scaler.step(optimizer))
        log.append(_values(p.grad))
        scaler.update()
        log.append([_values(p), scaler.get_scale(), scaler.state_dict()])
    return log


@pytest.mark.parametrize(
    ("scaler_args", "losses"),
    [
        ({}, [1.0, 2.0]),
        ({"init_scale": 4.0, "growth_interval": 2}, [1.0, 1.0, 1.0, float("inf"), 1.0]),
        ({"init_scale": 8.0, "backoff_factor": 0.25}, [float("nan"), float("inf"), 0.5]),
        ({"init_scale": 2.0**127, "growth_interval": 1}, [0.0, 0.0]),
    ],
)
def test_training_steps_match_torch(torch, scaler_args, losses):
    def scenario(m):
        return _training(m, scaler_args, losses)

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_unscale_then_clip_matches_torch(torch):
    def scenario(m):
        p = m.nn.Parameter(m.tensor([3.0, 4.0]))
        optimizer = m.optim.SGD([p], lr=1.0)
        scaler = m.amp.GradScaler("cpu", init_scale=16.0)
        scaler.scale((p * p).sum()).backward()
        log = [observe(p.grad)]
        scaler.unscale_(optimizer)
        log.append(observe(p.grad))
        log.append(float(m.nn.utils.clip_grad_norm_([p], 1.0)))
        log.append(outcome(lambda m: scaler.unscale_(optimizer), m))
        scaler.step(optimizer)
        log.append(outcome(lambda m: scaler.unscale_(optimizer), m))
        log.append(outcome(lambda m: scaler.step(optimizer), m))
        scaler.update(new_scale=2.0)
        log.append(scaler.get_scale())
        return log + [observe(p)]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_misuse_matches_torch(torch):
    def scenario(m):
        p = m.nn.Parameter(m.ones(2))
        optimizer = m.optim.SGD([p], lr=1.0)
        log = []
        for make in (
            lambda m: m.amp.GradScaler("cpu", growth_factor=1.0),
            lambda m: m.amp.GradScaler("cpu", backoff_factor=1.0),
            lambda m: m.amp.GradScaler("cpu").step(optimizer),
            lambda m: m.amp.GradScaler("cpu").update(),
            lambda m: m.amp.GradScaler("cpu").unscale_(optimizer),
            lambda m: m.amp.GradScaler("cpu").scale(3),
        ):
            log.append(outcome(make, m))
        scaler = m.amp.GradScaler("cpu", init_scale=2.0)
        log.append(observe(scaler.scale([m.ones(1), (m.ones(2),)])))
        log.append(outcome(lambda m: scaler.step(optimizer), m))  # no gradients
        log.append(outcome(lambda m: scaler.update(), m))
        scaler.scale(p.sum()).backward()
        log.append(outcome(lambda m: scaler.step(optimizer, closure=lambda: 0), m))
        log.append(outcome(lambda m: scaler.update(m.tensor([1.0, 2.0])), m))
        log.append(outcome(lambda m: scaler.update(m.ones(1, requires_grad=True)), m))
        scaler.update(m.tensor([5.0]))
        log.append(scaler.get_scale())
        return log

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_float16_gradients_cannot_be_unscaled(torch):
    def scenario(m):
        p = m.nn.Parameter(m.ones(2, dtype=m.float16))
        optimizer = m.optim.SGD([p], lr=1.0)
        scaler = m.amp.GradScaler("cpu")
        scaler.scale(p.sum()).backward()
        return outcome(lambda m: scaler.step(optimizer), m)

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_state_dict_and_pickle_round_trip(torch):
    def scenario(m):
        scaler = m.amp.GradScaler("cpu", init_scale=32.0, growth_interval=7)
        p = m.nn.Parameter(m.ones(1))
        optimizer = m.optim.SGD([p], lr=1.0)
        scaler.scale(p.sum()).backward()
        scaler.step(optimizer)
        scaler.update()
        copy = pickle.loads(pickle.dumps(scaler))
        fresh = m.amp.GradScaler("cpu")
        fresh.load_state_dict(scaler.state_dict())
        empty = outcome(lambda m: fresh.load_state_dict({}), m)
        return [copy.state_dict(), fresh.state_dict(), fresh.get_scale(), empty]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_cuda_scaler_disables_itself_as_in_cpu_only_torch():
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available"):
        scaler = hookgrad.amp.GradScaler()
    p = hookgrad.nn.Parameter(hookgrad.ones(2))
    optimizer = hookgrad.optim.SGD([p], lr=0.5)
    loss = p.sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    assert p.tolist() == [0.5, 0.5]
    assert (scaler.is_enabled(), scaler.get_scale(), scaler.state_dict()) == (False, 1.0, {})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = hookgrad.amp.GradScaler("cuda", enabled=False)
    assert not quiet.is_enabled()
