"""Activation ops of ``nn``: leaky_relu, elu, gelu, silu and softplus.

relu, sigmoid and tanh are in ``hookgrad.ops.unary``, softmax and log_softmax in
``hookgrad.ops.scans``. Every op is an entry of the derivative table
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

from hookgrad.ops.base import Op
from hookgrad.ops.not_implemented import NotImplementedBackward
from hookgrad.ops.special import erf_array
from hookgrad.ops.table import call, entry, function, helper
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

# ---------------------------------------------------------------- hardtanh, relu6


def _hardtanh(a: Any, min_val: float, max_val: float) -> Any:
    return np.minimum(np.maximum(a, min_val), max_val).astype(a.dtype, copy=False)


def _hardtanh_backward(grad_output: Any, a: Any, min_val: float, max_val: float) -> Any:
    """The gradient passes strictly inside ``(min_val, max_val)``."""
    return np.where((a <= min_val) | (a >= max_val), 0, grad_output).astype(grad_output.dtype)


# ``x`` clamped to ``[min_val, max_val]`` (``relu6`` is ``hardtanh(x, 0, 6)``).
Hardtanh = entry(
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    _hardtanh,
    self="hardtanh_backward(grad, self, min_val, max_val)",
)
HardtanhBackward = entry(
    "hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor",
    _hardtanh_backward,
    grad_output="hardtanh_backward(grad, self, min_val, max_val)",
    self="zeros_like(grad)",
)

# ---------------------------------------------------------------- hardsigmoid, hardswish


def _hardsigmoid(a: Any) -> Any:
    return (np.minimum(np.maximum(a + 3, 0), 6) / 6).astype(a.dtype, copy=False)


# NOTE: torch's kernel multiplies by the float ``1.0f / 6.0f``, in doubles too.
_ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))


def _hardsigmoid_backward(grad_output: Any, a: Any) -> Any:
    inside = (a > -3) & (a < 3)
    sixth = grad_output * grad_output.dtype.type(_ONE_SIXTH)
    return np.where(inside, sixth, 0).astype(grad_output.dtype, copy=False)


class HardsigmoidBackward(NotImplementedBackward):
    """torch's ``hardsigmoid_backward``: ``grad_output / 6`` strictly inside ``(-3, 3)``.
    torch has no derivative for it: its node is ``NotImplemented``."""

    aten_name = "hardsigmoid_backward"
    input_names = ("grad_output", "self")

    def forward(self, grad_output: Any, a: Any) -> Any:
        return _hardsigmoid_backward(grad_output, a)


function(
    "hardsigmoid_backward",
    _hardsigmoid_backward,
    lambda grad_output, a: grad_output._apply_op(HardsigmoidBackward(), a),
)

# ``relu6(x + 3) / 6``.
Hardsigmoid = entry(
    "hardsigmoid(Tensor self) -> Tensor",
    _hardsigmoid,
    self="hardsigmoid_backward(grad, self)",
)


def _hardswish(a: Any) -> Any:
    return (a * np.minimum(np.maximum(a + 3, 0), 6) / 6).astype(a.dtype, copy=False)


def _hardswish_backward(grad_output: Any, a: Any) -> Any:
    slope = np.where(a < 3, grad_output * (a / 3 + 0.5), grad_output)
    return np.where(a <= -3, 0, slope).astype(grad_output.dtype, copy=False)


# ``x * relu6(x + 3) / 6``.
Hardswish = entry(
    "hardswish(Tensor self) -> Tensor",
    _hardswish,
    self="hardswish_backward(grad, self)",
)
HardswishBackward = entry(
    "hardswish_backward(Tensor grad_output, Tensor self) -> Tensor",
    _hardswish_backward,
    grad_output="hardswish_backward(grad, self)",
    self="where((-3.0 < self) & (self < 3.0), grad * grad_output / 3.0, 0.0)",
)

# ---------------------------------------------------------------- mish


def _mish(a: Any) -> Any:
    return (a * np.tanh(np.log1p(np.exp(a)))).astype(a.dtype, copy=False)


def _mish_backward(grad_output: Any, a: Any) -> Any:
    """torch's kernel ``mish_backward``."""
    sigmoid = Sigmoid.kernel(a)
    tanh_softplus = np.tanh(np.log1p(np.exp(a)))
    slope = tanh_softplus + a * sigmoid * (1 - tanh_softplus * tanh_softplus)
    return (grad_output * slope).astype(grad_output.dtype, copy=False)


# torch's ``infinitely_differentiable_mish_backward``: its terms computed once each.
helper(
    "infinitely_differentiable_mish_backward(grad_output, input)",
    "_mish_slope(grad_output, input, input.sigmoid(), input.exp().log1p().tanh())",
)
helper(
    "_mish_slope(grad_output, input, sigmoid, tanh_softplus)",
    "grad_output * (tanh_softplus + input * sigmoid * (1.0 - tanh_softplus * tanh_softplus))",
)

