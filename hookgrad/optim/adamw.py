"""``AdamW``: Adam with decoupled weight decay (Loshchilov & Hutter)."""

from __future__ import annotations

from typing import Any

from hookgrad.optim.adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam whose weight decay multiplies the parameters by ``1 - lr * weight_decay`` before
    each update instead of adding to the gradient (default ``weight_decay=0.01``).

    Example::

        opt = optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
