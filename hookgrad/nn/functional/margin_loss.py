"""nn.functional: the margin and embedding losses (``margin_ranking_loss``,
``hinge_embedding_loss``, ``cosine_embedding_loss``, ``soft_margin_loss``,
``multilabel_soft_margin_loss``, ``multi_margin_loss``, ``multilabel_margin_loss``,
``triplet_margin_loss``, ``triplet_margin_with_distance_loss``) and the torch-level forms
with torch's int ``reduction`` (``torch_margin_ranking_loss`` ..., exported by ``hookgrad``
as ``torch.margin_ranking_loss`` ...). Those torch writes as composites of tensor ops are
the same composites here, so their graphs are torch's.

Example: ``margin_ranking_loss(x1, x2, y)`` is ``mean(max(0, -y * (x1 - x2)))``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import hookgrad
from hookgrad.nn.functional.activation import logsigmoid
from hookgrad.nn.functional.distance import pairwise_distance
from hookgrad.nn.functional.loss_reduction import (
    REDUCTION_NAMES,
    apply_reduction,
    check_real,
    legacy_reduction,
    reduction_enum,
    scalar_like,
)
from hookgrad.ops import loss as ops
from hookgrad.ops.arithmetic import AddScalar, SubScalar
from hookgrad.tensor import Tensor, dtypes
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.index_parsing import scalar_type_name

__all__ = [
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


# ---------------------------------------------------------------- margins and embeddings


def torch_margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 1
) -> Tensor:
    """``torch.margin_ranking_loss`` with torch's int ``reduction``.

    Example: ``torch.margin_ranking_loss(x1, x2, y, 0.1, 1)``.
    """
    check_real("margin_ranking_loss", input1, input2, target)
    output = apply(AddScalar(margin, 1), -target * (input1 - input2)).clamp_min(0)
    return apply_reduction(output, reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)`` for targets of 1 (``input1``
    should rank higher) or -1, reduced.

    Example::

        F.margin_ranking_loss(hookgrad.tensor([0.5]), hookgrad.tensor([0.2]),
                              hookgrad.tensor([1.0]), margin=0.5)   # tensor(0.2000)
    """
    code = reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got "
            f"sizes: input1: {input1.size()}, input2: {input2.size()}, target: "
            f"{target.size()} "
        )
    return torch_margin_ranking_loss(input1, input2, target, margin, code)


def torch_hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 1
) -> Tensor:
    """``torch.hinge_embedding_loss`` with torch's int ``reduction``.

    Example: ``torch.hinge_embedding_loss(d, y, 1.0, 1)``.
    """
    zeros = hookgrad.zeros_like(input)
    margin_clamp = (scalar_like(margin, input) - input).clamp_min(0)
    output_margin = hookgrad.where(target != 1, margin_clamp, zeros)
    output_self = hookgrad.where(target != -1, input, zeros)
    return apply_reduction(output_margin + output_self, reduction)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """For distances ``input``: ``input`` where ``target`` is 1, ``max(0, margin -
    input)`` where it is -1, reduced.

    Example::

        F.hinge_embedding_loss(hookgrad.tensor([0.3, 2.0]), hookgrad.tensor([1.0, -1.0]))
    """
    code = reduction_enum(size_average, reduce, reduction)
    return torch_hinge_embedding_loss(input, target, margin, code)


# NOTE: torch's C++ constant is the float 1e-12.
_EMBEDDING_EPSILON = float(np.float32(1e-12))


