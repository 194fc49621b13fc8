"""The declarative table of distribution cases: every distribution of
``hookgrad.distributions`` with parameters, a value to score and what to expect of its
samples. ``test_distributions.py`` runs each case on hookgrad and on torch.

A case's ``build(lib, *params)`` makes the distribution from ``lib``'s tensors;
``params`` are the (float64) arrays of the parameters the gradients are taken in;
``value`` is scored by ``log_prob``/``cdf``. ``exact`` says the seeded samples are
torch's bit for bit; otherwise they are drawn from the same numbers but a float op on
the way (a ``log``, a matrix product) may round differently by an ulp.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

RNG = np.random.default_rng(2024)


def positive(*shape: int) -> np.ndarray:
    return RNG.random(shape) + 0.5


def real(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def unit(*shape: int) -> np.ndarray:
    return RNG.random(shape) * 0.8 + 0.1


def simplex(*shape: int) -> np.ndarray:
    weights = RNG.random(shape) + 0.1
    return weights / weights.sum(-1, keepdims=True)


def spd(n: int, batch: tuple[int, ...] = ()) -> np.ndarray:
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def lower_cholesky(n: int, batch: tuple[int, ...] = ()) -> np.ndarray:
    diagonal = RNG.random(batch + (n, 1)) + 0.5
    return np.tril(RNG.standard_normal(batch + (n, n)), -1) + np.eye(n) * diagonal


def corr_cholesky(n: int, batch: tuple[int, ...] = ()) -> np.ndarray:
    cov = spd(n, batch)
    std = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    return np.linalg.cholesky(cov / std[..., :, None] / std[..., None, :])


@dataclass
class DistCase:
    """One distribution to compare with torch (see the module docstring)."""

    name: str
    build: Callable[..., Any]
    params: tuple[np.ndarray, ...]
    value: np.ndarray
    exact: bool = True
    discrete: bool = False
    # torch's GeneralizedPareto compares with a tensor of the default dtype, which torch's
    # ``isclose`` refuses for a float64 one: the case runs with the default dtype set
    default_dtype: bool = False
    # torch's Wishart.rsample modifies a mask its graph saved: its backward always fails
    rsample_grads: bool = True
    # the parameters that are symmetric matrices (gradcheck perturbs them symmetrically)
    symmetric: tuple[int, ...] = ()

    def __repr__(self) -> str:
        return self.name


def _d(lib: Any) -> Any:
    return lib.distributions


CASES = [
    DistCase("Normal", lambda t, a, b: _d(t).Normal(a, b), (real(3), positive(3)), real(2, 3)),
    DistCase(
        "Uniform",
        lambda t, a, b: _d(t).Uniform(a, a + b),
        (np.array([-1.0, 0.0, 2.0]), np.array([1.0, 2.0, 0.5])),
        np.array([[-0.5, 1.0, 2.2], [-0.9, 0.1, 2.49]]),
    ),
    DistCase(
        "Bernoulli",
        lambda t, p: _d(t).Bernoulli(probs=p),
        (np.array([0.2, 0.5, 0.9]),),
        np.array([0.0, 1.0, 1.0]),
        discrete=True,
    ),
    DistCase(
        "Bernoulli_logits",
        lambda t, p: _d(t).Bernoulli(logits=p),
        (real(3),),
        np.array([0.0, 1.0, 1.0]),
        discrete=True,
    ),
    DistCase(
        "Categorical",
        lambda t, p: _d(t).Categorical(probs=p),
        (simplex(2, 4),),
        np.array([[0.0, 3.0], [1.0, 2.0]]),
        discrete=True,
    ),
    DistCase(
        "Categorical_logits",
        lambda t, p: _d(t).Categorical(logits=p),
        (real(2, 4),),
        np.array([[0.0, 3.0], [1.0, 2.0]]),
        discrete=True,
    ),
    DistCase(
        "OneHotCategorical",
        lambda t, p: _d(t).OneHotCategorical(probs=p),
        (simplex(2, 3),),
        np.eye(3)[[0, 2]],
        discrete=True,
    ),
    DistCase(
        "OneHotCategoricalStraightThrough",
        lambda t, p: _d(t).OneHotCategoricalStraightThrough(logits=p),
        (real(2, 3),),
        np.eye(3)[[1, 2]],
        discrete=True,
    ),
    DistCase(
        "Binomial",
        lambda t, p: _d(t).Binomial(5, probs=p),
        (unit(3),),
        np.array([0.0, 2.0, 5.0]),
        discrete=True,
    ),
    DistCase(
        "Binomial_logits",
        lambda t, p: _d(t).Binomial(t.tensor([30.0, 4.0, 5.0], dtype=p.dtype), logits=p),
        (real(3),),
        np.array([0.0, 2.0, 5.0]),
        discrete=True,
    ),
    DistCase(
        "NegativeBinomial",
        lambda t, c, p: _d(t).NegativeBinomial(c, probs=p),
        (positive(3) * 4, unit(3)),
        np.array([0.0, 2.0, 7.0]),
        discrete=True,
    ),
    DistCase(
        "Multinomial",
        lambda t, p: _d(t).Multinomial(6, probs=p),
        (simplex(2, 3),),
        np.array([[1.0, 2.0, 3.0], [6.0, 0.0, 0.0]]),
        discrete=True,
    ),
    DistCase(
        "Poisson",
        lambda t, r: _d(t).Poisson(r),
        (np.array([0.7, 4.0, 25.0]),),
        np.array([0.0, 2.0, 7.0]),
        discrete=True,
    ),
    DistCase(
        "Geometric",
        lambda t, p: _d(t).Geometric(probs=p),
        (unit(3),),
        np.array([0.0, 2.0, 7.0]),
        discrete=True,
    ),
    DistCase("Beta", lambda t, a, b: _d(t).Beta(a, b), (positive(3), positive(3)), unit(3)),
    DistCase(
        "Gamma",
        lambda t, a, b: _d(t).Gamma(a, b),
        (np.array([0.3, 1.5, 12.0]), positive(3)),
        positive(3),
    ),
    DistCase(
        "InverseGamma",
        lambda t, a, b: _d(t).InverseGamma(a + 2, b),
        (positive(3), positive(3)),
        positive(3),
    ),
    DistCase("Chi2", lambda t, a: _d(t).Chi2(a), (positive(3) * 3,), positive(3)),
    DistCase(
        "StudentT",
        lambda t, a, b, c: _d(t).StudentT(a, b, c),
        (np.array([0.8, 1.5, 4.0]), real(3), positive(3)),
        real(3),
    ),
    DistCase("Dirichlet", lambda t, a: _d(t).Dirichlet(a), (positive(2, 3),), simplex(2, 3)),
    DistCase("Exponential", lambda t, a: _d(t).Exponential(a), (positive(3),), positive(3)),
    DistCase(
        "Laplace",
        lambda t, a, b: _d(t).Laplace(a, b),
        (real(3), positive(3)),
        real(3),
        exact=False,
    ),
    DistCase("Cauchy", lambda t, a, b: _d(t).Cauchy(a, b), (real(3), positive(3)), real(3)),
    DistCase("HalfCauchy", lambda t, b: _d(t).HalfCauchy(b), (positive(3),), positive(3)),
    DistCase("HalfNormal", lambda t, b: _d(t).HalfNormal(b), (positive(3),), positive(3)),
    DistCase(
        "LogNormal",
        lambda t, a, b: _d(t).LogNormal(a, b),
        (real(3), positive(3)),
        positive(3),
        exact=False,
    ),
    DistCase(
        "LogisticNormal",
        lambda t, a, b: _d(t).LogisticNormal(a, b),
        (real(3), positive(3)),
        simplex(4),
        exact=False,
    ),
    DistCase(
        "FisherSnedecor",
        lambda t, a, b: _d(t).FisherSnedecor(a, b),
        (np.array([1.5, 3.0, 6.0]), np.array([1.0, 3.0, 6.0])),
        positive(3),
    ),
    DistCase(
        "Gumbel",
        lambda t, a, b: _d(t).Gumbel(a, b),
        (real(3), positive(3)),
        real(3),
        exact=False,
    ),
    DistCase(
        "Pareto",
        lambda t, a, b: _d(t).Pareto(a, b),
        (positive(3), np.array([0.5, 1.5, 3.0])),
        positive(3) + 2,
        exact=False,
    ),
    DistCase(
        "GeneralizedPareto",
        lambda t, a, b, c: _d(t).GeneralizedPareto(a, b, c),
        (np.array([0.0, -1.0, 0.5]), positive(3), np.array([-0.3, 0.2, 0.6])),
        np.array([0.5, 1.0, 0.8]),
        exact=False,
        default_dtype=True,
    ),
    DistCase(
        "Weibull", lambda t, a, b: _d(t).Weibull(a, b), (positive(3), positive(3)), positive(3)
    ),
    DistCase(
        "Kumaraswamy",
        lambda t, a, b: _d(t).Kumaraswamy(a, b),
        (np.array([0.7, 1.5, 3.0]), np.array([0.8, 2.0, 1.5])),
        unit(3),
    ),
    DistCase(
        "VonMises",
        lambda t, a, b: _d(t).VonMises(a, b),
        (real(3), np.array([0.5, 2.0, 5.0])),
        real(3),
    ),
    DistCase(
        "ContinuousBernoulli",
        lambda t, p: _d(t).ContinuousBernoulli(probs=p),
        (np.array([0.2, 0.4995, 0.8]),),
        unit(3),
        exact=False,
    ),
    DistCase(
        "ContinuousBernoulli_logits",
        lambda t, p: _d(t).ContinuousBernoulli(logits=p),
        (np.array([-2.0, 0.7, 1.5]),),
        unit(3),
        exact=False,
    ),
    DistCase(
        "RelaxedBernoulli",
        lambda t, temperature, p: _d(t).RelaxedBernoulli(temperature, probs=p),
        (np.array(0.7), unit(3)),
        unit(3),
        exact=False,
    ),
    DistCase(
        "LogitRelaxedBernoulli",
        lambda t, temperature, p: t.distributions.relaxed_bernoulli.LogitRelaxedBernoulli(
            temperature, logits=p
        ),
        (np.array(0.7), real(3)),
        real(3),
        exact=False,
    ),
    DistCase(
        "RelaxedOneHotCategorical",
        lambda t, temperature, p: _d(t).RelaxedOneHotCategorical(temperature, probs=p),
        (np.array(0.8), simplex(2, 3)),
        simplex(2, 3),
        exact=False,
    ),
    DistCase(
        "ExpRelaxedCategorical",
        lambda t, temperature, p: t.distributions.relaxed_categorical.ExpRelaxedCategorical(
            temperature, logits=p
        ),
        (np.array(0.8), real(2, 3)),
        np.log(simplex(2, 3)),
        exact=False,
    ),
    DistCase(
        "MultivariateNormal_covariance",
        lambda t, m, c: _d(t).MultivariateNormal(m, covariance_matrix=c),
        (real(2, 3), spd(3)),
        real(4, 2, 3),
        exact=False,
        symmetric=(1,),
    ),
    DistCase(
        "MultivariateNormal_scale_tril",
        lambda t, m, c: _d(t).MultivariateNormal(m, scale_tril=c),
        (real(3), lower_cholesky(3, (2,))),
        real(2, 3),
        exact=False,
    ),
    DistCase(
        "MultivariateNormal_precision",
        lambda t, m, c: _d(t).MultivariateNormal(m, precision_matrix=c),
        (real(3), spd(3)),
        real(2, 3),
        exact=False,
        symmetric=(1,),
    ),
    DistCase(
        "LowRankMultivariateNormal",
        lambda t, m, w, d: _d(t).LowRankMultivariateNormal(m, w, d),
        (real(2, 3), real(3, 2), positive(3)),
        real(2, 3),
        exact=False,
    ),
    DistCase(
        "LKJCholesky",
        lambda t, c: _d(t).LKJCholesky(3, c),
        (np.array([0.5, 2.0]),),
        corr_cholesky(3, (2,)),
        exact=False,
    ),
    DistCase(
        "Wishart",
        lambda t, df, c: _d(t).Wishart(df, covariance_matrix=c),
        (np.array([3.5, 5.0]), spd(3)),
        spd(3, (2,)),
        exact=False,
        rsample_grads=False,
        symmetric=(1,),
    ),
    # batch shape (): the masked assignments of 0-d statistics
    DistCase(
        "Bernoulli_scalar",
        lambda t, p: _d(t).Bernoulli(p),
        (np.array(0.5),),
        np.array(1.0),
        discrete=True,
    ),
    DistCase(
        "Geometric_scalar",
        lambda t, p: _d(t).Geometric(p),
        (np.array(1.0),),
        np.array(0.0),
        discrete=True,
    ),
    DistCase(
        "StudentT_scalar",
        lambda t, df: _d(t).StudentT(df),
        (np.array(1.5),),
        np.array(0.3),
    ),
    DistCase(
        "FisherSnedecor_scalar",
        lambda t, a, b: _d(t).FisherSnedecor(a, b),
        (np.array(1.5), np.array(3.0)),
        np.array(0.7),
    ),
    DistCase(
        "Kumaraswamy_scalar",
        lambda t, a, b: _d(t).Kumaraswamy(a, b),
        (np.array(0.7), np.array(2.0)),
        np.array(0.4),
    ),
    DistCase(
        "Wishart_scalar",
        lambda t, df, c: _d(t).Wishart(df, covariance_matrix=c),
        (np.array(4.5), spd(3)),
        spd(3),
        exact=False,
        rsample_grads=False,
        symmetric=(1,),
    ),
    DistCase(
        "Independent",
        lambda t, a, b: _d(t).Independent(_d(t).Normal(a, b), 1),
        (real(2, 3), positive(2, 3)),
        real(2, 3),
    ),
    DistCase(
        "MixtureSameFamily",
        lambda t, p, a, b: _d(t).MixtureSameFamily(_d(t).Categorical(probs=p), _d(t).Normal(a, b)),
        (simplex(3), real(3), positive(3)),
        real(4),
    ),
    DistCase(
        "TransformedDistribution",
        lambda t, a, b: _d(t).TransformedDistribution(
            _d(t).Normal(a, b),
            [_d(t).transforms.TanhTransform(), _d(t).transforms.AffineTransform(1.0, 2.0)],
        ),
        (real(3), positive(3)),
        np.array([0.5, 1.5, 2.2]),
        exact=False,
    ),
]
