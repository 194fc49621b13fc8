"""nn modules: ``Conv1d``, ``Conv2d``, ``Conv3d`` and ``ConvTranspose1d/2d/3d``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Union

import hookgrad
from hookgrad.nn import functional as F
from hookgrad.nn import init
from hookgrad.nn.modules.module import Module
from hookgrad.nn.parameter import Parameter
from hookgrad.tensor import Tensor

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

IntOrTuple = Union[int, Sequence[int]]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value: IntOrTuple, n: int) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    return tuple(int(v) for v in value)


class _ConvNd(Module):
    """What every convolution layer shares: arguments, checks, parameters, repr."""

    _dims = 2
    transposed = False
    _conv: Any = None  # the functional form: F.conv1d / F.conv2d

    padding: Any  # an int tuple, or "same" / "valid"
    output_padding: Any

    def forward(self, input: Tensor) -> Tensor:
        padding = self.padding
        if self.padding_mode != "zeros":
            input, padding = self._padded(input), 0
        return type(self)._conv(
            input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups
        )

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntOrTuple,
        stride: IntOrTuple,
        padding: IntOrTuple | str,
        dilation: IntOrTuple,
        groups: int,
        bias: bool,
        padding_mode: str,
        output_padding: IntOrTuple = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}"
                )
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(hookgrad.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(hookgrad.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw the parameters as torch does: ``kaiming_uniform_(a=sqrt(5))`` for the
        weight, uniform on ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]`` for the bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _padded(self, input: Tensor) -> Tensor:
        """``input`` padded by ``padding_mode`` (for modes other than ``zeros``)."""
        padding = self.padding
        if isinstance(padding, str):
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            pairs = [(t // 2, t - t // 2) for t in total] if padding == "same" else []
        else:
            pairs = [(p, p) for p in padding]
        flat = [v for before, after in reversed(pairs) for v in (before, after)]
        return F.pad(input, flat, mode=self.padding_mode)

    def extra_repr(self) -> str:
        n = self._dims
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-d convolution over ``(N, C_in, L)`` (or ``(C_in, L)``) inputs.

    ``weight`` is ``(out_channels, in_channels / groups, kernel_size)``. Example::

        conv = nn.Conv1d(3, 16, 5, padding="same")
        conv(hookgrad.randn(8, 3, 50)).shape   # hookgrad.Size([8, 16, 50])
    """

    _dims = 1
    _conv = staticmethod(F.conv1d)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntOrTuple,
        stride: IntOrTuple = 1,
        padding: IntOrTuple | str = 0,
        dilation: IntOrTuple = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )


class Conv2d(_ConvNd):
    """2-d convolution over ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) inputs.

    ``weight`` is ``(out_channels, in_channels / groups, kH, kW)``, ``bias``
    ``(out_channels,)``; ``padding`` may be an int, a pair, ``"valid"`` or ``"same"``.
    Example::

        conv = nn.Conv2d(1, 32, 3)
        conv(hookgrad.randn(64, 1, 28, 28)).shape   # hookgrad.Size([64, 32, 26, 26])
    """

    _conv = staticmethod(F.conv2d)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntOrTuple,
        stride: IntOrTuple = 1,
        padding: IntOrTuple | str = 0,
        dilation: IntOrTuple = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )


class Conv3d(_ConvNd):
    """3-d convolution over ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``) inputs.

    ``weight`` is ``(out_channels, in_channels / groups, kD, kH, kW)``. Example::

        conv = nn.Conv3d(3, 8, 3, padding=1)
        conv(hookgrad.randn(2, 3, 6, 6, 6)).shape   # hookgrad.Size([2, 8, 6, 6, 6])
    """

    _dims = 3
    _conv = staticmethod(F.conv3d)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntOrTuple,
        stride: IntOrTuple = 1,
        padding: IntOrTuple | str = 0,
        dilation: IntOrTuple = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )


class _ConvTransposeNd(_ConvNd):
    """What the transposed convolutions share: ``output_size`` in ``forward`` picks among
    the sizes a strided layer can produce."""

    transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntOrTuple,
        stride: IntOrTuple = 1,
        padding: IntOrTuple = 0,
        output_padding: IntOrTuple = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: IntOrTuple = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            output_padding,
            device=device,
            dtype=dtype,
        )

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        return type(self)._conv(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
        )

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> Any:
        """``output_padding``, or the one that gives ``output_size`` (torch's checks)."""
        if output_size is None:
            return self.output_padding
        n = self._dims
        lead = 2 if input.dim() == n + 2 else 1
        wanted = list(output_size)
        if len(wanted) == lead + n:
            wanted = wanted[lead:]
        if len(wanted) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} "
                f"or {lead + n} elements (got {len(wanted)})"
            )
        smallest = [
            (size - 1) * s - 2 * p + d * (k - 1) + 1
            for size, s, p, d, k in zip(
                input.shape[lead:], self.stride, self.padding, self.dilation, self.kernel_size
            )
        ]
        largest = [low + s - 1 for low, s in zip(smallest, self.stride)]
        if any(not low <= size <= high for size, low, high in zip(wanted, smallest, largest)):
            raise ValueError(
                f"requested an output size of {wanted}, but valid sizes range from "
                f"{smallest} to {largest} (for an input of {input.shape[2:]})"
            )
        return tuple(size - low for size, low in zip(wanted, smallest))


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution (the gradient of ``Conv1d`` w.r.t. its input):
    ``weight`` is ``(in_channels, out_channels / groups, kernel_size)``.

    ``forward(input, output_size=None)``. Example::

        up = nn.ConvTranspose1d(4, 2, 3, stride=2)
        up(hookgrad.randn(1, 4, 5)).shape   # hookgrad.Size([1, 2, 11])
    """

    _dims = 1
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution (the gradient of ``Conv2d`` w.r.t. its input), e.g. to
    upsample: ``weight`` is ``(in_channels, out_channels / groups, kH, kW)``.

    ``forward(input, output_size=None)``: ``output_size`` picks among the sizes a strided
    layer can produce. Example::

        up = nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1)
        up(hookgrad.randn(1, 16, 10, 10)).shape   # hookgrad.Size([1, 8, 20, 20])
    """

    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution (the gradient of ``Conv3d`` w.r.t. its input):
    ``weight`` is ``(in_channels, out_channels / groups, kD, kH, kW)``.

    ``forward(input, output_size=None)``. Example::

        up = nn.ConvTranspose3d(4, 2, 2, stride=2)
        up(hookgrad.randn(1, 4, 3, 3, 3)).shape   # hookgrad.Size([1, 2, 6, 6, 6])
    """

    _dims = 3
    _conv = staticmethod(F.conv_transpose3d)
