"""Helpers shared by the distributions (``torch.distributions.utils``): broadcasting of
parameters, conversions between probabilities and logits, ``lazy_property``, and the
lower-triangular packing of matrices.

Example::

    loc, scale = broadcast_all(hookgrad.zeros(3), 1.0)   # scale: tensor([1., 1., 1.])
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import hookgrad
from hookgrad.nn import functional as F
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "clamp_probs",
    "probs_to_logits",
    "lazy_property",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant

# torch's ``_Number``: the Python numbers a distribution takes as parameters
Number = (int, float, bool)


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Broadcast ``values`` (tensors and numbers) together: numbers become tensors of the
    first tensor's dtype (the default dtype if there is none).

    Example::

        broadcast_all(hookgrad.zeros(2, 1), hookgrad.ones(3), 0.5)   # three 2x3 tensors
    """
    tensors = True
    options: dict[str, Any] | None = None
    for value in values:
        if isinstance(value, Tensor):
            if options is None:
                options = {"dtype": value.dtype}
        elif isinstance(value, Number):
            tensors = False
        else:
            raise ValueError(
                "Input arguments must all be instances of Number, torch.Tensor or objects "
                "implementing __torch_function__."
            )
    if tensors:
        return _broadcast_tensors(values)
    if options is None:
        options = {"dtype": hookgrad.get_default_dtype()}
    return _broadcast_tensors(
        [v if isinstance(v, Tensor) else hookgrad.tensor(v, **options) for v in values]
    )


def _broadcast_tensors(tensors: Sequence[Tensor]) -> tuple[Tensor, ...]:
    """``torch.broadcast_tensors``, skipping the views when every shape already agrees."""
    shape = tensors[0].shape
    if all(t.shape == shape for t in tensors):
        return tuple(tensors)
    return tuple(hookgrad.broadcast_tensors(*tensors))


def _masked_assign(x: Tensor, mask: Tensor, value: Any) -> None:
    """``x[mask] = value`` for a boolean ``mask`` of ``x``'s shape, a 0-d one included:
    torch assigns a 0-d tensor through its one-element view (its node: ``CopySlices``)."""
    # NOTE: hookgrad's ``x[mask] = value`` refuses a 0-d mask into a 0-d tensor, so that
    # case goes through the view explicitly, as torch's indexing does.
    if x.dim() == 0:
        x.unsqueeze(0)[mask.unsqueeze(0)] = value
    else:
        x[mask] = value


def _standard_normal(shape: Sequence[int], dtype: Any, device: Any = None) -> Tensor:
    """Standard normal samples of ``shape``, drawn as torch's ``empty(...).normal_()``."""
    return hookgrad.empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value: Any, dim: int) -> Any:
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(value.shape[: value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: ``sigmoid`` for binary log-odds, else ``softmax`` over
    the last dim.

    Example: ``logits_to_probs(hookgrad.zeros(2))`` is ``tensor([0.5, 0.5])``.
    """
    if is_binary:
        return hookgrad.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities clamped into ``[eps, 1 - eps]`` (``eps`` of their dtype).

    Example: ``clamp_probs(hookgrad.tensor([0.0, 1.0]))`` is
    ``tensor([1.1921e-07, 1.0000e+00])``.
    """
    eps = hookgrad.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (clamped first): log-odds for binary ones, else their
    logarithm.

    Example: ``probs_to_logits(hookgrad.tensor([0.5]), is_binary=True)`` is
    ``tensor([0.])``.
    """
    clamped = clamp_probs(probs)
    if is_binary:
        return hookgrad.log(clamped) - hookgrad.log1p(-clamped)
    return hookgrad.log(clamped)


class lazy_property:
    """A property computed on first access (with grad mode on) and then stored on the
    instance, so that later reads cost nothing.

    Example::

        class Example:
            @lazy_property
            def value(self):
                return expensive()
    """

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with hookgrad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """A ``lazy_property`` read from its class: a property to documentation tools, and
    still recognisable as lazy to ``Distribution``'s argument checks."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int) -> Tensor:
    arange = hookgrad.arange(n)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (from diagonal ``diag`` down) of the last two dims of ``mat``,
    row by row, as a vector.

    Example: ``tril_matrix_to_vec(hookgrad.eye(2))`` is ``tensor([1., 0., 1.])``.
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of ``tril_matrix_to_vec``: a lower-triangular matrix (below diagonal
    ``diag``) filled row by row from the last dim of ``vec``.

    Example: ``vec_to_tril_matrix(hookgrad.tensor([1.0, 2.0, 3.0]))`` is
    ``tensor([[1., 0.], [2., 3.]])``.
    """
    # the positive root of n**2 + (1 + 2 diag) n - |diag| (diag + 1) - 2 len(vec) = 0
    n = (
        -(1 + 2 * diag)
        + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5
    ) / 2
    eps = hookgrad.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    size = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + hookgrad.Size((size, size)))
    mat[..., _tril_mask(size, diag)] = vec
    return mat
