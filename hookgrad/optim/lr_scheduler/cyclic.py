"""Per-batch cycles: ``CyclicLR`` (triangular cycles between two bounds) and
``OneCycleLR`` (the 1cycle policy). Both may cycle the momentum (or Adam's ``beta1``)
inversely to the learning rate."""

from __future__ import annotations

import math
import types
from functools import partial
from typing import Any, Literal

from hookgrad.optim.lr_scheduler.base import (
    LRScheduler,
    format_param,
    set_group_value,
    warn_get_lr_called_outside_step,
)
from hookgrad.optim.optimizer import Optimizer

__all__ = ["CyclicLR", "OneCycleLR"]


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _uses_beta1(optimizer: Optimizer) -> bool:
    """Whether momentum is the first of ``betas`` (Adam ...) rather than ``momentum``;
    raises if the optimizer has neither."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    return "betas" in optimizer.defaults


def _set_momentum(group: dict[str, Any], momentum: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """Cycle each group's learning rate between ``base_lr`` and ``max_lr``: up for
    ``step_size_up`` steps, down for ``step_size_down`` (default: as many), the amplitude
    scaled by ``mode`` (``"triangular"``: constant; ``"triangular2"``: halved each cycle;
    ``"exp_range"``: times ``gamma**iteration``) or by ``scale_fn`` of the cycle or the
    iteration (``scale_mode``). With ``cycle_momentum`` the momentum (or ``beta1``) cycles
    the other way between ``max_momentum`` and ``base_momentum``. Step it after each batch.

    Example::

        opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        scheduler = lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: Literal["triangular", "triangular2", "exp_range"] = "triangular",
        gamma: float = 1.0,
        scale_fn: Any = None,
        scale_mode: Literal["cycle", "iterations"] = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                set_group_value(group, "lr", lr)
        self.max_lrs = format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(optimizer)
            self.base_momentums = format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups, strict=True
                ):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or iteration) ``x``: ``scale_fn``'s, or the
        mode's.

        Example::

            lr_scheduler.CyclicLR(opt, 0.01, 0.1, mode="triangular2").scale_fn(3)   # 0.25
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma**x

    def get_lr(self) -> list[Any]:
        """Each group's rate at batch ``last_epoch`` of the cycle; with ``cycle_momentum``
        this also sets each group's momentum."""
        warn_get_lr_called_outside_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = []
        for base, high in zip(self.base_lrs, self.max_lrs, strict=True):
            height = (high - base) * scale_factor
            lrs.append(base + height * self.scale_fn(at))
        if self.cycle_momentum:
            momentums = []
            for low, high in zip(self.base_momentums, self.max_momentums, strict=True):
                height = (high - low) * scale_factor
                momentums.append(high - height * self.scale_fn(at))
            for group, momentum in zip(self.optimizer.param_groups, momentums, strict=True):
                _set_momentum(group, momentum, self.use_beta1)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """As ``LRScheduler.state_dict``, without the mode's scale function; a custom
        ``scale_fn`` is saved only if it is a callable object (its ``__dict__``).

        Example::

            state = scheduler.state_dict()    # state["_scale_fn_custom"] is None
        """
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a ``state_dict()``.

        Example::

            scheduler.load_state_dict(saved)
        """
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the learning rate rises from ``max_lr / div_factor`` to
    ``max_lr`` over the first ``pct_start`` of ``total_steps`` (or ``epochs *
    steps_per_epoch``) steps, then falls to ``initial_lr / final_div_factor`` (with
    ``three_phase``: back to the initial rate, then down to the minimum), annealed by
    cosine or linearly; the momentum (or ``beta1``) moves the other way between
    ``max_momentum`` and ``base_momentum``. Step it after each batch; stepping past
    ``total_steps`` raises a ValueError.

    Example::

        scheduler = lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=10, steps_per_epoch=100)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = format_param("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for index, group in enumerate(self.optimizer.param_groups):
                group["initial_lr"] = max_lrs[index] / div_factor
                group["max_lr"] = max_lrs[index]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(self.optimizer)
            highs = format_param("max_momentum", optimizer, max_momentum)
            lows = format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for high, low, group in zip(highs, lows, optimizer.param_groups, strict=True):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        if self._anneal_func_type == "linear":
            return self._annealing_linear(start, end, pct)
        raise ValueError(f"Unknown _anneal_func_type: {self._anneal_func_type}")

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        """Cosine anneal from ``start`` to ``end`` as ``pct`` goes from 0.0 to 1.0."""
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        """Linear anneal from ``start`` to ``end`` as ``pct`` goes from 0.0 to 1.0."""
        return (end - start) * pct + start

    def get_lr(self) -> list[Any]:
        """Each group's rate at step ``last_epoch`` of its phase; with ``cycle_momentum``
        this also sets each group's momentum."""
        warn_get_lr_called_outside_step(self)
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for index, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or index == last:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(group, momentum, self.use_beta1)
        return lrs


def _total_steps(total_steps: int | None, epochs: int | None, per_epoch: int | None) -> int:
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(per_epoch, int) or per_epoch <= 0:
            raise ValueError(f"Expected positive integer steps_per_epoch, but got {per_epoch}")
        return epochs * per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _phases(pct_start: float, total_steps: int, three_phase: bool) -> list[dict[str, Any]]:
    """OneCycleLR's phases: the step each ends at and the group keys it anneals between."""
    warm_up = {
        "end_step": float(pct_start * total_steps) - 1,
        "start_lr": "initial_lr",
        "end_lr": "max_lr",
        "start_momentum": "max_momentum",
        "end_momentum": "base_momentum",
    }
    if not three_phase:
        return [
            warm_up,
            {
                "end_step": total_steps - 1,
                "start_lr": "max_lr",
                "end_lr": "min_lr",
                "start_momentum": "base_momentum",
                "end_momentum": "max_momentum",
            },
        ]
    return [
        warm_up,
        {
            "end_step": float(2 * pct_start * total_steps) - 2,
            "start_lr": "max_lr",
            "end_lr": "initial_lr",
            "start_momentum": "base_momentum",
            "end_momentum": "max_momentum",
        },
        {
            "end_step": total_steps - 1,
            "start_lr": "initial_lr",
            "end_lr": "min_lr",
            "start_momentum": "max_momentum",
            "end_momentum": "max_momentum",
        },
    ]
