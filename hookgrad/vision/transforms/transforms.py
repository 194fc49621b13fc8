"""The transform classes: callables that map an image (an array or a tensor) to another,
chained by ``Compose``. The random ones draw from hookgrad's generator as torchvision's
draw from torch's, so a seeded program crops and flips the same images."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import hookgrad
from hookgrad import nn
from hookgrad.vision.transforms import functional as TF
from hookgrad.vision.transforms.functional import InterpolationMode

__all__ = [
    "CenterCrop",
    "Compose",
    "Lambda",
    "Normalize",
    "PILToTensor",
    "RandomCrop",
    "RandomHorizontalFlip",
    "Resize",
    "ToTensor",
]


class Compose:
    """Applies ``transforms`` one after the other.

    Example::

        transform = Compose([ToTensor(), Normalize((0.1307,), (0.3081,))])
        transform(np.zeros((28, 28), np.uint8)).shape   # (1, 28, 28)
    """

    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = transforms

    def __call__(self, img: Any) -> Any:
        for transform in self.transforms:
            img = transform(img)
        return img

    def __repr__(self) -> str:
        lines = [f"{self.__class__.__name__}("]
        lines += [f"    {transform}" for transform in self.transforms]
        return "\n".join(lines) + "\n)"


class ToTensor:
    """An array image ``(H, W[, C])`` (``uint8``) as a float tensor ``(C, H, W)`` in
    [0, 1]: ``to_tensor``.

    Example::

        ToTensor()(np.full((2, 2), 255, np.uint8))   # tensor([[[1., 1.], [1., 1.]]])
    """

    def __call__(self, pic: Any) -> hookgrad.Tensor:
        return TF.to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """An array image ``(H, W[, C])`` as a tensor ``(C, H, W)`` of its own dtype:
    ``pil_to_tensor``.

    Example::

        PILToTensor()(np.zeros((28, 28), np.uint8)).dtype   # torch.uint8
    """

    def __call__(self, pic: Any) -> hookgrad.Tensor:
        return TF.pil_to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class Normalize(nn.Module):
    """``(image - mean) / std`` per channel of a float tensor image: ``normalize``.

    Example::

        Normalize((0.5,), (0.25,))(hookgrad.ones(1, 2, 2))   # all 2.0
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False):
        super().__init__()
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def forward(self, tensor: hookgrad.Tensor) -> hookgrad.Tensor:
        return TF.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Resize(nn.Module):
    """Resizes an image to ``size`` (a pair, or an int for the shorter side): ``resize``.

    Example::

        Resize(16)(hookgrad.rand(3, 32, 48)).shape   # (3, 16, 24)
    """

    def __init__(
        self,
        size: int | Sequence[int],
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        max_size: int | None = None,
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size = size
        self.max_size = max_size
        self.interpolation = InterpolationMode(interpolation)
        self.antialias = antialias

    def forward(self, img: Any) -> Any:
        return TF.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(size={self.size}, "
            f"interpolation={self.interpolation.value}, max_size={self.max_size}, "
            f"antialias={self.antialias})"
        )


class CenterCrop(nn.Module):
    """The central ``size`` window of an image (an int for a square): ``center_crop``.

    Example::

        CenterCrop(20)(np.zeros((28, 28), np.uint8)).shape   # (20, 20)
    """

    def __init__(self, size: int | Sequence[int]) -> None:
        super().__init__()
        self.size = TF._pair(size)

    def forward(self, img: Any) -> Any:
        return TF.center_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class RandomCrop(nn.Module):
    """A ``size`` window at a random place of an image, after optional ``padding``
    (``pad``'s argument; ``pad_if_needed`` pads an image smaller than ``size``).

    The corner is ``torch.randint`` of hookgrad's generator, row then column.

    Example::

        hookgrad.manual_seed(0)
        RandomCrop(28, padding=4)(hookgrad.rand(1, 28, 28)).shape   # (1, 28, 28)
    """

    def __init__(
        self,
        size: int | Sequence[int],
        padding: int | Sequence[int] | None = None,
        pad_if_needed: bool = False,
        fill: float = 0,
        padding_mode: str = "constant",
    ) -> None:
        super().__init__()
        self.size = TF._pair(size)
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    @staticmethod
    def get_params(img: Any, output_size: tuple[int, int]) -> tuple[int, int, int, int]:
        """``(top, left, height, width)`` of a random ``output_size`` window of ``img``."""
        height, width = TF.get_dimensions(img)[1:]
        crop_height, crop_width = output_size
        if height < crop_height or width < crop_width:
            raise ValueError(
                f"Required crop size {(crop_height, crop_width)} is larger than input image "
                f"size {(height, width)}"
            )
        if (width, height) == (crop_width, crop_height):
            return 0, 0, height, width
        top = int(hookgrad.randint(0, height - crop_height + 1, size=(1,)).item())
        left = int(hookgrad.randint(0, width - crop_width + 1, size=(1,)).item())
        return top, left, crop_height, crop_width

    def forward(self, img: Any) -> Any:
        if self.padding is not None:
            img = TF.pad(img, self.padding, self.fill, self.padding_mode)
        height, width = TF.get_dimensions(img)[1:]
        if self.pad_if_needed and width < self.size[1]:
            img = TF.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = TF.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        top, left, crop_height, crop_width = self.get_params(img, self.size)
        return TF.crop(img, top, left, crop_height, crop_width)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(nn.Module):
    """Mirrors an image left to right with probability ``p`` (one ``torch.rand(1)`` of
    hookgrad's generator per image).

    Example::

        RandomHorizontalFlip(p=1.0)(hookgrad.tensor([[[1, 2, 3]]]))   # [[[3, 2, 1]]]
    """

    p: float

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
            raise ValueError("probability should be a float between 0 and 1")
        self.p = p

    def forward(self, img: Any) -> Any:
        if bool(hookgrad.rand(1) < self.p):
            return TF.hflip(img)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class Lambda:
    """A transform made of any callable ``lambd``.

    Example::

        Lambda(lambda x: x * 2)(hookgrad.ones(1))   # tensor([2.])
    """

    def __init__(self, lambd: Callable) -> None:
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, img: Any) -> Any:
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"
