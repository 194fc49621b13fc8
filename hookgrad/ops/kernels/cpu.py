"""What torch's CPU kernels see of this machine: the vector width they were compiled for
and the number of intra-op threads.

torch builds each kernel several times (``DEFAULT``, ``AVX2``, ``AVX512``) and runs the
best one the CPU supports, unless the environment variable ``ATEN_CPU_CAPABILITY`` asks
for a lower one. The width decides which elements a vectorised loop leaves to its scalar
tail and how a sum is split into lanes; the thread count decides how a large reduction is
split between threads. ``capability()`` and ``num_threads()`` give both, as torch would
choose them here; ``set_num_threads`` is ``hookgrad.set_num_threads``.

Example::

    capability()        # 'AVX512' on a CPU with AVX-512 (F, BW, DQ, VL), else 'AVX2' ...
    vector_bytes()      # 64, 32
"""

from __future__ import annotations

import functools
import os
import platform

import numpy as np

_ORDER = ("DEFAULT", "AVX2", "AVX512")


def _cpu_features() -> dict[str, bool]:
    core = getattr(np, "_core", None) or np.core  # NumPy 2 renamed np.core
    return dict(core._multiarray_umath.__cpu_features__)


@functools.cache
def _supported() -> str:
    """The best capability this CPU has, by torch's rules (x86-64 only)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "DEFAULT"
    features = _cpu_features()
    if all(features.get(f) for f in ("AVX512F", "AVX512BW", "AVX512DQ", "AVX512VL", "FMA3")):
        return "AVX512"
    if features.get("AVX2") and features.get("FMA3"):
        return "AVX2"
    return "DEFAULT"


@functools.cache
def vendor() -> str:
    """The CPU's vendor string (``"GenuineIntel"``, ``"AuthenticAMD"`` ...), ``""`` where
    the system does not say. Intel's MKL picks its kernels by it."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def avx512_supported() -> bool:
    """Whether this CPU has the AVX-512 subsets torch's and MKL's AVX-512 kernels need."""
    return _supported() == "AVX512"


def capability() -> str:
    """The kernels torch runs here: ``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"`` (any other
    CPU). ``ATEN_CPU_CAPABILITY`` (``default``, ``avx2``, ``avx512``) lowers it, as in
    torch."""
    best = _supported()
    asked = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if asked in _ORDER and _ORDER.index(asked) < _ORDER.index(best):
        return asked
    return best


def vector_bytes() -> int:
    """Bytes in one ``at::vec::Vectorized`` register: 64 for AVX-512, else 32 (the AVX2
    and the portable ``DEFAULT`` kernels both use 32-byte vectors)."""
    return 64 if capability() == "AVX512" else 32


def has_fma() -> bool:
    """Whether the vectorised kernels fuse multiply-adds (AVX2 and AVX-512 do)."""
    return capability() != "DEFAULT"


def _cpu_count() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_threads = {"intra-op": _cpu_count()}


def num_threads() -> int:
    """The intra-op thread count (``hookgrad.get_num_threads()``)."""
    return _threads["intra-op"]


def set_num_threads(count: int) -> None:
    """Set the intra-op thread count; checked by ``hookgrad.set_num_threads``."""
    _threads["intra-op"] = count