def torch_cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 1
) -> Tensor:
    """``torch.cosine_embedding_loss`` with torch's int ``reduction``.

    Example: ``torch.cosine_embedding_loss(a, b, y, 0.0, 1)``.
    """
    dims = target.dim()
    if dims not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dims == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    if dims == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    prod_sum = (input1 * input2).sum(dims)
    mag_square1 = apply(AddScalar(_EMBEDDING_EPSILON, 1), (input1 * input1).sum(dims))
    mag_square2 = apply(AddScalar(_EMBEDDING_EPSILON, 1), (input2 * input2).sum(dims))
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = hookgrad.zeros_like(cos)
    pos = scalar_like(1, cos) - cos
    neg = apply(SubScalar(margin, 1), cos).clamp_min(0)
    output = hookgrad.where(target == 1, pos, zeros) + hookgrad.where(target == -1, neg, zeros)
    return apply_reduction(output, reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where
    it is -1 (cosines of rows, or of two vectors), reduced.

    Example::

        F.cosine_embedding_loss(hookgrad.randn(4, 3), hookgrad.randn(4, 3),
                                hookgrad.tensor([1, -1, 1, -1]))
    """
    code = reduction_enum(size_average, reduce, reduction)
    return torch_cosine_embedding_loss(input1, input2, target, margin, code)


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-target * input))`` for targets of 1 or -1,
    reduced (node ``SoftMarginLossBackward0``).

    Example::

        F.soft_margin_loss(hookgrad.tensor([0.5, -2.0]), hookgrad.tensor([1.0, -1.0]))
    """
    code = reduction_enum(size_average, reduce, reduction)
    if target.requires_grad and hookgrad.is_grad_enabled():
        raise RuntimeError(
            "The function 'soft_margin_loss' is not differentiable with respect to argument "
            "'target'. This input cannot have requires_grad True."
        )
    return apply(ops.SoftMarginLoss(code), input, target)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Per sample, the mean over classes of the binary logistic loss of ``input``
    against the 0/1 ``target`` (``weight`` scales each class), reduced.

    Example::

        F.multilabel_soft_margin_loss(hookgrad.randn(2, 3), hookgrad.tensor([[1., 0., 1.],
                                                                            [0., 1., 0.]]))
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _check_margin_shapes(input: Tensor, target: Tensor, multilabel: bool) -> tuple[int, int]:
    """torch's shape checks of the multi-class margin losses: ``(rows, classes)``."""
    ndim = input.dim()
    if not ((ndim == 2 and input.shape[1] != 0) or (ndim == 1 and input.shape[0] != 0) or not ndim):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    rows = input.shape[0] if ndim == 2 else 1
    classes = input.shape[-1] if ndim else 1
    if multilabel:
        expected = (rows, classes) if ndim == 2 else None
        consistent = (
            tuple(target.shape) == expected
            if expected
            else target.dim() <= 1 and target.numel() == classes
        )
        if not consistent:
            raise RuntimeError(
                f"inconsistent target size: {list(target.shape)} for input of size: "
                f"{list(input.shape)}"
            )
    elif not (target.dim() <= 1 and target.numel() == rows):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{rows}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if target.dtype != dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_type_name(target.dtype)}")
    return rows, classes


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Multi-class hinge loss: per row with class ``y``, the mean over the other classes
    ``i`` of ``max(0, margin - input[y] + input[i]) ** p`` (``p`` 1 or 2), times
    ``weight[y]``; reduced.

    Example::

        F.multi_margin_loss(hookgrad.tensor([[0.1, 0.2, 0.4, 0.8]]), hookgrad.tensor([3]))
        # tensor(0.3250)
    """
    code = reduction_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _, classes = _check_margin_shapes(input, target, multilabel=False)
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(
            f"inconsistent weight size, expected {classes} but got {list(weight.shape)}"
        )
    indices = target._data.astype(np.int64)
    if indices.size and (indices.min() < 0 or indices.max() >= classes):
        raise RuntimeError("target out of range")
    op = ops.MultiMarginLoss(p, margin, code)
    return apply(op, input, target, None if weight is None else weight.detach())


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Multi-label hinge loss: per row, ``target`` lists the row's classes (padded with
    -1); the sum over target classes ``j`` and other classes ``i`` of ``max(0, 1 -
    input[j] + input[i])``, divided by the number of classes; reduced.

    Example::

        F.multilabel_margin_loss(hookgrad.tensor([[0.1, 0.2, 0.4, 0.8]]),
                                 hookgrad.tensor([[3, 0, -1, 1]]))   # tensor(0.8500)
    """
    code = reduction_enum(size_average, reduce, reduction)
    _, classes = _check_margin_shapes(input, target, multilabel=True)
    indices = target._data.astype(np.int64)
    if indices.size and (indices.min() < -1 or indices.max() >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    return apply(ops.MultilabelMarginLoss(code), input, target)[0]


def torch_triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: int = 1,
) -> Tensor:
    """``torch.triplet_margin_loss`` with torch's int ``reduction``.

    Example: ``torch.triplet_margin_loss(a, p, n, 1.0, 2, 1e-6, False, 1)``.
    """
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs"
        )
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = hookgrad.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = (apply(AddScalar(margin, 1), dist_pos) - dist_neg).clamp_min(0)
    return apply_reduction(output, reduction)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, d(anchor, positive) - d(anchor, negative) + margin)`` with ``d`` the
    ``p``-norm pairwise distance (``swap``: the smaller of the two negative distances),
    reduced.

    Example::

        F.triplet_margin_loss(hookgrad.randn(4, 8), hookgrad.randn(4, 8), hookgrad.randn(4, 8))
    """
    code = reduction_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return torch_triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, code)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``triplet_margin_loss`` with any ``distance_function`` (default
    ``pairwise_distance``).

    Example::

        F.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda x, y: 1 - F.cosine_similarity(x, y))
    """
    if reduction not in REDUCTION_NAMES:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs"
        )
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = hookgrad.minimum(dist_neg, distance_function(positive, negative))
    loss = hookgrad.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss
