"""nn.functional: resizing and rearranging images: ``interpolate`` (and the deprecated
``upsample*``), ``grid_sample`` and ``affine_grid``, ``pixel_shuffle`` /
``pixel_unshuffle``, ``channel_shuffle``, and ``unfold`` / ``fold`` (sliding blocks as
columns and back).

Each checks its arguments as torch does (torch's Python checks, then its kernels'), then
runs one op of ``hookgrad.ops.upsample``, ``vision`` or ``fold``. ``interpolate``'s
``area`` mode is an adaptive average pool, as in torch. This module also holds torch's
lower-level ``grid_sampler*``, ``affine_grid_generator`` and ``constant_pad_nd``, which
``hookgrad`` exports.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from hookgrad.nn.functional.adaptive_pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
)
from hookgrad.ops.fold import Col2Im, Im2Col, blocks
from hookgrad.ops.upsample import Upsample
from hookgrad.ops.util import wrap_dim
from hookgrad.ops.vision import (
    AffineGridGenerator,
    ChannelShuffle,
    GridSampler,
    PixelShuffle,
    PixelUnshuffle,
)
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.padding import pad as _pad
from hookgrad.tensor.ranges import linspace

__all__ = [
    "GRID_SAMPLE_INTERPOLATION_MODES",
    "GRID_SAMPLE_PADDING_MODES",
    "affine_grid",
    "channel_shuffle",
    "fold",
    "grid_sample",
    "interpolate",
    "native_channel_shuffle",
    "pixel_shuffle",
    "pixel_unshuffle",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

IntOrTuple = Union[int, Sequence[int]]
FloatOrTuple = Union[float, Sequence[float]]

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

# ---------------------------------------------------------------- interpolate

_SUPPORTED = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_MODE_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5, "lanczos": 4}


def interpolate(
    input: Any,
    size: IntOrTuple | None = None,
    scale_factor: FloatOrTuple | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Any:
    """Resize the spatial dims of ``input`` ``(N, C, *spatial)`` (1-3 of them) to ``size``
    or by ``scale_factor``.

    ``mode``: ``nearest`` (torch's, index ``floor(o * in / out)``), ``nearest-exact``
    (pixel centres), ``linear`` / ``bilinear`` / ``trilinear`` (for 1, 2, 3 spatial
    dims), ``bicubic`` (2), ``area`` (adaptive average pooling), or ``lanczos``.
    ``align_corners`` maps the corner pixels' centres onto each other (interpolating
    modes). ``recompute_scale_factor=True`` computes the size from ``scale_factor`` and
    then interpolates for that size. ``antialias`` (``bilinear``, ``bicubic`` or
    ``lanczos`` on 4-d inputs) low-pass filters when shrinking.

    Example::

        y = interpolate(hookgrad.randn(1, 3, 8, 8), scale_factor=2, mode="bilinear")
        y.shape   # (1, 3, 16, 16)
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scale_factors = _size_and_scales(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [
            math.floor(input.shape[i + 2] * scale_factors[i])  # type: ignore[index]
            for i in range(dim)
        ]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if mode == "area" and 3 <= input.dim() <= 5:
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1]
        return pool(input, output_size)
    if mode in ("nearest", "nearest-exact") and 3 <= input.dim() <= 5:
        return _upsample(input, mode, output_size, scale_factors, None, False)
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if _MODE_RANK.get(mode) == input.dim():
        return _upsample(input, mode, output_size, scale_factors, align_corners, antialias)
    if mode in _MODE_RANK and 3 <= input.dim() <= 5 and mode != "lanczos":
        needs = _MODE_RANK[mode]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {needs}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        f"modes: {_SUPPORTED} (got {mode})"
    )


def _size_and_scales(
    input: Any, size: IntOrTuple | None, scale_factor: FloatOrTuple | None, dim: int
) -> tuple[list[int] | None, list[float] | None]:
    """torch's processing of ``size`` and ``scale_factor``: exactly one, one per dim."""
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                    "size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            return [int(x) for x in size], None
        return [int(size)] * dim, None
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {spatial} and scale_factor of "
                    f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, "
                    "...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            return None, [float(s) for s in scale_factor]
        return None, [float(scale_factor)] * dim
    raise ValueError("either size or scale_factor should be defined")


def _is_integer(x: Any) -> bool:
    return isinstance(x, int) or (hasattr(x, "dtype") and not x.dtype.is_floating_point)


