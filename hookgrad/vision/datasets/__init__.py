"""``hookgrad.vision.datasets`` (``torchvision.datasets`` under ``hookgrad-inspect``): image
datasets read from torchvision's on-disk layouts, with a synthetic fallback.

Modules: ``vision`` (``VisionDataset``, ``StandardTransform``), ``mnist`` (``MNIST``,
``FashionMNIST``, ``KMNIST``, the IDX reader), ``cifar`` (``CIFAR10``), ``fakedata``
(``FakeData``, seeded random images), ``synthetic`` (the deterministic images used when
files are missing and ``HOOKGRAD_SYNTHETIC_DATA=1``).

Example::

    from hookgrad.vision import datasets

    train = datasets.MNIST("../data", train=True, download=True)
"""

from hookgrad.vision.datasets.cifar import CIFAR10
from hookgrad.vision.datasets.fakedata import FakeData
from hookgrad.vision.datasets.mnist import KMNIST, MNIST, FashionMNIST
from hookgrad.vision.datasets.vision import StandardTransform, VisionDataset

__all__ = [
    "CIFAR10",
    "KMNIST",
    "MNIST",
    "FakeData",
    "FashionMNIST",
    "StandardTransform",
    "VisionDataset",
]
