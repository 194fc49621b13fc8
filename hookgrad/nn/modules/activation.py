"""nn modules: activations (``ReLU``, ``LeakyReLU``, ``ELU``, ``GELU``, ``SiLU``,
``Sigmoid``, ``Tanh``, ``Softplus``, ``Softmax``, ``LogSoftmax`` ...), each a thin layer
over its ``nn.functional`` form with torch's constructor arguments and repr."""

from __future__ import annotations

from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = [
    "ELU",
    "GELU",
    "LeakyReLU",
    "LogSoftmax",
    "ReLU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmin",
    "Softplus",
    "Softsign",
    "Tanh",
    "Tanhshrink",
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
