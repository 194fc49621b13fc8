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
from hookgrad.tensor import Tensor, dtypes
from hookgrad.toplevel import typename

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
        self._optimizer_state_dict_pre_hooks = HookDict("optimizer_state_dict_pre")
        self._optimizer_state_dict_post_hooks = HookDict("optimizer_state_dict_post")
        self._optimizer_load_state_dict_pre_hooks = HookDict("optimizer_load_state_dict_pre")
        self._optimizer_load_state_dict_post_hooks = HookDict("optimizer_load_state_dict_post")
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {typename(params)}"
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

    def __getstate__(self) -> dict[str, Any]:
        # NOTE: as torch's, a pickled or deep-copied optimizer keeps no hooks, and no
        # ``step`` wrapped by a scheduler (whose wrapper would step the original).
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "optimizer_step_pre",
            "optimizer_step_post",
            "optimizer_state_dict_pre",
            "optimizer_state_dict_post",
            "optimizer_load_state_dict_pre",
            "optimizer_load_state_dict_post",
        ):
            self.__dict__.setdefault(f"_{name}_hooks", HookDict(name))
        self.defaults.setdefault("differentiable", False)

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
        _split_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
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
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
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

    def register_state_dict_pre_hook(
        self, hook: Callable[[Optimizer], None], prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(optimizer)``, called at the start of ``state_dict()``; its return
        value is ignored. ``prepend`` runs it before the hooks already registered.

        Example::

            handle = opt.register_state_dict_pre_hook(lambda opt: print("saving"))
        """
        return add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend=prepend)

    def register_state_dict_post_hook(
        self, hook: Callable[[Optimizer, dict[str, Any]], Any], prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict)``, called at the end of ``state_dict()``;
        it may change the dict in place or return a new one, which is returned instead.

        Example::

            opt.register_state_dict_post_hook(lambda opt, sd: {**sd, "note": "v2"})
        """
        return add_hook(self._optimizer_state_dict_post_hooks, hook, prepend=prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Callable[[Optimizer, dict[str, Any]], Any], prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict)``, called at the start of
        ``load_state_dict()`` with a shallow copy of the dict given; it may change it in
        place or return a new one, which is loaded instead.

        Example::

            opt.register_load_state_dict_pre_hook(lambda opt, sd: print(sd["param_groups"]))
        """
        return add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend=prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable[[Optimizer], None], prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(optimizer)``, called at the end of ``load_state_dict()``; its
        return value is ignored.

        Example::

            opt.register_load_state_dict_post_hook(lambda opt: print("loaded"))
        """
        return add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend=prepend)

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as torch lays it out: ``{"state": {index: {...}},
        "param_groups": [{..., "params": [index, ...]}]}``, parameters numbered in group
        order (groups made from ``named_parameters()`` also keep ``"param_names"``). The
        state's tensors are the optimizer's own (not copies), as in torch.

        Example::

            hookgrad.save(opt.state_dict(), "opt.pt")    # torch.load reads it too
        """
        for pre_hook in list(self._optimizer_state_dict_pre_hooks.values()):
            pre_hook(self)
        index_of: dict[int, int] = {}
        groups = []
        start = 0
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for index, param in enumerate(group["params"], start):
                index_of.setdefault(id(param), index)
            packed["params"] = [index_of[id(param)] for param in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {
            (index_of[id(key)] if isinstance(key, Tensor) else key): value
            for key, value in self.state.items()
        }
        state_dict: dict[str, Any] = {"state": state, "param_groups": groups}
        for post_hook in list(self._optimizer_state_dict_post_hooks.values()):
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()`` (from this optimizer or one built the same way, in
        hookgrad or torch): groups take the saved hyperparameters, and each parameter the
        state saved at its index, floating tensors cast to its dtype (``step`` kept as
        saved). As in torch, tensors already of the right dtype are taken, not copied.

        Example::

            opt.load_state_dict(hookgrad.load("opt.pt"))
        """
        state_dict = dict(state_dict)
        for pre_hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        saved_groups = copy.deepcopy(state_dict["param_groups"])
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
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for index, values in state_dict["state"].items():
            if index in params_by_index:
                param = params_by_index[index]
                keeps_step = _keeps_float32_step(index, state_dict["param_groups"])
                state[param] = _cast_state(param, values, None, keeps_step)
            else:
                state[index] = values
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups
        for post_hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            post_hook(self)


