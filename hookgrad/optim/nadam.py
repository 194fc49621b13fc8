"""``NAdam``: Adam with Nesterov momentum (Dozat), with momentum decay."""

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
    scalar_tensor,
    state_tensor,
    step_tensor,
    with_grads,
    write,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam, step for step as torch's single-tensor loop. With the momentum schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay))`` and its running product
    (kept as a 0-d tensor, ``mu_product``, as torch keeps it):

    ``m = lerp(m, g, 1 - beta1)``; ``v = beta2 v + (1 - beta2) g**2``;
    ``d = sqrt(v / (1 - beta2**t)) + eps``; then
    ``p -= lr (1 - mu_t) / (1 - prod mu) * g / d + lr mu_{t+1} / (1 - prod mu mu_{t+1}) * m / d``.
    Weight decay is added to the gradient, or with ``decoupled_weight_decay`` multiplies
    ``p`` by ``1 - lr * weight_decay`` first (NAdamW). Parameters match torch's bit for bit
    given torch's square root (see ``hookgrad.optim.kernels``), else to about one float ulp.

    Example::

        opt = optim.NAdam(model.parameters(), lr=2e-3, momentum_decay=4e-3)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
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
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
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
            check_capturable(group, "params, mu_products and state_steps")
            check_differentiable(group)
            for param in with_grads(group):
                self._update(param, group)
        return loss

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, weight_decay, decay = (
            scalar(group["lr"]),
            group["weight_decay"],
            group["momentum_decay"],
        )
        state = self.state[param]
        if not state:
            state["step"] = step_tensor()
            state["mu_product"] = scalar_tensor(1.0)
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
        bias_correction2 = 1 - beta2**step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                write(data, K.mul(data, 1 - lr * weight_decay))
            else:
                grad = K.add(grad, data, weight_decay)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        mu_product = state["mu_product"]
        write(mu_product._data, K.mul(mu_product._data, mu))
        write(exp_avg, K.lerp(exp_avg, grad, 1 - beta1))
        write(exp_avg_sq, K.addcmul(K.mul(exp_avg_sq, beta2), grad, grad, 1 - beta2))
        denom = K.sqrt(K.div(exp_avg_sq, bias_correction2))
        product = float(mu_product._data)
        product_next = product * mu_next
        denom = K.add(denom, group["eps"])
        data_next = K.addcdiv(data, grad, denom, -lr * (1.0 - mu) / (1.0 - product))
        write(data, K.addcdiv(data_next, exp_avg, denom, -lr * mu_next / (1.0 - product_next)))
        param._bump_version()
