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
    (
        "max3d",
        lambda F, x: F.max_pool3d(x, (2, 3, 2), 1, (1, 1, 0), return_indices=True),
        (1, 2, 4, 5, 3),
    ),
    ("max3d_dil_ceil", lambda F, x: F.max_pool3d(x, 2, 2, 0, 2, ceil_mode=True), (2, 6, 5, 6)),
    ("max1d_with_indices", lambda F, x: F.max_pool1d_with_indices(x, 3, 2, 1, 2), (2, 3, 9)),
    ("avg1d", lambda F, x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True), (2, 3, 8)),
    ("avg3d", lambda F, x: F.avg_pool3d(x, 2, (1, 2, 1), 1, False, False), (1, 2, 4, 5, 3)),
    ("avg3d_divisor", lambda F, x: F.avg_pool3d(x, (1, 2, 2), divisor_override=3), (2, 3, 4, 4)),
    ("adaptive1d", lambda F, x: F.adaptive_avg_pool1d(x, 4), (2, 3, 9)),
    ("adaptive3d", lambda F, x: F.adaptive_avg_pool3d(x, (2, None, 3)), (1, 2, 5, 3, 7)),
    ("adaptive_max1d", lambda F, x: F.adaptive_max_pool1d(x, 4, True), (2, 3, 9)),
    ("adaptive_max2d", lambda F, x: F.adaptive_max_pool2d(x, (3, None), True), (2, 7, 5)),
    ("adaptive_max3d_up", lambda F, x: F.adaptive_max_pool3d(x, (3, 2, 4)), (1, 2, 2, 3, 3)),
    ("lp1d", lambda F, x: F.lp_pool1d(x.abs() + 0.1, 2, 3, 2), (2, 3, 9)),
    ("lp3d", lambda F, x: F.lp_pool3d(x, 1, 2, ceil_mode=True), (1, 2, 3, 5, 4)),
    ("lp2d_inf", lambda F, x: F.lp_pool2d(x, float("inf"), (2, 3)), (2, 3, 4, 6)),
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
        lambda F, x: F.max_pool1d(x[0], 9),
        lambda F, x: F.max_pool1d(x, 2),
        lambda F, x: F.max_pool1d(x[0], 2, padding=2),
        lambda F, x: F.max_pool1d(x[0], (2, 2)),
        lambda F, x: F.max_pool1d(x[0], 9, return_indices=True),
        lambda F, x: F.avg_pool1d(x, 2),
        lambda F, x: F.avg_pool1d(x[0], (2, 2)),
        lambda F, x: F.max_pool3d(x[0], 2),
        lambda F, x: F.max_pool3d(x.unsqueeze(0), 7),
        lambda F, x: F.max_pool3d(x.unsqueeze(0), 2, dilation=0),
        lambda F, x: F.max_pool3d(x.unsqueeze(0), (2, 2)),
        lambda F, x: F.max_pool3d(x[:, :0].unsqueeze(0), 2),
        lambda F, x: F.avg_pool3d(x.unsqueeze(0), 7),
        lambda F, x: F.avg_pool3d(x.unsqueeze(0), 2, divisor_override=0),
        lambda F, x: F.avg_pool3d(x.unsqueeze(0), 2, stride=(1, 1)),
        lambda F, x: F.adaptive_avg_pool1d(x, 2),
        lambda F, x: F.adaptive_avg_pool3d(x[0], 2),
        lambda F, x: F.adaptive_avg_pool3d(x.unsqueeze(0), (2, -1, 2)),
        lambda F, x: F.adaptive_max_pool2d(x[:, :0], 2),
        lambda F, x: F.adaptive_max_pool2d(x, (2, -1)),
        lambda F, x: F.adaptive_max_pool3d(x[0], 2),
        lambda F, x: F.fractional_max_pool2d(x, 3, output_size=5),
        lambda F, x: F.fractional_max_pool3d(x.unsqueeze(0), 3, output_size=(3, 4, 4)),
        lambda F, x: F.fractional_max_pool2d(x[:, :0], 2, output_size=2),
        lambda F, x: F.max_unpool2d(x, x.long() + 200, 2),
        lambda F, x: F.max_unpool2d(x, x, 2),
        lambda F, x: F.max_unpool2d(x, x.long()[:, :1], 2),
        lambda F, x: F.max_unpool3d(x[0, 0], x[0, 0].long(), 2),
        lambda F, x: F.avg_pool2d(x.long() > 0, 2),
        lambda F, x: F.max_pool2d(x.long() > 0, 2),
        lambda F, x: F.adaptive_max_pool2d(x.long(), 2),
    ],
)
def test_errors_match_torch(torch, call):
    x = np.zeros((2, 4, 6, 6), np.float32)
    messages = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        with pytest.raises((RuntimeError, NotImplementedError, IndexError)) as info:
            call(functional, lib.tensor(x))
        messages.append((type(info.value), str(info.value)))
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.MaxPool2d(2),
        lambda nn: nn.MaxPool2d((3, 2), stride=1, padding=1, dilation=2, ceil_mode=True),
        lambda nn: nn.MaxPool1d(3, 2),
        lambda nn: nn.AvgPool2d(3, 2, 1),
        lambda nn: nn.AdaptiveAvgPool2d((4, None)),
        lambda nn: nn.MaxPool3d((1, 2, 2), stride=1, padding=(0, 1, 0), dilation=(1, 1, 2)),
        lambda nn: nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False),
        lambda nn: nn.AvgPool3d(2, (1, 2, 2), divisor_override=2),
        lambda nn: nn.AdaptiveAvgPool1d(3),
        lambda nn: nn.AdaptiveAvgPool3d((None, 3, 2)),
        lambda nn: nn.AdaptiveMaxPool1d(2),
        lambda nn: nn.AdaptiveMaxPool2d((3, 2)),
        lambda nn: nn.AdaptiveMaxPool3d(2),
        lambda nn: nn.LPPool1d(2, 3, 2),
        lambda nn: nn.LPPool2d(1.5, (3, 2), ceil_mode=True),
        lambda nn: nn.LPPool3d(3, 2),
    ],
)
def test_modules_match_torch(torch, make):
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 8)).astype(np.float32)
    if "1d" in type(make(nn)).__name__:
        x = x[:, :, 0]
    if "3d" in type(make(nn)).__name__:
        x = x.reshape(1, 2, 3, 9, 8)
    if "LPPool" in type(make(nn)).__name__:
        x = np.abs(x)
    ours, theirs = make(nn), make(torch.nn)
    assert ours.extra_repr() == theirs.extra_repr()
    assert_close(ours(hookgrad.tensor(x)), theirs(torch.tensor(x)))


