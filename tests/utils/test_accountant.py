"""``utils.privacy`` accountant: the RDP of the sampled Gaussian mechanism against an
independent numerical integration of its definition (Mironov, Talwar and Zhang 2019),
the closed form without sampling (Mironov 2017, Proposition 7), Opacus's documented
example, the RDP-to-DP conversion (Balle et al. 2020, Theorem 21) and the noise search."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hookgrad.utils.privacy import (
    DEFAULT_ORDERS,
    RDPAccountant,
    compute_rdp,
    get_noise_multiplier,
    rdp_to_epsilon,
)


def _rdp_by_integration(q: float, sigma: float, alpha: float) -> float:
    """``log(E_{z ~ N(0, sigma^2)}[((1 - q) + q * N(1, sigma^2)(z) / N(0, sigma^2)(z))^alpha])
    / (alpha - 1)``, by the trapezoidal rule on a fine grid in log space."""
    z = np.linspace(-40 * sigma - 5, 40 * sigma + alpha + 5, 400_001)
    log_density = -(z**2) / (2 * sigma**2) - math.log(sigma * math.sqrt(2 * math.pi))
    log_ratio = (2 * z - 1) / (2 * sigma**2)
    log_mixture = np.logaddexp(math.log1p(-q), math.log(q) + log_ratio)
    log_integrand = log_density + alpha * log_mixture
    top = log_integrand.max()
    integral = np.trapezoid(np.exp(log_integrand - top), z)
    return (top + math.log(integral)) / (alpha - 1)


@pytest.mark.parametrize(
    "q,sigma,alpha",
    [
        (0.01, 1.0, 2),
        (0.01, 1.0, 8.5),
        (0.01, 1.0, 10),
        (0.05, 0.8, 3.7),
        (0.004, 1.1, 32),
        (0.2, 2.0, 1.5),
        (0.1, 0.5, 6),
    ],
)
def test_rdp_equals_the_integral_of_its_definition(q: float, sigma: float, alpha: float) -> None:
    computed = compute_rdp(q, sigma, 1, [alpha])[0]
    assert computed == pytest.approx(_rdp_by_integration(q, sigma, alpha), rel=1e-6)


@pytest.mark.parametrize("alpha", [1.5, 2, 7.3, 40])
def test_without_sampling_the_rdp_is_the_gaussian_mechanisms(alpha: float) -> None:
    # Mironov 2017, Proposition 7: the Gaussian mechanism of sensitivity 1 is
    # (alpha, alpha / (2 sigma^2))-RDP; composition over steps adds.
    assert compute_rdp(1.0, 1.3, 7, [alpha])[0] == pytest.approx(7 * alpha / (2 * 1.3**2))
    assert compute_rdp(0.0, 1.3, 7, [alpha])[0] == 0.0


def test_opacus_documented_example() -> None:
    # opacus.ai/api/compute_dp_sgd_privacy: sampling rate 1%, noise 1.0, 300 steps,
    # orders 2 5 10 20 100 -> epsilon = 2.39 for delta = 1e-5, best order 5.
    orders = [2, 5, 10, 20, 100]
    epsilon, order = rdp_to_epsilon(orders, compute_rdp(0.01, 1.0, 300, orders), 1e-5)
    assert round(epsilon, 2) == 2.39
    assert order == 5


def test_conversion_is_balle_et_al_theorem_21() -> None:
    rdp = np.array([0.5, 0.3, 0.9])
    orders = [2.0, 4.5, 32.0]
    expected = [
        r + math.log((a - 1) / a) - (math.log(1e-6) + math.log(a)) / (a - 1)
        for r, a in zip(rdp, orders)
    ]
    best = int(np.argmin(expected))
    assert rdp_to_epsilon(orders, rdp, 1e-6) == (pytest.approx(expected[best]), orders[best])
    # never worse than Mironov 2017's conversion rho + log(1 / delta) / (alpha - 1)
    classic = min(r + math.log(1e6) / (a - 1) for r, a in zip(rdp, orders))
    assert rdp_to_epsilon(orders, rdp, 1e-6)[0] < classic


def test_accountant_composes_its_history() -> None:
    accountant = RDPAccountant()
    for _ in range(100):
        accountant.step(noise_multiplier=1.0, sample_rate=0.02)
    for _ in range(50):
        accountant.step(noise_multiplier=2.0, sample_rate=0.05)
    assert accountant.history == [(1.0, 0.02, 100), (2.0, 0.05, 50)]
    assert len(accountant) == 150
    rdp = compute_rdp(0.02, 1.0, 100) + compute_rdp(0.05, 2.0, 50)
    expected = rdp_to_epsilon(DEFAULT_ORDERS, rdp, 1e-5)
    assert accountant.get_privacy_spent(delta=1e-5) == pytest.approx(expected)
    assert accountant.get_epsilon(1e-5) == pytest.approx(expected[0])
    assert RDPAccountant().get_epsilon(1e-5) == 0.0


@pytest.mark.parametrize("target", [1.0, 3.0, 10.0])
def test_noise_multiplier_reaches_the_budget(target: float) -> None:
    sigma = get_noise_multiplier(
        target_epsilon=target, target_delta=1e-5, sample_rate=0.01, epochs=5
    )
    steps = 500

    def spent(noise: float) -> float:
        return rdp_to_epsilon(DEFAULT_ORDERS, compute_rdp(0.01, noise, steps), 1e-5)[0]

    assert target - 0.01 <= spent(sigma) <= target
    assert spent(sigma * 0.97) > target  # not much more noise than needed


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="sample_rate"):
        compute_rdp(1.5, 1.0, 1)
    with pytest.raises(ValueError, match="delta"):
        rdp_to_epsilon([2], [0.1], 0.0)
    with pytest.raises(ValueError, match="exactly one of epochs and steps"):
        get_noise_multiplier(target_epsilon=1, target_delta=1e-5, sample_rate=0.1)
    with pytest.raises(ValueError, match="too small"):
        get_noise_multiplier(target_epsilon=1e-9, target_delta=1e-5, sample_rate=1.0, steps=10)
