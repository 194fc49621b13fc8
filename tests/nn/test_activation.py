"""Activation layers and functions against torch (float32 and float64, values, input
gradients, node names, in-place forms), gradcheck/gradgradcheck in float64, repr, errors,
and the random ones (RReLU, gumbel_softmax) drawing torch's numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad import nn
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from tests.oracle import assert_close, outcome

DTYPES = ["float32", "float64"]

# (name, constructor given the `nn` namespace of either library)
LAYERS = [
    ("ReLU", lambda nn: nn.ReLU()),
    ("LeakyReLU", lambda nn: nn.LeakyReLU()),
    ("LeakyReLU-0.2", lambda nn: nn.LeakyReLU(0.2)),
    ("ELU", lambda nn: nn.ELU()),
    ("ELU-0.5", lambda nn: nn.ELU(alpha=0.5)),
    ("GELU", lambda nn: nn.GELU()),
    ("GELU-tanh", lambda nn: nn.GELU(approximate="tanh")),
    ("SiLU", lambda nn: nn.SiLU()),
    ("Sigmoid", lambda nn: nn.Sigmoid()),
    ("Tanh", lambda nn: nn.Tanh()),
    ("Softplus", lambda nn: nn.Softplus()),
    ("Softplus-2-1", lambda nn: nn.Softplus(beta=2.0, threshold=1.0)),
    ("Softmax", lambda nn: nn.Softmax(dim=1)),
    ("Softmax-neg", lambda nn: nn.Softmax(dim=-1)),
    ("Softmin", lambda nn: nn.Softmin(dim=1)),
    ("LogSoftmax", lambda nn: nn.LogSoftmax(dim=1)),
    ("Softsign", lambda nn: nn.Softsign()),
    ("Tanhshrink", lambda nn: nn.Tanhshrink()),
    ("Hardtanh", lambda nn: nn.Hardtanh(-2.0, 1.5)),
    ("ReLU6", lambda nn: nn.ReLU6()),
    ("Hardsigmoid", lambda nn: nn.Hardsigmoid()),
    ("Hardswish", lambda nn: nn.Hardswish()),
    ("Mish", lambda nn: nn.Mish()),
    ("SELU", lambda nn: nn.SELU()),
    ("CELU", lambda nn: nn.CELU(0.5)),
    ("LogSigmoid", lambda nn: nn.LogSigmoid()),
    ("Softshrink", lambda nn: nn.Softshrink(0.7)),
    ("Hardshrink", lambda nn: nn.Hardshrink()),
    ("Threshold", lambda nn: nn.Threshold(0.5, -1.0)),
    ("RReLU-eval", lambda nn: nn.RReLU(0.2, 0.4).eval()),
]

INPLACE_LAYERS = [
    ("ReLU", lambda nn: nn.ReLU(inplace=True)),
    ("LeakyReLU", lambda nn: nn.LeakyReLU(0.1, inplace=True)),
    ("ELU", lambda nn: nn.ELU(0.7, inplace=True)),
    ("SiLU", lambda nn: nn.SiLU(inplace=True)),
    ("Hardtanh", lambda nn: nn.Hardtanh(inplace=True)),
    ("ReLU6", lambda nn: nn.ReLU6(True)),
    ("Hardsigmoid", lambda nn: nn.Hardsigmoid(True)),
    ("Hardswish", lambda nn: nn.Hardswish(True)),
    ("Mish", lambda nn: nn.Mish(True)),
    ("SELU", lambda nn: nn.SELU(True)),
    ("CELU", lambda nn: nn.CELU(2.0, True)),
    ("Threshold", lambda nn: nn.Threshold(0.5, -1.0, True)),
    ("RReLU-eval", lambda nn: nn.RReLU(inplace=True).eval()),
]


def _input(dtype: str) -> np.ndarray:
    """Values on both sides of 0 and of softplus' threshold, plus exact zeros."""
    x = np.random.default_rng(0).uniform(-3, 3, (4, 5)).astype(dtype)
    x[0, 0] = 0.0
    x[1, 1] = 25.0
    return x


