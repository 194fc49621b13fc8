"""Upsampling ops (``F.interpolate``): nearest, nearest-exact, (bi/tri)linear and bicubic
resampling of the last 1-3 dims, and the antialiased bilinear, bicubic and Lanczos filters.

Every mode is separable: along each spatial dim, output ``o`` is a weighted sum of a few
input positions (its *taps*). The taps are computed as torch's CPU kernels compute them,
in the input's precision (``float32`` arithmetic for ``float32`` inputs, and torch's
``floorf``), so that every output takes its values from the same input elements. The
forward applies the taps one dim at a time (a NaN or inf spreads only to the outputs that
read it); the backward applies their transpose, one matrix per dim. As in torch, the
backward is an op (``UpsampleBilinear2DBackwardBackward0`` ...) whose own gradient is the
forward again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.ops.base import Op

# Each mode's torch op (node) name, by the number of spatial dims.
_NAMES = {
    "nearest": "UpsampleNearest{nd}D",
    "nearest-exact": "UpsampleNearestExact{nd}D",
    "linear": "UpsampleLinear1D",
    "bilinear": "UpsampleBilinear2D",
    "trilinear": "UpsampleTrilinear3D",
    "bicubic": "UpsampleBicubic2D",
}
_ANTIALIASED = {"bilinear": 2, "bicubic": 4, "lanczos": 6}  # filter support, in taps


def _scale_names(nd: int) -> tuple[str, ...]:
    """torch's names of the scale arguments: ``scales``, ``scales_h`` ..."""
    return ("scales",) if nd == 1 else ("scales_d", "scales_h", "scales_w")[3 - nd :]


# ---------------------------------------------------------------- taps


def _scale(
    dtype: Any, size: int, out: int, align_corners: bool, scale: float | None
) -> np.floating:
    """torch's ``area_pixel_compute_scale``: input positions per output position."""
    if align_corners:
        return dtype.type(size - 1) / dtype.type(out - 1) if out > 1 else dtype.type(0)
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(size) / dtype.type(out)


def _source(
    dtype: Any, scale: np.floating, out: int, align_corners: bool, cubic: bool
) -> np.ndarray:
    """torch's ``area_pixel_compute_source_index`` for every output position."""
    position = np.arange(out).astype(dtype)
    if align_corners:
        return scale * position
    source = scale * (position + dtype.type(0.5)) - dtype.type(0.5)
    return source if cubic else np.maximum(source, dtype.type(0))


def _floorf(values: np.ndarray) -> np.ndarray:
    """C's ``floorf`` (through float32, as torch's kernels call it) as int64."""
    return np.floor(values.astype(np.float32)).astype(np.int64)


def _cubic_weights(t: np.ndarray, a: float) -> np.ndarray:
    """torch's ``get_cubic_upsample_coefficients``: the 4 weights at offset ``t``."""
    a = t.dtype.type(a)
    one = t.dtype.type(1)

    def near(x: np.ndarray) -> np.ndarray:  # cubic_convolution1, |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + one

    def far(x: np.ndarray) -> np.ndarray:  # cubic_convolution2, 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return np.stack([far(t + one), near(t), near(one - t), far(one - t + one)], axis=-1)


def _filter(kind: str, x: np.ndarray) -> np.ndarray:
    """The antialiasing filters of torch's ``_upsample_*_aa`` kernels."""
    x = np.abs(x)
    if kind == "bilinear":
        return np.maximum(x.dtype.type(1) - x, x.dtype.type(0))
    if kind == "bicubic":
        a = x.dtype.type(-0.5)
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return np.where(x < 1, near, np.where(x < 2, far, x.dtype.type(0)))
    with np.errstate(invalid="ignore", divide="ignore"):
        pix = np.pi * x
        sinc = np.where(x == 0, 1.0, np.sin(pix) / pix)
        sinc3 = np.where(x == 0, 1.0, np.sin(pix / 3) / (pix / 3))
    return np.where(x < 3, sinc * sinc3, 0.0).astype(x.dtype)


