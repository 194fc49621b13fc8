"""nn modules: the pooling layers (max, average, adaptive, power-average, fractional max
pooling and max unpooling, over 1-3 spatial dims), each one ``nn.functional`` call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]

IntOrTuple = Union[int, Sequence[int]]
OutputSize = Union[int, Sequence[Union[int, None]]]


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    """torch's ``_single`` / ``_pair`` / ``_triple``: a number repeated, a sequence kept."""
    return (value,) * n if isinstance(value, (int, float)) else tuple(value)


# ---------------------------------------------------------------- max pooling


class _MaxPoolNd(Module):
    """Arguments and repr shared by the max-pooling layers (kept as given, as torch)."""

    _pool: Any = None  # the functional form

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

    def forward(self, input: Tensor) -> Any:
        return type(self)._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """The maximum of each window along the last dim of ``(N, C, L)`` or ``(C, L)``.

    Example: ``nn.MaxPool1d(2)(hookgrad.randn(8, 4, 10)).shape`` is ``(8, 4, 5)``.
    """

    _pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """The maximum of each ``kernel_size`` window of ``(N, C, H, W)`` or ``(C, H, W)``;
    with ``return_indices=True`` also the flat position of each maximum in its plane.

    Example: ``nn.MaxPool2d(2)(hookgrad.randn(64, 32, 26, 26)).shape`` is
    ``(64, 32, 13, 13)``.
    """

    _pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """The maximum of each ``kernel_size`` window of ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; with ``return_indices=True`` also each maximum's flat position.

    Example: ``nn.MaxPool3d(2)(hookgrad.randn(2, 3, 8, 8, 8)).shape`` is ``(2, 3, 4, 4, 4)``.
    """

    _pool = staticmethod(F.max_pool3d)


