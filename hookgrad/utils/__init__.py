"""``hookgrad.utils``: hook handles, activation checkpointing, data loading
(``hookgrad.utils.data``), visualisation and diagnostics, per-example gradients
(``hookgrad.utils.per_sample``) and differentially private training
(``hookgrad.utils.privacy``)."""

from hookgrad.utils import checkpoint, data, hooks, per_sample, privacy
from hookgrad.utils.attribution import grad_cam, guided_backprop, saliency
from hookgrad.utils.dot import make_dot
from hookgrad.utils.monitor import GradientMonitor
from hookgrad.utils.per_sample import per_sample_grads
from hookgrad.utils.trace import trace_hooks

__all__ = [
    "GradientMonitor",
    "checkpoint",
    "data",
    "grad_cam",
    "guided_backprop",
    "hooks",
    "make_dot",
    "per_sample",
    "per_sample_grads",
    "privacy",
    "saliency",
    "trace_hooks",
]
