"""Activation ops of ``nn``: leaky_relu, elu, gelu, silu and softplus.

relu, sigmoid and tanh are in ``hookgrad.ops.unary``, softmax and log_softmax in
``hookgrad.ops.reduction``. As in torch, the in-place forms of leaky_relu and elu save their
result instead of their input (nodes ``LeakyReluBackward1``, ``EluBackward1``), since the
input is overwritten. Each backward is made of tensor ops, so it is differentiable itself.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.special import erf_array
from hookgrad.ops.unary import UnaryOp

_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_TANH_SCALE = math.sqrt(2 / math.pi)
_TANH_CUBIC = 0.044715

# ---------------------------------------------------------------- leaky_relu


class LeakyRelu(UnaryOp):
    """``x`` where ``x > 0``, else ``negative_slope * x``; at 0 the slope is the gradient."""

    saves = ("self",)

    def __init__(self, negative_slope: float) -> None:
        self.negative_slope = negative_slope

    def forward(self, a: Any) -> Any:
        return np.where(a > 0, a, a * self.negative_slope)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad.where(a > 0, grad * self.negative_slope)


class LeakyReluResult(LeakyRelu):
    """``leaky_relu_``: the gradient is read off the result, which only works for a
    non-negative slope (torch refuses the backward otherwise, and so does hookgrad)."""

    node_name = "LeakyReluBackward1"
    saves = ("result",)

    def backward(self, grad: Any) -> Any:
        if self.negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead. File an "
                "issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope"
            )
        return super().backward(grad)


# ---------------------------------------------------------------- elu


class Elu(UnaryOp):
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``."""

    saves = ("self",)

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha
        self.scale = 1  # torch's elu takes these two as well; nn's ELU keeps them 1
        self.input_scale = 1

    def forward(self, a: Any) -> Any:
        return np.where(a > 0, a, np.expm1(a) * self.alpha).astype(a.dtype, copy=False)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad.where(a > 0, grad * a.exp() * self.alpha)


class EluResult(Elu):
    """``elu_``: below 0 the derivative is ``result + alpha``."""

    node_name = "EluBackward1"
    saves = ("result",)

    def backward(self, grad: Any) -> Any:
        if self.alpha < 0:
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which is "
                "not supported. This is caused by calling in-place forward function with a "
                "negative slope, please call out-of-place version instead."
            )
        (result,) = self.unpack()
        return grad.where(result > 0, grad * (result + self.alpha))


# ---------------------------------------------------------------- gelu / silu / softplus


class Gelu(UnaryOp):
    """``x * Phi(x)`` (``approximate="none"``) or its tanh approximation
    ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`` (``approximate="tanh"``)."""

    saves = ("self",)

    def __init__(self, approximate: str) -> None:
        self.approximate = approximate

    def forward(self, a: Any) -> Any:
        if self.approximate == "tanh":
            inner = (a + a * a * a * _TANH_CUBIC) * _TANH_SCALE
            return a * (1 + np.tanh(inner)) * 0.5
        erf = erf_array(a.astype(np.float64).reshape(-1) * _SQRT1_2).reshape(a.shape)
        return (a * (1 + erf) * 0.5).astype(a.dtype, copy=False)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        if self.approximate == "tanh":
            square = a * a
            tanh = ((a + a * square * _TANH_CUBIC) * _TANH_SCALE).tanh()
            slope = (1 - tanh * tanh) * ((1 + square * (3 * _TANH_CUBIC)) * _TANH_SCALE)
            return grad * ((1 + tanh) * 0.5 + a * slope * 0.5)
        cdf = ((a * _SQRT1_2).erf() + 1) * 0.5
        pdf = (a * a * -0.5).exp() * _INV_SQRT_2PI
        return grad * (cdf + a * pdf)


class Silu(UnaryOp):
    """``x * sigmoid(x)``."""

    saves = ("self",)

    def forward(self, a: Any) -> Any:
        small = np.exp(-np.abs(a))  # sigmoid without overflow, as ops.unary.Sigmoid
        return a * (np.where(a >= 0, 1, small) / (1 + small))

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        sigmoid = a.sigmoid()
        return grad * sigmoid * (1 + a * (1 - sigmoid))


class Softplus(UnaryOp):
    """``log(1 + exp(beta * x)) / beta``, or ``x`` where ``beta * x > threshold``."""

    saves = ("self",)

    def __init__(self, beta: float, threshold: float) -> None:
        self.beta = beta
        self.threshold = threshold

    def forward(self, a: Any) -> Any:
        scaled = a * self.beta
        smooth = np.logaddexp(0, scaled) / self.beta
        return np.where(scaled > self.threshold, a, smooth).astype(a.dtype, copy=False)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        scaled = a * self.beta
        return grad.where(scaled > self.threshold, grad * scaled.sigmoid())