def _tol(dtype: str) -> dict:
    return {"rtol": 2e-5, "atol": 2e-6} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def _forward_backward(lib, layer, x: np.ndarray, inplace: bool):
    leaf = lib.tensor(x, requires_grad=True)
    inp = leaf * 1 if inplace else leaf
    out = layer(inp)
    grad = np.random.default_rng(1).standard_normal(x.shape).astype(x.dtype)
    out.backward(lib.tensor(grad))
    return out, leaf.grad, out.grad_fn.name(), inp


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", [m for _, m in LAYERS], ids=[n for n, _ in LAYERS])
def test_layer_matches_torch(torch, make, dtype):
    x = _input(dtype)
    out, grad, name, _ = _forward_backward(hookgrad, make(nn), x, False)
    t_out, t_grad, t_name, _ = _forward_backward(torch, make(torch.nn), x, False)
    assert_close(out, t_out, **_tol(dtype))
    assert_close(grad, t_grad, **_tol(dtype))
    assert name == t_name


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", [m for _, m in INPLACE_LAYERS], ids=[n for n, _ in INPLACE_LAYERS])
def test_inplace_layer_matches_torch(torch, make, dtype):
    x = _input(dtype)
    out, grad, name, inp = _forward_backward(hookgrad, make(nn), x, True)
    t_out, t_grad, t_name, _ = _forward_backward(torch, make(torch.nn), x, True)
    assert out is inp and inp._version == 1
    assert_close(out, t_out, **_tol(dtype))
    assert_close(grad, t_grad, **_tol(dtype))
    assert name == t_name


def test_inplace_on_leaf_that_requires_grad_raises():
    leaf = hookgrad.randn(3, requires_grad=True)
    for layer in (nn.ReLU(True), nn.LeakyReLU(inplace=True), nn.ELU(inplace=True)):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            layer(leaf)


def test_inplace_result_saved_is_checked_by_version():
    x = hookgrad.randn(3, requires_grad=True)
    y = F.elu_(x * 1)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


FUNCTIONS = [
    ("relu", lambda F, x: F.relu(x)),
    ("leaky_relu", lambda F, x: F.leaky_relu(x, 0.3)),
    ("elu", lambda F, x: F.elu(x, 1.5)),
    ("gelu", lambda F, x: F.gelu(x)),
    ("gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh")),
    ("silu", lambda F, x: F.silu(x)),
    ("softplus", lambda F, x: F.softplus(x, beta=0.5, threshold=1.5)),
    ("sigmoid", lambda F, x: F.sigmoid(x)),
    ("tanh", lambda F, x: F.tanh(x)),
    ("softmax", lambda F, x: F.softmax(x, dim=0)),
    ("log_softmax", lambda F, x: F.log_softmax(x, dim=-1)),
    ("softmin", lambda F, x: F.softmin(x, dim=-1)),
    ("leaky_relu_", lambda F, x: F.leaky_relu_(x * 1, 0.3)),
    ("elu_", lambda F, x: F.elu_(x * 1)),
    ("silu_", lambda F, x: F.silu(x * 1, inplace=True)),
]


@pytest.mark.parametrize("fn", [f for _, f in FUNCTIONS], ids=[n for n, _ in FUNCTIONS])
def test_gradcheck(fn):
    # NOTE: away from the kinks at 0 (and softplus' threshold 3), where
    # finite differences straddle two pieces.
    rng = np.random.default_rng(0)
    values = rng.uniform(0.2, 2.0, (3, 4)) * rng.choice([-1, 1], (3, 4))
    values[values > 2.8] = 2.8
    x = hookgrad.tensor(values, requires_grad=True)
    assert gradcheck(lambda x: fn(F, x), (x,))
    assert gradgradcheck(lambda x: fn(F, x), (x,))


@pytest.mark.parametrize("fn", [f for _, f in FUNCTIONS], ids=[n for n, _ in FUNCTIONS])
def test_second_derivative_matches_torch(torch, fn):
    values = np.random.default_rng(2).uniform(-2, 2, (3, 4))
    results = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        x = lib.tensor(values, requires_grad=True)
        y = fn(functional, x)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((y, g, gg))
    assert_close(results[0], results[1], rtol=1e-9, atol=1e-11)


def test_saved_attributes_match_torch(torch):
    for fn, names in [
        (lambda F, x: F.leaky_relu(x, 0.2), ("negative_slope", "self")),
        (lambda F, x: F.elu(x, 0.5), ("alpha", "input_scale", "scale", "self")),
        (lambda F, x: F.elu_(x * 1, 0.5), ("alpha", "input_scale", "scale", "result")),
        (lambda F, x: F.gelu(x, approximate="tanh"), ("approximate", "self")),
        (lambda F, x: F.softplus(x, 2.0, 5.0), ("beta", "threshold", "self")),
    ]:
        x = hookgrad.randn(3, requires_grad=True)
        t_x = torch.tensor(x.detach().numpy(), requires_grad=True)
        node, t_node = fn(F, x).grad_fn, fn(torch.nn.functional, t_x).grad_fn
        for name in names:
            ours, theirs = getattr(node, "_saved_" + name), getattr(t_node, "_saved_" + name)
            if hasattr(theirs, "detach"):
                assert_close(ours, theirs)
            else:
                assert ours == theirs


