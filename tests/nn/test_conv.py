"""Conv1d, Conv2d, ConvTranspose2d and their functional forms against torch (identical
weights, float32 and float64), gradcheck / gradgradcheck in float64, node names, errors,
default init and repr."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from hookgrad.nn import modules as nn
from tests.oracle import assert_close

DTYPES = ["float32", "float64"]
# torch warns that it copies the input for an even kernel with padding="same"
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")


def _tol(dtype: str) -> dict:
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-11}


def _copy_parameters(module, torch_module) -> None:
    torch_params = dict(torch_module.named_parameters())
    with hookgrad.no_grad():
        for name, param in module.named_parameters():
            param.copy_(hookgrad.tensor(torch_params[name].detach().numpy()))


def _run_both(module, torch_module, torch, x, dtype):
    """Forward and backward with one random output gradient in both libraries."""
    results = []
    for lib, layer in ((hookgrad, module), (torch, torch_module)):
        inp = lib.tensor(x, requires_grad=True)
        out = layer(inp)
        grad = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype)
        out.backward(lib.tensor(grad))
        results.append((out, inp.grad, [p.grad for _, p in layer.named_parameters()]))
    return results


CONV2D = [
    # (in, out, kernel, kwargs, input shape)
    (3, 4, 3, {}, (2, 3, 7, 6)),
    (4, 6, (3, 2), {"stride": (2, 1), "padding": (1, 2), "dilation": (1, 2)}, (2, 4, 9, 8)),
    (4, 6, 3, {"groups": 2, "bias": False}, (2, 4, 6, 6)),
    (4, 4, 3, {"groups": 4, "stride": 2, "padding": 1}, (1, 4, 7, 7)),  # depthwise
    (3, 5, 4, {"padding": "same"}, (2, 3, 6, 7)),  # even kernel: asymmetric padding
    (3, 5, 3, {"padding": "same", "dilation": 2}, (2, 3, 7, 7)),
    (3, 5, 3, {"padding": "valid"}, (3, 6, 6)),  # unbatched
    (2, 3, 3, {"padding": 1, "padding_mode": "reflect"}, (2, 2, 5, 5)),
    (2, 3, 3, {"padding": (1, 2), "padding_mode": "circular"}, (2, 2, 5, 5)),
    (2, 3, 3, {"padding": 1, "padding_mode": "replicate"}, (1, 2, 4, 5)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", CONV2D, ids=lambda c: str(c[3]))
def test_conv2d_matches_torch(torch, dtype, config):
    cin, cout, kernel, kwargs, shape = config
    module = nn.Conv2d(cin, cout, kernel, dtype=getattr(hookgrad, dtype), **kwargs)
    torch_module = torch.nn.Conv2d(cin, cout, kernel, dtype=getattr(torch, dtype), **kwargs)
    _copy_parameters(module, torch_module)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    ours, theirs = _run_both(module, torch_module, torch, x, dtype)
    assert_close(ours, theirs, **_tol(dtype))


CONV1D = [
    (3, 4, 3, {}, (2, 3, 9)),
    (4, 6, 2, {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}, (2, 4, 11)),
    (3, 4, 4, {"padding": "same", "bias": False}, (3, 8)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", CONV1D, ids=lambda c: str(c[3]))
def test_conv1d_matches_torch(torch, dtype, config):
    cin, cout, kernel, kwargs, shape = config
    module = nn.Conv1d(cin, cout, kernel, dtype=getattr(hookgrad, dtype), **kwargs)
    torch_module = torch.nn.Conv1d(cin, cout, kernel, dtype=getattr(torch, dtype), **kwargs)
    _copy_parameters(module, torch_module)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    ours, theirs = _run_both(module, torch_module, torch, x, dtype)
    assert_close(ours, theirs, **_tol(dtype))


CONV_TRANSPOSE = [
    (4, 3, 3, {}, (2, 4, 5, 4)),
    (4, 6, (3, 2), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, (2, 4, 4, 5)),
    (2, 3, 3, {"stride": (1, 2), "dilation": 2, "output_padding": (0, 1)}, (2, 2, 3, 3)),
    (2, 3, 2, {"bias": False}, (2, 3, 3)),  # unbatched
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", CONV_TRANSPOSE, ids=lambda c: str(c[3]))
def test_conv_transpose2d_matches_torch(torch, dtype, config):
    cin, cout, kernel, kwargs, shape = config
    module = nn.ConvTranspose2d(cin, cout, kernel, dtype=getattr(hookgrad, dtype), **kwargs)
    torch_module = torch.nn.ConvTranspose2d(
        cin, cout, kernel, dtype=getattr(torch, dtype), **kwargs
    )
    _copy_parameters(module, torch_module)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    ours, theirs = _run_both(module, torch_module, torch, x, dtype)
    assert_close(ours, theirs, **_tol(dtype))


def test_conv_transpose2d_output_size(torch):
    messages = []
    for lib in (hookgrad, torch):
        module = lib.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
        x = lib.randn(1, 2, 4, 4)
        assert tuple(module(x).shape) == (1, 3, 7, 7)
        assert tuple(module(x, output_size=[8, 8]).shape) == (1, 3, 8, 8)
        with pytest.raises(ValueError, match="requested an output size of") as info:
            module(x, output_size=[10, 10])
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def _double(*shapes):
    rng = np.random.default_rng(0)
    return [hookgrad.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]


GRADCHECK = {
    "conv2d": (
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
        ((2, 4, 5, 6), (4, 2, 2, 3), (4,)),
    ),
    "conv2d_same": (lambda x, w: F.conv2d(x, w, padding="same"), ((1, 2, 4, 5), (3, 2, 2, 3))),
    "conv1d": (lambda x, w: F.conv1d(x, w, stride=2, padding=1), ((2, 3, 7), (2, 3, 3))),
    "conv_transpose2d": (
        lambda x, w, b: F.conv_transpose2d(
            x, w, b, stride=2, padding=1, output_padding=1, groups=2
        ),
        ((2, 4, 3, 3), (4, 1, 3, 2), (2,)),
    ),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = GRADCHECK[name]
    inputs = _double(*shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_double_backward_matches_torch(torch):
    """The backward is torch's ``convolution_backward`` node, whose backward is made of
    convolutions: second derivatives match torch's."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 6, 6)), rng.standard_normal((6, 2, 3, 3))
    results = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = functional.conv2d(xt, wt, stride=2, padding=1, groups=2)
        gx, gw = lib.autograd.grad((y * y).sum(), (xt, wt), create_graph=True)
        name = gx.grad_fn.name()
        ((gx * gx).sum() + (gw**3).sum()).backward()
        results.append((gx, gw, xt.grad, wt.grad, name))
    assert results[0][4] == results[1][4] == "ConvolutionBackwardBackward0"
    assert_close(results[0][:4], results[1][:4], rtol=1e-9, atol=1e-9)


