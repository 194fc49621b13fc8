"""nn modules: ``PairwiseDistance`` and ``CosineSimilarity``, thin layers over their
``nn.functional`` forms."""

from __future__ import annotations

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class PairwiseDistance(Module):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim.

    Example::

        nn.PairwiseDistance()(hookgrad.randn(4, 8), hookgrad.randn(4, 8)).shape  # (4,)
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine similarity of ``x1`` and ``x2`` along ``dim``.

    Example::

        nn.CosineSimilarity(dim=1)(hookgrad.randn(4, 8), hookgrad.randn(4, 8)).shape  # (4,)
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
