"""torch's old weight normalization hook (``weight_norm``, ``remove_weight_norm``):
``weight = g * v / ||v||`` recomputed from two parameters before every forward.

``weight_norm(module, "weight")`` replaces the parameter ``weight`` with ``weight_g`` (the
norms, over every dim but ``dim``) and ``weight_v`` (the direction), and registers a
forward pre-hook (a ``WeightNorm`` object) that sets ``module.weight`` from them. It is
deprecated in torch in favour of ``parametrizations.weight_norm``, and warns as torch's.
"""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

from hookgrad.nn.functional.normalization import torch_norm_except_dim, torch_weight_norm
from hookgrad.nn.modules.module import Module
from hookgrad.nn.parameter import Parameter

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]

T_module = TypeVar("T_module", bound=Module)


class WeightNorm:
    """The forward pre-hook of ``weight_norm``: sets ``module.<name>`` to the weight of
    ``<name>_g`` and ``<name>_v`` along ``dim`` (-1: the norm of the whole tensor)."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        """The weight from the module's current ``<name>_g`` and ``<name>_v``."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return torch_weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        """Reparametrize ``module.<name>`` and register the hook (torch's warning first)."""
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of "
            "`torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(
            name + "_g", Parameter(torch_norm_except_dim(weight, 2, fn.dim).data)
        )
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Turn the weight back into one parameter (its current value)."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: T_module, name: str = "weight", dim: int | None = 0) -> T_module:
    """Weight-normalize ``module.<name>``: ``<name> = <name>_g * <name>_v / ||<name>_v||``
    with the norm over every dim but ``dim`` (None: the whole tensor), recomputed before
    each forward. Deprecated (as in torch): prefer ``parametrizations.weight_norm``.

    Example::

        m = nn.utils.weight_norm(nn.Linear(20, 40))
        m.weight_g.shape   # hookgrad.Size([40, 1])
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo ``weight_norm`` on ``module.<name>``.

    Example::

        nn.utils.remove_weight_norm(m)
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
