"""The CTC loss against torch (float32 and float64): values and gradients for padded and
concatenated targets, every reduction, ``zero_infinity``, blanks, unbatched input, the
node (``CtcLossBackward0``, its saved values; no second derivative in torch), float64
gradcheck, the module and torch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck
from tests.oracle import assert_close, outcome

LOG_PROBS = np.random.default_rng(0).standard_normal((6, 2, 4))
PADDED = [[1, 2, 2], [1, 3, 0]]

CASES = [
    ("mean", PADDED, [6, 5], [3, 2], {}),
    ("sum_concatenated", [1, 2, 2, 1, 3], [6, 5], [3, 2], {"reduction": "sum"}),
    ("none_impossible", [[1, 1, 1], [3, 3, 0]], [3, 6], [3, 2], {"reduction": "none"}),
    ("zero_infinity", [[1, 1, 1], [3, 3, 0]], [3, 6], [3, 2], {"zero_infinity": True}),
    ("empty_target_blank", [[0, 0, 0], [2, 0, 0]], [6, 6], [0, 1], {"blank": 3}),
    ("list_lengths", PADDED, (5, 6), (2, 3), {"reduction": "none"}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_ctc_loss_matches_torch(torch, dtype, case):
    _, targets, input_lengths, target_lengths, kwargs = case

    def run(lib: Any) -> Any:
        x = lib.tensor(LOG_PROBS, dtype=getattr(lib, dtype)).log_softmax(2).detach()
        x.requires_grad_()
        lengths = [
            lengths if isinstance(lengths, tuple) else lib.tensor(lengths)
            for lengths in (input_lengths, target_lengths)
        ]
        loss = lib.nn.functional.ctc_loss(x, lib.tensor(targets), *lengths, **kwargs)
        loss.backward(lib.ones_like(loss))
        return loss, x.grad

    tolerance = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12}
    assert_close(run(hookgrad), run(torch), **tolerance)


def test_node_and_double_backward_match_torch(torch):
    def run(lib: Any) -> Any:
        x = lib.tensor(LOG_PROBS).log_softmax(2).detach().requires_grad_()
        loss = lib.ctc_loss(x, lib.tensor(PADDED), lib.tensor([6, 5]), lib.tensor([3, 2]), 0, 0)
        node = loss.grad_fn
        saved = [node._saved_blank, node._saved_input_lengths, node._saved_target_lengths]
        saved += [node._saved_zero_infinity, node._saved_targets.tolist()]
        alpha = node._saved_result1.numpy()
        valid = np.isfinite(alpha)  # torch leaves the rest of log_alpha uninitialised
        seed = lib.ones_like(loss, requires_grad=True)
        (grad,) = lib.autograd.grad(loss, x, seed, create_graph=True)
        error = outcome(lambda _: grad.sum().backward(), lib)
        return type(node).__name__, saved, type(grad.grad_fn).__name__, error, alpha, valid

    ours, theirs = run(hookgrad), run(torch)
    assert ours[:4] == theirs[:4]
    valid = ours[5]
    np.testing.assert_allclose(ours[4][valid], theirs[4][valid], rtol=1e-12)


def test_unbatched_and_module_match_torch(torch):
    def run(lib: Any) -> Any:
        x = lib.tensor(LOG_PROBS[:, 0]).log_softmax(1).detach().requires_grad_()
        lengths = lib.tensor(6), lib.tensor(2)
        loss = lib.nn.functional.ctc_loss(x, lib.tensor([1, 2]), *lengths, reduction="none")
        module = lib.nn.CTCLoss(blank=3, reduction="sum")
        y = lib.tensor(LOG_PROBS).log_softmax(2).detach().requires_grad_()
        total = module(y, lib.tensor(PADDED), lib.tensor([6, 6]), lib.tensor([3, 1]))
        (loss + total).backward()
        return repr(module), loss, total, x.grad, y.grad

    ours, theirs = run(hookgrad), run(torch)
    assert ours[0] == theirs[0]
    assert_close(ours[1:], theirs[1:], rtol=1e-12)


def test_gradcheck():
    logits = hookgrad.tensor(LOG_PROBS[:4], requires_grad=True)

    def fn(logits: Any) -> Any:
        lengths = hookgrad.tensor([4, 3]), hookgrad.tensor([2, 1])
        return hookgrad.nn.functional.ctc_loss(
            logits.log_softmax(2), hookgrad.tensor(PADDED), *lengths, reduction="none"
        )

    assert gradcheck(fn, (logits,))


ERRORS = [
    ("blank", lambda t: t.ctc_loss(t.zeros(3, 1, 2), t.tensor([[1]]), [3], [1], 2)),
    (
        "input_lengths_size",
        lambda t: t.ctc_loss(t.zeros(3, 2, 2), t.tensor([[1], [1]]), [3], [1, 1]),
    ),
    ("target_lengths_size", lambda t: t.ctc_loss(t.zeros(3, 1, 2), t.tensor([[1]]), [3], [1, 1])),
    ("input_too_long", lambda t: t.ctc_loss(t.zeros(3, 1, 2), t.tensor([[1]]), [4], [1])),
    ("negative_target_length", lambda t: t.ctc_loss(t.zeros(3, 1, 2), t.tensor([[1]]), [3], [-1])),
    ("targets_too_short", lambda t: t.ctc_loss(t.zeros(3, 1, 2), t.tensor([[1]]), [3], [2])),
    ("concatenated_size", lambda t: t.ctc_loss(t.zeros(3, 1, 2), t.tensor([1, 1]), [3], [1])),
    ("int_lengths", lambda t: t.ctc_loss(t.zeros(3, 1, 2), t.tensor([[1]]), 3, 1)),
    (
        "float_lengths",
        lambda t: t.ctc_loss(t.zeros(3, 1, 2), t.tensor([[1]]), t.tensor([3.0]), t.tensor([1])),
    ),
]


@pytest.mark.parametrize("case", [c for _, c in ERRORS], ids=[n for n, _ in ERRORS])
def test_errors_match_torch(torch, case):
    ours, theirs = outcome(case, hookgrad), outcome(case, torch)
    assert ours[0] == "error"
    if ours[1] == "TypeError":  # torch's argument parser lists every overload
        assert theirs[1] == "TypeError"
    else:
        assert ours == theirs
