"""MaxPool1d/2d, AvgPool2d, AdaptiveAvgPool2d and their functional forms against torch
(float32 and float64, indices included), ties, gradcheck / gradgradcheck, errors, repr."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from hookgrad.nn import modules as nn
from tests.oracle import assert_close

DTYPES = ["float32", "float64"]

CASES = [
    # (name, call with (functional module, x), input shape)
    ("max2", lambda F, x: F.max_pool2d(x, 2), (2, 3, 6, 7)),
    ("max3_s2_p1", lambda F, x: F.max_pool2d(x, 3, 2, 1), (2, 3, 9, 8)),
    ("max_dil_ceil", lambda F, x: F.max_pool2d(x, 3, 2, 1, 2, ceil_mode=True), (2, 2, 9, 8)),
    ("max_rect_ceil", lambda F, x: F.max_pool2d(x, (3, 2), (2, 1), 1, ceil_mode=True), (3, 9, 8)),
    ("max_indices", lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True), (2, 2, 7, 7)),
    ("max1d", lambda F, x: F.max_pool1d(x, 3, 2, 1), (2, 3, 9)),
    ("max1d_indices", lambda F, x: F.max_pool1d(x, 2, return_indices=True), (3, 8)),
    ("avg2", lambda F, x: F.avg_pool2d(x, 2), (2, 3, 6, 7)),
    ("avg_exclude_pad", lambda F, x: F.avg_pool2d(x, 3, 2, 1, True, False), (2, 3, 9, 8)),
    ("avg_include_pad", lambda F, x: F.avg_pool2d(x, 3, 2, 1, True, True), (2, 3, 10, 8)),
    ("avg_divisor", lambda F, x: F.avg_pool2d(x, (3, 2), 2, 1, divisor_override=5), (3, 10, 8)),
    ("adaptive", lambda F, x: F.adaptive_avg_pool2d(x, (3, 4)), (2, 3, 10, 7)),
    ("adaptive_one", lambda F, x: F.adaptive_avg_pool2d(x, 1), (2, 3, 5, 7)),
    ("adaptive_none", lambda F, x: F.adaptive_avg_pool2d(x, (None, 4)), (3, 10, 7)),
    ("adaptive_up", lambda F, x: F.adaptive_avg_pool2d(x, 5), (1, 2, 3, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_matches_torch(torch, dtype, case):
    _, call, shape = case
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    results = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        xt = lib.tensor(x, requires_grad=True)
        out = call(functional, xt)
        values = out[0] if isinstance(out, tuple) else out
        grad = np.random.default_rng(1).standard_normal(tuple(values.shape)).astype(dtype)
        values.backward(lib.tensor(grad))
        results.append((out, xt.grad, values.grad_fn.name()))
    assert_close(results[0][:2], results[1][:2], rtol=1e-6, atol=1e-6)
    assert results[0][2] == results[1][2]


def test_max_pool_ties_go_to_first_maximum(torch):
    x = np.array([[[[1.0, 1.0, 0.0], [1.0, 1.0, 2.0], [2.0, 0.0, 2.0]]]], np.float32)
    results = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        xt = lib.tensor(x, requires_grad=True)
        out, indices = functional.max_pool2d(xt, 2, 1, return_indices=True)
        out.sum().backward()
        results.append((out, indices, xt.grad))
    assert_close(results[0], results[1])
    assert results[0][1].tolist() == [[[[0, 5], [6, 5]]]]


def test_max_pool_overlapping_windows_accumulate():
    x = hookgrad.tensor([[[[0.0, 5.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], requires_grad=True)
    F.max_pool2d(x, 2, 1).sum().backward()
    assert x.grad.tolist() == [[[[0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]]


def test_max_pool_nan_propagates(torch):
    x = np.array([[[[1.0, np.nan, 5.0, np.nan], [3.0, 2.0, 1.0, np.nan]]]], np.float32)
    out = F.max_pool2d(hookgrad.tensor(x), 2, return_indices=True)
    expected = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    assert_close(out, expected)  # the last NaN of a window is its index


def _double(shape):
    return hookgrad.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_gradcheck_and_gradgradcheck(case):
    _, call, shape = case

    def fn(x):
        out = call(F, x)
        return out[0] if isinstance(out, tuple) else out

    x = _double(shape)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_double_backward_node_names(torch):
    names = []
    for lib in (hookgrad, torch):
        x = lib.randn(1, 2, 4, 4, dtype=lib.float64, requires_grad=True)
        y = (lib.nn.functional.max_pool2d(x, 2) ** 2).sum()
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        node = gx.grad_fn
        names.append((node.name(), [f[0].name() if f[0] else None for f in node.next_functions]))
    assert names[0] == names[1]
    assert names[0][0] == "MaxPool2DWithIndicesBackwardBackward0"


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.max_pool2d(x, 4, padding=3),
        lambda F, x: F.avg_pool2d(x, 4, padding=3),
        lambda F, x: F.max_pool2d(x[0, 0, 0], 2),
        lambda F, x: F.max_pool2d(x, 8),
        lambda F, x: F.avg_pool2d(x, 8),
        lambda F, x: F.max_pool2d(x, 2, stride=0),
        lambda F, x: F.adaptive_avg_pool2d(x[0, 0, 0], 2),
    ],
)
def test_errors_match_torch(torch, call):
    x = np.zeros((2, 4, 6, 6), np.float32)
    messages = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        with pytest.raises(RuntimeError) as info:
            call(functional, lib.tensor(x))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.MaxPool2d(2),
        lambda nn: nn.MaxPool2d((3, 2), stride=1, padding=1, dilation=2, ceil_mode=True),
        lambda nn: nn.MaxPool1d(3, 2),
        lambda nn: nn.AvgPool2d(3, 2, 1),
        lambda nn: nn.AdaptiveAvgPool2d((4, None)),
    ],
)
def test_modules_match_torch(torch, make):
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 8)).astype(np.float32)
    if isinstance(make(nn), nn.MaxPool1d):
        x = x[:, :, 0]
    ours, theirs = make(nn), make(torch.nn)
    assert ours.extra_repr() == theirs.extra_repr()
    assert_close(ours(hookgrad.tensor(x)), theirs(torch.tensor(x)))


def test_max_pool_module_return_indices(torch):
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    out, indices = nn.MaxPool2d(2, return_indices=True)(hookgrad.tensor(x))
    expected = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    assert_close((out, indices), expected)
    assert not indices.requires_grad
