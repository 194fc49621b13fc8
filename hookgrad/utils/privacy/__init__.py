"""``hookgrad.utils.privacy``: differentially private training (DP-SGD).

``make_private(model, optimizer, data_loader, noise_multiplier, max_grad_norm)``
(``engine.py``) returns the three ready for DP-SGD: per-sample gradient hooks on the
model (``hookgrad.utils.per_sample``), a :class:`DPOptimizer` (``optimizer.py``: clip,
sum, noise, average, then any optimizer's step) and a Poisson-sampled
:class:`DPDataLoader` (``sampling.py``); ``accountant.py`` computes the privacy spent
(RDP of the sampled Gaussian mechanism) and the noise a budget needs.
"""

from hookgrad.utils.privacy.accountant import (
    DEFAULT_ORDERS,
    RDPAccountant,
    compute_rdp,
    get_noise_multiplier,
    rdp_to_epsilon,
)
from hookgrad.utils.privacy.engine import make_private
from hookgrad.utils.privacy.optimizer import DPOptimizer
from hookgrad.utils.privacy.sampling import DPDataLoader, PoissonBatchSampler

__all__ = [
    "DEFAULT_ORDERS",
    "DPDataLoader",
    "DPOptimizer",
    "PoissonBatchSampler",
    "RDPAccountant",
    "compute_rdp",
    "get_noise_multiplier",
    "make_private",
    "rdp_to_epsilon",
]