# On tensors (never reached: there grad mode is on), the composite stands in for the kernel.
function(
    "mish_backward",
    _mish_backward,
    lambda grad_output, a: call("infinitely_differentiable_mish_backward", grad_output, a),
)

# ``x * tanh(softplus(x))``.
Mish = entry(
    "mish(Tensor self) -> Tensor",
    _mish,
    quiet=True,
    self="infinitely_differentiable_mish_backward(grad, self) if is_grad_enabled()"
    " else mish_backward(grad, self)",
)

# ---------------------------------------------------------------- celu (selu is elu)


def _to_float(value: Any) -> float:
    """torch's ``Scalar::toFloat()``: the number rounded to float32."""
    return float(np.float32(value))


# A formula's ``alpha.toFloat()`` reads ``scalar_toFloat(alpha)``.
function("scalar_toFloat", _to_float, _to_float)

# ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: ``elu`` with ``input_scale``
# ``1 / alpha``, under its own node. NOTE: torch's formula divides by ``alpha`` rounded
# to float32 (``alpha.toFloat()``), its forward by ``alpha`` itself.
Celu = entry(
    "celu(Tensor self, Scalar alpha=1.0) -> Tensor",
    lambda a, alpha: _elu(a, alpha, 1, 1.0 / alpha),
    quiet=True,
    self="elu_backward(grad, alpha, 1, 1.0 / alpha.toFloat(), False, self)",
)
CeluResult = entry(
    "celu_(Tensor(a!) self, Scalar alpha=1.0) -> Tensor(a!)",
    lambda a, alpha: _elu(a, alpha, 1, 1.0 / alpha),
    node="CeluBackward1",
    quiet=True,
    self="elu_backward(grad, alpha, 1, 1.0 / alpha.toFloat(), True, result)",
)

# SELU's constants (torch's ``selu`` is ``elu(x, alpha, scale)``).
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946

# ---------------------------------------------------------------- shrinkage, threshold


def _softshrink(a: Any, lambd: float) -> Any:
    inner = np.where(a < -lambd, a + lambd, a * 0)
    return np.where(a > lambd, a - lambd, inner).astype(a.dtype, copy=False)


def _shrink_backward(grad_output: Any, a: Any, lambd: float) -> Any:
    """Both shrinkages pass the gradient outside ``[-lambd, lambd]``."""
    inside = (a >= -lambd) & (a <= lambd)
    return np.where(inside, 0, grad_output).astype(grad_output.dtype, copy=False)


# ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0.
Softshrink = entry(
    "softshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
    _softshrink,
    self="softshrink_backward(grad, self, lambd)",
)
SoftshrinkBackward = entry(
    "softshrink_backward(Tensor grad_output, Tensor self, Scalar lambd) -> Tensor",
    _shrink_backward,
    grad_output="softshrink_backward(grad, self, lambd)",
    self="zeros_like(grad)",
)
# ``x`` outside ``[-lambd, lambd]``, else 0.
Hardshrink = entry(
    "hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
    lambda a, lambd: np.where((a >= -lambd) & (a <= lambd), 0, a).astype(a.dtype, copy=False),
    self="hardshrink_backward(grad, self, lambd)",
)
HardshrinkBackward = entry(
    "hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor",
    _shrink_backward,
    grad_out="hardshrink_backward(grad, self, lambd)",
    self="zeros_like(grad)",
)


def _threshold(a: Any, threshold: Any, value: Any) -> Any:
    return np.where(a <= threshold, np.asarray(value).astype(a.dtype), a)


# ``value`` where ``x <= threshold``, else ``x`` (NaN stays); the in-place form saves the
# old ``self`` (a copy), under its own node.
Threshold = entry(
    "threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
    _threshold,
    self="threshold_backward(grad, self, threshold)",
)
ThresholdInplace = entry(
    "threshold_(Tensor(a!) self, Scalar threshold, Scalar value) -> Tensor(a!)",
    _threshold,
    node="ThresholdBackward1",
    self="threshold_backward(grad, self, threshold)",
)

# ---------------------------------------------------------------- glu


def _glu_halves(a: Any, dim: int) -> tuple[Any, Any]:
    half = a.shape[dim] // 2
    return np.split(a, [half], axis=dim)


def _glu(a: Any, dim: int) -> Any:
    first, second = _glu_halves(a, dim)
    return first * Sigmoid.kernel(second)


