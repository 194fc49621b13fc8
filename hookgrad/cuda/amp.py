"""``hookgrad.cuda.amp``: torch's deprecated CUDA spellings of ``hookgrad.amp``. Each warns
as torch's do; ``autocast`` and ``GradScaler`` then disable themselves (no GPU)."""

from __future__ import annotations

import warnings
from typing import Any

from hookgrad import amp
from hookgrad.tensor import dtypes

__all__ = ["GradScaler", "amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd"]


def amp_definitely_not_available() -> bool:
    """True: CUDA autocast can never run here."""
    return True


class autocast(amp.autocast):
    """Deprecated ``autocast("cuda")``: warns, then disables itself as there is no GPU."""

    def __init__(
        self,
        enabled: bool = True,
        dtype: dtypes.dtype = dtypes.float16,
        cache_enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(amp.GradScaler):
    """Deprecated ``GradScaler("cuda")``: warns, then disables itself as there is no GPU."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cuda",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )


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
