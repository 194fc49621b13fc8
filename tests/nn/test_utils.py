"""nn.utils: gradient clipping and parameter/vector conversion against torch."""

import numpy as np
import pytest

import hookgrad
from hookgrad.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    parameters_to_vector,
    vector_to_parameters,
)

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
