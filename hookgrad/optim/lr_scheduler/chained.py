"""Schedulers made of schedulers: ``SequentialLR`` (one after another, switching at
milestones) and ``ChainedScheduler`` (all of them at every step)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from hookgrad.optim.lr_scheduler.base import LRScheduler, group_values, set_group_value
from hookgrad.optim.lr_scheduler.plateau import ReduceLROnPlateau
from hookgrad.optim.optimizer import Optimizer

__all__ = ["ChainedScheduler", "SequentialLR"]


def _check_schedulers(owner: str, schedulers: Sequence[Any], optimizer: Optimizer) -> None:
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{index} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {scheduler.__class__.__name__} at index {index} has "
                f"{scheduler.optimizer}, which is different from "
                f"{optimizer.__class__.__name__}."
            )


class _Nested:
    """``state_dict`` for schedulers holding ``_schedulers``: theirs saved inside."""

    _schedulers: Sequence[Any]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer, with each inner scheduler's
        ``state_dict()`` under ``"_schedulers"``.

        Example::

            hookgrad.save(scheduler.state_dict(), "sched.pt")
        """
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "_schedulers")
        }
        state["_schedulers"] = [scheduler.state_dict() for scheduler in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a ``state_dict()``, the inner schedulers' included.

        Example::

            scheduler.load_state_dict(saved)
        """
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = saved
        for scheduler, state in zip(self._schedulers, saved):
            scheduler.load_state_dict(state)


class SequentialLR(_Nested, LRScheduler):
    """Run ``schedulers`` one after another: the first until ``milestones[0]``, the next
    until ``milestones[1]``, and so on; each starts from its own first epoch.

    Example::

        warmup = lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)
        decay = lr_scheduler.ExponentialLR(opt, gamma=0.9)
        scheduler = lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[5])
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        owner = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(owner, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in self.optimizer.param_groups:
            set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        index = bisect_right(self._milestones, 0)
        self._schedulers[index]._initial_step()
        self._last_lr = schedulers[index].get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Undo the step each inner scheduler (recursively) made when it was built.

        Example::

            scheduler.recursive_undo()      # called by the constructor
        """
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for inner in scheds._schedulers:
                self.recursive_undo(inner)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Step the scheduler of the current epoch (a scheduler taking over at a milestone
        starts at its epoch 0).

        Example::

            optimizer.step()
            scheduler.step()
        """
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Nested, LRScheduler):
    """Step every scheduler of ``schedulers`` at each ``step()``, in order, so that their
    changes compose (each multiplies the rate the previous one left).

    Example::

        scheduler = lr_scheduler.ChainedScheduler(
            [lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2),
             lr_scheduler.ExponentialLR(opt, gamma=0.9)]
        )
    """

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        owner = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{owner} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(owner, schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        """Step each scheduler in turn.

        Example::

            optimizer.step()
            scheduler.step()
        """
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = group_values(self._schedulers[-1].optimizer, "lr")
