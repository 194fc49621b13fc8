"""``device``, the default device, and the device methods of ``Tensor`` (``cuda``,
``get_device``, ``is_cpu`` ...).

hookgrad computes on the CPU only and answers as a CPU-only build of torch does. A
``device("cuda:0")`` object can be made (code often builds one before checking for a GPU),
but creating or moving a tensor to a device other than the CPU fails: for CUDA with torch's
own ``AssertionError("Torch not compiled with CUDA enabled")``, for a bare device index
(``x.to(0)``) with torch's "Cannot access accelerator device when none is available.".
"""

from __future__ import annotations

import re
from typing import Any

_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip

# torch's form of a device string: a type, then optionally ``:`` and an index.
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")
# The errors of a CPU-only torch, shared with ``hookgrad.cuda`` and ``hookgrad.accelerator``.
NO_CUDA = "Torch not compiled with CUDA enabled"
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
# Backends whose tensors torch's CPU build refuses with "not linked with support for".
_UNLINKED = frozenset(_TYPES) - {"cpu", "cuda", "xpu", "meta", "lazy", "hpu", "mtia"}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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
        if _is_int(type):
            raise RuntimeError(NO_ACCELERATOR)
        if not isinstance(type, str):
            raise TypeError(
                "device() received an invalid combination of arguments - got "
                f"({_type_name(type)}), but expected one of:\n * (torch.device device)\n"
                " * (str type, int index = -1)\n"
            )
        if index is not None and not _is_int(index):
            raise TypeError(
                f"device(): argument 'index' (position 2) must be int, not {_type_name(index)}"
            )
        if not type:
            raise RuntimeError("Device string must not be empty")
        match = _DEVICE_STRING.fullmatch(type)
        if match is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        name, number = match.groups()
        if name not in _TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: {name}"
            )
        if number is not None:
            if index is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            index = int(number)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
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


def _type_name(value: Any) -> str:
    return type(value).__name__


def _device_type(value: Any) -> str:
    """The type of the device ``value`` names (``"cuda"`` for ``"cuda:1"``)."""
    return device(value).type


cpu = device("cpu")
_NAMES_A_DEVICE = (str, device)  # what ``Tensor.cuda`` takes besides an index


def check_device(value: Any) -> None:
    """Raise what a CPU-only torch raises unless ``value`` (a device, a string like
    ``"cpu"``, a device index or None) is the CPU."""
    if value is None:
        return
    if _is_int(value):
        if value < 0:
            raise RuntimeError("Device index must not be negative")
        raise RuntimeError(NO_ACCELERATOR)
    kind = _device_type(value)
    if kind == "cpu":
        return
    if kind == "cuda":
        raise AssertionError(NO_CUDA)
    if kind == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled")
    if kind in _UNLINKED:
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")
    raise RuntimeError(f"hookgrad runs on the CPU only; got device '{value}'")


# -- the default device --------------------------------------------------------------------
_default_device: device | None = None


def set_default_device(value: Any) -> None:
    """Set the device that factory functions (``tensor``, ``zeros``, ``arange`` ...) use
    when they are given none; ``None`` restores the CPU.

    As in a CPU-only torch, any device is accepted here, and a factory function then
    fails for one that is not the CPU. Example::

        hookgrad.set_default_device("cpu")
        hookgrad.get_default_device()       # device(type='cpu')
    """
    global _default_device
    _default_device = None if value is None else device(value)


def get_default_device() -> device:
    """The device that factory functions use when they are given none (the CPU unless
    ``set_default_device`` changed it)."""
    chosen = _default_device
    if chosen is None:
        return cpu
    if chosen.type == "cuda" and chosen.index is None:
        raise AssertionError(NO_CUDA)  # torch asks CUDA for its current device here
    return chosen


def factory_device(value: Any) -> Any:
    """The device a factory function given ``value`` makes its tensor on: ``value``, or
    the default device set by ``set_default_device`` (None when unset)."""
    return _default_device if value is None else value


def get_device(input: Any) -> int:
    """The index of ``input``'s CUDA device; ``-1`` for a CPU tensor (every tensor).

    Example: ``hookgrad.get_device(hookgrad.zeros(1)) == -1``.
    """
    if not hasattr(input, "_data"):
        raise TypeError(
            f"get_device(): argument 'input' (position 1) must be Tensor, not {_type_name(input)}"
        )
    return -1


# -- Tensor methods ------------------------------------------------------------------------
class DeviceMethods:
    """The device methods of ``Tensor``: every tensor is on the CPU."""

    def cuda(
        self, device: Any = None, non_blocking: bool = False, memory_format: Any = None
    ) -> Any:
        """A copy on a CUDA device: fails, as in a CPU-only torch, with
        ``AssertionError("Torch not compiled with CUDA enabled")``."""
        if device is None:
            raise AssertionError(NO_CUDA)
        if not (_is_int(device) or isinstance(device, _NAMES_A_DEVICE)):
            raise TypeError(
                "cuda(): argument 'device' (position 1) must be torch.device, not "
                f"{_type_name(device)}"
            )
        if not _is_int(device) and _device_type(device) != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        check_device(device)

    def get_device(self) -> int:
        """The index of the tensor's CUDA device; ``-1`` for a CPU tensor (always)."""
        return -1

    @property
    def is_cpu(self) -> bool:
        """True: every tensor is on the CPU."""
        return True

    @property
    def is_mps(self) -> bool:
        """False: hookgrad has no MPS tensors."""
        return False

    @property
    def is_meta(self) -> bool:
        """False: hookgrad has no meta tensors."""
        return False

    @property
    def is_xpu(self) -> bool:
        """False: hookgrad has no XPU tensors."""
        return False

    @property
    def is_maia(self) -> bool:
        """False: hookgrad has no MAIA tensors."""
        return False

    def is_pinned(self, device: Any = None) -> bool:
        """False: memory is pinned only for a GPU, and there is none."""
        return False

    def pin_memory(self, device: Any = None) -> Any:
        """Fails as in a CPU-only torch: pinned memory needs an accelerator."""
        if device is not None and _device_type(device) == "cpu":
            raise RuntimeError("CPU device type not an accelerator.")
        raise RuntimeError(NO_ACCELERATOR)
