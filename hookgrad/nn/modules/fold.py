"""nn modules: ``Unfold`` (sliding blocks as columns, torch's ``im2col``) and ``Fold``
(columns summed back into images, ``col2im``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = ["Fold", "Unfold"]

IntOrTuple = Union[int, Sequence[int]]


class Fold(Module):
    """Sum columns ``(N, C * prod(kernel_size), L)`` into images ``(N, C, *output_size)``.

    Example: ``nn.Fold(output_size=(4, 5), kernel_size=(2, 2))(hookgrad.randn(1, 12, 12))``
    has shape (1, 3, 4, 5).
    """

    def __init__(
        self,
        output_size: IntOrTuple,
        kernel_size: IntOrTuple,
        dilation: IntOrTuple = 1,
        padding: IntOrTuple = 0,
        stride: IntOrTuple = 1,
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """Every sliding ``kernel_size`` block of ``(N, C, H, W)`` as a column of
    ``(N, C * prod(kernel_size), L)``.

    Example: ``nn.Unfold(kernel_size=(2, 3))(hookgrad.randn(2, 5, 3, 4)).shape`` is
    ``(2, 30, 4)``.
    """

    def __init__(
        self,
        kernel_size: IntOrTuple,
        dilation: IntOrTuple = 1,
        padding: IntOrTuple = 0,
        stride: IntOrTuple = 1,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding},"
            f" stride={self.stride}"
        )
