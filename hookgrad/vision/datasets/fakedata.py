"""``FakeData``: random images and labels, the same ones for the same index on every run
(torchvision's class, for trying a pipeline without any data)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import hookgrad
from hookgrad.vision.datasets.vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    """``size`` random images of ``image_size`` ``(C, H, W)`` and labels below
    ``num_classes``; image ``i`` is drawn after ``manual_seed(i + random_offset)`` (the
    generator's state is restored after), as torchvision draws it, so both give the same
    images.

    An image is a ``uint8`` NumPy array ``(H, W, C)`` (``(H, W)`` for one channel): the
    standard-normal draws times 255 converted to bytes, as ``ToPILImage`` converts them;
    a label is an ``int``.

    Example::

        fake = FakeData(size=8, image_size=(1, 28, 28), transform=transforms.ToTensor())
        image, label = fake[0]   # a (1, 28, 28) float tensor, an int below 10
    """

    def __init__(
        self,
        size: int = 1000,
        image_size: Sequence[int] = (3, 224, 224),
        num_classes: int = 10,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        random_offset: int = 0,
    ) -> None:
        super().__init__(None, transform=transform, target_transform=target_transform)
        self.size = size
        self.num_classes = num_classes
        self.image_size = image_size
        self.random_offset = random_offset

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        state = hookgrad.get_rng_state()
        hookgrad.manual_seed(index + self.random_offset)
        pixels = hookgrad.randn(*self.image_size)
        target: Any = hookgrad.randint(0, self.num_classes, size=(1,), dtype=hookgrad.long)[0]
        hookgrad.set_rng_state(state)
        image = np.transpose(pixels.mul(255).byte().numpy(), (1, 2, 0))
        if image.shape[2] == 1:
            image = image[:, :, 0]
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, int(target) if isinstance(target, hookgrad.Tensor) else target

    def __len__(self) -> int:
        return self.size
