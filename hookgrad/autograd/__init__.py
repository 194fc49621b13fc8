"""``hookgrad.autograd``: backward, grad, custom Functions, gradcheck, graph hooks,
functional derivatives, forward-mode AD (``forward_ad``), the profiler (``profiler``,
``profiler_util``, ``profiler_legacy``), the engine's switches, and the deprecated
``Variable`` and ``NestedIOFunction``."""

import hookgrad as torch  # noqa: F401 (as torch.autograd.torch: the package itself)
from hookgrad.autograd import (
    forward_ad,
    function,
    functional,
    grad_mode,
    graph,
    profiler,
    profiler_legacy,
    profiler_util,
)
from hookgrad.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from hookgrad.autograd.function import Function, FunctionCtx, NestedIOFunction
from hookgrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from hookgrad.autograd.modes import (
    _force_original_view_tracking,
    enforce_grad_layout_policy,
    is_multithreading_enabled,
    is_view_replay_enabled,
    set_multithreading_enabled,
)
from hookgrad.autograd.profiler import kineto_available
from hookgrad.autograd.profiler_util import (
    DeviceType,
    ProfilerActivity,
    ProfilerConfig,
    ProfilerEvent,
    ProfilerState,
)
from hookgrad.autograd.variable import Variable
from hookgrad.grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from hookgrad.graph.saved import SavedTensor
from hookgrad.overrides import handle_torch_function, has_torch_function, is_tensor_like
from hookgrad.tensor.backward import backward, grad

__all__ = [
    "DeviceType",
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "NestedIOFunction",
    "ProfilerActivity",
    "ProfilerConfig",
    "ProfilerEvent",
    "ProfilerState",
    "SavedTensor",
    "Variable",
    "_force_original_view_tracking",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "enforce_grad_layout_policy",
    "forward_ad",
    "function",
    "functional",
    "grad",
    "grad_mode",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "handle_torch_function",
    "has_torch_function",
    "inference_mode",
    "is_multithreading_enabled",
    "is_tensor_like",
    "is_view_replay_enabled",
    "kineto_available",
    "no_grad",
    "profiler",
    "profiler_legacy",
    "profiler_util",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_multithreading_enabled",
]
