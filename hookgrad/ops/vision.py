"""Vision ops: ``pixel_shuffle`` / ``pixel_unshuffle`` and ``channel_shuffle`` (each
one reshape and transpose, whose backward is the inverse rearrangement), the affine grid
generator and the grid sampler (``F.affine_grid``, ``F.grid_sample``).

The grid sampler reads, for each output point, a few input elements (its *taps*: 1 for
``nearest``, 2 per dim for ``bilinear``, 4 per dim for ``bicubic``) with weights that are
products of one 1-d weight per spatial dim. The sampling plan (``SamplingPlan``) keeps each
tap's flat position, whether it lies inside the input, and its per-dim weights with their
first and second derivatives with respect to the grid coordinate. Forward, backward
(``GridSampler2DBackward0``) and double backward (``GridSampler2DBackwardBackward0``) are
sums over the taps of the same plan.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops.base import Op
from hookgrad.ops.util import unrequested

# ---------------------------------------------------------------- rearrangements


def shuffle_pixels(x: np.ndarray, factor: int) -> np.ndarray:
    """``(*, C * r * r, H, W)`` -> ``(*, C, H * r, W * r)`` (``r = factor``)."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    k = len(lead)
    y = x.reshape(lead + (c // (factor * factor), factor, factor, h, w))
    y = y.transpose(tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return np.ascontiguousarray(y).reshape(lead + (c // (factor * factor), h * factor, w * factor))


def unshuffle_pixels(x: np.ndarray, factor: int) -> np.ndarray:
    """``(*, C, H * r, W * r)`` -> ``(*, C * r * r, H, W)`` (``r = factor``)."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    k = len(lead)
    y = x.reshape(lead + (c, h // factor, factor, w // factor, factor))
    y = y.transpose(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return np.ascontiguousarray(y).reshape(lead + (c * factor * factor, h // factor, w // factor))


class PixelShuffle(Op):
    """torch's ``pixel_shuffle``: channels ``C * r * r`` rearranged into ``r x r`` blocks
    of pixels. Its backward is ``pixel_unshuffle``."""

    input_names = ("self",)
    saved_attributes = ("upscale_factor",)

    def __init__(self, upscale_factor: int) -> None:
        self.upscale_factor = upscale_factor

    def forward(self, x: Any) -> Any:
        return shuffle_pixels(x, self.upscale_factor)

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(PixelUnshuffle(self.upscale_factor))


class PixelUnshuffle(Op):
    """torch's ``pixel_unshuffle``: ``r x r`` blocks of pixels rearranged into channels.
    Its backward is ``pixel_shuffle``."""

    input_names = ("self",)
    saved_attributes = ("downscale_factor",)

    def __init__(self, downscale_factor: int) -> None:
        self.downscale_factor = downscale_factor

    def forward(self, x: Any) -> Any:
        return unshuffle_pixels(x, self.downscale_factor)

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(PixelShuffle(self.downscale_factor))


class ChannelShuffle(Op):
    """torch's ``channel_shuffle``: channels ``(groups, C / groups)`` transposed to
    ``(C / groups, groups)``. Its backward shuffles back (with ``C / groups`` groups)."""

    input_names = ("self",)
    saved_attributes = ("groups",)

    def __init__(self, groups: int) -> None:
        self.groups = groups

    def forward(self, x: Any) -> Any:
        n, c = x.shape[0], x.shape[1]
        y = x.reshape((n, self.groups, c // self.groups) + x.shape[2:]).swapaxes(1, 2)
        return np.ascontiguousarray(y).reshape(x.shape)

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(ChannelShuffle(grad.shape[1] // self.groups))


# ---------------------------------------------------------------- affine grid


class AffineGridGenerator(Op):
    """torch's ``affine_grid_generator``: ``base_grid`` ``(N, *spatial, nd + 1)`` (the
    normalised coordinates of each output point, then a one) times ``theta^T``. Its
    backward is ``base_grid^T`` times the gradient, on tensors (torch's composite)."""

    input_names = ("theta",)
    saved_attributes = ("align_corners", "size")

    def __init__(self, base_grid: np.ndarray, size: tuple[int, ...], align_corners: bool) -> None:
        self.base_grid = base_grid
        self.size = size
        self.align_corners = align_corners

    def forward(self, theta: Any) -> Any:
        n, nd = theta.shape[0], theta.shape[1]
        base = self.base_grid.reshape(n, -1, nd + 1)
        out = np.matmul(base, theta.transpose(0, 2, 1))
        return out.reshape(self.base_grid.shape[:-1] + (nd,))

    def backward(self, grad: Any) -> Any:
        n, nd = grad.shape[0], grad.shape[-1]
        base = grad.new_tensor(self.base_grid).view(n, -1, nd + 1)
        return base.transpose(1, 2).bmm(grad.view(n, -1, nd)).transpose(1, 2)


# ---------------------------------------------------------------- grid sampling


def _unnormalize(coord: np.ndarray, size: int, align_corners: bool) -> tuple[Any, Any]:
    """torch's ``grid_sampler_unnormalize_set_grad``: ``[-1, 1]`` to pixel positions, and
    the derivative (a constant)."""
    t = coord.dtype.type
    if align_corners:
        return (coord + 1) / 2 * t(size - 1), t(size - 1) / 2
    return ((coord + 1) * t(size) - 1) / 2, t(size) / 2


def _clip(coord: np.ndarray, size: int) -> tuple[Any, Any]:
    """torch's ``clip_coordinates_set_grad`` (the borders count as outside)."""
    t = coord.dtype.type
    inside = (coord > 0) & (coord < t(size - 1))
    return np.clip(coord, t(0), t(size - 1)), inside.astype(coord.dtype)


def _reflect(coord: np.ndarray, twice_low: int, twice_high: int) -> tuple[Any, Any]:
    """torch's ``reflect_coordinates_set_grad``: reflected into ``[low, high]`` until it
    falls inside, and the sign of the derivative."""
    t = coord.dtype.type
    if twice_low == twice_high:
        return np.zeros_like(coord), np.zeros_like(coord)
    low, span = t(twice_low) / 2, t(twice_high - twice_low) / 2
    shifted = coord - low
    sign = np.where(shifted < 0, t(-1), t(1))
    shifted = np.abs(shifted)
    extra = np.fmod(shifted, span)
    flips = np.floor(shifted / span).astype(np.int64)
    even = flips % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _source_index(
    coord: np.ndarray, size: int, padding_mode: int, align_corners: bool
) -> tuple[Any, Any]:
    """torch's ``grid_sampler_compute_source_index_set_grad``: the pixel position of a
    grid coordinate after ``padding_mode`` (0 zeros, 1 border, 2 reflection), and its
    derivative."""
    coord, grad = _unnormalize(coord, size, align_corners)
    if padding_mode == 1:
        coord, clip_grad = _clip(coord, size)
        grad = grad * clip_grad
    elif padding_mode == 2:
        if align_corners:
            coord, reflect_grad = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord, reflect_grad = _reflect(coord, -1, 2 * size - 1)
        coord, clip_grad = _clip(coord, size)
        grad = grad * reflect_grad * clip_grad
    return coord, np.broadcast_to(grad, coord.shape)


def _cubic(t: np.ndarray, order: int) -> list[np.ndarray]:
    """The 4 cubic convolution weights (``A = -0.75``) at offset ``t``, or their first or
    second derivatives with respect to ``t``."""
    a = t.dtype.type(-0.75)

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        if order == 0:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if order == 1:
            return (3 * (a + 2) * x - 2 * (a + 3)) * x
        return 6 * (a + 2) * x - 2 * (a + 3)

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        if order == 0:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        if order == 1:
            return (3 * a * x - 10 * a) * x + 8 * a
        return 6 * a * x - 10 * a

    sign = -1 if order == 1 else 1  # d/dt of f(c - t) is -f'(c - t)
    return [far(t + 1), near(t), sign * near(1 - t), sign * far(2 - t)]


class _DimTaps:
    """The taps of one spatial dim: positions, inside-ness, weights and their first and
    second derivatives with respect to the grid coordinate, each ``(taps, N, P)``."""

    def __init__(
        self, coord: np.ndarray, size: int, mode: int, padding_mode: int, align_corners: bool
    ) -> None:
        t = coord.dtype.type
        if mode == 2:  # bicubic: padding applies to each tap's position
            source, scale = _unnormalize(coord, size, align_corners)
            start = np.floor(source)
            offset = source - start
            start = start.astype(np.int64)
            positions = [start + k for k in (-1, 0, 1, 2)]
            self.weight = np.stack(_cubic(offset, 0))
            self.first = np.stack(_cubic(offset, 1)) * scale
            self.second = np.stack(_cubic(offset, 2)) * (scale * scale)
            self.index = np.stack(
                [self._padded_tap(p, size, padding_mode, align_corners) for p in positions]
            )
        else:
            source, grad = _source_index(coord, size, padding_mode, align_corners)
            if mode == 1:  # nearest: round half to even, as nearbyint
                self.index = np.rint(source).astype(np.int64)[None]
                self.weight = np.ones_like(source)[None]
                self.first = np.zeros_like(source)[None]
            else:  # bilinear
                start = np.floor(source)
                offset = source - start
                start = start.astype(np.int64)
                self.index = np.stack([start, start + 1])
                self.weight = np.stack([t(1) - offset, offset])
                self.first = np.stack([-grad, grad])
            self.second = np.zeros_like(self.first)
        self.inside = (self.index >= 0) & (self.index < size)
        self.index = np.clip(self.index, 0, size - 1)

    @staticmethod
    def _padded_tap(position: np.ndarray, size: int, padding_mode: int, align_corners: bool) -> Any:
        """torch's ``compute_coordinates`` of a bicubic tap (border and reflection move it
        inside; zeros leaves it, and it then reads zero)."""
        if padding_mode == 0:
            return position
        coord = position.astype(np.float64)
        if padding_mode == 2:
            low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
            coord = _reflect(coord, low, high)[0]
        return np.clip(coord, 0, size - 1).astype(np.int64)


class SamplingPlan:
    """Every tap of a grid sampling: flat positions ``(N, P)`` in the input's spatial
    volume and per-dim weights, one entry per combination of the dims' taps."""

    def __init__(
        self,
        grid: np.ndarray,
        spatial: tuple[int, ...],
        mode: int,
        padding_mode: int,
        align_corners: bool,
    ) -> None:
        n, nd = grid.shape[0], grid.shape[-1]
        coords = grid.reshape(n, -1, nd)
        # The grid's last dim lists x (width) first: dim d of the input is grid[..., nd-1-d].
        self.dims = [
            _DimTaps(coords[..., nd - 1 - d], size, mode, padding_mode, align_corners)
            for d, size in enumerate(spatial)
        ]
        strides = [int(np.prod(spatial[d + 1 :])) for d in range(nd)]
        self.combos = list(itertools.product(*(range(len(d.index)) for d in self.dims)))
        self.flat = []
        self.inside = []
        for combo in self.combos:
            flat = sum(dim.index[k] * s for dim, k, s in zip(self.dims, combo, strides))
            inside = np.logical_and.reduce([dim.inside[k] for dim, k in zip(self.dims, combo)])
            self.flat.append(flat)
            self.inside.append(inside)

    def weight(self, j: int, orders: tuple[int, ...]) -> np.ndarray:
        """Tap combination ``j``'s weight ``(N, P)``, differentiated ``orders[d]`` times
        along dim ``d`` (0 to 2), zero outside the input."""
        out = None
        for dim, k, order in zip(self.dims, self.combos[j], orders):
            factor = (dim.weight, dim.first, dim.second)[order][k]
            out = factor if out is None else out * factor
        return np.where(self.inside[j], out, 0)

    def gather(
        self,
        values: np.ndarray,
        orders: tuple[int, ...] = (),
        weights: Sequence[np.ndarray] | None = None,
    ) -> np.ndarray:
        """``sum over taps of weight * values[tap]``: ``values`` ``(N, C, V)`` -> ``(N, C,
        P)``, with the weights differentiated ``orders`` (or ``weights``: ``(N, P)``
        factors in their place, one array per tap combination)."""
        out = np.zeros(values.shape[:2] + self.flat[0].shape[1:], values.dtype)
        for j, flat in enumerate(self.flat):
            picked = np.take_along_axis(values, flat[:, None, :], axis=2)
            weight = self.weight(j, orders) if weights is None else weights[j]
            out += np.where(self.inside[j][:, None, :], picked, 0) * weight[:, None, :]
        return out

    def scatter(
        self, values: np.ndarray, size: int, weights: Sequence[np.ndarray] | None = None
    ) -> Any:
        """The transpose of ``gather``: ``values`` ``(N, C, P)`` summed into ``(N, C,
        size)`` with the plain weights (or ``weights``, as in ``gather``)."""
        n, c, _ = values.shape
        base = (np.arange(n * c) * size).reshape(n, c, 1)
        total = np.zeros(n * c * size)
        for j, flat in enumerate(self.flat):
            weight = self.weight(j, (0,) * len(self.dims)) if weights is None else weights[j]
            contribution = values * weight[:, None, :]
            index = (flat[:, None, :] + base).reshape(-1)
            total += np.bincount(index, contribution.reshape(-1), n * c * size)
        return total.astype(values.dtype).reshape(n, c, size)

    def derivative_weights(self, coefficients: np.ndarray) -> list[np.ndarray]:
        """Per tap combination, ``sum_d coefficients[..., d] * dweight / dgrid_d``
        (``coefficients``: ``(N, P, nd)`` in the grid's (x, y, z) order)."""
        nd = len(self.dims)
        out = []
        for j in range(len(self.combos)):
            total = 0
            for d in range(nd):
                orders = tuple(1 if e == d else 0 for e in range(nd))
                total = total + coefficients[..., nd - 1 - d] * self.weight(j, orders)
            out.append(total)
        return out

    def grid_gradient(
        self, grad: np.ndarray, values: np.ndarray, extra: tuple[int, ...] = ()
    ) -> Any:
        """``(N, P, nd)``: for each grid coordinate, ``sum_c grad * sum_taps dweight/dgrid
        * values[tap]`` (``extra``: further differentiation orders added per dim)."""
        nd = len(self.dims)
        out = []
        for d in range(nd - 1, -1, -1):  # the grid's (x, y, z) order
            orders = tuple((1 if e == d else 0) + (extra[e] if extra else 0) for e in range(nd))
            out.append((grad * self.gather(values, orders)).sum(1))
        return np.stack(out, -1)


def _spatial(x: np.ndarray) -> tuple[tuple[int, ...], np.ndarray]:
    """``x`` ``(N, C, *spatial)``: its spatial size, and it as ``(N, C, volume)``."""
    return x.shape[2:], x.reshape(x.shape[:2] + (-1,))


class _GridSamplerParams(Op):
    """The arguments both grid sampler nodes show as ``_saved_<name>``."""

    def __init__(self, interpolation_mode: int, padding_mode: int, align_corners: bool) -> None:
        self.interpolation_mode = interpolation_mode
        self.padding_mode = padding_mode
        self.align_corners = align_corners

    def plan(self, grid: np.ndarray, spatial: tuple[int, ...]) -> SamplingPlan:
        return SamplingPlan(
            grid, spatial, self.interpolation_mode, self.padding_mode, self.align_corners
        )


class GridSampler(_GridSamplerParams):
    """torch's ``grid_sampler_2d`` / ``grid_sampler_3d``: ``input`` ``(N, C, *spatial)``
    read at the normalised coordinates ``grid`` ``(N, *out, nd)``."""

    node_name = "GridSampler2DBackward0"
    input_names = ("input", "grid")
    saves = ("grid", "input")
    saved_attributes = ("align_corners", "interpolation_mode", "padding_mode")

    def forward(self, x: Any, grid: Any) -> Any:
        nd = x.ndim - 2
        self.node_name = f"GridSampler{nd}DBackward0"
        spatial, flat = _spatial(x)
        out = self.plan(grid, spatial).gather(flat, (0,) * nd)
        return out.reshape(x.shape[:2] + grid.shape[1:-1])

    def backward(self, grad: Any) -> Any:
        grid, x = self.unpack()
        mask = self.needs_input_grad
        params = (self.interpolation_mode, self.padding_mode, self.align_corners)
        grads = grad._apply_op(GridSamplerBackward(*params, output_mask=mask), x, grid)
        return tuple([g if needed else None for g, needed in zip(grads, mask)])


class GridSamplerBackward(_GridSamplerParams):
    """torch's ``grid_sampler_2d_backward``: the gradients of the input (each output's
    gradient spread over its taps) and of the grid (the slope of the weights times the
    values read). Its own backward (the second derivatives) uses the same plan."""

    node_name = "GridSampler2DBackwardBackward0"
    input_names = ("grad_output", "input", "grid")
    saves = ("grad_output", "input", "grid")
    saved_attributes = ("align_corners", "interpolation_mode", "padding_mode")

    def __init__(self, *params: Any, output_mask: tuple[bool, ...]) -> None:
        super().__init__(*params)
        self.output_mask = output_mask

    def forward(self, grad: Any, x: Any, grid: Any) -> Any:
        nd = x.ndim - 2
        self.node_name = f"GridSampler{nd}DBackwardBackward0"
        spatial, flat = _spatial(x)
        plan = self.plan(grid, spatial)
        g = grad.reshape(grad.shape[:2] + (-1,))
        if self.output_mask[0]:
            grad_input = plan.scatter(g, flat.shape[2]).reshape(x.shape)
        else:
            grad_input = unrequested(x.shape, grad.dtype)
        if self.output_mask[1] and self.interpolation_mode != 1:
            grad_grid = plan.grid_gradient(g, flat).reshape(grid.shape)
        else:
            grad_grid = np.zeros(grid.shape, grid.dtype)
        return grad_input, grad_grid

    def backward(self, grad_grad_input: Any, grad_grad_grid: Any) -> Any:
        grad, x, grid = self.unpack()
        needs = self.needs_input_grad
        params = (self.interpolation_mode, self.padding_mode, self.align_corners)
        # NOTE: the second derivatives are computed without a graph of their own (a third
        # derivative of a grid sampling is not supported).
        with grad_mode.no_grad():
            grad_grad, grad_x, grad_grid = grad._apply_op(
                GridSamplerDoubleBackward(*params, needs=needs),
                x,
                grid,
                _or_zeros(grad_grad_input, x),
                _or_zeros(grad_grad_grid, grid),
            )
        # As torch: nearest sampling sends no gradient to the input at all.
        return grad_grad, None if self.interpolation_mode == 1 else grad_x, grad_grid


def _or_zeros(value: Any, like: Any) -> Any:
    return like.new_zeros(like.shape) if value is None else value


class GridSamplerDoubleBackward(_GridSamplerParams):
    """The second derivatives of a grid sampling: given the gradients of ``grad_input``
    and ``grad_grid``, those of ``grad_output``, ``input`` and ``grid`` (one pass over
    the plan)."""

    input_names = ("grad_output", "input", "grid", "grad_grad_input", "grad_grad_grid")

    def __init__(self, *params: Any, needs: tuple[bool, ...]) -> None:
        super().__init__(*params)
        self.needs = needs

    def forward(self, grad: Any, x: Any, grid: Any, gg_input: Any, gg_grid: Any) -> Any:
        nd = x.ndim - 2
        spatial, flat = _spatial(x)
        plan = self.plan(grid, spatial)
        g = grad.reshape(grad.shape[:2] + (-1,))
        gg_flat = gg_input.reshape(flat.shape)
        coefficients = gg_grid.reshape(grid.shape[0], -1, nd)
        smooth = self.interpolation_mode != 1
        outputs = []
        if self.needs[0]:
            result = plan.gather(gg_flat, (0,) * nd)
            if smooth:
                result += plan.gather(flat, weights=plan.derivative_weights(coefficients))
            outputs.append(result.reshape(grad.shape))
        else:
            outputs.append(np.zeros(grad.shape, grad.dtype))
        if self.needs[1] and smooth:
            weights = plan.derivative_weights(coefficients)
            outputs.append(plan.scatter(g, flat.shape[2], weights).reshape(x.shape))
        else:
            outputs.append(np.zeros(x.shape, x.dtype))
        if self.needs[2] and smooth:
            result = plan.grid_gradient(g, gg_flat)
            for d in range(nd):
                extra = tuple(1 if e == d else 0 for e in range(nd))
                column = coefficients[..., nd - 1 - d][..., None]
                result = result + column * plan.grid_gradient(g, flat, extra)
            outputs.append(result.reshape(grid.shape))
        else:
            outputs.append(np.zeros(grid.shape, grid.dtype))
        return tuple(outputs)
