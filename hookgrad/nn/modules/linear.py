"""nn modules: ``Identity``, ``Linear`` and ``Bilinear``."""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.nn import functional as F
from hookgrad.nn import init
from hookgrad.nn.modules.module import Module
from hookgrad.nn.parameter import Parameter
from hookgrad.tensor import Tensor

__all__ = ["Bilinear", "Identity", "Linear"]


class Identity(Module):
    """Returns its input unchanged; any constructor arguments are ignored.

    Example::

        nn.Identity(54, unused="x")(x) is x   # True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` over the last dim of ``x``.

    ``weight`` has shape ``(out_features, in_features)``, ``bias`` ``(out_features,)``;
    both start uniform on ``[-1/sqrt(in_features), 1/sqrt(in_features)]``, as in torch.

    Example::

        layer = nn.Linear(3, 4)
        layer(hookgrad.randn(8, 3)).shape   # hookgrad.Size([8, 4])
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(
            hookgrad.empty((out_features, in_features), device=device, dtype=dtype)
        )
        if bias:
            self.bias = Parameter(hookgrad.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw the parameters: ``kaiming_uniform_(a=sqrt(5))`` for the weight, uniform
        on ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]`` for the bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Bilinear(Module):
    """``y[..., o] = x1 @ weight[o] @ x2 + bias[o]``.

    ``weight`` has shape ``(out_features, in1_features, in2_features)``; parameters start
    uniform on ``[-1/sqrt(in1_features), 1/sqrt(in1_features)]``.

    Example::

        layer = nn.Bilinear(3, 5, 4)
        layer(hookgrad.randn(8, 3), hookgrad.randn(8, 5)).shape   # hookgrad.Size([8, 4])
    """

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        shape = (out_features, in1_features, in2_features)
        self.weight = Parameter(hookgrad.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(hookgrad.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias uniform on ``[-1/sqrt(in1_features), 1/sqrt(in1_features)]``."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
