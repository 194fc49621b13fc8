"""torch's deprecated per-device spellings of ``autocast`` and ``GradScaler``
(``torch.cuda.amp.autocast()``, ``torch.cpu.amp.GradScaler()`` ...): each warns as torch's
does, then is ``autocast(device)`` / ``GradScaler(device)``."""

from __future__ import annotations

import warnings

from hookgrad.amp.autocast_mode import autocast as _autocast
from hookgrad.amp.grad_scaler import GradScaler as _GradScaler
from hookgrad.tensor import dtypes

__all__ = ["spellings"]


def spellings(device: str) -> tuple[type, type]:
    """The deprecated ``(autocast, GradScaler)`` classes of ``torch.<device>.amp``."""

    def warn(name: str) -> None:
        warnings.warn(
            f"`torch.{device}.amp.{name}(args...)` is deprecated. Please use "
            f"`torch.amp.{name}('{device}', args...)` instead.",
            FutureWarning,
            stacklevel=3,
        )

    class autocast(_autocast):
        def __init__(
            self,
            enabled: bool = True,
            dtype: dtypes.dtype = dtypes.float16,
            cache_enabled: bool = True,
        ) -> None:
            warn("autocast")
            super().__init__(device, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    class GradScaler(_GradScaler):
        def __init__(
            self,
            init_scale: float = 2.0**16,
            growth_factor: float = 2.0,
            backoff_factor: float = 0.5,
            growth_interval: int = 2000,
            enabled: bool = True,
        ) -> None:
            warn("GradScaler")
            super().__init__(
                device,
                init_scale=init_scale,
                growth_factor=growth_factor,
                backoff_factor=backoff_factor,
                growth_interval=growth_interval,
                enabled=enabled,
            )

    module = f"hookgrad.{device}.amp"
    for cls, base in ((autocast, "autocast"), (GradScaler, "GradScaler")):
        cls.__module__ = module
        cls.__qualname__ = cls.__name__
        cls.__doc__ = f'Deprecated ``{base}("{device}")``: warns, then works as it.'
    return autocast, GradScaler