_AXES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _upsample(
    input: Any,
    mode: str,
    output_size: list[int] | None,
    scales: list[float] | None,
    align_corners: bool | None,
    antialias: bool,
) -> Any:
    """torch's ``upsample_*`` kernels' checks (``upsample::compute_output_size``,
    ``upsample_2d_common_check`` ...), then ``Upsample``."""
    nd = input.dim() - 2
    spatial = list(input.shape[2:])
    if output_size is None:
        output_size = [int(n * s) for n, s in zip(spatial, scales)]  # type: ignore[arg-type]
    if input.numel() == 0 and any(n == 0 for n in input.shape[1:]):
        raise RuntimeError(
            f"Non-empty {nd + 2}D data tensor expected but got a tensor with sizes "
            f"{list(input.shape)}"
        )
    if any(n <= 0 for n in spatial + output_size):
        axes = _AXES[nd]
        got_in = ", ".join(f"{a}: {n}" for a, n in zip(axes, spatial))
        got_out = ", ".join(f"{a}: {n}" for a, n in zip(axes, output_size))
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({got_in}) "
            f"output ({got_out})"
        )
    _check_upsample_dtype(input, mode, nd, antialias)
    scale_list = [None] * nd if scales is None else list(scales)
    op = Upsample(mode, tuple(output_size), scale_list, align_corners, antialias)
    return apply(op, input)


def _check_upsample_dtype(input: Any, mode: str, nd: int, antialias: bool) -> None:
    """torch's CPU kernels: floating types (not float16 when antialiasing) and, for
    nearest, bilinear and bicubic resampling, uint8; each refusal names its kernel."""
    dtype = input.dtype
    if dtype.is_floating_point and not (antialias and dtype == dtypes.float16):
        return
    if dtype == dtypes.uint8 and (nd == 2 or mode in ("nearest", "nearest-exact")):
        return
    if antialias:
        kernel = "compute_index_ranges_weights"
    elif mode in ("nearest", "nearest-exact"):
        kernel = (
            "upsample_nearest2d_channels_last" if nd == 2 else "compute_indices_weights_nearest"
        )
    elif mode == "bilinear":
        kernel = "upsample_bilinear2d_channels_last"
    elif mode == "bicubic":
        kernel = "compute_indices_weights_cubic"
    else:
        kernel = "compute_indices_weights_linear"
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.legacy_name(dtype)}'")


