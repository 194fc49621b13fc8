"""Per-example gradients of ``PReLU``: ``y = max(0, x) + weight * min(0, x)``, one weight
per channel (dim 1) or one for all."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.utils.per_sample.call import Call, flat_rows
from hookgrad.utils.per_sample.linear import require_batch

__all__ = ["prelu"]


def prelu(module: Any, call: Call) -> dict[str, Any]:
    """``grad * min(0, x)``, summed per channel (or over everything)."""
    x, grad = call.input(0), call.grad(0)
    require_batch(module, x, 2)
    contribution = flat_rows(grad * np.minimum(x, 0), 2).sum(axis=2)
    if module.num_parameters == 1:
        contribution = contribution.sum(axis=1, keepdims=True)
    return {"weight": contribution}
