"""The closed forms of ``kl_divergence(p, q)`` for ``p`` and ``q`` of different families
(``Beta`` and ``Normal`` ...; infinite where ``q``'s support does not cover ``p``'s),
torch's formulas, in ``RULES`` for ``kl.py`` to register.

Example: ``kl_divergence(Exponential(1.0), Gamma(2.0, 1.0))`` runs
``_kl_exponential_gamma``.
"""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions.bernoulli import Bernoulli
from hookgrad.distributions.beta import Beta
from hookgrad.distributions.binomial import Binomial
from hookgrad.distributions.cauchy import Cauchy
from hookgrad.distributions.continuous_bernoulli import ContinuousBernoulli
from hookgrad.distributions.exponential import Exponential
from hookgrad.distributions.gamma import Gamma
from hookgrad.distributions.gumbel import Gumbel
from hookgrad.distributions.kl_rules import KLRules, infinite_like, x_log_x
from hookgrad.distributions.laplace import Laplace
from hookgrad.distributions.normal import Normal
from hookgrad.distributions.pareto import Pareto
from hookgrad.distributions.poisson import Poisson
from hookgrad.distributions.uniform import Uniform
from hookgrad.distributions.utils import _masked_assign
from hookgrad.distributions.utils import euler_constant as _euler_gamma
from hookgrad.tensor.tensor import Tensor

_inf = math.inf

RULES = KLRules()


# ---------------------------------------------------------------- different families


@RULES.register(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@RULES.register(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Beta, q: ContinuousBernoulli) -> Tensor:
    return -p.entropy() - p.mean * q.logits - hookgrad.log1p(-q.probs) - q._cont_bern_log_norm()


@RULES.register(Beta, Pareto)
def _kl_beta_infinity(p: Beta, q: Pareto) -> Tensor:
    return infinite_like(p.concentration1)


@RULES.register(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    return (
        -p.entropy()
        - q.rate.log()
        + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))
    )


