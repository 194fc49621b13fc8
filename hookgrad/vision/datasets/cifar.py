"""CIFAR-10: torchvision's class reading the python version of the dataset (pickled
batches under ``root/cifar-10-batches-py``)."""

from __future__ import annotations

import codecs
import importlib
import os
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.vision.datasets import synthetic
from hookgrad.vision.datasets.vision import VisionDataset

__all__ = ["CIFAR10"]


class CIFAR10(VisionDataset):
    """The CIFAR-10 images (32x32 colour, 10 classes), read from the python version's
    files: ``root/cifar-10-batches-py/{data_batch_1..5, test_batch, batches.meta}``.

    ``train`` picks the 50,000 training or 10,000 test images; ``transform`` is applied
    to each image (a ``uint8`` NumPy array ``(32, 32, 3)``, where torchvision gives a PIL
    image), ``target_transform`` to each label (an ``int``). ``data`` is a ``uint8``
    NumPy array ``(N, 32, 32, 3)`` and ``targets`` a list of ints, as torchvision's.

    The pickles are read by an unpickler that rebuilds NumPy arrays and nothing else.
    hookgrad cannot download: where the files are missing and the environment has
    ``HOOKGRAD_SYNTHETIC_DATA=1`` (``hookgrad-inspect --synthetic-data``), the dataset is
    1,500 training and 297 test images of coloured digits (``synthetic`` is True);
    otherwise a missing file is a ``RuntimeError`` naming the files to put there.

    Example::

        from hookgrad.vision import datasets, transforms

        cifar = datasets.CIFAR10("data", train=True, transform=transforms.ToTensor())
        image, label = cifar[0]   # a (3, 32, 32) float tensor in [0, 1], an int
    """

    base_folder = "cifar-10-batches-py"
    train_list = ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5"]
    test_list = ["test_batch"]
    meta = {"filename": "batches.meta", "key": "label_names"}
    _synthetic_classes = [
        "airplane",
        "automobile",
        "bird",
        "cat",
        "deer",
        "dog",
        "frog",
        "horse",
        "ship",
        "truck",
    ]

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
        folder = os.path.join(str(self.root), self.base_folder)
        names = (self.train_list if self.train else self.test_list) + [self.meta["filename"]]
        missing = [name for name in names if not os.path.isfile(os.path.join(folder, name))]
        if missing:
            if not synthetic.synthetic_requested():
                raise RuntimeError(
                    f"Dataset not found: {self.__class__.__name__} needs {', '.join(names)} in "
                    f"{folder} (missing: {', '.join(missing)}). hookgrad.vision cannot download "
                    f"them; put them there, or set {synthetic.SYNTHETIC_ENV}=1 "
                    "(hookgrad-inspect --synthetic-data) for synthetic data"
                )
            self._synthesize(folder)
            return
        batches = [_unpickle(os.path.join(folder, name)) for name in names[:-1]]
        self.data = np.vstack([batch["data"] for batch in batches])
        self.data = self.data.reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        self.targets = [
            int(label)
            for batch in batches
            for label in (batch["labels"] if "labels" in batch else batch["fine_labels"])
        ]
        self.classes = list(_unpickle(os.path.join(folder, names[-1]))[self.meta["key"]])

    @property
    def class_to_idx(self) -> dict[str, int]:
        """Each class name's label."""
        return {name: index for index, name in enumerate(self.classes)}

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        image = np.array(self.data[index])
        target = self.targets[index]
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

    def _synthesize(self, folder: str) -> None:
        self.synthetic = True
        images, labels = synthetic.color_images(bool(self.train))
        self.data = images
        self.targets = [int(label) for label in labels]
        self.classes = list(self._synthetic_classes)
        warnings.warn(
            f"{self.__class__.__name__}: no files in {folder}; using {len(labels)} synthetic "
            f"images ({synthetic.SYNTHETIC_ENV} is set)",
            stacklevel=3,
        )


def _reconstruct() -> Any:
    try:
        return importlib.import_module("numpy._core.multiarray")._reconstruct
    except ImportError:  # NumPy 1
        return importlib.import_module("numpy.core.multiarray")._reconstruct


class _ArrayUnpickler(pickle.Unpickler):
    """Rebuilds containers, strings, numbers and NumPy arrays; refuses any other global."""

    _allowed = {
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        ("numpy.core.multiarray", "_reconstruct"): _reconstruct(),
        ("numpy._core.multiarray", "_reconstruct"): _reconstruct(),
        ("_codecs", "encode"): codecs.encode,
    }

    def find_class(self, module: str, name: str) -> Any:
        found = self._allowed.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(
                f"CIFAR batch files hold NumPy arrays only; refusing the global {module}.{name}"
            )
        return found


def _unpickle(path: str) -> dict[str, Any]:
    with open(path, "rb") as file:
        entry = _ArrayUnpickler(file, encoding="latin1").load()
    if not isinstance(entry, dict):
        raise RuntimeError(f"{path}: expected a pickled dict, got {type(entry).__name__}")
    return {key.decode() if isinstance(key, bytes) else key: value for key, value in entry.items()}
