"""nn.functional: distances between rows of tensors (``pairwise_distance``,
``cosine_similarity``, composites of tensor ops as torch's: ``NormBackward1``,
``LinalgVectorNormBackward0`` ... in the graph; ``pdist``, ``torch.pdist``)."""

from __future__ import annotations

import hookgrad
from hookgrad.ops.arithmetic import AddScalar
from hookgrad.ops.table import ENTRIES
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply, broadcast_shapes

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim (the two broadcast).

    Example::

        F.pairwise_distance(hookgrad.tensor([[0.0, 0.0]]), hookgrad.tensor([[3.0, 4.0]]))
        # tensor([5.0000])
    """
    innermost = max(x1.dim(), x2.dim()) - 1
    difference = apply(AddScalar(eps, 1), x1 - x2)
    return apply(ENTRIES["norm.ScalarOpt_dim"](p, (innermost,), keepdim), difference)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast): each
    divided by its 2-norm (at least ``eps``), then their product summed.

    Example::

        F.cosine_similarity(hookgrad.tensor([[1.0, 0.0]]), hookgrad.tensor([[1.0, 1.0]]))
        # tensor([0.7071])
    """
    common = hookgrad.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is "
            f"{common.type_name[3:-4]}"
        )
    if not x1.dtype.is_floating_point:
        x1 = x1.to(common)
    if not x2.dtype.is_floating_point:
        x2 = x2.to(common)
    if x1.shape != x2.shape:
        shape = broadcast_shapes(x1.shape, x2.shape)
        x1, x2 = x1.expand(shape), x2.expand(shape)
    x1_norm = x1.norm(2, dim, keepdim=True).clone()
    x2_norm = x2.norm(2, dim, keepdim=True).clone()
    with hookgrad.no_grad():
        x1_norm.clamp_min_(eps)
        x2_norm.clamp_min_(eps)
    # NOTE: in torch's order: C++ evaluates the right operand of ``*`` first.
    normalized2 = x2 / x2_norm
    return ((x1 / x1_norm) * normalized2).sum(dim)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm distance between every pair of rows ``i < j`` of the 2-D ``input``
    (``torch.pdist``).

    Example::

        F.pdist(hookgrad.tensor([[0.0, 0.0], [3.0, 4.0]]))   # tensor([5.])
    """
    return hookgrad.pdist(input, p)
