"""``Adafactor``: Adam-like steps with a factored second moment (Shazeer & Stern)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.grad_mode import no_grad
from hookgrad.ops import array_api
from hookgrad.optim import kernels as K
from hookgrad.optim.optimizer import (
    Optimizer,
    increment,
    run_closure,
    scalar,
    state_tensor,
    step_tensor,
    with_grads,
    write,
)
from hookgrad.tensor import Tensor

__all__ = ["Adafactor"]


def _norm(array: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The 2-norm (over ``axis``, kept as a dimension of size 1; else of everything)."""
    squares = array * array
    if axis is None:
        return np.sqrt(array_api.sum(squares))
    return np.sqrt(array_api.sum(squares, axis, keepdim=True))


class Adafactor(Optimizer):
    """Adafactor as torch's single-tensor loop runs it. The second moment of a matrix
    (or of each matrix of a batch) is kept as its row and column means of squares,
    ``row_var`` and ``col_var``, averaged with weight ``t**beta2_decay``, and estimated
    as their outer product over the mean of ``row_var``; a vector keeps ``variance``
    whole. The update ``g / sqrt(max(v, eps1**2))`` is divided by ``max(1, rms / d)``
    and applied with step ``max(eps2, rms(p)) * min(lr, 1 / sqrt(t))``; weight decay
    multiplies ``p`` by ``1 - lr * weight_decay``. ``eps[0]=None`` is the machine
    epsilon of the parameter's dtype.

    Parameters follow torch's to about 1e-6 relative: torch's norms and reciprocal
    square roots round differently from NumPy's.

    Example::

        opt = optim.Adafactor(model.parameters(), lr=1e-2, beta2_decay=-0.8)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(
            lr=lr,
            beta2_decay=beta2_decay,
            eps=eps,
            d=d,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
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
            params = with_grads(group)
            for param in params:
                if param.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
            for param in params:
                self._init_state(param)
            eps1 = group["eps"][0]
            for param in params:
                if eps1 is None:
                    eps1 = float(np.finfo(param._data.dtype).eps)
                self._update(param, group, eps1)
        return loss

    def _init_state(self, param: Any) -> None:
        state = self.state[param]
        if state:
            return
        state["step"] = step_tensor()
        grad = param.grad._data
        if grad.ndim > 1:
            state["row_var"] = state_tensor(np.zeros((*grad.shape[:-1], 1), grad.dtype))
            shape = (*grad.shape[:-2], 1, grad.shape[-1])
            state["col_var"] = state_tensor(np.zeros(shape, grad.dtype))
        else:
            state["variance"] = state_tensor(np.zeros_like(grad))

    def _update(self, param: Any, group: dict[str, Any], eps1: float) -> None:
        state = self.state[param]
        lr, data = scalar(group["lr"]), param._data
        grad = param.grad._data
        if group["maximize"]:
            grad = -grad
        step = increment(state["step"])
        one_minus_beta2_t = step ** group["beta2_decay"]
        rho_t = min(lr, 1 / step**0.5)
        alpha = max(group["eps"][1], float(_norm(data)) / data.size**0.5) * rho_t
        if group["weight_decay"] != 0:
            write(data, K.mul(data, 1 - lr * group["weight_decay"]))
        if grad.ndim > 1:
            row_var, col_var = state["row_var"]._data, state["col_var"]._data
            row_mean = K.div(np.square(_norm(grad, -1)), grad.shape[-1])
            write(row_var, K.lerp(row_var, row_mean, one_minus_beta2_t))
            col_mean = K.div(np.square(_norm(grad, -2)), grad.shape[-2])
            write(col_var, K.lerp(col_var, col_mean, one_minus_beta2_t))
            row_mean_var = np.maximum(array_api.mean(row_var, -2, keepdim=True), eps1)
            var_estimate = K.div(row_var * col_var, row_mean_var)
        else:
            variance = state["variance"]._data
            write(variance, K.lerp(variance, grad * grad, one_minus_beta2_t))
            var_estimate = variance.copy()
        update = K.mul(1 / K.sqrt(np.maximum(var_estimate, eps1 * eps1)), grad)
        denom = max(1.0, float(_norm(update)) / (update.size**0.5 * group["d"]))
        write(data, K.add(data, update, -alpha / denom))
        param._bump_version()
