"""``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict`` and
``Container`` against torch."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import hookgrad


def outcome(fn: Any) -> Any:
    """What ``fn()`` returns, or ``(error type name, message)``."""
    try:
        return fn()
    except Exception as error:  # noqa: BLE001 (comparing errors is the point)
        return type(error).__name__, str(error)


def test_sequential_matches_torch(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        nn = lib.nn
        seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Tanh(), nn.Linear(3, 1))
        log = [repr(seq), len(seq), repr(seq[-1]), repr(seq[1:3]), type(seq[1:3]).__name__]
        log.append([type(m).__name__ for m in seq])
        seq.append(nn.Sigmoid())
        seq.insert(1, nn.Identity())
        seq.insert(-1, nn.ReLU())
        seq.extend([nn.Tanh()])
        log.append(repr(seq))
        log.append(type(seq.pop(0)).__name__)
        del seq[1:3]
        seq[0] = nn.ReLU()
        log.append(repr(seq))
        joined = seq + nn.Sequential(nn.Identity())
        log.append((len(joined), list(joined._modules)))
        for bad in (lambda: seq[10], lambda: seq["a"], lambda: seq + 3, lambda: nn.Sequential(3)):
            log.append(outcome(bad))
        named = nn.Sequential(OrderedDict(a=nn.ReLU(), b=nn.Identity()))
        log.append((repr(named), repr(named[1:]), list(named[1:]._modules)))
        return log

    ours, theirs = scenario(hookgrad), scenario(torch)
    assert ours == theirs


def test_sequential_forward_matches_torch(torch: Any) -> None:
    def run(lib: Any) -> Any:
        nn = lib.nn
        seq = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
        with lib.no_grad():
            seq[0].weight.copy_(lib.tensor([[1.0, -1.0, 0.5], [0.2, 0.3, -0.4]]))
            seq[0].bias.copy_(lib.tensor([0.1, -0.1]))
            seq[2].weight.copy_(lib.tensor([[2.0, -3.0]]))
            seq[2].bias.fill_(0.5)
        x = lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], requires_grad=True)
        out = seq(x)
        out.sum().backward()
        return out.detach().numpy(), x.grad.numpy(), seq[0].weight.grad.numpy()

    for ours, theirs in zip(run(hookgrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_module_list_matches_torch(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        nn = lib.nn
        layers = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Linear(1, 1)])
        log = [repr(layers), repr(layers[0:2]), len(layers), repr(layers[-1])]
        layers.append(nn.Tanh())
        layers.extend([nn.Tanh(), nn.Tanh()])
        layers.insert(0, nn.Identity())
        layers += [nn.Sigmoid()]
        log.append(repr(layers))
        log.append(type(layers.pop(1)).__name__)
        del layers[0]
        layers[0] = nn.Sigmoid()
        log.append((repr(layers), list(layers._modules)))
        log.append([n for n, _ in layers.named_parameters()])
        log.append(repr(nn.ModuleList()))
        log.append(len(layers + nn.ModuleList([nn.ReLU()])))
        for bad in (lambda: layers[10], lambda: layers.extend(3), lambda: layers(1)):
            log.append(outcome(bad))
        return log

    assert scenario(hookgrad) == scenario(torch)


def test_module_dict_matches_torch(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        nn = lib.nn
        heads = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(1, 2)})
        heads.update([("c", nn.Tanh())])
        heads["d"] = nn.Identity()
        log = [repr(heads), len(heads), list(heads), "a" in heads, list(heads.keys())]
        log.append([type(m).__name__ for m in heads.values()])
        log.append([k for k, _ in heads.items()])
        log.append(type(heads.pop("a")).__name__)
        del heads["c"]
        log.append([n for n, _ in heads.named_parameters()])
        for bad in (
            lambda: heads["zz"],
            lambda: heads.update(3),
            lambda: heads.update([3]),
            lambda: heads.update([("x", nn.ReLU(), 1)]),
        ):
            log.append(outcome(bad))
        heads.clear()
        log.append((len(heads), repr(heads)))
        return log

    assert scenario(hookgrad) == scenario(torch)


def test_container_hooks_wrap_the_whole_block() -> None:
    nn = hookgrad.nn
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    seen = []
    seq.register_full_backward_hook(lambda m, gi, go: seen.append((gi[0].shape, go[0].shape)))
    x = hookgrad.ones(3, 2, requires_grad=True)
    seq(x).sum().backward()
    assert seen == [((3, 2), (3, 2))]


def test_parameter_list_matches_torch(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        nn = lib.nn
        values = nn.ParameterList([nn.Parameter(lib.ones(2, 3)), lib.zeros(4), "label"])
        log = [repr(values), len(values), type(values[1]).__name__, values[2]]
        values.append(lib.ones(1, dtype=lib.float64))
        values += [lib.zeros(2)]
        values[0] = lib.full((2,), 3.0)
        log += [repr(values[1:4]), [n for n, _ in values.named_parameters()]]
        log += [outcome(lambda: values[9]), outcome(lambda: values.extend(lib.ones(2)))]
        log += [outcome(lambda: values(1)), [d for d in dir(values) if d.isdigit()]]
        log.append([p.tolist() if hasattr(p, "tolist") else p for p in values])
        return log

    assert scenario(hookgrad) == scenario(torch)


def test_parameter_dict_matches_torch(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        nn = lib.nn
        values = nn.ParameterDict({"b": lib.ones(2), "a": nn.Parameter(lib.zeros(3))})
        log = [repr(values), list(values), len(values), "a" in values]
        values.update(OrderedDict([("z", lib.ones(1)), ("c", "text")]))
        values.update([("y", lib.zeros(2, 2, dtype=lib.float64))])
        log += [
            list(values.keys()),
            values.get("missing", 5),
            values.setdefault("d", lib.ones(1)).tolist(),
        ]
        log += [values.pop("z").tolist(), values.popitem()[0], list(reversed(values))]
        merged = values | nn.ParameterDict({"e": lib.ones(1)})
        log += [list(merged), repr(values.copy()), list(values.fromkeys(["p", "q"], 1.0))]
        log += [[n for n, _ in values.named_parameters()], repr(values)]
        log += [outcome(lambda: values[1]), outcome(lambda: values.update(3))]
        log += [outcome(lambda: values.update([("k",)])), outcome(lambda: values(1))]
        values.clear()
        return log + [len(values), list(values.parameters())]

    assert scenario(hookgrad) == scenario(torch)


def test_container_warns_and_registers_its_modules(torch: Any) -> None:
    for lib in (hookgrad, torch):
        with pytest.warns(FutureWarning, match="nn.Container. is deprecated"):
            container = lib.nn.Container(encoder=lib.nn.Linear(2, 3))
        assert [name for name, _ in container.named_parameters()] == [
            "encoder.weight",
            "encoder.bias",
        ]
