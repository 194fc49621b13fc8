"""``nn.grad``'s convolution gradients against torch: they equal the gradients autograd
computes through the convolution, and record torch's ``ConvolutionBackwardBackward0``
(values and gradients are rows of ``tests/ops/cases/restride.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from tests.oracle import edge_positions, reachable_nodes

SHAPES = {
    1: ((2, 4, 7), (6, 2, 3)),
    2: ((2, 4, 5, 6), (6, 2, 3, 2)),
    3: ((1, 2, 4, 4, 3), (4, 1, 2, 2, 2)),
}
OPTIONS = {"stride": 2, "padding": 1, "dilation": 1, "groups": 2}


@pytest.mark.parametrize("nd", SHAPES)
def test_equals_autograds_gradients(nd):
    rng = np.random.default_rng(nd)
    x_shape, w_shape = SHAPES[nd]
    x = hookgrad.tensor(rng.standard_normal(x_shape), requires_grad=True)
    w = hookgrad.tensor(rng.standard_normal(w_shape), requires_grad=True)
    conv = getattr(hookgrad.nn.functional, f"conv{nd}d")
    out = conv(x, w, **OPTIONS)
    grad_output = hookgrad.tensor(rng.standard_normal(tuple(out.shape)))
    grad_x, grad_w = hookgrad.autograd.grad(out, (x, w), grad_output)
    module = hookgrad.nn.grad
    by_input = getattr(module, f"conv{nd}d_input")(x.shape, w, grad_output, **OPTIONS)
    by_weight = getattr(module, f"conv{nd}d_weight")(x, w.shape, grad_output, **OPTIONS)
    np.testing.assert_allclose(by_input.detach().numpy(), grad_x.numpy(), rtol=1e-12)
    np.testing.assert_allclose(by_weight.detach().numpy(), grad_w.numpy(), rtol=1e-12)


def _graphs(lib):
    """Both functions' graphs, and second-order gradients through them. (NOTE: the nodes
    those gradients record are ``ConvolutionBackwardBackward0``'s backward, of
    ``hookgrad.ops.conv``; torch's records ``ConvolutionBackward0`` of transposed weights
    there, so only their values are compared.)"""
    lib.manual_seed(0)
    x = lib.randn(1, 2, 5, 5, dtype=lib.float64, requires_grad=True)
    w = lib.randn(3, 2, 2, 2, dtype=lib.float64, requires_grad=True)
    grad_output = lib.randn(1, 3, 4, 4, dtype=lib.float64, requires_grad=True)
    by_input = lib.nn.grad.conv2d_input(x.shape, w, grad_output)
    by_weight = lib.nn.functional.grad.conv2d_weight(x, w.shape, grad_output)
    total = (by_input * by_input).sum() + (by_weight * by_weight).sum()
    grads = lib.autograd.grad(total, (x, w, grad_output), create_graph=True)
    nodes = reachable_nodes([by_input.grad_fn, by_weight.grad_fn])
    return (
        [type(n).__name__ for n in nodes],
        edge_positions(nodes),
        [np.round(g.detach().numpy(), 10).tolist() for g in grads],
    )


def test_graphs_match_torch(torch):
    assert _graphs(hookgrad) == _graphs(torch)
