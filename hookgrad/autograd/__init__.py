"""``hookgrad.autograd``: backward, grad, custom Functions, gradcheck, graph hooks,
functional derivatives, and the deprecated ``Variable``."""

from hookgrad import grad_mode
from hookgrad.autograd import function, functional, graph
from hookgrad.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from hookgrad.autograd.function import Function, FunctionCtx
from hookgrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from hookgrad.autograd.variable import Variable
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
    "detect_anomaly",
    "enable_grad",
    "function",
    "functional",
    "grad",
    "grad_mode",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
    "Variable",
]
