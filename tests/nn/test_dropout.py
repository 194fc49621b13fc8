"""Dropout: the mask's statistics, gradient = mask * scale, eval mode and p=0 give the
input itself, in-place form, errors and repr like torch's."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad import nn
from hookgrad.autograd import gradcheck
from hookgrad.nn import functional as F


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_mask_statistics_and_scale(dtype, p):
    x = hookgrad.ones(200, 200, dtype=getattr(hookgrad, dtype))
    y = F.dropout(x, p).numpy()
    assert y.dtype == np.dtype(dtype)
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / (1 - p), rtol=1e-6)
    # 40000 Bernoulli draws: the kept fraction is within 5 standard errors of 1 - p
    assert abs(kept.mean() - (1 - p)) < 5 * np.sqrt(p * (1 - p) / kept.size)
    assert abs(y.mean() - 1) < 0.1  # the scale keeps the expectation


@pytest.mark.parametrize("inplace", [False, True])
def test_gradient_is_mask_times_scale(inplace):
    p = 0.3
    leaf = hookgrad.randn(50, 40, dtype=hookgrad.float64, requires_grad=True)
    x = leaf * 1
    y = F.dropout(x, p, inplace=inplace)
    assert (y is x) == inplace
    assert y.grad_fn.name() == "MulBackward0"
    grad = hookgrad.randn(50, 40, dtype=hookgrad.float64)
    y.backward(grad)
    mask = (y.detach().numpy() != 0) / (1 - p)
    np.testing.assert_allclose(leaf.grad.numpy(), grad.numpy() * mask, rtol=1e-12)
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(y.detach().numpy()[kept], (leaf.detach().numpy() / (1 - p))[kept])


def test_same_mask_is_used_forward_and_backward_under_gradcheck():
    x = hookgrad.randn(5, 4, dtype=hookgrad.float64, requires_grad=True)
    hookgrad.manual_seed(3)

    # a fixed seed per call makes the function deterministic for finite differences
    def fn(x):
        hookgrad.manual_seed(3)
        return F.dropout(x, 0.4)

    assert gradcheck(fn, (x,))


def test_module_eval_is_identity_and_train_is_not():
    layer = nn.Dropout(0.5)
    x = hookgrad.randn(100, requires_grad=True)
    assert layer.training
    y = layer(x)
    assert y is not x and (y.detach().numpy() == 0).any()
    layer.eval()
    assert layer(x) is x
    layer.train()
    assert layer(x) is not x


def test_p_zero_or_not_training_returns_input_itself(torch):
    x = hookgrad.randn(3, requires_grad=True)
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 0.7, training=False) is x
    t = torch.randn(3, requires_grad=True)
    assert torch.nn.functional.dropout(t, 0.0) is t
    assert torch.nn.functional.dropout(t, 0.7, training=False) is t


def test_p_one_zeros_everything_with_zero_gradient():
    x = hookgrad.randn(4, 3, requires_grad=True)
    y = F.dropout(x, 1.0)
    assert np.all(y.detach().numpy() == 0)
    y.sum().backward()
    assert np.all(x.grad.numpy() == 0)


def test_seed_makes_the_mask_reproducible():
    hookgrad.manual_seed(7)
    a = F.dropout(hookgrad.ones(100), 0.5)
    hookgrad.manual_seed(7)
    b = F.dropout(hookgrad.ones(100), 0.5)
    assert np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_bad_probability_raises_like_torch(torch, p):
    with pytest.raises(ValueError) as ours:
        nn.Dropout(p)
    with pytest.raises(ValueError) as theirs:
        torch.nn.Dropout(p)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError) as ours:
        F.dropout(hookgrad.randn(2), p)
    assert str(ours.value) == str(theirs.value)


def test_inplace_dropout_of_leaf_that_requires_grad_raises():
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        F.dropout(hookgrad.randn(3, requires_grad=True), 0.5, inplace=True)


@pytest.mark.parametrize("args", [(), (0.3,), (0.3, True)])
def test_repr_matches_torch(torch, args):
    module, torch_module = nn.Dropout(*args), torch.nn.Dropout(*args)
    assert module.extra_repr() == torch_module.extra_repr()
    assert repr(module) == repr(torch_module)


TORCH_LEVEL = [
    lambda t, x: t.dropout(x, 0.3, True),
    lambda t, x: t.dropout_(x * 1, 0.6, True),
    lambda t, x: t.dropout(x, 0.3, False),
    lambda t, x: t.feature_dropout(x, 0.5, True),
    lambda t, x: t.feature_dropout_(x * 1, 0.5, True),
    lambda t, x: t.alpha_dropout(x, 0.2, True),
    lambda t, x: t.alpha_dropout_(x * 1, 0.2, True),
    lambda t, x: t.feature_alpha_dropout(x, 0.4, True),
    lambda t, x: t.feature_alpha_dropout_(x * 1, 0.4, True),
]


@pytest.mark.parametrize("fn", TORCH_LEVEL)
def test_torch_level_dropout_draws_torchs_masks(torch, fn):
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)

    def run(lib):
        lib.manual_seed(9)
        leaf = lib.tensor(x, requires_grad=True)
        out = fn(lib, leaf)
        (grad,) = lib.autograd.grad(out.sum(), leaf)
        return out.detach().numpy(), grad.numpy()

    for ours, theirs in zip(run(hookgrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.dropout(t.ones(2), 1.5, True),
        lambda t: t.feature_dropout(t.ones(2), 0.5, True),
        lambda t: t.alpha_dropout_(t.ones(2), -0.1, True),
    ],
)
def test_torch_level_dropout_errors_match_torch(torch, fn):
    errors = []
    for lib in (hookgrad, torch):
        with pytest.raises(RuntimeError) as info:
            fn(lib)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("train", [True, False, None])
def test_native_dropout_matches_torch(torch, train):
    """torch's mask and values; its gradient scales only when ``train`` is True."""
    x = np.random.default_rng(1).standard_normal((3, 20))

    def run(lib):
        lib.manual_seed(2)
        leaf = lib.tensor(x, requires_grad=True)
        out, mask = lib.native_dropout(leaf, 0.3, train)
        seed = lib.full_like(out, 2.0).requires_grad_()
        (grad,) = lib.autograd.grad(out, leaf, seed, create_graph=True)
        (second,) = lib.autograd.grad(grad.sum(), seed)
        node = out.grad_fn
        names = type(node).__name__, type(grad.grad_fn).__name__, node._saved_p, str(mask.dtype)
        return names, [out.detach().numpy(), mask.numpy(), grad.detach().numpy(), second.numpy()]

    ours, theirs = run(hookgrad), run(torch)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_array_equal(a, b)