def taps(
    mode: str,
    size: int,
    out: int,
    scale: float | None,
    align_corners: bool,
    antialias: bool,
    dtype: Any,
    exact_cases: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """``(index, weight)``, each ``(out, K)``: output ``o`` of a dim of ``size`` resampled
    to ``out`` is ``sum_k weight[o, k] * input[index[o, k]]`` (``exact_cases``: torch's 2-d
    nearest kernel, which copies sizes 1x and 2x whatever the scale factor)."""
    dtype = np.dtype(dtype)
    ratio = _scale(dtype, size, out, align_corners, scale)
    if mode in ("nearest", "nearest-exact"):
        if mode == "nearest" and exact_cases and out in (size, 2 * size):
            # torch's 2-d kernel's exact cases, whatever the scale: a copy, or each row twice.
            index = np.arange(out) // (out // size)
        else:
            factor = _scale(dtype, size, out, False, scale)
            position = np.arange(out).astype(dtype)
            if mode == "nearest-exact":
                position = position + dtype.type(0.5)
            index = np.minimum(_floorf(position * factor), size - 1)
        return index[:, None], np.ones((out, 1), dtype)
    if antialias:
        return _antialiased(mode, size, out, ratio, dtype)
    if mode == "bicubic":
        source = _source(dtype, ratio, out, align_corners, cubic=True)
        start = _floorf(source)
        weight = _cubic_weights(source - start.astype(dtype), -0.75)
        index = np.clip(start[:, None] - 1 + np.arange(4), 0, size - 1)
        return index, weight.astype(dtype)
    # (bi/tri)linear
    if out == size:
        return np.stack([np.arange(out)] * 2, -1), np.tile(np.array([1, 0], dtype), (out, 1))
    source = _source(dtype, ratio, out, align_corners, cubic=False)
    low = np.minimum(_floorf(source), size - 1)
    high_weight = np.clip(source - low.astype(dtype), 0, 1).astype(dtype)
    index = np.stack([low, low + (low < size - 1)], -1)
    return index, np.stack([dtype.type(1) - high_weight, high_weight], -1)


def _antialiased(
    mode: str, size: int, out: int, scale: np.floating, dtype: np.dtype
) -> tuple[np.ndarray, np.ndarray]:
    """torch's ``_compute_index_ranges_weights`` (antialiasing): a filter stretched by the
    scale when downsampling, its weights normalised to sum to one."""
    support_taps = _ANTIALIASED[mode]
    downsampling = scale >= 1.0
    support = dtype.type(support_taps * 0.5) * (scale if downsampling else dtype.type(1))
    inverse = dtype.type(1.0) / scale if downsampling else dtype.type(1.0)
    width = int(np.ceil(np.float32(support))) * 2 + 1
    center = scale * (np.arange(out).astype(dtype) + dtype.type(0.5))
    low = np.maximum((center - support + dtype.type(0.5)).astype(np.int64), 0)
    count = np.minimum((center + support + dtype.type(0.5)).astype(np.int64), size) - low
    count = np.clip(count, 0, width)
    k = np.arange(width)
    weight = _filter(mode, ((k + low[:, None]).astype(dtype) - center[:, None] + 0.5) * inverse)
    weight = np.where(k < count[:, None], weight, 0).astype(dtype)
    total = weight.sum(-1, keepdims=True)
    weight = np.where(total != 0, weight / np.where(total != 0, total, 1), weight)
    index = np.minimum(low[:, None] + k, size - 1)
    return index, weight.astype(dtype)


def tap_matrix(index: np.ndarray, weight: np.ndarray, size: int) -> np.ndarray:
    """The taps as a dense ``(out, size)`` matrix (repeated indices add up)."""
    matrix = np.zeros((index.shape[0], size), weight.dtype)
    rows = np.broadcast_to(np.arange(index.shape[0])[:, None], index.shape)
    np.add.at(matrix, (rows, index), weight)
    return matrix


def _apply_taps(x: np.ndarray, axis: int, index: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``x`` resampled along ``axis`` by the taps (a NaN reaches only the outputs that
    read it)."""
    shape = [1] * x.ndim
    shape[axis] = index.shape[0]
    if index.shape[1] == 1 and bool((weight == 1).all()):  # nearest: a copy
        return np.take(x, index[:, 0], axis=axis)
    out = None
    for k in range(index.shape[1]):
        term = np.take(x, index[:, k], axis=axis) * weight[:, k].reshape(shape)
        out = term if out is None else out + term
    return out


# ---------------------------------------------------------------- the ops


class _UpsampleParams(Op):
    """The arguments both upsampling nodes show as ``_saved_<name>``."""

    def __init__(
        self,
        mode: str,
        output_size: tuple[int, ...],
        scales: Sequence[float | None],
        align_corners: bool | None,
        antialias: bool,
    ) -> None:
        nd = len(output_size)
        self.mode = mode
        self.nd = nd
        self.output_size = output_size
        # NOTE: not ``self.scales``: that is the 1-d op's saved attribute (one float).
        self.scale_values = tuple(scales)
        self.align_corners = align_corners
        self.antialias = antialias
        base = f"Upsample{mode.title()}2DAa" if antialias else _NAMES[mode].format(nd=nd)
        self.base_name = base
        names = ["output_size", *_scale_names(nd)]
        if mode not in ("nearest", "nearest-exact"):
            names.append("align_corners")
        self.parameter_names = tuple(sorted(names))
        for name, value in zip(_scale_names(nd), self.scale_values):
            setattr(self, name, value)

    def dim_taps(self, input_size: Sequence[int], dtype: Any) -> list[tuple[Any, Any]]:
        return [
            taps(self.mode, n, o, s, bool(self.align_corners), self.antialias, dtype, self.nd == 2)
            for n, o, s in zip(input_size, self.output_size, self.scale_values)
        ]


class Upsample(_UpsampleParams):
    """Resampling of the last 1-3 dims of ``self`` to ``output_size`` by ``mode`` (torch's
    ``upsample_nearest2d``, ``upsample_bilinear2d``, ``_upsample_bicubic2d_aa`` ...)."""

    input_names = ("self",)

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.node_name = f"{self.base_name}Backward0"
        self.saved_attributes = tuple(sorted((*self.parameter_names, "self_sym_sizes")))

    def forward(self, x: Any) -> Any:
        self.self_sym_sizes = x.shape
        size = x.shape[x.ndim - self.nd :]
        if x.dtype.kind == "u":
            return self._forward_uint8(x, size)
        # float16 is computed in float32, as torch's kernels compute it.
        work = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
        self.taps = self.dim_taps(size, work)
        out = x.astype(work, copy=False)
        for d, (index, weight) in enumerate(self.taps):
            out = _apply_taps(out, x.ndim - self.nd + d, index, weight)
        return np.array(out, dtype=x.dtype, order="C")

    def _forward_uint8(self, x: np.ndarray, size: Sequence[int]) -> np.ndarray:
        """uint8 images, as torch's separable kernels: one dim at a time from the last,
        each pass rounded half up and clamped to 0-255."""
        # NOTE: torch's uint8 weights are fixed-point: a few outputs differ by 1 or 2.
        nearest = self.mode in ("nearest", "nearest-exact")
        self.taps = self.dim_taps(size, np.float32 if nearest else np.float64)
        out = x
        for d in reversed(range(self.nd)):
            index, weight = self.taps[d]
            out = _apply_taps(out.astype(np.float64), x.ndim - self.nd + d, index, weight)
            out = np.clip(np.floor(out + 0.5), 0, 255).astype(x.dtype)
        return np.ascontiguousarray(out)

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(UpsampleBackward(self))


class UpsampleBackward(_UpsampleParams):
    """torch's ``upsample_bilinear2d_backward`` ...: the transpose of the resampling (each
    output's gradient sent back to its taps). Its gradient resamples again."""

    input_names = ("grad_output",)

    def __init__(self, upsample: Upsample) -> None:
        super().__init__(
            upsample.mode,
            upsample.output_size,
            upsample.scale_values,
            upsample.align_corners,
            upsample.antialias,
        )
        self.node_name = f"{self.base_name}BackwardBackward0"
        self.saved_attributes = self.parameter_names
        self.input_size = tuple(upsample.self_sym_sizes[len(upsample.self_sym_sizes) - self.nd :])
        self.taps = upsample.taps
        if self.mode in ("nearest", "nearest-exact"):
            # NOTE: torch's nearest backward picks its positions on its own, in float32 and
            # with the 1x / 2x exact cases in every rank: for a 1-d or 3-d input grown to
            # twice its size by another scale factor it is not the forward's transpose.
            self.taps = [
                taps(self.mode, n, o, s, False, False, np.float32, exact_cases=True)
                for n, o, s in zip(self.input_size, self.output_size, self.scale_values)
            ]

    def forward(self, grad: Any) -> Any:
        out = grad
        for d, ((index, weight), size) in enumerate(zip(self.taps, self.input_size)):
            matrix = tap_matrix(index, weight.astype(grad.dtype), size)
            axis = grad.ndim - self.nd + d
            out = np.moveaxis(np.tensordot(out, matrix, axes=(axis, 0)), -1, axis)
        return np.ascontiguousarray(out)

    def backward(self, grad: Any) -> Any:
        if self.mode == "lanczos":
            raise RuntimeError(
                "derivative for aten::_upsample_lanczos2d_aa_backward is not implemented"
            )
        op = Upsample(
            self.mode, self.output_size, self.scale_values, self.align_corners, self.antialias
        )
        return grad._apply_op(op)
