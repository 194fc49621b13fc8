"""``utils.monitor.GradientMonitor``: its numbers equal a hand (NumPy) computation on a
Linear-ReLU-Linear net over two SGD steps; calls pooled per step, ``no_grad`` calls skipped,
shared parameters once; ``remove()`` and the context manager leave no hook behind."""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad import nn
from hookgrad.utils import GradientMonitor

LR = 0.1


def two_layer_net() -> tuple[nn.Module, dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    weights = {
        "0.weight": rng.standard_normal((4, 3)),
        "0.bias": rng.standard_normal(4),
        "2.weight": rng.standard_normal((2, 4)),
        "2.bias": rng.standard_normal(2),
    }
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).double()
    model.load_state_dict({name: hookgrad.tensor(value) for name, value in weights.items()})
    return model, weights


def batch(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((6, 3)), rng.standard_normal((6, 2))


def hand_step(weights: dict[str, np.ndarray], x: np.ndarray, t: np.ndarray) -> dict[str, Any]:
    """What the monitor should record for one step of SGD on ``mean((net(x) - t) ** 2)``;
    updates ``weights`` in place."""
    hidden = x @ weights["0.weight"].T + weights["0.bias"]
    active = np.maximum(hidden, 0.0)
    out = active @ weights["2.weight"].T + weights["2.bias"]
    d_out = 2.0 * (out - t) / out.size
    d_active = d_out @ weights["2.weight"]
    d_hidden = d_active * (hidden > 0)
    grads = {
        "2.weight": d_out.T @ active,
        "2.bias": d_out.sum(0),
        "0.weight": d_hidden.T @ x,
        "0.bias": d_hidden.sum(0),
    }
    ratios = {}
    for name, grad in grads.items():
        before = weights[name].copy()
        weights[name] -= LR * grad
        ratios[name] = np.linalg.norm(weights[name] - before) / np.linalg.norm(before)

    def stats(values: np.ndarray) -> dict[str, float]:
        return {"mean": values.mean(), "std": values.std(), "zero_fraction": np.mean(values == 0)}

    return {
        "loss": np.mean((out - t) ** 2),
        "activations": {"0": stats(hidden), "1": stats(active), "2": stats(out)},
        "output_grad_norms": {
            "2": np.linalg.norm(d_out),
            "1": np.linalg.norm(d_active),
            "0": np.linalg.norm(d_hidden),
        },
        "grad_norms": {name: np.linalg.norm(grad) for name, grad in grads.items()},
        "update_ratios": ratios,
    }


def hooks_left(model: nn.Module) -> int:
    stores = ("_forward_hooks", "_backward_hooks", "_backward_pre_hooks", "_parameter_grad_hooks")
    return sum(len(getattr(module, store)) for module in model.modules() for store in stores)


def test_records_equal_a_hand_computation_over_two_sgd_steps() -> None:
    model, weights = two_layer_net()
    optimizer = hookgrad.optim.SGD(model.parameters(), lr=LR)
    monitor = GradientMonitor(model)
    for seed in (1, 2):
        x, t = batch(seed)
        expected = hand_step(weights, x, t)
        optimizer.zero_grad()
        loss = ((model(hookgrad.tensor(x)) - hookgrad.tensor(t)) ** 2).mean()
        loss.backward()
        optimizer.step()
        record = monitor.step(loss=loss.item())
        assert record["step"] == seed - 1
        assert record["loss"] == pytest.approx(expected["loss"], rel=1e-12)
        for kind in ("output_grad_norms", "grad_norms", "update_ratios"):
            assert record[kind].keys() == expected[kind].keys(), kind
            for name, value in expected[kind].items():
                assert record[kind][name] == pytest.approx(value, rel=1e-9), (kind, name)
                assert type(record[kind][name]) is float
        assert list(record["activations"]) == ["0", "1", "2"]
        for layer, stats in expected["activations"].items():
            for stat, value in stats.items():
                got = record["activations"][layer][stat]
                assert got == pytest.approx(value, rel=1e-9, abs=1e-12), (layer, stat)
                assert type(got) is float
    assert len(monitor.history) == 2
    assert monitor.history[1]["activations"]["1"]["zero_fraction"] > 0  # some ReLUs are off
    assert monitor.series("grad_norms", "0.weight") == [
        record["grad_norms"]["0.weight"] for record in monitor.history
    ]
    assert monitor.names("activations") == ["0", "1", "2"]
    monitor.remove()


def test_update_ratio_zero_without_optimizer_step_and_absent_without_grad() -> None:
    model, _ = two_layer_net()
    model[2].bias.requires_grad_(False)
    with GradientMonitor(model) as monitor:
        x, t = batch(1)
        ((model(hookgrad.tensor(x)) - hookgrad.tensor(t)) ** 2).mean().backward()
        record = monitor.step()
    assert record["loss"] is None
    assert record["update_ratios"] == {"2.weight": 0.0, "0.weight": 0.0, "0.bias": 0.0}
    assert "2.bias" not in record["grad_norms"]
    assert math.isnan(monitor.series("grad_norms", "2.bias")[0])


def test_calls_of_a_step_are_pooled_and_no_grad_calls_skipped() -> None:
    class Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = nn.Linear(3, 3).double()

        def forward(self, x: Any) -> Any:
            return self.layer(self.layer(x))

    model = Twice()
    x = np.random.default_rng(3).standard_normal((4, 3))
    with GradientMonitor(model) as monitor:
        with hookgrad.no_grad():
            model(hookgrad.tensor(x))  # an evaluation pass: not recorded
        first = model.layer(hookgrad.tensor(x))
        second = model.layer(first)
        (second**2).sum().backward()
        record = monitor.step()
    both = np.concatenate([first.detach().numpy(), second.detach().numpy()])
    stats = record["activations"]["layer"]
    assert stats["mean"] == pytest.approx(both.mean(), rel=1e-9)
    assert stats["std"] == pytest.approx(both.std(), rel=1e-9)
    grad_norm = np.linalg.norm(model.layer.weight.grad.numpy())
    assert record["grad_norms"]["layer.weight"] == pytest.approx(grad_norm, rel=1e-12)
    d_second = 2 * second.detach().numpy()
    d_first = d_second @ model.layer.weight.detach().numpy()
    expected = math.sqrt(np.sum(d_second**2) + np.sum(d_first**2))
    assert record["output_grad_norms"]["layer"] == pytest.approx(expected, rel=1e-9)


def test_a_shared_parameter_is_reported_once_with_its_total_gradient() -> None:
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3)).double()
    model[2].weight = model[0].weight
    with GradientMonitor(model) as monitor:
        model(hookgrad.randn(5, 3, dtype=hookgrad.float64)).sum().backward()
        record = monitor.step()
    assert set(record["grad_norms"]) == {"0.weight", "0.bias", "2.bias"}
    expected = np.linalg.norm(model[0].weight.grad.numpy())
    assert record["grad_norms"]["0.weight"] == pytest.approx(expected, rel=1e-12)


def test_remove_and_context_manager_detach_every_hook() -> None:
    model, _ = two_layer_net()
    monitor = GradientMonitor(model)
    assert hooks_left(model) == 3 * 2 + 2  # forward + backward pre per leaf, 2 param hooks
    monitor.remove()
    monitor.remove()
    assert hooks_left(model) == 0
    model(hookgrad.randn(2, 3, dtype=hookgrad.float64)).sum().backward()
    assert monitor.step()["activations"] == {}
    with GradientMonitor(model) as monitor:
        assert hooks_left(model) == 8
    assert hooks_left(model) == 0


def test_series_rejects_an_unknown_kind() -> None:
    model, _ = two_layer_net()
    with GradientMonitor(model) as monitor, pytest.raises(ValueError, match="kind must be"):
        monitor.series("gradients", "0.weight")


def test_plot_without_matplotlib_names_the_extra(monkeypatch: Any, tmp_path: Any) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    model, _ = two_layer_net()
    with GradientMonitor(model) as monitor, pytest.raises(ImportError, match=r"hookgrad\[demo\]"):
        monitor.plot(tmp_path / "monitor.png")
    assert not (tmp_path / "monitor.png").exists()
