"""``hookgrad.vision.transforms``: the tensors they make are torch's arithmetic on the same
pixels, and the random ones draw from hookgrad's generator as torchvision's draw from
torch's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.vision import transforms
from hookgrad.vision.transforms import functional as TF

RNG = np.random.default_rng(0)
GRAY = RNG.integers(0, 256, (6, 5)).astype(np.uint8)
COLOR = RNG.integers(0, 256, (6, 5, 3)).astype(np.uint8)


def test_to_tensor_scales_uint8_pixels_as_torch_divides(torch: Any) -> None:
    for image in (GRAY, COLOR):
        got = transforms.ToTensor()(image)
        planes = image if image.ndim == 3 else image[:, :, None]
        expected = torch.from_numpy(planes.transpose(2, 0, 1).copy()).float().div(255)
        assert got.dtype == hookgrad.float32
        assert np.array_equal(got.numpy(), expected.numpy())
    floats = np.ones((2, 2), np.float64)
    assert transforms.ToTensor()(floats).dtype == hookgrad.float64  # other dtypes kept
    kept = transforms.PILToTensor()(COLOR)
    assert kept.dtype == hookgrad.uint8 and np.array_equal(kept.numpy(), COLOR.transpose(2, 0, 1))


def test_to_tensor_refuses_what_is_not_an_image() -> None:
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray. Got <class 'list'>"):
        TF.to_tensor([[1, 2]])
    with pytest.raises(ValueError, match="pic should be 2/3 dimensional. Got 1 dimensions."):
        TF.to_tensor(np.zeros(3, np.uint8))


def test_normalize_is_torchs_sub_and_div(torch: Any) -> None:
    image = transforms.ToTensor()(COLOR)
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    got = transforms.Normalize(mean, std)(image)
    reference = torch.from_numpy(image.numpy())
    expected = reference.sub(torch.tensor(mean).view(-1, 1, 1)).div(
        torch.tensor(std).view(-1, 1, 1)
    )
    assert np.array_equal(got.numpy(), expected.numpy())
    assert not np.array_equal(image.numpy(), got.numpy())  # not in place by default
    same = TF.normalize(image, mean, std, inplace=True)
    assert same is image and np.array_equal(image.numpy(), expected.numpy())


@pytest.mark.parametrize(
    "image, error, message",
    [
        (np.zeros((1, 2, 2), np.float32), TypeError, "img should be Tensor Image"),
        (hookgrad.zeros(1, 2, 2, dtype=hookgrad.uint8), TypeError, "should be a float tensor"),
        (hookgrad.zeros(2, 2), ValueError, r"size \(\.\.\., C, H, W\)"),
    ],
)
def test_normalize_refuses_bad_images(image: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        TF.normalize(image, (0.5,), (0.5,))


def test_normalize_refuses_a_zero_std() -> None:
    with pytest.raises(ValueError, match="std evaluates to zero"):
        TF.normalize(hookgrad.zeros(1, 2, 2), (0.5,), (0.0,))


def test_resize_is_antialiased_bilinear_interpolation(torch: Any) -> None:
    image = hookgrad.rand(3, 32, 48)
    got = transforms.Resize(16)(image)
    assert tuple(got.shape) == (3, 16, 24)
    expected = torch.nn.functional.interpolate(
        torch.from_numpy(image.numpy())[None], size=[16, 24], mode="bilinear", antialias=True
    )[0]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-7)
    # An array image is resized as a uint8 tensor: in float, then rounded back. NOTE:
    # hookgrad's antialiasing weights differ from torch's in the last bit, so a value
    # torch puts just below a half may round the other way.
    pixels = TF.resize(COLOR, [3, 4])
    as_tensor = TF.resize(hookgrad.from_numpy(COLOR.transpose(2, 0, 1).copy()), [3, 4])
    assert pixels.dtype == np.uint8
    assert np.array_equal(pixels, as_tensor.numpy().transpose(1, 2, 0))
    reference = torch.from_numpy(COLOR.transpose(2, 0, 1).copy()).float()[None]
    reference = torch.nn.functional.interpolate(reference, [3, 4], mode="bilinear", antialias=True)
    reference = reference[0].round().numpy().transpose(1, 2, 0)
    assert np.abs(pixels - reference).max() <= 1
    assert TF.resize(GRAY, 5).shape == (6, 5)  # already the size
    assert tuple(TF.resize(image, 20, max_size=24).shape) == (3, 16, 24)
    with pytest.raises(ValueError, match="max_size = 16 must be strictly greater"):
        TF.resize(image, 16, max_size=16)


def test_center_crop_takes_the_middle_and_pads_what_is_missing() -> None:
    crop = transforms.CenterCrop(4)(COLOR)
    assert np.array_equal(crop, COLOR[1:5, 0:4])
    tensor = hookgrad.from_numpy(COLOR.transpose(2, 0, 1).copy())
    assert np.array_equal(
        transforms.CenterCrop((2, 3))(tensor).numpy(), tensor.numpy()[:, 2:4, 1:4]
    )
    padded = TF.center_crop(GRAY, 8)
    assert padded.shape == (8, 8) and np.array_equal(padded[1:7, 1:6], GRAY)
    assert padded[0].sum() == 0 and padded[:, 6:].sum() == 0


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
def test_pad_modes_on_arrays_and_tensors(mode: str) -> None:
    padding = [1, 2, 3, 1]  # left, top, right, bottom
    expected = np.pad(GRAY, [(2, 1), (1, 3)], mode=mode)
    assert np.array_equal(TF.pad(GRAY, padding, padding_mode=mode), expected)
    tensor = hookgrad.from_numpy(GRAY.astype(np.float32))[None]
    assert np.array_equal(TF.pad(tensor, padding, padding_mode=mode).numpy()[0], expected)
    with pytest.raises(ValueError, match="Padding mode should be either"):
        TF.pad(GRAY, 1, padding_mode="wrap")


def test_random_crop_draws_its_corner_as_torchvision_does(torch: Any) -> None:
    image = hookgrad.from_numpy(np.arange(2 * 10 * 12, dtype=np.float32).reshape(2, 10, 12))
    hookgrad.manual_seed(3)
    got = [transforms.RandomCrop((4, 5), padding=2)(image) for _ in range(4)]
    torch.manual_seed(3)
    padded = np.pad(image.numpy(), [(0, 0), (2, 2), (2, 2)])
    for crop in got:
        top = torch.randint(0, 14 - 4 + 1, size=(1,)).item()
        left = torch.randint(0, 16 - 5 + 1, size=(1,)).item()
        assert np.array_equal(crop.numpy(), padded[:, top : top + 4, left : left + 5])
    assert TF.get_dimensions(transforms.RandomCrop(8, pad_if_needed=True)(GRAY)) == [1, 8, 8]
    with pytest.raises(ValueError, match=r"Required crop size \(8, 8\) is larger"):
        transforms.RandomCrop(8)(GRAY)


def test_random_horizontal_flip_flips_when_torch_rand_is_below_p(torch: Any) -> None:
    flip = transforms.RandomHorizontalFlip(p=0.5)
    hookgrad.manual_seed(7)
    flipped = [not np.array_equal(flip(GRAY), GRAY) for _ in range(12)]
    torch.manual_seed(7)
    assert flipped == [bool(torch.rand(1) < 0.5) for _ in range(12)]
    assert any(flipped) and not all(flipped)
    assert np.array_equal(TF.hflip(GRAY), GRAY[:, ::-1])
    with pytest.raises(ValueError, match="probability should be a float between 0 and 1"):
        transforms.RandomHorizontalFlip(p=2)


def test_compose_and_lambda() -> None:
    pipeline = transforms.Compose(
        [
            transforms.ToTensor(),
            transforms.Lambda(lambda x: x * 2),
            transforms.Normalize((0.5,), (0.5,)),
        ]
    )
    assert float(pipeline(np.full((2, 2), 255, np.uint8))[0, 0, 0]) == 3.0
    assert repr(pipeline) == (
        "Compose(\n    ToTensor()\n    Lambda()\n    Normalize(mean=(0.5,), std=(0.5,))\n)"
    )
    assert repr(transforms.Resize(16)) == (
        "Resize(size=16, interpolation=bilinear, max_size=None, antialias=True)"
    )
    with pytest.raises(TypeError, match="Argument lambd should be callable, got 'int'"):
        transforms.Lambda(3)
