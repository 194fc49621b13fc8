"""One LSTM layer (``nn.LSTM(128, 256)``, float32) over 35 steps of a batch of 20:
forward and backward (input and weight gradients); hookgrad vs torch in the same run
(target: ratio <= 2.0). torch runs this layer through oneDNN's fused LSTM, hookgrad
through its ``MkldnnRnnLayer`` node (``hookgrad/ops/rnn.py``)."""

from __future__ import annotations

import numpy as np

import hookgrad
from benchmarks.common import best_time, report

STEPS, BATCH, INPUT, HIDDEN = 35, 20, 128, 256


def train_step(lib, x, grad):
    lib.manual_seed(0)
    lstm = lib.nn.LSTM(INPUT, HIDDEN)

    def step():
        output, _ = lstm(x)
        output.backward(grad)
        for p in lstm.parameters():
            p.grad = None
        x.grad = None

    return step


def main() -> None:
    import torch

    rng = np.random.default_rng(0)
    x = rng.standard_normal((STEPS, BATCH, INPUT)).astype(np.float32)
    grad = rng.standard_normal((STEPS, BATCH, HIDDEN)).astype(np.float32)
    torch.set_num_threads(2)
    results = {}
    for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
        step = train_step(lib, lib.tensor(x, requires_grad=True), lib.tensor(grad))
        results[name] = best_time(step, repeat=9, number=3)
    report("LSTM layer 128->256, 35x20", results["hookgrad"], results["torch"], target=2.0)


if __name__ == "__main__":
    main()
