"""nn modules: ``Upsample`` and its fixed-mode forms ``UpsamplingNearest2d`` and
``UpsamplingBilinear2d``, each one ``F.interpolate`` call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]

IntOrTuple = Union[int, Sequence[int]]
FloatOrTuple = Union[float, Sequence[float]]


class Upsample(Module):
    """Resize the spatial dims of ``(N, C, *spatial)`` inputs to ``size`` or by
    ``scale_factor`` with ``F.interpolate``'s ``mode`` (``nearest``, ``linear``,
    ``bilinear``, ``bicubic``, ``trilinear`` ...).

    Example::

        up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        up(hookgrad.randn(1, 3, 8, 8)).shape   # hookgrad.Size([1, 3, 16, 16])
    """

    def __init__(
        self,
        size: IntOrTuple | None = None,
        scale_factor: FloatOrTuple | None = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: FloatOrTuple | None = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """``Upsample(size, scale_factor, mode="nearest")`` for ``(N, C, H, W)`` inputs.

    Example: ``nn.UpsamplingNearest2d(scale_factor=2)(hookgrad.randn(1, 1, 2, 2)).shape``
    is ``(1, 1, 4, 4)``.
    """

    def __init__(
        self, size: IntOrTuple | None = None, scale_factor: FloatOrTuple | None = None
    ) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(size, scale_factor, mode="bilinear", align_corners=True)``.

    Example: ``nn.UpsamplingBilinear2d(size=5)(hookgrad.randn(1, 1, 2, 2)).shape`` is
    ``(1, 1, 5, 5)``.
    """

    def __init__(
        self, size: IntOrTuple | None = None, scale_factor: FloatOrTuple | None = None
    ) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
