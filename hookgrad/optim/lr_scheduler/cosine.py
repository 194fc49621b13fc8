"""Cosine annealing: ``CosineAnnealingLR`` (torch's recursive form, chainable) and
``CosineAnnealingWarmRestarts`` (SGDR, restarting every ``T_i`` epochs)."""

from __future__ import annotations

import math
from typing import Any

from hookgrad.optim.lr_scheduler.base import (
    LRScheduler,
    _GetLrWithinStep,
    group_values,
    set_group_value,
    warn_get_lr_called_outside_step,
)
from hookgrad.optim.optimizer import Optimizer

__all__ = ["CosineAnnealingLR", "CosineAnnealingWarmRestarts"]


class CosineAnnealingLR(LRScheduler):
    """Anneal the learning rate from its base value to ``eta_min`` along half a cosine over
    ``T_max`` epochs (then back up, periodically), with torch's recursive update.

    Example::

        scheduler = lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=1e-4)
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The next rate of each group, from its current ``lr`` (torch's recursion)."""
        warn_get_lr_called_outside_step(self)
        epoch, period, low = self.last_epoch, self.T_max, self.eta_min
        groups = self.optimizer.param_groups
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        if self._step_count == 1 and epoch > 0:
            return [
                low + (base - low) * (1 + math.cos(epoch * math.pi / period)) / 2
                for base in self.base_lrs
            ]
        if (epoch - 1 - period) % (2 * period) == 0:
            return [
                group["lr"] + (base - low) * (1 - math.cos(math.pi / period)) / 2
                for base, group in zip(self.base_lrs, groups, strict=True)
            ]
        return [
            (1 + math.cos(math.pi * epoch / period))
            / (1 + math.cos(math.pi * (epoch - 1) / period))
            * (group["lr"] - low)
            + low
            for group in groups
        ]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base in self.base_lrs
        ]


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``,
    where ``T_cur`` counts the epochs since the last restart and the period ``T_i`` starts
    at ``T_0`` and is multiplied by ``T_mult`` at each restart. ``step`` may be given a
    fractional epoch (``epoch + i / iters``) to anneal within an epoch.

    Example::

        scheduler = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=2)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: Any = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """Each group's rate at ``T_cur`` of the current period ``T_i``."""
        warn_get_lr_called_outside_step(self)
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base in self.base_lrs
        ]

    def step(self, epoch: Any = None) -> None:
        """Advance one epoch, or go to ``epoch`` (which may be fractional), restarting the
        cosine where a period ends.

        Example::

            for epoch in range(20):
                for i, batch in enumerate(loader):
                    train(batch)
                    scheduler.step(epoch + i / len(loader))
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _GetLrWithinStep(self):
            for group, lr in zip(self.optimizer.param_groups, self.get_lr(), strict=True):
                set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer, "lr")
