"""The connectionist temporal classification loss (torch's ``_ctc_loss``): the negative
log-likelihood of each target sequence under per-step class log-probabilities, summed
over all alignments by the forward (alpha) recursion, and its gradient by the backward
(beta) recursion, both in log space, loop for loop as torch's CPU kernels.

Notation (Graves et al., 2006): the extended target ``l'`` puts a blank before, between
and after the labels (``2 * len + 1`` symbols); ``log_alpha[t, s]`` is the log-probability
of the prefixes of ``l'`` ending in ``s`` at step ``t``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.not_implemented import NotImplementedBackward


def target_offsets(targets: np.ndarray, target_lengths: tuple[int, ...]) -> list[int]:
    """Where each sample's labels start in ``targets`` (flattened): rows of a 2-D
    ``targets``, or consecutive runs of a 1-D one."""
    if targets.ndim == 1:
        return np.concatenate(([0], np.cumsum(target_lengths)[:-1])).astype(int).tolist()
    return [b * targets.shape[1] for b in range(targets.shape[0])]


def _prime(labels: np.ndarray, offset: int, s: int, blank: int) -> int:
    """Symbol ``s`` of the extended target: a blank at even ``s``."""
    return blank if s % 2 == 0 else int(labels[offset + s // 2])


def _log_add3(a: Any, b: Any, c: Any, dtype: Any) -> Any:
    """``log(exp(a) + exp(b) + exp(c))`` as torch's kernel computes it (around the max,
    0 when all are -inf)."""
    largest = max(a, b, c)
    if largest == -np.inf:
        largest = dtype.type(0)
    return np.log(np.exp(a - largest) + np.exp(b - largest) + np.exp(c - largest)) + largest


class CtcLoss(Op):
    """torch's ``_ctc_loss`` on ``(T, N, C)`` log-probabilities: the per-sample negative
    log-likelihoods (infinite where no alignment fits) and ``log_alpha``, ``(N, T,
    2 * max_target_length + 1)`` (a second output, without history; -inf outside each
    sample's steps and symbols)."""

    input_names = ("log_probs", "targets")
    non_differentiable = ("targets",)
    saves = ("log_probs", "targets", "result", "result1")
    saved_attributes = ("blank", "input_lengths", "target_lengths", "zero_infinity")
    differentiable_outputs = 1
    quiet = True

    def __init__(
        self,
        input_lengths: tuple[int, ...],
        target_lengths: tuple[int, ...],
        blank: int,
        zero_infinity: bool,
    ) -> None:
        self.input_lengths = input_lengths
        self.target_lengths = target_lengths
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Any, targets: Any) -> Any:
        steps, batch, _ = log_probs.shape
        dtype = log_probs.dtype
        width = 2 * max(self.target_lengths, default=0) + 1
        log_alpha = np.full((batch, steps, width), -np.inf, dtype)
        nll = np.zeros(batch, dtype)
        labels = targets.reshape(-1)
        offsets = target_offsets(targets, self.target_lengths)
        for b in range(batch):
            steps_b, length = self.input_lengths[b], self.target_lengths[b]
            lp, la = log_probs[:, b], log_alpha[b]
            if steps_b == 0:
                nll[b] = np.inf if length else 0
                continue
            la[0, 0] = lp[0, self.blank]
            if length > 0:
                la[0, 1] = lp[0, _prime(labels, offsets[b], 1, self.blank)]
            for t in range(1, steps_b):
                for s in range(2 * length + 1):
                    symbol = _prime(labels, offsets[b], s, self.blank)
                    la1 = la[t - 1, s]
                    la2 = la[t - 1, s - 1] if s > 0 else dtype.type(-np.inf)
                    skip = s > 1 and _prime(labels, offsets[b], s - 2, self.blank) != symbol
                    la3 = la[t - 1, s - 2] if skip else dtype.type(-np.inf)
                    la[t, s] = _log_add3(la1, la2, la3, dtype) + lp[t, symbol]
            last = la[steps_b - 1]
            if length == 0:
                nll[b] = -last[0]
            else:
                l1, l2 = last[2 * length], last[2 * length - 1]
                m = max(l1, l2)
                m = dtype.type(0) if m == -np.inf else m
                nll[b] = -(np.log(np.exp(l1 - m) + np.exp(l2 - m)) + m)
        return nll, log_alpha

    def backward(self, grad: Any) -> Any:
        log_probs, targets, nll, log_alpha = self.unpack()
        op = CtcLossBackward(
            self.input_lengths, self.target_lengths, self.blank, self.zero_infinity
        )
        return grad._apply_op(op, log_probs, targets, nll, log_alpha), None


