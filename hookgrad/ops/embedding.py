"""The embedding lookups of ``nn.Embedding`` (rows of a weight matrix picked by indices)
and ``nn.EmbeddingBag`` (their sums, means or maxima over bags of indices).

Its backward (torch's ``embedding_dense_backward``, itself an op, whose node is
``EmbeddingDenseBackwardBackward0``) adds each output row's gradient into the row of the
weight it came from, skipping ``padding_idx`` and, with ``scale_grad_by_freq``, dividing
by how often each index occurs in the batch. Its own gradient picks those rows again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.not_implemented import NotImplementedBackward


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


# ---------------------------------------------------------------- embedding bag

# torch's ``mode`` ints of ``_embedding_bag``.
BAG_SUM, BAG_MEAN, BAG_MAX = 0, 1, 2


def _bags(indices: np.ndarray, offsets: np.ndarray, include_last_offset: bool) -> np.ndarray:
    """``offset2bag``: the bag of each index (bag ``b`` runs from ``offsets[b]`` to the
    next offset, the last one to the end of ``indices``)."""
    count = len(offsets) - 1 if include_last_offset else len(offsets)
    starts = offsets[:count].astype(np.int64)
    bag = np.zeros(indices.shape, np.int64)
    for b in range(1, count):
        bag[starts[b] :] = b
    return bag


class EmbeddingBag(Op):
    """torch's ``_embedding_bag``: per bag of ``indices`` (split by ``offsets``), the sum,
    mean or max of the rows of ``weight`` they pick (``per_sample_weights`` scale the
    rows for a sum); indices equal to ``padding_idx`` are left out.

    Outputs: the result, and (without history) ``offset2bag`` (each index's bag),
    ``bag_size`` (0 for a sum) and ``max_indices`` (the picked rows of a max, else a copy
    of ``bag_size``).
    """

    input_names = ("weight", "indices", "offsets", "per_sample_weights")
    non_differentiable = ("indices", "offsets")
    saves = (
        "indices",
        "offsets",
        "per_sample_weights",
        "weight",
        "result1",
        "result2",
        "result3",
    )
    saved_for = {"weight": ("per_sample_weights",)}
    saved_attributes = (
        "mode",
        "padding_idx",
        "scale_grad_by_freq",
        "sparse",
        "weight_sym_argsize_0",
    )
    output_names = ("result", "result1", "result2", "result3")
    differentiable_outputs = 1

    def __init__(
        self,
        scale_grad_by_freq: bool,
        mode: int,
        sparse: bool,
        include_last_offset: bool,
        padding_idx: int,
    ) -> None:
        self.scale_grad_by_freq = scale_grad_by_freq
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset
        self.padding_idx = padding_idx

    def forward(self, weight: Any, indices: Any, offsets: Any, per_sample_weights: Any) -> Any:
        self.weight_sym_argsize_0 = weight.shape[0]
        bags = _bags(indices, offsets, self.include_last_offset)
        count = len(offsets) - 1 if self.include_last_offset else len(offsets)
        kept = indices != self.padding_idx
        sizes = np.bincount(bags[kept], minlength=count).astype(offsets.dtype)
        out = np.zeros((count, weight.shape[1]), weight.dtype)
        if self.mode == BAG_MAX:
            max_indices = np.zeros((count, weight.shape[1]), offsets.dtype)
            for b in range(count):
                rows = indices[(bags == b) & kept]
                if rows.size:
                    picked = weight[rows]
                    position = np.argmax(picked, axis=0)
                    out[b] = picked[position, np.arange(weight.shape[1])]
                    max_indices[b] = rows[position]
            return out, bags.astype(offsets.dtype), sizes, max_indices
        rows = weight[indices[kept]]
        if per_sample_weights is not None:
            rows = rows * per_sample_weights[kept][:, None]
        np.add.at(out, bags[kept], rows)
        if self.mode == BAG_MEAN:
            out /= np.maximum(sizes, 1).astype(weight.dtype)[:, None]
        else:
            sizes = np.zeros_like(sizes)
        return out, bags.astype(offsets.dtype), sizes, sizes.copy()

    def backward(self, grad: Any) -> Any:
        indices, offsets, per_sample_weights, weight, bags, sizes, max_indices = self.unpack()
        needs = self.needs_input_grad
        grad_weight = grad_samples = None
        if needs[0]:
            op = EmbeddingBagBackward(
                self.weight_sym_argsize_0, self.scale_grad_by_freq, self.mode, self.padding_idx
            )
            grad_weight = grad._apply_op(
                op, indices, offsets, bags, sizes, max_indices, per_sample_weights
            )
        if needs[3]:
            op = EmbeddingBagPerSampleWeightsBackward(self.mode, self.padding_idx)
            grad_samples = grad._apply_op(op, weight, indices, offsets, bags)
        return grad_weight, None, None, grad_samples


def _bag_frequencies(indices: np.ndarray, num_weights: int) -> np.ndarray:
    """What torch's CPU kernel divides each row's gradient by with ``scale_grad_by_freq``.

    NOTE: torch's loop over the distinct indices (ascending) looks the count up at the
    sorted indices' position of the loop counter, not at the distinct index: the ``i``-th
    distinct index is divided by the count of ``sorted(indices)[i]``, which is its own
    count only while no earlier index repeats.
    """
    indices = indices.astype(np.int64)
    counts = np.bincount(indices, minlength=num_weights)
    distinct = np.unique(indices)
    divisors = np.ones(num_weights)
    divisors[distinct] = counts[np.sort(indices)[: distinct.size]]
    return divisors


class EmbeddingBagBackward(Op):
    """torch's ``_embedding_bag_backward``: each bag's gradient added into the rows its
    indices picked (divided by the bag's size for a mean, times the per-sample weight,
    divided by the index's count with ``scale_grad_by_freq``; a max's into the picked
    rows). torch has no derivative for it: its node raises when run."""

    input_names = (
        "grad",
        "indices",
        "offsets",
        "offset2bag",
        "bag_size",
        "maximum_indices",
        "per_sample_weights",
    )
    non_differentiable = ("indices", "offsets", "offset2bag", "bag_size", "maximum_indices")

    def __init__(
        self, num_weights: int, scale_grad_by_freq: bool, mode: int, padding_idx: int
    ) -> None:
        self.num_weights = num_weights
        self.scale_grad_by_freq = scale_grad_by_freq
        self.mode = mode
        self.padding_idx = padding_idx

    def forward(
        self,
        grad: Any,
        indices: Any,
        offsets: Any,
        bags: Any,
        sizes: Any,
        max_indices: Any,
        per_sample_weights: Any,
    ) -> Any:
        out = np.zeros((self.num_weights, grad.shape[1]), grad.dtype)
        if self.mode == BAG_MAX:
            for b in np.flatnonzero(sizes):
                np.add.at(out, (max_indices[b], np.arange(grad.shape[1])), grad[b])
            return out
        kept = indices != self.padding_idx
        rows = grad[bags[kept]]
        scale = np.ones(int(kept.sum()), grad.dtype)
        if self.mode == BAG_MEAN:
            scale = scale / sizes[bags[kept]].astype(grad.dtype)
        if per_sample_weights is not None:
            scale = scale * per_sample_weights[kept]
        if self.scale_grad_by_freq:
            scale = scale / _bag_frequencies(indices, self.num_weights)[indices[kept]]
        np.add.at(out, indices[kept], rows * scale[:, None])
        return out

    def backward(self, *grads: Any) -> Any:
        raise NotImplementedError(
            "the derivative for '_embedding_bag_backward' is not implemented."
        )


class EmbeddingBagPerSampleWeightsBackward(NotImplementedBackward):
    """torch's ``_embedding_bag_per_sample_weights_backward``: each sample's weight gets
    the dot product of its bag's gradient and its row (0 at ``padding_idx``)."""

    aten_name = "_embedding_bag_per_sample_weights_backward"
    input_names = ("grad", "weight", "indices", "offsets", "offset2bag")
    non_differentiable = ("indices", "offsets", "offset2bag")

    def __init__(self, mode: int, padding_idx: int) -> None:
        self.mode = mode
        self.padding_idx = padding_idx

    def forward(self, grad: Any, weight: Any, indices: Any, offsets: Any, bags: Any) -> Any:
        products = np.sum(grad[bags] * weight[indices], axis=1)
        return np.where(indices == self.padding_idx, 0, products).astype(grad.dtype)


class EmbeddingRenorm(Op):
    """``embedding_renorm_``'s write into ``self``: the rescaled rows ``values``, computed
    beforehand. torch has no derivative for it: its node raises ``NotImplementedError``."""

    input_names = ("self", "indices")
    non_differentiable = ("indices",)

    def __init__(self, values: Any) -> None:
        self.values = values

    def forward(self, weight: Any, indices: Any) -> Any:
        return self.values

    def backward(self, grad: Any) -> Any:
        raise NotImplementedError("the derivative for 'embedding_renorm' is not implemented.")
