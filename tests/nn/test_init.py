"""nn.init against torch: gains, fans, the bounds and spreads of every scheme, in-place
filling under no_grad (parameters stay leaves), generators, warnings and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.nn import init
from hookgrad.nn.parameter import Parameter

GAINS = [
    ("linear", None),
    ("conv2d", None),
    ("conv_transpose3d", None),
    ("sigmoid", None),
    ("tanh", None),
    ("relu", None),
    ("leaky_relu", None),
    ("leaky_relu", 0.2),
    ("leaky_relu", 1),
    ("selu", None),
]


@pytest.mark.parametrize("nonlinearity, param", GAINS)
def test_calculate_gain_matches_torch(torch, nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(
        nonlinearity, param
    )


@pytest.mark.parametrize("args", [("softmax",), ("leaky_relu", "x"), ("leaky_relu", True)])
def test_calculate_gain_errors_match_torch(torch, args):
    with pytest.raises(ValueError) as ours:
        init.calculate_gain(*args)
    with pytest.raises(ValueError) as theirs:
        torch.nn.init.calculate_gain(*args)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (6, 2, 3, 3), (1, 1)])
def test_fans_match_torch(torch, shape):
    ours = init._calculate_fan_in_and_fan_out(hookgrad.empty(*shape))
    assert ours == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    for mode in ("fan_in", "FAN_OUT"):
        expected = torch.nn.init._calculate_correct_fan(torch.empty(*shape), mode)
        assert init._calculate_correct_fan(hookgrad.empty(*shape), mode) == expected


def test_fan_and_mode_errors_match_torch(torch):
    cases = [
        (lambda lib, init: init._calculate_fan_in_and_fan_out(lib.empty(3)), ValueError),
        (lambda lib, init: init.kaiming_uniform_(lib.empty(3, 4), mode="fan"), ValueError),
        (lambda lib, init: init.eye_(lib.empty(3)), ValueError),
        (lambda lib, init: init.orthogonal_(lib.empty(3)), ValueError),
        (lambda lib, init: init.dirac_(lib.empty(3, 3)), ValueError),
    ]
    for fn, error in cases:
        with pytest.raises(error) as ours:
            fn(hookgrad, init)
        with pytest.raises(error) as theirs:
            fn(torch, torch.nn.init)
        assert str(ours.value) == str(theirs.value)


def _fill(name, lib, module, shape, **kwargs):
    tensor = lib.empty(*shape, dtype=lib.float64)
    getattr(module, name)(tensor, **kwargs)
    return tensor.numpy()


SCHEMES = [
    ("uniform_", {"a": -0.5, "b": 2.0}),
    ("normal_", {"mean": 1.0, "std": 0.3}),
    ("trunc_normal_", {"mean": 0.5, "std": 1.0, "a": -0.5, "b": 1.0}),
    ("trunc_normal_", {}),
    ("xavier_uniform_", {"gain": 2.0}),
    ("xavier_normal_", {}),
    ("kaiming_uniform_", {"a": math.sqrt(5)}),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", {}),
    ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "tanh"}),
    ("orthogonal_", {"gain": 1.5}),
]


@pytest.mark.parametrize("name, kwargs", SCHEMES)
def test_distribution_matches_torch(torch, name, kwargs):
    shape = (200, 60, 3)
    hookgrad.manual_seed(0)
    torch.manual_seed(0)
    ours = _fill(name, hookgrad, init, shape, **kwargs)
    theirs = _fill(name, torch, torch.nn.init, shape, **kwargs)
    # 36000 samples: the moments agree within a few standard errors
    assert abs(ours.mean() - theirs.mean()) < 6 * theirs.std() / math.sqrt(ours.size) + 1e-12
    assert abs(ours.std() / theirs.std() - 1) < 0.03
    if "uniform" in name or name == "trunc_normal_":  # bounded: the same interval
        assert ours.min() >= theirs.min() - 0.01 * theirs.std()
        assert ours.max() <= theirs.max() + 0.01 * theirs.std()
        assert ours.max() - ours.min() > 0.99 * (theirs.max() - theirs.min())


@pytest.mark.parametrize("name", ["uniform_", "kaiming_uniform_", "xavier_uniform_"])
def test_uniform_bounds_are_torchs(torch, name):
    kwargs = {"a": math.sqrt(5)} if name == "kaiming_uniform_" else {}
    ours = _fill(name, hookgrad, init, (500, 40), **kwargs)
    theirs = _fill(name, torch, torch.nn.init, (500, 40), **kwargs)
    bound = max(abs(theirs.min()), abs(theirs.max()))
    assert ours.min() >= -bound * 1.001 and ours.max() <= bound * 1.001
    assert max(abs(ours.min()), abs(ours.max())) > 0.99 * bound


def test_orthogonal_rows_or_columns_are_orthonormal():
    for shape in ((4, 6), (6, 4), (3, 2, 2)):
        q = _fill("orthogonal_", hookgrad, init, shape, gain=2.0).reshape(shape[0], -1)
        small = q @ q.T if q.shape[0] <= q.shape[1] else q.T @ q
        np.testing.assert_allclose(small, 4 * np.eye(small.shape[0]), atol=1e-10)


@pytest.mark.parametrize(
    "name, args",
    [("constant_", (0.25,)), ("ones_", ()), ("zeros_", ()), ("eye_", ()), ("dirac_", ())],
)
def test_deterministic_fills_match_torch(torch, name, args):
    shape = (3, 5) if name == "eye_" else (4, 2, 3, 3)
    ours = hookgrad.empty(*shape)
    theirs = torch.empty(*shape)
    getattr(init, name)(ours, *args)
    getattr(torch.nn.init, name)(theirs, *args)
    assert np.array_equal(ours.numpy(), theirs.numpy())


def test_dirac_groups_match_torch(torch):
    ours, theirs = hookgrad.empty(6, 2, 3), torch.empty(6, 2, 3)
    init.dirac_(ours, groups=3)
    torch.nn.init.dirac_(theirs, groups=3)
    assert np.array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name, kwargs", SCHEMES + [("constant_", {"val": 2.0}), ("zeros_", {})])
def test_parameter_stays_a_leaf_and_is_returned(name, kwargs):
    param = Parameter(hookgrad.empty(5, 4))
    assert getattr(init, name)(param, **kwargs) is param
    assert param.is_leaf and param.requires_grad and param.grad_fn is None
    assert param._version >= 1
    assert np.isfinite(param.detach().numpy()).all()


def test_generator_makes_results_reproducible():
    results = []
    for _ in range(2):
        generator = hookgrad.Generator().manual_seed(5)
        results.append(init.kaiming_normal_(hookgrad.empty(8, 8), generator=generator).numpy())
    assert np.array_equal(results[0], results[1])
    other = init.kaiming_normal_(hookgrad.empty(8, 8), generator=hookgrad.Generator()).numpy()
    assert not np.array_equal(results[0], other)


def test_zero_element_kaiming_warns_and_does_nothing():
    tensor = hookgrad.empty(0, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_uniform_(tensor) is tensor


def test_trunc_normal_warns_when_mean_is_far_from_the_interval():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(hookgrad.empty(10), mean=5.0, std=1.0, a=-1.0, b=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.trunc_normal_(hookgrad.empty(10))


DEPRECATED = [
    ("uniform", (4, 3), {"a": -1.0, "b": 2.0}),
    ("normal", (4, 3), {"std": 0.5}),
    ("constant", (4, 3), {"val": 0.3}),
    ("eye", (4, 3), {}),
    ("dirac", (4, 2, 3), {}),
    ("xavier_uniform", (4, 3), {"gain": 2.0}),
    ("xavier_normal", (4, 3), {}),
    ("kaiming_uniform", (4, 3), {"a": 0.1}),
    ("kaiming_normal", (4, 3), {"mode": "fan_out"}),
    ("orthogonal", (4, 3), {}),
    ("sparse", (5, 3), {"sparsity": 0.4}),
]


@pytest.mark.parametrize("name, shape, kwargs", DEPRECATED, ids=[d[0] for d in DEPRECATED])
def test_deprecated_spellings_warn_and_draw_as_torch(torch, name, shape, kwargs):
    results = []
    for lib, module in ((hookgrad, init), (torch, torch.nn.init)):
        lib.manual_seed(3)
        tensor = lib.empty(*shape, dtype=lib.float64)
        with pytest.warns(FutureWarning) as caught:
            returned = getattr(module, name)(tensor, **kwargs)
        assert returned is tensor and getattr(module, name).__name__ == name
        results.append((str(caught[0].message), tensor.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-14)
