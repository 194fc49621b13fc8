"""Forward AD for a custom ``Function``: its inputs' tangents, its ``forward`` run without
them, and the tangents its ``jvp`` returns attached to its outputs."""

from __future__ import annotations

from typing import Any

from hookgrad.autograd.forward import tangents
from hookgrad.tensor.tensor import Tensor


def of_inputs(args: tuple[Any, ...]) -> list[Any] | None:
    """One tangent (or None) per argument, or None when no argument has one (or no
    level is active, or tangents are being computed)."""
    if tangents.current is None or tangents.busy.value:
        return None
    found = [tangents.get(arg) if isinstance(arg, Tensor) else None for arg in args]
    return found if any(t is not None for t in found) else None


class suspended:
    """With ``active``: ops inside record no tangents (a Function's ``forward``, ``jvp``)."""

    def __init__(self, active: bool) -> None:
        self.active = active

    def __enter__(self) -> None:
        self.previous = tangents.busy.value
        if self.active:
            tangents.busy.value = True

    def __exit__(self, *exc_info: object) -> None:
        tangents.busy.value = self.previous


def attach(output: Tensor, tangent: Any) -> None:
    """Make ``tangent`` (from ``jvp``) the tangent of ``output``. An output that already
    has one (an input modified in place) gets the new values written into it."""
    if not isinstance(tangent, Tensor):
        raise TypeError(
            f"jvp must return Tensors or None as forward gradients, got {type(tangent).__name__}"
        )
    if tangent._data.shape != output._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size "
            f"{list(output._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}."
        )
    current = tangents.get(output)
    if current is None:
        tangents.set_own(output, tangent)
    elif current is not tangent:
        tangents.write(output, tangent)
