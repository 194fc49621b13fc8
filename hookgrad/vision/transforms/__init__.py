"""``hookgrad.vision.transforms`` (``torchvision.transforms`` under ``hookgrad-inspect``):
the common image transforms, on NumPy array images and tensor images.

Modules: ``transforms`` (the classes), ``functional`` (the functions they call, also
``torchvision.transforms.functional``'s names).

Example::

    from hookgrad.vision import transforms

    transform = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,)),
    ])
"""

from hookgrad.vision.transforms import functional
from hookgrad.vision.transforms.functional import InterpolationMode
from hookgrad.vision.transforms.transforms import (
    CenterCrop,
    Compose,
    Lambda,
    Normalize,
    PILToTensor,
    RandomCrop,
    RandomHorizontalFlip,
    Resize,
    ToTensor,
)

__all__ = [
    "CenterCrop",
    "Compose",
    "InterpolationMode",
    "Lambda",
    "Normalize",
    "PILToTensor",
    "RandomCrop",
    "RandomHorizontalFlip",
    "Resize",
    "ToTensor",
    "functional",
]
