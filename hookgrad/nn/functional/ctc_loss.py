"""nn.functional: the Connectionist Temporal Classification loss (``ctc_loss``) and its
torch-level form with torch's int ``reduction`` (``torch_ctc_loss``, exported by
``hookgrad`` as ``torch.ctc_loss``), with torch's checks of the lengths and targets; the
node (``CtcLossBackward0``) is ``hookgrad.ops.ctc``'s.

Example::

    F.ctc_loss(hookgrad.randn(50, 16, 20).log_softmax(2), targets, input_lengths,
               target_lengths)
"""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.nn.functional.loss_reduction import reduction_enum
from hookgrad.ops import loss as ops
from hookgrad.ops.ctc import CtcLoss
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply

__all__ = ["ctc_loss"]


# ---------------------------------------------------------------- CTC


def _lengths(lengths: Any, name: str) -> tuple[int, ...]:
    """Lengths given as a tensor (of integers) or a sequence of ints, as a tuple."""
    if isinstance(lengths, Tensor):
        if lengths._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(n) for n in lengths._data.reshape(-1))
    if not isinstance(lengths, (tuple, list)):
        raise TypeError(
            f"ctc_loss(): argument '{name}' must be tuple of ints or Tensor, not "
            f"{type(lengths).__name__}"
        )
    return tuple(int(n) for n in lengths)


def _check_ctc(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: tuple[int, ...],
    target_lengths: tuple[int, ...],
    blank: int,
) -> None:
    """torch's checks of its CPU kernel (``ctc_loss_allocate_outputs``)."""
    where = " (while checking arguments for ctc_loss_allocate_outputs)"
    batch, classes = log_probs.shape[1], log_probs.shape[2]
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected target_lengths to have value at least 0, but got value {length}{where}"
            )
    if targets.dim() == 1:
        if targets.shape[0] != sum(target_lengths):
            raise RuntimeError(
                f"Expected tensor to have size {sum(target_lengths)} at dimension 0, but got "
                f"size {targets.shape[0]} for argument #2 'targets' (while checking arguments "
                "for ctc_loss_allocate_outputs)"
            )
    else:
        if targets.shape[0] != batch:
            raise RuntimeError(
                f"Expected tensor to have size {batch} at dimension 0, but got size "
                f"{targets.shape[0]} for argument #2 'targets' (while checking arguments for "
                "ctc_loss_allocate_outputs)"
            )
        longest = max(target_lengths, default=0)
        if targets.shape[1] < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                "ctc_loss_allocate_outputs)"
            )
    for length in input_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected input_lengths to have value at least 0, but got value {length}{where}"
            )
        if length > log_probs.shape[0]:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {log_probs.shape[0]}, but got "
                f"value {length}{where}"
            )


def torch_ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: int = 1,
    zero_infinity: bool = False,
) -> Tensor:
    """``torch.ctc_loss`` with torch's int ``reduction``.

    Example: ``torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, 0, 1)``.
    """
    batched = log_probs.dim() == 3
    probs = log_probs if batched else log_probs.unsqueeze(1)
    ins = _lengths(input_lengths, "input_lengths")
    outs = _lengths(target_lengths, "target_lengths")
    labels = targets.long()
    _check_ctc(probs, labels, ins, outs, blank)
    res = apply(CtcLoss(ins, outs, blank, zero_infinity), probs, labels)[0]
    if zero_infinity:
        res = hookgrad.where(res == math.inf, hookgrad.zeros((), dtype=res.dtype), res)
    if reduction == ops.REDUCTIONS["mean"]:
        divisors = hookgrad.tensor(outs, dtype=res.dtype).clamp_min(1)
        return (res / divisors).mean()
    if reduction == ops.REDUCTIONS["sum"]:
        return res.sum()
    return res if batched else res.squeeze(0)


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The connectionist temporal classification loss: the negative log-likelihood of each
    target sequence under the per-step class log-probabilities ``log_probs`` ``(T, N, C)``
    (or ``(T, C)``), summed over all alignments. ``targets``: ``(N, S)`` padded or the
    targets concatenated; ``input_lengths``, ``target_lengths``: one per sample. ``"mean"``
    divides each loss by its target length first. ``zero_infinity``: impossible
    alignments give 0 (and a zero gradient) instead of inf.

    Example::

        F.ctc_loss(hookgrad.randn(50, 16, 20).log_softmax(2), targets, input_lengths,
                   target_lengths)
    """
    code = reduction_enum(None, None, reduction)
    return torch_ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, code, zero_infinity
    )
