"""nn.functional: activation functions (relu, leaky_relu, elu, selu, celu, gelu, silu,
mish, softplus, hardtanh, relu6, hardsigmoid, hardswish, prelu, rrelu, glu, logsigmoid,
the shrinkages, threshold, sigmoid, tanh, softmax, log_softmax, gumbel_softmax ...).

The ``inplace=True`` forms overwrite ``input`` and return it, recording the node torch
records for the in-place op: one that saves its result (``EluBackward1``), or, where torch
has no in-place formula, the out-of-place node saving a copy of the old ``input``
(``HardtanhBackward0``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import hookgrad
from hookgrad.ops import activation as ops
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.inplace import run_inplace, run_inplace_op
from hookgrad.tensor.random import engine_of
from hookgrad.tensor.views import check_inplace

__all__ = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "gelu",
    "glu",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "logsigmoid",
    "mish",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
]


def _check_floating(input: Tensor, kernel: str) -> None:
    """torch's error for an activation kernel that has no integer, bool or complex form."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{input.dtype.type_name[3:-4]}'"
        )


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` elementwise (gradient 0 at 0).

    Example::

        F.relu(hookgrad.tensor([-1.0, 2.0]))   # tensor([0., 2.])
    """
    return hookgrad.relu_(input) if inplace else hookgrad.relu(input)


def relu_(input: Tensor) -> Tensor:
    """``relu`` in place: overwrites ``input`` and returns it."""
    return hookgrad.relu_(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` where positive, else ``negative_slope * input``.

    Example::

        F.leaky_relu(hookgrad.tensor([-1.0, 2.0]), 0.1)   # tensor([-0.1000, 2.0000])
    """
    if inplace:
        return leaky_relu_(input, negative_slope)
    _check_floating(input, "leaky_relu_cpu")
    return apply(ops.LeakyRelu(negative_slope), input)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu`` in place (node ``LeakyReluBackward1``, which reads the result)."""
    _check_floating(input, "leaky_relu_cpu")
    return run_inplace_op(input, ops.LeakyReluResult(negative_slope))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` where positive, else ``alpha * (exp(input) - 1)``.

    Example::

        F.elu(hookgrad.tensor([-1.0, 2.0]))   # tensor([-0.6321,  2.0000])
    """
    if inplace:
        return elu_(input, alpha)
    _check_floating(input, "elu_cpu")
    return apply(ops.Elu(alpha), input)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``elu`` in place (node ``EluBackward1``, which reads the result)."""
    _check_floating(input, "elu_cpu")
    return run_inplace_op(input, ops.EluResult(alpha))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``input * Phi(input)`` with ``Phi`` the standard normal CDF; ``approximate="tanh"``
    uses ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    Example::

        F.gelu(hookgrad.tensor([1.0]))   # tensor([0.8413])
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _check_floating(input, "GeluKernelImpl")
    return apply(ops.Gelu(approximate), input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * sigmoid(input)`` (also called swish).

    Example::

        F.silu(hookgrad.tensor([1.0]))   # tensor([0.7311])
    """
    _check_floating(input, "silu_cpu")
    if inplace:
        return run_inplace(input, _silu, copy=True)
    return _silu(input)


def _silu(input: Tensor) -> Tensor:
    return apply(ops.Silu(), input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * input)) / beta``, and ``input`` itself where
    ``beta * input > threshold``.

    Example::

        F.softplus(hookgrad.tensor([0.0]))   # tensor([0.6931])
    """
    _check_floating(input, "softplus_cpu")
    return apply(ops.Softplus(beta, threshold), input)


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-input))`` elementwise."""
    return hookgrad.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent, elementwise."""
    return hookgrad.tanh(input)


def softsign(input: Tensor) -> Tensor:
    """``input / (1 + |input|)``."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``input - tanh(input)``."""
    return input - input.tanh()


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """torch's legacy choice when ``dim`` is not given (0 for 0-, 1- and 3-D, else 1)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``exp(input) / exp(input).sum(dim, keepdim=True)``, without overflow.

    Example::

        F.softmax(hookgrad.tensor([0.0, 0.0]), dim=0)   # tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim, _stacklevel)
    return hookgrad.softmax(input, dim, dtype=dtype)


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``softmax(-input, dim)``."""
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim, _stacklevel)
    return hookgrad.softmax(-input, dim, dtype=dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``log(softmax(input, dim))``, computed as ``input - logsumexp(input, dim)``.

    Example::

        F.log_softmax(hookgrad.tensor([0.0, 0.0]), dim=0)   # tensor([-0.6931, -0.6931])
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim, _stacklevel)
    return hookgrad.log_softmax(input, dim, dtype=dtype)


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """Samples of the Gumbel-softmax distribution: ``softmax((logits + g) / tau, dim)`` with
    ``g = -log(Exponential(1))`` noise drawn from the default generator; ``hard=True``
    returns one-hot vectors whose gradient is the soft sample's (straight-through).

    Example::

        F.gumbel_softmax(hookgrad.randn(2, 5), tau=0.5, hard=True)   # one-hot rows
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -hookgrad.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = hookgrad.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---------------------------------------------------------------- threshold and clamping


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``input <= threshold``, else ``input``.

    Example::

        F.threshold(hookgrad.tensor([0.5, 2.0]), 1.0, -1.0)   # tensor([-1.,  2.])
    """
    if inplace:
        return threshold_(input, threshold, value)
    return apply(ops.Threshold(threshold, value), input)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``threshold`` in place (node ``ThresholdBackward1``, which saves the old input)."""
    op = ops.ThresholdInplace(threshold, value)
    return run_inplace(input, lambda x: apply(op, x), copy=True)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``input`` clamped to ``[min_val, max_val]``; the gradient passes strictly inside.

    Example::

        F.hardtanh(hookgrad.tensor([-2.0, 0.5, 3.0]))   # tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return hardtanh_(input, min_val, max_val)
    return apply(ops.Hardtanh(min_val, max_val), input)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``hardtanh`` in place (node ``HardtanhBackward0``, saving the old input)."""
    op = ops.Hardtanh(min_val, max_val)
    return run_inplace(input, lambda x: apply(op, x), copy=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(input, 0), 6)`` (``hardtanh(input, 0, 6)``).

    Example::

        F.relu6(hookgrad.tensor([-1.0, 7.0]))   # tensor([0., 6.])
    """
    if inplace:
        return hardtanh_(input, 0, 6)
    return apply(ops.Hardtanh(0, 6), input)


# ---------------------------------------------------------------- smooth activations


def _unary(input: Tensor, op: Any, kernel: str, inplace: bool) -> Tensor:
    """``op`` on a floating ``input``; in place, the old input is saved as a copy."""
    _check_floating(input, kernel)
    if inplace:
        return run_inplace(input, lambda x: apply(op, x), copy=True)
    return apply(op, input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(input + 3) / 6``, a piecewise-linear sigmoid.

    Example::

        F.hardsigmoid(hookgrad.tensor([0.0, 4.0]))   # tensor([0.5000, 1.0000])
    """
    return _unary(input, ops.Hardsigmoid(), "hardsigmoid_cpu", inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * relu6(input + 3) / 6``.

    Example::

        F.hardswish(hookgrad.tensor([1.0]))   # tensor([0.6667])
    """
    return _unary(input, ops.Hardswish(), "hardswish_cpu", inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * tanh(softplus(input))``.

    Example::

        F.mish(hookgrad.tensor([1.0]))   # tensor([0.8651])
    """
    return _unary(input, ops.Mish(), "mish_cpu", inplace)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(input, alpha)`` with SELU's constants ``alpha = 1.6733``,
    ``scale = 1.0507`` (torch's ``EluBackward0``).

    Example::

        F.selu(hookgrad.tensor([1.0, -1.0]))   # tensor([ 1.0507, -1.1113])
    """
    _check_floating(input, "elu_cpu")
    if inplace:
        return selu_(input)
    return apply(ops.Elu(ops.SELU_ALPHA, ops.SELU_SCALE), input)


def selu_(input: Tensor) -> Tensor:
    """``selu`` in place (node ``EluBackward1``, which reads the result)."""
    _check_floating(input, "elu_cpu")
    return run_inplace_op(input, ops.EluResult(ops.SELU_ALPHA, ops.SELU_SCALE))


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, input) + min(0, alpha * (exp(input / alpha) - 1))``.

    Example::

        F.celu(hookgrad.tensor([-1.0]), alpha=2.0)   # tensor([-0.7869])
    """
    _check_floating(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return celu_(input, alpha)
    return apply(ops.Celu(alpha), input)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``celu`` in place (node ``CeluBackward1``, which reads the result)."""
    _check_floating(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return run_inplace_op(input, ops.CeluResult(alpha))


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(input))``, computed without overflow.

    Example::

        F.logsigmoid(hookgrad.tensor([0.0]))   # tensor([-0.6931])
    """
    _check_floating(input, "log_sigmoid_cpu")
    return apply(ops.LogSigmoid(), input)[0]


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: ``a * sigmoid(b)`` for the two halves ``a``, ``b`` of
    ``input`` along ``dim`` (of even size).

    Example::

        F.glu(hookgrad.randn(4, 6)).shape   # hookgrad.Size([4, 3])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    _check_floating(input, "glu_cpu")
    wrapped = _wrap_dim(dim, input.dim())
    if input.shape[wrapped] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {wrapped} is size "
            f"{input.shape[wrapped]}"
        )
    return apply(ops.Glu(dim), input)


def _wrap_dim(dim: int, ndim: int) -> int:
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but "
            f"got {dim})"
        )
    return dim % ndim


# ---------------------------------------------------------------- shrinkage


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|input| > lambd``, else 0.

    Example::

        F.hardshrink(hookgrad.tensor([0.3, -0.7]))   # tensor([ 0.0000, -0.7000])
    """
    _check_floating(input, "hardshrink_cpu")
    return apply(ops.Hardshrink(lambd), input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` moved ``lambd`` toward 0, and 0 where ``|input| <= lambd``.

    Example::

        F.softshrink(hookgrad.tensor([0.3, -0.7]))   # tensor([ 0.0000, -0.2000])
    """
    _check_floating(input, "softshrink_check")
    largest = float(np.finfo(input._data.dtype).max)
    if not 0 <= lambd <= largest:
        raise RuntimeError(
            f"lambda must be in range [0, {largest:g}] for input dtype "
            f"{input.dtype.type_name[3:-4]}, but found {lambd:g}"
        )
    return apply(ops.Softshrink(lambd), input)


# ---------------------------------------------------------------- learned and random slopes


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``input`` where positive, else ``weight * input``, with one learned slope per
    channel (dim 1; ``weight`` of size ``C``) or one for all (``weight`` of size 1).

    Example::

        F.prelu(hookgrad.tensor([[-1.0, 2.0]]), hookgrad.tensor([0.25]))
        # tensor([[-0.2500,  2.0000]])
    """
    if input.dtype != weight.dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{input.dtype.type_name[3:-4]} and {weight.dtype.type_name[3:-4]}"
        )
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return apply(ops.PreluKernel(), input, weight)


