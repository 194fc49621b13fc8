"""Small helpers shared by the op families: dimension arithmetic, placeholder results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy as np

Dims = Union[int, Sequence[int], None]


def wrap_dim(dim: int, ndim: int) -> int:
    """``dim`` as a non-negative index, with torch's IndexError when out of range."""
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not low <= dim <= high:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
        )
    return dim + max(ndim, 1) if dim < 0 else dim


def wrap_dims(dims: Dims, ndim: int) -> tuple[int, ...] | None:
    """Normalise a dim argument (int, sequence or None meaning all) to sorted indices."""
    if dims is None:
        return None
    if isinstance(dims, int) or hasattr(dims, "__index__"):
        dims = (int(dims),)
    wrapped = [wrap_dim(int(d), ndim) for d in dims]
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return tuple(sorted(wrapped)) if ndim else ()


def reduced_shape(shape: Sequence[int], dims: Sequence[int] | None) -> tuple[int, ...]:
    """``shape`` with the reduced ``dims`` kept as size 1 (keepdim=True layout)."""
    if dims is None:
        return tuple(1 for _ in shape)
    return tuple(1 if i in dims else size for i, size in enumerate(shape))


def as_axis(dims: Sequence[int] | None) -> Any:
    """A NumPy ``axis`` argument for ``dims`` (None reduces everything)."""
    return None if dims is None else tuple(dims)


def unrequested(shape: Sequence[int], dtype: Any) -> np.ndarray:
    """Zeros (of no memory) in the place of an output a backward op was not asked to
    compute: a multi-output node keeps its outputs' positions, as torch's does."""
    return np.broadcast_to(np.zeros((), dtype), tuple(shape))
