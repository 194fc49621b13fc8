"""Finding and watching the models a script trains, with global hooks only.

A model is an outermost module: one called while no other module is running, with
parameters that require grad. The first call of each attaches a ``GradientMonitor``;
the first model also gets a ``trace_hooks`` for its first step. A training step ends
when an optimizer that holds the model's parameters steps (all the calls of an optimizer
that evaluates a closure, as LBFGS, are one step), or, for a model updated by
hand (``p.data.add_(-lr * p.grad)``), when the model is called again after a backward
pass reached it. ``--steps N`` ends the script after N steps of a model.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import hookgrad
from hookgrad import serialization
from hookgrad.hooks import HookDict
from hookgrad.nn.modules import global_hooks
from hookgrad.optim import optimizer as optimizer_module
from hookgrad.tensor import Tensor
from hookgrad.utils import GradientMonitor, trace_hooks

__all__ = ["Inspection", "StopScript", "Watched"]


class StopScript(BaseException):
    """Ends the script after ``--steps`` steps (a BaseException: a script's ``except
    Exception`` does not swallow it)."""


@dataclass
class Watched:
    """A model the script called, and what was recorded for it."""

    model: Any
    monitor: GradientMonitor
    steps: int = 0
    # An optimizer steps it: its steps end at ``optimizer.step()``.
    managed: bool = False
    parameter_ids: set[int] = field(default_factory=set)
    # The monitor's hooks: (a hook dict of one of the model's modules, the keys it added).
    own_hooks: list[tuple[HookDict, set[int]]] = field(default_factory=list)

    @property
    def trained(self) -> bool:
        return self.steps > 0


class Inspection:
    """The watching of one script run: ``start()`` before it, ``stop()`` after it.

    ``max_steps``: raise ``StopScript`` once a model has completed that many steps;
    ``every``: keep the record of every ``every``-th step only.
    """

    def __init__(self, max_steps: int | None = None, every: int = 1) -> None:
        self.max_steps = max_steps
        self.every = every
        self.watched: list[Watched] = []
        self.first_loss: Tensor | None = None
        self.trace: Any = None
        self._loss: float | None = None
        self._depth = 0
        self._trace_context: Any = None
        self._traced: Watched | None = None
        self._handles: list[Any] = []
        self._backward: Any = None
        self._save: Any = None
        # The parameters of the optimizer whose step is running.
        self._stepping: set[int] = set()

    # -- lifetime -------------------------------------------------------------------------
    def start(self) -> None:
        self._handles = [
            global_hooks.register_module_forward_pre_hook(self._before_call),
            global_hooks.register_module_forward_hook(self._after_call, always_call=True),
            optimizer_module.register_optimizer_step_pre_hook(self._before_optimizer_step),
            optimizer_module.register_optimizer_step_post_hook(self._after_optimizer_step),
        ]
        self._backward = Tensor.backward
        inspection = self

        def backward(tensor: Tensor, *args: Any, **kwargs: Any) -> Any:
            result = inspection._backward(tensor, *args, **kwargs)
            inspection._after_backward(tensor)
            return result

        backward.__doc__ = self._backward.__doc__
        Tensor.backward = backward  # type: ignore[method-assign]
        self._save = serialization.save

        def save(obj: Any, *args: Any, **kwargs: Any) -> Any:
            with inspection._without_own_hooks():
                return inspection._save(obj, *args, **kwargs)

        save.__doc__ = self._save.__doc__
        hookgrad.save = serialization.save = save

    def stop(self) -> None:
        """Remove every hook, close the steps still open, end the trace."""
        for handle in self._handles:
            handle.remove()
        self._handles = []
        if self._backward is not None:
            Tensor.backward = self._backward  # type: ignore[method-assign]
            self._backward = None
        if self._save is not None:
            hookgrad.save = serialization.save = self._save
            self._save = None
        for watched in self.watched:
            if watched.monitor.pending:
                self._close(watched, may_stop=False)
            watched.monitor.remove()
        self._end_trace()

    @property
    def model(self) -> Watched | None:
        """The trained model with the most parameters (None: nothing was trained)."""
        trained = [w for w in self.watched if w.trained]
        if not trained:
            return None
        return max(trained, key=lambda w: sum(p.numel() for p in w.model.parameters()))

    # -- hooks ----------------------------------------------------------------------------
    def _before_call(self, module: Any, args: Any) -> None:
        self._depth += 1
        if self._depth != 1:
            return
        watched = self._find(module)
        if watched is None:
            watched = self._watch(module)
        elif watched.monitor.pending and not watched.managed:
            self._close(watched)

    def _after_call(self, module: Any, args: Any, output: Any) -> None:
        self._depth -= 1

    def _after_backward(self, loss: Tensor) -> None:
        reached = [w for w in self.watched if w.monitor.pending]
        if not reached:
            return
        if loss.numel() == 1:
            self._loss = float(loss.detach().item())
        if self.first_loss is None:
            self.first_loss = loss

    def _before_optimizer_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        # NOTE: an optimizer that evaluates a closure (LBFGS) calls the model several
        # times within one step, maybe for the first time: the model is marked as stepped
        # by an optimizer first, so that those calls stay in the step.
        self._stepping = _parameter_ids(optimizer)
        for watched in self.watched:
            if watched.parameter_ids & self._stepping:
                watched.managed = True

    def _after_optimizer_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        self._stepping = set()
        ids = _parameter_ids(optimizer)
        for watched in self.watched:
            if watched.parameter_ids & ids:
                watched.managed = True
                if watched.monitor.pending:
                    self._close(watched)

    # -- models and steps -----------------------------------------------------------------
    def _find(self, module: Any) -> Watched | None:
        for watched in self.watched:
            if watched.model is module:
                return watched
        return None

    def _watch(self, module: Any) -> Watched | None:
        parameters = [p for p in module.parameters() if p.requires_grad]
        ids = {id(p) for p in parameters}
        if not parameters or any(ids & w.parameter_ids for w in self.watched):
            return None  # no trainable parameters, or a part of a model already watched
        before = {id(hooks): set(hooks) for hooks in _hook_dicts(module)}
        watched = Watched(module, GradientMonitor(module), parameter_ids=ids)
        for hooks in _hook_dicts(module):
            added = set(hooks) - before.get(id(hooks), set())
            if added:
                watched.own_hooks.append((hooks, added))
        watched.managed = bool(ids & self._stepping)
        self.watched.append(watched)
        if self._traced is None:
            self._traced = watched
            self._trace_context = trace_hooks(model=module)
            self.trace = self._trace_context.__enter__()
        return watched

    def _close(self, watched: Watched, may_stop: bool = True) -> None:
        record = watched.monitor.step(loss=self._loss)
        record["step"] = watched.steps
        if watched.steps % self.every:
            watched.monitor.history.pop()
        watched.steps += 1
        if watched is self._traced:
            self._end_trace()
        if may_stop and self.max_steps is not None and watched.steps >= self.max_steps:
            raise StopScript(f"stopped after {watched.steps} steps (--steps)")

    @contextmanager
    def _without_own_hooks(self) -> Iterator[None]:
        """The monitors' hooks taken off the models for the block, so that a script that
        saves a whole model (``torch.save(model)``) pickles only its own hooks."""
        kept = []
        for watched in self.watched:
            for hooks, keys in watched.own_hooks:
                kept.append((hooks, list(hooks.items())))
                for key in keys:
                    hooks.pop(key, None)
        try:
            yield
        finally:
            for hooks, items in kept:
                hooks.clear()
                hooks.update(items)

    def _end_trace(self) -> None:
        if self._trace_context is not None:
            self._trace_context.__exit__(None, None, None)
            self._trace_context = None


def _parameter_ids(optimizer: Any) -> set[int]:
    return {id(p) for group in optimizer.param_groups for p in group["params"]}


def _hook_dicts(model: Any) -> list[HookDict]:
    """The hook dicts of ``model`` and of every module in it."""
    return [
        value
        for module in model.modules()
        for value in vars(module).values()
        if isinstance(value, HookDict)
    ]
