"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov momentum and
weight decay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookgrad.grad_mode import no_grad
from hookgrad.optim.optimizer import (
    Optimizer,
    check_differentiable,
    check_hyperparameter,
    grads_of,
    run_closure,
    state_tensor,
)

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, step for step as torch's:

    ``g = grad + weight_decay * p``; with momentum ``buf = momentum * buf + (1 - dampening) * g``
    (``buf = g`` on the first step) and ``g = buf`` (or ``g + momentum * buf`` with
    ``nesterov``); then ``p -= lr * g``. ``maximize`` ascends instead.

    Example::

        opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_hyperparameter("lr", lr, "learning rate")
        check_hyperparameter("momentum", momentum, "momentum value")
        check_hyperparameter("weight_decay", weight_decay, "weight_decay value")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = run_closure(closure)
        for group in self.param_groups:
            check_differentiable(group)
            momentum = group["momentum"]
            for param, grad in grads_of(group):
                data = param._data
                if group["maximize"]:
                    grad = -grad
                if group["weight_decay"] != 0:
                    grad = grad + group["weight_decay"] * data
                if momentum != 0:
                    state = self.state[param]
                    buffer = state.get("momentum_buffer")
                    if buffer is None:
                        buffer = state["momentum_buffer"] = state_tensor(grad.copy())
                    else:
                        buffer._data *= momentum
                        buffer._data += (1 - group["dampening"]) * grad
                    if group["nesterov"]:
                        grad = grad + momentum * buffer._data
                    else:
                        grad = buffer._data
                data -= group["lr"] * grad
                param._bump_version()
        return loss
