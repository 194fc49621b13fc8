"""nn modules: losses. Each is a thin ``Module`` over its ``nn.functional`` form; class
weights (``weight``, ``pos_weight``) are buffers, as in torch. ``AdaptiveLogSoftmaxWithLoss``
is in ``adaptive.py``, as in torch.

Example: ``nn.MSELoss()(hookgrad.zeros(2), hookgrad.ones(2))`` is ``tensor(1.)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import hookgrad.nn.functional as F
from hookgrad.nn.functional.loss_reduction import legacy_reduction
from hookgrad.nn.modules.distance import PairwiseDistance
from hookgrad.nn.modules.linear import Linear
from hookgrad.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CTCLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "LinearCrossEntropyLoss",
    "LinearCrossEntropyOptions",
    "MSELoss",
    "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "NLLLoss",
    "NLLLoss2d",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
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
            reduction = legacy_reduction(size_average, reduce)
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


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` under its old name for ``(N, C, H, W)`` inputs.

    Example::

        nn.NLLLoss2d()(hookgrad.randn(2, 3, 4, 4).log_softmax(1), hookgrad.zeros(2, 4, 4).long())
    """


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``;
    see ``nn.functional.kl_div`` (``reduction="batchmean"`` is the mathematical KL).

    Example::

        nn.KLDivLoss(reduction="batchmean")(logits.log_softmax(1), probabilities)
    """

    def __init__(
        self,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of a Poisson target; see ``nn.functional.poisson_nll_loss``.

    Example::

        nn.PoissonNLLLoss()(hookgrad.randn(4), hookgrad.tensor([0.0, 1.0, 2.0, 3.0]))
    """

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average: bool | None = None,
        eps: float = 1e-8,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of a normal target with predicted mean and variance; see
    ``nn.functional.gaussian_nll_loss``.

    Example::

        nn.GaussianNLLLoss()(hookgrad.zeros(3), hookgrad.ones(3), hookgrad.ones(3))
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class HingeEmbeddingLoss(_Loss):
    """Hinge loss of distances against 1 / -1 targets; see
    ``nn.functional.hinge_embedding_loss``.

    Example::

        nn.HingeEmbeddingLoss(margin=2.0)(hookgrad.rand(4), hookgrad.tensor([1, -1, 1, -1]))
    """

    def __init__(
        self,
        margin: float = 1.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss; see ``nn.functional.multilabel_margin_loss``.

    Example::

        nn.MultiLabelMarginLoss()(hookgrad.randn(1, 4), hookgrad.tensor([[3, 0, -1, 1]]))
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss for 1 / -1 targets; see ``nn.functional.soft_margin_loss``.

    Example::

        nn.SoftMarginLoss()(hookgrad.randn(4), hookgrad.tensor([1.0, -1.0, 1.0, -1.0]))
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss; see
    ``nn.functional.multilabel_soft_margin_loss``.

    Example::

        nn.MultiLabelSoftMarginLoss()(hookgrad.randn(2, 3), hookgrad.tensor([[1., 0., 1.],
                                                                            [0., 0., 1.]]))
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class CosineEmbeddingLoss(_Loss):
    """Cosine similarity loss of pairs against 1 / -1 targets; see
    ``nn.functional.cosine_embedding_loss``.

    Example::

        nn.CosineEmbeddingLoss(0.2)(hookgrad.randn(4, 8), hookgrad.randn(4, 8),
                                    hookgrad.tensor([1, -1, 1, 1]))
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MarginRankingLoss(_Loss):
    """Ranking hinge loss of pairs against 1 / -1 targets; see
    ``nn.functional.margin_ranking_loss``.

    Example::

        nn.MarginRankingLoss(0.5)(hookgrad.randn(4), hookgrad.randn(4),
                                  hookgrad.tensor([1.0, -1.0, 1.0, 1.0]))
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss; see ``nn.functional.multi_margin_loss``.

    Example::

        nn.MultiMarginLoss(p=2)(hookgrad.randn(3, 5), hookgrad.tensor([0, 4, 2]))
    """

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                "MultiMarginLoss: expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(
            input,
            target,
            p=self.p,
            margin=self.margin,
            weight=self.weight,
            reduction=self.reduction,
        )


class TripletMarginLoss(_Loss):
    """Triplet loss with ``p``-norm distances; see ``nn.functional.triplet_margin_loss``.

    Example::

        nn.TripletMarginLoss()(hookgrad.randn(4, 8), hookgrad.randn(4, 8), hookgrad.randn(4, 8))
    """

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with any distance function (default ``PairwiseDistance()``); see
    ``nn.functional.triplet_margin_with_distance_loss``.

    Example::

        nn.TripletMarginWithDistanceLoss(distance_function=nn.CosineSimilarity())
    """

    def __init__(
        self,
        *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class CTCLoss(_Loss):
    """The connectionist temporal classification loss; see ``nn.functional.ctc_loss``.

    Example::

        ctc = nn.CTCLoss(blank=0, zero_infinity=True)
        ctc(log_probs, targets, input_lengths, target_lengths)
    """

    def __init__(
        self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False
    ) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(
        self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor
    ) -> Tensor:
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of logits made by a linear layer it owns (``self.linear``, of
    ``in_features`` inputs and ``num_classes * prod(out_features)`` outputs); see
    ``nn.functional.linear_cross_entropy``. ``out_features`` ``(d_1, ..., d_K)`` gives a
    K-dimensional loss; ``bias`` adds a learned bias; the other arguments are
    ``CrossEntropyLoss``'s (``ignore_index`` None: -100 for class indices). Example::

        loss = nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3))
        loss(hookgrad.randn(2, 5, requires_grad=True), hookgrad.randint(0, 10, (2, 4, 3)))
    """

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device: Any = None,
        dtype: Any = None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}"
            )
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # NOTE: as torch, the weight is stored flat, (num_classes * prod(out_features),
        # in_features), and given its K-dimensional shape in forward.
        outputs = num_classes
        for size in out_features:
            outputs *= size
        self.linear = Linear(in_features, outputs, bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        weight = self.linear.weight.reshape(
            (self.num_classes, *self.out_features, self.linear.in_features)
        )
        bias = self.linear.bias
        if bias is not None:
            bias = bias.reshape((self.num_classes, *self.out_features))
        return F.linear_cross_entropy(
            input,
            weight,
            target,
            linear_bias=bias,
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )
