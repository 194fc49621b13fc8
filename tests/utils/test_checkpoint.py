"""``utils.checkpoint``: gradients equal the un-checkpointed ones (hookgrad and torch), the
forward keeps no activations, backward recomputes as torch does, and the errors."""

from __future__ import annotations

import gc
import tracemalloc
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

VARIANTS = [False, True]  # use_reentrant


def checkpoint_of(lib: Any) -> Any:
    if lib is hookgrad:
        return hookgrad.utils.checkpoint
    import torch.utils.checkpoint

    return torch.utils.checkpoint


def parameters(lib: Any) -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = lib.tensor(rng.standard_normal((4, 4)) * 0.5, requires_grad=True)
    return x, w


def block(x: Any, w: Any, scale: float = 1.0) -> Any:
    hidden = (x @ w).tanh() * scale
    return (hidden @ w).sigmoid() * hidden.exp()


def grads_of(lib: Any, use_reentrant: bool | None) -> list[Any]:
    """Gradients of a loss through ``block``: checkpointed unless ``use_reentrant`` is
    None."""
    x, w = parameters(lib)
    if use_reentrant is None:
        out = block(x, w, 0.5)
    elif use_reentrant:
        out = checkpoint_of(lib).checkpoint(block, x, w, 0.5, use_reentrant=True)
    else:
        out = checkpoint_of(lib).checkpoint(block, x, w, scale=0.5, use_reentrant=False)
    (out.pow(2).sum() + out.sum()).backward()
    return [x.grad.numpy().copy(), w.grad.numpy().copy()]


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_gradients_equal_the_uncheckpointed_ones(torch: Any, use_reentrant: bool) -> None:
    ours = grads_of(hookgrad, use_reentrant)
    plain = grads_of(hookgrad, None)
    theirs = grads_of(torch, use_reentrant)
    for a, b, c in zip(ours, plain, theirs):
        assert np.array_equal(a, b)  # the same ops recomputed: bit for bit
        np.testing.assert_allclose(a, c, rtol=1e-10)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_forward_keeps_no_intermediate_activations(use_reentrant: bool) -> None:
    x, w = parameters(hookgrad)
    watched: list[weakref.ref] = []  # the memory of each activation

    def layers(h: Any) -> Any:
        for _ in range(3):
            h = (h @ w).relu()
            watched.append(weakref.ref(h.detach().numpy()))
        return h.sum(1)

    out = checkpoint(layers, x, use_reentrant=use_reentrant)
    gc.collect()
    assert len(watched) == 3 and all(ref() is None for ref in watched)
    plain = layers(x)
    gc.collect()
    assert all(ref() is not None for ref in watched[3:])  # without checkpoint: kept
    out.sum().backward()
    plain.sum().backward()


def call_log(lib: Any, use_reentrant: bool) -> list[Any]:
    log: list[Any] = []

    def fn(x: Any, w: Any) -> Any:
        log.append("start")
        a = (x * w).exp()
        log.append("mid")
        b = a.sin()
        log.append("end")
        return b + 1

    x = lib.tensor([0.5, 1.0], requires_grad=True)
    w = lib.tensor([1.5, -2.0], requires_grad=True)
    y = checkpoint_of(lib).checkpoint(fn, x, w, use_reentrant=use_reentrant)
    log.append("forward")
    y.sum().backward(retain_graph=not use_reentrant)
    log.append(("backward", np.round(x.grad.numpy(), 5).tolist()))
    if not use_reentrant:
        y.sum().backward()
        log.append(("backward", np.round(x.grad.numpy(), 5).tolist()))
    return log


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_backward_recomputes_as_torch(torch: Any, use_reentrant: bool) -> None:
    ours = call_log(hookgrad, use_reentrant)
    assert ours.count("start") == (3 if not use_reentrant else 2)
    assert ours == call_log(torch, use_reentrant)


