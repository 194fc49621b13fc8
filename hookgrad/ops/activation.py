"""Activation ops of ``nn``: leaky_relu, elu, gelu, silu and softplus.

relu, sigmoid and tanh are in ``hookgrad.ops.unary``, softmax and log_softmax in
``hookgrad.ops.reduction``. Every op is an entry of the derivative table
(``hookgrad.ops.table``) with torch's formula, which calls torch's backward op
(``leaky_relu_backward`` ...), itself an entry: under ``create_graph=True`` the gradient's
node is ``LeakyReluBackwardBackward0``, as in torch. As in torch, the in-place forms of
leaky_relu and elu save their result instead of their input (nodes ``LeakyReluBackward1``,
``EluBackward1``), since the input is overwritten.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.special import erf_array
from hookgrad.ops.table import entry, helper
from hookgrad.ops.unary import Sigmoid

_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_TANH_SCALE = math.sqrt(2 / math.pi)
_TANH_CUBIC = 0.044715

# ---------------------------------------------------------------- leaky_relu


def _leaky_relu(a: Any, negative_slope: float) -> Any:
    return np.where(a > 0, a, a * negative_slope)


def _leaky_relu_backward(
    grad_output: Any, self: Any, negative_slope: float, self_is_result: bool
) -> Any:
    """torch's kernel: the slope where ``self <= 0``; with ``self`` the result of
    ``leaky_relu_``, only a non-negative slope tells the two sides apart."""
    if self_is_result and negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope "
            "which is not supported. This is caused by calling in-place forward function "
            "with a negative slope, please call out-of-place version instead. File an "
            "issue at https://github.com/pytorch/pytorch if you do require supporting "
            "in-place leakRelu backward calculation with negative slope"
        )
    return np.where(self > 0, grad_output, grad_output * negative_slope)


# ``x`` where ``x > 0``, else ``negative_slope * x``; at 0 the slope is the gradient.
LeakyRelu = entry(
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    _leaky_relu,
    quiet=True,
    self="leaky_relu_backward(grad, self, negative_slope, False)",
)
LeakyReluResult = entry(
    "leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)",
    _leaky_relu,
    node="LeakyReluBackward1",
    quiet=True,
    self="leaky_relu_backward(grad, result, negative_slope, True)",
)
LeakyReluBackward = entry(
    "leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, "
    "bool self_is_result) -> Tensor",
    _leaky_relu_backward,
    grad_output="leaky_relu_backward(grad, self, negative_slope, False)",
    self="zeros_like(grad)",
)

# ---------------------------------------------------------------- elu


def _elu(a: Any, alpha: float, scale: float, input_scale: float) -> Any:
    negative = np.expm1(a * input_scale) * (alpha * scale)
    return np.where(a > 0, a * scale, negative).astype(a.dtype, copy=False)


def _elu_backward(
    grad_output: Any,
    self_or_result: Any,
    alpha: float,
    scale: float,
    input_scale: float,
    is_result: bool,
) -> Any:
    """torch's kernel. ``elu_`` saves its result: below 0 the slope is then read off it,
    ``input_scale * (result + alpha * scale)``, which needs ``alpha >= 0``."""
    if is_result and alpha < 0:
        raise RuntimeError(
            "In-place elu backward calculation is triggered with a negative slope which is "
            "not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead."
        )
    x = self_or_result
    if is_result:
        negative = grad_output * input_scale * (x + alpha * scale)
    else:
        negative = grad_output * (input_scale * alpha * scale) * np.exp(x * input_scale)
    return np.where(x <= 0, negative, grad_output * scale)


helper(
    "elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result)",
    "grad * grad_output * input_scale * (self_or_result < 0).type_as(grad) if is_result"
    " else elu_backward(grad * grad_output * input_scale, alpha, scale, input_scale,"
    " is_result, self_or_result) * (self_or_result < 0).type_as(grad)",
)

# ``scale * x`` where ``x > 0``, else ``alpha * scale * (exp(input_scale * x) - 1)``;
# nn's ELU keeps ``scale`` and ``input_scale`` 1.
Elu = entry(
    "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
    _elu,
    quiet=True,
    self="elu_backward(grad, alpha, scale, input_scale, False, self)",
)
EluResult = entry(
    "elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)",
    _elu,
    node="EluBackward1",
    quiet=True,
    self="elu_backward(grad, alpha, scale, input_scale, True, result)",
)
EluBackward = entry(
    "elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, "
    "bool is_result, Tensor self_or_result) -> Tensor",
    _elu_backward,
    quiet=True,
    grad_output="elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result)",
    self_or_result="elu_double_backward(grad, grad_output, alpha, scale, input_scale,"
    " is_result, self_or_result)",
)

# ---------------------------------------------------------------- gelu


def _erf(a: Any) -> Any:
    """erf of ``a`` computed in float64."""
    return erf_array(a.astype(np.float64).reshape(-1)).reshape(a.shape)


def _gelu(a: Any, approximate: str) -> Any:
    if approximate == "tanh":
        inner = (a + a * a * a * _TANH_CUBIC) * _TANH_SCALE
        return a * (1 + np.tanh(inner)) * 0.5
    return (a * (1 + _erf(a * _SQRT1_2)) * 0.5).astype(a.dtype, copy=False)


def _gelu_backward(grad_output: Any, a: Any, approximate: str) -> Any:
    if approximate == "tanh":
        square = a * a
        tanh = np.tanh((a + a * square * _TANH_CUBIC) * _TANH_SCALE)
        slope = (1 - tanh * tanh) * ((1 + square * (3 * _TANH_CUBIC)) * _TANH_SCALE)
        return grad_output * ((1 + tanh) * 0.5 + a * slope * 0.5)
    cdf = (_erf(a * _SQRT1_2) + 1) * 0.5
    pdf = np.exp(a * a * -0.5) * _INV_SQRT_2PI
    return (grad_output * (cdf + a * pdf)).astype(grad_output.dtype, copy=False)


# torch's gelu_double_backward, regrouped into single expressions: for "tanh" gelu is
# f g h' terms with t = tanh(inner), h = inner'; for "none", gelu'' = (2 - x^2) pdf(x).
helper(
    "gelu_tanh_double_backward(ggI, gO, input, tanh_inner, h)",
    "ggI * gO * (1 - tanh_inner * tanh_inner)"
    " * (h - input * tanh_inner * h * h + 3 * 0.044715 * (2 / M_PI) ** 0.5 * input * input)",
)
helper(
    "gelu_double_backward(ggI, gO, input, approximate)",
    "gelu_tanh_double_backward(ggI, gO, input,"
    " ((2 / M_PI) ** 0.5 * (input + 0.044715 * input.pow(3))).tanh(),"
    " (2 / M_PI) ** 0.5 * (1 + 3 * 0.044715 * input * input))"
    " if approximate == 'tanh'"
    " else ggI * gO * (2 - input * input) * (-0.5 * input * input).exp() / (2 * M_PI) ** 0.5",
)

# ``x * Phi(x)`` (``approximate="none"``) or its tanh approximation
# ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`` (``approximate="tanh"``).
Gelu = entry(
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    _gelu,
    quiet=True,
    self="gelu_backward(grad, self, approximate)",
)
GeluBackward = entry(
    "gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
    _gelu_backward,
    quiet=True,
    grad_output="gelu_backward(grad, self, approximate)",
    self="gelu_double_backward(grad, grad_output, self, approximate)",
)

# ---------------------------------------------------------------- silu


def _silu(a: Any) -> Any:
    return a * Sigmoid.kernel(a)


# NOTE: torch's formula is ``GradMode::is_enabled() ? infinitely_differentiable_silu_backward
# : silu_backward``; the kernel ``silu_backward`` computes the same expression, so the
# composite serves both modes here.
helper(
    "silu_backward_from_sigmoid(grad_output, input, sigmoid)",
    "grad_output * sigmoid * (1.0 + input * (1.0 - sigmoid))",
)
helper(
    "infinitely_differentiable_silu_backward(grad_output, input)",
    "silu_backward_from_sigmoid(grad_output, input, input.sigmoid())",
)

# ``x * sigmoid(x)``.
Silu = entry(
    "silu(Tensor self) -> Tensor",
    _silu,
    quiet=True,
    self="infinitely_differentiable_silu_backward(grad, self)",
)

# ---------------------------------------------------------------- softplus


def _softplus(a: Any, beta: float, threshold: float) -> Any:
    scaled = a * beta
    smooth = np.logaddexp(0, scaled) / beta
    return np.where(scaled > threshold, a, smooth).astype(a.dtype, copy=False)


def _softplus_backward(grad_output: Any, a: Any, beta: float, threshold: float) -> Any:
    scaled = a * beta
    return np.where(scaled > threshold, grad_output, grad_output * Sigmoid.kernel(scaled))


helper(
    "softplus_double_backward(grad, input, beta, threshold)",
    "sigmoid_backward(grad, (input * beta).sigmoid()) * (input * beta < threshold).type_as(grad)"
    " * beta",
)

# ``log(1 + exp(beta * x)) / beta``, or ``x`` where ``beta * x > threshold``.
Softplus = entry(
    "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
    _softplus,
    quiet=True,
    self="softplus_backward(grad, self, beta, threshold)",
)
SoftplusBackward = entry(
    "softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) -> Tensor",
    _softplus_backward,
    quiet=True,
    grad_output="softplus_backward(grad, self, beta, threshold)",
    self="softplus_double_backward(grad * grad_output, self, beta, threshold)",
)
