"""``device``: hookgrad computes on the CPU only; the type exists for API compatibility.

A ``device("cuda:0")`` object can be made (code often builds one before checking for a
GPU), but creating or moving a tensor to a device other than the CPU fails (for CUDA
with torch's own "Torch not compiled with CUDA enabled").
"""

from __future__ import annotations

from typing import Any

_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip


class device:
    """A device: ``device("cpu")``, ``device("cuda", 0)`` or ``device("cuda:0")``.

    Example::

        hookgrad.device("cpu")          # device(type='cpu')
        str(hookgrad.ones(1).device)    # 'cpu'
    """

    __slots__ = ("type", "index")
    type: str
    index: int | None

    def __init__(self, type: Any = "cpu", index: int | None = None) -> None:
        if isinstance(type, device):
            type, index = str(type), None
        if not isinstance(type, str):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        name, _, number = type.partition(":")
        if name not in _TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: {type}"
            )
        if number:
            if not number.isdigit() or index is not None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        self.type = name
        self.index = index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self) -> tuple[Any, tuple[str, int | None]]:
        return (device, (self.type, self.index))


cpu = device("cpu")


def check_device(value: Any) -> None:
    """Raise unless ``value`` (a device, a string like ``"cpu"`` or None) is the CPU."""
    if value is None:
        return
    if isinstance(value, int) and not isinstance(value, bool):
        value = device("cuda", value)
    kind = device(value).type
    if kind == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if kind != "cpu":
        raise RuntimeError(f"hookgrad runs on the CPU only; got device '{value}'")
