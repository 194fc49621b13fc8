"""``utils.attribution``: saliency, guided backprop and Grad-CAM equal a direct computation
(by hand in NumPy on an MLP, with torch on a tiny CNN); the model keeps its modes, its
``.grad`` and no hooks, even when it raises; resizing samples as ``F.interpolate``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad import nn
from hookgrad.utils import grad_cam, guided_backprop, saliency
from hookgrad.utils.attribution import resize

TARGETS = [2, [0, 2, 1, 2], None]


def mlp(inplace: bool = False) -> nn.Module:
    hookgrad.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 6), nn.ReLU(inplace), nn.Linear(6, 3)).double()


def cnn(lib: Any, inplace: bool = False) -> Any:
    """conv-relu-conv-relu-flatten-linear on (N, 2, 6, 6) images, with fixed weights."""
    model = lib.nn.Sequential(
        lib.nn.Conv2d(2, 3, 3),
        lib.nn.ReLU(inplace),
        lib.nn.Conv2d(3, 4, 2, padding=1),
        lib.nn.ReLU(inplace),
        lib.nn.Flatten(),
        lib.nn.Linear(4 * 5 * 5, 3),
    ).double()
    rng = np.random.default_rng(1)
    state = {
        name: lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.5)
        for name, p in model.state_dict().items()
    }
    model.load_state_dict(state)
    return model


def images() -> np.ndarray:
    return np.random.default_rng(2).standard_normal((4, 2, 6, 6))


def mlp_backward(model: nn.Module, x: np.ndarray, target: Any, guided: bool) -> np.ndarray:
    """d score / d x by hand; ``guided`` clamps the gradient below the ReLU at zero."""
    w1, b1 = model[0].weight.detach().numpy(), model[0].bias.detach().numpy()
    w2, b2 = model[2].weight.detach().numpy(), model[2].bias.detach().numpy()
    hidden = x @ w1.T + b1
    out = np.maximum(hidden, 0) @ w2.T + b2
    labels = out.argmax(1) if target is None else np.broadcast_to(target, (len(x),))
    d_out = np.zeros_like(out)
    d_out[np.arange(len(x)), labels] = 1.0
    d_hidden = (d_out @ w2) * (hidden > 0)
    if guided:
        d_hidden = np.maximum(d_hidden, 0)
    return d_hidden @ w1


@pytest.mark.parametrize("target", TARGETS)
def test_saliency_and_guided_backprop_of_an_mlp_equal_a_hand_computation(target: Any) -> None:
    model = mlp()
    x = np.random.default_rng(3).standard_normal((4, 5))
    plain = mlp_backward(model, x, target, guided=False)
    guided = mlp_backward(model, x, target, guided=True)
    assert not np.allclose(plain, guided)  # the clamping matters here
    np.testing.assert_allclose(saliency(model, hookgrad.tensor(x), target), np.abs(plain))
    np.testing.assert_allclose(guided_backprop(model, hookgrad.tensor(x), target), guided)
    np.testing.assert_allclose(guided_backprop(mlp(inplace=True), x, target), guided)


def torch_input_gradient(torch: Any, model: Any, x: np.ndarray, target: Any) -> np.ndarray:
    inputs = torch.tensor(x, requires_grad=True)
    out = model(inputs)
    labels = out.argmax(1) if target is None else torch.tensor(target).expand(len(x))
    out[torch.arange(len(x)), labels].sum().backward()
    return inputs.grad.numpy()


@pytest.mark.parametrize("target", TARGETS)
def test_cnn_saliency_and_guided_backprop_equal_torch(torch: Any, target: Any) -> None:
    x = images()
    plain = torch_input_gradient(torch, cnn(torch), x, target)
    np.testing.assert_allclose(saliency(cnn(hookgrad), x, target), np.abs(plain).max(axis=1))
    reference = cnn(torch)
    for module in reference.modules():
        if isinstance(module, torch.nn.ReLU):
            module.register_full_backward_hook(lambda m, gi, go: (gi[0].clamp(min=0),))
    guided = torch_input_gradient(torch, reference, x, target)
    assert not np.allclose(plain, guided)
    np.testing.assert_allclose(guided_backprop(cnn(hookgrad), x, target), guided)
    np.testing.assert_allclose(guided_backprop(cnn(hookgrad, inplace=True), x, target), guided)


def torch_grad_cam(torch: Any, x: np.ndarray, target: Any, mode: str) -> np.ndarray:
    model = cnn(torch)
    inputs = torch.tensor(x)
    activation = model[0](inputs)
    out = model[1:](activation)
    labels = out.argmax(1) if target is None else torch.tensor(target).expand(len(x))
    (gradient,) = torch.autograd.grad(out[torch.arange(len(x)), labels].sum(), activation)
    weights = gradient.mean(dim=(2, 3), keepdim=True)
    cam = torch.relu((weights * activation).sum(1, keepdim=True))
    cam = torch.nn.functional.interpolate(cam, size=x.shape[-2:], mode=mode)[:, 0]
    low = cam.amin(dim=(1, 2), keepdim=True)
    high = cam.amax(dim=(1, 2), keepdim=True)
    return ((cam - low) / (high - low)).detach().numpy()


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("target", TARGETS)
def test_grad_cam_equals_a_direct_torch_computation(torch: Any, target: Any, mode: str) -> None:
    expected = torch_grad_cam(torch, images(), target, mode)
    for inplace in (False, True):  # the ReLU after the layer must not change what it keeps
        model = cnn(hookgrad, inplace)
        cam = grad_cam(model, model[0], images(), target, interpolation=mode)
        assert cam.shape == (4, 6, 6)
        np.testing.assert_allclose(cam, expected, atol=1e-12)
        assert cam.min() == 0.0 and cam.max() == 1.0


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(7, 13), (3, 2), (5, 5)])
def test_resize_samples_as_torch_interpolate(torch: Any, mode: str, size: tuple[int, int]) -> None:
    maps = np.random.default_rng(4).standard_normal((2, 5, 4))
    expected = torch.nn.functional.interpolate(torch.tensor(maps)[None], size=size, mode=mode)
    np.testing.assert_allclose(resize(maps, size, mode), expected[0].numpy(), atol=1e-12)


def test_modes_grads_and_hooks_are_left_as_they_were() -> None:
    model = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Dropout(0.5), nn.Linear(6, 3)).double()
    model[3].eval()
    x = np.random.default_rng(5).standard_normal((4, 5))
    first = guided_backprop(model, x, 1)
    np.testing.assert_array_equal(guided_backprop(model, x, 1), first)  # dropout was off
    assert [module.training for module in model.modules()] == [True, True, True, True, False]
    assert all(param.grad is None for param in model.parameters())
    assert not model[1]._backward_hooks


def test_hooks_are_removed_and_modes_restored_when_the_model_raises() -> None:
    class Broken(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3).double()
            self.relu = nn.ReLU()

        def forward(self, x: Any) -> Any:
            self.relu(self.conv(x))
            raise ArithmeticError("broken model")

    model = Broken()
    for attribute in (saliency, guided_backprop):
        with pytest.raises(ArithmeticError):
            attribute(model, images(), 0)
    with pytest.raises(ArithmeticError):
        grad_cam(model, model.conv, images(), 0)
    assert model.training and model.conv.training
    for module in model.modules():
        assert not module._forward_hooks and not module._backward_hooks


def test_bad_targets_layers_and_options_are_refused() -> None:
    model = cnn(hookgrad)
    with pytest.raises(IndexError, match="target out of range"):
        saliency(model, images(), 3)
    with pytest.raises(ValueError, match="interpolation"):
        grad_cam(model, model[0], images(), 0, interpolation="bicubic")
    with pytest.raises(ValueError, match=r"\(N, K, h, w\)"):
        grad_cam(model, model[4], images(), 0)
    with pytest.raises(RuntimeError, match="called once"):
        grad_cam(model, nn.Conv2d(2, 3, 3), images(), 0)
    with pytest.raises(ValueError, match="scores of shape"):
        saliency(nn.Flatten(0), images(), 0)
