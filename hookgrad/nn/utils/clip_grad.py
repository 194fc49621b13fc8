"""Gradient clipping: ``clip_grad_norm_`` (with its parts ``get_total_norm`` and
``clip_grads_with_norm_``, and the deprecated ``clip_grad_norm``) and
``clip_grad_value_``.

They rescale the ``.grad`` of each parameter in place (bumping its version, as torch's
in-place ops do) and never record anything for autograd. ``foreach`` is accepted and
ignored (the result is the same).
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterable

import numpy as np

from hookgrad.tensor import Tensor

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [param.grad for param in parameters if param.grad is not None]


def _vector_norm(array: np.ndarray, norm_type: float) -> np.ndarray:
    """``linalg.vector_norm`` of a flat array, in its dtype."""
    magnitude = np.abs(array.ravel())
    if norm_type == float("inf"):
        return magnitude.max(initial=0)
    if norm_type == float("-inf"):
        return magnitude.min()
    if norm_type == 0:
        return np.asarray(np.count_nonzero(magnitude), array.dtype)
    if norm_type == 2:
        return np.sqrt(np.dot(magnitude, magnitude))
    return np.sum(magnitude**norm_type) ** (1 / norm_type)


def get_total_norm(
    tensors: Tensor | Iterable[Tensor],
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of the per-tensor ``norm_type``-norms of ``tensors`` (as if
    they were one vector; ``inf`` for the largest magnitude), in their promoted dtype.

    Example::

        total = nn.utils.get_total_norm([p.grad for p in model.parameters()])
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._make(np.zeros((), np.float32))
    dtype = np.result_type(*[t._data.dtype for t in tensors])
    norms = np.array([_vector_norm(t._data, norm_type) for t in tensors], dtype)
    total = np.asarray(_vector_norm(norms, norm_type), dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return Tensor._make(total)


def clip_grads_with_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients of ``parameters`` by ``min(max_norm / (total_norm + 1e-6), 1)``,
    with ``total_norm`` given (``get_total_norm`` computes it).

    Example::

        total = nn.utils.get_total_norm(grads)
        nn.utils.clip_grads_with_norm_(model.parameters(), 1.0, total)
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    if not grads:
        return
    norm = total_norm._data
    coefficient = np.minimum(max_norm / (norm + norm.dtype.type(1e-6)), norm.dtype.type(1.0))
    for grad in grads:
        with np.errstate(invalid="ignore"):  # an infinite gradient times 0, as torch: nan
            grad._data *= coefficient.astype(grad._data.dtype)
        grad._bump_version()


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients of ``parameters`` so that their joint ``norm_type``-norm (the norm
    of the per-gradient norms; ``inf`` for the max) is at most ``max_norm``; returns that
    norm, taken before clipping.

    Example::

        loss.backward()
        total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=2,
            )
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated spelling of ``clip_grad_norm_`` (torch's ``FutureWarning``).

    Example: ``nn.utils.clip_grad_norm_(model.parameters(), 1.0)`` is the current one.
    """
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient of ``parameters`` to ``[-clip_value, clip_value]`` in place.

    Example::

        nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
    """
    clip_value = float(clip_value)
    for grad in _grads(parameters):
        np.clip(grad._data, -clip_value, clip_value, out=grad._data)
        grad._bump_version()
