"""The Wishart distribution."""

from __future__ import annotations

import math
import warnings
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.chi2 import Chi2
from hookgrad.distributions.exp_family import ExponentialFamily
from hookgrad.distributions.multivariate_normal import _precision_to_scale_tril
from hookgrad.distributions.utils import Number, _masked_assign, lazy_property
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["Wishart"]

_log_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma function of dimension ``p``."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    shifts = hookgrad.arange(p, dtype=x.dtype).div(2).expand(x.shape + (-1,))
    return hookgrad.digamma(x.unsqueeze(-1) - shifts).sum(-1)


def _bartlett_chi2(df: Tensor, p: int, dtype: Any, batch_shape: Size) -> Chi2:
    """The chi-squared variables of Bartlett's decomposition: ``df - i`` degrees of
    freedom for row ``i``."""
    offsets = hookgrad.arange(p, dtype=dtype).expand(batch_shape + (-1,))
    return Chi2(df=df.unsqueeze(-1) - offsets)


def _clamp_above_eps(x: Tensor) -> Tensor:
    # the square roots of small chi-squared samples are kept above eps
    return x.clamp(min=hookgrad.finfo(x.dtype).eps)


class Wishart(ExponentialFamily):
    """The Wishart distribution of ``df`` degrees of freedom and a positive-definite
    scale matrix, given as exactly one of ``covariance_matrix``, ``precision_matrix`` or
    ``scale_tril``; ``rsample`` is Bartlett's decomposition.

    Args:
        df: the degrees of freedom, greater than ``n - 1`` for ``n x n`` matrices.
        covariance_matrix: the positive-definite scale matrix.
        precision_matrix: its inverse.
        scale_tril: its lower Cholesky factor.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = Wishart(hookgrad.tensor([2.0]), covariance_matrix=hookgrad.eye(2))
        m.sample()      # Wishart distributed with mean=`df * I` and diagonal variance 2
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df: Any,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        given = (covariance_matrix is not None) + (scale_tril is not None)
        if given + (precision_matrix is not None) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, Number):
            batch_shape = Size(param.shape[:-2])
            self.df = hookgrad.tensor(df, dtype=param.dtype)
        else:
            batch_shape = hookgrad.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(
                f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}."
            )
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = hookgrad.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = _bartlett_chi2(
            self.df, event_shape[-1], self._unbroadcasted_scale_tril.dtype, batch_shape
        )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        if "covariance_matrix" in self.__dict__:
            new.covariance_matrix = self.covariance_matrix.expand(cov_shape)
        if "scale_tril" in self.__dict__:
            new.scale_tril = self.scale_tril.expand(cov_shape)
        if "precision_matrix" in self.__dict__:
            new.precision_matrix = self.precision_matrix.expand(cov_shape)
        new._dist_chi2 = _bartlett_chi2(
            new.df, self.event_shape[-1], new._unbroadcasted_scale_tril.dtype, batch_shape
        )
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        return (
            self._unbroadcasted_scale_tril @ self._unbroadcasted_scale_tril.transpose(-2, -1)
        ).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        identity = hookgrad.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return hookgrad.cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape
        )

    @property
    def mean(self) -> Tensor:
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        _masked_assign(factor, factor <= 0, math.nan)
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        v = self.covariance_matrix  # has shape (batch_shape x event_shape)
        diag_v = v.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (
            v.pow(2) + hookgrad.einsum("...i,...j->...ij", diag_v, diag_v)
        )

    def _bartlett_sampling(self, sample_shape: Any = ()) -> Tensor:
        p = self._event_shape[-1]  # has singleton shape
        # the diagonal of Bartlett's factor: square roots of chi-squared samples
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(
            dim1=-2, dim2=-1
        )
        # below it: standard normals
        i, j = hookgrad.tril_indices(p, p, offset=-1)
        noise[..., i, j] = hookgrad.randn(
            Size(sample_shape) + self._batch_shape + (int(p * (p - 1) / 2),),
            dtype=noise.dtype,
        )
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape: Any = (), max_try_correction: int | None = None) -> Tensor:
        """A reparameterised sample by Bartlett's decomposition; singular samples (likely
        for ``df < n``) are drawn again, up to ``max_try_correction`` times (default 10),
        with a warning."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # NOTE: torch checks "is_singular" with the support check, whose True means valid
        is_singular = self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if is_singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(is_singular[is_singular].shape)
                sample[is_singular] = sample_new
                is_singular_new = ~self.support.check(sample_new)
                if self._batch_shape:
                    is_singular_new = is_singular_new.amax(self._batch_dims)
                _masked_assign(is_singular, is_singular.clone(), is_singular_new)
                if not is_singular.any():
                    break
        return sample

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df  # has shape (batch_shape)
        p = self._event_shape[-1]  # has singleton shape
        return (
            -nu
            * (
                p * _log_2 / 2
                + self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            )
            - hookgrad.mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * hookgrad.linalg.slogdet(value).logabsdet
            - hookgrad.cholesky_solve(value, self._unbroadcasted_scale_tril)
            .diagonal(dim1=-2, dim2=-1)
            .sum(dim=-1)
            / 2
        )

    def entropy(self) -> Tensor:
        nu = self.df  # has shape (batch_shape)
        p = self._event_shape[-1]  # has singleton shape
        return (
            (p + 1)
            * (
                p * _log_2 / 2
                + self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            )
            + hookgrad.mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        nu = self.df  # has shape (batch_shape)
        p = self._event_shape[-1]  # has singleton shape
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (
            -hookgrad.linalg.slogdet(-2 * x).logabsdet + _log_2 * p
        ) + hookgrad.mvlgamma(y + (p + 1) / 2, p=p)
