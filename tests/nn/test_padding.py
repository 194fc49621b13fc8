"""The padding layers (``ZeroPad*``, ``ConstantPad*``, ``ReflectionPad*``,
``ReplicationPad*``, ``CircularPad*``) against torch: values, gradients and nodes in float32
and float64, reprs, ``isinstance`` relations, errors, gradcheck."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn.modules import padding
from tests.oracle import assert_close

LAYERS = [
    # (class, arguments, input shape)
    ("ZeroPad1d", (2,), (2, 3, 4)),
    ("ZeroPad2d", ((1, -1, 2, 0),), (3, 4, 5)),
    ("ZeroPad3d", (1,), (1, 2, 2, 3, 2)),
    ("ConstantPad1d", ((3, 1), 2.5), (3, 4)),
    ("ConstantPad2d", (2, -1.0), (1, 2, 3, 3)),
    ("ConstantPad3d", ((1, 0, 0, 2, 1, 1), 0.5), (2, 2, 3, 2)),
    ("ReflectionPad1d", ((2, 1),), (2, 3, 4)),
    ("ReflectionPad2d", (1,), (2, 3, 3, 4)),
    ("ReflectionPad3d", ((1, 0, 2, 1, 0, 1),), (1, 2, 2, 3, 4)),
    ("ReplicationPad1d", (3,), (2, 5)),
    ("ReplicationPad2d", ((0, 2, 1, 3),), (2, 3, 3)),
    ("ReplicationPad3d", (1,), (2, 2, 2, 3)),
    ("CircularPad1d", ((2, 1),), (2, 3, 4)),
    ("CircularPad2d", ((1, 1, 2, 0),), (3, 3, 4)),
    ("CircularPad3d", (1,), (1, 1, 2, 2, 3)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layer", LAYERS, ids=lambda c: c[0])
def test_matches_torch(torch, dtype, layer):
    name, args, shape = layer
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    results = []
    for lib in (hookgrad, torch):
        module = getattr(lib.nn, name)(*args)
        xt = lib.tensor(x, requires_grad=True)
        out = module(xt)
        grad = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype)
        out.backward(lib.tensor(grad))
        results.append((out, xt.grad, repr(module), out.grad_fn.name()))
    assert_close(results[0][:2], results[1][:2], rtol=1e-6, atol=1e-7)
    assert results[0][2:] == results[1][2:]


def test_classes_relate_as_torch_s(torch):
    for name in padding.__all__:
        for other in padding.__all__:
            ours = issubclass(getattr(hookgrad.nn, name), getattr(hookgrad.nn, other))
            assert ours == issubclass(getattr(torch.nn, name), getattr(torch.nn, other))


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda nn: nn.CircularPad2d(1), (2, 3)),
        (lambda nn: nn.CircularPad1d(3), (1, 2, 2)),
        (lambda nn: nn.ReflectionPad2d(3), (1, 3, 3)),
        (lambda nn: nn.ReplicationPad1d((2, 1)), (1, 2, 3, 4)),
        (lambda nn: nn.ZeroPad2d((-3, 0, 0, 0)), (1, 2, 2)),
    ],
)
def test_errors_match_torch(torch, make, shape):
    outcomes = []
    for lib in (hookgrad, torch):
        with pytest.raises((ValueError, RuntimeError, NotImplementedError)) as info:
            make(lib.nn)(lib.zeros(shape))
        outcomes.append((type(info.value), str(info.value)))
    assert outcomes[0] == outcomes[1]


def test_gradcheck():
    x = hookgrad.tensor(
        np.random.default_rng(0).standard_normal((1, 2, 2, 3, 3)), requires_grad=True
    )
    for module in (
        hookgrad.nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)),
        hookgrad.nn.ReflectionPad3d(1),
    ):
        assert gradcheck(module, (x,))
        assert gradgradcheck(module, (x,))
