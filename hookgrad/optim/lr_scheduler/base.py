"""``LRScheduler``, the base of every scheduler, and the helpers its subclasses share.

A scheduler sets ``group["lr"]`` of its optimizer's parameter groups each time ``step()``
is called, with torch's formulas in torch's order, so the learning rates are torch's to
the last bit. Construction performs the first step (epoch 0) and wraps the optimizer's
``step`` so that a scheduler stepped before its optimizer warns, as torch's does.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import wraps
from typing import Any
from weakref import ref

from hookgrad.optim.optimizer import Optimizer
from hookgrad.tensor import Tensor

__all__ = ["EPOCH_DEPRECATION_WARNING", "LRScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """``param`` once per parameter group: a list or tuple must have one entry per group,
    anything else is repeated (tensors are copied)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(param)} values, param_groups has "
                f"{len(optimizer.param_groups)}."
            )
    else:
        param = [param] * len(optimizer.param_groups)
    return [_copy(value) for value in param]


def group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """``group[key]`` of every parameter group (tensors copied, so that changing one in
    place changes no learning rate)."""
    return [_copy(group[key]) for group in optimizer.param_groups]


def set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """``group[key] = value``; a tensor ``group[key]`` is filled in place instead."""
    if isinstance(group[key], Tensor):
        group[key].fill_(value.item() if isinstance(value, Tensor) else value)
    else:
        group[key] = value


def _copy(value: Any) -> Any:
    return value.clone() if isinstance(value, Tensor) else value


def warn_get_lr_called_outside_step(scheduler: LRScheduler) -> None:
    """torch's warning when ``get_lr()`` is called by the user rather than by ``step()``."""
    if not scheduler._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=2,
        )


class _GetLrWithinStep:
    """``with _GetLrWithinStep(s):`` marks ``get_lr()`` calls as made by ``step()``."""

    def __init__(self, scheduler: LRScheduler) -> None:
        self.scheduler = scheduler

    def __enter__(self) -> None:
        self.scheduler._get_lr_called_within_step = True

    def __exit__(self, *exc: object) -> None:
        self.scheduler._get_lr_called_within_step = False


class _InitialStep:
    """``with _InitialStep(s):`` marks the step made by the constructor."""

    def __init__(self, scheduler: LRScheduler) -> None:
        self.scheduler = scheduler

    def __enter__(self) -> None:
        self.scheduler._is_initial = True

    def __exit__(self, *exc: object) -> None:
        self.scheduler._is_initial = False


def _track_optimizer_steps(scheduler: LRScheduler) -> None:
    """Wrap the optimizer's ``step`` (once) so that it records that it ran; a scheduler
    stepped before it warns."""
    optimizer = scheduler.optimizer
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    optimizer_ref = ref(optimizer)
    func = optimizer.step.__func__  # type: ignore[attr-defined]

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = optimizer_ref()
        opt._opt_called = True  # type: ignore[union-attr]
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]


class LRScheduler:
    """Base class of learning-rate schedulers: remembers each group's ``initial_lr`` as
    ``base_lrs`` and sets each group's ``lr`` to ``get_lr()`` at each ``step()``;
    construction performs the first step (epoch 0).

    ``last_epoch`` is the index of the last epoch seen: ``-1`` starts a schedule, a
    larger value resumes one (the groups must then hold ``initial_lr``). A subclass
    implements ``get_lr()``, and may give ``_get_closed_form_lr()``, used when an epoch
    is passed to ``step``.

    Example::

        scheduler = lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
        for epoch in range(100):
            train_one_epoch()
            scheduler.step()
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for index, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{index}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)"
                    )
        self.base_lrs: list[Any] = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_steps(self)
        self._initial_step()

    def _initial_step(self) -> None:
        """Reset the step count and perform the constructor's step."""
        self._step_count = 0
        with _InitialStep(self):
            self.step()

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state: every attribute except the optimizer.

        Example::

            hookgrad.save(scheduler.state_dict(), "sched.pt")
        """
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the attributes saved by ``state_dict()``.

        Example::

            scheduler.load_state_dict(hookgrad.load("sched.pt"))
        """
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[Any]:
        """The learning rates the last ``step()`` set, one per parameter group (copies of
        tensor learning rates).

        Example::

            scheduler.get_last_lr()       # [0.1]
        """
        return self._last_lr

    def get_lr(self) -> list[Any]:
        """The learning rate of each group for the current ``last_epoch`` (called by
        ``step()``; use ``get_last_lr()`` to read the current rates)."""
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and set each group's ``lr``; call it after
        ``optimizer.step()``. Passing ``epoch`` (deprecated, with a warning) jumps to that
        epoch, with the closed form where the scheduler has one.

        Example::

            optimizer.step()
            scheduler.step()
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html"
                    "#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule. See more details at "
                    "https://pytorch.org/docs/stable/optim.html"
                    "#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        with _GetLrWithinStep(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form: Callable[[], list[Any]] | None = getattr(
                    self, "_get_closed_form_lr", None
                )
                values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = group_values(self.optimizer, "lr")


class _LRScheduler(LRScheduler):
    """The old name of ``LRScheduler``, kept (as torch keeps it) for schedulers written
    against it."""