def test_without_early_stop_the_whole_function_reruns(torch: Any) -> None:
    logs = []
    for lib in (hookgrad, torch):
        log: list[str] = []

        def fn(x: Any, log: list[str] = log) -> Any:
            y = x.exp()
            log.append("after last save")
            return y + 1

        x = lib.tensor([1.0], requires_grad=True)
        with checkpoint_of(lib).set_checkpoint_early_stop(False):
            y = checkpoint_of(lib).checkpoint(fn, x, use_reentrant=False)
        y.sum().backward()
        logs.append(log)
    assert logs[0] == logs[1] == ["after last save"] * 2


def test_autograd_grad_through_checkpoints(torch: Any) -> None:
    x, w = parameters(hookgrad)
    out = checkpoint(block, x, w, use_reentrant=False)
    grads = hookgrad.autograd.grad(out.sum(), (x, w))
    expected = hookgrad.autograd.grad(block(x, w).sum(), (x, w))
    assert all(a.equal(b) for a, b in zip(grads, expected))
    assert x.grad is None
    messages = []
    for lib in (hookgrad, torch):
        x, w = parameters(lib)
        out = checkpoint_of(lib).checkpoint(block, x, w, use_reentrant=True)
        with pytest.raises(RuntimeError) as info:
            lib.autograd.grad(out.sum(), x)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "incompatible with .grad()" in messages[0]


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_recomputation_replays_the_random_state(use_reentrant: bool) -> None:
    def dropout(x: Any) -> Any:
        keep = hookgrad.rand_like(x) > 0.5
        return (x.exp() * keep).sum()

    grads = []
    after = []
    for checkpointed in (True, False):
        hookgrad.manual_seed(3)
        x = hookgrad.tensor(np.linspace(0.0, 1.0, 64), requires_grad=True)
        if checkpointed:
            y = checkpoint(dropout, x, use_reentrant=use_reentrant)
        else:
            y = dropout(x)
        y.backward()
        grads.append(x.grad)
        after.append(hookgrad.rand(4))  # backward leaves the random stream untouched
    assert grads[0].equal(grads[1])
    assert after[0].equal(after[1])


def test_nested_checkpoints(torch: Any) -> None:
    results = []
    for lib in (hookgrad, torch):
        x, w = parameters(lib)
        ckpt = checkpoint_of(lib).checkpoint

        def outer(h: Any, w: Any = w, ckpt: Any = ckpt) -> Any:
            h = ckpt(block, h, w, use_reentrant=False)
            return ckpt(block, h.tanh(), w, use_reentrant=False).exp()

        outer(x).sum().backward()
        results.append([x.grad.numpy().copy(), w.grad.numpy().copy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_outside_grad_mode_it_just_runs() -> None:
    x, w = parameters(hookgrad)
    packed: list[Any] = []
    with hookgrad.no_grad():
        with hookgrad.autograd.graph.saved_tensors_hooks(packed.append, lambda p: p):
            out = checkpoint(block, x, w, use_reentrant=False)
    assert out.equal(block(x, w).detach()) and out.grad_fn is None


def test_sequential_checkpoints_match_torch(torch: Any) -> None:
    results = []
    for lib in (hookgrad, torch):
        x, w = parameters(lib)
        functions = [lambda h, w=w: (h @ w).tanh() for _ in range(5)]
        out = checkpoint_of(lib).checkpoint_sequential(functions, 2, x, use_reentrant=False)
        out.sum().backward()
        results.append([out.detach().numpy(), x.grad.numpy().copy(), w.grad.numpy().copy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_sequential_gradients_equal_the_plain_chain(use_reentrant: bool) -> None:
    x, w = parameters(hookgrad)
    functions = [lambda h: (h @ w).relu() + h for _ in range(6)]
    checkpoint_sequential(functions, 3, x, use_reentrant=use_reentrant).sum().backward()
    expected = [x.grad.numpy(), w.grad.numpy()]
    x.grad = w.grad = None
    out = x
    for fn in functions:
        out = fn(out)
    out.sum().backward()
    if use_reentrant:  # each segment accumulates into w.grad on its own: another order
        np.testing.assert_allclose(w.grad.numpy(), expected[1], rtol=1e-12)
    else:
        assert np.array_equal(w.grad.numpy(), expected[1])
    assert np.array_equal(x.grad.numpy(), expected[0])


# ---------------------------------------------------------------- warnings and errors


def outcome(fn: Callable[[], Any]) -> tuple[str, str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            # torch appends a tip on its debug mode and torch.compile; hookgrad has neither
            return type(error).__name__, str(error).split("\nTip:")[0]
    return "warned", str(caught[0].message) if caught else ""


def error_cases(lib: Any) -> list[Callable[[], Any]]:
    utils = checkpoint_of(lib)
    x, w = parameters(lib)
    calls: dict[str, int] = {"changing": 0, "reshaping": 0}

    def changing(h: Any) -> Any:
        calls["changing"] += 1
        return h.exp().exp() if calls["changing"] == 1 else h.exp()

    def reshaping(h: Any) -> Any:
        calls["reshaping"] += 1
        return (h if calls["reshaping"] == 1 else h.t()).exp()

    class SavedTwice(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, h: Any) -> Any:
            ctx.save_for_backward(h)
            return h * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (h,) = ctx.saved_tensors
            (h,) = ctx.saved_tensors
            return grad * 2

    def run(fn: Callable[[Any], Any], **kwargs: Any) -> Callable[[], Any]:
        return lambda: utils.checkpoint(fn, x, **kwargs).sum().backward()

    return [
        run(changing, use_reentrant=False),
        run(reshaping, use_reentrant=False),
        run(lambda h: SavedTwice.apply(h.exp()), use_reentrant=False),
        run(block, use_reentrant=True, scale=2.0),
        run(block, use_reentrant=False, determinism_check="strict"),
        run(lambda h: h.exp()),
        lambda: utils.checkpoint_sequential([lib.exp], 1, x),
        lambda: utils.checkpoint(lambda h: h.exp(), x.detach(), use_reentrant=True),
    ]


@pytest.mark.parametrize("case", range(len(error_cases(hookgrad))))
def test_errors_and_warnings_as_torch(torch: Any, case: int) -> None:
    ours = outcome(error_cases(hookgrad)[case])
    assert ours == outcome(error_cases(torch)[case])
    assert ours[1]


def test_recomputation_errors_are_checkpoint_errors() -> None:
    x, w = parameters(hookgrad)
    calls: list[None] = []

    def changing(h: Any) -> Any:
        calls.append(None)
        return h.exp().exp() if len(calls) == 1 else h.exp()

    with pytest.raises(CheckpointError, match="A different number of tensors was saved"):
        checkpoint(changing, x, use_reentrant=False).sum().backward()


# ---------------------------------------------------------------- memory


def mlp_forward_peak(checkpointed: bool, layers: int = 20, width: int = 128) -> int:
    """Peak traced memory (bytes) during the forward of a ``layers``-layer MLP."""
    rng = np.random.default_rng(0)
    weights = [
        hookgrad.tensor(rng.standard_normal((width, width)) / width**0.5, requires_grad=True)
        for _ in range(layers)
    ]
    x = hookgrad.tensor(rng.standard_normal((64, width)), requires_grad=True)
    functions = [lambda h, w=w: (h @ w).relu() for w in weights]
    gc.collect()
    tracemalloc.start()
    try:
        if checkpointed:
            out = checkpoint_sequential(functions, 4, x, use_reentrant=False)
        else:
            out = x
            for fn in functions:
                out = fn(out)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    out.sum().backward()
    return peak


def test_checkpointing_lowers_peak_forward_memory() -> None:
    assert mlp_forward_peak(True) < mlp_forward_peak(False)
