"""``hookgrad.utils.data.signal_handling``: noticing at once, in the main process, that a
worker died (killed by a signal, or exited with an error code) instead of waiting for a
batch that will never come.

Each iterator with workers registers their pids; a ``SIGCHLD`` handler (installed once,
from the main thread, chaining any earlier handler) looks at them without reaping them and
raises in the main thread if one died. POSIX only; elsewhere the main process still finds
dead workers by polling.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
from typing import Any

__all__ = [
    "error_if_any_worker_fails",
    "python_exiting",
    "remove_worker_pids",
    "set_sigchld_handler",
    "set_worker_pids",
]

_worker_pids: dict[int, tuple[int, ...]] = {}
_handler_set = False
_exiting = False


def _on_exit() -> None:
    global _exiting
    _exiting = True
    _worker_pids.clear()


# NOTE: at exit, multiprocessing's own atexit function terminates the (daemonic) workers;
# an iterator collected after that must not talk to them any more.
atexit.register(_on_exit)


def python_exiting() -> bool:
    """Whether the interpreter has started to exit (its atexit functions run)."""
    return _exiting


def set_worker_pids(key: int, pids: tuple[int, ...]) -> None:
    """Watch ``pids``, the workers of the iterator ``key``."""
    _worker_pids[key] = pids


def remove_worker_pids(key: int) -> None:
    """Stop watching the workers of the iterator ``key`` (it is shutting them down)."""
    _worker_pids.pop(key, None)


def _failure(pid: int) -> str | None:
    """Why the watched worker ``pid`` ended, if it ended badly (it stays unreaped)."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return None
    if info is None:
        return None
    if info.si_code == os.CLD_EXITED and info.si_status != 0:
        return (
            f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
            f"{info.si_status}. Details are lost due to multiprocessing. Rerunning with "
            "num_workers=0 may give better error trace."
        )
    # NOTE: SIGTERM is how the main process stops its workers (at shutdown, and through
    # multiprocessing at exit): not a failure. A worker that another process terminates is
    # still found, by the status poll of the main process.
    if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED) and info.si_status != signal.SIGTERM:
        name = signal.strsignal(info.si_status)
        return f"DataLoader worker (pid {pid}) is killed by signal: {name}. "
    return None


def error_if_any_worker_fails() -> None:
    """Raise ``RuntimeError`` if a watched worker was killed or exited with an error."""
    for pids in list(_worker_pids.values()):
        for pid in pids:
            message = _failure(pid)
            if message is not None:
                raise RuntimeError(message)


def set_sigchld_handler() -> None:
    """Install the ``SIGCHLD`` handler (once; only the main thread can)."""
    global _handler_set
    if _handler_set or not hasattr(signal, "SIGCHLD"):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)

    def handler(signum: int, frame: Any) -> None:
        error_if_any_worker_fails()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _handler_set = True