def _split_names(param_group: dict[str, Any]) -> None:
    """Parameters given as ``(name, tensor)`` pairs (``named_parameters()``): keep the
    tensors in ``"params"`` and the names in ``"param_names"``."""
    names = [param[0] for param in param_group["params"] if isinstance(param, tuple)]
    if not names:
        return
    if len(names) != len(param_group["params"]):
        raise ValueError(
            "all optimizer params should be with/without names. Some param names are missing"
        )
    param_group["params"] = [param[1] for param in param_group["params"]]
    param_group["param_names"] = names


def _keeps_float32_step(index: Any, saved_groups: list[dict[str, Any]]) -> bool:
    """Whether the group of parameter ``index`` is ``fused`` or ``capturable``: torch then
    keeps its ``step`` as float32 on the parameter's device."""
    for group in saved_groups:
        if index in group["params"]:
            return bool(group.get("fused", False) or group.get("capturable", False))
    return False


def _cast_state(param: Tensor, value: Any, key: Any, float32_step: bool) -> Any:
    """torch's ``_cast`` in ``load_state_dict``: floating state tensors take the
    parameter's dtype (``step`` excepted), dicts and sequences are rebuilt."""
    if isinstance(value, Tensor):
        if key == "step":
            return value.to(dtypes.float32) if float32_step else value
        if param.is_floating_point():
            return value.to(param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k, float32_step) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, None, float32_step) for v in value)
    return value


# ---------------------------------------------------------------- helpers for subclasses


def check_hyperparameter(name: str, value: float, message: str | None = None) -> None:
    """torch's constructor check: a hyperparameter must not be negative."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {message or name}: {value}")


def check_lr(lr: Any) -> None:
    """torch's constructor check of ``lr``: a float, or a one-element tensor, not negative."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def scalar(value: Any) -> Any:
    """A hyperparameter as a Python number (a one-element tensor gives its value)."""
    return value.item() if isinstance(value, Tensor) else value


def grads_of(group: dict[str, Any]) -> Iterable[tuple[Tensor, np.ndarray]]:
    """``(param, grad array)`` for each parameter of ``group`` that has a gradient."""
    for param in group["params"]:
        if param.grad is not None:
            yield param, param.grad._data


def with_grads(group: dict[str, Any]) -> list[Tensor]:
    """The parameters of ``group`` that have a gradient."""
    return [param for param in group["params"] if param.grad is not None]


def state_tensor(array: np.ndarray) -> Tensor:
    """A state tensor (``exp_avg`` ...) holding ``array``."""
    return Tensor._make(array)


def scalar_dtype() -> np.dtype:
    """The dtype of torch's scalar state (``step``, ``mu_product`` ...): float64 when that is
    the default dtype, else float32."""
    return np.dtype(np.float64 if dtypes.get_default_dtype() == dtypes.float64 else np.float32)


def step_tensor() -> Tensor:
    """A new ``step`` counter: a 0-d tensor of ``scalar_dtype()``, as torch keeps it."""
    return scalar_tensor(0.0)


def scalar_tensor(value: float) -> Tensor:
    """A 0-d state tensor of ``scalar_dtype()`` holding ``value``."""
    return Tensor._make(np.array(value, scalar_dtype()))


def increment(counter: Tensor) -> float:
    """``counter += 1`` on a 0-d state tensor; returns its new value as a Python float."""
    counter._data += 1
    return float(counter._data)


def write(tensor: Tensor | np.ndarray, value: np.ndarray) -> None:
    """Store ``value`` into ``tensor``'s memory (an in-place update); a parameter's version
    counter is bumped by the caller once per step."""
    target = tensor._data if isinstance(tensor, Tensor) else tensor
    np.copyto(target, value, casting="unsafe")


def capturable_devices(supports_xla: bool = True) -> list[str]:
    """The devices torch allows ``capturable=True`` on (none of them is the CPU)."""
    return ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if supports_xla else [])


def check_capturable(
    group: dict[str, Any], what: str = "params and state_steps", supports_xla: bool = True
) -> None:
    """torch's refusal of ``capturable=True`` for parameters on the CPU (at ``step``)."""
    if group.get("capturable") and any(p.grad is not None for p in group["params"]):
        raise AssertionError(
            f"If capturable=True, {what} must be on supported devices: "
            f"{capturable_devices(supports_xla)}."
        )


def check_differentiable(group: dict[str, Any]) -> None:
    """With ``differentiable=True`` torch runs the step with grad mode on, so its in-place
    update of a leaf that requires grad fails; this raises that error before any change."""
    if not group.get("differentiable"):
        return
    for param in with_grads(group):
        if param.is_leaf and param.requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )


def run_closure(closure: Callable[[], Any] | None) -> Any:
    """Call ``closure`` with grad mode on (it usually runs ``backward``)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()
