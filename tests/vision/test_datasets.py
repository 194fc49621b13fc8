"""``hookgrad.vision.datasets`` reads torchvision's file layouts (MNIST's IDX files,
gzipped or not; CIFAR-10's pickled batches), falls back to synthetic images only when
asked, and says which files to put where otherwise."""

from __future__ import annotations

import gzip
import pickle
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.utils.data import DataLoader
from hookgrad.vision import datasets, transforms
from hookgrad.vision.datasets import synthetic


def _idx(array: np.ndarray) -> bytes:
    header = bytes([0, 0, 0x08, array.ndim]) + struct.pack(f">{array.ndim}i", *array.shape)
    return header + array.astype(np.uint8).tobytes()


def _write_mnist(root: Path, name: str, train: bool, count: int, gzipped: bool) -> tuple:
    rng = np.random.default_rng(count)
    images = rng.integers(0, 256, (count, 28, 28)).astype(np.uint8)
    labels = rng.integers(0, 10, count).astype(np.uint8)
    raw = root / name / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    prefix = "train" if train else "t10k"
    for suffix, array in (("images-idx3-ubyte", images), ("labels-idx1-ubyte", labels)):
        path = raw / f"{prefix}-{suffix}"
        if gzipped:
            path.with_name(path.name + ".gz").write_bytes(gzip.compress(_idx(array)))
        else:
            path.write_bytes(_idx(array))
    return images, labels


@pytest.fixture
def no_synthetic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(synthetic.SYNTHETIC_ENV, raising=False)


@pytest.mark.parametrize("gzipped", [True, False])
def test_mnist_reads_the_idx_files(tmp_path: Path, gzipped: bool, no_synthetic: None) -> None:
    images, labels = _write_mnist(tmp_path, "MNIST", True, 5, gzipped)
    mnist = datasets.MNIST(str(tmp_path), train=True, download=True)
    assert mnist.data.dtype == hookgrad.uint8 and tuple(mnist.data.shape) == (5, 28, 28)
    assert np.array_equal(mnist.data.numpy(), images)
    assert mnist.targets.dtype == hookgrad.int64
    assert mnist.targets.tolist() == labels.tolist()
    image, target = mnist[3]
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert np.array_equal(image, images[3]) and target == int(labels[3])
    assert type(target) is int
    assert len(mnist) == 5 and not mnist.synthetic
    assert mnist.class_to_idx["3 - three"] == 3
    assert "Split: Train" in repr(mnist) and "Number of datapoints: 5" in repr(mnist)


def test_the_mnist_like_sets_read_their_own_folders(tmp_path: Path, no_synthetic: None) -> None:
    images, labels = _write_mnist(tmp_path, "FashionMNIST", False, 3, gzipped=False)
    clothes = datasets.FashionMNIST(tmp_path, train=False, target_transform=lambda t: t + 100)
    assert np.array_equal(clothes[2][0], images[2]) and clothes[2][1] == int(labels[2]) + 100
    assert clothes.classes[9] == "Ankle boot"
    assert clothes.raw_folder == str(tmp_path / "FashionMNIST" / "raw")
    with pytest.raises(RuntimeError, match="KMNIST needs t10k-images-idx3-ubyte"):
        datasets.KMNIST(tmp_path, train=False)


def test_mnist_through_a_dataloader_is_torchs_arithmetic(
    tmp_path: Path, torch: Any, no_synthetic: None
) -> None:
    images, labels = _write_mnist(tmp_path, "MNIST", False, 6, gzipped=True)
    transform = transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))]
    )
    mnist = datasets.MNIST(tmp_path, train=False, transform=transform)
    batch, targets = next(iter(DataLoader(mnist, batch_size=4)))
    expected = torch.from_numpy(images[:4]).unsqueeze(1).float().div(255)
    expected = (expected - torch.tensor([0.1307])) / torch.tensor([0.3081])
    assert batch.dtype == hookgrad.float32
    assert np.array_equal(batch.numpy(), expected.numpy())
    assert targets.tolist() == labels[:4].tolist()


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda raw: b"\x01" + raw[1:], "not an IDX file"),
        (lambda raw: raw[:-10], "truncated"),
        (lambda raw: raw[:6], "truncated IDX header"),
    ],
)
def test_a_damaged_idx_file_is_named(
    tmp_path: Path, damage: Any, message: str, no_synthetic: None
) -> None:
    _write_mnist(tmp_path, "MNIST", True, 2, gzipped=False)
    path = tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte"
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(RuntimeError, match=message) as error:
        datasets.MNIST(tmp_path)
    assert str(path) in str(error.value)


def test_labels_must_match_the_images(tmp_path: Path, no_synthetic: None) -> None:
    _write_mnist(tmp_path, "MNIST", True, 3, gzipped=False)
    path = tmp_path / "MNIST" / "raw" / "train-labels-idx1-ubyte"
    path.write_bytes(_idx(np.zeros(2, np.uint8)))
    with pytest.raises(RuntimeError, match="expected 3 labels"):
        datasets.MNIST(tmp_path)


