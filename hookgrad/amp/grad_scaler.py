"""``GradScaler``: loss scaling for mixed-precision training, as in torch.

``GradScaler("cpu")`` scales, unscales, skips steps whose gradients hold infs or NaNs and
adjusts its scale exactly as torch's does. ``GradScaler()`` (device ``"cuda"``, the default)
warns and disables itself, as in a CPU-only torch: ``scale`` then returns its input,
``step`` just calls ``optimizer.step()`` and ``update`` does nothing.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable
from enum import Enum
from typing import Any

import numpy as np

from hookgrad.grad_mode import no_grad
from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import full
from hookgrad.tensor.device import cpu
from hookgrad.tensor.functions.unary import isfinite
from hookgrad.tensor.tensor import Tensor

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in the current iteration."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_NO_SCALE_FIX = (
    "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the "
    "iteration."
)


class GradScaler:
    """Scales a loss so that small gradients survive low precision, then unscales the
    gradients before the optimizer step, skipping steps with inf/NaN gradients.

    Arguments as torch's: ``GradScaler(device="cuda", init_scale=2.**16,
    growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True)``; with
    ``device="cuda"`` it disables itself with a warning. Example::

        scaler = hookgrad.amp.GradScaler("cpu")
        scaler.scale(loss).backward()
        scaler.step(optimizer)      # unscales, then steps unless a gradient is inf/NaN
        scaler.update()             # adjusts the scale
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                UserWarning,
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Tensor | None = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Tensor | None = None
            self._per_optimizer_states: dict[int, dict[str, Any]] = defaultdict(
                _refresh_per_optimizer_state
            )

    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Tensor, Tensor]:
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + _NO_SCALE_FIX)
        if self._growth_tracker is None:
            raise AssertionError(
                f"Attempted {funcname} but _growth_tracker is None.  " + _NO_SCALE_FIX
            )
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self) -> Tensor:
        self._scale = full((), self._init_scale, dtype=dtypes.float32)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=dtypes.int32)
        return self._scale

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or tensors in lists and tuples) multiplied by the scale;
        returned unchanged when the scaler is disabled."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                return outputs * self._lazy_init_scale_growth_tracker()
            return outputs * self._scale
        return self._scale_iterable(outputs)

    def _scale_iterable(self, value: Any) -> Any:
        if isinstance(value, Tensor):
            return self.scale(value)
        if isinstance(value, Iterable):
            scaled = map(self._scale_iterable, value)
            return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _unscale_grads_(
        self, optimizer: Any, inv_scale: Tensor, found_inf: Tensor, allow_fp16: bool
    ) -> dict[Any, Tensor]:
        """Multiply every gradient of ``optimizer`` by ``inv_scale``; ``found_inf`` becomes
        1.0 if one holds an inf or NaN. Returns ``{device: found_inf}`` (empty when no
        parameter has a gradient)."""
        grads = []
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, Tensor):
                    raise AssertionError(
                        f"expected param to be torch.Tensor, got {type(param).__name__}"
                    )
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype is dtypes.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grads.append(param.grad)
        if not grads:
            return {}
        with no_grad():
            for grad in grads:
                if not isfinite(grad).all().item():
                    found_inf.fill_(1.0)
                grad.mul_(inv_scale)
        return {cpu: found_inf}

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale (once per ``step``), e.g. to clip
        them; ``step`` does it otherwise."""
        if not self._enabled:
            return
        scale, _ = self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # NOTE: torch takes the reciprocal in float64, then rounds it to float32.
        inv_scale = full((), 1.0 / scale.item(), dtype=dtypes.float32)
        found_inf = full((), 0.0, dtype=dtypes.float32)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(
            optimizer, inv_scale, found_inf, False
        )
        optimizer_state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale ``optimizer``'s gradients (unless ``unscale_`` did) and call
        ``optimizer.step(*args, **kwargs)`` unless one holds an inf or NaN; returns what
        the step returns."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """End the iteration: multiply the scale by ``backoff_factor`` if a step was
        skipped, by ``growth_factor`` after ``growth_interval`` unskipped iterations; or
        set it to ``new_scale``."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            self._set_scale(scale, new_scale)
        else:
            found_infs = [
                found_inf
                for state in self._per_optimizer_states.values()
                for found_inf in state["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf = sum(f.item() for f in found_infs)
            self._update_scale(scale, growth_tracker, found_inf)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _set_scale(self, scale: Tensor, new_scale: float | Tensor) -> None:
        if isinstance(new_scale, float):
            scale.fill_(new_scale)
            return
        reason = (
            "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
            "torch.FloatTensor with requires_grad=False."
        )
        if new_scale.device.type != self._device:
            raise AssertionError(reason)
        if new_scale.numel() != 1:
            raise AssertionError(reason)
        if new_scale.requires_grad is True:
            raise AssertionError(reason)
        with no_grad():
            scale.copy_(new_scale)

    def _update_scale(self, scale: Tensor, growth_tracker: Tensor, found_inf: float) -> None:
        """torch's ``_amp_update_scale_``, in float32 as its kernel computes."""
        current = scale.item()
        if found_inf:
            scale.fill_(float(np.float32(current * self._backoff_factor)))
            growth_tracker.fill_(0)
            return
        successful = int(growth_tracker.item()) + 1
        if successful == self._growth_interval:
            grown = float(np.float32(current * self._growth_factor))
            if math.isfinite(grown):
                scale.fill_(grown)
            growth_tracker.fill_(0)
        else:
            growth_tracker.fill_(successful)

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self) -> float:
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Set the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale shrinks by after a skipped step."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Set the factor the scale shrinks by after a skipped step."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """How many unskipped iterations make the scale grow."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Set how many unskipped iterations make the scale grow."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        """Whether the scaler scales (False after it disabled itself for CUDA)."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """The scale, growth factor, backoff factor, growth interval and growth tracker
        (empty when disabled), as torch's."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned (nothing when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler instance may only be pickled at the beginning "
                    "of an iteration, or at the end after scaler.update()."
                )
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
