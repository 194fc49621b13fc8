"""``RMSprop``: gradient scaled by a running root mean square (optionally centred), with
momentum and weight decay."""

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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, step for step as torch's: ``v = alpha v + (1 - alpha) g**2``;
    ``avg = sqrt(v - mean_g**2) + eps`` when ``centered`` (``mean_g`` the running mean of
    ``g``) else ``sqrt(v) + eps``; then ``p -= lr * g / avg``, or with momentum
    ``buf = momentum * buf + g / avg`` and ``p -= lr * buf``.

    Example::

        opt = optim.RMSprop(model.parameters(), lr=1e-2, alpha=0.9, centered=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_hyperparameter("lr", lr, "learning rate")
        check_hyperparameter("eps", eps, "epsilon value")
        check_hyperparameter("momentum", momentum, "momentum value")
        check_hyperparameter("weight_decay", weight_decay, "weight_decay value")
        check_hyperparameter("alpha", alpha, "alpha value")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = run_closure(closure)
        for group in self.param_groups:
            check_capturable(group)
            check_differentiable(group)
            alpha = group["alpha"]
            momentum = group["momentum"]
            for param, grad in grads_of(group):
                data = param._data
                state = self.state[param]
                if not state:
                    state["step"] = step_tensor()
                    state["square_avg"] = state_tensor(np.zeros_like(data))
                    if momentum > 0:
                        state["momentum_buffer"] = state_tensor(np.zeros_like(data))
                    if group["centered"]:
                        state["grad_avg"] = state_tensor(np.zeros_like(data))
                if group["maximize"]:
                    grad = -grad
                state["step"]._data += 1
                if group["weight_decay"] != 0:
                    grad = grad + group["weight_decay"] * data
                square_avg = state["square_avg"]._data
                square_avg *= alpha
                square_avg += (1 - alpha) * grad * grad
                if group["centered"]:
                    grad_avg = state["grad_avg"]._data
                    grad_avg += (1 - alpha) * (grad - grad_avg)
                    average = np.sqrt(square_avg - grad_avg * grad_avg)
                else:
                    average = np.sqrt(square_avg)
                average += group["eps"]
                if momentum > 0:
                    buffer = state["momentum_buffer"]._data
                    buffer *= momentum
                    buffer += grad / average
                    data -= group["lr"] * buffer
                else:
                    data -= group["lr"] * (grad / average)
                param._bump_version()
        return loss
