"""Per-example gradients of ``Linear`` and ``Bilinear``: the weight's are outer products
of each position's output gradient and input (kept :class:`Factored`), the bias's the
output gradient summed over positions."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.utils.per_sample.call import Call, Factored

__all__ = ["bilinear", "linear", "require_batch"]


def require_batch(module: Any, array: np.ndarray, batched_ndim: int) -> None:
    """Refuse an input without a batch dimension (fewer than ``batched_ndim`` dims)."""
    if array.ndim < batched_ndim:
        raise ValueError(
            f"per-sample gradients need a batch dimension: {type(module).__name__} got an "
            f"input of shape {list(array.shape)}"
        )


def _positions(array: np.ndarray) -> np.ndarray:
    """``(batch, *, features)`` as ``(batch, 1, positions, features)`` (a view if it can)."""
    positions = int(np.prod(array.shape[1:-1]))
    return array.reshape(array.shape[0], 1, positions, array.shape[-1])


def linear(module: Any, call: Call) -> dict[str, Any]:
    """``y = x W^T + b`` over inputs ``(batch, *, in_features)``."""
    x, grad = call.input(0), call.grad(0)
    require_batch(module, x, 2)
    result: dict[str, Any] = {
        "weight": Factored(_positions(x), _positions(grad), module.weight.shape)
    }
    if module.bias is not None:
        result["bias"] = _positions(grad)[:, 0].sum(axis=1)
    return result


def bilinear(module: Any, call: Call) -> dict[str, Any]:
    """``y_k = x1^T W_k x2 + b_k``: a linear layer on the outer product ``x1 x2^T``."""
    x1, x2, grad = call.input(0), call.input(1), call.grad(0)
    require_batch(module, x1, 2)
    features = (x1[..., :, None] * x2[..., None, :]).reshape(
        x1.shape[:-1] + (x1.shape[-1] * x2.shape[-1],)
    )
    result: dict[str, Any] = {
        "weight": Factored(_positions(features), _positions(grad), module.weight.shape)
    }
    if module.bias is not None:
        result["bias"] = _positions(grad)[:, 0].sum(axis=1)
    return result
