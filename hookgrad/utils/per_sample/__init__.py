"""``hookgrad.utils.per_sample``: per-example gradients from module hooks.

``per_sample_grads(model)`` (``manager.py``) leaves ``p.grad_sample`` of shape
``(batch, *p.shape)`` on every trainable parameter after each ``backward()``, computed
per layer call from its inputs (forward hooks) and output gradients (backward hooks),
by one rule per layer family: ``linear.py``, ``conv.py``, ``embedding.py``,
``normalization.py``, ``activation.py``, ``recurrent.py``, ``attention.py``, and
``generic.py`` (``hookgrad.func.vmap`` of ``grad`` of the layer alone) for
layers without one; ``registry.py`` says which rule serves which layer. ``stats.py``
summarises them: per-example norms, the simple gradient noise scale.
"""

from hookgrad.utils.per_sample.call import Call, Factored
from hookgrad.utils.per_sample.manager import PerSampleBatch, PerSampleGrads, per_sample_grads
from hookgrad.utils.per_sample.registry import UnsupportedModuleError, register_grad_sampler
from hookgrad.utils.per_sample.stats import (
    PerSampleMonitor,
    PerSampleStep,
    noise_scale_terms,
    simple_noise_scale,
)

__all__ = [
    "Call",
    "Factored",
    "PerSampleBatch",
    "PerSampleGrads",
    "PerSampleMonitor",
    "PerSampleStep",
    "UnsupportedModuleError",
    "noise_scale_terms",
    "per_sample_grads",
    "register_grad_sampler",
    "simple_noise_scale",
]
