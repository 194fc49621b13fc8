"""``hookgrad.utils.per_sample``: per-example gradients from module hooks.

``per_sample_grads(model)`` (``manager.py``) leaves ``p.grad_sample`` of shape
``(batch, *p.shape)`` on every trainable parameter after each ``backward()``, computed
per layer call from its inputs (forward hooks) and output gradients (backward hooks),
by one rule per layer family: ``linear.py``, ``conv.py``, ``embedding.py``,
``normalization.py``, ``activation.py``, and ``generic.py`` (the per-example loop) for
layers without one; ``registry.py`` says which rule serves which layer. ``stats.py``
summarises them: per-example norms, the simple gradient noise scale.
"""

from hookgrad.utils.per_sample.call import Call, Factored
from hookgrad.utils.per_sample.manager import PerSampleBatch, PerSampleGrads, per_sample_grads
from hookgrad.utils.per_sample.registry import UnsupportedModuleError, register_grad_sampler

__all__ = [
    "Call",
    "Factored",
    "PerSampleBatch",
    "PerSampleGrads",
    "UnsupportedModuleError",
    "per_sample_grads",
    "register_grad_sampler",
]