def _glu_backward(grad_output: Any, a: Any, dim: int) -> Any:
    first, second = _glu_halves(a, dim)
    sigmoid = Sigmoid.kernel(second)
    grad_first = sigmoid * grad_output
    grad_second = (1 - sigmoid) * sigmoid * first * grad_output
    return np.concatenate((grad_first, grad_second), axis=dim)


def _glu_double_backward(grad: Any, grad_output: Any, input: Any, dim: int) -> Any:
    """torch's ``glu_double_backward`` on tensors."""
    half = input.shape[dim] // 2
    first, second = input.narrow(dim, 0, half), input.narrow(dim, half, half)
    sig_second = second.sigmoid()
    one_sub_sig = 1 - sig_second
    sig_one_sub_sig = sig_second * one_sub_sig
    gg_first, gg_second = grad.narrow(dim, 0, half), grad.narrow(dim, half, half)
    gg_second_times_first = gg_second * first
    grad_first = gg_second * grad_output * sig_one_sub_sig
    second_order = sig_one_sub_sig * one_sub_sig - sig_second * sig_one_sub_sig
    grad_second = (
        gg_second_times_first * grad_output * second_order
        + gg_first * grad_output * sig_one_sub_sig
    )
    return call("cat", [grad_first, grad_second], dim)


def _glu_double_backward_arrays(grad: Any, grad_output: Any, input: Any, dim: int) -> Any:
    first, second = _glu_halves(input, dim)
    gg_first, gg_second = _glu_halves(grad, dim)
    sig_second = Sigmoid.kernel(second)
    one_sub_sig = 1 - sig_second
    sig_one_sub_sig = sig_second * one_sub_sig
    grad_first = gg_second * grad_output * sig_one_sub_sig
    second_order = sig_one_sub_sig * one_sub_sig - sig_second * sig_one_sub_sig
    grad_second = (
        gg_second * first * grad_output * second_order + gg_first * grad_output * sig_one_sub_sig
    )
    return np.concatenate((grad_first, grad_second), axis=dim)


def _glu_grad_output_double_backward(grad: Any, input: Any, dim: int) -> Any:
    """torch's ``glu_double_backward_grad_output`` on tensors."""
    dim = dim + input.dim() if dim < 0 else dim
    sizes = list(input.shape)
    sizes[dim] //= 2
    product = grad * call("glu_backward", input.new_ones(sizes), input, dim)
    return product.narrow(dim, 0, sizes[dim]) + product.narrow(dim, sizes[dim], sizes[dim])


def _glu_grad_output_double_backward_arrays(grad: Any, input: Any, dim: int) -> Any:
    sizes = list(input.shape)
    sizes[dim] //= 2
    product = grad * _glu_backward(np.ones(sizes, input.dtype), input, dim)
    first, second = _glu_halves(product, dim)
    return first + second


function("glu_double_backward", _glu_double_backward_arrays, _glu_double_backward)
function(
    "glu_double_backward_grad_output",
    _glu_grad_output_double_backward_arrays,
    _glu_grad_output_double_backward,
)

# ``a * sigmoid(b)`` for the halves ``a``, ``b`` of ``self`` along ``dim``.
Glu = entry(
    "glu(Tensor self, int dim=-1) -> Tensor",
    _glu,
    quiet=True,
    self="glu_backward(grad, self, dim)",
)
GluBackward = entry(
    "glu_backward(Tensor grad_output, Tensor self, int dim) -> Tensor",
    _glu_backward,
    quiet=True,
    grad_output="glu_double_backward_grad_output(grad, self, dim)",
    self="glu_double_backward(grad, grad_output, self, dim)",
)

# ---------------------------------------------------------------- log_sigmoid


def _log_sigmoid_backward(grad_output: Any, a: Any, buffer: Any) -> Any:
    """torch's kernel, from the saved ``buffer = exp(-|x|)``."""
    negative = a < 0
    slope = np.where(negative, 1, 0) - np.where(negative, 1, -1) * (buffer / (1 + buffer))
    return (grad_output * slope).astype(grad_output.dtype, copy=False)


helper("log_sigmoid_double_backward(grad, input)", "_log_sigmoid_z(grad, input.sigmoid())")
helper("_log_sigmoid_z(grad, z)", "grad * (z - 1) * z")

LogSigmoidBackward = entry(
    "log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor",
    _log_sigmoid_backward,
    quiet=True,
    grad_output="log_sigmoid_backward(grad, self, buffer)",
    self="log_sigmoid_double_backward(grad * grad_output, self)",
)


