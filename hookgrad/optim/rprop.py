"""``Rprop``: resilient backpropagation, a per-element step size driven by gradient signs."""

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

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop, step for step as torch's single-tensor loop: each element's step size is
    multiplied by ``etas[1]`` where the gradient kept its sign since the last step, by
    ``etas[0]`` where it flipped (and that element's gradient is then taken as 0), and
    clamped to ``step_sizes``; then ``p -= sign(g) * step_size``. Step sizes start at
    ``lr``. Parameters match torch's bit for bit.

    Example::

        opt = optim.Rprop(model.parameters(), lr=0.01, etas=(0.5, 1.2))
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
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
        etaminus, etaplus = group["etas"]
        low, high = group["step_sizes"]
        state = self.state[param]
        if not state:
            state["step"] = step_tensor()
            state["prev"] = state_tensor(np.zeros_like(param._data))
            lr = scalar(group["lr"])
            fill = complex(lr, lr) if param.is_complex() else lr
            state["step_size"] = state_tensor(np.full_like(param.grad._data, fill))
        grad = param.grad._data
        if group["maximize"]:
            grad = -grad
        increment(state["step"])
        grad = K.as_real(grad)
        prev = K.as_real(state["prev"]._data)
        data = K.as_real(param._data)
        step_size = K.as_real(state["step_size"]._data)
        sign = np.array(np.sign(grad * prev))  # NOTE: an array, also for 0-d tensors
        dtype = sign.dtype.type
        sign[sign > 0] = dtype(etaplus)
        sign[sign < 0] = dtype(etaminus)
        sign[sign == 0] = 1
        write(step_size, np.clip(step_size * sign, dtype(low), dtype(high)))
        grad = np.array(grad)
        grad[sign == dtype(etaminus)] = 0
        write(data, K.addcmul(data, np.sign(grad), step_size, value=-1))
        write(prev, grad)
        param._bump_version()
