"""Reductions: sum, mean, var/std, prod, max/min, logsumexp, norm.

``dims`` is always a sorted tuple of non-negative dims, or None for all of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.util import as_axis, reduced_shape


def _expand_back(
    grad: Any, shape: tuple[int, ...], dims: tuple[int, ...] | None, keepdim: bool
) -> Any:
    """Broadcast a reduced gradient back to the input's ``shape``."""
    if not keepdim:
        grad = grad.reshape(reduced_shape(shape, dims))
    return grad.expand(shape)


class Sum(Op):
    input_names = ("self",)

    def __init__(self, dims: tuple[int, ...] | None, keepdim: bool, np_dtype: Any = None):
        self.dims = dims
        self.keepdim = keepdim
        self.np_dtype = np_dtype

    def forward(self, a: Any) -> Any:
        self.shape = a.shape
        return np.sum(a, axis=as_axis(self.dims), keepdims=self.keepdim, dtype=self.np_dtype)

    def backward(self, grad: Any) -> Any:
        return _expand_back(grad, self.shape, self.dims, self.keepdim)


class Mean(Op):
    input_names = ("self",)

    def __init__(self, dims: tuple[int, ...] | None, keepdim: bool) -> None:
        self.dims = dims
        self.keepdim = keepdim

    def forward(self, a: Any) -> Any:
        self.shape = a.shape
        count = a.size if self.dims is None else int(np.prod([a.shape[d] for d in self.dims]))
        self.count = count
        return np.mean(a, axis=as_axis(self.dims), keepdims=self.keepdim)

    def backward(self, grad: Any) -> Any:
        return _expand_back(grad / self.count, self.shape, self.dims, self.keepdim)
