"""Flatten and Unflatten against torch: shapes, values, gradients, node names, errors
and repr."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad import nn
from tests.oracle import assert_close

LAYERS = [
    lambda nn: nn.Flatten(),
    lambda nn: nn.Flatten(0, 2),
    lambda nn: nn.Flatten(-2),
    lambda nn: nn.Unflatten(1, (2, 3)),
    lambda nn: nn.Unflatten(-1, [5, -1]),
]


@pytest.mark.parametrize("make", LAYERS)
def test_matches_torch(torch, make):
    x = np.random.default_rng(0).standard_normal((4, 6, 5)).astype(np.float32)
    results = []
    for lib, layer in ((hookgrad, make(nn)), (torch, make(torch.nn))):
        leaf = lib.tensor(x, requires_grad=True)
        out = layer(leaf * 2)
        (out * out).sum().backward()
        results.append((out, leaf.grad, out.grad_fn.name()))
    assert_close(results[0][:2], results[1][:2])
    assert results[0][2] == results[1][2]


def test_flatten_of_contiguous_input_is_a_view():
    x = hookgrad.zeros(2, 3, 4)
    y = nn.Flatten()(x)
    y[0, 0] = 1.0
    assert x[0, 0, 0].item() == 1.0


@pytest.mark.parametrize("size", [(2.0, 3), 5])
def test_unflatten_size_errors_match_torch(torch, size):
    with pytest.raises(TypeError) as ours:
        nn.Unflatten(1, size)
    with pytest.raises(TypeError) as theirs:
        torch.nn.Unflatten(1, size)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("make", LAYERS)
def test_repr_matches_torch(torch, make):
    module, torch_module = make(nn), make(torch.nn)
    assert module.extra_repr() == torch_module.extra_repr()
    assert repr(module) == repr(torch_module)
