"""nn modules: the dropout layers (``Dropout``, ``Dropout1d/2d/3d``, ``AlphaDropout``,
``FeatureAlphaDropout``), active in training mode and the identity in eval mode."""

from __future__ import annotations

from hookgrad.nn import functional as F
from hookgrad.nn.functional.dropout import _check_probability
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = [
    "AlphaDropout",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
]


class _DropoutNd(Module):
    """What the dropout layers share: the probability ``p`` and ``inplace``."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        _check_probability(p)
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """During training, zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)``; after ``eval()`` return the input unchanged.

    Example::

        layer = nn.Dropout(0.5)
        layer(hookgrad.ones(4))          # entries 0 or 2
        layer.eval()(hookgrad.ones(4))   # tensor([1., 1., 1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """``F.dropout1d`` in training mode: whole channels of ``(N, C, L)`` or ``(C, L)``
    inputs zeroed with probability ``p``.

    Example: ``nn.Dropout1d(0.2)(hookgrad.ones(4, 8, 16))``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """``F.dropout2d`` in training mode: whole channels of ``(N, C, H, W)`` inputs zeroed
    with probability ``p``.

    Example: ``nn.Dropout2d(0.2)(hookgrad.ones(4, 8, 5, 5))``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """``F.dropout3d`` in training mode: whole channels of ``(N, C, D, H, W)`` or
    ``(C, D, H, W)`` inputs zeroed with probability ``p``.

    Example: ``nn.Dropout3d(0.2)(hookgrad.ones(2, 4, 3, 5, 5))``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """``F.alpha_dropout`` in training mode (for SELU networks).

    Example: ``nn.AlphaDropout(0.1)(hookgrad.randn(8, 16))``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """``F.feature_alpha_dropout`` in training mode: alpha dropout of whole channels.

    Example: ``nn.FeatureAlphaDropout(0.1)(hookgrad.randn(2, 8, 4, 4))``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
