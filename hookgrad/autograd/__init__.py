"""``hookgrad.autograd``: backward, grad, custom Functions, gradcheck, graph hooks."""

from hookgrad.autograd import graph
from hookgrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from hookgrad.grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from hookgrad.tensor.backward import backward, grad

__all__ = [
    "GradcheckError",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "no_grad",
    "set_grad_enabled",
]
