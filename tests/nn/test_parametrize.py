"""``nn.utils.parametrize``, ``nn.utils.parametrizations`` and the old weight / spectral
norm hooks against torch: the module's class, repr, state dict, values and gradients
(seeded: the power-iteration vectors are drawn as torch draws them), assignment through
``right_inverse``, caching, removal, and torch's errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch.nn.utils.parametrize  # noqa: F401 (torch does not import it with torch.nn.utils)

import hookgrad
from tests.oracle import assert_close, outcome


def _symmetric(lib: Any) -> Any:
    class Symmetric(lib.nn.Module):
        def forward(self, x: Any) -> Any:
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a: Any) -> Any:
            return a.triu()

    return Symmetric()


def _scale(lib: Any) -> Any:
    class Scale(lib.nn.Module):
        def forward(self, x: Any) -> Any:
            return x * 2

    return Scale()


def _split(lib: Any) -> Any:
    class Split(lib.nn.Module):
        def forward(self, a: Any, b: Any) -> Any:
            return a + b

        def right_inverse(self, x: Any) -> Any:
            return x / 4, x * 3 / 4

    return Split()


def _observe(lib: Any, module: Any) -> list[Any]:
    out = module(lib.ones(2, module.in_features, dtype=lib.float64) * 0.5)
    out.square().sum().backward()
    state = {k: v.numpy() for k, v in module.state_dict().items()}
    grads = {n: p.grad.numpy() for n, p in module.named_parameters()}
    return [repr(module), type(module).__name__, list(state), state, grads, out]


def _linear(lib: Any, features: tuple[int, int] = (3, 3)) -> Any:
    lib.manual_seed(0)
    return lib.nn.Linear(*features).double()


SCENARIOS = [
    (
        "symmetric",
        lambda lib, P: P.parametrize.register_parametrization(
            _linear(lib), "weight", _symmetric(lib)
        ),
    ),
    (
        "chained",
        lambda lib, P: P.parametrize.register_parametrization(
            P.parametrize.register_parametrization(_linear(lib), "weight", _symmetric(lib)),
            "weight",
            _scale(lib),
        ),
    ),
    (
        "several_originals",
        lambda lib, P: P.parametrize.register_parametrization(_linear(lib), "bias", _split(lib)),
    ),
    ("weight_norm", lambda lib, P: P.parametrizations.weight_norm(_linear(lib, (3, 4)))),
    ("weight_norm_dim1", lambda lib, P: P.parametrizations.weight_norm(_linear(lib), dim=1)),
    ("spectral_norm", lambda lib, P: P.parametrizations.spectral_norm(_linear(lib, (3, 4)))),
    (
        "spectral_norm_dim1",
        lambda lib, P: P.parametrizations.spectral_norm(_linear(lib, (4, 3)), "weight", 3, dim=1),
    ),
    ("orthogonal", lambda lib, P: P.parametrizations.orthogonal(_linear(lib))),
    ("orthogonal_wide", lambda lib, P: P.parametrizations.orthogonal(_linear(lib, (4, 2)))),
    (
        "orthogonal_cayley",
        lambda lib, P: P.parametrizations.orthogonal(_linear(lib), orthogonal_map="cayley"),
    ),
    (
        "orthogonal_householder",
        lambda lib, P: P.parametrizations.orthogonal(_linear(lib, (2, 4)), "weight", "householder"),
    ),
    ("old_weight_norm", lambda lib, P: P.weight_norm(_linear(lib, (3, 4)), dim=None)),
    (
        "old_spectral_norm",
        lambda lib, P: P.spectral_norm(_linear(lib, (3, 4)), n_power_iterations=2),
    ),
]


@pytest.mark.parametrize("make", [s[1] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS])
def test_parametrized_modules_match_torch(torch, make):
    def run(lib: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = make(lib, lib.nn.utils)
        return _observe(lib, module)

    ours, theirs = run(hookgrad), run(torch)
    assert ours[:3] == theirs[:3]
    for a, b in zip(ours[3:], theirs[3:]):
        if isinstance(a, dict):
            assert a.keys() == b.keys()
            for key in a:
                np.testing.assert_allclose(a[key], b[key], rtol=1e-9, atol=1e-12, err_msg=key)
        else:
            assert_close(a, b, rtol=1e-9, atol=1e-12)


def _values(t: Any) -> list[Any]:
    return np.round(t.detach().numpy(), 10).tolist()


def test_assignment_caching_and_removal_match_torch(torch):
    def run(lib: Any) -> Any:
        P = lib.nn.utils.parametrize
        layer = _linear(lib)
        P.register_parametrization(layer, "weight", _symmetric(lib))
        log = [P.is_parametrized(layer), P.is_parametrized(layer, "bias")]
        layer.weight = lib.eye(3, dtype=lib.float64) * 2
        log.append(_values(layer.parametrizations.weight.original))
        with P.cached():
            log.append(layer.weight is layer.weight)
        log.append(layer.weight is layer.weight)
        log.append(P.type_before_parametrizations(layer).__name__)
        copy = _linear(lib)
        P.transfer_parametrizations_and_params(layer, copy)
        log += [type(copy).__name__, _values(copy.weight)]
        P.remove_parametrizations(layer, "weight", leave_parametrized=False)
        log += [type(layer).__name__, sorted(layer.state_dict()), _values(layer.weight)]
        split = P.register_parametrization(_linear(lib), "bias", _split(lib))
        log.append(outcome(lambda _: P.remove_parametrizations(split, "bias", False), lib))
        P.remove_parametrizations(split, "bias")
        log += [type(split).__name__, sorted(split.state_dict()), _values(split.bias)]
        old = lib.nn.utils.weight_norm(_linear(lib))
        lib.nn.utils.remove_weight_norm(old)
        sn = lib.nn.utils.spectral_norm(_linear(lib))
        lib.nn.utils.remove_spectral_norm(sn)
        return log + [sorted(old.state_dict()), sorted(sn.state_dict()), _values(sn.weight)]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(hookgrad) == run(torch)


ERRORS = [
    (
        "no_such_tensor",
        lambda t: t.nn.utils.parametrize.register_parametrization(
            t.nn.Linear(2, 2), "gamma", _scale(t)
        ),
    ),
    (
        "shape_changed",
        lambda t: t.nn.utils.parametrize.register_parametrization(
            t.nn.Linear(2, 3), "weight", _transpose(t)
        ),
    ),
    (
        "not_parametrized",
        lambda t: t.nn.utils.parametrize.remove_parametrizations(t.nn.Linear(2, 2), "weight"),
    ),
    (
        "orthogonal_vector",
        lambda t: t.nn.utils.parametrizations.orthogonal(t.nn.Linear(2, 2), "bias"),
    ),
    (
        "orthogonal_map",
        lambda t: t.nn.utils.parametrizations.orthogonal(t.nn.Linear(2, 2), orthogonal_map="qr"),
    ),
    (
        "spectral_iterations",
        lambda t: t.nn.utils.parametrizations.spectral_norm(
            t.nn.Linear(2, 2), n_power_iterations=0
        ),
    ),
    ("spectral_dim", lambda t: t.nn.utils.parametrizations.spectral_norm(t.nn.Linear(2, 2), dim=2)),
    (
        "old_weight_norm_twice",
        lambda t: t.nn.utils.weight_norm(t.nn.utils.weight_norm(t.nn.Linear(2, 2))),
    ),
    ("old_remove_weight_norm", lambda t: t.nn.utils.remove_weight_norm(t.nn.Linear(2, 2))),
    (
        "old_spectral_none",
        lambda t: t.nn.utils.spectral_norm(t.nn.Linear(2, 2, bias=False), "bias"),
    ),
    ("old_remove_spectral_norm", lambda t: t.nn.utils.remove_spectral_norm(t.nn.Linear(2, 2))),
]


def _transpose(lib: Any) -> Any:
    class Transpose(lib.nn.Module):
        def forward(self, x: Any) -> Any:
            return x.T

    return Transpose()


@pytest.mark.parametrize("case", [c for _, c in ERRORS], ids=[n for n, _ in ERRORS])
def test_errors_match_torch(torch, case):
    ours, theirs = outcome(case, hookgrad), outcome(case, torch)
    assert ours[0] == "error"
    assert ours == theirs


def test_old_hooks_warn_as_torch(torch):
    messages = []
    for lib in (hookgrad, torch):
        with pytest.warns(FutureWarning) as caught:
            lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
        messages.append(str(caught[0].message))
    assert messages[0] == messages[1]


def test_parametrized_module_refuses_pickling():
    layer = hookgrad.nn.utils.parametrizations.weight_norm(hookgrad.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        layer.__getstate__()