class _MaxUnpoolNd(Module):
    """A partial inverse of a max pool: ``forward(input, indices, output_size=None)``."""

    _dims = 1
    _unpool: Any = None

    def __init__(
        self, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0
    ) -> None:
        super().__init__()
        n = self._dims
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(
        self, input: Tensor, indices: Tensor, output_size: Sequence[int] | None = None
    ) -> Tensor:
        return type(self)._unpool(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Each value written back at the position ``MaxPool1d`` took it from, zeros elsewhere.

    Example::

        pool, unpool = nn.MaxPool1d(2, return_indices=True), nn.MaxUnpool1d(2)
        unpool(*pool(x))          # x's window maxima in place, zeros elsewhere
    """

    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Each value written back at the position ``MaxPool2d`` took it from, zeros elsewhere.

    Example::

        pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
        out, indices = pool(x)
        unpool(out, indices, output_size=x.shape)
    """

    _dims = 2
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Each value written back at the position ``MaxPool3d`` took it from, zeros elsewhere.

    Example: ``nn.MaxUnpool3d(2)(*nn.MaxPool3d(2, return_indices=True)(x))`` has ``x``'s
    shape (for even sizes).
    """

    _dims = 3
    _unpool = staticmethod(F.max_unpool3d)


# ---------------------------------------------------------------- average pooling


class _AvgPoolNd(Module):
    """Arguments and repr shared by the average-pooling layers."""

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """The mean of each window along the last dim of ``(N, C, L)`` or ``(C, L)``.

    Example: ``nn.AvgPool1d(3, stride=2)(hookgrad.randn(1, 2, 7)).shape`` is ``(1, 2, 3)``.
    """

    def __init__(
        self,
        kernel_size: IntOrTuple,
        stride: IntOrTuple | None = None,
        padding: IntOrTuple = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class _AvgPoolDivisorNd(_AvgPoolNd):
    """The 2-d and 3-d average pools: arguments kept as given, ``divisor_override``."""

    _pool: Any = None

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
        return type(self)._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AvgPool2d(_AvgPoolDivisorNd):
    """The mean of each ``kernel_size`` window of ``(N, C, H, W)`` or ``(C, H, W)``.

    Example: ``nn.AvgPool2d(2)(hookgrad.randn(1, 3, 8, 8)).shape`` is ``(1, 3, 4, 4)``.
    """

    _pool = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolDivisorNd):
    """The mean of each ``kernel_size`` window of ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

    Example: ``nn.AvgPool3d(2)(hookgrad.randn(1, 3, 4, 4, 4)).shape`` is ``(1, 3, 2, 2, 2)``.
    """

    _pool = staticmethod(F.avg_pool3d)


# ---------------------------------------------------------------- adaptive pooling


class _AdaptiveAvgPoolNd(Module):
    """Average pooling to a fixed ``output_size`` whatever the input's size."""

    _pool: Any = None

    def __init__(self, output_size: OutputSize) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of the last dim to ``output_size`` windows.

    Example: ``nn.AdaptiveAvgPool1d(5)(hookgrad.randn(1, 64, 8)).shape`` is ``(1, 64, 5)``.
    """

    _pool = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed ``output_size`` whatever the input's size (``None`` in
    ``output_size`` keeps that dim).

    Example: ``nn.AdaptiveAvgPool2d(1)(hookgrad.randn(8, 64, 7, 7)).shape`` is
    ``(8, 64, 1, 1)``.
    """

    _pool = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of the last three dims to ``output_size`` (``None`` keeps a dim).

    Example: ``nn.AdaptiveAvgPool3d((1, None, 2))(hookgrad.randn(2, 3, 4, 5, 6)).shape`` is
    ``(2, 3, 1, 5, 2)``.
    """

    _pool = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    """Max pooling to a fixed ``output_size``; ``return_indices`` as in ``MaxPool2d``."""

    _pool: Any = None

    def __init__(self, output_size: OutputSize, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return type(self)._pool(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """The maximum of adaptive windows of the last dim, ``output_size`` of them.

    Example: ``nn.AdaptiveMaxPool1d(3)(hookgrad.randn(1, 64, 8)).shape`` is ``(1, 64, 3)``.
    """

    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """The maximum of adaptive windows of the last two dims, to ``output_size``.

    Example: ``nn.AdaptiveMaxPool2d((5, 7))(hookgrad.randn(1, 64, 8, 9)).shape`` is
    ``(1, 64, 5, 7)``.
    """

    _pool = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """The maximum of adaptive windows of the last three dims, to ``output_size``.

    Example: ``nn.AdaptiveMaxPool3d(2)(hookgrad.randn(1, 4, 5, 6, 7)).shape`` is
    ``(1, 4, 2, 2, 2)``.
    """

    _pool = staticmethod(F.adaptive_max_pool3d)


# ---------------------------------------------------------------- power-average pooling


class _LPPoolNd(Module):
    """Power-average pooling: ``(sum of x ** norm_type over a window) ** (1 / norm_type)``."""

    _pool: Any = None

    def __init__(
        self,
        norm_type: float,
        kernel_size: IntOrTuple,
        stride: IntOrTuple | None = None,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling along the last dim. Example: ``nn.LPPool1d(2, 3, stride=2)``
    is the L2 norm of each window of three."""

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over windows of the last two dims. Example:
    ``nn.LPPool2d(1.5, (3, 2))(hookgrad.rand(1, 16, 9, 8)).shape`` is ``(1, 16, 3, 4)``."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over windows of the last three dims. Example:
    ``nn.LPPool3d(2, 2)(hookgrad.rand(1, 2, 4, 4, 4)).shape`` is ``(1, 2, 2, 2, 2)``."""

    _pool = staticmethod(F.lp_pool3d)


# ---------------------------------------------------------------- fractional max pooling


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling: ``kernel_size`` windows at pseudo-random places, to
    ``output_size`` or ``output_ratio`` of the input. ``_random_samples`` (a buffer) fixes
    the places; otherwise each call draws them from ``hookgrad.rand``."""

    _dims = 2
    _pool: Any = None

    def __init__(
        self,
        kernel_size: IntOrTuple,
        output_size: IntOrTuple | None = None,
        output_ratio: float | Sequence[float] | None = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        n = self._dims
        name = type(self).__name__
        if n == 3 and any(k <= 0 for k in _ntuple(kernel_size, 1)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        return type(self)._pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling (Graham, 2014) of ``(N, C, H, W)`` or ``(C, H, W)``.

    Example: ``nn.FractionalMaxPool2d(3, output_ratio=0.5)(hookgrad.randn(1, 16, 50, 32))``
    has shape (1, 16, 25, 16).
    """

    _pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of ``(N, C, T, H, W)`` or ``(C, T, H, W)``.

    Example: ``nn.FractionalMaxPool3d(2, output_size=(3, 4, 5))(hookgrad.randn(1, 2, 6, 8,
    9))`` has shape (1, 2, 3, 4, 5).
    """

    _dims = 3
    _pool = staticmethod(F.fractional_max_pool3d)
