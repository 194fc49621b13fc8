"""``SparseAdam``: Adam applied only where the gradient has entries.

torch's SparseAdam takes gradients of sparse layout (from ``nn.Embedding(sparse=True)``,
whose gradient holds the rows of the looked-up indices) and updates the moments and
parameters only at their entries. hookgrad has no sparse tensors, so a gradient here is
dense, and its entries are its rows (along dim 0) that have a nonzero element, or for a
vector its nonzero elements: a step with gradient ``g`` is torch's step with
``g.to_sparse(sparse_dim=1)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.grad_mode import no_grad
from hookgrad.optim import kernels as K
from hookgrad.optim.adamax import check_betas
from hookgrad.optim.optimizer import Optimizer, run_closure, scalar, state_tensor, with_grads

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam masked to the gradient's entries (its rows with a nonzero element; see the
    module's docstring), step for step as torch's: at each entry ``m += (1 - beta1) (g - m)``,
    ``v += (1 - beta2) (g**2 - v)``, then
    ``p -= lr sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + eps)``; elements
    without an entry keep their moments and values. ``step`` counts steps (an int, as in
    torch). Parameters match torch's bit for bit given torch's square root.

    Example::

        emb = nn.Embedding(1000, 16)
        opt = optim.SparseAdam(emb.parameters(), lr=1e-3)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        complex_params = [
            [index, position]
            for index, group in enumerate(self.param_groups)
            for position, param in enumerate(group["params"])
            if param.is_complex()
        ]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support "
                "complex parameters"
            )

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update at the gradient entries of every parameter that has a gradient;
        returns ``closure()``'s loss.

        Example::

            loss.backward()
            opt.step()
        """
        loss = run_closure(closure)
        for group in self.param_groups:
            for param in with_grads(group):
                self._update(param, group)
        return loss

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        state = self.state[param]
        if not state:
            state["step"] = 0
            state["exp_avg"] = state_tensor(np.zeros_like(param._data))
            state["exp_avg_sq"] = state_tensor(np.zeros_like(param._data))
        state["step"] += 1
        grad = param.grad._data
        if group.get("maximize", False):
            grad = -grad
        entries = grad != 0
        if grad.ndim > 1:
            entries = entries.any(axis=tuple(range(1, grad.ndim)))
        values = grad[entries]
        if values.size == 0:
            return
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        old_avg = exp_avg[entries]
        avg_update = K.mul(values - old_avg, 1 - beta1)
        exp_avg[entries] += avg_update
        old_sq = exp_avg_sq[entries]
        sq_update = K.mul(values * values - old_sq, 1 - beta2)
        exp_avg_sq[entries] += sq_update
        numer = avg_update + old_avg
        denom = K.add(K.sqrt(sq_update + old_sq), group["eps"])
        step = state["step"]
        step_size = scalar(group["lr"]) * math.sqrt(1 - beta2**step) / (1 - beta1**step)
        param._data[entries] += K.mul(K.div(numer, denom), -step_size)
        param._bump_version()
