"""``hookgrad.cuda.amp``: torch's deprecated CUDA spellings of ``hookgrad.amp``. Each warns
as torch's do; ``autocast`` and ``GradScaler`` then disable themselves (no GPU)."""

from __future__ import annotations

import warnings
from typing import Any

from hookgrad import amp
from hookgrad.amp.deprecated import spellings
from hookgrad.tensor import dtypes

__all__ = ["GradScaler", "amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd"]


def amp_definitely_not_available() -> bool:
    """True: CUDA autocast can never run here."""
    return True


# Each warns, then disables itself as there is no GPU.
autocast, GradScaler = spellings("cuda")


def custom_fwd(fwd: Any = None, *, cast_inputs: dtypes.dtype | None = None) -> Any:
    """Deprecated ``hookgrad.amp.custom_fwd(device_type="cuda")``."""
    warnings.warn(
        "`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
        "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Any = None) -> Any:
    """Deprecated ``hookgrad.amp.custom_bwd(device_type="cuda")``."""
    warnings.warn(
        "`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
        "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return amp.custom_bwd(bwd, device_type="cuda")
