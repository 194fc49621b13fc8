"""nn modules: activations (``ReLU``, ``LeakyReLU``, ``PReLU``, ``RReLU``, ``ELU``,
``SELU``, ``CELU``, ``GELU``, ``SiLU``, ``Mish``, ``Hardtanh``, ``ReLU6``, ``Hardsigmoid``,
``Hardswish``, ``Sigmoid``, ``LogSigmoid``, ``Tanh``, ``Softplus``, ``GLU``, the
shrinkages, ``Threshold``, ``Softmax``, ``Softmax2d``, ``LogSoftmax`` ...), each a thin
layer over its ``nn.functional`` form with torch's constructor arguments and repr."""

from __future__ import annotations

import warnings
from typing import Any

import hookgrad
from hookgrad.nn import functional as F
from hookgrad.nn import init
from hookgrad.nn.modules.module import Module
from hookgrad.nn.parameter import Parameter
from hookgrad.tensor import Tensor

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "GLU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "PReLU",
    "RReLU",
    "ReLU",
    "ReLU6",
    "SELU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmax2d",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "Threshold",
]


class ReLU(Module):
    """``max(x, 0)``; ``inplace=True`` overwrites the input (``relu_``).

    Example::

        nn.ReLU()(hookgrad.tensor([-1.0, 2.0]))   # tensor([0., 2.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` where positive, else ``negative_slope * x``.

    Example::

        nn.LeakyReLU(0.1)(hookgrad.tensor([-1.0]))   # tensor([-0.1000])
    """

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class ELU(Module):
    """``x`` where positive, else ``alpha * (exp(x) - 1)``.

    Example::

        nn.ELU()(hookgrad.tensor([-1.0]))   # tensor([-0.6321])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class GELU(Module):
    """``x * Phi(x)``, or its tanh approximation with ``approximate="tanh"``.

    Example::

        nn.GELU()(hookgrad.tensor([1.0]))   # tensor([0.8413])
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``x * sigmoid(x)``.

    Example::

        nn.SiLU()(hookgrad.tensor([1.0]))   # tensor([0.7311])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``.

    Example::

        nn.Sigmoid()(hookgrad.tensor([0.0]))   # tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class Tanh(Module):
    """Hyperbolic tangent.

    Example::

        nn.Tanh()(hookgrad.tensor([0.0]))   # tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Softsign(Module):
    """``x / (1 + |x|)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``.

    Example::

        nn.Softplus()(hookgrad.tensor([0.0]))   # tensor([0.6931])
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _SoftmaxFamily(Module):
    """A softmax-like layer along ``dim`` (torch's legacy default when None)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxFamily):
    """``exp(x) / exp(x).sum(dim)``: rows that are probability distributions.

    Example::

        nn.Softmax(dim=1)(hookgrad.zeros(2, 4))   # every entry 0.25
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class Softmin(_SoftmaxFamily):
    """``softmax(-x, dim)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxFamily):
    """``log(softmax(x, dim))``, computed stably.

    Example::

        nn.LogSoftmax(dim=1)(hookgrad.zeros(1, 2))   # tensor([[-0.6931, -0.6931]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """``softmax`` over the channels (dim -3) of ``(N, C, H, W)`` or ``(C, H, W)`` inputs.

    Example::

        nn.Softmax2d()(hookgrad.zeros(1, 4, 2, 2))   # every entry 0.25
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3, _stacklevel=5)


def _inplace_repr(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class Threshold(Module):
    """``value`` where ``x <= threshold``, else ``x``.

    Example::

        nn.Threshold(0.1, 20.0)(hookgrad.tensor([0.0, 1.0]))   # tensor([20.,  1.])
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_repr(self.inplace)}"


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]`` (``min_value``/``max_value`` are the
    deprecated spellings).

    Example::

        nn.Hardtanh(-2.0, 2.0)(hookgrad.tensor([-3.0, 1.0]))   # tensor([-2.,  1.])
    """

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn(
                "keyword argument `min_value` is deprecated and renamed to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            warnings.warn(
                "keyword argument `max_value` is deprecated and renamed to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_repr(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``.

    Example::

        nn.ReLU6()(hookgrad.tensor([-1.0, 8.0]))   # tensor([0., 6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class _InplaceActivation(Module):
    """An activation whose only option is ``inplace``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Hardsigmoid(_InplaceActivation):
    """``relu6(x + 3) / 6``.

    Example::

        nn.Hardsigmoid()(hookgrad.tensor([0.0]))   # tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Hardswish(_InplaceActivation):
    """``x * relu6(x + 3) / 6``.

    Example::

        nn.Hardswish()(hookgrad.tensor([1.0]))   # tensor([0.6667])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class Mish(_InplaceActivation):
    """``x * tanh(softplus(x))``.

    Example::

        nn.Mish()(hookgrad.tensor([1.0]))   # tensor([0.8651])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class SELU(_InplaceActivation):
    """``scale * elu(x, alpha)`` with SELU's fixed constants.

    Example::

        nn.SELU()(hookgrad.tensor([1.0]))   # tensor([1.0507])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class CELU(Module):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Example::

        nn.CELU(2.0)(hookgrad.tensor([-1.0]))   # tensor([-0.7869])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_repr(self.inplace)}"


class GLU(Module):
    """The gated linear unit over ``dim``: ``a * sigmoid(b)`` for the input's halves.

    Example::

        nn.GLU()(hookgrad.randn(4, 6)).shape   # hookgrad.Size([4, 3])
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSigmoid(Module):
    """``log(sigmoid(x))``, computed stably.

    Example::

        nn.LogSigmoid()(hookgrad.tensor([0.0]))   # tensor([-0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0.

    Example::

        nn.Hardshrink()(hookgrad.tensor([0.3, 0.7]))   # tensor([0.0000, 0.7000])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Module):
    """``x`` moved ``lambd`` toward 0, and 0 where ``|x| <= lambd``.

    Example::

        nn.Softshrink()(hookgrad.tensor([0.3, 0.7]))   # tensor([0.0000, 0.2000])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class PReLU(Module):
    """``x`` where positive, else ``weight * x``, with a learned ``weight`` of
    ``num_parameters`` slopes (1, or one per channel) starting at ``init``.

    Example::

        act = nn.PReLU(3)
        act(hookgrad.randn(2, 3, 5)).shape   # hookgrad.Size([2, 3, 5])
    """

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(hookgrad.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every slope back to ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky ReLU: in training, slopes drawn from ``U(lower, upper)`` for the
    non-positive elements; in eval mode the slope ``(lower + upper) / 2``.

    Example::

        nn.RReLU(0.1, 0.3)(hookgrad.randn(4))
    """

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_repr(self.inplace)}"