class LogSigmoid(Op):
    """torch's ``log_sigmoid_forward``: ``min(x, 0) - log1p(exp(-|x|))``, and the
    ``buffer`` ``exp(-|x|)`` its backward reads (a second output, without history)."""

    node_name = "LogSigmoidBackward0"
    input_names = ("self",)
    saves = ("self", "buffer")
    output_names = ("result", "buffer")
    differentiable_outputs = 1
    quiet = True

    def forward(self, a: Any) -> Any:
        buffer = np.exp(-np.abs(a))
        return (np.minimum(a, 0) - np.log1p(buffer)).astype(a.dtype, copy=False), buffer

    def backward(self, grad: Any) -> Any:
        a, buffer = self.unpack()
        return call("log_sigmoid_backward", grad, a, buffer)


# ---------------------------------------------------------------- prelu


class PreluKernel(Op):
    """torch's ``_prelu_kernel``: ``x`` where positive, else ``weight * x`` (``weight``
    broadcast against ``x``: the caller views it as ``(1, C, 1, ...)``). The weight's
    gradient comes back at ``x``'s shape; the engine sums it to the weight's."""

    input_names = ("self", "weight")
    saves = ("self", "weight")

    def forward(self, a: Any, weight: Any) -> Any:
        return np.where(a > 0, a, weight * a)

    def backward(self, grad: Any) -> Any:
        a, weight = self.unpack()
        grad_self, grad_weight = grad._apply_op(PreluKernelBackward(), a, weight)
        needs = self.needs_input_grad
        return grad_self if needs[0] else None, grad_weight if needs[1] else None


class PreluKernelBackward(Op):
    """torch's ``_prelu_kernel_backward``: the gradients of ``self`` and of the
    (broadcast) ``weight``, both of ``self``'s shape."""

    input_names = ("grad_output", "self", "weight")
    saves = ("grad_output", "self", "weight")

    def forward(self, grad_output: Any, a: Any, weight: Any) -> Any:
        positive = a > 0
        grad_self = np.where(positive, grad_output, weight * grad_output)
        grad_weight = np.where(positive, 0, a * grad_output).astype(grad_output.dtype)
        return grad_self, grad_weight

    def backward(self, grad_self: Any, grad_weight: Any) -> Any:
        grad_output, a, weight = self.unpack()
        needs = self.needs_input_grad
        positive = a >= 0
        results: list[Any] = [None, None, None]
        if needs[0]:
            if grad_self is None:
                results[0] = call("where", positive, 0.0, grad_weight * a)
            elif grad_weight is None:
                results[0] = call("where", positive, grad_self, grad_self * weight)
            else:
                results[0] = call(
                    "where", positive, grad_self, grad_self * weight + grad_weight * a
                )
        if needs[1]:
            results[1] = (
                call("where", positive, 0.0, grad_output * grad_weight)
                if grad_weight is not None
                else call("zeros_like", a)
            )
        if needs[2]:
            results[2] = (
                call("where", positive, 0.0, grad_output * grad_self)
                if grad_self is not None
                else call("zeros_like", a)
            )
        return tuple(results)


# ---------------------------------------------------------------- rrelu


def _rrelu_with_noise(
    a: Any, noise: Any, lower: float, upper: float, training: bool, generator: Any
) -> Any:
    """Training: ``x * noise`` (the caller drew ``noise``: a slope in ``[lower, upper)``
    where ``x <= 0``, else 1); otherwise ``leaky_relu`` with slope ``(lower + upper) / 2``."""
    if training:
        return a * noise
    return _leaky_relu(a, (lower + upper) / 2)


# Randomized leaky ReLU, its random slopes in ``noise`` (an input without an edge).
RreluWithNoise = entry(
    "rrelu_with_noise(Tensor self, Tensor noise, Scalar lower=0.125,"
    " Scalar upper=0.3333333333333333, bool training=False, Generator? generator=None)"
    " -> Tensor",
    _rrelu_with_noise,
    self="rrelu_with_noise_backward(grad, self, noise, lower, upper, training, False)",
)
RreluWithNoiseResult = entry(
    "rrelu_with_noise_(Tensor(a!) self, Tensor noise, Scalar lower=0.125,"
    " Scalar upper=0.3333333333333333, bool training=False, Generator? generator=None)"
    " -> Tensor(a!)",
    _rrelu_with_noise,
    node="RreluWithNoiseBackward1",
    self="rrelu_with_noise_backward(grad, result, noise, lower, upper, training, True)",
)
RreluWithNoiseBackward = entry(
    "rrelu_with_noise_backward(Tensor grad_output, Tensor self, Tensor noise, Scalar lower,"
    " Scalar upper, bool training, bool self_is_result) -> Tensor",
    lambda grad_output, a, noise, lower, upper, training, self_is_result: (
        grad_output * noise
        if training
        else _leaky_relu_backward(grad_output, a, (lower + upper) / 2, self_is_result)
    ),
    grad_output="rrelu_with_noise_backward(grad, self, noise, lower, upper, training, False)",
    self="zeros_like(grad)",
)
