"""``ASGD``: averaged stochastic gradient descent (Polyak & Juditsky)."""

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
    scalar_dtype,
    scalar_tensor,
    state_tensor,
    step_tensor,
    with_grads,
    write,
)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD, step for step as torch's single-tensor loop: with the step size
    ``eta`` (starting at ``lr``), ``p *= 1 - lambd * eta`` then ``p -= eta * g``; the
    average ``ax`` follows ``p`` (a copy until step ``t0``, then a running mean with weight
    ``mu``); then ``eta = lr / (1 + lambd * lr * t)**alpha`` and
    ``mu = 1 / max(1, t - t0)``, kept as 0-d tensors as torch keeps them. The averaged
    parameters are ``opt.state[p]["ax"]``. Parameters match torch's bit for bit.

    Example::

        opt = optim.ASGD(model.parameters(), lr=0.01, t0=100)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
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
            check_capturable(group, "params, mus, etas, and state_steps")
            check_differentiable(group)
            for param in with_grads(group):
                self._update(param, group)
        return loss

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        lr, lambd = scalar(group["lr"]), group["lambd"]
        state = self.state[param]
        if not state:
            state["step"] = step_tensor()
            state["eta"] = scalar_tensor(lr)
            state["mu"] = scalar_tensor(1.0)
            state["ax"] = state_tensor(np.zeros_like(param._data))
        grad = param.grad._data
        if group["maximize"]:
            grad = -grad
        grad = K.as_real(grad)
        data = K.as_real(param._data)
        ax = K.as_real(state["ax"]._data)
        step = increment(state["step"])
        if group["weight_decay"] != 0:
            grad = K.add(grad, data, group["weight_decay"])
        eta = float(state["eta"]._data)
        write(data, K.mul(data, 1 - lambd * eta))
        write(data, K.add(data, grad, -eta))
        mu = float(state["mu"]._data)
        if mu != 1:
            write(ax, K.add(ax, K.mul(data - ax, mu)))
        else:
            write(ax, data)
        dtype = scalar_dtype().type
        state["eta"]._data[...] = dtype(lr / (1 + lambd * lr * step) ** group["alpha"])
        state["mu"]._data[...] = dtype(1 / max(1, step - group["t0"]))
        param._bump_version()