def test_values_at_kinks_follow_torch(torch):
    values = np.array([0.0, -0.0, 1e-30, -1e-30, 100.0, -100.0, 20.0, 20.0001], np.float32)
    for fn in [f for _, f in FUNCTIONS]:
        results = []
        for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
            x = lib.tensor(values, requires_grad=True)
            fn(functional, x).sum().backward()
            results.append(x.grad)
        assert_close(results[0], results[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_implicit_softmax_dim_warns_and_picks_torchs_dim(torch, name, ndim):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)[:ndim]).astype(np.float32)
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name}"):
        ours = getattr(F, name)(hookgrad.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x))
    assert_close(ours, theirs)


@pytest.mark.parametrize(
    "fn",
    [
        F.gelu,
        F.silu,
        F.elu,
        F.leaky_relu,
        F.softplus,
        F.hardsigmoid,
        F.hardswish,
        F.mish,
        F.selu,
        F.celu,
        F.logsigmoid,
        F.softshrink,
        F.hardshrink,
        F.rrelu,
        F.glu,
    ],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("value", [[1, 2], [True, False]])
def test_integer_and_bool_inputs_are_refused_like_torch(torch, fn, value):
    with pytest.raises(NotImplementedError) as ours:
        fn(hookgrad.tensor(value))
    with pytest.raises(NotImplementedError) as theirs:
        getattr(torch.nn.functional, fn.__name__)(torch.tensor(value))
    assert str(ours.value) == str(theirs.value)


def test_gelu_rejects_unknown_approximation():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(hookgrad.randn(2), approximate="erf")


def test_relu_inplace_returns_input_and_bumps_version():
    x = hookgrad.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x and x._version == 1
    assert x.tolist() == [0.0, 2.0]
    assert F.relu_(hookgrad.tensor([-3.0])).tolist() == [0.0]


REPRS = [
    lambda nn: nn.ReLU(),
    lambda nn: nn.ReLU(inplace=True),
    lambda nn: nn.LeakyReLU(),
    lambda nn: nn.LeakyReLU(0.2, True),
    lambda nn: nn.ELU(),
    lambda nn: nn.ELU(0.5, True),
    lambda nn: nn.GELU(),
    lambda nn: nn.GELU("tanh"),
    lambda nn: nn.SiLU(),
    lambda nn: nn.SiLU(True),
    lambda nn: nn.Sigmoid(),
    lambda nn: nn.Tanh(),
    lambda nn: nn.Softplus(),
    lambda nn: nn.Softplus(2, 10),
    lambda nn: nn.Softmax(),
    lambda nn: nn.Softmax(1),
    lambda nn: nn.Softmin(0),
    lambda nn: nn.LogSoftmax(dim=-1),
    lambda nn: nn.Hardtanh(),
    lambda nn: nn.Hardtanh(-2, 3.5, True),
    lambda nn: nn.ReLU6(),
    lambda nn: nn.ReLU6(True),
    lambda nn: nn.Hardsigmoid(True),
    lambda nn: nn.Hardswish(),
    lambda nn: nn.Mish(True),
    lambda nn: nn.SELU(),
    lambda nn: nn.SELU(True),
    lambda nn: nn.CELU(),
    lambda nn: nn.CELU(0.5, True),
    lambda nn: nn.GLU(),
    lambda nn: nn.LogSigmoid(),
    lambda nn: nn.Softshrink(0.2),
    lambda nn: nn.Hardshrink(),
    lambda nn: nn.Threshold(0.1, 20),
    lambda nn: nn.Threshold(0.1, 20, inplace=True),
    lambda nn: nn.RReLU(),
    lambda nn: nn.RReLU(0.1, 0.2, True),
    lambda nn: nn.PReLU(3),
    lambda nn: nn.Softmax2d(),
]


@pytest.mark.parametrize("make", REPRS)
def test_repr_matches_torch(torch, make):
    module, torch_module = make(nn), make(torch.nn)
    if type(torch_module).extra_repr is not torch.nn.Module.extra_repr:
        assert module.extra_repr() == torch_module.extra_repr()
    assert repr(module) == repr(torch_module)


@pytest.mark.parametrize("name", ["leaky_relu_", "elu_"])
def test_inplace_backward_with_negative_slope_is_refused_like_torch(torch, name):
    errors = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        x = lib.randn(3, requires_grad=True)
        y = getattr(functional, name)(x * 1, -0.1)
        with pytest.raises(RuntimeError) as error:
            y.sum().backward()
        errors.append(str(error.value))
    assert errors[0] == errors[1]


ERRORS = [
    ("hardtanh_bounds", lambda t: t.nn.functional.hardtanh(t.zeros(2), 1.0, -1.0)),
    ("Hardtanh_bounds", lambda t: t.nn.Hardtanh(1.0, 1.0)),
    ("glu_scalar", lambda t: t.nn.functional.glu(t.tensor(1.0))),
    ("glu_odd", lambda t: t.nn.functional.glu(t.zeros(2, 3))),
    ("glu_dim", lambda t: t.nn.functional.glu(t.zeros(2, 4), 2)),
    ("prelu_dtype", lambda t: t.nn.functional.prelu(t.zeros(2, 3), t.zeros(3).double())),
    ("prelu_channels", lambda t: t.nn.functional.prelu(t.zeros(2, 3), t.zeros(4))),
    ("prelu_scalar_input", lambda t: t.nn.functional.prelu(t.tensor(1.0), t.zeros(2))),
    ("prelu_weight_2d", lambda t: t.nn.functional.prelu(t.zeros(2, 1), t.zeros(1, 1))),
    ("softshrink_lambd", lambda t: t.nn.functional.softshrink(t.zeros(2), -0.5)),
    ("celu_alpha", lambda t: t.nn.functional.celu(t.zeros(2), 0.0)),
    ("softmax2d_rank", lambda t: t.nn.Softmax2d()(t.zeros(2, 3))),
    ("rrelu__leaf", lambda t: t.rrelu_(t.zeros(2, requires_grad=True), training=True)),
]


@pytest.mark.parametrize("case", [c for _, c in ERRORS], ids=[n for n, _ in ERRORS])
def test_errors_match_torch(torch, case):
    ours, theirs = outcome(case, hookgrad), outcome(case, torch)
    assert ours[0] == "error"
    assert ours == theirs


def test_refused_rrelu_draws_nothing(torch):
    for lib in (hookgrad, torch):
        lib.manual_seed(5)
        with pytest.raises(RuntimeError):
            lib.rrelu_(lib.zeros(3, requires_grad=True), training=True)
    assert hookgrad.rand(2).tolist() == pytest.approx(torch.rand(2).tolist())


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_activations_draw_torchs_numbers(torch, dtype):
    """RReLU in training and gumbel_softmax after the same seed: torch's values and
    gradients."""
    x = _input(dtype)

    def run(lib, fn):
        lib.manual_seed(11)
        leaf = lib.tensor(x, requires_grad=True)
        out = fn(lib, leaf)
        (out * lib.tensor(x)).sum().backward()
        return out, leaf.grad

    for fn in (
        lambda lib, x: lib.nn.RReLU(0.1, 0.6)(x),
        lambda lib, x: lib.nn.functional.rrelu(x * 1, training=True, inplace=True),
        lambda lib, x: lib.nn.functional.gumbel_softmax(x, tau=0.5),
        lambda lib, x: lib.nn.functional.gumbel_softmax(x, hard=True, dim=0),
    ):
        assert_close(run(hookgrad, fn), run(torch, fn), **_tol(dtype))


def test_prelu_weight_gradient_matches_torch(torch):
    x = np.random.default_rng(4).standard_normal((2, 3, 4))
    results = []
    for lib in (hookgrad, torch):
        layer = lib.nn.PReLU(3).double()
        leaf = lib.tensor(x, requires_grad=True)
        (layer(leaf) ** 2).sum().backward()
        results.append((leaf.grad, layer.weight.grad))
    assert_close(results[0], results[1], rtol=1e-12, atol=1e-12)


def test_softmax2d_matches_torch(torch):
    x = np.random.default_rng(5).standard_normal((2, 3, 2, 2))
    for shape in ((2, 3, 2, 2), (3, 2, 2)):
        ours = nn.Softmax2d()(hookgrad.tensor(x.reshape(-1)[: np.prod(shape)].reshape(shape)))
        theirs = torch.nn.Softmax2d()(torch.tensor(x.reshape(-1)[: np.prod(shape)].reshape(shape)))
        assert_close(ours, theirs, rtol=1e-12, atol=1e-12)


def test_torch_level_activations_match_torch(torch):
    x = np.random.default_rng(6).standard_normal((3, 4))
    for fn in (
        lambda t, x: t.selu(x),
        lambda t, x: t.celu(x, 0.5),
        lambda t, x: t.threshold(x, 0.0, 3.0),
        lambda t, x: t.hardshrink(x, 0.2),
        lambda t, x: t.rrelu(x),
        lambda t, x: t.prelu(x, x.new_tensor([0.2])),
        lambda t, x: t.selu_(x.clone()),
        lambda t, x: t.celu_(x.clone()),
        lambda t, x: t.threshold_(x.clone(), 0.5, 0.0),
    ):
        assert_close(fn(hookgrad, hookgrad.tensor(x)), fn(torch, torch.tensor(x)), 1e-12, 1e-12)
