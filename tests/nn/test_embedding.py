"""Embedding and F.embedding against torch (identical tables, float32 and float64):
values, weight gradients with repeated indices, padding_idx, scale_grad_by_freq,
max_norm, errors, gradcheck, from_pretrained and repr."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad import nn
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from tests.oracle import assert_close

INDICES = np.array([[1, 3, 3, 0], [2, 1, 9, 3]])


def _run(lib, table, indices, **kwargs):
    weight = lib.tensor(table, requires_grad=True)
    functional = F if lib is hookgrad else lib.nn.functional
    out = functional.embedding(lib.tensor(indices), weight, **kwargs)
    grad = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(table.dtype)
    out.backward(lib.tensor(grad))
    return out, weight.grad, weight, out.grad_fn.name()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"padding_idx": 3},
        {"padding_idx": -1},
        {"scale_grad_by_freq": True},
        {"padding_idx": 1, "scale_grad_by_freq": True},
        {"max_norm": 1.0},
        {"max_norm": 2.0, "norm_type": 1.0},
    ],
)
@pytest.mark.parametrize("indices", [INDICES, INDICES[0], np.array(4)], ids=["2d", "1d", "0d"])
def test_functional_matches_torch(torch, dtype, kwargs, indices):
    table = np.random.default_rng(0).standard_normal((10, 3)).astype(dtype)
    ours = _run(hookgrad, table, indices, **kwargs)
    theirs = _run(torch, table, indices, **kwargs)
    assert_close(ours[:3], theirs[:3], rtol=1e-5, atol=1e-6)
    assert ours[3] == theirs[3] == "EmbeddingBackward0"


def test_int32_indices_are_accepted(torch):
    table = np.random.default_rng(0).standard_normal((10, 3)).astype(np.float32)
    indices = INDICES.astype(np.int32)
    assert_close(_run(hookgrad, table, indices)[:2], _run(torch, table, indices)[:2])


def test_max_norm_renormalises_the_table_in_place():
    weight = hookgrad.randn(6, 4, requires_grad=True) * 10
    weight = weight.detach().requires_grad_()
    F.embedding(hookgrad.tensor([0, 2, 2]), weight, max_norm=1.0)
    norms = np.linalg.norm(weight.detach().numpy(), axis=1)
    np.testing.assert_allclose(norms[[0, 2]], 1.0, rtol=1e-5)
    assert np.all(norms[[1, 3, 4, 5]] > 1.0)
    assert weight._version == 1 and weight.is_leaf


def test_gradcheck():
    weight = hookgrad.randn(6, 3, dtype=hookgrad.float64, requires_grad=True)
    indices = hookgrad.tensor([[0, 2, 2], [5, 0, 1]])

    # NOTE: padding_idx and scale_grad_by_freq change the gradient on purpose (it is no
    # longer the derivative), so only the plain lookup is checked against differences.
    def fn(weight):
        return F.embedding(indices, weight)

    assert gradcheck(fn, (weight,))
    assert gradgradcheck(fn, (weight,))


@pytest.mark.parametrize(
    "indices, weight",
    [
        (np.array([10]), (10, 3)),
        (np.array([-1]), (10, 3)),
        (np.array([1.0]), (10, 3)),
        (np.array([1]), (10,)),
    ],
)
def test_errors_match_torch(torch, indices, weight):
    with pytest.raises((IndexError, RuntimeError)) as ours:
        F.embedding(hookgrad.tensor(indices), hookgrad.randn(*weight))
    with pytest.raises((IndexError, RuntimeError)) as theirs:
        torch.nn.functional.embedding(torch.tensor(indices), torch.randn(*weight))
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("padding_idx", [10, -11])
def test_padding_idx_out_of_range_raises(torch, padding_idx):
    for lib in (hookgrad, torch):
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            lib.nn.Embedding(10, 3, padding_idx=padding_idx)
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            lib.nn.functional.embedding(lib.tensor([1]), lib.randn(10, 3), padding_idx=padding_idx)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_module_matches_torch(torch, dtype):
    module = nn.Embedding(10, 3, padding_idx=2, dtype=getattr(hookgrad, dtype))
    torch_module = torch.nn.Embedding(10, 3, padding_idx=2, dtype=getattr(torch, dtype))
    with hookgrad.no_grad():
        module.weight.copy_(hookgrad.tensor(torch_module.weight.detach().numpy()))
    outs = []
    for lib, layer in ((hookgrad, module), (torch, torch_module)):
        out = layer(lib.tensor(INDICES))
        (out * out).sum().backward()
        outs.append((out, layer.weight.grad))
    assert_close(outs[0], outs[1], rtol=1e-6)


def test_module_default_init():
    hookgrad.manual_seed(0)
    module = nn.Embedding(1000, 20, padding_idx=-3)
    values = module.weight.detach().numpy()
    assert module.padding_idx == 997
    assert np.all(values[997] == 0)
    assert abs(values.mean()) < 0.02 and abs(values.std() - 1) < 0.02
    assert module.weight.is_leaf and module.weight.requires_grad


def test_from_pretrained_shares_and_freezes():
    table = hookgrad.eye(4)
    module = nn.Embedding.from_pretrained(table)
    assert not module.weight.requires_grad
    assert module(hookgrad.tensor([2])).tolist() == [[0.0, 0.0, 1.0, 0.0]]
    trainable = nn.Embedding.from_pretrained(table, freeze=False, padding_idx=0)
    assert trainable.weight.requires_grad and trainable.padding_idx == 0
    with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(hookgrad.ones(3))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"padding_idx": 0},
        {"padding_idx": -1, "max_norm": 1.0, "norm_type": 1.0, "scale_grad_by_freq": True},
    ],
)
def test_repr_matches_torch(torch, kwargs):
    module, torch_module = nn.Embedding(10, 3, **kwargs), torch.nn.Embedding(10, 3, **kwargs)
    assert module.extra_repr() == torch_module.extra_repr()
    assert repr(module) == repr(torch_module)