def upsample(
    input: Any,
    size: IntOrTuple | None = None,
    scale_factor: FloatOrTuple | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Any:
    """Deprecated: ``interpolate(input, size, scale_factor, mode, align_corners)``.

    Example: ``upsample(hookgrad.randn(1, 3, 4, 4), scale_factor=2).shape`` is
    ``(1, 3, 8, 8)``.
    """
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(
    input: Any, size: IntOrTuple | None = None, scale_factor: FloatOrTuple | None = None
) -> Any:
    """Deprecated: ``interpolate(input, size, scale_factor, mode="nearest")``.

    Example: ``upsample_nearest(hookgrad.randn(1, 3, 4, 4), scale_factor=2).shape`` is
    ``(1, 3, 8, 8)``.
    """
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(
    input: Any, size: IntOrTuple | None = None, scale_factor: FloatOrTuple | None = None
) -> Any:
    """Deprecated: ``interpolate(input, size, scale_factor, mode="bilinear",
    align_corners=True)``.

    Example: ``upsample_bilinear(hookgrad.randn(1, 3, 4, 4), size=7).shape`` is
    ``(1, 3, 7, 7)``.
    """
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------- grid sampling


def grid_sample(
    input: Any,
    grid: Any,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Any:
    """Sample ``input`` ``(N, C, H, W)`` (or ``(N, C, D, H, W)``) at the normalised
    positions ``grid`` ``(N, H_out, W_out, 2)`` (``(x, y)`` in ``[-1, 1]``; ``(x, y, z)`` for
    5-d inputs). ``mode``: ``bilinear``, ``nearest`` or ``bicubic`` (4-d only);
    ``padding_mode`` for positions outside: ``zeros``, ``border`` or ``reflection``.
    Differentiable in ``input`` and ``grid``.

    Example::

        theta = hookgrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])  # identity
        grid = affine_grid(theta, (1, 3, 8, 8), align_corners=False)
        grid_sample(image, grid, align_corners=False)                   # == image
    """
    if mode not in GRID_SAMPLE_INTERPOLATION_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details.",
            stacklevel=2,
        )
        align_corners = False
    return grid_sampler(
        input,
        grid,
        GRID_SAMPLE_INTERPOLATION_MODES[mode],
        GRID_SAMPLE_PADDING_MODES[padding_mode],
        align_corners,
    )


def grid_sampler(
    input: Any, grid: Any, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Any:
    """torch's ``grid_sampler``: ``grid_sample`` with its modes as numbers
    (interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border,
    2 reflection).

    Example: ``grid_sampler(image, grid, 0, 0, False)`` is
    ``grid_sample(image, grid, align_corners=False)``.
    """
    _check_grid_sampler(input, grid, interpolation_mode)
    op = GridSampler(interpolation_mode, padding_mode, align_corners)
    return apply(op, input, grid)


def grid_sampler_2d(
    input: Any, grid: Any, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Any:
    """torch's ``grid_sampler_2d``: ``grid_sampler`` of a 4-d input.

    Example: ``grid_sampler_2d(image, grid, 1, 1, True)`` samples the nearest pixels.
    """
    if input.dim() != 4 or grid.dim() != 4:
        raise RuntimeError(
            "grid_sampler(): expected 4D input and grid with same number of dimensions, but "
            f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(
    input: Any, grid: Any, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Any:
    """torch's ``grid_sampler_3d``: ``grid_sampler`` of a 5-d input.

    Example: ``grid_sampler_3d(volume, grid, 0, 0, False)`` samples trilinearly.
    """
    if input.dim() != 5 or grid.dim() != 5:
        raise RuntimeError(
            "grid_sampler(): expected 5D input and grid with same number of dimensions, but "
            f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def _check_grid_sampler(input: Any, grid: Any, interpolation_mode: int) -> None:
    """torch's ``check_grid_sampler_common`` and the 2-d / 3-d checks."""
    shape, grid_shape = list(input.shape), list(grid.shape)
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"expected scalar type {dtypes.legacy_name(input.dtype)} but found "
            f"{dtypes.legacy_name(grid.dtype)}"
        )
    if shape[0] != grid_shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {shape} and grid with sizes {grid_shape}"
        )
    if grid_shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, "
            f"but got grid with sizes {grid_shape}"
        )
    for dim in range(2, input.dim()):
        if shape[dim] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {shape} with dimension {dim} being empty"
            )
    if input.dim() == 5 and interpolation_mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        rank = 4 if input.dim() <= 4 else 5
        raise RuntimeError(
            f"grid_sampler(): expected {rank}D input and grid with same number of dimensions, "
            f"but got input with sizes {shape} and grid with sizes {grid_shape}"
        )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f'"grid_sampler_{input.dim() - 2}d_cpu_kernel_impl" not implemented for '
            f"'{dtypes.legacy_name(input.dtype)}'"
        )


def affine_grid(theta: Any, size: Sequence[int], align_corners: bool | None = None) -> Any:
    """The sampling grid ``(N, H, W, 2)`` (or ``(N, D, H, W, 3)``) of the affine maps
    ``theta`` ``(N, 2, 3)`` (or ``(N, 3, 4)``) for an output of ``size`` ``(N, C, H, W)``
    (or ``(N, C, D, H, W)``), for ``grid_sample``. Differentiable in ``theta``.

    Example::

        theta = hookgrad.tensor([[[0.5, 0.0, 0.0], [0.0, 0.5, 0.0]]])    # zoom in 2x
        zoomed = grid_sample(image, affine_grid(theta, image.shape, align_corners=False),
                             align_corners=False)
    """
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details.",
            stacklevel=2,
        )
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                f"{theta.shape}."
            )
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                f"{theta.shape}."
            )
        spatial = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, list(size), align_corners)


def affine_grid_generator(theta: Any, size: Sequence[int], align_corners: bool) -> Any:
    """torch's ``affine_grid_generator``: ``affine_grid`` without its Python checks.

    Example: ``affine_grid_generator(theta, [1, 3, 4, 5], False).shape`` is ``(1, 4, 5, 2)``.
    """
    size = tuple(int(n) for n in size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    n, spatial = size[0], size[2:]
    columns = theta.shape[wrap_dim(2, theta.ndim)]
    if theta.shape[0] != n or columns != len(spatial) + 1:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{n}, {len(spatial) + 1}] but got: [{theta.shape[0]}, {columns}]."
        )
    # One coordinate axis per spatial dim (x = width first), as torch's linspace computes.
    axes = []
    for steps in reversed(spatial):
        if steps <= 1:
            axes.append(np.zeros(1, theta._data.dtype))
            continue
        values = linspace(-1, 1, steps, dtype=theta.dtype)
        if not align_corners:
            values = values * (steps - 1) / steps
        axes.append(values.numpy())
    base = np.ones((n,) + spatial + (len(spatial) + 1,), theta._data.dtype)
    for k, values in enumerate(axes):
        shape = [1] * len(spatial)
        shape[len(spatial) - 1 - k] = len(values)
        base[..., k] = values.reshape(shape)
    return apply(AffineGridGenerator(base, size, align_corners), theta)


