"""End-to-end training: a small CNN (two convs, max pool, linear) learns a synthetic
image task with SGD, and its first steps match torch's exactly (float64)."""

from __future__ import annotations

import numpy as np

import hookgrad
from hookgrad.nn import functional as F
from hookgrad.nn import modules as nn
from tests.oracle import assert_close


def _bars(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """8x8 noisy images of a horizontal (0), vertical (1) or diagonal (2) bar placed at
    random; the label is the bar's orientation."""
    images = rng.normal(0, 0.3, (count, 1, 8, 8))
    labels = rng.integers(0, 3, count)
    for image, label, offset in zip(images, labels, rng.integers(1, 7, count)):
        if label == 0:
            image[0, offset, 1:7] += 1
        elif label == 1:
            image[0, 1:7, offset] += 1
        else:
            image[0] += np.eye(8, k=offset - 4)
    return images, labels


def _model(lib):
    return lib.nn.Sequential(
        lib.nn.Conv2d(1, 8, 3, padding=1),
        lib.nn.ReLU(),
        lib.nn.Conv2d(8, 8, 3, padding=1),
        lib.nn.ReLU(),
        lib.nn.MaxPool2d(2),
        lib.nn.Flatten(),
        lib.nn.Linear(8 * 4 * 4, 3),
    )


class _Hookgrad:
    """``hookgrad`` with ``nn`` pointing at the layer modules (whatever ``hookgrad.nn``
    re-exports)."""

    nn = nn
    tensor = staticmethod(hookgrad.tensor)


def _loss(lib_functional, logits, labels):
    return -lib_functional.log_softmax(logits, dim=1).gather(1, labels[:, None]).mean()


def test_small_cnn_learns_bars():
    # NOTE: the start is torch's for the seed (torch's seed 0 learns this task slowly).
    hookgrad.manual_seed(1)
    model = _model(_Hookgrad)
    optimizer = hookgrad.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(0)
    for _ in range(60):
        images, labels = _bars(32, rng)
        loss = _loss(
            F, model(hookgrad.tensor(images, dtype=hookgrad.float32)), hookgrad.tensor(labels)
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    images, labels = _bars(200, np.random.default_rng(1))
    with hookgrad.no_grad():
        logits = model(hookgrad.tensor(images, dtype=hookgrad.float32))
        test_loss = _loss(F, logits, hookgrad.tensor(labels)).item()
    accuracy = (logits.argmax(1).numpy() == labels).mean()
    assert test_loss < 0.2, test_loss
    assert accuracy > 0.95, accuracy


def test_training_steps_match_torch(torch):
    """Identical weights and data: five SGD steps give torch's losses and weights."""
    ours, theirs = _model(_Hookgrad).to(hookgrad.float64), _model(torch).double()
    with hookgrad.no_grad():
        for (_, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
            a.copy_(hookgrad.tensor(b.detach().numpy()))
    rng = np.random.default_rng(0)
    batches = [_bars(16, rng) for _ in range(5)]
    losses = []
    for lib, model, functional in ((hookgrad, ours, F), (torch, theirs, torch.nn.functional)):
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        curve = []
        for images, labels in batches:
            loss = _loss(functional, model(lib.tensor(images)), lib.tensor(labels))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            curve.append(loss.item())
        losses.append(curve)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-10)
    for (_, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(a, b, rtol=1e-9, atol=1e-10)
