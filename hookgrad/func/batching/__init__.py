"""Batching rules: how each op of hookgrad computes for a whole batch under ``vmap``.

``core`` runs an op on batched arrays (its rule, or the per-example fallback) and holds
the nodes that move tensors in and out of a vmap level; the rules are grouped by family:
``pointwise`` (elementwise ops and losses), ``reduction`` (ops with dims), ``linalg``
(matrix products), ``shape`` (views, joining, indexing), ``nn`` (convolution, pooling,
normalization, embedding, ``nll_loss``, dropout and the random ops).
"""

from hookgrad.func.batching import linalg, nn, pointwise, reduction, shape
from hookgrad.func.batching.core import (
    MoveIn,
    MoveOut,
    compute,
    enter,
    exit,
    forward,
    register,
    rule_for,
)

__all__ = [
    "MoveIn",
    "MoveOut",
    "compute",
    "enter",
    "exit",
    "forward",
    "linalg",
    "nn",
    "pointwise",
    "reduction",
    "register",
    "rule_for",
    "shape",
]
