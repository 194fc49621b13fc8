"""torch's random numbers in ``nn`` and ``utils.data``, bit for bit: after the same
``manual_seed`` every ``nn.init`` function, the default initialisation of the layers, the
dropout masks and the data samplers give torch's values (``orthogonal_`` up to the last
bits of its QR decomposition), and leave the generator where torch's is left."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.utils import data as hookgrad_data


@pytest.fixture(autouse=True)
def _keep_default_generators(torch):
    ours, theirs = hookgrad.get_rng_state(), torch.get_rng_state()
    yield
    hookgrad.set_rng_state(ours)
    torch.set_rng_state(theirs)


def _run(lib, expr, seed):
    lib.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = eval(expr, {"m": lib, "math": math})
        return value, lib.rand(3)  # where the generator was left


def _arrays(value):
    if isinstance(value, (tuple, list)):
        return [array for item in value for array in _arrays(item)]
    return [np.asarray(value.detach().numpy())]


def assert_same_draws(torch, expr, seed=0):
    ours, theirs = _arrays(_run(hookgrad, expr, seed)), _arrays(_run(torch, expr, seed))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes(), (expr, np.flatnonzero(a != b)[:10])


# -- nn.init --------------------------------------------------------------------------------
INITS = [
    "uniform_({w}, -0.5, 2.0)",
    "normal_({w}, 0.1, 0.3)",
    "xavier_uniform_({w})",
    "xavier_normal_({w}, gain=2.0)",
    "kaiming_uniform_({w}, a=math.sqrt(5))",
    "kaiming_uniform_({w}, mode='fan_out', nonlinearity='relu')",
    "kaiming_normal_({w})",
    "kaiming_normal_({w}, a=0.2, mode='fan_out', nonlinearity='leaky_relu')",
    "trunc_normal_({w}, std=0.02)",
    "trunc_normal_({w}, mean=0.5, std=1.0, a=1.0, b=3.0)",
    "trunc_normal_({w}, mean=0.0, std=1.0, a=-0.1, b=0.2)",
    "sparse_({w}, 0.3)",
    "sparse_({w}, 0.5, std=2.0)",
    "constant_({w}, 0.3)",
    "eye_({w})",
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 5), (16, 1), (64, 32), (300, 200)])
@pytest.mark.parametrize("init", INITS)
def test_init_functions_match_torch(torch, init, shape, dtype):
    expr = "m.nn.init." + init.format(w=f"m.empty{shape}.to(m.{dtype})")
    assert_same_draws(torch, expr, seed=len(init))


@pytest.mark.parametrize(
    "init",
    [
        "kaiming_uniform_({w}, generator=m.Generator().manual_seed(5))",
        "xavier_normal_({w}, generator=m.Generator().manual_seed(5))",
        "trunc_normal_({w}, std=0.5, generator=m.Generator().manual_seed(5))",
        "uniform_({w}, generator=m.Generator().manual_seed(5))",
    ],
)
def test_init_functions_draw_from_a_given_generator(torch, init):
    assert_same_draws(torch, "m.nn.init." + init.format(w="m.empty(20, 30)"))


@pytest.mark.parametrize("shape", [(4, 2, 3, 3), (6, 4, 5), (8, 2, 3, 3, 3)])
def test_convolution_shaped_inits_match_torch(torch, shape):
    for init in ("kaiming_uniform_({w}, a=1)", "xavier_uniform_({w})", "dirac_({w})"):
        assert_same_draws(torch, "m.nn.init." + init.format(w=f"m.empty{shape}"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 5), (64, 32), (10, 2, 3)])
def test_orthogonal_matches_torch_up_to_its_qr(torch, shape, dtype):
    expr = f"m.nn.init.orthogonal_(m.empty{shape}.to(m.{dtype}), gain=2.0)"
    (ours, after_ours), (theirs, after_theirs) = _run(hookgrad, expr, 7), _run(torch, expr, 7)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=0, atol=1e-5)
    assert after_ours.tolist() == after_theirs.tolist()  # the same normal sample drawn


# -- layers ---------------------------------------------------------------------------------
LAYERS = [
    "nn.Linear(20, 30)",
    "nn.Linear(784, 512)",
    "nn.Linear(3, 4, bias=False)",
    "nn.Linear(3, 4, dtype=m.float64)",
    "nn.Conv2d(3, 16, 3)",
    "nn.Conv2d(16, 32, 5, stride=2, bias=False)",
    "nn.Conv2d(8, 8, 3, groups=4)",
    "nn.Conv1d(4, 8, 3)",
    "nn.ConvTranspose2d(8, 4, 3)",
    "nn.Bilinear(3, 4, 5)",
    "nn.Embedding(10, 6)",
]


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("seed", [0, 42])
def test_layers_start_with_torch_weights(torch, layer, seed):
    assert_same_draws(torch, f"list(m.{layer}.parameters())", seed=seed)


def test_a_seeded_model_starts_with_torch_weights(torch):
    model = (
        "m.nn.Sequential(m.nn.Conv2d(1, 8, 3), m.nn.ReLU(), m.nn.MaxPool2d(2), "
        "m.nn.Conv2d(8, 16, 3), m.nn.ReLU(), m.nn.Flatten(), m.nn.Linear(16 * 11 * 11, 64), "
        "m.nn.ReLU(), m.nn.Dropout(0.25), m.nn.Linear(64, 10))"
    )
    assert_same_draws(torch, f"(list({model}.parameters()), m.randn(4, 1, 28, 28))")


# -- dropout --------------------------------------------------------------------------------
DROPOUTS = [
    "m.nn.functional.dropout(x, {p})",
    "m.nn.functional.dropout(x.clone(), {p}, inplace=True)",
    "m.nn.Dropout({p})(x)",
    "m.nn.functional.dropout(x.t(), {p})",
    "m.nn.functional.dropout(x.double(), {p})",
    "m.nn.functional.dropout(x.half(), {p})",
    "m.nn.functional.alpha_dropout(x, {p}, True)",
    "m.nn.AlphaDropout({p})(x)",
]


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("size", [(1, 1), (3, 5), (64, 128), (10, 10000)])
@pytest.mark.parametrize("call", DROPOUTS)
def test_dropout_masks_match_torch(torch, call, size, p):
    expr = f"(lambda x: {call.format(p=p)})(m.randn{size})"
    assert_same_draws(torch, expr, seed=size[1])


FEATURE_DROPOUTS = [
    "m.nn.functional.dropout1d(m.randn(4, 6, 5), {p})",
    "m.nn.functional.dropout1d(m.randn(6, 5), {p})",
    "m.nn.functional.dropout2d(m.randn(2, 3, 4, 4), {p})",
    "m.nn.functional.dropout2d(m.randn(2, 3, 4), {p})",
    "m.nn.functional.dropout3d(m.randn(2, 3, 2, 2, 2), {p})",
    "m.nn.functional.dropout3d(m.randn(3, 2, 2, 2), {p})",
    "m.nn.functional.feature_alpha_dropout(m.randn(2, 50, 3), {p}, True)",
    "m.nn.Dropout1d({p})(m.randn(4, 6, 5))",
    "m.nn.Dropout2d({p})(m.randn(8, 16, 3, 3))",
    "m.nn.Dropout3d({p})(m.randn(2, 3, 2, 2, 2))",
    "m.nn.FeatureAlphaDropout({p})(m.randn(2, 50, 3))",
]


@pytest.mark.parametrize("p", [0.2, 0.5, 1.0])
@pytest.mark.parametrize("call", FEATURE_DROPOUTS)
def test_channel_dropout_masks_match_torch(torch, call, p):
    assert_same_draws(torch, call.format(p=p), seed=3)


def test_dropout_layers_print_and_refuse_like_torch(torch):
    for layer in ("Dropout1d(0.2)", "Dropout2d()", "Dropout3d(0.1, True)", "AlphaDropout(0.3)"):
        assert repr(eval(f"hookgrad.nn.{layer}")) == repr(eval(f"torch.nn.{layer}"))
    for lib in (hookgrad, torch):
        with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
            lib.nn.Dropout2d(1.5)
        with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
            lib.nn.functional.dropout1d(lib.ones(2, 2, 2, 2))


def test_dropout_in_training_matches_torch_step_by_step(torch):
    """Masks drawn during training interleave with the other draws as in torch (the
    layers' arithmetic is compared with a tolerance: it is not random)."""
    program = (
        "(lambda net: [net(m.randn(8, 10)) for _ in range(3)])("
        "m.nn.Sequential(m.nn.Linear(10, 20), m.nn.Dropout(0.3)))"
    )
    (ours, after_ours), (theirs, after_theirs) = _run(hookgrad, program, 1), _run(torch, program, 1)
    for a, b in zip(ours, theirs):
        assert (a.detach().numpy() == 0).tolist() == (b.detach().numpy() == 0).tolist()
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert after_ours.tolist() == after_theirs.tolist()


# -- utils.data -----------------------------------------------------------------------------
def _data_orders(lib, data):
    lib.manual_seed(0)
    g = lib.Generator().manual_seed(3)
    train, test = data.random_split(range(10), [0.7, 0.3])
    return (
        list(data.RandomSampler(range(10))),
        list(data.RandomSampler(range(10), generator=g)),
        list(data.RandomSampler(range(10), replacement=True, num_samples=25)),
        list(train),
        list(test),
        [batch.tolist() for batch in data.DataLoader(lib.arange(10), batch_size=4, shuffle=True)],
        list(data.SubsetRandomSampler([5, 6, 7, 8], generator=g)),
        lib.rand(2).tolist(),
    )


def test_samplers_split_and_shuffle_match_torch(torch):
    import torch.utils.data as torch_data

    assert _data_orders(hookgrad, hookgrad_data) == _data_orders(torch, torch_data)
