"""Per-example gradients of ``Embedding`` and ``EmbeddingBag``: each example's output
gradient added into the rows it looked up (none into ``padding_idx``). An
``EmbeddingBag``'s examples are its bags: the rows of a 2-D input, or the runs that
``offsets`` cut a 1-D input into."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.utils.per_sample.call import Call, flat_rows
from hookgrad.utils.per_sample.linear import require_batch

__all__ = ["embedding", "embedding_bag"]


def _refuse_frequency_scaling(module: Any) -> None:
    if module.scale_grad_by_freq:
        raise ValueError(
            f"per-sample gradients are undefined for {type(module).__name__} with "
            "scale_grad_by_freq=True: each row's gradient is divided by how often the whole "
            "batch uses it, which mixes the examples. Use scale_grad_by_freq=False."
        )


def _padding_row(module: Any) -> int:
    padding = module.padding_idx
    if padding is None:
        return -1
    return padding + module.num_embeddings if padding < 0 else padding


def embedding(module: Any, call: Call) -> dict[str, Any]:
    """``weight[input]``: each example's gradient rows added at its indices."""
    _refuse_frequency_scaling(module)
    indices, grad = call.input(0), call.grad(0)
    require_batch(module, indices, 1)
    n = indices.shape[0]
    rows = flat_rows(indices, 1)
    flat_grad = grad.reshape(rows.shape + (grad.shape[-1],))
    example = np.broadcast_to(np.arange(n)[:, None], rows.shape)
    kept = rows != _padding_row(module)
    result = np.zeros((n,) + tuple(module.weight.shape), grad.dtype)
    np.add.at(result, (example[kept], rows[kept]), flat_grad[kept])
    return {"weight": result}


def embedding_bag(module: Any, call: Call) -> dict[str, Any]:
    """Sums, means or maxima of bags of rows: each bag's gradient added into the rows it
    summed (scaled by ``per_sample_weights``, or by one over the bag's size for a mean),
    or, for a max, into the row that gave each feature's maximum."""
    _refuse_frequency_scaling(module)
    indices = call.argument(0, "input")._data
    offsets = call.argument(1, "offsets")
    weights = call.argument(2, "per_sample_weights")
    grad = call.grads[0]
    if grad is None:
        grad = np.zeros_like(call.outputs[0]._data)
    bags = grad.shape[0]
    flat = indices.reshape(-1)
    if indices.ndim == 2:
        bag = np.repeat(np.arange(bags), indices.shape[1])
    else:
        starts = offsets._data.astype(np.int64)[:bags]
        bag = np.maximum(np.searchsorted(starts, np.arange(flat.size), side="right") - 1, 0)
    kept = flat != _padding_row(module)
    result = np.zeros((bags,) + tuple(module.weight.shape), grad.dtype)
    if module.mode == "max":
        table = module.weight._data
        columns = np.arange(table.shape[1])
        for b in range(bags):
            rows = flat[(bag == b) & kept]
            if rows.size:
                result[b, rows[np.argmax(table[rows], axis=0)], columns] += grad[b]
        return {"weight": result}
    scale = np.ones(flat.size, grad.dtype)
    if weights is not None:
        scale = weights._data.reshape(-1).astype(grad.dtype)
    if module.mode == "mean":
        sizes = np.bincount(bag[kept], minlength=bags)
        scale = scale / np.maximum(sizes, 1)[bag].astype(grad.dtype)
    np.add.at(result, (bag[kept], flat[kept]), grad[bag[kept]] * scale[kept, None])
    return {"weight": result}
