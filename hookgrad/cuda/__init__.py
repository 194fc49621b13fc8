"""``hookgrad.cuda``: torch's CUDA API as a CPU-only build of torch answers it.

There is no GPU: ``is_available()`` is False and ``device_count()`` 0; seeding and the
memory counters are no-ops (0, ``[]``, empty stats), as torch defers them until CUDA
starts; whatever needs a device (``synchronize``, ``current_device``,
``get_device_name`` ...) raises ``AssertionError("Torch not compiled with CUDA enabled")``.
Where a CPU-only torch fails with an internal ``AttributeError`` instead
(``set_device``, ``reset_peak_memory_stats``), hookgrad raises that same
``AssertionError``. The legacy ``hookgrad.cuda.FloatTensor`` ... types exist and refuse to
make tensors. Example::

    device = "cuda" if hookgrad.cuda.is_available() else "cpu"     # "cpu"
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

from hookgrad.cuda import amp
from hookgrad.tensor.device import NO_CUDA
from hookgrad.tensor.device import device as _device
from hookgrad.tensor.legacy import CUDA_TYPES

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "Event",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "Stream",
    "StreamContext",
    "amp",
    "current_blas_handle",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_arch_list",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "get_rng_state_all",
    "get_sync_debug_mode",
    "init",
    "initial_seed",
    "ipc_collect",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "is_tf32_supported",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_max_memory_allocated",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_rng_state",
    "set_rng_state_all",
    "stream",
    "synchronize",
]

BFloat16Tensor = CUDA_TYPES["BFloat16Tensor"]
BoolTensor = CUDA_TYPES["BoolTensor"]
ByteTensor = CUDA_TYPES["ByteTensor"]
CharTensor = CUDA_TYPES["CharTensor"]
DoubleTensor = CUDA_TYPES["DoubleTensor"]
FloatTensor = CUDA_TYPES["FloatTensor"]
HalfTensor = CUDA_TYPES["HalfTensor"]
IntTensor = CUDA_TYPES["IntTensor"]
LongTensor = CUDA_TYPES["LongTensor"]
ShortTensor = CUDA_TYPES["ShortTensor"]


def _needs_cuda(name: str) -> Any:
    """The function ``name`` of torch's CUDA API that needs a GPU: it raises
    ``AssertionError("Torch not compiled with CUDA enabled")``."""

    def needs_cuda(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(NO_CUDA)

    needs_cuda.__name__ = needs_cuda.__qualname__ = name
    needs_cuda.__doc__ = f"Needs a GPU: raises ``AssertionError('{NO_CUDA}')``."
    return needs_cuda


# -- availability --------------------------------------------------------------------------
def is_available() -> bool:
    """False: hookgrad has no CUDA."""
    return False


def device_count() -> int:
    """0: there is no GPU."""
    return 0


def is_initialized() -> bool:
    """False: CUDA never starts."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: there is no GPU."""
    return False


def is_tf32_supported() -> bool:
    """False: there is no GPU."""
    return False


def get_arch_list() -> list[str]:
    """``[]``: no CUDA architectures are compiled in."""
    return []


init = _needs_cuda("init")
synchronize = _needs_cuda("synchronize")
current_device = _needs_cuda("current_device")
get_device_name = _needs_cuda("get_device_name")
get_device_properties = _needs_cuda("get_device_properties")
get_device_capability = _needs_cuda("get_device_capability")
mem_get_info = _needs_cuda("mem_get_info")
ipc_collect = _needs_cuda("ipc_collect")
current_stream = _needs_cuda("current_stream")
default_stream = _needs_cuda("default_stream")
current_blas_handle = _needs_cuda("current_blas_handle")
get_sync_debug_mode = _needs_cuda("get_sync_debug_mode")
reset_peak_memory_stats = _needs_cuda("reset_peak_memory_stats")
reset_max_memory_allocated = _needs_cuda("reset_max_memory_allocated")
reset_accumulated_memory_stats = _needs_cuda("reset_accumulated_memory_stats")


def _device_index(value: Any) -> int:
    """``value`` (an index, a CUDA device or its name) as a device index (-1: none)."""
    if isinstance(value, (str, _device)):
        named = _device(value)
        if named.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {named}")
        if named.index is None:
            raise ValueError(
                f"Expected a torch.device with a specified index or an integer, but got:{value}"
            )
        return named.index
    return int(value)


def set_device(device: Any) -> None:
    """Select a GPU: fails, there is none (``-1``, "no device", is accepted)."""
    if _device_index(device) >= 0:
        raise AssertionError(NO_CUDA)


class device_of:
    """Context manager selecting the GPU of a tensor: a CPU tensor selects none."""

    def __init__(self, obj: Any) -> None:
        self.idx = -1

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: Any) -> None:
        pass


class device:
    """Context manager selecting a GPU (``hookgrad.cuda.device(0)``): entering it fails,
    as there is none; ``device(-1)`` selects none."""

    def __init__(self, device: Any) -> None:
        self.idx = _device_index(device)

    def __enter__(self) -> None:
        if self.idx >= 0:
            raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc_info: Any) -> None:
        pass


class Stream:
    """A CUDA stream: cannot be made without CUDA."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    """A CUDA event: cannot be made without CUDA."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("torch.cuda.Event requires CUDA support")


class StreamContext:
    """Context manager selecting a stream; ``stream(None)`` selects none."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: Any) -> None:
        pass


def stream(stream: Stream | None) -> StreamContext:
    """``with hookgrad.cuda.stream(None):`` runs its block as it is."""
    return StreamContext(stream)


# -- random numbers: deferred until CUDA starts, that is never -----------------------------
def manual_seed(seed: int) -> None:
    """Seed the current GPU's generator: nothing to seed (``seed`` is checked to be an int)."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every GPU's generator: nothing to seed (``seed`` is checked to be an int)."""
    int(seed)


def seed() -> None:
    """Seed the current GPU's generator randomly: nothing to seed."""


def seed_all() -> None:
    """Seed every GPU's generator randomly: nothing to seed."""


initial_seed = _needs_cuda("initial_seed")
get_rng_state = _needs_cuda("get_rng_state")


def get_rng_state_all() -> list[Any]:
    """The generator states of every GPU: ``[]``."""
    return []


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Set the current GPU's generator state: nothing to set."""


def set_rng_state_all(new_states: Any) -> None:
    """Set every GPU's generator state: nothing to set."""


# -- memory: nothing is allocated ----------------------------------------------------------
def memory_allocated(device: Any = None) -> int:
    """0: no GPU memory is in use."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """0: no GPU memory was used."""
    return 0


def memory_reserved(device: Any = None) -> int:
    """0: no GPU memory is reserved."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """0: no GPU memory was reserved."""
    return 0


def memory_cached(device: Any = None) -> int:
    """Deprecated name of ``memory_reserved``: 0."""
    warnings.warn(
        "`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return 0


def max_memory_cached(device: Any = None) -> int:
    """Deprecated name of ``max_memory_reserved``: 0."""
    warnings.warn(
        "`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return 0


def memory_stats(device: Any = None) -> OrderedDict[str, Any]:
    """The allocator's statistics: empty."""
    return OrderedDict()


def empty_cache() -> None:
    """Release cached GPU memory: there is none."""