# ---------------------------------------------------------------- rearrangements


def pixel_shuffle(input: Any, upscale_factor: int) -> Any:
    """Rearrange ``(*, C * r * r, H, W)`` into ``(*, C, H * r, W * r)`` (``r =
    upscale_factor``): each group of ``r * r`` channels becomes ``r x r`` pixel blocks.

    Example: ``pixel_shuffle(hookgrad.randn(1, 9, 4, 4), 3).shape`` is ``(1, 1, 12, 12)``.
    """
    if input.dim() < 3:
        raise RuntimeError(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if upscale_factor <= 0:
        raise RuntimeError(
            f"pixel_shuffle expects a positive upscale_factor, but got {upscale_factor}"
        )
    channels, square = input.shape[-3], upscale_factor * upscale_factor
    if channels % square:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            f"of upscale_factor, but input.size(-3)={channels} is not divisible by {square}"
        )
    return apply(PixelShuffle(upscale_factor), input)


def pixel_unshuffle(input: Any, downscale_factor: int) -> Any:
    """Rearrange ``(*, C, H * r, W * r)`` into ``(*, C * r * r, H, W)`` (``r =
    downscale_factor``), the inverse of ``pixel_shuffle``.

    Example: ``pixel_unshuffle(hookgrad.randn(1, 1, 12, 12), 3).shape`` is ``(1, 9, 4, 4)``.
    """
    if input.dim() < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if downscale_factor <= 0:
        raise RuntimeError(
            f"pixel_unshuffle expects a positive downscale_factor, but got {downscale_factor}"
        )
    for label, dim in (("height", -2), ("width", -1)):
        if input.shape[dim] % downscale_factor:
            raise RuntimeError(
                f"pixel_unshuffle expects {label} to be divisible by downscale_factor, but "
                f"input.size({dim})={input.shape[dim]} is not divisible by {downscale_factor}"
            )
    return apply(PixelUnshuffle(downscale_factor), input)


def channel_shuffle(input: Any, groups: int) -> Any:
    """Split the channels of ``(N, C, *)`` into ``groups`` and interleave them: channel
    order ``(groups, C / groups)`` becomes ``(C / groups, groups)``.

    Example: ``channel_shuffle(x, 2)`` orders 4 channels 0, 2, 1, 3.
    """
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and "
            f"{groups} groups."
        )
    return apply(ChannelShuffle(groups), input)


def native_channel_shuffle(input: Any, groups: int) -> Any:
    """torch's kernel-level ``channel_shuffle`` (the same values; as in torch, its result
    has no gradient).

    Example: ``native_channel_shuffle(x, 2)`` orders 4 channels 0, 2, 1, 3.
    """
    return channel_shuffle(input.detach(), groups)


def constant_pad_nd(input: Any, pad: Sequence[int], value: float = 0) -> Any:
    """torch's ``constant_pad_nd``: ``F.pad(input, pad, "constant", value)`` (negative
    pads crop).

    Example: ``constant_pad_nd(hookgrad.ones(2), [1, 2])`` is ``[0., 1., 1., 0., 0.]``.
    """
    if not isinstance(pad, (tuple, list)):
        raise TypeError(
            "constant_pad_nd(): argument 'pad' (position 2) must be tuple of ints, not "
            f"{type(pad).__name__}"
        )
    for position, item in enumerate(pad):
        if isinstance(item, bool) or not hasattr(item, "__index__"):
            raise TypeError(
                "constant_pad_nd(): argument 'pad' (position 2) must be tuple of ints, but "
                f"found element of type {type(item).__name__} at pos {position}"
            )
    pad = [operator.index(item) for item in pad]
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pad)}while the input has {input.ndim}dimensions."
        )
    if isinstance(value, complex) and not input.dtype.is_complex:
        raise RuntimeError(
            f"value cannot be converted to type {dtypes.cpp_name(input.dtype)} without overflow"
        )
    return _pad(input, pad, "constant", value)


