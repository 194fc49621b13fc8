"""The RDP accountant: how much privacy DP-SGD spends, from the Rényi differential privacy
of the sampled Gaussian mechanism.

One step of DP-SGD with Poisson sampling rate ``q`` and noise multiplier ``sigma`` is the
sampled Gaussian mechanism, whose RDP of order ``alpha`` is ``log(A_alpha) / (alpha - 1)``
with ``A_alpha = E_{z ~ N(0, sigma^2)} [((1 - q) + q * exp((2z - 1) / (2 sigma^2)))^alpha]``
(Mironov, Talwar and Zhang, "Rényi Differential Privacy of the Sampled Gaussian
Mechanism", 2019): a finite binomial sum for integer orders (their Section 3.3), a series
with ``erfc`` terms for fractional ones. RDP adds up over steps (Mironov, "Rényi
Differential Privacy", 2017, Proposition 1), and an ``(alpha, rho)``-RDP guarantee gives
``(epsilon, delta)``-DP with

    epsilon = rho + log((alpha - 1) / alpha) - (log(delta) + log(alpha)) / (alpha - 1)

(Balle, Barthe, Gaboardi, Hsu and Sato, "Hypothesis Testing Interpretations and Rényi
Differential Privacy", 2020, Theorem 21; the conversion Opacus uses), minimised over the
orders tried (:data:`DEFAULT_ORDERS`, Opacus's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "DEFAULT_ORDERS",
    "RDPAccountant",
    "compute_rdp",
    "get_noise_multiplier",
    "rdp_to_epsilon",
]

DEFAULT_ORDERS: tuple[float, ...] = tuple([1 + x / 10 for x in range(1, 100)] + list(range(12, 64)))

_MAX_SIGMA = 1e6


def _log_add(a: float, b: float) -> float:
    """``log(exp(a) + exp(b))``."""
    high, low = max(a, b), min(a, b)
    if low == -math.inf:
        return high
    return high + math.log1p(math.exp(low - high))


def _log_sub(a: float, b: float) -> float:
    """``log(exp(a) - exp(b))`` for ``a >= b``."""
    if b == -math.inf:
        return a
    if a <= b:
        return -math.inf
    return a + math.log1p(-math.exp(b - a))


def _log_erfc(x: float) -> float:
    """``log(erfc(x))``, by its asymptotic series where ``erfc`` underflows."""
    value = math.erfc(x)
    if value > 1e-300:
        return math.log(value)
    inverse = 1.0 / (x * x)
    series = 1 - inverse / 2 + 3 * inverse**2 / 4 - 15 * inverse**3 / 8 + 105 * inverse**4 / 16
    return -x * x - math.log(x) - 0.5 * math.log(math.pi) + math.log(series)


def _log_a_integer(q: float, sigma: float, alpha: int) -> float:
    """``log(A_alpha)`` for an integer order: ``sum_k C(alpha, k) (1-q)^(alpha-k) q^k
    exp((k^2 - k) / (2 sigma^2))``."""
    k = np.arange(alpha + 1, dtype=np.float64)
    log_binomial = np.array(
        [
            math.lgamma(alpha + 1) - math.lgamma(i + 1) - math.lgamma(alpha - i + 1)
            for i in range(alpha + 1)
        ]
    )
    terms = (
        log_binomial + k * math.log(q) + (alpha - k) * math.log1p(-q) + (k * k - k) / (2 * sigma**2)
    )
    top = terms.max()
    return float(top + math.log(np.exp(terms - top).sum()))


def _log_a_fractional(q: float, sigma: float, alpha: float) -> float:
    """``log(A_alpha)`` for a fractional order: the two series of Mironov, Talwar and
    Zhang (2019, Section 3.3), split at ``z0``, summed until their terms fall below
    ``exp(-30)``."""
    log_a0 = log_a1 = -math.inf
    z0 = sigma**2 * math.log(1 / q - 1) + 0.5
    coef = 1.0  # C(alpha, i), by the recurrence C(alpha, i + 1) = C(alpha, i) (alpha - i) / (i + 1)
    i = 0
    while True:
        j = alpha - i
        log_coef = math.log(abs(coef))
        log_t0 = log_coef + i * math.log(q) + j * math.log1p(-q)
        log_t1 = log_coef + j * math.log(q) + i * math.log1p(-q)
        log_e0 = math.log(0.5) + _log_erfc((i - z0) / (math.sqrt(2) * sigma))
        log_e1 = math.log(0.5) + _log_erfc((z0 - j) / (math.sqrt(2) * sigma))
        log_s0 = log_t0 + (i * i - i) / (2 * sigma**2) + log_e0
        log_s1 = log_t1 + (j * j - j) / (2 * sigma**2) + log_e1
        if coef > 0:
            log_a0, log_a1 = _log_add(log_a0, log_s0), _log_add(log_a1, log_s1)
        else:
            log_a0, log_a1 = _log_sub(log_a0, log_s0), _log_sub(log_a1, log_s1)
        if max(log_s0, log_s1) < -30:
            return _log_add(log_a0, log_a1)
        coef *= (alpha - i) / (i + 1)
        i += 1


def _rdp_one_step(q: float, sigma: float, alpha: float) -> float:
    if q == 0:
        return 0.0
    if sigma == 0 or math.isinf(alpha):
        return math.inf
    if q == 1.0:
        return alpha / (2 * sigma**2)
    if float(alpha).is_integer():
        log_a = _log_a_integer(q, sigma, int(alpha))
    else:
        log_a = _log_a_fractional(q, sigma, float(alpha))
    return log_a / (alpha - 1)


def compute_rdp(
    sample_rate: float,
    noise_multiplier: float,
    steps: int,
    orders: Sequence[float] = DEFAULT_ORDERS,
) -> np.ndarray:
    """The RDP of ``steps`` steps of the sampled Gaussian mechanism at each order.

    Example::

        compute_rdp(0.01, 1.0, 300, [2, 5, 10])   # array([0.0606..., 0.1583..., ...])
    """
    _check_rate(sample_rate)
    if noise_multiplier < 0:
        raise ValueError(f"noise_multiplier must be >= 0, got {noise_multiplier}")
    if any(order <= 1 for order in orders):
        raise ValueError(f"RDP orders must be > 1, got {min(orders)}")
    return np.array([_rdp_one_step(sample_rate, noise_multiplier, a) * steps for a in orders])


def rdp_to_epsilon(
    orders: Sequence[float], rdp: Sequence[float] | np.ndarray, delta: float
) -> tuple[float, float]:
    """``(epsilon, best order)`` of the ``(epsilon, delta)``-DP guarantee that the RDP
    curve ``rdp`` (one value per order) gives (Balle et al. 2020, Theorem 21).

    Example::

        rdp_to_epsilon([2, 5], compute_rdp(0.01, 1.0, 300, [2, 5]), 1e-5)
    """
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    alphas = np.asarray(orders, dtype=np.float64)
    values = np.asarray(rdp, dtype=np.float64)
    if alphas.shape != values.shape:
        raise ValueError(
            f"orders and rdp must have the same length, got {len(alphas)} and {len(values)}"
        )
    with np.errstate(invalid="ignore"):
        eps = (
            values
            - (math.log(delta) + np.log(alphas)) / (alphas - 1)
            + np.log((alphas - 1) / alphas)
        )
    if np.isnan(eps).all():
        return math.inf, math.nan
    best = int(np.nanargmin(eps))
    return float(eps[best]), float(alphas[best])


def _check_rate(sample_rate: float) -> None:
    if not 0 <= sample_rate <= 1:
        raise ValueError(f"sample_rate must be in [0, 1], got {sample_rate}")


class RDPAccountant:
    """Keeps the steps DP-SGD took (noise multiplier, sample rate, count) and answers
    how much privacy they spent.

    Example::

        accountant = RDPAccountant()
        for _ in range(300):
            accountant.step(noise_multiplier=1.0, sample_rate=0.01)
        accountant.get_epsilon(delta=1e-5)     # about 2.2
    """

    def __init__(self) -> None:
        self.history: list[tuple[float, float, int]] = []

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one step (consecutive steps with the same settings are merged)."""
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            sigma, q, steps = self.history[-1]
            self.history[-1] = (sigma, q, steps + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        """The number of steps recorded."""
        return sum(steps for _, _, steps in self.history)

    def get_privacy_spent(
        self, *, delta: float, orders: Sequence[float] | None = None
    ) -> tuple[float, float]:
        """``(epsilon, best order)`` for ``delta`` after the recorded steps."""
        if not self.history:
            return 0.0, math.nan
        orders = DEFAULT_ORDERS if orders is None else orders
        rdp = np.sum([compute_rdp(q, sigma, steps, orders) for sigma, q, steps in self.history], 0)
        return rdp_to_epsilon(orders, rdp, delta)

    def get_epsilon(self, delta: float, orders: Sequence[float] | None = None) -> float:
        """The epsilon of the ``(epsilon, delta)``-DP guarantee after the recorded steps."""
        return self.get_privacy_spent(delta=delta, orders=orders)[0]


def get_noise_multiplier(
    *,
    target_epsilon: float,
    target_delta: float,
    sample_rate: float,
    epochs: float | None = None,
    steps: int | None = None,
    epsilon_tolerance: float = 0.01,
    orders: Sequence[float] | None = None,
) -> float:
    """The smallest noise multiplier (to within ``epsilon_tolerance`` in epsilon) for
    which ``steps`` steps (or ``epochs / sample_rate``) at ``sample_rate`` stay within
    ``(target_epsilon, target_delta)``-DP: doubling, then bisection.

    Example::

        get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=0.01,
                             epochs=3)     # about 0.87
    """
    _check_rate(sample_rate)
    if (epochs is None) == (steps is None):
        raise ValueError("get_noise_multiplier takes exactly one of epochs and steps")
    if steps is None:
        assert epochs is not None
        steps = int(epochs / sample_rate)
    orders = DEFAULT_ORDERS if orders is None else orders

    def epsilon(sigma: float) -> float:
        return rdp_to_epsilon(orders, compute_rdp(sample_rate, sigma, steps, orders), target_delta)[
            0
        ]

    low, high = 0.0, 10.0
    eps_high = math.inf
    while eps_high > target_epsilon:
        high *= 2
        if high > _MAX_SIGMA:
            raise ValueError(
                f"the privacy budget epsilon={target_epsilon} is too small: no noise multiplier "
                f"up to {_MAX_SIGMA:g} reaches it"
            )
        eps_high = epsilon(high)
    while target_epsilon - eps_high > epsilon_tolerance:
        middle = (low + high) / 2
        eps_middle = epsilon(middle)
        if eps_middle < target_epsilon:
            high, eps_high = middle, eps_middle
        else:
            low = middle
    return high
