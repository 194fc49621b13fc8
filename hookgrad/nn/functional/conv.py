"""nn.functional: convolutions (``conv1d``, ``conv2d``, ``conv_transpose2d``).

Each checks its arguments as torch does and runs one ``Convolution`` op
(``ConvolutionBackward0``); an unbatched input gets a batch dim of one around it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

from hookgrad.ops.conv import convolution
from hookgrad.tensor import dtypes
from hookgrad.tensor.functions.shape import pad as _pad

__all__ = ["conv1d", "conv2d", "conv_transpose2d"]

IntOrTuple = Union[int, Sequence[int]]


def conv1d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple | str = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Any:
    """1-d convolution of ``input`` ``(N, C_in, L)`` (or ``(C_in, L)``) with ``weight``
    ``(C_out, C_in / groups, K)``. ``padding`` may be an int, ``"valid"`` or ``"same"``.

    Example: ``conv1d(hookgrad.randn(8, 3, 50), hookgrad.randn(16, 3, 5), padding=2)``.
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple | str = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Any:
    """2-d convolution (cross-correlation, as torch) of ``input`` ``(N, C_in, H, W)`` (or
    ``(C_in, H, W)``) with ``weight`` ``(C_out, C_in / groups, kH, kW)`` and an optional
    ``bias`` ``(C_out,)``. ``padding`` may be an int, a pair, ``"valid"`` or ``"same"``.

    Example::

        y = conv2d(hookgrad.randn(64, 1, 28, 28), hookgrad.randn(32, 1, 3, 3))  # (64, 32, 26, 26)
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv_transpose2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Any:
    """2-d transposed convolution (the gradient of ``conv2d`` w.r.t. its input) of
    ``input`` ``(N, C_in, H, W)`` with ``weight`` ``(C_in, C_out / groups, kH, kW)``.

    Output size per dim: ``(H - 1) * stride - 2 * padding + dilation * (k - 1) + 1 +
    output_padding``. Example::

        y = conv_transpose2d(hookgrad.randn(1, 4, 5, 5), hookgrad.randn(4, 2, 3, 3), stride=2)
    """
    _check_dim(input, 2, "conv_transpose2d")
    unbatched = input.dim() == 3
    if unbatched:
        input = input.unsqueeze(0)
    stride_, padding_, dilation_ = (_tuple(v, 2) for v in (stride, padding, dilation))
    output_padding_ = _tuple(output_padding, 2)
    _check_common(input, weight, bias, stride_, padding_, groups, transposed=True)
    for op, s, d in zip(output_padding_, stride_, dilation_):
        if op >= s and op >= d:
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding={op}, stride={s} and dilation={d}"
            )
    out = convolution(
        input, weight, bias, stride_, padding_, dilation_, True, output_padding_, groups
    )
    return out.squeeze(0) if unbatched else out


def _conv(
    input: Any,
    weight: Any,
    bias: Any,
    stride: IntOrTuple,
    padding: IntOrTuple | str,
    dilation: IntOrTuple,
    groups: int,
    nd: int,
    name: str,
) -> Any:
    _check_dim(input, nd, name)
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride_, dilation_ = _tuple(stride, nd), _tuple(dilation, nd)
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            padding_: tuple[int, ...] = (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in stride_):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            total = [d * (k - 1) for d, k in zip(dilation_, kernel)]
            padding_ = tuple(t // 2 for t in total)
            extra = [t - 2 * (t // 2) for t in total]
            if any(extra):  # an even kernel: the extra zero goes after, as torch does
                input = _pad(input, [v for e in reversed(extra) for v in (0, e)])
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding_ = _tuple(padding, nd)
    _check_common(input, weight, bias, stride_, padding_, groups, transposed=False)
    padded = [s + 2 * p for s, p in zip(input.shape[2:], padding_)]
    effective = [d * (k - 1) + 1 for d, k in zip(dilation_, kernel)]
    if any(e > p for e, p in zip(effective, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, effective))}). Kernel size can't be greater "
            "than actual input size"
        )
    out = convolution(input, weight, bias, stride_, padding_, dilation_, False, (0,) * nd, groups)
    return out.squeeze(0) if unbatched else out


def _check_dim(input: Any, nd: int, name: str) -> None:
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {list(input.shape)}"
        )


def _check_common(
    input: Any,
    weight: Any,
    bias: Any,
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    groups: int,
    transposed: bool,
) -> None:
    """torch's checks shared by both kinds of convolution (input already batched)."""
    shape, wshape = list(input.shape), list(weight.shape)
    if weight.dim() != input.dim():
        raise RuntimeError(
            f"Expected {input.dim()}-dimensional weight for {input.dim()}-dimensional input "
            f"{shape}, but got {weight.dim()}-dimensional weight of size {wshape} instead"
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"expected scalar type {_type_name(input)} but found {_type_name(weight)}"
        )
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    channels = shape[1]
    if wshape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size {wshape} instead"
        )
    if transposed:
        if channels != wshape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {wshape}, expected input{shape} to have "
                f"{wshape[0]} channels, but got {channels} channels instead"
            )
        out_channels = wshape[1] * groups
    else:
        if channels != wshape[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {wshape}, expected input{shape} to "
                f"have {wshape[1] * groups} channels, but got {channels} channels instead"
            )
        out_channels = wshape[0]
    if bias is not None:
        if bias.dtype != input.dtype:
            raise RuntimeError(
                f"expected scalar type {_type_name(input)} but found {_type_name(bias)}"
            )
        if bias.dim() != 1 or bias.shape[0] != out_channels:
            raise RuntimeError(
                f"Given weight of size {wshape}, expected bias to be 1-dimensional with "
                f"{out_channels} elements, but got bias of size {list(bias.shape)} instead"
            )


def _type_name(tensor: Any) -> str:
    return dtypes.legacy_name(tensor.dtype)


def _tuple(value: IntOrTuple, n: int) -> tuple[int, ...]:
    """``value`` as an ``n``-tuple of ints (an int is repeated)."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    return value * n if len(value) == 1 else value
