"""Weight averaging, torch's ``torch.optim.swa_utils``: ``AveragedModel`` (stochastic
weight averaging, or an exponential moving average of the weights), the averaging
functions it takes, ``SWALR`` (the learning rate for the averaging phase) and
``update_bn`` (recompute batch-norm statistics for the averaged weights)."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from copy import deepcopy
from typing import Any, Literal

import hookgrad
from hookgrad.grad_mode import no_grad
from hookgrad.nn.modules.module import Module
from hookgrad.nn.modules.normalization import _BatchNorm
from hookgrad.optim import kernels as K
from hookgrad.optim.lr_scheduler.base import LRScheduler, format_param
from hookgrad.optim.optimizer import Optimizer, write
from hookgrad.tensor import Tensor

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]

ParamList = Sequence[Tensor]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def _lerp_(targets: ParamList, ends: ParamList, weight: float) -> None:
    """``target.lerp_(end, weight)`` for each pair, rounded as torch's ``lerp_``."""
    for target, end in zip(targets, ends, strict=True):
        data = K.as_real(target._data)
        write(data, K.lerp(data, K.as_real(end._data), weight))
        target._bump_version()


def _is_float(tensor: Tensor) -> bool:
    return tensor.is_floating_point() or tensor.is_complex()


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[ParamList, ParamList, Any], None]:
    """An exponential moving average for ``AveragedModel(multi_avg_fn=...)``:
    ``ema = decay * ema + (1 - decay) * param`` for all parameters at once (as a
    ``lerp`` toward the parameters, as torch computes it).

    Example::

        ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999))
    """
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list: ParamList, current_param_list: ParamList, _: Any) -> None:
        if _is_float(ema_param_list[0]):
            _lerp_(ema_param_list, current_param_list, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[ParamList, ParamList, Any], None]:
    """The running mean for ``AveragedModel(multi_avg_fn=...)``:
    ``avg += (param - avg) / (n + 1)`` for all parameters at once, ``n`` the number of
    models averaged so far.

    Example::

        swa_model = AveragedModel(model, multi_avg_fn=get_swa_multi_avg_fn())
    """

    @no_grad()
    def swa_update(
        averaged_param_list: ParamList, current_param_list: ParamList, num_averaged: Any
    ) -> None:
        if _is_float(averaged_param_list[0]):
            _lerp_(averaged_param_list, current_param_list, float(1 / (num_averaged + 1)))
            return
        for averaged, current in zip(averaged_param_list, current_param_list, strict=True):
            diff = current - averaged
            if isinstance(num_averaged, Tensor):
                averaged.addcdiv_(diff, num_averaged + 1)
            else:
                averaged.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """An exponential moving average for ``AveragedModel(avg_fn=...)``: returns
    ``decay * ema_param + (1 - decay) * current_param``.

    Example::

        ema_model = AveragedModel(model, avg_fn=get_ema_avg_fn(0.99))
    """
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The running mean for ``AveragedModel(avg_fn=...)``: returns
    ``averaged_param + (current_param - averaged_param) / (num_averaged + 1)``.

    Example::

        swa_model = AveragedModel(model, avg_fn=get_swa_avg_fn())
    """

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_dtype(averaged: list[Tensor], current: list[Tensor]) -> list[tuple[list, list]]:
    """The pairs grouped by dtype, groups in order of first appearance (torch's grouping
    by device and dtype, on the one device there is)."""
    groups: dict[Any, tuple[list, list]] = {}
    for a, c in zip(averaged, current):
        pair = groups.setdefault(a.dtype, ([], []))
        pair[0].append(a)
        pair[1].append(c)
    return list(groups.values())


class AveragedModel(Module):
    """A copy of ``model`` whose parameters are averaged over the models passed to
    ``update_parameters``: the first call copies them, later calls apply ``avg_fn``
    (per tensor: ``avg_fn(averaged, current, n_averaged)`` returns the new average) or
    ``multi_avg_fn`` (lists of tensors, updated in place); by default the running mean
    (stochastic weight averaging). With ``use_buffers`` the buffers are averaged too,
    else they are copied from ``model``. ``n_averaged`` counts the calls; calling the
    averaged model runs the copy.

    Example::

        swa_model = AveragedModel(model)
        for epoch in range(100):
            train_one_epoch(model)
            if epoch >= 75:
                swa_model.update_parameters(model)
        update_bn(loader, swa_model)
    """

    n_averaged: Tensor

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable[[Tensor, Tensor, Any], Tensor] | None = None,
        multi_avg_fn: Callable[[ParamList, ParamList, Any], None] | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", hookgrad.tensor(0, dtype=hookgrad.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Run the averaged copy of the model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Average ``model``'s parameters (and buffers, with ``use_buffers``) into this
        model's, and count one more model averaged.

        Example::

            swa_model.update_parameters(model)
        """
        if self.use_buffers:
            own = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            own, theirs = self.parameters(), model.parameters()
        averaged: list[Tensor] = []
        current: list[Tensor] = []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(own, theirs):
            p_model_ = p_model.detach()
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                for own_group, their_group in _group_by_dtype(averaged, current):
                    if self.multi_avg_fn:
                        self.multi_avg_fn(own_group, their_group, self.n_averaged)
                    else:
                        avg_fn = get_swa_avg_fn()
                        for p_averaged, p_model in zip(own_group, their_group, strict=True):
                            p_averaged.copy_(avg_fn(p_averaged, p_model, self.n_averaged))
            else:
                for p_averaged, p_model in zip(averaged, current, strict=True):
                    p_averaged.detach().copy_(
                        self.avg_fn(p_averaged.detach(), p_model, self.n_averaged)
                    )
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach())
        self.n_averaged += 1


@no_grad()
def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of every batch-norm layer of ``model`` with one
    pass over ``loader`` (each batch, or its first element, is fed to ``model`` in
    training mode): the statistics are reset and averaged over all batches
    (``momentum=None``); each layer's momentum and the model's mode are then restored.

    Example::

        update_bn(train_loader, swa_model)
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """The learning rate for the averaging phase: anneals each group's rate to
    ``swa_lr`` (one value, or one per group) over ``anneal_epochs`` epochs, by cosine or
    linearly (``anneal_strategy``), then keeps it.

    Example::

        swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=5)
        for epoch in range(100):
            train_one_epoch()
            if epoch >= 75:
                swa_model.update_parameters(model)
                swa_scheduler.step()
    """

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        last_epoch: int = -1,
    ) -> None:
        swa_lrs = format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[Any]:
        """Each group's rate, a step further from its starting rate toward ``swa_lr``."""
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)
        ]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        if anneal_strategy == "cos":
            self.anneal_func = self._cosine_anneal
        else:
            self.anneal_func = self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer and the annealing function.

        Example::

            hookgrad.save(swa_scheduler.state_dict(), "swalr.pt")
        """
        return {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "anneal_func")
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a ``state_dict()``.

        Example::

            swa_scheduler.load_state_dict(saved)
        """
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
