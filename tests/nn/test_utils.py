"""nn.utils against torch: gradient clipping (and its parts), parameter/vector
conversion, ``stateless.functional_call``, layer fusion and ``skip_init``."""

import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    parameters_to_vector,
    vector_to_parameters,
)
from tests.oracle import assert_close, outcome

SHAPES = [(3, 4), (5,), ()]


def _params_with_grads(lib, dtype, scale=1.0):
    rng = np.random.default_rng(3)
    float_type = getattr(lib, dtype)
    params = []
    for shape in SHAPES:
        p = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape), dtype=float_type))
        p.grad = lib.tensor(rng.standard_normal(shape) * scale, dtype=float_type)
        params.append(p)
    params.append(lib.nn.Parameter(lib.ones(2, dtype=float_type)))  # no grad
    return params


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(torch, dtype, norm_type, max_norm):
    ours = _params_with_grads(hookgrad, dtype)
    theirs = _params_with_grads(torch, dtype)
    versions = [p.grad._version for p in ours[:3]]
    total = clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    tol = 1e-6 if dtype == "float32" else 1e-13
    assert total.dtype == getattr(hookgrad, dtype)
    assert not total.requires_grad
    np.testing.assert_allclose(total.item(), expected.item(), rtol=tol)
    for p, q in zip(ours[:3], theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=tol, atol=tol)
    assert [p.grad._version for p in ours[:3]] == [v + 1 for v in versions]


def test_clip_grad_norm_of_one_tensor_and_of_none(torch):
    for lib in (hookgrad, torch):
        p = lib.nn.Parameter(lib.ones(4))
        p.grad = lib.full((4,), 3.0)
        assert lib.nn.utils.clip_grad_norm_(p, 1.0).item() == pytest.approx(6.0)
        np.testing.assert_allclose(p.grad.numpy(), 0.5, rtol=1e-5)
        empty = lib.nn.utils.clip_grad_norm_([lib.nn.Parameter(lib.ones(1))], 1.0)
        assert empty.item() == 0.0


def test_clip_grad_norm_nonfinite(torch):
    p = hookgrad.nn.Parameter(hookgrad.ones(2))
    p.grad = hookgrad.tensor([float("inf"), 1.0])
    q = torch.nn.Parameter(torch.ones(2))
    q.grad = torch.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError) as expected:
        torch.nn.utils.clip_grad_norm_([q], 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as info:
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert str(info.value) == str(expected.value)
    assert clip_grad_norm_([p], 1.0).item() == float("inf")
    torch.nn.utils.clip_grad_norm_([q], 1.0)
    np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_value_matches_torch(torch, dtype):
    ours = _params_with_grads(hookgrad, dtype)
    theirs = _params_with_grads(torch, dtype)
    assert clip_grad_value_(ours, 0.4) is None
    torch.nn.utils.clip_grad_value_(theirs, 0.4)
    for p, q in zip(ours[:3], theirs):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_parameters_to_vector_and_back(torch):
    ours = _params_with_grads(hookgrad, "float64")
    theirs = _params_with_grads(torch, "float64")
    vec = parameters_to_vector(ours)
    np.testing.assert_array_equal(
        vec.detach().numpy(), torch.nn.utils.parameters_to_vector(theirs).detach().numpy()
    )
    for p in ours:
        p.grad = None
    (vec * hookgrad.arange(vec.numel(), dtype=hookgrad.float64)).sum().backward()
    np.testing.assert_array_equal(ours[1].grad.numpy(), np.arange(12, 17))
    new = hookgrad.arange(vec.numel(), dtype=hookgrad.float64)
    vector_to_parameters(new, ours)
    np.testing.assert_array_equal(ours[0].detach().numpy(), np.arange(12).reshape(3, 4))
    assert ours[2].item() == 17.0
    assert ours[0].requires_grad
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0], ours)


# ---------------------------------------------------------------- clipping in parts


def test_total_norm_and_clipping_with_a_given_norm_match_torch(torch):
    for norm_type in (2.0, 1.5, float("inf")):
        results = []
        for lib in (hookgrad, torch):
            params = _params_with_grads(lib, "float32")
            grads = [p.grad for p in params if p.grad is not None]
            total = lib.nn.utils.get_total_norm(grads, norm_type)
            lib.nn.utils.clip_grads_with_norm_(params, 0.7, total)
            results.append([total.numpy()] + [g.numpy() for g in grads])
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)
    assert hookgrad.nn.utils.get_total_norm([]).item() == torch.nn.utils.get_total_norm([]).item()


def test_deprecated_and_empty_generator_warnings_match_torch(torch):
    messages = []
    for lib in (hookgrad, torch):
        params = _params_with_grads(lib, "float64")
        with pytest.warns(FutureWarning) as deprecated:
            lib.nn.utils.clip_grad_norm(params, 1.0)
        with pytest.warns(UserWarning) as empty:
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        messages.append((str(deprecated[0].message), str(empty[0].message)))
    assert messages[0] == messages[1]


