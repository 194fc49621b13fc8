"""The demo's training loop: Adam on mini-batches, a tqdm progress bar with loss and
accuracy, a :class:`~hookgrad.utils.GradientMonitor` and a
:class:`~hookgrad.utils.per_sample.PerSampleMonitor` attached throughout, and the first
step kept for the report (its loss tensor for the autograd graph, its hook trace)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np

import hookgrad
from hookgrad import nn, utils
from hookgrad.demo.data import Dataset
from hookgrad.tensor import Tensor
from hookgrad.utils.per_sample import PerSampleMonitor

__all__ = ["TrainingResult", "evaluate", "train"]

BATCH_SIZE = 32


@dataclass
class TrainingResult:
    """What the report needs from training."""

    history: list[dict[str, Any]]
    epoch_accuracy: list[float]
    test_accuracy: float
    first_loss: Tensor
    hook_trace: Any
    per_sample: PerSampleMonitor


def train(model: nn.Module, data: Dataset, epochs: int, lr: float, seed: int) -> TrainingResult:
    """Train ``model`` on ``data`` for ``epochs`` epochs (batches of 32, shuffled with
    ``seed``) and return the monitor's history, accuracies, the first step's graph and
    hook trace (a ``HookTrace``) and the per-example gradient statistics (examples named
    by their index in ``data.x_train``)."""
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    optimizer = hookgrad.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    steps_per_epoch = -(-len(data.x_train) // BATCH_SIZE)
    first_loss: Tensor | None = None
    hook_trace: Any | None = None
    epoch_accuracy = []
    with utils.GradientMonitor(model) as monitor, PerSampleMonitor(model) as per_sample:
        bar = tqdm(total=epochs * steps_per_epoch, desc="training", unit="step")
        with bar:
            for epoch in range(epochs):
                order = rng.permutation(len(data.x_train))
                correct = 0
                for start in range(0, len(order), BATCH_SIZE):
                    batch = order[start : start + BATCH_SIZE]
                    with _tracer(model, first_loss is None) as trace:
                        loss, hits = _step(model, optimizer, loss_fn, data, batch, per_sample)
                        monitor.step(loss=loss.item())
                    if first_loss is None:
                        first_loss = loss
                        hook_trace = trace
                    correct += hits
                    seen = min(start + BATCH_SIZE, len(order))
                    bar.set_postfix(
                        epoch=f"{epoch + 1}/{epochs}",
                        loss=f"{loss.item():.3f}",
                        acc=f"{correct / seen:.3f}",
                        refresh=False,
                    )
                    bar.update()
                epoch_accuracy.append(correct / len(order))
            test_accuracy = evaluate(model, data.x_test, data.y_test)
            bar.set_postfix(loss=f"{loss.item():.3f}", test_acc=f"{test_accuracy:.3f}")
    assert first_loss is not None
    return TrainingResult(
        monitor.history, epoch_accuracy, test_accuracy, first_loss, hook_trace, per_sample
    )


def evaluate(model: nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    """The fraction of ``x`` that ``model`` classifies as ``y`` (eval mode, no grad)."""
    model.eval()
    with hookgrad.no_grad():
        predicted = model(hookgrad.tensor(x)).numpy().argmax(axis=1)
    model.train()
    return float((predicted == y).mean())


def _step(
    model: nn.Module,
    optimizer: Any,
    loss_fn: nn.Module,
    data: Dataset,
    batch: np.ndarray,
    per_sample: PerSampleMonitor,
) -> tuple[Tensor, int]:
    """One optimisation step on ``batch``; the loss and the number of correct predictions."""
    optimizer.zero_grad()
    scores = model(hookgrad.tensor(data.x_train[batch]))
    loss = loss_fn(scores, hookgrad.tensor(data.y_train[batch]))
    loss.backward()
    per_sample.collect(ids=batch)
    optimizer.step()
    hits = int((scores.detach().numpy().argmax(axis=1) == data.y_train[batch]).sum())
    return loss, hits


def _tracer(model: nn.Module, active: bool) -> AbstractContextManager[Any]:
    """``hookgrad.utils.trace_hooks(model)`` for the traced step."""
    return utils.trace_hooks(model) if active else nullcontext()
