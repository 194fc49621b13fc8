"""Unary elementwise math: exp, log, trigonometric, activations, rounding.

Each backward is written with tensor ops (so it is differentiable itself) and follows
torch at non-differentiable points.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class UnaryOp(Op):
    input_names = ("self",)


class Exp(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.exp(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return grad * result.conj()


class Log(UnaryOp):
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return np.log(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        return grad / a.conj()


class Reciprocal(UnaryOp):
    saves = ("result",)

    def forward(self, a: Any) -> Any:
        return np.reciprocal(a)

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        return -grad * (result * result).conj()
