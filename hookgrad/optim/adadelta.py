"""``Adadelta``: step sizes from running averages of squared gradients and updates."""

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

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler), step for step as torch's single-tensor loop:

    ``v = rho v + (1 - rho) g**2``; ``delta = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho u + (1 - rho) delta**2``; ``p -= lr * delta``, with ``g`` the gradient plus
    ``weight_decay * p``. Parameters match torch's bit for bit given torch's square root
    (see ``hookgrad.optim.kernels``), else to about one float ulp.

    Example::

        opt = optim.Adadelta(model.parameters(), lr=1.0, rho=0.9)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
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
            check_capturable(group, supports_xla=False)
            check_differentiable(group)
            for param in with_grads(group):
                self._update(param, group)
        return loss

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        rho, eps = group["rho"], group["eps"]
        state = self.state[param]
        if not state:
            state["step"] = step_tensor()
            state["square_avg"] = state_tensor(np.zeros_like(param._data))
            state["acc_delta"] = state_tensor(np.zeros_like(param._data))
        increment(state["step"])
        grad = param.grad._data
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = K.add(grad, param._data, group["weight_decay"])
        grad = K.as_real(grad)
        square_avg = K.as_real(state["square_avg"]._data)
        acc_delta = K.as_real(state["acc_delta"]._data)
        write(square_avg, K.addcmul(K.mul(square_avg, rho), grad, grad, 1 - rho))
        std = K.sqrt(K.add(square_avg, eps))
        delta = np.asarray(K.mul(K.div(K.sqrt(K.add(acc_delta, eps)), std), grad))
        write(acc_delta, K.addcmul(K.mul(acc_delta, rho), delta, delta, 1 - rho))
        if param.is_complex():  # NOTE: torch adds the complex delta to the complex param
            delta = delta.view(param._data.dtype).reshape(param._data.shape)
        write(param._data, K.add(param._data, delta, -scalar(group["lr"])))
        param._bump_version()
