"""``hookgrad.vision.models`` (``torchvision.models`` under ``hookgrad-inspect``): model
architectures with torchvision's module names and initialisation; no pretrained weights.

Example::

    from hookgrad.vision import models

    model = models.resnet18(weights=None, num_classes=10)
"""

from hookgrad.vision.models.resnet import (
    BasicBlock,
    Bottleneck,
    ResNet,
    resnet18,
    resnet34,
    resnet50,
)

__all__ = ["BasicBlock", "Bottleneck", "ResNet", "resnet18", "resnet34", "resnet50"]