# ---------------------------------------------------------------- functional_call


def _tied(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Tanh(), lib.nn.Linear(3, 3))
    model[2].weight = model[0].weight
    model.register_buffer("scale", lib.ones(1))
    return model


CALLS = [
    ("weights", lambda lib, m: {"0.weight": lib.full((3, 3), 0.1, requires_grad=True)}, {}),
    (
        "untied",
        lambda lib, m: {"0.weight": lib.full((3, 3), 0.1, requires_grad=True)},
        {"tie_weights": False},
    ),
    (
        "all_strict",
        lambda lib, m: {
            n: (t.detach() * 2).requires_grad_(t.requires_grad)
            for n, t in [*m.named_parameters(remove_duplicate=False), *m.named_buffers()]
        },
        {"strict": True, "tie_weights": False},
    ),
]


@pytest.mark.parametrize("make, options", [c[1:] for c in CALLS], ids=[c[0] for c in CALLS])
def test_functional_call_matches_torch(torch, make, options):
    def run(lib):
        model = _tied(lib)
        given = make(lib, model)
        with pytest.warns(FutureWarning):
            out = lib.nn.utils.stateless.functional_call(model, given, lib.ones(2, 3), **options)
        out.sum().backward()
        grads = [t.grad for t in given.values() if t.requires_grad]
        own = [p.grad for p in model.parameters()]
        return out, grads, own, model[2].weight is model[0].weight, model(lib.ones(1, 3))

    ours, theirs = run(hookgrad), run(torch)
    assert ours[3] == theirs[3]
    assert_close([ours[0], ours[1], ours[4]], [theirs[0], theirs[1], theirs[4]])
    assert [g is None for g in ours[2]] == [g is None for g in theirs[2]]


@pytest.mark.parametrize(
    "given, options",
    [
        ({"extra": 1}, {"strict": True}),
        ({"0.weight": "x"}, {}),
        ({"0.weight": "tied", "2.weight": "other"}, {}),
    ],
)
def test_functional_call_errors_match_torch(torch, given, options):
    def call(lib):
        model = _tied(lib)
        tensors = {
            k: lib.ones(3, 3) * (2 if v == "other" else 1)
            if v in ("tied", "other")
            else (lib.ones(1) if v == 1 else v)
            for k, v in given.items()
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.nn.utils.stateless.functional_call(model, tensors, lib.ones(1, 3), **options)

    ours, theirs = outcome(call, hookgrad), outcome(call, torch)
    assert ours[0] == "error"
    assert ours == theirs


# ---------------------------------------------------------------- fusion and skip_init


def test_fused_layers_match_torch(torch):
    def run(lib):
        lib.manual_seed(0)
        conv, bn = lib.nn.Conv2d(2, 3, 2), lib.nn.BatchNorm2d(3)
        linear, bn1 = lib.nn.Linear(4, 3, bias=False), lib.nn.BatchNorm1d(3)
        tconv, bn2 = lib.nn.ConvTranspose2d(2, 3, 2), lib.nn.BatchNorm2d(3)
        for norm in (bn, bn1, bn2):
            norm.running_mean.uniform_(-1, 1)
            norm.running_var.uniform_(0.5, 2)
            norm.eval()
        x, v = lib.ones(1, 2, 3, 3) * 0.3, lib.ones(2, 4) * 0.2
        fused = lib.nn.utils.fuse_conv_bn_eval(conv.eval(), bn)
        fused_linear = lib.nn.utils.fuse_linear_bn_eval(linear.eval(), bn1)
        fused_t = lib.nn.utils.fuse_conv_bn_eval(tconv.eval(), bn2, transpose=True)
        return fused(x), bn(conv(x)), fused_linear(v), bn1(linear(v)), fused_t(x), bn2(tconv(x))

    ours, theirs = run(hookgrad), run(torch)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    assert_close(ours[0::2], ours[1::2], rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        hookgrad.nn.utils.fuse_linear_bn_eval(hookgrad.nn.Linear(2, 2), hookgrad.nn.BatchNorm1d(2))


def test_skip_init_draws_nothing(torch):
    for lib in (hookgrad, torch):
        lib.manual_seed(4)
        layer = lib.nn.utils.skip_init(lib.nn.Linear, 3, 2)
        assert layer.weight.shape == (2, 3)
        assert lib.rand(1).item() == pytest.approx(torch.manual_seed(4) and torch.rand(1).item())
    errors = [outcome(lambda lib: lib.nn.utils.skip_init(int), lib) for lib in (hookgrad, torch)]
    assert errors[0][2].replace("hookgrad", "torch") == errors[1][2]
