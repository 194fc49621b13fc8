"""MNIST and the datasets stored as it is (Fashion-MNIST, Kuzushiji-MNIST): torchvision's
classes reading the IDX files under ``root/<Name>/raw``, gzipped or not."""

from __future__ import annotations

import gzip
import math
import os
import struct
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import hookgrad
from hookgrad.vision.datasets import synthetic
from hookgrad.vision.datasets.vision import VisionDataset

__all__ = ["KMNIST", "MNIST", "FashionMNIST", "read_idx"]

# The element types of the IDX format, by type code (all big-endian).
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


class MNIST(VisionDataset):
    """The MNIST handwritten digits, read from torchvision's layout:
    ``root/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte`` (each may be
    gzipped, ``.gz``).

    ``train`` picks the 60,000 training or 10,000 test images; ``transform`` is applied
    to each image (a ``uint8`` NumPy array ``(28, 28)``, where torchvision gives a PIL
    image), ``target_transform`` to each label (an ``int``). ``data`` is a ``uint8``
    tensor ``(N, 28, 28)``, ``targets`` an ``int64`` tensor ``(N,)``.

    hookgrad cannot download: ``download=True`` only checks that the files are there.
    Where they are missing and the environment has ``HOOKGRAD_SYNTHETIC_DATA=1``
    (``hookgrad-inspect --synthetic-data`` sets it), the dataset is synthetic: 1,500
    training and 297 test images of scikit-learn's digits drawn as MNIST's, or seeded
    noise without scikit-learn (``synthetic`` is then True). Otherwise a missing file is
    a ``RuntimeError`` naming the files to put there.

    Example::

        from hookgrad.vision import datasets, transforms

        mnist = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
        image, label = mnist[0]   # a (1, 28, 28) float tensor in [0, 1], an int
    """

    classes = [
        "0 - zero",
        "1 - one",
        "2 - two",
        "3 - three",
        "4 - four",
        "5 - five",
        "6 - six",
        "7 - seven",
        "8 - eight",
        "9 - nine",
    ]
    _files = {
        True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
        False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
    }

    def __init__(
        self,
        root: str | os.PathLike,
        train: bool = True,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        self.synthetic = False
        images, labels = self._load()
        self.data = hookgrad.from_numpy(images)
        self.targets = hookgrad.from_numpy(labels)

    @property
    def raw_folder(self) -> str:
        """Where the IDX files are read from: ``root/<class name>/raw``."""
        return os.path.join(str(self.root), self.__class__.__name__, "raw")

    @property
    def processed_folder(self) -> str:
        """``root/<class name>/processed`` (torchvision's; hookgrad reads ``raw`` only)."""
        return os.path.join(str(self.root), self.__class__.__name__, "processed")

    @property
    def class_to_idx(self) -> dict[str, int]:
        """Each class name's label."""
        return {name: index for index, name in enumerate(self.classes)}

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        image = np.array(self.data[index].numpy())
        target = int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        split = "Train" if self.train is True else "Test"
        return f"Split: {split}" + (" (synthetic)" if self.synthetic else "")

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        names = self._files[bool(self.train)]
        paths = [_find(self.raw_folder, name) for name in names]
        if None in paths:
            if not synthetic.synthetic_requested():
                raise RuntimeError(_not_found(self.__class__.__name__, self.raw_folder, names))
            self.synthetic = True
            images, labels = synthetic.gray_images(bool(self.train))
            warnings.warn(
                f"{self.__class__.__name__}: no files in {self.raw_folder}; "
                f"using {len(labels)} synthetic images ({synthetic.SYNTHETIC_ENV} is set)",
                stacklevel=3,
            )
            return images, labels
        images, labels = (read_idx(path) for path in paths)  # type: ignore[arg-type]
        if images.ndim != 3 or images.dtype != np.uint8:
            raise RuntimeError(f"{paths[0]}: expected uint8 images (N, H, W), got {_kind(images)}")
        if labels.ndim != 1 or len(labels) != len(images):
            raise RuntimeError(
                f"{paths[1]}: expected {len(images)} labels, one per image, got {_kind(labels)}"
            )
        return images, labels.astype(np.int64)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's clothing images), stored as MNIST is, under
    ``root/FashionMNIST/raw``; the arguments and the synthetic fallback are MNIST's.

    Example::

        clothes = datasets.FashionMNIST("data", train=True)
        clothes.classes[9]   # 'Ankle boot'
    """

    classes = [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]


class KMNIST(MNIST):
    """Kuzushiji-MNIST (cursive Japanese characters), stored as MNIST is, under
    ``root/KMNIST/raw``; the arguments and the synthetic fallback are MNIST's.

    Example::

        kana = datasets.KMNIST("data", train=False)
        kana.classes[:3]   # ['o', 'ki', 'su']
    """

    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """The array in an IDX file (MNIST's format; gzipped when the name ends in ``.gz``).

    Example::

        labels = read_idx("data/MNIST/raw/t10k-labels-idx1-ubyte")   # uint8, (10000,)
    """
    opener: Any = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as file:
        raw = file.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise RuntimeError(f"{path}: not an IDX file (bad magic number)")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise RuntimeError(f"{path}: truncated IDX header")
    shape = struct.unpack(f">{ndim}i", raw[4:header])
    dtype = np.dtype(_IDX_TYPES[raw[2]])
    count = math.prod(shape)
    if len(raw) - header < count * dtype.itemsize:
        raise RuntimeError(
            f"{path}: truncated: the header says {count} values of shape {shape}, "
            f"the file has {(len(raw) - header) // dtype.itemsize}"
        )
    values = np.frombuffer(raw, dtype, count, offset=header)
    return values.astype(dtype.newbyteorder("=")).reshape(shape)


def _find(folder: str, name: str) -> str | None:
    for candidate in (name, name + ".gz"):
        path = os.path.join(folder, candidate)
        if os.path.isfile(path):
            return path
    return None


def _not_found(dataset: str, folder: str, names: tuple[str, ...]) -> str:
    return (
        f"Dataset not found: {dataset} needs {' and '.join(names)} (or the same names with "
        f".gz) in {folder}. hookgrad.vision cannot download them; put them there, or set "
        f"{synthetic.SYNTHETIC_ENV}=1 (hookgrad-inspect --synthetic-data) for synthetic data"
    )


def _kind(array: np.ndarray) -> str:
    return f"{array.dtype} of shape {array.shape}"
