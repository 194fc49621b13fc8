"""The demo's model: a small CNN with named layers, so every plot can say which layer it
shows (``conv1.weight``, ``relu2``, ...)."""

from __future__ import annotations

from hookgrad import nn
from hookgrad.tensor import Tensor

__all__ = ["DigitsCNN"]


class DigitsCNN(nn.Module):
    """``conv(1->16, 3x3, pad 1) - relu - maxpool 2 - conv(16->32) - relu - maxpool 2 -
    linear`` for ``(N, 1, H, W)`` images; returns ``(N, classes)`` scores. Example::

        model = DigitsCNN((8, 8), classes=10)
        model(hookgrad.zeros(4, 1, 8, 8)).shape   # hookgrad.Size([4, 10])
    """

    def __init__(self, image_shape: tuple[int, int], classes: int) -> None:
        super().__init__()
        height, width = (side // 4 for side in image_shape)
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(32 * height * width, classes)

    def forward(self, x: Tensor) -> Tensor:
        """Class scores for the images ``x``."""
        x = self.pool1(self.relu1(self.conv1(x)))
        x = self.pool2(self.relu2(self.conv2(x)))
        return self.fc(self.flatten(x))
