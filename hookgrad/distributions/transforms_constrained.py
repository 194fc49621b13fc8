"""The transforms of ``torch.distributions.transforms`` onto constrained spaces of
vectors and matrices: the simplex (``SoftmaxTransform``, ``StickBreakingTransform``),
Cholesky factors (``CorrCholeskyTransform``, ``LowerCholeskyTransform``) and positive
definite matrices (``PositiveDefiniteTransform``).

Example: ``StickBreakingTransform()(hookgrad.zeros(2))`` is a point of the simplex in 3
dims (``tensor([0.3333, 0.3333, 0.3333])``).
"""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.transforms_base import Transform
from hookgrad.distributions.transforms_pointwise import clipped_sigmoid
from hookgrad.distributions.utils import (
    tril_matrix_to_vec,
    vec_to_tril_matrix,
)
from hookgrad.nn import functional as F

__all__ = [
    "CorrCholeskyTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "SoftmaxTransform",
    "StickBreakingTransform",
]


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length ``D (D - 1) / 2`` to Cholesky factors of ``D x D``
    correlation matrices (tanh to ``(-1, 1)``, then a stick-breaking of each row).

    Example: ``CorrCholeskyTransform()(hookgrad.zeros(3)).shape`` is
    ``torch.Size([3, 3])``.
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Any) -> Any:
        x = hookgrad.tanh(x)
        eps = hookgrad.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        # each row: y_i = r_i * sqrt(1 - sum_{j<i} z_j), the square roots accumulated
        z = r**2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        r = r + hookgrad.eye(r.shape[-1], dtype=r.dtype)
        return r * F.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y: Any) -> Any:
        y_cumsum = 1 - hookgrad.cumsum(y * y, dim=-1)
        y_cumsum_shifted = F.pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x: Any, y: Any, intermediates: Any = None) -> Any:
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim (not bijective: ``inv`` is ``log``).

    Example: ``SoftmaxTransform()(hookgrad.zeros(2))`` is ``tensor([0.5000, 0.5000])``.
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    def _call(self, x: Any) -> Any:
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """Unconstrained vectors of length ``K - 1`` to the ``K``-simplex by stick breaking
    (a bijection, unlike softmax).

    Example: ``StickBreakingTransform()(hookgrad.zeros(2)).sum()`` is ``tensor(1.)``.
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    def _call(self, x: Any) -> Any:
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y: Any) -> Any:
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        sf = 1 - y_crop.cumsum(-1)
        # ``sf`` may round to 0 (or below) near the simplex's edge
        sf = hookgrad.clamp(sf, min=hookgrad.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Unconstrained matrices to lower-triangular ones with a positive diagonal: the
    strict lower triangle kept, the diagonal exponentiated (not bijective).

    Example: ``LowerCholeskyTransform()(hookgrad.zeros(2, 2))`` is the identity.
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x: Any) -> Any:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Any) -> Any:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Unconstrained matrices to positive-definite ones: ``L L^T`` of the
    ``LowerCholeskyTransform`` ``L``.

    Example: ``PositiveDefiniteTransform()(hookgrad.zeros(2, 2))`` is the identity.
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x: Any) -> Any:
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y: Any) -> Any:
        return LowerCholeskyTransform().inv(hookgrad.linalg.cholesky(y))