# ---------------------------------------------------------------- sliding blocks


def unfold(
    input: Any,
    kernel_size: IntOrTuple,
    dilation: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    stride: IntOrTuple = 1,
) -> Any:
    """Every sliding ``kernel_size`` block of ``input`` ``(N, C, H, W)`` (or ``(C, H, W)``)
    as a column: ``(N, C * kH * kW, L)``, ``L`` the number of blocks (torch's ``im2col``).

    Example: ``unfold(hookgrad.randn(1, 3, 5, 5), 2).shape`` is ``(1, 12, 16)``.
    """
    kernel, dil, pad, step = _block_args(kernel_size, dilation, padding, stride)
    shape = list(input.shape)
    if input.dim() < 3:
        input.size(2)  # torch's IndexError for too few dims
    if input.dim() > 4 or any(n == 0 for n in shape[input.dim() - 3 :]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {shape}"
        )
    size = tuple(shape[-2:])
    out = blocks(size, kernel, dil, pad, step)
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input with spatial size {size}, kernel_size={kernel}, dilation={dil}, "
            f"padding={pad}, calculated shape of the array of sliding blocks as {out}, but "
            "its components must be at least one."
        )
    return apply(Im2Col(kernel, dil, pad, step), input)


def fold(
    input: Any,
    output_size: IntOrTuple,
    kernel_size: IntOrTuple,
    dilation: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    stride: IntOrTuple = 1,
) -> Any:
    """Sum columns ``(N, C * kH * kW, L)`` (or ``(C * kH * kW, L)``) back into images
    ``(N, C, *output_size)``: the inverse arrangement of ``unfold`` (overlaps add up;
    torch's ``col2im``).

    Example: ``fold(unfold(x, 2), x.shape[-2:], 2)`` is ``x`` times how many blocks cover
    each pixel.
    """
    size = _pair(output_size, "output_size")
    kernel, dil, pad, step = _block_args(kernel_size, dilation, padding, stride)
    shape = list(input.shape)
    if input.dim() not in (2, 3) or any(n == 0 for n in shape[-2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {shape}"
        )
    columns = shape[-2]
    if columns % (kernel[0] * kernel[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={columns} and kernel_size={kernel}."
        )
    out = blocks(size, kernel, dil, pad, step)
    if any(o < 1 for o in out) or out[0] * out[1] != shape[-1]:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dil}, padding={pad}, "
            f"stride={step}, expected size of input's dimension 2 to match the calculated "
            f"number of sliding blocks {out[0]} * {out[1]} = {out[0] * out[1]}, but got "
            f"input.size(2)={shape[-1]}."
        )
    return apply(Col2Im(size, kernel, dil, pad, step), input)


def _pair(value: IntOrTuple, name: str) -> tuple[int, int]:
    """An int or two ints as a pair (torch's ``_pair``, then its length check)."""
    items = [value, value] if isinstance(value, int) else [int(v) for v in value]
    if len(items) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(items)}")
    return items[0], items[1]


def _block_args(
    kernel_size: IntOrTuple, dilation: IntOrTuple, padding: IntOrTuple, stride: IntOrTuple
) -> tuple[tuple[int, int], ...]:
    """The sliding-block arguments of ``im2col`` / ``col2im`` as pairs, with torch's
    checks."""
    kernel, dil, pad, step = (
        _pair(value, name)
        for value, name in (
            (kernel_size, "kernel_size"),
            (dilation, "dilation"),
            (padding, "padding"),
            (stride, "stride"),
        )
    )
    _check_blocks(kernel, dil, pad, step)
    return kernel, dil, pad, step


def _check_blocks(
    kernel: tuple[int, int],
    dilation: tuple[int, int],
    padding: tuple[int, int],
    stride: tuple[int, int],
) -> None:
    """torch's checks of the sliding-block arguments."""
    for label, prefix, values, bad in (
        ("kernel size should be greater than zero", "kernel", kernel, lambda v: v <= 0),
        ("stride should be greater than zero", "stride", stride, lambda v: v <= 0),
        ("dilation should be greater than zero", "dilation", dilation, lambda v: v <= 0),
        ("padding should be non-negative", "pad", padding, lambda v: v < 0),
    ):
        if any(bad(v) for v in values):
            raise RuntimeError(
                f"{label}, but got {prefix}_height: {values[0]} {prefix}_width: {values[1]}"
            )
