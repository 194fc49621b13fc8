"""Global module hooks: registered once, they apply to every module and fire before each
module's own hooks. ``hookgrad.nn.modules.module`` re-exports them (torch's location)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookgrad.hooks import RemovableHandle
from hookgrad.nn.modules import _hooks

__all__ = [
    "register_module_backward_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
]


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register ``hook(module, args)`` to run before the ``forward`` of every module,
    before the module's own pre-hooks; returning a value replaces ``args``.

    Example: ``register_module_forward_pre_hook(lambda m, args: print(type(m).__name__))``.
    """
    return _hooks.add_hook(_hooks.global_forward_pre_hooks, hook)


def register_module_forward_hook(
    hook: Callable[..., Any], *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """Register ``hook(module, args, output)`` to run after the ``forward`` of every
    module, before the module's own forward hooks; returning a value replaces the
    output. ``with_kwargs`` and ``always_call`` as in ``Module.register_forward_hook``.

    Example::

        with register_module_forward_hook(lambda m, a, out: print(m, out.shape)):
            model(x)
    """
    return _hooks.add_hook(
        _hooks.global_forward_hooks,
        hook,
        flags=[
            (_hooks.global_forward_hooks_with_kwargs, with_kwargs),
            (_hooks.global_forward_hooks_always_called, always_call),
        ],
    )


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register ``hook(module, grad_output)`` for every module, as
    ``Module.register_full_backward_pre_hook``; it fires before the module's own.

    Example: ``register_module_full_backward_pre_hook(lambda m, go: print(m))``.
    """
    return _hooks.add_hook(_hooks.global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register ``hook(module, grad_input, grad_output)`` for every module, as
    ``Module.register_full_backward_hook``; it fires before the module's own.

    Example: ``register_module_full_backward_hook(lambda m, gi, go: print(m, go[0].norm()))``.
    """
    return _hooks.add_hook(_hooks.global_backward_hooks, hook)


def register_module_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """The same as :func:`register_module_full_backward_hook` (see
    ``Module.register_backward_hook``).

    Example: ``register_module_backward_hook(lambda m, gi, go: None)``.
    """
    return register_module_full_backward_hook(hook)
