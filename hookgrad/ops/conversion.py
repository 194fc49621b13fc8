"""Conversion ops: clone, dtype casts, complex conjugate, real and imaginary parts."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.strides import preserve_layout


class Clone(Op):
    """A copy with its own memory, laid out as torch's ``preserve_format`` lays it out;
    the gradient passes through unchanged."""

    input_names = ("self",)

    def forward(self, a: Any) -> Any:
        return preserve_layout(a.copy(order="K"), a)

    def backward(self, grad: Any) -> Any:
        return grad


class ToCopy(Op):
    """A cast to another dtype; the gradient is cast back by the engine."""

    input_names = ("self",)

    def __init__(self, np_dtype: np.dtype) -> None:
        self.np_dtype = np_dtype

    def forward(self, a: Any) -> Any:
        if np.iscomplexobj(a) and self.np_dtype.kind != "c":
            return preserve_layout(a.real.astype(self.np_dtype), a)
        return preserve_layout(a.astype(self.np_dtype), a)

    def backward(self, grad: Any) -> Any:
        return grad


class Conj(Op):
    """The complex conjugate; its gradient is the conjugate of the incoming one."""

    input_names = ("self",)

    def forward(self, a: Any) -> Any:
        return np.conjugate(a)

    def backward(self, grad: Any) -> Any:
        return grad.conj()


class Real(Op):
    """The real part of a complex tensor (a view of its memory, as in torch).

    torch computes it as a select of ``view_as_real``, hence its node name.
    """

    input_names = ("self",)
    node_name = "SelectBackward0"
    view = True

    def forward(self, a: Any) -> Any:
        return a.real

    def backward(self, grad: Any) -> Any:
        return grad  # the engine casts it to the input's complex dtype


class Imag(Op):
    """The imaginary part of a complex tensor (a view of its memory, as in torch)."""

    input_names = ("self",)
    node_name = "SelectBackward0"
    view = True

    def forward(self, a: Any) -> Any:
        return a.imag

    def backward(self, grad: Any) -> Any:
        return grad * 1j


class ViewAsReal(Op):
    """A complex tensor seen as real pairs ``(real, imag)`` in a new last dimension."""

    input_names = ("self",)
    view = True

    def forward(self, a: Any) -> Any:
        # NOTE: through a new axis of size 1, any strides can be reinterpreted.
        return a[..., None].view(a.real.dtype)

    def backward(self, grad: Any) -> Any:
        return grad._view_as_complex()


class ViewAsComplex(Op):
    """Real pairs in the last dimension (of size 2) seen as complex numbers."""

    input_names = ("self",)
    view = True

    def forward(self, a: Any) -> Any:
        if a.strides[-1] != a.itemsize:
            a = np.ascontiguousarray(a)  # a gradient in backward; user input was checked
            self.view = False
        return a.view(np.result_type(a.dtype, np.complex64))[..., 0]

    def backward(self, grad: Any) -> Any:
        return grad._view_as_real()
