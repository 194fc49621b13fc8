"""torch's strides for NumPy arrays: NumPy's strides are bytes and torch's elements, and
the two libraries choose different strides for size-1 dims (NumPy gives an empty array
all-zero strides). View ops build their outputs with the strides torch's op gives, so
that ``stride()`` and ``view``'s rules see torch's values."""

from __future__ import annotations

import math

import numpy as np


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The strides (in elements) of a C-contiguous tensor of ``shape``, as torch
    computes them (a size-0 dim counts as 1). Example: ``(2, 0, 3)`` -> ``(3, 3, 1)``."""
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def torch_layout(a: np.ndarray) -> np.ndarray:
    """``a``, restrided to torch's contiguous strides when NumPy left an empty array with
    all-zero strides (as ``np.zeros((2, 0))`` does); otherwise ``a`` itself."""
    if a.size or not a.ndim or any(a.strides):
        return a
    return as_view(a, a.shape, contiguous_strides(a.shape))


def torch_strides(a: np.ndarray) -> tuple[int, ...]:
    """torch's ``stride()`` of ``a``: its strides in elements.

    Example: a float32 array of shape (2, 3) has NumPy strides (12, 4): torch's (3, 1).
    """
    item = a.itemsize
    return tuple(s // item for s in torch_layout(a).strides)


def as_view(
    a: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...], writeable: bool = True
) -> np.ndarray:
    """A view of ``a``'s memory (from its first element) with ``shape`` and ``strides``
    in elements; ``a`` itself when it has them already."""
    item = a.itemsize
    wanted = tuple(s * item for s in strides)
    if a.shape == shape and a.strides == wanted and (writeable or not a.flags.writeable):
        return a
    return np.lib.stride_tricks.as_strided(a, shape, wanted, writeable=writeable)


def compute_stride(
    old_shape: tuple[int, ...], old_strides: tuple[int, ...], new_shape: tuple[int, ...]
) -> tuple[int, ...] | None:
    """torch's ``computeStride``: the strides of a view of shape ``new_shape`` on memory of
    ``old_shape``/``old_strides``, or None when no view can have that shape.

    The old dims are cut into chunks that are contiguous among themselves; each chunk must
    be made of whole new dims. Example: a transposed (3, 4) tensor (strides (1, 3)) can be
    viewed as (3, 2, 2) (strides (1, 6, 3)) but not as (12,).
    """
    if not old_shape:
        return (1,) * len(new_shape)
    if math.prod(old_shape) == 0:
        if old_shape == new_shape:
            return old_strides
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        # The chunk ends here unless the dim before continues it in memory.
        if tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1
            and old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def reshaped(a: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """A view of ``a`` with ``shape`` and torch's ``strides``: NumPy's own reshape when it
    gives those strides (the fast, common case), else ``as_strided``."""
    try:
        out = a.reshape(shape, copy=False)
    except ValueError:
        out = a
    return as_view(out, shape, strides)
