"""``Muon``: momentum SGD whose update is orthogonalised by a Newton-Schulz iteration.

torch runs the iteration in bfloat16. NumPy has no bfloat16, so here the values are
float32 arrays rounded to bfloat16 (nearest, ties to even) wherever torch's would be
rounded: after the cast, the normalisation and each matrix product. The products
themselves sum in NumPy's order, not in that of torch's bfloat16 kernels, so an update
element may differ from torch's by a bfloat16 rounding step (1/256 relative).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.grad_mode import no_grad
from hookgrad.optim import kernels as K
from hookgrad.optim.optimizer import Optimizer, run_closure, scalar, state_tensor, with_grads, write
from hookgrad.tensor import Tensor

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.775
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _bfloat16(x: np.ndarray | float) -> np.ndarray:
    """``x`` rounded to bfloat16 (via float32, as torch converts), kept in float32."""
    single = np.ascontiguousarray(x, dtype=np.float32)
    bits = single.view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(
        0xFFFF0000
    )
    return np.where(np.isnan(single), single, rounded.view(np.float32))


def _zeropower_via_newtonschulz(
    grad: np.ndarray, ns_coefficients: tuple[float, float, float], ns_steps: int, eps: float
) -> np.ndarray:
    """The orthogonal factor of ``grad`` (``U V^T`` of its SVD), approximately: ``ns_steps``
    iterations of ``X <- a X + (b X X^T + c (X X^T)^2) X`` from ``X = grad / |grad|``."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    ortho = _bfloat16(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        ortho = ortho.T
    norm = _bfloat16(np.sqrt(np.sum(ortho * ortho, dtype=np.float32)))
    ortho = _bfloat16(ortho / np.maximum(norm, _bfloat16(eps)))
    for _ in range(ns_steps):
        gram = _bfloat16(ortho @ ortho.T)
        gram_update = _bfloat16(np.float32(b) * gram + np.float32(c) * (gram @ gram))
        ortho = _bfloat16(np.float32(a) * ortho + gram_update @ ortho)
    return ortho.T if tall else ortho


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon (Jordan et al.), for 2-D parameters, as torch's: the momentum buffer
    ``buf = lerp(buf, g, 1 - momentum)`` (with ``nesterov``, the update starts from
    ``lerp(g, buf, momentum)``) is orthogonalised by ``ns_steps`` Newton-Schulz
    iterations with ``ns_coefficients``, then ``p *= 1 - lr * weight_decay`` and
    ``p -= adjusted_lr * update``, where ``adjust_lr_fn`` scales ``lr`` by
    ``sqrt(max(1, rows / cols))`` (``None``, ``"original"``) or
    ``0.2 * sqrt(max(rows, cols))`` (``"match_rms_adamw"``).

    The iteration runs in bfloat16 in torch; see the module's docstring for how closely
    hookgrad follows it (about 1e-4 relative on the parameters after a few steps).

    Example::

        hidden = [p for p in model.parameters() if p.ndim == 2]
        opt = optim.Muon(hidden, lr=0.02, momentum=0.95)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(
            lr=lr,
            weight_decay=weight_decay,
            momentum=momentum,
            nesterov=nesterov,
            ns_coefficients=ns_coefficients,
            eps=eps,
            ns_steps=ns_steps,
            adjust_lr_fn=adjust_lr_fn,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

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
                    raise RuntimeError("Muon does not support complex parameters")
                state = self.state[param]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = state_tensor(np.zeros_like(param.grad._data))
            for param in params:
                self._update(param, group)
        return loss

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        grad = param.grad._data
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        lr, momentum = scalar(group["lr"]), group["momentum"]
        buf = self.state[param]["momentum_buffer"]._data
        write(buf, K.lerp(buf, grad, 1 - momentum))
        update = K.lerp(grad, buf, momentum) if group["nesterov"] else buf
        update = _zeropower_via_newtonschulz(
            update, group["ns_coefficients"], group["ns_steps"], group["eps"]
        )
        adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], param.shape)
        data = param._data
        write(data, K.mul(data, 1 - lr * group["weight_decay"]))
        write(data, K.add(data, update.astype(data.dtype), -adjusted_lr))
        param._bump_version()