def test_node_name_and_saved_attributes(torch):
    seen = []
    for lib in (hookgrad, torch):
        x = lib.randn(1, 2, 5, 5, dtype=lib.float64, requires_grad=True)
        w = lib.randn(3, 2, 3, 3, dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.conv2d(x, w, stride=2, padding=1)
        node = y.grad_fn
        conv1d = lib.nn.functional.conv1d(x[0, :, 0], w[:, :, 0]).grad_fn
        seen.append(
            (
                node.name(),
                tuple(node._saved_stride),
                tuple(node._saved_padding),
                node._saved_transposed,
                conv1d.name(),
            )
        )
    assert seen[0] == seen[1] == ("ConvolutionBackward0", (2, 2), (1, 1), False, "SqueezeBackward1")


def test_bias_only_gradient():
    x = hookgrad.randn(2, 3, 5, 5)
    w = hookgrad.randn(4, 3, 3, 3)
    b = hookgrad.zeros(4, requires_grad=True)
    F.conv2d(x, w, b).sum().backward()
    assert np.allclose(b.grad.numpy(), 2 * 3 * 3)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x, w: F.conv2d(x, w),  # groups=1: channel mismatch
        lambda F, x, w: F.conv2d(x.double(), w, groups=2),
        lambda F, x, w: F.conv2d(x[0, 0], w),
        lambda F, x, w: F.conv2d(x, w, stride=2, padding="same", groups=2),
        lambda F, x, w: F.conv2d(x, w, padding="foo"),
        lambda F, x, w: F.conv2d(x[:, :, :2, :2], w, groups=2),
        lambda F, x, w: F.conv2d(x, w, stride=0, groups=2),
        lambda F, x, w: F.conv2d(x, w, padding=-1, groups=2),
        lambda F, x, w: F.conv2d(x, w, x.new_zeros(5), groups=2),
        lambda F, x, w: F.conv2d(x, w, groups=3),
        lambda F, x, w: F.conv_transpose2d(x, w),
    ],
)
def test_errors_match_torch(torch, call):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 6, 6)), rng.standard_normal((6, 2, 3, 3))
    messages = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        xt = lib.tensor(x, dtype=lib.float32)
        wt = lib.tensor(w, dtype=lib.float32)
        with pytest.raises(RuntimeError) as info:
            call(functional, xt, wt)
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]


