"""The embedding lookup of ``nn.Embedding``: rows of a weight matrix picked by indices.

Its backward adds each output row's gradient into the row of the weight it came from
(``index_add``), skipping ``padding_idx`` and, with ``scale_grad_by_freq``, dividing by how
often each index occurs in the batch.
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

    def __init__(self, padding_idx: int, scale_grad_by_freq: bool, sparse: bool) -> None:
        self.padding_idx = padding_idx
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        self.weight_sym_argsize_0 = 0
        self.frequency: Any = None

    def forward(self, weight: Any, indices: Any) -> Any:
        rows = weight.shape[0]
        if indices.size and (indices.min() < 0 or indices.max() >= rows):
            raise IndexError("index out of range in self")
        self.weight_sym_argsize_0 = rows
        if self.scale_grad_by_freq:
            flat = indices.reshape(-1)
            self.frequency = np.bincount(flat, minlength=rows)[flat].astype(weight.dtype)
        return np.take(weight, indices, axis=0)

    def backward(self, grad: Any) -> Any:
        (indices,) = self.unpack()
        rows = self.weight_sym_argsize_0
        flat_indices = indices.reshape(-1)
        flat_grad = grad.reshape(-1, grad.shape[-1])
        if self.padding_idx >= 0:
            flat_grad = flat_grad.masked_fill((flat_indices == self.padding_idx).unsqueeze(1), 0)
        if self.frequency is not None:
            flat_grad = flat_grad / flat_grad.new_tensor(self.frequency).unsqueeze(1)
        return grad.new_zeros((rows, grad.shape[-1])).index_add(0, flat_indices, flat_grad), None
