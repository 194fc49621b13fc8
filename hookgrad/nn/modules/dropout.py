"""nn modules: ``Dropout`` (active in training mode, the identity in eval mode)."""

from __future__ import annotations

from hookgrad.nn import functional as F
from hookgrad.nn.functional.dropout import _check_probability
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = ["Dropout"]


class Dropout(Module):
    """During training, zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)``; after ``eval()`` return the input unchanged.

    Example::

        layer = nn.Dropout(0.5)
        layer(hookgrad.ones(4))          # entries 0 or 2
        layer.eval()(hookgrad.ones(4))   # tensor([1., 1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        _check_probability(p)
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
