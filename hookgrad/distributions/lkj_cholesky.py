"""The LKJ distribution of Cholesky factors of correlation matrices."""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.beta import Beta
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.utils import broadcast_all
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution (Lewandowski, Kurowicka and Joe, 2009) of lower Cholesky
    factors of ``dim x dim`` correlation matrices, of density proportional to
    ``det(M) ** (concentration - 1)`` for the correlation matrix ``M``; sampled by the
    onion method.

    Args:
        dim: the size of the matrices (at least 2).
        concentration: the concentration (shape) parameter, positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        l = LKJCholesky(3, 0.5)
        l.sample()      # l @ l.mT is a sample of a correlation 3x3 matrix
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(
        self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None
    ) -> None:
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # the onion method's Beta marginals: Beta(i / 2, concentration + (dim - 2 - i) / 2)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = hookgrad.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = hookgrad.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> Tensor:
        # the onion method: each row is a point of the unit hypersphere, scaled by the
        # square root of a Beta sample, and completed to unit length by the diagonal
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = hookgrad.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # the first row is the unit vector (1, 0, ..., 0): 0/0 above
        u_hypersphere[..., 0, :].fill_(0.0)
        w = hookgrad.sqrt(y) * u_hypersphere
        # the diagonal: at least tiny, so that the factor stays positive
        eps = hookgrad.finfo(w.dtype).tiny
        diag_elems = hookgrad.clamp(1 - hookgrad.sum(w**2, dim=-1), min=eps).sqrt()
        w += hookgrad.diag_embed(diag_elems)
        return w

    def log_prob(self, value: Any) -> Tensor:
        # log p(L) = sum_i (2 (concentration - 1) + dim - i) log L_ii - log normalizer
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = hookgrad.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = hookgrad.sum(order * diag_elems.log(), dim=-1)
        # the normalizer, by the formula of the LKJ paper
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = hookgrad.lgamma(alpha) * dm1
        numerator = hookgrad.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
