"""``hookgrad.distributions``: torch's probability distributions (``torch.distributions``).

Every distribution of torch 2.13 with its parameters, ``sample``/``rsample`` (torch's
numbers after the same ``manual_seed``: the samplers are torch's, including its gamma
and Dirichlet ones), ``log_prob``, ``cdf``, ``icdf``, ``entropy``, moments, ``expand``,
and argument validation with torch's errors; ``constraints`` and the registries
``biject_to``/``transform_to``; the ``transforms``; ``kl_divergence`` with torch's
registered pairs. They are built from hookgrad's differentiable ops, so their gradients
(and the reparameterised gradients of ``rsample``) are torch's.

The modules mirror torch's: one per distribution, plus ``distribution``,
``exp_family``, ``constraints``, ``constraint_registry``, ``transforms``, ``kl`` and
``utils``; ``_functions`` holds torch's private samplers ``_standard_gamma`` and
``_sample_dirichlet`` and their gradients.

Example::

    import hookgrad as torch
    from hookgrad.distributions import Normal, kl_divergence

    torch.manual_seed(0)
    mu = torch.zeros(3, requires_grad=True)
    q = Normal(mu, 1.0)
    x = q.rsample()                       # torch's numbers
    loss = -q.log_prob(x).sum() + kl_divergence(q, Normal(0.0, 2.0)).sum()
    loss.backward()
"""

from hookgrad.distributions import constraints, transforms  # noqa: F401 (torch's modules)
from hookgrad.distributions.bernoulli import Bernoulli
from hookgrad.distributions.beta import Beta
from hookgrad.distributions.binomial import Binomial
from hookgrad.distributions.categorical import Categorical
from hookgrad.distributions.cauchy import Cauchy
from hookgrad.distributions.chi2 import Chi2
from hookgrad.distributions.constraint_registry import biject_to, transform_to
from hookgrad.distributions.continuous_bernoulli import ContinuousBernoulli
from hookgrad.distributions.dirichlet import Dirichlet
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.exp_family import ExponentialFamily
from hookgrad.distributions.exponential import Exponential
from hookgrad.distributions.fishersnedecor import FisherSnedecor
from hookgrad.distributions.gamma import Gamma
from hookgrad.distributions.generalized_pareto import GeneralizedPareto
from hookgrad.distributions.geometric import Geometric
from hookgrad.distributions.gumbel import Gumbel
from hookgrad.distributions.half_cauchy import HalfCauchy
from hookgrad.distributions.half_normal import HalfNormal
from hookgrad.distributions.independent import Independent
from hookgrad.distributions.inverse_gamma import InverseGamma
from hookgrad.distributions.kl import _add_kl_info, kl_divergence, register_kl
from hookgrad.distributions.kumaraswamy import Kumaraswamy
from hookgrad.distributions.laplace import Laplace
from hookgrad.distributions.lkj_cholesky import LKJCholesky
from hookgrad.distributions.log_normal import LogNormal
from hookgrad.distributions.logistic_normal import LogisticNormal
from hookgrad.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from hookgrad.distributions.mixture_same_family import MixtureSameFamily
from hookgrad.distributions.multinomial import Multinomial
from hookgrad.distributions.multivariate_normal import MultivariateNormal
from hookgrad.distributions.negative_binomial import NegativeBinomial
from hookgrad.distributions.normal import Normal
from hookgrad.distributions.one_hot_categorical import (
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from hookgrad.distributions.pareto import Pareto
from hookgrad.distributions.poisson import Poisson
from hookgrad.distributions.relaxed_bernoulli import RelaxedBernoulli
from hookgrad.distributions.relaxed_categorical import RelaxedOneHotCategorical
from hookgrad.distributions.studentT import StudentT
from hookgrad.distributions.transformed_distribution import TransformedDistribution
from hookgrad.distributions.transforms import *  # noqa: F403
from hookgrad.distributions.uniform import Uniform
from hookgrad.distributions.von_mises import VonMises
from hookgrad.distributions.weibull import Weibull
from hookgrad.distributions.wishart import Wishart

_add_kl_info()
del _add_kl_info

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "Poisson",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "TransformedDistribution",
    "biject_to",
    "kl_divergence",
    "register_kl",
    "transform_to",
]
__all__.extend(transforms.__all__)
