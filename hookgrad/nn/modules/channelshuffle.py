"""nn module: ``ChannelShuffle`` (ShuffleNet's interleaving of channel groups)."""

from __future__ import annotations

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Split the channels of ``(N, C, *)`` into ``groups`` and interleave them.

    Example: ``nn.ChannelShuffle(2)`` orders 4 channels 0, 2, 1, 3.
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
