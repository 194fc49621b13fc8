"""nn.functional: convolutions (``conv1d``, ``conv2d``, ``conv3d``,
``conv_transpose1d``, ``conv_transpose2d``, ``conv_transpose3d``, ``conv_tbc``) and
torch's ``convolution``.

``convolution`` (torch's, not ``nn.functional``'s) is exported by ``hookgrad`` only. Each
checks its arguments as torch does and runs one ``Convolution`` op
(``ConvolutionBackward0``) of any number of spatial dims; an unbatched input gets a batch
dim of one around it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

from hookgrad.ops.conv import ConvTbc
from hookgrad.ops.conv import convolution as _convolution
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.padding import pad as _pad

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
]

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


def conv3d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple | str = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Any:
    """3-d convolution of ``input`` ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``) with
    ``weight`` ``(C_out, C_in / groups, kD, kH, kW)`` and an optional ``bias``
    ``(C_out,)``. ``padding`` may be an int, a triple, ``"valid"`` or ``"same"``.

    Example: ``conv3d(hookgrad.randn(2, 3, 8, 8, 8), hookgrad.randn(4, 3, 3, 3, 3))`` has
    shape (2, 4, 6, 6, 6).
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Any:
    """1-d transposed convolution (the gradient of ``conv1d`` w.r.t. its input) of
    ``input`` ``(N, C_in, L)`` (or ``(C_in, L)``) with ``weight`` ``(C_in, C_out / groups,
    K)``; output length ``(L - 1) * stride - 2 * padding + dilation * (K - 1) + 1 +
    output_padding``.

    Example: ``conv_transpose1d(hookgrad.randn(1, 4, 5), hookgrad.randn(4, 2, 3), stride=2)``
    has shape (1, 2, 11).
    """
    args = (stride, padding, output_padding, groups, dilation)
    return _conv_transpose(input, weight, bias, *args, 1, "conv_transpose1d")


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
    args = (stride, padding, output_padding, groups, dilation)
    return _conv_transpose(input, weight, bias, *args, 2, "conv_transpose2d")


def conv_transpose3d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Any:
    """3-d transposed convolution (the gradient of ``conv3d`` w.r.t. its input) of
    ``input`` ``(N, C_in, D, H, W)`` with ``weight`` ``(C_in, C_out / groups, kD, kH, kW)``.

    Example: ``conv_transpose3d(hookgrad.randn(1, 4, 3, 3, 3), hookgrad.randn(4, 2, 2, 2, 2),
    stride=2)`` has shape (1, 2, 6, 6, 6).
    """
    args = (stride, padding, output_padding, groups, dilation)
    return _conv_transpose(input, weight, bias, *args, 3, "conv_transpose3d")