def test_module_argument_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="Invalid padding string"):
        nn.Conv2d(3, 4, 3, padding="full")
    with pytest.raises(ValueError, match="strided convolutions"):
        nn.Conv2d(3, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(3, 4, 3, padding_mode="mirror")


def test_default_init_bounds():
    """kaiming_uniform_(a=sqrt(5)) on the weight and U(-1/sqrt(fan_in), ..) on the bias:
    both bounds are 1 / sqrt(fan_in)."""
    hookgrad.manual_seed(0)
    conv = nn.Conv2d(16, 32, 3)
    bound = 1 / math.sqrt(16 * 9)
    weight, bias = conv.weight.detach().numpy(), conv.bias.detach().numpy()
    assert conv.weight.shape == (32, 16, 3, 3) and conv.weight.requires_grad
    assert np.abs(weight).max() <= bound
    assert np.abs(weight).max() > 0.95 * bound  # uniform over the whole range
    assert abs(weight.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert np.abs(bias).max() <= bound
    transposed = nn.ConvTranspose2d(16, 8, 3, groups=2)
    assert transposed.weight.shape == (16, 4, 3, 3)
    assert np.abs(transposed.weight.detach().numpy()).max() <= 1 / math.sqrt(4 * 9)


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Conv2d(1, 32, 3),
        lambda nn: nn.Conv2d(4, 8, (3, 2), stride=2, padding=1, dilation=2, groups=2, bias=False),
        lambda nn: nn.Conv2d(3, 4, 3, padding="same", padding_mode="reflect"),
        lambda nn: nn.Conv1d(2, 4, 3, padding="valid"),
        lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1),
    ],
)
def test_extra_repr_matches_torch(torch, make):
    assert make(nn).extra_repr() == make(torch.nn).extra_repr()


# -- 1-d and 3-d layers ---------------------------------------------------------------------

