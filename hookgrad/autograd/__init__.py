"""``hookgrad.autograd``: backward, grad, custom Functions, gradcheck, graph hooks."""

from hookgrad import grad_mode
from hookgrad.autograd import function, graph
from hookgrad.autograd.function import Function, FunctionCtx
from hookgrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from hookgrad.grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from hookgrad.tensor.backward import backward, grad

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "backward",
    "enable_grad",
    "function",
    "grad",
    "grad_mode",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "no_grad",
    "set_grad_enabled",
]
