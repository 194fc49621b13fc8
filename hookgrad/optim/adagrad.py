"""``Adagrad``: gradient scaled by the root of the running sum of its squares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.grad_mode import no_grad
from hookgrad.optim.optimizer import (
    Optimizer,
    check_differentiable,
    check_hyperparameter,
    grads_of,
    run_closure,
    state_tensor,
    step_tensor,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad, step for step as torch's: ``sum += g**2``, then
    ``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps)``. Its state (``step`` and
    ``sum``, filled with ``initial_accumulator_value``) exists from construction on.

    Example::

        opt = optim.Adagrad(model.parameters(), lr=0.1, lr_decay=1e-3)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_hyperparameter("lr", lr, "learning rate")
        check_hyperparameter("lr_decay", lr_decay, "lr_decay value")
        check_hyperparameter("weight_decay", weight_decay, "weight_decay value")
        check_hyperparameter(
            "initial_accumulator_value",
            initial_accumulator_value,
            "initial_accumulator_value value",
        )
        check_hyperparameter("eps", eps, "epsilon value")
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                state = self.state[param]
                state["step"] = step_tensor()
                initial = group["initial_accumulator_value"]
                state["sum"] = state_tensor(np.full_like(param._data, initial))

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = run_closure(closure)
        for group in self.param_groups:
            check_differentiable(group)
            for param, grad in grads_of(group):
                data = param._data
                state = self.state[param]
                state["step"]._data += 1
                step = float(state["step"]._data)
                if group["maximize"]:
                    grad = -grad
                if group["weight_decay"] != 0:
                    grad = grad + group["weight_decay"] * data
                rate = group["lr"] / (1 + (step - 1) * group["lr_decay"])
                total = state["sum"]._data
                total += grad * grad
                data -= rate * (grad / (np.sqrt(total) + group["eps"]))
                param._bump_version()
        return loss