LAYERS = [
    # (class, positional args, kwargs, input shape)
    ("Conv3d", (3, 4, 2), {"stride": (1, 2, 1), "padding": 1}, (2, 3, 4, 5, 3)),
    ("Conv3d", (4, 4, 3), {"groups": 2, "padding": "same", "dilation": 2}, (4, 3, 3, 5)),
    (
        "Conv3d",
        (2, 3, 2),
        {"padding": 1, "padding_mode": "reflect", "bias": False},
        (1, 2, 3, 3, 3),
    ),
    ("ConvTranspose1d", (4, 6, 3), {"stride": 2, "padding": 1, "groups": 2}, (2, 4, 5)),
    ("ConvTranspose1d", (3, 2, 2), {"dilation": 3, "bias": False}, (3, 4)),
    ("ConvTranspose3d", (2, 4, (2, 3, 2)), {"stride": 2, "output_padding": 1}, (1, 2, 2, 3, 2)),
    ("ConvTranspose3d", (4, 2, 2), {"groups": 2, "padding": (1, 0, 0)}, (4, 3, 2, 2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", LAYERS, ids=lambda c: f"{c[0]}{c[2]}")
def test_layers_match_torch(torch, dtype, config):
    name, args, kwargs, shape = config
    module = getattr(nn, name)(*args, dtype=getattr(hookgrad, dtype), **kwargs)
    torch_module = getattr(torch.nn, name)(*args, dtype=getattr(torch, dtype), **kwargs)
    _copy_parameters(module, torch_module)
    assert module.extra_repr() == torch_module.extra_repr()
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    ours, theirs = _run_both(module, torch_module, torch, x, dtype)
    assert_close(ours, theirs, **_tol(dtype))


@pytest.mark.parametrize("name", ["ConvTranspose1d", "ConvTranspose3d"])
def test_conv_transpose_output_size(torch, name):
    nd = int(name[-2])
    results = []
    for lib in (hookgrad, torch):
        module = getattr(lib.nn, name)(2, 3, 3, stride=2, padding=1)
        x = lib.zeros((1, 2) + (4,) * nd)
        shapes = [tuple(module(x, output_size=[8] * nd).shape)]
        for bad in ([10] * nd, [8] * (nd + 3)):
            with pytest.raises(ValueError) as info:
                module(x, output_size=bad)
            shapes.append(str(info.value))
        results.append(shapes)
    assert results[0] == results[1]
    assert results[0][0] == (1, 3) + (8,) * nd


def test_torch_level_convolutions(torch):
    """``hookgrad.conv1d`` ... are ``nn.functional``'s; ``convolution`` takes every
    argument, ``conv_tbc`` a time-batch-channel input."""
    assert hookgrad.conv3d is F.conv3d and hookgrad.conv_transpose1d is F.conv_transpose1d
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 5, 6)), rng.standard_normal((4, 3, 3, 3))
    args = ([2, 1], [1, 0], [1, 2], True, [1, 0], 1)
    ours = hookgrad.convolution(hookgrad.tensor(x), hookgrad.tensor(w), None, *args)
    assert_close(ours, torch.convolution(torch.tensor(x), torch.tensor(w), None, *args))
    a, b, c = rng.standard_normal((5, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)
    results = []
    for lib in (hookgrad, torch):
        inputs = [lib.tensor(v, requires_grad=True) for v in (a, b, c)]
        y = lib.conv_tbc(*inputs, 1)
        y.backward(lib.ones_like(y) * lib.arange(4.0, dtype=lib.float64))
        results.append((y, y.grad_fn.name(), [v.grad for v in inputs]))
    assert results[0][1] == results[1][1] == "ConvTbcBackward0"
    assert_close([results[0][0], *results[0][2]], [results[1][0], *results[1][2]], 1e-10, 1e-12)
    inputs = [hookgrad.tensor(v, requires_grad=True) for v in (a, b, c)]
    assert gradcheck(lambda *t: hookgrad.conv_tbc(*t, 2), inputs)
    assert gradgradcheck(lambda *t: hookgrad.conv_tbc(*t, 2), inputs)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.nn.functional.conv3d(t.zeros(3, 4, 4), t.zeros(3, 2, 3, 3, 3)),
        lambda t: t.nn.functional.conv_transpose1d(t.zeros(2, 3, 4, 4), t.zeros(3, 2, 3)),
        lambda t: t.nn.functional.conv_transpose1d(
            t.zeros(1, 3, 4), t.zeros(3, 2, 3), stride=2, output_padding=2
        ),
        lambda t: t.nn.functional.conv_transpose3d(
            t.zeros(1, 3, 4, 4, 4), t.zeros(3, 2, 3, 3, 3), stride=2, output_padding=(0, 2, 0)
        ),
        lambda t: t.nn.functional.conv_transpose2d(
            t.zeros(1, 3, 4, 4), t.zeros(3, 3, 3, 3), padding=3
        ),
        lambda t: t.nn.functional.conv_transpose2d(
            t.zeros(1, 3, 4, 4), t.zeros(3, 3, 3, 3), dilation=0
        ),
        lambda t: t.nn.functional.conv2d(t.zeros(1, 3, 4, 4), t.zeros(2, 3, 3, 3), dilation=0),
        lambda t: t.nn.functional.conv2d(
            t.zeros(1, 3, 4, 4), t.zeros(2, 3, 3, 3), padding=(1, 1, 1)
        ),
        lambda t: t.nn.functional.conv2d(t.zeros(1, 3, 4, 4), t.zeros(2, 3, 3), stride=2),
        lambda t: t.convolution(
            t.zeros(1, 3, 4, 4), t.zeros(3, 2, 3, 3), None, [2, 2], [0, 0], [1, 1], True, [0, 2], 1
        ),
        lambda t: t.conv_tbc(t.zeros(5, 2, 3), t.zeros(3, 2, 4), t.zeros(4), 1),
        lambda t: t.conv_tbc(t.zeros(5, 2), t.zeros(3, 2, 4), t.zeros(4), 1),
    ],
)
def test_nd_errors_match_torch(torch, call):
    messages = []
    for lib in (hookgrad, torch):
        with pytest.raises(RuntimeError) as info:
            call(lib)
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]


def test_nd_gradcheck():
    x, w, b = _double((1, 2, 3, 3, 2), (2, 2, 2, 1, 2), (2,))
    fn = lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(1, 2, 1), padding=(0, 1, 0))  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_complex_and_integer_convolutions(torch):
    """Complex inputs get the conjugate Wirtinger gradients (first and second order);
    integer inputs convolve exactly."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 4)) + 1j * rng.standard_normal((2, 3, 4, 4))
    w = rng.standard_normal((3, 2, 3, 3)) + 1j * rng.standard_normal((3, 2, 3, 3))
    results = []
    for lib in (hookgrad, torch):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv_transpose2d(xt, wt, stride=2, padding=1)
        gx, gw = lib.autograd.grad((y.abs() ** 2).sum(), (xt, wt), create_graph=True)
        (gx.abs() ** 2).sum().backward()
        results.append((y, gx, gw, xt.grad, wt.grad))
    assert_close(results[0], results[1], rtol=1e-9, atol=1e-9)
    xi, wi = rng.integers(-5, 5, (2, 3, 5, 5)), rng.integers(-3, 3, (4, 3, 3, 3))
    ours = F.conv2d(hookgrad.tensor(xi), hookgrad.tensor(wi), stride=2, padding=1)
    expected = torch.nn.functional.conv2d(torch.tensor(xi), torch.tensor(wi), stride=2, padding=1)
    assert_close(ours, expected, 0, 0)
