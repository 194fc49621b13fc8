"""``skip_init``: build a module without spending random numbers on its initialisation."""

from __future__ import annotations

import inspect
from typing import Any

from hookgrad.nn.modules.module import Module
from hookgrad.tensor.random import get_rng_state, set_rng_state

__all__ = ["skip_init"]


def skip_init(module_cls: type[Module], *args: Any, **kwargs: Any) -> Module:
    """``module_cls(*args, **kwargs)`` whose parameters are left for the caller to fill:
    the default generator is as it was before (torch builds the module on its ``meta``
    device, drawing nothing). The class must take a ``device`` argument, as torch requires.

    Example::

        layer = nn.utils.skip_init(nn.Linear, 4, 3)
        nn.init.orthogonal_(layer.weight)
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    state = get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