@RULES.register(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    t1 = -p.entropy()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (
        p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    )
    t4 = q.rate * p.concentration1 / (p.concentration1 + p.concentration0)
    return t1 + t2 - t3 + t4


@RULES.register(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    e_beta = p.concentration1 / (p.concentration1 + p.concentration0)
    var_normal = q.scale.pow(2)
    t1 = -p.entropy()
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (e_beta * (1 - e_beta) / (p.concentration1 + p.concentration0 + 1) + e_beta.pow(2)) * 0.5
    t4 = q.loc * e_beta
    t5 = q.loc.pow(2) * 0.5
    return t1 + t2 + (t3 - t4 + t5) / var_normal


@RULES.register(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    _masked_assign(result, (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound), _inf)
    return result


# Note that the KL between a ContinuousBernoulli and Beta has no closed form


@RULES.register(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p: ContinuousBernoulli, q: Pareto) -> Tensor:
    return infinite_like(p.probs)


@RULES.register(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() - hookgrad.log(q.rate) + q.rate * p.mean


# Note that the KL between a ContinuousBernoulli and Gamma has no closed form


@RULES.register(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + hookgrad.square(q.loc / q.scale)) + hookgrad.log(q.scale)
    t3 = (p.variance + hookgrad.square(p.mean) - 2.0 * q.loc * p.mean) / (
        2.0 * hookgrad.square(q.scale)
    )
    return t1 + t2 + t3


@RULES.register(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return hookgrad.where(
        hookgrad.max(
            hookgrad.ge(q.low, p.support.lower_bound), hookgrad.le(q.high, p.support.upper_bound)
        ),
        hookgrad.ones_like(result) * _inf,
        result,
    )


@RULES.register(Exponential, Beta)
@RULES.register(Exponential, ContinuousBernoulli)
@RULES.register(Exponential, Pareto)
@RULES.register(Exponential, Uniform)
def _kl_exponential_infinity(p: Exponential, q: Any) -> Tensor:
    return infinite_like(p.rate)


@RULES.register(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    t1 = -q.concentration * hookgrad.log(ratio)
    return (
        t1 + ratio + q.concentration.lgamma() + q.concentration * _euler_gamma - (1 + _euler_gamma)
    )


@RULES.register(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = hookgrad.exp(loc_scale_ratio) * scale_rate_prod / (scale_rate_prod + 1)
    t3 = scale_rate_prod.reciprocal()
    return t1 - loc_scale_ratio + t2 + t3


# Note that the KL between an Exponential and a Laplace has no closed form


@RULES.register(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * hookgrad.log(rate_sqr * var_normal * 2 * math.pi)
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@RULES.register(Gamma, Beta)
@RULES.register(Gamma, ContinuousBernoulli)
@RULES.register(Gamma, Pareto)
@RULES.register(Gamma, Uniform)
def _kl_gamma_infinity(p: Gamma, q: Any) -> Tensor:
    return infinite_like(p.concentration)


@RULES.register(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@RULES.register(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    beta_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = (
        (p.concentration - 1) * p.concentration.digamma()
        - p.concentration.lgamma()
        - p.concentration
    )
    t2 = beta_scale_prod.log() + p.concentration / beta_scale_prod
    t3 = (
        hookgrad.exp(loc_scale_ratio) * (1 + beta_scale_prod.reciprocal()).pow(-p.concentration)
        - loc_scale_ratio
    )
    return t1 + t2 + t3


# Note that the KL between a Gamma and a Laplace has no closed form


@RULES.register(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = (
        0.5 * hookgrad.log(beta_sqr * var_normal * 2 * math.pi)
        - p.concentration
        - p.concentration.lgamma()
    )
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / beta_sqr
    t3 = q.loc * p.concentration / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (p.concentration - 1) * p.concentration.digamma() + (t2 - t3 + t4) / var_normal


@RULES.register(Gumbel, Beta)
@RULES.register(Gumbel, ContinuousBernoulli)
@RULES.register(Gumbel, Exponential)
@RULES.register(Gumbel, Gamma)
@RULES.register(Gumbel, Pareto)
@RULES.register(Gumbel, Uniform)
def _kl_gumbel_infinity(p: Gumbel, q: Any) -> Tensor:
    return infinite_like(p.loc)


# Note that the KL between a Gumbel and a Laplace has no closed form


@RULES.register(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * _euler_gamma - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (_euler_gamma + 1)


@RULES.register(Laplace, Beta)
@RULES.register(Laplace, ContinuousBernoulli)
@RULES.register(Laplace, Exponential)
@RULES.register(Laplace, Gamma)
@RULES.register(Laplace, Pareto)
@RULES.register(Laplace, Uniform)
def _kl_laplace_infinity(p: Laplace, q: Any) -> Tensor:
    return infinite_like(p.loc)


@RULES.register(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * hookgrad.log(2 * scale_sqr_var_ratio / math.pi)
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


@RULES.register(Normal, Beta)
@RULES.register(Normal, ContinuousBernoulli)
@RULES.register(Normal, Exponential)
@RULES.register(Normal, Gamma)
@RULES.register(Normal, Pareto)
@RULES.register(Normal, Uniform)
def _kl_normal_infinity(p: Normal, q: Any) -> Tensor:
    return infinite_like(p.loc)


@RULES.register(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale).pow(2)
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = hookgrad.exp(-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio)
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@RULES.register(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = hookgrad.log(scale_ratio)
    t2 = math.sqrt(2 / math.pi) * p.scale * hookgrad.exp(-0.5 * loc_diff_scale_ratio.pow(2))
    t3 = loc_diff * hookgrad.erf(math.sqrt(0.5) * loc_diff_scale_ratio)
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@RULES.register(Pareto, Beta)
@RULES.register(Pareto, ContinuousBernoulli)
@RULES.register(Pareto, Uniform)
def _kl_pareto_infinity(p: Pareto, q: Any) -> Tensor:
    return infinite_like(p.scale)


@RULES.register(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    scale_rate_prod = p.scale * q.rate
    t1 = (p.alpha / scale_rate_prod).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * scale_rate_prod / (p.alpha - 1)
    result = t1 - t2 + t3 - 1
    _masked_assign(result, p.alpha <= 1, _inf)
    return result


@RULES.register(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    common_term = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common_term
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common_term
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    result = t1 + t2 + t3 + t4 - 1
    _masked_assign(result, p.alpha <= 1, _inf)
    return result


# Note that the KL between a Pareto and a Laplace has no closed form


@RULES.register(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    var_normal = 2 * q.scale.pow(2)
    common_term = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * common_term.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common_term - q.loc).pow(2)
    result = t1 - t2 + (t3 + t4) / var_normal - 1
    _masked_assign(result, p.alpha <= 2, _inf)
    return result


@RULES.register(Poisson, Bernoulli)
@RULES.register(Poisson, Binomial)
def _kl_poisson_infinity(p: Poisson, q: Any) -> Tensor:
    return infinite_like(p.rate)


@RULES.register(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    common_term = p.high - p.low
    t1 = hookgrad.log(common_term)
    t2 = (q.concentration1 - 1) * (x_log_x(p.high) - x_log_x(p.low) - common_term) / common_term
    t3 = (
        (q.concentration0 - 1)
        * (x_log_x(1 - p.high) - x_log_x(1 - p.low) + common_term)
        / common_term
    )
    t4 = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    result = t3 + t4 - t1 - t2
    _masked_assign(result, (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound), _inf)
    return result


@RULES.register(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    result = -p.entropy() - p.mean * q.logits - hookgrad.log1p(-q.probs) - q._cont_bern_log_norm()
    return hookgrad.where(
        hookgrad.max(
            hookgrad.ge(p.high, q.support.upper_bound),
            hookgrad.le(p.low, q.support.lower_bound),
        ),
        hookgrad.ones_like(result) * _inf,
        result,
    )


@RULES.register(Uniform, Exponential)
def _kl_uniform_exponetial(p: Uniform, q: Exponential) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    _masked_assign(result, p.low < q.support.lower_bound, _inf)
    return result


@RULES.register(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    common_term = p.high - p.low
    t1 = common_term.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (x_log_x(p.high) - x_log_x(p.low) - common_term) / common_term
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    _masked_assign(result, p.low < q.support.lower_bound, _inf)
    return result


@RULES.register(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    common_term = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common_term.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common_term * (hookgrad.exp(-high_loc_diff) - hookgrad.exp(-low_loc_diff))
    return t1 - t2


# Note that the KL between a Uniform and a Laplace has no closed form


@RULES.register(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = (common_term).pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@RULES.register(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    support_uniform = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * (support_uniform)).log()
    t2 = (x_log_x(p.high) - x_log_x(p.low) - support_uniform) / support_uniform
    result = t2 * (q.alpha + 1) - t1
    _masked_assign(result, p.low < q.support.lower_bound, _inf)
    return result


@RULES.register(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    # from https://arxiv.org/abs/1905.10965
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2
