"""nn modules: losses. Each is a thin ``Module`` over its ``nn.functional`` form; class
weights (``weight``, ``pos_weight``) are buffers, as in torch."""

from __future__ import annotations

from hookgrad.nn.functional import loss as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "HuberLoss",
    "L1Loss",
    "MSELoss",
    "NLLLoss",
    "SmoothL1Loss",
]


class _Loss(Module):
    """A loss with a ``reduction`` (``"mean"``, ``"sum"`` or ``"none"``); the legacy
    ``size_average``/``reduce`` flags override it as in torch."""

    reduction: str

    def __init__(
        self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean"
    ) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F._legacy(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with an optional per-class ``weight`` buffer."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """Mean absolute error; see ``nn.functional.l1_loss``.

    Example::

        nn.L1Loss()(hookgrad.tensor([1.0, -3.0]), hookgrad.zeros(2))  # tensor(2.)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error; see ``nn.functional.mse_loss``.

    Example::

        nn.MSELoss()(hookgrad.tensor([1.0, 2.0]), hookgrad.zeros(2))  # tensor(2.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above; see ``nn.functional.smooth_l1_loss``.

    Example::

        nn.SmoothL1Loss(beta=0.5)(hookgrad.tensor([0.25, 3.0]), hookgrad.zeros(2))
    """

    def __init__(
        self,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Quadratic below ``delta``, linear (slope ``delta``) above; see
    ``nn.functional.huber_loss``.

    Example::

        nn.HuberLoss(delta=2.0)(hookgrad.tensor([1.0, 3.0]), hookgrad.zeros(2))
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices; see ``nn.functional.nll_loss``.

    Example::

        loss = nn.NLLLoss(ignore_index=-1)
        loss(hookgrad.randn(4, 3).log_softmax(1), hookgrad.tensor([0, 2, -1, 1]))
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of logits against class indices or probabilities; see
    ``nn.functional.cross_entropy``.

    Example::

        loss = nn.CrossEntropyLoss(label_smoothing=0.1)
        loss(hookgrad.randn(4, 3, requires_grad=True), hookgrad.tensor([0, 2, 1, 1])).backward()
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities; see ``nn.functional.binary_cross_entropy``.

    Example::

        nn.BCELoss()(hookgrad.tensor([0.9, 0.2]), hookgrad.tensor([1.0, 0.0]))
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits, computed stably; see
    ``nn.functional.binary_cross_entropy_with_logits``.

    Example::

        nn.BCEWithLogitsLoss(pos_weight=hookgrad.tensor([3.0]))(
            hookgrad.tensor([0.5]), hookgrad.tensor([1.0])
        )
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )
