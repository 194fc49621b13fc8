"""The discrete Fourier transforms of ``torch.fft``: torch's three primitives as entries
of the derivative table, with its formulas.

- ``_fft_c2c``: complex to complex over ``dim``, forward or inverse; its gradient is the
  transform the other way (``FftC2CBackward0``; a hand-written node, see ``FftC2C``).
- ``_fft_r2c``: real to complex, ``onesided`` keeping half of the last dim (``rfft``);
  its gradient pads the half back with zeros and takes the real part of the inverse
  (``FftR2CBackward0``, saving ``self`` for that size).
- ``_fft_c2r``: Hermitian half-spectrum to real (``irfft``); its gradient is an ``r2c``
  with the mirrored entries doubled (``FftC2RBackward0``).

``normalization`` is torch's enum: 0 none, 1 by ``1/sqrt(n)``, 2 by ``1/n``; NumPy's
pocketfft computes them, in the input's precision (complex64 for float32).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.table import entry, function

# NumPy's ``norm=`` giving each of torch's normalizations, for a forward and an
# inverse transform.
_FORWARD = {0: "backward", 1: "ortho", 2: "forward"}
_INVERSE = {0: "forward", 1: "ortho", 2: "backward"}


def _c2c(a: Any, dim: Any, normalization: int, forward: bool) -> Any:
    axes = tuple(dim)
    if forward:
        return np.fft.fftn(a, axes=axes, norm=_FORWARD[normalization])
    return np.fft.ifftn(a, axes=axes, norm=_INVERSE[normalization])


def _r2c(a: Any, dim: Any, normalization: int, onesided: bool) -> Any:
    axes = tuple(dim)
    norm = _FORWARD[normalization]
    if onesided:
        return np.fft.rfftn(a, axes=axes, norm=norm)
    return np.fft.fftn(a, axes=axes, norm=norm)


def _c2r(a: Any, dim: Any, normalization: int, last_dim_size: int) -> Any:
    axes = tuple(dim)
    sizes = [a.shape[d] for d in axes[:-1]] + [last_dim_size]
    return np.fft.irfftn(a, s=sizes, axes=axes, norm=_INVERSE[normalization])


def _r2c_backward_arrays(grad: Any, dim: Any, normalization: int, onesided: bool, a: Any) -> Any:
    last = dim[-1]
    if onesided and a.shape[last] > grad.shape[last]:
        full = np.zeros(a.shape, grad.dtype)
        full[(slice(None),) * (last % grad.ndim) + (slice(0, grad.shape[last]),)] = grad
        grad = full
    return _c2c(grad, dim, normalization, False).real


def _r2c_backward_tensors(grad: Any, dim: Any, normalization: int, onesided: bool, a: Any) -> Any:
    last = dim[-1]
    if onesided and a.shape[last] > grad.shape[last]:
        shape = list(grad.shape)
        shape[last] = a.shape[last]
        full = grad.new_zeros(shape)
        full.narrow(last, 0, grad.shape[last]).copy_(grad)
        grad = full
    return _real(grad._apply_op(FftC2C(dim, normalization, False)))


def _real(x: Any) -> Any:
    """torch's ``at::real`` of a complex tensor: ``view_as_real(x).select(-1, 0)``."""
    return x._view_as_real().select(-1, 0)


def _c2r_backward_arrays(grad: Any, dim: Any, normalization: int) -> Any:
    result = _r2c(grad, dim, normalization, True)
    last = dim[-1]
    double = grad.shape[last] - result.shape[last]
    if double > 0:
        index = (slice(None),) * (last % grad.ndim) + (slice(1, 1 + double),)
        result[index] *= 2
    return result


def _c2r_backward_tensors(grad: Any, dim: Any, normalization: int) -> Any:
    result = grad._apply_op(FftR2C(dim, normalization, True))
    last = dim[-1]
    double = grad.shape[last] - result.shape[last]
    if double > 0:
        result.narrow(last, 1, double).mul_(2)
    return result


class FftC2C(Op):
    """``_fft_c2c``: hand-written beside the table only because its argument ``forward``
    would shadow ``Op.forward``; its node shows it as ``_saved_forward``, as torch's."""

    node_name = "FftC2CBackward0"
    input_names = ("self",)
    saved_attributes = ("dim", "forward", "normalization")

    def __init__(self, dim: Any, normalization: int, forward: bool) -> None:
        self.dim = tuple(dim)
        self.normalization = normalization
        self.direction = forward

    @property
    def _saved_forward(self) -> bool:
        return self.direction

    def forward(self, a: Any) -> Any:
        return _c2c(a, self.dim, self.normalization, self.direction)

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(FftC2C(self.dim, self.normalization, not self.direction))


# torch's ``fft_r2c_backward`` and ``fft_c2r_backward``.
function("fft_r2c_backward", _r2c_backward_arrays, _r2c_backward_tensors)
function("fft_c2r_backward", _c2r_backward_arrays, _c2r_backward_tensors)

FftR2C = entry(
    "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
    _r2c,
    self="fft_r2c_backward(grad, dim, normalization, onesided, self)",
)
FftC2R = entry(
    "_fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor",
    _c2r,
    self="fft_c2r_backward(grad, dim, normalization)",
)
# The conjugate, as a new tensor (``ihfftn`` conjugates its half spectrum so).
ConjPhysical = entry(
    "conj_physical(Tensor self) -> Tensor",
    np.conj,
    self="conj_physical(grad)",
)
