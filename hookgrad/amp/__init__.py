"""``hookgrad.amp``: automatic mixed precision as a CPU-only torch has it: ``autocast``
(state only: hookgrad casts nothing), ``GradScaler`` (working on the CPU, disabled for
CUDA), and the ``custom_fwd``/``custom_bwd`` decorators."""

from hookgrad.amp.autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    is_autocast_available,
)
from hookgrad.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
