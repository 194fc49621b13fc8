"""Argument and sample validation against torch: the ``ValueError``s of bad parameters and
of values outside the support or of the wrong shape, constructors' errors,
``set_default_validate_args``, ``repr`` and the ``Distribution`` base class's
defaults."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import hookgrad
from tests.oracle import outcome


def _d(lib: Any) -> Any:
    return lib.distributions


CASES = {
    "normal_scale": lambda t: _d(t).Normal(t.zeros(2), t.tensor([1.0, -1.0])),
    "normal_loc_nan": lambda t: _d(t).Normal(t.tensor([float("nan")]), 1.0),
    "uniform_bounds": lambda t: _d(t).Uniform(t.tensor([1.0]), t.tensor([0.0])),
    "bernoulli_probs": lambda t: _d(t).Bernoulli(t.tensor([1.5])),
    "bernoulli_both": lambda t: _d(t).Bernoulli(probs=0.5, logits=0.0),
    "bernoulli_neither": lambda t: _d(t).Bernoulli(),
    "categorical_simplex": lambda t: _d(t).Categorical(t.tensor([-0.1, 1.1])),
    "categorical_scalar": lambda t: _d(t).Categorical(t.tensor(1.0)),
    "dirichlet_scalar": lambda t: _d(t).Dirichlet(t.tensor(1.0)),
    "dirichlet_negative": lambda t: _d(t).Dirichlet(t.tensor([1.0, -1.0])),
    "geometric_zero": lambda t: _d(t).Geometric(t.tensor([0.0, 0.5])),
    "binomial_count": lambda t: _d(t).Binomial(t.tensor([2.5]), t.tensor([0.5])),
    "multinomial_count": lambda t: _d(t).Multinomial(t.tensor(3), t.tensor([0.5, 0.5])),
    "mvn_two_matrices": lambda t: _d(t).MultivariateNormal(
        t.zeros(2), covariance_matrix=t.eye(2), scale_tril=t.eye(2)
    ),
    "mvn_scalar_loc": lambda t: _d(t).MultivariateNormal(t.tensor(0.0), t.eye(1)),
    "mvn_not_positive_definite": lambda t: _d(t).MultivariateNormal(
        t.zeros(2), covariance_matrix=t.tensor([[1.0, 2.0], [2.0, 1.0]])
    ),
    "mvn_vector_covariance": lambda t: _d(t).MultivariateNormal(t.zeros(2), t.ones(2)),
    "lowrank_factor_shape": lambda t: _d(t).LowRankMultivariateNormal(
        t.zeros(2), t.ones(3, 1), t.ones(2)
    ),
    "independent_too_many": lambda t: _d(t).Independent(_d(t).Normal(t.zeros(2), 1.0), 2),
    "lkj_dim": lambda t: _d(t).LKJCholesky(1),
    "wishart_df": lambda t: _d(t).Wishart(t.tensor(0.5), covariance_matrix=t.eye(2)),
    "transformed_not_transform": lambda t: _d(t).TransformedDistribution(
        _d(t).Normal(0.0, 1.0), [1.0]
    ),
    "mixture_not_categorical": lambda t: _d(t).MixtureSameFamily(
        _d(t).Normal(0.0, 1.0), _d(t).Normal(t.zeros(2), 1.0)
    ),
    "mixture_components": lambda t: _d(t).MixtureSameFamily(
        _d(t).Categorical(t.ones(3)), _d(t).Normal(t.zeros(2), 1.0)
    ),
    "broadcast_number": lambda t: _d(t).Normal([0.0], 1.0),
    "continuous_bernoulli_probs": lambda t: _d(t).ContinuousBernoulli(
        t.tensor([1.5]), validate_args=True
    ),
    "log_prob_outside_support": lambda t: _d(t).Exponential(t.ones(2)).log_prob(t.tensor(-1.0)),
    "log_prob_not_tensor": lambda t: _d(t).Normal(0.0, 1.0).log_prob(1.0),
    "log_prob_event_shape": lambda t: _d(t).Dirichlet(t.ones(3)).log_prob(t.ones(2) / 2),
    "log_prob_batch_shape": lambda t: _d(t).Normal(t.zeros(3), 1.0).log_prob(t.zeros(2)),
    "cdf_outside_support": lambda t: _d(t).Uniform(0.0, 1.0).cdf(t.tensor(2.0)),
    "categorical_value": lambda t: _d(t).Categorical(t.ones(3)).log_prob(t.tensor(3)),
    "not_validated": lambda t: _d(t).Normal(0.0, -1.0, validate_args=False).scale,
    "sample_validated_off": lambda t: (
        _d(t).Exponential(1.0, validate_args=False).log_prob(t.tensor(-1.0))
    ),
    "binomial_entropy": lambda t: _d(t).Binomial(t.tensor([2.0, 3.0]), t.tensor(0.5)).entropy(),
    "expand_custom_init": lambda t: _expand_subclass(t),
    "enumerate_cartesian": lambda t: (
        _d(t).Independent(_d(t).Bernoulli(t.ones(2) / 2), 1).enumerate_support()
    ),
    "base_mode": lambda t: _d(t).Distribution().mode,
    "base_rsample": lambda t: _d(t).Distribution().rsample(),
    "repr": lambda t: repr(_d(t).Normal(t.zeros(3), 1.0)) + repr(_d(t).Gamma(1.0, 2.0)),
    "repr_independent": lambda t: repr(_d(t).Independent(_d(t).Normal(t.zeros(3), 1.0), 1)),
    "repr_mixture": lambda t: repr(
        _d(t).MixtureSameFamily(_d(t).Categorical(t.ones(2)), _d(t).Normal(t.zeros(2), 1.0))
    ),
    "shapes": lambda t: (
        _d(t).Normal(0.0, 1.0).batch_shape,
        _d(t).Dirichlet(t.ones(2, 3)).event_shape,
        _d(t).Normal(t.zeros(2), 1.0)._extended_shape((4,)),
    ),
    "perplexity": lambda t: _d(t).Categorical(t.ones(4)).perplexity(),
    "support_of_uniform": lambda t: repr(_d(t).Uniform(0.0, 2.0).support),
    "has_rsample": lambda t: [
        _d(t).Normal(0.0, 1.0).has_rsample,
        _d(t).Bernoulli(0.5).has_rsample,
        _d(t).Independent(_d(t).Normal(t.zeros(2), 1.0), 1).has_rsample,
        _d(t).Bernoulli(0.5).has_enumerate_support,
    ],
}


def _expand_subclass(t: Any) -> Any:
    class Shifted(_d(t).Normal):
        def __init__(self, loc: Any) -> None:
            super().__init__(loc, 1.0)

    return Shifted(t.zeros(2)).expand((3, 2))


@pytest.mark.parametrize("fn", CASES.values(), ids=CASES.keys())
def test_outcome_is_torchs(fn, torch):
    ours = outcome(fn, hookgrad)
    theirs = outcome(fn, torch)
    normalise = lambda o: repr(o).replace("hookgrad", "torch")  # noqa: E731
    assert normalise(ours) == normalise(theirs)


def test_default_validate_args(torch):
    def run(lib: Any) -> Any:
        D = lib.distributions.Distribution
        D.set_default_validate_args(False)
        try:
            unchecked = lib.distributions.Normal(0.0, -1.0).scale.item()
        finally:
            D.set_default_validate_args(True)
        refused = outcome(lambda _: lib.distributions.Normal(0.0, -1.0), lib)
        bad_value = outcome(lambda _: D.set_default_validate_args(2), lib)
        return unchecked, refused[:2], bad_value

    assert run(hookgrad) == run(torch)


def test_sample_n_warns(torch):
    def run(lib: Any) -> Any:
        lib.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sample = lib.distributions.Normal(0.0, 1.0).sample_n(3)
        return sample.numpy().tolist(), [(w.category, str(w.message)) for w in caught]

    assert run(hookgrad) == run(torch)


def test_missing_constraints_warn(torch):
    def run(lib: Any) -> Any:
        class Bare(lib.distributions.Distribution):
            pass

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Bare(validate_args=True)._validate_sample(lib.zeros(()))
        return [str(w.message).replace("hookgrad", "torch") for w in caught]

    assert run(hookgrad) == run(torch)