def test_max_pool_module_return_indices(torch):
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    out, indices = nn.MaxPool2d(2, return_indices=True)(hookgrad.tensor(x))
    expected = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    assert_close((out, indices), expected)
    assert not indices.requires_grad


def test_return_indices_modules(torch):
    """Adaptive and 3-d max pools give torch's indices; max unpooling puts the maxima back."""
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 6, 4)).astype(np.float32)
    for make in (
        lambda nn: nn.MaxPool3d(2, return_indices=True),
        lambda nn: nn.AdaptiveMaxPool3d((3, 2, 3), return_indices=True),
        lambda nn: nn.AdaptiveMaxPool2d(3, return_indices=True),
    ):
        sample = x[0] if "2d" in type(make(nn)).__name__ else x
        ours = make(nn)(hookgrad.tensor(sample))
        theirs = make(torch.nn)(torch.tensor(sample))
        assert_close(ours, theirs)
        assert ours[1].dtype == hookgrad.int64 and not ours[1].requires_grad
    results = []
    for lib in (hookgrad, torch):
        xt = lib.tensor(x[0], requires_grad=True)
        out, indices = lib.nn.MaxPool2d(2, return_indices=True)(xt)
        unpooled = lib.nn.MaxUnpool2d(2)(out, indices, output_size=xt.shape)
        unpooled.backward(lib.ones_like(unpooled) * 3)
        results.append((unpooled, xt.grad, repr(lib.nn.MaxUnpool2d(2))))
    assert_close(results[0][:2], results[1][:2])
    assert results[0][2] == results[1][2]


def test_adaptive_max_pool_nan_and_ties(torch):
    x = np.array([[[1.0, 3.0, 3.0, np.nan, 2.0, np.nan, 0.0]]], np.float32)
    ours = F.adaptive_max_pool1d(hookgrad.tensor(x), 3, return_indices=True)
    expected = torch.nn.functional.adaptive_max_pool1d(torch.tensor(x), 3, return_indices=True)
    assert_close(ours, expected)


def test_fractional_max_pool_draws_match_torch(torch):
    """Its window places come from the seeded generator, as torch's ``torch.rand``."""
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 10, 7)).astype(np.float32)
    results = []
    for lib in (hookgrad, torch):
        lib.manual_seed(5)
        xt = lib.tensor(x[0], requires_grad=True)
        out2 = lib.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.6), return_indices=True)(xt)
        xt3 = lib.tensor(x, requires_grad=True)
        out3 = lib.nn.functional.fractional_max_pool3d(xt3, 2, output_size=(4, 5, 3))
        (out2[0].sum() + out3.pow(2).sum()).backward()
        results.append((out2, out3, xt.grad, xt3.grad, lib.rand(2)))
    assert_close(results[0], results[1])


def test_fractional_module_arguments(torch):
    for lib in (nn, torch.nn):
        with pytest.raises(ValueError, match="requires specifying either an output size"):
            lib.FractionalMaxPool2d(2)
        with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
            lib.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5)
        with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
            lib.FractionalMaxPool2d(2, output_ratio=1.5)
        with pytest.raises(ValueError, match="kernel_size must be greater than 0"):
            lib.FractionalMaxPool3d(0, output_size=2)


def test_integer_pools_match_torch(torch):
    x = np.random.default_rng(0).integers(-50, 50, (2, 3, 5, 7, 6))
    for call in (
        lambda F, t: F.avg_pool2d(t[0], 3, 2, 1, ceil_mode=True),
        lambda F, t: F.avg_pool3d(t, 2, 1, 1, count_include_pad=False),
        lambda F, t: F.avg_pool1d(t[0, 0], 2),
        lambda F, t: F.max_pool3d(t.int(), 2, return_indices=True),
    ):
        ours = call(F, hookgrad.tensor(x))
        assert_close(ours, call(torch.nn.functional, torch.tensor(x)), 0, 0)
