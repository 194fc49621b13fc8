"""Ops of the gamma and Dirichlet distributions: the samplers ``_standard_gamma`` and
``_sample_dirichlet`` and the reparameterised gradients ``_standard_gamma_grad`` and
``_dirichlet_grad``, with torch's nodes.

``_standard_gamma``'s node is ``StandardGammaBackward0``: its gradient is
``grad * _standard_gamma_grad(self, result)``, the derivative of a gamma sample in its
concentration at fixed quantile, which torch approximates (Taylor series for small
samples, Rice's saddle-point expansion for large concentrations, a rational fit
between; ``standard_gamma_grad_one`` in aten/src/ATen/native/Distributions.h).
``_dirichlet_grad`` is torch's ``dirichlet_grad_one``: the same for one coordinate of a
Dirichlet sample, through the Beta marginal. Neither gradient has a derivative of its own
(torch's errors); ``_sample_dirichlet`` has none either (``torch.distributions.Dirichlet``
differentiates through a custom function instead).

The kernels compute in double, as torch's (its ``accscalar_t``), on NumPy arrays; the
samplers come from the tensor layer (``sample(array)``), so that a refused call draws
nothing.

Example::

    StandardGammaGrad().forward(np.array([2.0]), np.array([1.5]))   # d sample / d alpha
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.special import no_kernel

Sampler = Callable[[np.ndarray], np.ndarray]
_F32 = np.float32
_PSI_10 = 2.25175258906672110764
_DIGAMMA_TAIL = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)


def _float(value: float) -> float:
    """A C ``float`` literal (``0.9f``) as the double it becomes in double arithmetic."""
    return float(_F32(value))


def digamma_one(x: np.ndarray) -> np.ndarray:
    """torch's ``digamma_one`` (Distributions.h, after Cephes) of a float64 array: the
    recurrence up to 10, then the asymptotic series."""
    x = np.array(x, np.float64)
    result = np.zeros_like(x)
    shift = np.zeros_like(x)
    negative = x < 0
    pole = (x == 0) | (negative & (x == np.floor(x)))
    with np.errstate(divide="ignore", invalid="ignore"):
        shift[negative] = -math.pi / np.tan(math.pi * x[negative])
        x[negative] = 1 - x[negative]
        below = x < 10
        while below.any():
            result[below] -= 1 / x[below]
            x[below] += 1
            below = x < 10
        z = 1.0 / (x * x)
        tail = np.zeros_like(x)
        for coefficient in _DIGAMMA_TAIL:
            tail = tail * z + coefficient
        tail = np.where(x < _float(1.0e17), z * tail, 0.0)
        out = np.where(x == 10, result + _PSI_10, result + np.log(x) - 0.5 / x - tail) + shift
    return np.where(pole, np.inf, out)


# ---------------------------------------------------------------- _standard_gamma_grad

_GAMMA_RATIONAL = np.array(
    [
        [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089,
         0.0014179084],
        [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113,
         -0.0035938915, -0.00058392623],
        [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642,
         -0.0021309326, 0.00085092367, -1.5247877e-07],
    ]
)  # fmt: skip


def _gamma_grad_taylor(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Small samples (``x < 0.8``): the Taylor series of the gamma CDF."""
    numer = np.ones_like(x)
    denom = alpha.copy()
    series1 = numer / denom
    series2 = numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = np.power(x, alpha)
    gamma_pdf = np.power(x, alpha - 1) * np.exp(-x)
    gamma_cdf = pow_x_alpha * series1
    gamma_cdf_alpha = (np.log(x) - digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2
    result = -gamma_cdf_alpha / gamma_pdf
    return np.where(np.isnan(result), 0.0, result)


def _gamma_grad_saddle(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Large concentrations (``alpha > 8``): Rice's saddle-point expansion."""
    near = (_float(0.9) * alpha <= x) & (x <= _float(1.1) * alpha)
    numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
    numer_2 = (
        1440 * (alpha * alpha)
        + 6 * x * (53 - 120 * x)
        - 65 * x * x / alpha
        + alpha * (107 + 3600 * x)
    )
    at_mean = numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
    denom = np.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = np.power(x - alpha - alpha * np.log(x / alpha), -1.5)
    term23 = np.where(x < alpha, term2 - term3, term2 + term3)
    term1 = np.log(x / alpha) * term23 - np.sqrt(2 / alpha) * (alpha + x) / (
        (alpha - x) * (alpha - x)
    )
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    away = -stirling * (x * term1) / denom
    return np.where(near, at_mean, away)


def _gamma_grad_rational(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Elsewhere: a bivariate rational approximation in ``log(x / alpha)``, ``log(alpha)``."""
    u = np.log(x / alpha)
    v = np.log(alpha)
    coef = _GAMMA_RATIONAL[0] + u[:, None] * (_GAMMA_RATIONAL[1] + u[:, None] * _GAMMA_RATIONAL[2])
    p = coef[:, 0] + v * (coef[:, 1] + v * (coef[:, 2] + v * coef[:, 3]))
    q = coef[:, 4] + v * (coef[:, 5] + v * (coef[:, 6] + v * coef[:, 7]))
    return np.exp(p / q)


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch's ``_standard_gamma_grad(alpha, x)``: ``-(d/dalpha cdf(x; alpha)) /
    pdf(x; alpha)`` for a standard gamma sample ``x``, computed in double and returned in
    ``alpha``'s dtype (float32 or float64)."""
    _check_floating(alpha, "_standard_gamma_grad_cpu")
    alpha_, x_ = np.broadcast_arrays(alpha.astype(np.float64), x.astype(np.float64))
    alpha_, x_ = alpha_.ravel(), x_.ravel()
    out = np.empty(alpha_.shape)
    small = x_ < _float(0.8)
    large = ~small & (alpha_ > 8)
    rest = ~small & ~large
    with np.errstate(all="ignore"):
        for mask, branch in (
            (small, _gamma_grad_taylor),
            (large, _gamma_grad_saddle),
            (rest, _gamma_grad_rational),
        ):
            if mask.any():
                out[mask] = branch(alpha_[mask], x_[mask])
    shape = np.broadcast_shapes(alpha.shape, x.shape)
    return out.reshape(shape).astype(alpha.dtype)


# ---------------------------------------------------------------- _dirichlet_grad

_DIRICHLET_RATIONAL = np.array(
    [
        [
            [[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
             [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
             [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
            [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
             [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
             [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
            [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
             [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
             [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]],
        ],
        [
            [[1, -0.02924021934, -0.04438342661, 0.007285809825],
             [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
             [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
            [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
             [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
             [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
            [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
             [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
             [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]],
        ],
    ]
)  # fmt: skip


def _beta_grad_alpha_small(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """d/dalpha of a Beta(alpha, beta) sample ``x`` near 0: a Taylor expansion."""
    factor = digamma_one(alpha) - digamma_one(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * np.power(1 - x, -beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_grad_beta_small(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """d/dbeta of a Beta(alpha, beta) sample ``x`` near 0: a Taylor expansion."""
    factor = digamma_one(alpha + beta) - digamma_one(beta)
    numer = np.ones_like(x)
    betas = np.ones_like(x)
    dbetas = np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -np.power(1 - x, 1 - beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_grad_alpha_mid(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """d/dalpha of a Beta sample for large ``alpha`` and ``beta``: Rice's saddle point."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    near = (mean - 0.1 * std <= x) & (x <= mean + 0.1 * std)
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta
        + alpha
        * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta)
            + alpha
            * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta
                + alpha * (8 * (1 - x) * (135 * beta - 11))
            )
        )
    )
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    at_mean = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = (
        (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
        * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
        / (1 + 1 / (12 * total) + 1 / (288 * total * total))
    )
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = np.sqrt(2 * alpha / beta) * np.power(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = beta * np.log(beta / (total * (1 - x))) + alpha * np.log(alpha / (total * x))
    term4 = np.power(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + np.where(x < mean, term4, -term4))
    return np.where(near, at_mean, stirling * prefactor * term1234)


def _dirichlet_grad_rational(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Elsewhere: a rational correction to an analytic approximation."""
    u = np.log(x)
    a = np.log(alpha) - u
    b = np.log(total) - a
    pow_u = np.stack([np.ones_like(u), u, u * u])
    pow_a = np.stack([np.ones_like(a), a, a * a])
    p = np.zeros_like(x)
    q = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _DIRICHLET_RATIONAL[0, i, j], _DIRICHLET_RATIONAL[1, i, j]
            p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * (digamma_one(total) - digamma_one(alpha)) / (total - alpha)
    return p / q * approx


def dirichlet_grad(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """torch's ``_dirichlet_grad(x, alpha, total)``: the derivative of a Dirichlet sample's
    coordinate ``x`` in its concentration ``alpha`` (``total`` the concentrations' sum),
    computed in double and returned in ``x``'s dtype.

    NOTE: torch computes the Taylor branches near 0 and 1 in the tensor's own dtype; here
    they are computed in double, so float32 results may differ from torch's in the last
    bits."""
    _check_floating(x, "_dirichlet_grad_cpu")
    shape = np.broadcast_shapes(x.shape, alpha.shape, total.shape)
    x_, alpha_, total_ = (
        np.broadcast_to(a.astype(np.float64), shape).ravel() for a in (x, alpha, total)
    )
    beta_ = total_ - alpha_
    boundary = total_ * x_ * (1 - x_)
    near_zero = (x_ <= 0.5) & (boundary < 2.5)
    near_one = ~near_zero & (x_ >= 0.5) & (boundary < 0.75)
    middle = ~near_zero & ~near_one & (alpha_ > 6) & (beta_ > 6)
    rest = ~near_zero & ~near_one & ~middle
    out = np.empty(x_.shape)
    with np.errstate(all="ignore"):
        if near_zero.any():
            out[near_zero] = _beta_grad_alpha_small(
                x_[near_zero], alpha_[near_zero], beta_[near_zero]
            )
        if near_one.any():
            out[near_one] = -_beta_grad_beta_small(
                1 - x_[near_one], beta_[near_one], alpha_[near_one]
            )
        if middle.any():
            out[middle] = _beta_grad_alpha_mid(x_[middle], alpha_[middle], beta_[middle])
        if rest.any():
            out[rest] = _dirichlet_grad_rational(x_[rest], alpha_[rest], total_[rest])
    return out.reshape(shape).astype(x.dtype)


def _check_floating(array: np.ndarray, kernel: str) -> None:
    """torch's ``AT_DISPATCH_FLOATING_TYPES`` error: only float32 and float64."""
    if array.dtype not in (np.float32, np.float64):
        raise no_kernel(kernel, array.dtype)


# ---------------------------------------------------------------- nodes


class StandardGamma(Op):
    """``_standard_gamma(Tensor self, Generator? generator=None)``: ``sample(alpha)``
    draws; the gradient is ``grad * _standard_gamma_grad(self, result)``."""

    input_names = ("self",)
    saves = ("self", "result")

    def __init__(self, sample: Sampler) -> None:
        self.sample = sample

    def forward(self, alpha: Any) -> Any:
        return self.sample(alpha)

    def backward(self, grad: Any) -> Any:
        alpha, result = self.unpack()
        return grad * alpha._apply_op(StandardGammaGrad(), result)


class StandardGammaGrad(Op):
    """``_standard_gamma_grad(Tensor self, Tensor output)``; torch has no derivative of it
    (and no edge for ``output``)."""

    input_names = ("self", "output")
    non_differentiable = ("output",)

    def forward(self, alpha: Any, x: Any) -> Any:
        return standard_gamma_grad(alpha, x)

    def backward(self, grad: Any) -> Any:
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


class SampleDirichlet(Op):
    """``_sample_dirichlet(Tensor self, Generator? generator=None)``: ``sample(alpha)``
    draws; torch has no derivative for it (its node is ``NotImplemented``)."""

    node_name = "NotImplemented"
    input_names = ("self",)

    def __init__(self, sample: Sampler) -> None:
        self.sample = sample

    def forward(self, alpha: Any) -> Any:
        return self.sample(alpha)

    def backward(self, grad: Any) -> Any:
        raise RuntimeError("derivative for aten::_sample_dirichlet is not implemented")


class DirichletGrad(Op):
    """``_dirichlet_grad(Tensor x, Tensor alpha, Tensor total)``; torch has no derivative
    for it (its node is ``NotImplemented``)."""

    node_name = "NotImplemented"
    input_names = ("x", "alpha", "total")

    def forward(self, x: Any, alpha: Any, total: Any) -> Any:
        return dirichlet_grad(x, alpha, total)

    def backward(self, grad: Any) -> Any:
        raise RuntimeError("derivative for aten::_dirichlet_grad is not implemented")
