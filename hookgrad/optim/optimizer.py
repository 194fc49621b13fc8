"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict`` in
torch's format, and step pre/post hooks.

A subclass passes its ``defaults`` (the hyperparameters every group gets unless it sets its
own) and implements ``step``; ``__init_subclass__`` wraps that ``step`` so the hooks run
around it. Updates run on the parameters' NumPy arrays inside ``no_grad``; each updated
parameter's version counter is bumped, as an in-place op would do.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from hookgrad.grad_mode import enable_grad
from hookgrad.hooks import HookDict, RemovableHandle, add_hook
from hookgrad.tensor import Tensor

__all__ = [
    "Optimizer",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
    "required",
]

# Hooks of every optimizer: global pre-hooks run before an optimizer's own, global
# post-hooks after them (torch's order).
_global_pre_hooks = HookDict("optimizer_step_pre")
_global_post_hooks = HookDict("optimizer_step_post")


class _Required:
    """Marks a hyperparameter every group must give (``SGD``'s ``lr`` in older torch)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


def _typename(value: Any) -> str:
    if isinstance(value, Tensor):
        return value.type()
    return type(value).__name__


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)`` to run before the ``step`` of every
    optimizer, before its own pre-hooks; it may return ``(new_args, new_kwargs)``.

    Example: ``register_optimizer_step_pre_hook(lambda opt, a, kw: print(type(opt)))``.
    """
    return add_hook(_global_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)`` to run after the ``step`` of every
    optimizer, after its own post-hooks.

    Example: ``register_optimizer_step_post_hook(lambda opt, a, kw: steps.append(opt))``.
    """
    return add_hook(_global_post_hooks, hook)


def _run_step_with_hooks(step: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        pre_hooks = [*_global_pre_hooks.values(), *self._optimizer_step_pre_hooks.values()]
        for hook in pre_hooks:
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{hook} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
                args, kwargs = result
        out = step(self, *args, **kwargs)
        for hook in [*self._optimizer_step_post_hooks.values(), *_global_post_hooks.values()]:
            hook(self, args, kwargs)
        return out

    wrapper._hooked = True  # type: ignore[attr-defined]
    return wrapper


class Optimizer:
    """Base class of optimizers.

    ``params`` is an iterable of tensors, or of dicts (parameter groups) each holding
    ``"params"`` and any hyperparameters that differ from ``defaults``.

    Example::

        opt = optim.SGD([{"params": model.weight}, {"params": model.bias, "lr": 0.1}], lr=0.01)
        opt.zero_grad()
        loss.backward()
        opt.step()
    """

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        self._optimizer_step_pre_hooks = HookDict("optimizer_step_pre")
        self._optimizer_step_post_hooks = HookDict("optimizer_step_post")
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}"
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _run_step_with_hooks(step)  # type: ignore[method-assign]

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (a dict with ``"params"``); hyperparameters it does
        not set are taken from ``defaults``.

        Example::

            opt.add_param_group({"params": new_layer.parameters(), "lr": 0.1})
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        ids = [id(param) for param in param_group["params"]]
        if len(set(ids)) != len(ids):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=3,
            )
        existing = {id(param) for group in self.param_groups for param in group["params"]}
        if not existing.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None (default) or to zeros."""
        for group in self.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update the parameters once; ``closure`` re-evaluates the loss and returns it."""
        raise NotImplementedError

    # ------------------------------------------------------------ hooks

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs)``, called before each ``step``; it may
        return ``(new_args, new_kwargs)`` to replace the step's arguments.

        Example::

            handle = opt.register_step_pre_hook(lambda opt, args, kwargs: print("step"))
        """
        return add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs)``, called after each ``step``; its return
        value is ignored.

        Example::

            handle = opt.register_step_post_hook(lambda opt, args, kwargs: log(opt))
        """
        return add_hook(self._optimizer_step_post_hooks, hook)

    # ------------------------------------------------------------ state dict

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as torch lays it out: ``{"state": {index: {...}},
        "param_groups": [{..., "params": [index, ...]}]}``, parameters numbered in group
        order. The state's tensors are the optimizer's own (not copies), as in torch."""
        index_of: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for param in group["params"]:
                index_of.setdefault(id(param), len(index_of))
            packed["params"] = [index_of[id(param)] for param in group["params"]]
            groups.append(packed)
        state = {
            index_of[id(param)]: value
            for param, value in self.state.items()
            if id(param) in index_of
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()`` (from this optimizer or one built the same way): state
        tensors are copied and cast to their parameter's dtype (``step`` excepted)."""
        state_dict = copy.deepcopy(state_dict)
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(self.param_groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    "of optimizer's group"
                )
        params_by_index = {
            index: param
            for group, saved in zip(self.param_groups, saved_groups)
            for index, param in zip(saved["params"], group["params"])
        }
        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for index, values in state_dict["state"].items():
            if index in params_by_index:
                param = params_by_index[index]
                state[param] = {
                    key: _cast_state(param, key, value) for key, value in values.items()
                }
            else:
                state[index] = values
        self.state = state
        for group, saved in zip(self.param_groups, saved_groups):
            group.update({key: value for key, value in saved.items() if key != "params"})


def _cast_state(param: Tensor, key: str, value: Any) -> Any:
    if key == "step" or not isinstance(value, Tensor) or not value.is_floating_point():
        return value
    return value.to(param.dtype)


# ---------------------------------------------------------------- helpers for subclasses


def check_hyperparameter(name: str, value: float, message: str | None = None) -> None:
    """torch's constructor check: a hyperparameter must not be negative."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {message or name}: {value}")


def grads_of(group: dict[str, Any]) -> Iterable[tuple[Tensor, np.ndarray]]:
    """``(param, grad array)`` for each parameter of ``group`` that has a gradient."""
    for param in group["params"]:
        if param.grad is not None:
            yield param, param.grad._data


def state_tensor(array: np.ndarray) -> Tensor:
    """A state tensor (``exp_avg`` ...) holding ``array``."""
    return Tensor._make(array)


def step_tensor() -> Tensor:
    """A new ``step`` counter: a float32 scalar tensor, as torch keeps it."""
    return Tensor._make(np.zeros((), np.float32))


def run_closure(closure: Callable[[], Any] | None) -> Any:
    """Call ``closure`` with grad mode on (it usually runs ``backward``)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()