def test_missing_files_are_named_unless_synthetic_data_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_synthetic: None
) -> None:
    with pytest.raises(RuntimeError) as error:
        datasets.MNIST(tmp_path, train=True, download=True)
    text = str(error.value)
    assert "train-images-idx3-ubyte and train-labels-idx1-ubyte" in text
    assert str(tmp_path / "MNIST" / "raw") in text and "HOOKGRAD_SYNTHETIC_DATA=1" in text
    monkeypatch.setenv(synthetic.SYNTHETIC_ENV, "1")
    with pytest.warns(UserWarning, match="1500 synthetic images"):
        train = datasets.MNIST(tmp_path, train=True, download=True)
    with pytest.warns(UserWarning, match="297 synthetic images"):
        test = datasets.MNIST(tmp_path, train=False)
    assert train.synthetic and (len(train), len(test)) == (1500, 297)
    assert tuple(train.data.shape) == (1500, 28, 28) and train.data.dtype == hookgrad.uint8
    assert set(train.targets.tolist()) == set(range(10))
    assert "(synthetic)" in repr(train)
    # the digits are drawn in the middle 20 x 20 pixels, as MNIST's are
    assert train.data[:, :4].sum().item() == 0 and train.data[:, 4:24].sum().item() > 0
    with pytest.warns(UserWarning):
        again = datasets.MNIST(tmp_path, train=True)
    assert np.array_equal(again.data.numpy(), train.data.numpy())


def _write_cifar(root: Path) -> tuple[np.ndarray, list[int]]:
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    rows, labels = [], []
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        data = rng.integers(0, 256, (2, 3072)).astype(np.uint8)
        batch_labels = [int(v) for v in rng.integers(0, 10, 2)]
        entry = {b"batch_label": name.encode(), b"labels": batch_labels, b"data": data}
        (folder / name).write_bytes(pickle.dumps(entry, protocol=2))
        rows.append(data)
        labels += batch_labels
    meta = {b"label_names": [f"class{i}" for i in range(10)]}
    (folder / "batches.meta").write_bytes(pickle.dumps(meta, protocol=2))
    return np.vstack(rows), labels


def test_cifar10_reads_the_python_batches(tmp_path: Path, no_synthetic: None) -> None:
    rows, labels = _write_cifar(tmp_path)
    cifar = datasets.CIFAR10(tmp_path, train=True, transform=transforms.ToTensor())
    assert cifar.data.shape == (10, 32, 32, 3) and cifar.data.dtype == np.uint8
    assert cifar.targets == labels[:10]
    # channel-planar rows become height x width x channel images
    assert cifar.data[3, 5, 7, 2] == rows[3, 2 * 1024 + 5 * 32 + 7]
    image, target = cifar[3]
    assert tuple(image.shape) == (3, 32, 32) and target == labels[3]
    assert np.array_equal(image.numpy(), rows[3].reshape(3, 32, 32) / np.float32(255))
    assert cifar.classes[4] == "class4" and cifar.class_to_idx["class7"] == 7
    test = datasets.CIFAR10(tmp_path, train=False)
    assert len(test) == 2 and test.targets == labels[10:]


def test_cifar10_refuses_pickles_that_run_code(tmp_path: Path, no_synthetic: None) -> None:
    _write_cifar(tmp_path)
    evil = pickle.dumps({b"data": np.zeros((1, 3072), np.uint8), b"labels": [print]}, protocol=2)
    (tmp_path / "cifar-10-batches-py" / "test_batch").write_bytes(evil)
    with pytest.raises(pickle.UnpicklingError, match=r"refusing the global \w+\.print"):
        datasets.CIFAR10(tmp_path, train=False)


def test_cifar10_missing_files_and_synthetic_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_synthetic: None
) -> None:
    with pytest.raises(RuntimeError, match="missing: test_batch, batches.meta"):
        datasets.CIFAR10(tmp_path, train=False)
    monkeypatch.setenv(synthetic.SYNTHETIC_ENV, "1")
    with pytest.warns(UserWarning, match="297 synthetic images"):
        cifar = datasets.CIFAR10(tmp_path, train=False)
    assert cifar.synthetic and cifar.data.shape == (297, 32, 32, 3)
    assert cifar.classes[0] == "airplane" and len(cifar.targets) == 297


def test_synthetic_images_without_scikit_learn(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    images, labels = synthetic.gray_images(train=False)
    assert images.shape == (297, 28, 28) and images.dtype == np.uint8
    assert labels.tolist()[:3] == [0, 1, 2] and images.std() > 10
    again, _ = synthetic.gray_images(train=False)
    assert np.array_equal(images, again)


def test_vision_dataset_takes_transforms_or_the_pair() -> None:
    with pytest.raises(ValueError, match="Only transforms or transform/target_transform"):
        datasets.VisionDataset("root", transforms=lambda x, y: (x, y), transform=str)
    both = datasets.StandardTransform(lambda x: x * 2, str)
    assert both(3, 1) == (6, "1")


def test_fake_data_draws_torchvisions_images(torch: Any) -> None:
    fake = datasets.FakeData(size=3, image_size=(3, 4, 5), num_classes=4, random_offset=2)
    hookgrad.manual_seed(5)
    first = hookgrad.rand(1).item()
    hookgrad.manual_seed(5)
    image, label = fake[1]
    assert hookgrad.rand(1).item() == first  # the generator's state is restored
    torch.manual_seed(3)
    pixels = torch.randn(3, 4, 5)
    expected_label = torch.randint(0, 4, size=(1,), dtype=torch.long)[0].item()
    assert image.dtype == np.uint8 and image.shape == (4, 5, 3)
    assert np.array_equal(image, pixels.mul(255).byte().numpy().transpose(1, 2, 0))
    assert label == expected_label and type(label) is int
    gray, _ = datasets.FakeData(size=1, image_size=(1, 6, 6))[0]
    assert gray.shape == (6, 6)
    with pytest.raises(IndexError, match="FakeData index out of range"):
        fake[3]
