"""``hookgrad.utils``: hook handles, activation checkpointing, data loading
(``hookgrad.utils.data``), visualisation and diagnostics."""

from hookgrad.utils import checkpoint, data, hooks
from hookgrad.utils.attribution import grad_cam, guided_backprop, saliency
from hookgrad.utils.dot import make_dot
from hookgrad.utils.monitor import GradientMonitor
from hookgrad.utils.trace import trace_hooks

__all__ = [
    "GradientMonitor",
    "checkpoint",
    "data",
    "grad_cam",
    "guided_backprop",
    "hooks",
    "make_dot",
    "saliency",
    "trace_hooks",
]