def convolution(
    input: Any,
    weight: Any,
    bias: Any,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> Any:
    """torch's ``convolution``: the (transposed, ``transposed=True``) convolution of a
    batched ``input`` ``(N, C, *spatial)`` with ``weight``, every argument given.

    Example: ``convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)`` is
    ``conv2d(x, w)``.
    """
    nd = weight.dim() - 2
    stride_, padding_, dilation_, output_padding_ = (
        _expand(value, nd, nd, name)
        for value, name in (
            (stride, "stride"),
            (padding, "padding"),
            (dilation, "dilation"),
            (output_padding, "output_padding"),
        )
    )
    _check_common(input, weight, bias, stride_, padding_, dilation_, groups, transposed)
    if transposed:
        _check_output_padding(output_padding_, stride_, dilation_)
        _check_transposed_size(input, weight, stride_, padding_, dilation_, output_padding_)
    else:
        _check_kernel_fits(input, weight, padding_, dilation_)
    return _convolution(
        input, weight, bias, stride_, padding_, dilation_, transposed, output_padding_, groups
    )


def conv_tbc(input: Any, weight: Any, bias: Any, pad: int = 0) -> Any:
    """1-d convolution over a time-batch-channel input ``(T, B, C_in)`` with ``weight``
    ``(K, C_in, C_out)`` and ``bias`` ``(C_out,)``, ``pad`` zeros on each side of time.

    Example: ``conv_tbc(hookgrad.randn(5, 2, 3), hookgrad.randn(3, 3, 4), hookgrad.zeros(4))``
    has shape (3, 2, 4).
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    return apply(ConvTbc(int(pad)), input, weight, bias)


# ---------------------------------------------------------------- shared checks


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
    wd = weight.dim() - 2
    stride_ = _expand(stride, nd, wd, "stride")
    dilation_ = _expand(dilation, nd, wd, "dilation")
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            padding_: tuple[int, ...] = (0,) * wd
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
        padding_ = _expand(padding, nd, wd, "padding")
    _check_common(input, weight, bias, stride_, padding_, dilation_, groups, transposed=False)
    _check_kernel_fits(input, weight, padding_, dilation_)
    out = _convolution(input, weight, bias, stride_, padding_, dilation_, False, (0,) * nd, groups)
    return out.squeeze(0) if unbatched else out


def _conv_transpose(
    input: Any,
    weight: Any,
    bias: Any,
    stride: IntOrTuple,
    padding: IntOrTuple,
    output_padding: IntOrTuple,
    groups: int,
    dilation: IntOrTuple,
    nd: int,
    name: str,
) -> Any:
    _check_dim(input, nd, name)
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    wd = weight.dim() - 2
    stride_, padding_, dilation_, output_padding_ = (
        _expand(value, nd, wd, label)
        for value, label in (
            (stride, "stride"),
            (padding, "padding"),
            (dilation, "dilation"),
            (output_padding, "output_padding"),
        )
    )
    _check_common(input, weight, bias, stride_, padding_, dilation_, groups, transposed=True)
    _check_output_padding(output_padding_, stride_, dilation_)
    _check_transposed_size(input, weight, stride_, padding_, dilation_, output_padding_)
    out = _convolution(
        input, weight, bias, stride_, padding_, dilation_, True, output_padding_, groups
    )
    return out.squeeze(0) if unbatched else out


def _check_dim(input: Any, nd: int, name: str) -> None:
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {list(input.shape)}"
        )


_AXES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _check_output_padding(
    output_padding: tuple[int, ...], stride: tuple[int, ...], dilation: tuple[int, ...]
) -> None:
    """torch's check (a 1-d transposed convolution runs as a 2-d one of height one)."""
    if all(op < s or op < d for op, s, d in zip(output_padding, stride, dilation)):
        return
    if len(stride) == 1:
        output_padding, stride, dilation = (0,) + output_padding, (1,) + stride, (1,) + dilation
    axes = _AXES[len(stride)]
    parts = [
        f"{label}_{axis}: {value}"
        for label, values in (
            ("output_padding", output_padding),
            ("stride", stride),
            ("dilation", dilation),
        )
        for axis, value in zip(axes, values)
    ]
    raise RuntimeError(
        "output padding must be smaller than either stride or dilation, but got " + " ".join(parts)
    )


def _check_transposed_size(
    input: Any,
    weight: Any,
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    output_padding: tuple[int, ...],
) -> None:
    size = tuple(input.shape[2:])
    out = [
        (n - 1) * s - 2 * p + d * (k - 1) + 1 + op
        for n, s, p, d, k, op in zip(
            size, stride, padding, dilation, weight.shape[2:], output_padding
        )
    ]
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, size))}). Calculated output "
            f"size per channel: ({' x '.join(map(str, out))}). Output size is too small"
        )


def _check_kernel_fits(
    input: Any, weight: Any, padding: tuple[int, ...], dilation: tuple[int, ...]
) -> None:
    padded = [s + 2 * p for s, p in zip(input.shape[2:], padding)]
    effective = [d * (k - 1) + 1 for d, k in zip(dilation, weight.shape[2:])]
    if any(e > p for e, p in zip(effective, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, effective))}). Kernel size can't be greater "
            "than actual input size"
        )


def _check_common(
    input: Any,
    weight: Any,
    bias: Any,
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
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
    if any(d <= 0 for d in dilation):
        if transposed:
            axes = _AXES[len(dilation)] if len(dilation) > 1 else ("height", "width")
            values = dilation if len(dilation) > 1 else (1,) + dilation
            got = ", ".join(f"dilation_{a}: {v}" for a, v in zip(axes, values))
        else:
            got = str(list(dilation))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")
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


def _expand(value: IntOrTuple, nd: int, n: int, name: str) -> tuple[int, ...]:
    """``value`` as an ``n``-tuple of ints (``n``: the weight's spatial dims) with torch's
    error for another length: an int stands for ``nd`` values (the function's dims), a
    1-list for ``n``."""
    values = (value,) * nd if isinstance(value, int) else tuple(int(v) for v in value)
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match "
            f"the convolution dimensions, but got {name}={list(values)}"
        )
    return values
