"""``kl_divergence`` against torch for every pair torch registers (values and gradients),
the Bregman divergence of exponential families, and ``register_kl`` dispatch, memoisation
and errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch as _torch

import hookgrad
from tests.oracle import assert_close, outcome

RNG = np.random.default_rng(8)


def _leaf(lib: Any, array: Any) -> Any:
    return lib.tensor(np.asarray(array), dtype=lib.float64, requires_grad=True)


def _params(*arrays: Any) -> Callable[[Any, bool], list[Any]]:
    """The parameters' leaves; ``scalar``: the first entry of each batched one (those of
    3 rows), for distributions of batch shape ``()``."""

    def leaves(lib: Any, scalar: bool) -> list[Any]:
        arrays_ = [np.asarray(a) for a in arrays]
        if scalar:
            arrays_ = [a[0] if a.ndim and a.shape[0] == 3 else a for a in arrays_]
        return [_leaf(lib, a) for a in arrays_]

    return leaves


def _spd() -> np.ndarray:
    a = RNG.standard_normal((2, 2))
    return a @ a.T + 2 * np.eye(2)


# class name -> (the parameters' arrays, build(lib, *leaves))
FAMILIES: dict[str, tuple[Callable[[Any, bool], list[Any]], Callable[..., Any]]] = {}


def _family(name: str, build: Callable[..., Any], *arrays: np.ndarray) -> None:
    FAMILIES[name] = (_params(*arrays), build)


def _d(lib: Any) -> Any:
    return lib.distributions


_family("Bernoulli", lambda t, p: _d(t).Bernoulli(p), RNG.random(3) * 0.8 + 0.1)
_family("Beta", lambda t, a, b: _d(t).Beta(a, b), RNG.random(3) + 0.5, RNG.random(3) + 0.5)
_family("Binomial", lambda t, p: _d(t).Binomial(t.tensor([5.0, 7, 9]), p), RNG.random(3))
_family("Categorical", lambda t, p: _d(t).Categorical(p), RNG.random((3, 4)) + 0.1)
_family("Cauchy", lambda t, a, b: _d(t).Cauchy(a, b), RNG.standard_normal(3), RNG.random(3) + 0.5)
_family("ContinuousBernoulli", lambda t, p: _d(t).ContinuousBernoulli(p), [0.2, 0.4995, 0.7])
_family("Dirichlet", lambda t, a: _d(t).Dirichlet(a), RNG.random((3, 4)) + 0.5)
_family("Exponential", lambda t, r: _d(t).Exponential(r), RNG.random(3) + 0.5)
_family("Gamma", lambda t, a, b: _d(t).Gamma(a, b), RNG.random(3) + 0.5, RNG.random(3) + 0.5)
_family("Geometric", lambda t, p: _d(t).Geometric(p), RNG.random(3) * 0.8 + 0.1)
_family("Gumbel", lambda t, a, b: _d(t).Gumbel(a, b), RNG.standard_normal(3), RNG.random(3) + 0.5)
_family("HalfNormal", lambda t, s: _d(t).HalfNormal(s), RNG.random(3) + 0.5)
_family(
    "Independent",
    lambda t, a, b: _d(t).Independent(_d(t).Normal(a, b), 1),
    RNG.standard_normal((3, 2)),
    RNG.random((3, 2)) + 0.5,
)
_family("Laplace", lambda t, a, b: _d(t).Laplace(a, b), RNG.standard_normal(3), RNG.random(3) + 0.5)
_family(
    "LowRankMultivariateNormal",
    lambda t, m, w, d: _d(t).LowRankMultivariateNormal(m, w, d),
    RNG.standard_normal((3, 2)),
    RNG.standard_normal((2, 1)),
    RNG.random(2) + 0.5,
)
_family(
    "MultivariateNormal",
    lambda t, m, c: _d(t).MultivariateNormal(m, covariance_matrix=c),
    RNG.standard_normal((3, 2)),
    _spd(),
)
_family("Normal", lambda t, a, b: _d(t).Normal(a, b), RNG.standard_normal(3), RNG.random(3) + 0.5)
_family("OneHotCategorical", lambda t, p: _d(t).OneHotCategorical(p), RNG.random((3, 4)) + 0.1)
_family("Pareto", lambda t, s, a: _d(t).Pareto(s, a), RNG.random(3) + 0.1, [0.5, 1.5, 2.5])
_family("Poisson", lambda t, r: _d(t).Poisson(r), RNG.random(3) * 3 + 0.5)
_family(
    "TransformedDistribution",
    lambda t, a, b: _d(t).LogNormal(a, b),
    RNG.standard_normal(3),
    RNG.random(3) + 0.5,
)
_family(
    "Uniform", lambda t, a, b: _d(t).Uniform(a, a + b), RNG.random(3) * 0.4, RNG.random(3) * 0.5
)
_family(
    "ExponentialFamily",
    lambda t, df, c: _d(t).Wishart(df, covariance_matrix=c),
    [3.0, 4.0, 5.5],
    _spd(),
)

PAIRS = sorted((p.__name__, q.__name__) for p, q in _torch.distributions.kl._KL_REGISTRY)


def _kl(lib: Any, pair: tuple[str, str], scalar: bool) -> Any:
    leaves = []
    dists = []
    for name in pair:
        arrays, build = FAMILIES[name]
        params = arrays(lib, scalar)
        leaves += params
        dists.append(build(lib, *params))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kl = lib.distributions.kl_divergence(*dists)
            finite = lib.where(lib.isfinite(kl), kl, lib.zeros_like(kl))
            grads = None
            if kl.requires_grad:
                grads = lib.autograd.grad(finite.sum(), leaves, allow_unused=True)
    except (NotImplementedError, ValueError) as error:
        return ("error", type(error).__name__, str(error))
    return kl, grads


@pytest.mark.parametrize("scalar", [False, True], ids=["batched", "scalar"])
@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(pair) for pair in PAIRS])
def test_kl_divergence_matches_torch(pair, scalar, torch):
    ours, theirs = _kl(hookgrad, pair, scalar), _kl(torch, pair, scalar)
    if isinstance(theirs[0], str):
        assert ours == theirs
        return
    assert_close(ours[0], theirs[0], 1e-9, 1e-10)
    assert (ours[1] is None) == (theirs[1] is None)
    if theirs[1] is not None:
        for a, b in zip(ours[1], theirs[1]):
            assert (a is None) == (b is None)
            assert_close(a, b, 1e-8, 1e-10)


def test_every_registered_pair_is_hookgrads(torch):
    ours = {(p.__name__, q.__name__) for p, q in hookgrad.distributions.kl._KL_REGISTRY}
    assert ours == set(PAIRS)


def test_registry_dispatch(torch):
    def run(lib: Any) -> Any:
        D = lib.distributions

        class MyNormal(D.Normal):
            pass

        class Other(D.Normal):
            pass

        p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
        inherited = lib.distributions.kl_divergence(p, q)  # Normal's formula
        D.register_kl(MyNormal, D.Normal)(lambda p, q: lib.tensor(42.0))
        registered = lib.distributions.kl_divergence(p, q)
        D.register_kl(D.Normal, Other)(lambda p, q: lib.tensor(7.0))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ambiguous = lib.distributions.kl_divergence(MyNormal(0.0, 1.0), Other(0.0, 1.0))
        messages = [str(w.message) for w in caught]
        for key in [(MyNormal, D.Normal), (D.Normal, Other)]:
            del D.kl._KL_REGISTRY[key]
        D.kl._KL_MEMOIZE.clear()
        missing = outcome(lambda _: D.kl_divergence(D.Normal(0.0, 1.0), D.Binomial(3, 0.5)), lib)
        cross = outcome(
            lambda _: D.kl_divergence(D.Normal(0.0, 1.0), D.Dirichlet(lib.ones(2))), lib
        )
        return inherited.item(), registered.item(), ambiguous.item(), messages, missing, cross

    assert run(hookgrad) == run(torch)
