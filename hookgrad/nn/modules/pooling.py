"""nn modules: ``MaxPool1d``, ``MaxPool2d``, ``AvgPool2d`` and ``AdaptiveAvgPool2d``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = ["AdaptiveAvgPool2d", "AvgPool2d", "MaxPool1d", "MaxPool2d"]

IntOrTuple = Union[int, Sequence[int]]


class _MaxPoolNd(Module):
    """Arguments and repr shared by the max-pooling layers."""

    def __init__(
        self,
        kernel_size: IntOrTuple,
        stride: IntOrTuple | None = None,
        padding: IntOrTuple = 0,
        dilation: IntOrTuple = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """The maximum of each window along the last dim of ``(N, C, L)`` or ``(C, L)``.

    Example: ``nn.MaxPool1d(2)(hookgrad.randn(8, 4, 10)).shape`` is ``(8, 4, 5)``.
    """

    def forward(self, input: Tensor) -> Any:
        return F.max_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class MaxPool2d(_MaxPoolNd):
    """The maximum of each ``kernel_size`` window of ``(N, C, H, W)`` or ``(C, H, W)``;
    with ``return_indices=True`` also the flat position of each maximum in its plane.

    Example: ``nn.MaxPool2d(2)(hookgrad.randn(64, 32, 26, 26)).shape`` is
    ``(64, 32, 13, 13)``.
    """

    def forward(self, input: Tensor) -> Any:
        return F.max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class AvgPool2d(Module):
    """The mean of each ``kernel_size`` window of ``(N, C, H, W)`` or ``(C, H, W)``.

    Example: ``nn.AvgPool2d(2)(hookgrad.randn(1, 3, 8, 8)).shape`` is ``(1, 3, 4, 4)``.
    """

    def __init__(
        self,
        kernel_size: IntOrTuple,
        stride: IntOrTuple | None = None,
        padding: IntOrTuple = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed ``output_size`` whatever the input's size (``None`` in
    ``output_size`` keeps that dim).

    Example: ``nn.AdaptiveAvgPool2d(1)(hookgrad.randn(8, 64, 7, 7)).shape`` is
    ``(8, 64, 1, 1)``.
    """

    def __init__(self, output_size: int | Sequence[int | None]) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
