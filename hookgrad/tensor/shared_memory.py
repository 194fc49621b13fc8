"""Memory shared between processes: where ``Tensor.share_memory_()`` moves a storage.

A shared storage is an anonymous in-memory file (Linux's ``memfd``) mapped into the
process. A child made by ``fork`` inherits the mapping; another process (``spawn``, a
``Queue``) receives the file's descriptor from ``hookgrad.multiprocessing`` and maps the
same memory, so writes in one process are seen by all (torch's ``file_descriptor``
sharing strategy). The mapping lives as long as an array on it; the descriptor is kept
open until then, to be sent on.
"""

from __future__ import annotations

import mmap
import os
import weakref

import numpy as np

# id(mapping) -> (weak reference to the mapping, its file descriptor).
_FILES: dict[int, tuple[weakref.ref, int]] = {}


def _register(mapping: mmap.mmap, fd: int) -> None:
    key = id(mapping)

    def forget(ref: weakref.ref) -> None:
        entry = _FILES.get(key)
        if entry is not None and entry[0] is ref:
            del _FILES[key]
            os.close(entry[1])

    _FILES[key] = (weakref.ref(mapping, forget), fd)


def _map(fd: int, nbytes: int) -> np.ndarray:
    """``nbytes`` bytes of the file ``fd`` as a uint8 array (the storage's owner)."""
    mapping = mmap.mmap(fd, max(nbytes, 1))
    _register(mapping, fd)
    return np.frombuffer(mapping, np.uint8, count=nbytes)


def allocate(nbytes: int) -> np.ndarray:
    """New shared memory of ``nbytes`` zero bytes, as a uint8 array owning it."""
    if not hasattr(os, "memfd_create"):
        raise RuntimeError("sharing tensors between processes needs Linux's memfd_create")
    fd = os.memfd_create("hookgrad-storage", os.MFD_CLOEXEC)
    os.ftruncate(fd, max(nbytes, 1))
    return _map(fd, nbytes)


def attach(fd: int, nbytes: int) -> np.ndarray:
    """The shared memory of the file ``fd`` (received from another process, now owned
    here), as a uint8 array owning it."""
    return _map(fd, nbytes)


def descriptor(root: np.ndarray) -> int | None:
    """The file descriptor of the shared memory ``root`` (a storage's owning array), or
    None when it is not shared."""
    buffer = root.base
    if isinstance(buffer, memoryview):
        buffer = buffer.obj
    if not isinstance(buffer, mmap.mmap):
        return None
    entry = _FILES.get(id(buffer))
    if entry is None or entry[0]() is not buffer:
        return None
    return entry[1]
