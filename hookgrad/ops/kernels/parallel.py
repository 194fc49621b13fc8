"""Row blocks of a long elementwise kernel, run on the intra-op threads.

NumPy runs one ufunc on one core, and a kernel written as dozens of ufuncs over a long
array reads and writes memory on every pass. ``for_row_blocks`` cuts the rows into
blocks small enough to stay in the core's cache (``grain`` rows) and, when there are
several blocks and ``hookgrad.get_num_threads()`` is above one, hands them to a pool of
that many threads (NumPy releases the interpreter lock inside its loops). Each block
writes its own rows of the output, so the result is the same whatever the split.

Example::

    out = np.empty_like(x)
    for_row_blocks(len(x), 1024, lambda rows: np.exp(x[rows], out=out[rows]))
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from hookgrad.ops.kernels.cpu import num_threads

__all__ = ["for_row_blocks"]

_lock = threading.Lock()
_pool: dict[int, ThreadPoolExecutor] = {}


def _executor(threads: int) -> ThreadPoolExecutor:
    """The pool of ``threads`` threads (one per thread count ever set: a pool another
    thread may be using is never shut down under it)."""
    with _lock:
        pool = _pool.get(threads)
        if pool is None:
            pool = _pool[threads] = ThreadPoolExecutor(threads, "hookgrad-intra-op")
        return pool


def _forget_pool() -> None:
    """A forked child has none of its parent's threads: it starts its own pool."""
    _pool.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def for_row_blocks(rows: int, grain: int, kernel: Callable[[slice], object]) -> None:
    """Call ``kernel(slice)`` for consecutive blocks of at most ``grain`` of ``rows`` rows,
    on the intra-op threads when there is more than one block."""
    blocks = [slice(start, min(start + grain, rows)) for start in range(0, rows, grain)]
    threads = num_threads()
    if (
        threads <= 1
        or len(blocks) <= 1
        or threading.current_thread().name.startswith("hookgrad-intra-op")
    ):
        for block in blocks:
            kernel(block)
        return
    for _ in _executor(threads).map(kernel, blocks):
        pass
