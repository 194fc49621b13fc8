"""nn modules: ``PixelShuffle`` and ``PixelUnshuffle`` (sub-pixel rearrangements)."""

from __future__ import annotations

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """Rearrange ``(*, C * r * r, H, W)`` into ``(*, C, H * r, W * r)`` (``r =
    upscale_factor``), as in sub-pixel convolution upsampling.

    Example: ``nn.PixelShuffle(3)(hookgrad.randn(1, 9, 4, 4)).shape`` is ``(1, 1, 12, 12)``.
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearrange ``(*, C, H * r, W * r)`` into ``(*, C * r * r, H, W)`` (``r =
    downscale_factor``), the inverse of ``PixelShuffle``.

    Example: ``nn.PixelUnshuffle(3)(hookgrad.randn(1, 1, 12, 12)).shape`` is ``(1, 9, 4, 4)``.
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
