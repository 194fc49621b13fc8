"""``DPOptimizer``: DP-SGD around any optimizer. Before each step it replaces ``p.grad``
by the privatized gradient: every example's gradient clipped to ``max_grad_norm`` (one
norm over all parameters together), summed, Gaussian noise of standard deviation
``noise_multiplier * max_grad_norm`` added (drawn from hookgrad's generator), and, for a
mean loss, divided by the expected batch size; then the wrapped optimizer steps and the
accountant records the step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import hookgrad
from hookgrad import grad_mode
from hookgrad.optim import Optimizer
from hookgrad.tensor import Tensor
from hookgrad.utils.per_sample.manager import PerSampleBatch, PerSampleGrads
from hookgrad.utils.privacy.accountant import RDPAccountant

__all__ = ["DPOptimizer"]

# Opacus's guard against dividing by a zero norm
_NORM_EPSILON = 1e-6


class DPOptimizer(Optimizer):
    """DP-SGD steps of ``optimizer``, from the per-example gradients that ``per_sample``
    (a :class:`~hookgrad.utils.per_sample.PerSampleGrads` with ``materialize=False``)
    collects. Shares ``param_groups`` and ``state`` with ``optimizer``, so schedulers
    and state dicts work as on the wrapped optimizer.

    Args:
        optimizer: any hookgrad optimizer.
        per_sample: the per-example gradient hooks of the model.
        noise_multiplier: the noise's standard deviation, in units of ``max_grad_norm``.
        max_grad_norm: the bound each example's gradient (all parameters) is clipped to.
        expected_batch_size: what a mean loss's sum is divided by (``sample_rate * N``).
        sample_rate: the Poisson sampling rate, for the accountant.
        generator: the noise's generator (hookgrad's default one if None).

    ``make_private`` builds it; by hand::

        hooks = PerSampleGrads(model, materialize=False)
        opt = DPOptimizer(optim.SGD(model.parameters(), lr=0.1), hooks, noise_multiplier=1.0,
                          max_grad_norm=1.0, expected_batch_size=64, sample_rate=0.01)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        per_sample: PerSampleGrads,
        *,
        noise_multiplier: float,
        max_grad_norm: float,
        expected_batch_size: int,
        sample_rate: float,
        generator: hookgrad.Generator | None = None,
    ) -> None:
        if noise_multiplier < 0:
            raise ValueError(f"noise_multiplier must be >= 0, got {noise_multiplier}")
        if max_grad_norm <= 0:
            raise ValueError(f"max_grad_norm must be positive, got {max_grad_norm}")
        if expected_batch_size <= 0:
            raise ValueError(f"expected_batch_size must be positive, got {expected_batch_size}")
        if per_sample.materialize:
            raise ValueError("DPOptimizer needs PerSampleGrads(..., materialize=False)")
        self.original_optimizer = optimizer
        self.per_sample = per_sample
        self.noise_multiplier = noise_multiplier
        self.max_grad_norm = max_grad_norm
        self.expected_batch_size = expected_batch_size
        self.sample_rate = sample_rate
        self.generator = generator
        self.accountant = RDPAccountant()
        self.per_sample_norms: np.ndarray | None = None
        # NOTE: the base class's hook registries, with the wrapped optimizer's groups and
        # state shared rather than copied.
        self.__setstate__(
            {
                "defaults": optimizer.defaults,
                "state": optimizer.state,
                "param_groups": optimizer.param_groups,
            }
        )

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients and forget any per-example gradients not used yet."""
        self.original_optimizer.zero_grad(set_to_none)
        self.per_sample.clear()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Privatize the gradients of the last backward pass (``closure`` runs it first),
        step the wrapped optimizer, record the step in ``accountant``."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        self.privatize(self.per_sample.take())
        self.original_optimizer.step()
        self.accountant.step(noise_multiplier=self.noise_multiplier, sample_rate=self.sample_rate)
        return loss

    def privatize(self, batch: PerSampleBatch) -> None:
        """Set ``p.grad`` of every trainable parameter to the clipped, noised (and for a
        mean loss averaged) sum of ``batch``'s per-example gradients; ``per_sample_norms``
        keeps each example's norm before clipping."""
        params = [p for group in self.param_groups for p in group["params"] if p.requires_grad]
        squared = np.zeros(batch.batch_size)
        for param in params:
            if param in batch:
                squared += batch.squared_norms(param)
        norms = np.sqrt(squared)
        factors = np.minimum(self.max_grad_norm / (norms + _NORM_EPSILON), 1.0)
        self.per_sample_norms = norms
        std = self.noise_multiplier * self.max_grad_norm
        for param in params:
            dtype = param._data.dtype
            if param in batch:
                summed = batch.weighted_sum(param, factors)
            else:
                summed = np.zeros(param._data.shape, dtype)
            if std > 0:
                noise = hookgrad.normal(
                    0.0, std, size=tuple(param.shape), generator=self.generator, dtype=param.dtype
                )
                summed = summed + noise._data
            if self.per_sample.loss_reduction == "mean":
                summed = summed / np.asarray(self.expected_batch_size, dtype)
            param.grad = Tensor._make(np.ascontiguousarray(summed, dtype))

    def state_dict(self) -> dict[str, Any]:
        return self.original_optimizer.state_dict()

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.original_optimizer.load_state_dict(state_dict)
        self.state = self.original_optimizer.state
        self.param_groups = self.original_optimizer.param_groups

    def __repr__(self) -> str:
        return (
            f"DPOptimizer(noise_multiplier={self.noise_multiplier}, max_grad_norm="
            f"{self.max_grad_norm}, expected_batch_size={self.expected_batch_size}) around "
            f"{self.original_optimizer!r}"
        )
