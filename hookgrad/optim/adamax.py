"""``Adamax``: Adam with the infinity norm in place of the root mean square."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.grad_mode import no_grad
from hookgrad.optim import kernels as K
from hookgrad.optim.optimizer import (
    Optimizer,
    check_capturable,
    check_differentiable,
    check_lr,
    increment,
    run_closure,
    scalar,
    state_tensor,
    step_tensor,
    with_grads,
    write,
)

__all__ = ["Adamax"]


def check_betas(betas: tuple[float, float]) -> None:
    """torch's check: each beta in ``[0, 1)``."""
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, section 7), step for step as torch's single-tensor loop:

    ``g = grad + weight_decay * p``; ``m = lerp(m, g, 1 - beta1)``;
    ``u = max(beta2 * u, |g| + eps)``; ``p -= lr / (1 - beta1**t) * m / u``. Complex
    parameters are updated as pairs of reals. Parameters match torch's bit for bit.

    Example::

        opt = optim.Adamax(model.parameters(), lr=2e-3, betas=(0.9, 0.999))
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss.

        Example::

            loss.backward()
            opt.step()
        """
        loss = run_closure(closure)
        for group in self.param_groups:
            check_capturable(group)
            check_differentiable(group)
            for param in with_grads(group):
                self._update(param, group)
        return loss

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        state = self.state[param]
        if not state:
            state["step"] = step_tensor()
            state["exp_avg"] = state_tensor(np.zeros_like(param._data))
            state["exp_inf"] = state_tensor(np.zeros_like(param._data))
        grad = param.grad._data
        if group["maximize"]:
            grad = -grad
        step = increment(state["step"])
        if group["weight_decay"] != 0:
            grad = K.add(grad, param._data, group["weight_decay"])
        data = K.as_real(param._data)
        grad = K.as_real(grad)
        exp_avg = K.as_real(state["exp_avg"]._data)
        exp_inf = K.as_real(state["exp_inf"]._data)
        write(exp_avg, K.lerp(exp_avg, grad, 1 - beta1))
        write(exp_inf, np.maximum(K.mul(exp_inf, beta2), K.add(np.abs(grad), group["eps"])))
        clr = scalar(group["lr"]) / (1 - beta1**step)
        write(data, K.addcdiv(data, exp_avg, exp_inf, -clr))
        param._bump_version()
