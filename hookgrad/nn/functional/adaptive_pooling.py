"""nn.functional: pooling to a given output size: adaptive average and max pooling over
1-3 spatial dims (``adaptive_avg_pool2d`` ...) and fractional max pooling (windows at
pseudo-random places drawn from ``hookgrad.rand``, torch's stream), with torch's node
names, checks and errors.

Example: ``adaptive_avg_pool2d(hookgrad.randn(1, 3, 7, 9), (2, 3))`` has shape
(1, 3, 2, 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookgrad.nn.functional.pooling_args import (
    IntOrTuple,
    OutputSize,
    check_dim_range,
    check_dtype,
    one_each,
    repeat,
    window_sizes,
)
from hookgrad.ops.pooling import (
    AdaptiveAvgPool,
    AdaptiveMaxPool,
    FractionalMaxPool,
)
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.random import rand

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]


# ---------------------------------------------------------------- adaptive pooling


def adaptive_avg_pool1d(input: Any, output_size: IntOrTuple) -> Any:
    """Average pooling of the last dim of ``input`` ``(N, C, L)`` or ``(C, L)`` to
    ``output_size`` windows (window ``i`` covers ``[floor(i * L / out), ceil((i + 1) * L /
    out))``).

    Example: ``adaptive_avg_pool1d(hookgrad.tensor([[1., 3., 2., 0.]]), 1)`` is ``[[1.5]]``.
    """
    check_dim_range(input, 2, 3, "adaptive_avg_pool1d")
    (size,) = one_each("adaptive_avg_pool1d", output_size=output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_avg_pool2d(input: Any, output_size: OutputSize) -> Any:
    """Average pooling of ``input`` ``(N, C, H, W)`` or ``(C, H, W)`` to ``output_size``
    (``None`` keeps that dim): window ``i`` of a dim covers
    ``[floor(i * H / out), ceil((i + 1) * H / out))``.

    Example: ``adaptive_avg_pool2d(hookgrad.randn(8, 64, 7, 7), 1)`` has shape (8, 64, 1, 1).
    """
    return _adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input: Any, output_size: OutputSize) -> Any:
    """Average pooling of ``input`` ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to
    ``output_size`` (``None`` keeps that dim), with adaptive windows as in 2-d.

    Example: ``adaptive_avg_pool3d(hookgrad.randn(2, 8, 5, 6, 7), 2)`` has shape
    (2, 8, 2, 2, 2).
    """
    return _adaptive_avg_pool(input, output_size, 3)


def _adaptive_avg_pool(input: Any, output_size: OutputSize, nd: int) -> Any:
    name = f"adaptive_avg_pool{nd}d"
    out = _output_size(input, output_size, nd)
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must be {nd}")
    if any(o < 0 for o in out):
        # torch's spacing, as it prints it.
        received = f"{out[0]}, {out[1]}" + (f",{out[2]}" if nd == 3 else "")
        raise RuntimeError(
            f"{name}: elements of output_size must be greater than or equal to 0 but "
            f"received {{{received}}}"
        )
    if all(o == 1 for o in out):
        # torch's shortcut: a mean over the pooled dims.
        return input.mean(tuple(range(-1, -nd - 1, -1)), keepdim=True)
    _check_adaptive_input(input, nd, name, got_colon=False, spatial_only=nd == 2)
    check_dtype(input, name if nd == 2 else f"{name}_cpu", integers=False)
    return apply(AdaptiveAvgPool(out), input)


def adaptive_max_pool1d(input: Any, output_size: IntOrTuple, return_indices: bool = False) -> Any:
    """The maximum of adaptive windows of the last dim of ``input`` ``(N, C, L)`` or
    ``(C, L)``; with ``return_indices`` also each maximum's position along ``L``.

    Example: ``adaptive_max_pool1d(hookgrad.tensor([[1., 3., 2., 0.]]), 2)`` is
    ``[[3., 2.]]``.
    """
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(
    input: Any, output_size: IntOrTuple, return_indices: bool = False
) -> tuple[Any, Any]:
    """``adaptive_max_pool1d`` and the position of each maximum (int64), always.

    Example: ``adaptive_max_pool1d_with_indices(hookgrad.tensor([[1., 3., 2., 0.]]), 2)[1]``
    is ``[[1, 2]]``.
    """
    check_dim_range(input, 2, 3, "adaptive_max_pool1d")
    (size,) = one_each("adaptive_max_pool1d", output_size=output_size)
    out, indices = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, size))
    return out.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool2d(input: Any, output_size: OutputSize, return_indices: bool = False) -> Any:
    """The maximum of adaptive windows of ``input`` ``(N, C, H, W)`` or ``(C, H, W)`` to
    ``output_size`` (``None`` keeps that dim); with ``return_indices`` also each
    maximum's flat index in its plane.

    Example: ``adaptive_max_pool2d(hookgrad.randn(8, 64, 7, 7), (2, 3))`` has shape
    (8, 64, 2, 3).
    """
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(
    input: Any, output_size: OutputSize, return_indices: bool = False
) -> tuple[Any, Any]:
    """``adaptive_max_pool2d`` and each maximum's flat index in its plane, always.

    Example: ``adaptive_max_pool2d_with_indices(hookgrad.randn(1, 4, 4), 1)[1].shape`` is
    ``(1, 1, 1)``.
    """
    return _adaptive_max_pool(input, output_size, 2)


def adaptive_max_pool3d(input: Any, output_size: OutputSize, return_indices: bool = False) -> Any:
    """The maximum of adaptive windows of ``input`` ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; with ``return_indices`` also each maximum's flat index in its volume.

    Example: ``adaptive_max_pool3d(hookgrad.randn(2, 3, 5, 6, 7), 2)`` has shape
    (2, 3, 2, 2, 2).
    """
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(
    input: Any, output_size: OutputSize, return_indices: bool = False
) -> tuple[Any, Any]:
    """``adaptive_max_pool3d`` and each maximum's flat index in its volume, always.

    Example: ``adaptive_max_pool3d_with_indices(hookgrad.randn(1, 2, 2, 2), 1)[1]`` has
    shape (1, 1, 1, 1).
    """
    return _adaptive_max_pool(input, output_size, 3)


def _adaptive_max_pool(input: Any, output_size: OutputSize, nd: int) -> tuple[Any, Any]:
    name = f"adaptive_max_pool{nd}d"
    out = _output_size(input, output_size, nd)
    _check_adaptive_input(input, nd, name, got_colon=True)
    if len(out) != nd:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
    for size in out:
        if size < 0:
            shape = list(input.shape[: input.dim() - nd]) + list(out)
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {shape}")
    check_dtype(input, name if nd == 2 else f"{name}_cpu", integers=False)
    return apply(AdaptiveMaxPool(out), input)


def _check_adaptive_input(
    input: Any, nd: int, name: str, got_colon: bool, spatial_only: bool = False
) -> None:
    """torch's checks of an adaptive pool's input: its rank, and no empty dim but the batch
    (2-d average pooling: no empty spatial dim)."""
    shape = list(input.shape)
    if input.dim() not in (nd + 1, nd + 2):
        got = "got: " if got_colon else "got "
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but {got}{shape}")
    for dim in range(input.dim() - nd if spatial_only else 1, input.dim()):
        if shape[dim] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {shape} with dimension {dim} being empty"
            )


def _output_size(input: Any, output_size: OutputSize, nd: int) -> tuple[int, ...]:
    """torch's ``_list_with_default``: an int for every dim, ``None`` keeping the input's."""
    if isinstance(output_size, int):
        return (output_size,) * nd
    sizes = list(output_size)
    if input.dim() <= len(sizes):
        raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
    defaults = list(input.shape)[-len(sizes) :]
    return tuple(d if v is None else int(v) for v, d in zip(sizes, defaults))


# ---------------------------------------------------------------- fractional max pooling


def fractional_max_pool2d(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    """Fractional max pooling of ``input`` ``(N, C, H, W)`` or ``(C, H, W)``: windows of
    ``kernel_size`` at pseudo-random places, to ``output_size`` (or ``output_ratio`` of
    the input's size). The places come from ``hookgrad.rand`` (torch's stream) unless
    ``_random_samples`` ``(N, C, 2)`` gives them.

    Example: ``fractional_max_pool2d(hookgrad.randn(1, 3, 9, 9), 2, output_size=5)`` has
    shape (1, 3, 5, 5).
    """
    out = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return out if return_indices else out[0]


def fractional_max_pool2d_with_indices(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> tuple[Any, Any]:
    """``fractional_max_pool2d`` and each maximum's flat index in its plane, always.

    Example: ``fractional_max_pool2d_with_indices(x, 2, output_ratio=0.5)[1]`` are int64.
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool3d(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    """Fractional max pooling of ``input`` ``(N, C, D, H, W)`` or ``(C, D, H, W)``, as
    ``fractional_max_pool2d`` (``_random_samples``: ``(N, C, 3)``).

    Example: ``fractional_max_pool3d(hookgrad.randn(1, 2, 7, 7, 7), 2, output_size=4)`` has
    shape (1, 2, 4, 4, 4).
    """
    out = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None = None,
    output_ratio: float | Sequence[float] | None = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> tuple[Any, Any]:
    """``fractional_max_pool3d`` and each maximum's flat index in its volume, always.

    Example: ``fractional_max_pool3d_with_indices(x, 2, output_ratio=0.5)[1]`` are int64.
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def _fractional_max_pool(
    input: Any,
    kernel_size: IntOrTuple,
    output_size: IntOrTuple | None,
    output_ratio: float | Sequence[float] | None,
    samples: Any,
    nd: int,
) -> tuple[Any, Any]:
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        # As torch: the 2-d ``len`` of the ratio (so a bare float fails as it does there);
        # the 3-d one takes a number for every dim.
        if nd == 2 and len(output_ratio) > nd:  # type: ignore[arg-type]
            raise ValueError(
                f"{name} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratios = repeat(output_ratio, nd)  # type: ignore[arg-type]
        sizes = input.shape[input.dim() - nd :]
        output_size = [int(n * r) for n, r in zip(sizes, ratios)]
    if samples is None:
        batch = 1 if input.dim() == nd + 1 else input.size(0)
        samples = rand(batch, input.size(-nd - 1), nd, dtype=input.dtype)
    single = "must either be a single Int or tuple of Ints"
    kernel = window_sizes(kernel_size, nd, f"{name}: kernel_size {single}", suffix=False)
    out = window_sizes(output_size, nd, f"{name}: output_size {single}", suffix=False)
    _check_fractional(input, kernel, out, nd, name)
    return apply(FractionalMaxPool(kernel, out, samples._data), input)


def _check_fractional(
    input: Any, kernel: tuple[int, ...], out: tuple[int, ...], nd: int, name: str
) -> None:
    """torch's checks (its 3-d kernel's name, its dims in the order T, W, H, and a pool
    that reaches the input's end refused in 3-d only)."""
    shape = list(input.shape)
    where = name if nd == 2 else f"{name}_out"
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for dim in range(1, input.dim()):
        if shape[dim] == 0:
            raise RuntimeError(
                f"{where}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but got{shape} with dimension {dim} being empty."
            )
    labels = ("height", "width") if nd == 2 else ("time", "height", "width")
    checks = list(zip(labels, out, kernel, shape[-nd:]))
    if nd == 3:
        checks = [checks[0], checks[2], checks[1]]
    for label, o, k, n in checks:
        if o + k - 1 > n or (nd == 3 and o + k - 1 == n):
            raise RuntimeError(
                f"{where}(): pool {label} {k} too large relative to input {label} {n}"
            )
