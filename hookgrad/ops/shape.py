"""Shape and view ops: reshape, expand, transpose, permute, squeeze, cat, split ...

Views return NumPy views of their input, so they share memory as torch's views do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class Reshape(Op):
    """``view`` / ``reshape``: same elements, new shape."""

    node_name = "ViewBackward0"
    input_names = ("self",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, a: Any) -> Any:
        self.input_shape = a.shape
        return np.reshape(a, self.shape)

    def backward(self, grad: Any) -> Any:
        return grad.reshape(self.input_shape)


class Expand(Op):
    """Broadcast to a larger shape without copying; the gradient is summed back."""

    input_names = ("self",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, a: Any) -> Any:
        self.input_shape = a.shape
        return np.broadcast_to(a, self.shape)

    def backward(self, grad: Any) -> Any:
        return grad.sum_to_size(self.input_shape)
