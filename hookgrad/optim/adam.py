"""``Adam``: adaptive moment estimation (with ``amsgrad``, L2 weight decay, ``maximize``).

``AdamW`` (in ``adamw.py``) is the same update with decoupled weight decay; both run
``adam_update`` below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.grad_mode import no_grad
from hookgrad.optim.optimizer import (
    Optimizer,
    check_capturable,
    check_differentiable,
    check_hyperparameter,
    grads_of,
    run_closure,
    state_tensor,
    step_tensor,
)

__all__ = ["Adam"]


def check_adam_hyperparameters(
    lr: float, betas: tuple[float, float], eps: float, weight_decay: float
) -> None:
    """torch's constructor checks for Adam and AdamW."""
    check_hyperparameter("lr", lr, "learning rate")
    check_hyperparameter("eps", eps, "epsilon value")
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
    check_hyperparameter("weight_decay", weight_decay, "weight_decay value")


def adam_update(optimizer: Optimizer, group: dict[str, Any], decoupled: bool) -> None:
    """One Adam step for the parameters of ``group`` that have gradients:

    ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 v + (1 - beta2) g**2``, then
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v_hat) / sqrt(1 - beta2**t) + eps)`` where
    ``v_hat`` is ``v`` or, with ``amsgrad``, its running maximum. Weight decay is added to
    the gradient (``decoupled=False``, Adam) or multiplies ``p`` by ``1 - lr * wd`` first
    (AdamW).
    """
    beta1, beta2 = group["betas"]
    lr = group["lr"]
    weight_decay = group["weight_decay"]
    for param, grad in grads_of(group):
        data = param._data
        state = optimizer.state[param]
        if not state:
            state["step"] = step_tensor()
            state["exp_avg"] = state_tensor(np.zeros_like(data))
            state["exp_avg_sq"] = state_tensor(np.zeros_like(data))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = state_tensor(np.zeros_like(data))
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            if decoupled:
                data *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * data
        state["step"]._data += 1
        step = float(state["step"]._data)
        exp_avg = state["exp_avg"]._data
        exp_avg_sq = state["exp_avg_sq"]._data
        exp_avg += (1 - beta1) * (grad - exp_avg)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * grad * grad
        if group["amsgrad"]:
            second = state["max_exp_avg_sq"]._data
            np.maximum(second, exp_avg_sq, out=second)
        else:
            second = exp_avg_sq
        step_size = lr / (1 - beta1**step)
        denominator = np.sqrt(second) / (1 - beta2**step) ** 0.5 + group["eps"]
        data -= step_size * (exp_avg / denominator)
        param._bump_version()


class Adam(Optimizer):
    """Adam (Kingma & Ba), step for step as torch's (see ``adam_update``);
    ``decoupled_weight_decay=True`` makes it AdamW.

    Example::

        opt = optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), amsgrad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        check_adam_hyperparameters(lr, betas, eps, weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = run_closure(closure)
        for group in self.param_groups:
            check_capturable(group)
            check_differentiable(group)
            adam_update(self, group, group["decoupled_weight_decay"])
        return loss
