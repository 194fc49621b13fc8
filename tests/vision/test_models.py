"""``hookgrad.vision.models``: ResNet with torchvision's module names and sizes, whose
seeded weights are the ones the same construction draws on torch."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.vision import models
from hookgrad.vision.models import resnet

SOURCE = Path(resnet.__file__).read_text()


def torch_resnet_module(torch: Any) -> ModuleType:
    """hookgrad's ``resnet.py`` run on torch: the same construction, torch's draws."""
    module = ModuleType("torch_resnet")
    exec(compile(SOURCE.replace("hookgrad", "torch"), "torch_resnet", "exec"), module.__dict__)
    return module


def test_resnet18_has_torchvisions_layout() -> None:
    model = models.resnet18(weights=None)
    assert sum(p.numel() for p in model.parameters()) == 11_689_512  # torchvision's count
    keys = list(model.state_dict())
    assert keys[:6] == [
        "conv1.weight",
        "bn1.weight",
        "bn1.bias",
        "bn1.running_mean",
        "bn1.running_var",
        "bn1.num_batches_tracked",
    ]
    assert "layer2.0.downsample.0.weight" in keys and "layer1.0.downsample.0.weight" not in keys
    assert keys[-2:] == ["fc.weight", "fc.bias"]
    assert (
        float(model.bn1.weight.sum()) == 64.0 and float(model.layer1[0].bn2.bias.abs().sum()) == 0
    )


@pytest.mark.parametrize(
    "block, layers", [("BasicBlock", [1, 1, 1, 1]), ("Bottleneck", [1, 1, 1, 1])]
)
def test_seeded_weights_and_outputs_are_torchs(torch: Any, block: str, layers: list[int]) -> None:
    torch_models = torch_resnet_module(torch)
    hookgrad.manual_seed(0)
    model = models.ResNet(getattr(models, block), layers, num_classes=7, zero_init_residual=True)
    torch.manual_seed(0)
    expected = torch_models.ResNet(
        getattr(torch_models, block), layers, num_classes=7, zero_init_residual=True
    )
    state, expected_state = model.state_dict(), expected.state_dict()
    assert list(state) == list(expected_state)
    for key, value in expected_state.items():
        assert np.array_equal(state[key].numpy(), value.numpy()), key
    x = np.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype(np.float32)
    got = model(hookgrad.from_numpy(x))
    want = expected(torch.from_numpy(x))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_no_pretrained_weights() -> None:
    with pytest.raises(RuntimeError, match="no pretrained weights"):
        models.resnet18(weights="IMAGENET1K_V1")
    with pytest.raises(ValueError, match="BasicBlock only supports groups=1"):
        models.BasicBlock(64, 64, groups=2)
