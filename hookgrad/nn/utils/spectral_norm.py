"""torch's old spectral normalization hook (``spectral_norm``, ``remove_spectral_norm``):
``weight = weight_orig / sigma`` with ``sigma`` the largest singular value of the weight
(as a matrix), estimated by power iteration.

``spectral_norm(module, "weight")`` renames the parameter to ``weight_orig``, adds the
buffers ``weight_u`` and ``weight_v`` (normal samples from the default generator,
normalized, drawn as torch draws them) and a forward pre-hook (a ``SpectralNorm``) that
runs ``n_power_iterations`` steps in training mode and sets ``module.weight``.
"""

from __future__ import annotations

from typing import Any, TypeVar

import hookgrad
from hookgrad.nn.functional.normalization import normalize
from hookgrad.nn.modules import conv
from hookgrad.nn.modules.module import Module
from hookgrad.nn.parameter import Parameter
from hookgrad.tensor import Tensor

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]

T_module = TypeVar("T_module", bound=Module)


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm`` on parameter ``name``."""

    _version = 1

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """``weight`` as a matrix whose rows run along ``dim``."""
        matrix = weight
        if self.dim != 0:
            matrix = matrix.permute(self.dim, *[d for d in range(matrix.dim()) if d != self.dim])
        return matrix.reshape(matrix.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """``weight_orig / sigma``; with ``do_power_iteration`` first updates ``u`` and
        ``v`` in place (untracked) by the power method."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with hookgrad.no_grad():
                for _ in range(self.n_power_iterations):
                    v = normalize(hookgrad.mv(matrix.t(), u), dim=0, eps=self.eps, out=v)
                    u = normalize(hookgrad.mv(matrix, v), dim=0, eps=self.eps, out=u)
                u = u.clone()
                v = v.clone()
        sigma = hookgrad.dot(u, hookgrad.mv(matrix, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Turn the weight back into one parameter (``weight_orig / sigma``)."""
        with hookgrad.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(
        module: Module, name: str, n_power_iterations: int, dim: int, eps: float
    ) -> SpectralNorm:
        """Reparametrize ``module.<name>`` and register the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with hookgrad.no_grad():
            height, width = fn.reshape_weight_to_matrix(weight).size()
            u = normalize(weight.new_empty(height).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(width).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(
    module: T_module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> T_module:
    """Spectral-normalize ``module.<name>``: divide it by its largest singular value,
    estimated with ``n_power_iterations`` power-method steps per training forward
    (``dim``: the dim that becomes the matrix rows; default 1 for transposed
    convolutions, else 0).

    Example::

        m = nn.utils.spectral_norm(nn.Linear(20, 40))
        m.weight_u.shape   # hookgrad.Size([40])
    """
    if dim is None:
        dim = 1 if isinstance(module, _transposed_convolutions()) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo ``spectral_norm`` on ``module.<name>``.

    Example::

        nn.utils.remove_spectral_norm(m)
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")


def _transposed_convolutions() -> tuple[type, ...]:
    """The transposed convolution layers (their weight's rows are along dim 1)."""
    names = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
    return tuple(getattr(conv, name) for name in names if hasattr(conv, name))
