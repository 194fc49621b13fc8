"""``hookgrad.multiprocessing``: Python's ``multiprocessing``, with tensors that travel
between processes through shared memory (torch's ``torch.multiprocessing``).

Everything of ``multiprocessing`` is here (``Process``, ``Queue``, ``Pool``,
``get_context``, ``set_start_method`` ...). Importing it registers how tensors pickle for
another process (``reductions``): a tensor moved into shared memory with
``share_memory_()`` (``Module``'s parameters, for Hogwild training) arrives as the same
memory, so writes in one process are seen by all; other tensors arrive as copies. Also
``spawn``/``start_processes`` to run a function in several processes, and torch's
sharing-strategy settings (hookgrad shares by file descriptor). Example::

    import hookgrad.multiprocessing as mp

    def train(rank, weight):
        weight.add_(1.0)                # seen by the parent

    weight = hookgrad.zeros(3).share_memory_()
    mp.spawn(train, args=(weight,), nprocs=2)
    weight                              # tensor([2., 2., 2.])
"""

import multiprocessing
import sys
from multiprocessing import *  # noqa: F403

from hookgrad.multiprocessing import reductions  # noqa: F401  (torch's submodule)
from hookgrad.multiprocessing.reductions import init_reductions
from hookgrad.multiprocessing.spawn import (  # noqa: F401  (torch's names, not in its __all__)
    ENV_VAR_PARALLEL_START,
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = [
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    *multiprocessing.__all__,
]

if sys.platform == "darwin" or sys.platform == "win32":
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how shared CPU tensors are sent: one of ``get_all_sharing_strategies()``.
    hookgrad keeps the setting and always sends the memory's file descriptor."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(
            f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}"
        )
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    """The strategy set by ``set_sharing_strategy`` (``"file_descriptor"`` on Linux)."""
    return _sharing_strategy


def get_all_sharing_strategies() -> set[str]:
    """The sharing strategies this system supports."""
    return _all_sharing_strategies


init_reductions()
