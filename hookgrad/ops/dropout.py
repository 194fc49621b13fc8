"""torch's ``native_dropout``: the input times a boolean keep-mask and ``1 / (1 - p)``,
returning the mask too (``F.dropout`` records a plain ``MulBackward0`` instead; see
``hookgrad.nn.functional.dropout``). The caller draws the mask, so this layer imports no
generator."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops.base import Op

_state = grad_mode._state


class NativeDropout(Op):
    """``input * mask * scale`` and the boolean ``mask`` (output ``result1``, without
    history); ``mask`` comes in as ``noise`` (ones where kept), which gets no edge.
    Outside training ``scale`` is 1 and the mask all ones. NOTE: as torch's formula, the
    gradient is scaled by ``grad_scale``: 1 unless ``train`` was given as True (with
    ``train=None`` the forward scales and the gradient does not)."""

    input_names = ("input", "noise")
    non_differentiable = ("noise",)
    saves = ("result1",)
    saved_attributes = ("p",)
    differentiable_outputs = 1

    def __init__(self, p: float, scale: float, grad_scale: float) -> None:
        self.p = p
        self.scale = scale
        self.grad_scale = grad_scale

    def forward(self, a: Any, noise: Any) -> Any:
        mask = noise.astype(bool)
        return (a * noise.astype(a.dtype)) * a.dtype.type(self.scale), mask

    def backward(self, grad: Any) -> Any:
        (mask,) = self.unpack()
        if _state.grad_enabled:
            # torch's infinitely_differentiable_native_dropout_backward
            return grad * (mask.type_as(grad) * self.grad_scale), None
        keep = mask._data.astype(grad._data.dtype)
        return grad._apply_op(_Scaled(keep, self.grad_scale)), None


class _Scaled(Op):
    """torch's ``native_dropout_backward`` kernel on arrays: ``grad * mask * scale``."""

    input_names = ("grad_output",)

    def __init__(self, keep: np.ndarray, scale: float) -> None:
        self.keep = keep
        self.scale = scale

    def forward(self, grad: Any) -> Any:
        return (grad * self.keep) * grad.dtype.type(self.scale)
