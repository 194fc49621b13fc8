"""The embedding lookup of ``nn.Embedding``: rows of a weight matrix picked by indices.

Its backward (torch's ``embedding_dense_backward``, itself an op, whose node is
``EmbeddingDenseBackwardBackward0``) adds each output row's gradient into the row of the
weight it came from, skipping ``padding_idx`` and, with ``scale_grad_by_freq``, dividing
by how often each index occurs in the batch. Its own gradient picks those rows again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class Embedding(Op):
    """``weight[indices]`` for an integer ``indices`` tensor of any shape."""

    input_names = ("weight", "indices")
    non_differentiable = ("indices",)
    saves = ("indices",)
    saved_attributes = ("padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0")

    def __init__(self, padding_idx: int, scale_grad_by_freq: bool, sparse: bool) -> None:
        self.padding_idx = padding_idx
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse

    def forward(self, weight: Any, indices: Any) -> Any:
        rows = weight.shape[0]
        if indices.size and (indices.min() < 0 or indices.max() >= rows):
            raise IndexError("index out of range in self")
        self.weight_sym_argsize_0 = rows
        return np.take(weight, indices, axis=0)

    def backward(self, grad: Any) -> Any:
        (indices,) = self.unpack()
        op = EmbeddingDenseBackward(
            self.weight_sym_argsize_0, self.padding_idx, self.scale_grad_by_freq
        )
        return grad._apply_op(op, indices), None


class EmbeddingDenseBackward(Op):
    """torch's ``embedding_dense_backward``: the rows of ``grad_output`` added into a
    ``(num_weights, dim)`` matrix at ``indices``."""

    input_names = ("grad_output", "indices")
    non_differentiable = ("indices",)
    saves = ("indices",)
    saved_attributes = ("padding_idx",)

    def __init__(self, num_weights: int, padding_idx: int, scale_grad_by_freq: bool) -> None:
        self.num_weights = num_weights
        self.padding_idx = padding_idx
        self.scale_grad_by_freq = scale_grad_by_freq

    def _row_scale(self, flat: np.ndarray) -> np.ndarray | None:
        """Per index, what its row's gradient is divided by (None: nothing)."""
        if not self.scale_grad_by_freq:
            return None
        return np.bincount(flat, minlength=self.num_weights)[flat][:, None]

    def forward(self, grad: Any, indices: Any) -> Any:
        flat = indices.reshape(-1)
        rows = grad.reshape(flat.size, grad.shape[-1])
        if self.padding_idx >= 0:
            rows = np.where((flat == self.padding_idx)[:, None], 0, rows)
        scale = self._row_scale(flat)
        if scale is not None:
            rows = rows / scale.astype(rows.dtype)
        out = np.zeros((self.num_weights, rows.shape[1]), grad.dtype)
        np.add.at(out, flat, rows)
        return out

    def backward(self, grad: Any) -> Any:
        # torch's ``embedding_dense_double_backward``: the rows picked again. NOTE: torch
        # leaves out the ``scale_grad_by_freq`` division here (its gradgradcheck fails);
        # hookgrad divides, as the derivative of the forward above does.
        (indices,) = self.unpack()
        picked = grad.index_select(0, indices.reshape(-1))
        if self.padding_idx >= 0:
            picked = picked.masked_fill((indices == self.padding_idx).reshape(-1, 1), 0)
        scale = self._row_scale(indices._data.reshape(-1))
        if scale is not None:
            picked = picked / grad.new_tensor(scale)
        return picked.view(tuple(indices.shape) + (-1,)), None
