"""nn.functional: activation functions (relu, leaky_relu, elu, gelu, silu, softplus,
sigmoid, tanh, softmax, log_softmax ...).

The ``inplace=True`` forms overwrite ``input`` and return it, recording the node torch
records for the in-place op.
"""

from __future__ import annotations

import warnings
from typing import Any

import hookgrad
from hookgrad.ops import activation as ops
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.inplace import _inplace, _inplace_op

__all__ = [
    "elu",
    "elu_",
    "gelu",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "relu",
    "relu_",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softsign",
    "tanh",
    "tanhshrink",
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
    return _inplace_op(input, ops.LeakyReluResult(negative_slope))


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
    return _inplace_op(input, ops.EluResult(alpha))


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
        return _inplace(input, _silu, copy=True)
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
