"""``RAdam``: Adam with the variance of the adaptive learning rate rectified (Liu et al.)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.grad_mode import no_grad
from hookgrad.optim import kernels as K
from hookgrad.optim.adamax import check_betas
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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam, step for step as torch's single-tensor loop:

    ``m = lerp(m, g, 1 - beta1)``; ``v = beta2 v + (1 - beta2) g**2``; with
    ``rho_inf = 2 / (1 - beta2) - 1`` and ``rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)``,
    while ``rho_t <= 5`` the step is momentum SGD, ``p -= lr * m / (1 - beta1**t)``;
    afterwards it is multiplied by the adaptive rate ``sqrt(1 - beta2**t) / (sqrt(v) + eps)``
    and the rectification ``sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf -
    2) rho_t))``. Weight decay is added to the gradient, or with ``decoupled_weight_decay``
    multiplies ``p`` by ``1 - lr * weight_decay`` first. Parameters match torch's bit for
    bit given torch's square root (see ``hookgrad.optim.kernels``), else to about one ulp.

    Example::

        opt = optim.RAdam(model.parameters(), lr=1e-3, decoupled_weight_decay=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
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
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
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
        lr, weight_decay = scalar(group["lr"]), group["weight_decay"]
        state = self.state[param]
        if not state:
            state["step"] = step_tensor()
            state["exp_avg"] = state_tensor(np.zeros_like(param._data))
            state["exp_avg_sq"] = state_tensor(np.zeros_like(param._data))
        grad = param.grad._data
        if group["maximize"]:
            grad = -grad
        data = K.as_real(param._data)
        grad = K.as_real(grad)
        exp_avg = K.as_real(state["exp_avg"]._data)
        exp_avg_sq = K.as_real(state["exp_avg_sq"]._data)
        step = increment(state["step"])
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                write(data, K.mul(data, 1 - lr * weight_decay))
            else:
                grad = K.add(grad, data, weight_decay)
        write(exp_avg, K.lerp(exp_avg, grad, 1 - beta1))
        write(exp_avg_sq, K.addcmul(K.mul(exp_avg_sq, beta2), grad, grad, 1 - beta2))
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        update = K.mul(K.div(exp_avg, bias_correction1), lr)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2**step / bias_correction2
        if rho_t > 5.0:
            root = K.add(K.sqrt(exp_avg_sq), group["eps"])
            adaptive = K.mul(K.div(np.ones_like(root), root), bias_correction2**0.5)
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            update = K.mul(K.mul(update, adaptive), rect)
        write(data, K.add(data, update, -1.0))
        param._bump_version()
