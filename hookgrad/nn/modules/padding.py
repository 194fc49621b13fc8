"""nn modules: the padding layers (``ZeroPad1d/2d/3d``, ``ConstantPad*``,
``ReflectionPad*``, ``ReplicationPad*``, ``CircularPad*``), each one ``F.pad`` call.

``padding`` is an int (the same on every side) or ``(left, right, top, bottom, front,
back)`` pairs from the last dim back, as ``F.pad`` takes them; negative values crop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]

IntOrTuple = Union[int, Sequence[int]]


class _PadNd(Module):
    """A padding layer of ``_dims`` spatial dims in ``F.pad``'s ``mode``."""

    _dims = 1
    mode = "constant"

    def __init__(self, padding: IntOrTuple) -> None:
        super().__init__()
        # As torch's ``_ntuple``: an int is repeated, a sequence kept as given.
        if isinstance(padding, int):
            self.padding: tuple[int, ...] = (padding,) * (2 * self._dims)
        else:
            self.padding = tuple(padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    """Padding with a constant ``value``."""

    def __init__(self, padding: IntOrTuple, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``. Example: ``nn.ConstantPad1d(2, 3.5)`` turns
    ``(N, C, W)`` into ``(N, C, W + 4)``."""


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``. Example: ``nn.ConstantPad2d((1, 1, 2, 0), 1.0)``
    turns ``(N, C, H, W)`` into ``(N, C, H + 2, W + 2)``."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``. Example: ``nn.ConstantPad3d(1, 0.5)`` turns
    ``(N, C, D, H, W)`` into ``(N, C, D + 2, H + 2, W + 2)``."""

    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    """Padding with zeros."""

    def __init__(self, padding: IntOrTuple) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Pad the last dim with zeros. Example: ``nn.ZeroPad1d((1, 2))(x)`` is
    ``F.pad(x, (1, 2))``."""


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Pad the last two dims with zeros. Example: ``nn.ZeroPad2d(1)`` turns ``(N, C, H, W)``
    into ``(N, C, H + 2, W + 2)``."""


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Pad the last three dims with zeros. Example: ``nn.ZeroPad3d(1)`` turns
    ``(N, C, D, H, W)`` into ``(N, C, D + 2, H + 2, W + 2)``."""


class _ReflectionPadNd(_PadNd):
    """Padding with the reflection of the input."""

    mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last dim with its reflection (the edge value not repeated). Example:
    ``nn.ReflectionPad1d(2)(hookgrad.tensor([[0., 1., 2., 3.]]))`` is
    ``[[2., 1., 0., 1., 2., 3., 2., 1.]]``."""


class ReflectionPad2d(_ReflectionPadNd):
    """Pad the last two dims with their reflection. Example: ``nn.ReflectionPad2d(1)``
    turns ``(N, C, H, W)`` into ``(N, C, H + 2, W + 2)``."""

    _dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Pad the last three dims with their reflection. Example: ``nn.ReflectionPad3d(1)``
    turns ``(N, C, D, H, W)`` into ``(N, C, D + 2, H + 2, W + 2)``."""

    _dims = 3


class _ReplicationPadNd(_PadNd):
    """Padding with the input's edge values."""

    mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last dim by repeating its edge values. Example:
    ``nn.ReplicationPad1d(2)(hookgrad.tensor([[0., 1., 2.]]))`` is
    ``[[0., 0., 0., 1., 2., 2., 2.]]``."""


class ReplicationPad2d(_ReplicationPadNd):
    """Pad the last two dims by repeating their edge values. Example:
    ``nn.ReplicationPad2d((1, 1, 2, 0))`` turns ``(N, C, H, W)`` into
    ``(N, C, H + 2, W + 2)``."""

    _dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Pad the last three dims by repeating their edge values. Example:
    ``nn.ReplicationPad3d(1)`` turns ``(N, C, D, H, W)`` into ``(N, C, D + 2, H + 2, W + 2)``."""

    _dims = 3


class _CircularPadNd(_PadNd):
    """Padding by wrapping around; the input must have ``_dims`` + 1 or 2 dims."""

    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        n = self._dims
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pad the last dim by wrapping around (the first values follow the last). Example:
    ``nn.CircularPad1d(1)(hookgrad.tensor([[0., 1., 2.]]))`` is ``[[2., 0., 1., 2., 0.]]``."""


class CircularPad2d(_CircularPadNd):
    """Pad the last two dims by wrapping around. Example: ``nn.CircularPad2d(1)`` turns
    ``(N, C, H, W)`` into ``(N, C, H + 2, W + 2)``."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last three dims by wrapping around. Example: ``nn.CircularPad3d(1)`` turns
    ``(N, C, D, H, W)`` into ``(N, C, D + 2, H + 2, W + 2)``."""

    _dims = 3