def _rrelu_noise(input: Tensor, lower: float, upper: float, training: bool) -> Tensor:
    """torch's noise for ``rrelu_with_noise``: in training a slope drawn uniformly from
    ``[lower, upper)`` (one 64-bit draw each, in order) where ``input <= 0``, else 1."""
    _check_floating(input, "leaky_relu_cpu" if not training else "rrelu_with_noise_out_cpu")
    data = input._data
    noise = np.ones(data.shape, data.dtype)
    if training:
        negative = data <= 0
        count = int(negative.sum())
        if count:
            words = engine_of(None).random64(count)
            unit = (words & np.uint64((1 << 53) - 1)) * 2.0**-53
            noise[negative] = unit * (upper - lower) + lower
    return wrap_constant(noise)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomized leaky ReLU: in training each non-positive element is scaled by a slope
    drawn uniformly from ``[lower, upper)`` (from the default generator, as torch draws
    it); otherwise by ``(lower + upper) / 2``.

    Example::

        F.rrelu(hookgrad.tensor([-1.0, 2.0]))   # tensor([-0.2292,  2.0000])
    """
    if inplace:
        return rrelu_(input, lower, upper, training)
    noise = _rrelu_noise(input, lower, upper, training)
    return apply(ops.RreluWithNoise(lower, upper, training, None), input, noise)


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """``rrelu`` in place (node ``RreluWithNoiseBackward1``, which reads the result)."""
    check_inplace(input, input.requires_grad)  # before drawing: a refused call draws nothing
    noise = _rrelu_noise(input, lower, upper, training)
    op = ops.RreluWithNoiseResult(lower, upper, training, None)
    return run_inplace_op(input, op, (noise,))
