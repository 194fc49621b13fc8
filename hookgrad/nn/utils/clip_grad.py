"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_``.

Both rescale the ``.grad`` of each parameter in place (bumping its version, as torch's
in-place ops do) and never record anything for autograd.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from hookgrad.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


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


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients of ``parameters`` so that their joint ``norm_type``-norm (the norm
    of the per-gradient norms; ``inf`` for the max) is at most ``max_norm``; returns that
    norm, taken before clipping. ``foreach`` is accepted and ignored.

    Example::

        loss.backward()
        total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not grads:
        return Tensor._make(np.zeros((), np.float32))
    dtype = np.result_type(*[grad._data.dtype for grad in grads])
    norms = np.array([_vector_norm(grad._data, norm_type) for grad in grads], dtype)
    total = np.asarray(_vector_norm(norms, norm_type), dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coefficient = min(max_norm / (total + 1e-6), 1.0)
    for grad in grads:
        with np.errstate(invalid="ignore"):  # an infinite gradient times 0, as torch: nan
            grad._data *= grad._data.dtype.type(coefficient)
        grad._bump_version()
    return Tensor._make(total)


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
