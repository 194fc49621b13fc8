"""Linear, Bilinear, Identity and F.linear / F.bilinear against torch (identical weights,
float32 and float64), gradcheck in float64, node names, default init and repr."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hookgrad
from hookgrad import nn
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from tests.oracle import assert_close

DTYPES = ["float32", "float64"]


def _tol(dtype: str) -> dict:
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def _copy_parameters(module, torch_module) -> None:
    """Give ``module`` the parameter values of ``torch_module``."""
    torch_params = dict(torch_module.named_parameters())
    with hookgrad.no_grad():
        for name, param in module.named_parameters():
            param.copy_(hookgrad.tensor(torch_params[name].detach().numpy()))


def _run_both(module, torch_module, torch, arrays, dtype):
    """Forward and backward (with one random output gradient) in both libraries; returns
    (outputs, input grads, parameter grads) per library."""
    results = []
    for lib, layer in ((hookgrad, module), (torch, torch_module)):
        inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = layer(*inputs)
        grad = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype)
        out.backward(lib.tensor(grad))
        params = [p.grad for _, p in layer.named_parameters()]
        results.append((out, [x.grad for x in inputs], params))
    return results


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3,), (5, 3), (2, 4, 3), (2, 1, 2, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(torch, dtype, shape, bias):
    module = nn.Linear(3, 4, bias=bias, dtype=getattr(hookgrad, dtype))
    torch_module = torch.nn.Linear(3, 4, bias=bias, dtype=getattr(torch, dtype))
    _copy_parameters(module, torch_module)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    ours, theirs = _run_both(module, torch_module, torch, [x], dtype)
    for a, b in zip(ours, theirs):
        assert_close(a, b, **_tol(dtype))


@pytest.mark.parametrize("shape", [(3,), (5, 3), (2, 4, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_node_names_match_torch(torch, shape, bias):
    def chain(node):
        names = []
        while node is not None:
            names.append(node.name())
            nexts = [fn for fn, _ in node.next_functions if fn is not None]
            node = nexts[0] if nexts and "AccumulateGrad" not in nexts[0].name() else None
        return names

    results = []
    for lib in (hookgrad, torch):
        x = lib.randn(*shape, requires_grad=True)
        w = lib.randn(4, 3, requires_grad=True)
        b = lib.randn(4, requires_grad=True) if bias else None
        y = lib.nn.functional.linear(x, w, b) if lib is torch else F.linear(x, w, b)
        results.append(
            (chain(y.grad_fn), [fn is None or fn.name() for fn, _ in y.grad_fn.next_functions])
        )
    ours, theirs = results
    if bias:  # view -> addmm -> view, node by node
        assert ours == theirs
    else:  # hookgrad's matmul is one node named as torch's outermost one
        assert ours[0][0] == theirs[0][0]
    assert hookgrad.nn.functional.linear(hookgrad.randn(2, 3), hookgrad.randn(4, 3)).grad_fn is None


def test_linear_2d_is_one_addmm_node():
    x = hookgrad.randn(5, 3, requires_grad=True)
    layer = nn.Linear(3, 4)
    node = layer(x).grad_fn
    assert node.name() == "AddmmBackward0"
    names = [fn.name() for fn, _ in node.next_functions]
    assert names[2] == "TBackward0"


def test_linear_shape_error_matches_torch(torch):
    with pytest.raises(RuntimeError) as ours:
        F.linear(hookgrad.randn(2, 3), hookgrad.randn(4, 5), hookgrad.randn(4))
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.linear(torch.randn(2, 3), torch.randn(4, 5), torch.randn(4))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("bias", [True, False])
def test_linear_gradcheck(bias):
    x = hookgrad.randn(3, 2, 3, dtype=hookgrad.float64, requires_grad=True)
    w = hookgrad.randn(4, 3, dtype=hookgrad.float64, requires_grad=True)
    b = hookgrad.randn(4, dtype=hookgrad.float64, requires_grad=True)
    inputs = (x, w, b) if bias else (x, w)
    assert gradcheck(F.linear, inputs)
    assert gradgradcheck(F.linear, inputs)


def test_linear_default_init_follows_torch_scheme():
    hookgrad.manual_seed(0)
    layer = nn.Linear(200, 300)
    bound = 1 / math.sqrt(200)
    # kaiming_uniform_(a=sqrt(5)) on fan_in 200 gives the same bound as the bias
    for param in (layer.weight, layer.bias):
        values = param.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound
        assert values.max() > 0.95 * bound and values.min() < -0.95 * bound
        assert param.is_leaf and param.requires_grad and param.grad_fn is None
    assert layer.weight.shape == (300, 200) and layer.weight.dtype == hookgrad.float32
    assert nn.Linear(2, 3, bias=False).bias is None
    assert [name for name, _ in nn.Linear(2, 3).named_parameters()] == ["weight", "bias"]


def test_linear_zero_in_features_gives_zero_bias_bound():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        layer = nn.Linear(0, 3)
    assert np.all(layer.bias.detach().numpy() == 0)
    assert np.all(layer(hookgrad.zeros(2, 0)).detach().numpy() == 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5,), (4, 2)])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_torch(torch, dtype, shape, bias):
    module = nn.Bilinear(3, 2, 4, bias=bias, dtype=getattr(hookgrad, dtype))
    torch_module = torch.nn.Bilinear(3, 2, 4, bias=bias, dtype=getattr(torch, dtype))
    _copy_parameters(module, torch_module)
    rng = np.random.default_rng(0)
    x1 = rng.standard_normal((*shape, 3)).astype(dtype)
    x2 = rng.standard_normal((*shape, 2)).astype(dtype)
    ours, theirs = _run_both(module, torch_module, torch, [x1, x2], dtype)
    for a, b in zip(ours, theirs):
        assert_close(a, b, **_tol(dtype))
    y = module(hookgrad.tensor(x1, requires_grad=True), hookgrad.tensor(x2))
    names = [y.grad_fn.name()]
    ty = torch_module(torch.tensor(x1, requires_grad=True), torch.tensor(x2))
    assert names == [ty.grad_fn.name()]


def test_bilinear_gradcheck():
    def make(*shape):
        return hookgrad.randn(*shape, dtype=hookgrad.float64, requires_grad=True)

    inputs = (make(3, 2), make(3, 4), make(5, 2, 4), make(5))
    assert gradcheck(F.bilinear, inputs)
    assert gradgradcheck(F.bilinear, inputs)


def test_bilinear_errors_match_torch(torch):
    cases = [
        ((2, 3), (3, 5), (4, 3, 5)),
        ((2, 3), (2, 6), (4, 3, 5)),
        ((2, 3), (2, 2, 5), (4, 3, 5)),
    ]
    for shape1, shape2, weight in cases:
        with pytest.raises(RuntimeError) as ours:
            F.bilinear(hookgrad.randn(*shape1), hookgrad.randn(*shape2), hookgrad.randn(*weight))
        with pytest.raises(RuntimeError) as theirs:
            torch.nn.functional.bilinear(
                torch.randn(*shape1), torch.randn(*shape2), torch.randn(*weight)
            )
        assert str(ours.value) == str(theirs.value)


def test_bilinear_default_init_bound():
    layer = nn.Bilinear(16, 3, 50)
    bound = 1 / math.sqrt(16)
    for param in (layer.weight, layer.bias):
        values = param.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound and values.std() > bound / 3


def test_identity_returns_its_input():
    x = hookgrad.randn(2, 3, requires_grad=True)
    assert nn.Identity(54, unused="x")(x) is x
    assert list(nn.Identity().parameters()) == []


def _assert_repr_matches(module, torch_module):
    assert module.extra_repr() == torch_module.extra_repr()
    assert repr(module) == repr(torch_module)


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Linear(3, 4),
        lambda nn: nn.Linear(3, 4, bias=False),
        lambda nn: nn.Bilinear(3, 5, 4),
        lambda nn: nn.Bilinear(1, 2, 3, bias=False),
    ],
)
def test_repr_matches_torch(torch, make):
    _assert_repr_matches(make(nn), make(torch.nn))


def test_factory_device_is_checked_as_on_a_cpu_only_torch():
    assert hookgrad.nn.Linear(2, 1, device="cpu").weight.device == hookgrad.device("cpu")
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        hookgrad.nn.Linear(2, 1, device="cuda")
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        hookgrad.nn.Bilinear(2, 2, 1, device="cuda")