class CtcLossBackward(NotImplementedBackward):
    """torch's ``_ctc_loss_backward``: the gradient of the log-probabilities, from the
    beta recursion (eq. 16 of Graves et al.); 0 for a sample with an infinite loss when
    ``zero_infinity``."""

    aten_name = "_ctc_loss_backward"
    input_names = ("grad", "log_probs", "targets", "neg_log_likelihood", "log_alpha")
    non_differentiable = ("targets", "neg_log_likelihood", "log_alpha")
    quiet = True

    def __init__(
        self,
        input_lengths: tuple[int, ...],
        target_lengths: tuple[int, ...],
        blank: int,
        zero_infinity: bool,
    ) -> None:
        self.input_lengths = input_lengths
        self.target_lengths = target_lengths
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, grad: Any, log_probs: Any, targets: Any, nll: Any, log_alpha: Any) -> Any:
        _, batch, classes = log_probs.shape
        dtype = log_probs.dtype
        result = np.full(log_probs.shape, -np.inf, dtype)
        log_beta = np.full(log_alpha.shape, -np.inf, dtype)
        labels = targets.reshape(-1)
        offsets = target_offsets(targets, self.target_lengths)
        grad = np.broadcast_to(grad, (batch,))
        for b in range(batch):
            steps_b, length = self.input_lengths[b], self.target_lengths[b]
            if self.zero_infinity and nll[b] == np.inf:
                result[:, b] = 0
                continue
            lp, la, lb, g = log_probs[:, b], log_alpha[b], log_beta[b], result[:, b]
            if steps_b > 0:
                end = steps_b - 1
                lb[end, 2 * length] = lp[end, self.blank]
                g[end, self.blank] = la[end, 2 * length] + lb[end, 2 * length]
                if length > 0:
                    symbol = _prime(labels, offsets[b], 2 * length - 1, self.blank)
                    lb[end, 2 * length - 1] = lp[end, symbol]
                    g[end, symbol] = la[end, 2 * length - 1] + lb[end, 2 * length - 1]
            for t in range(steps_b - 2, -1, -1):
                for s in range(2 * length, -1, -1):
                    symbol = _prime(labels, offsets[b], s, self.blank)
                    lb1 = lb[t + 1, s]
                    lb2 = lb[t + 1, s + 1] if s < 2 * length else dtype.type(-np.inf)
                    skip = (
                        s < 2 * length - 1
                        and _prime(labels, offsets[b], s + 2, self.blank) != symbol
                    )
                    lb3 = lb[t + 1, s + 2] if skip else dtype.type(-np.inf)
                    lb[t, s] = _log_add3(lb1, lb2, lb3, dtype) + lp[t, symbol]
                    alpha_beta = la[t, s] + lb[t, s]
                    if g[t, symbol] == -np.inf:
                        g[t, symbol] = alpha_beta
                    else:
                        m = max(g[t, symbol], alpha_beta)
                        g[t, symbol] = np.log(np.exp(g[t, symbol] - m) + np.exp(alpha_beta - m)) + m
            for t in range(steps_b):
                for c in range(classes):
                    g[t, c] = (np.exp(lp[t, c]) - np.exp(g[t, c] + nll[b] - lp[t, c])) * grad[b]
            g[steps_b:] = 0
        return result
