"""``spawn`` and ``start_processes``: run a function in several processes and wait for
them, re-raising in the parent the first failure of a child (its traceback included), as
torch's ``torch.multiprocessing.spawn`` does."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"

log = logging.getLogger(__name__)

__all__ = [
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "SpawnContext",
    "spawn",
    "start_processes",
]


class ProcessException(Exception):
    """A child process failed: ``error_index`` (its index) and ``error_pid``."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child process exited with a non-zero code (``exit_code``) or by a signal
    (``signal_name``)."""

    __slots__ = ["exit_code"]

    def __init__(
        self,
        msg: str,
        error_index: int,
        error_pid: int,
        exit_code: int,
        signal_name: str | None = None,
    ) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self) -> Any:
        args = (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)
        return type(self), args


def _wrap(fn: Callable[..., Any], i: int, args: tuple[Any, ...], error_file: str) -> None:
    """A child's entry point: ``fn(i, *args)``; an exception's traceback goes to
    ``error_file`` for the parent, and the child exits with code 1."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent stopped us
    except Exception:
        with open(error_file, "wb") as handle:
            pickle.dump(traceback.format_exc(), handle)
        sys.exit(1)


class ProcessContext:
    """The processes ``start_processes`` started (``processes``), to ``join``."""

    def __init__(self, processes: list[Any], error_files: list[str]) -> None:
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self) -> list[int]:
        """The process ids, by index."""
        return [int(process.pid) for process in self.processes]

    def _join_all(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        for process in self.processes:
            process.join(max(0, end - time.monotonic()))

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait (up to ``timeout`` seconds) for processes to exit. Returns True once all
        have exited successfully, False while some still run. When one fails, the others
        are stopped (SIGTERM after ``grace_period``, then SIGKILL) and the failure is
        raised: ``ProcessRaisedException`` with the child's traceback, or
        ``ProcessExitedException`` with its exit code or signal."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(error_index)

    def _stop_others(self, grace_period: float | None) -> None:
        if grace_period is not None:
            self._join_all(grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", process.pid)
                process.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning(
                    "Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL",
                    process.pid,
                )
                process.kill()
            process.join()

    def _failure(self, index: int) -> ProcessException:
        """The exception for the failed process ``index``."""
        process = self.processes[index]
        if not os.access(self.error_files[index], os.R_OK):
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                return ProcessExitedException(
                    f"process {index:d} terminated with signal {name}",
                    error_index=index,
                    error_pid=process.pid,
                    exit_code=code,
                    signal_name=name,
                )
            return ProcessExitedException(
                f"process {index:d} terminated with exit code {code:d}",
                error_index=index,
                error_pid=process.pid,
                exit_code=code,
            )
        with open(self.error_files[index], "rb") as handle:
            original = pickle.load(handle)
        message = f"\n\n-- Process {index:d} terminated with the following error:\n" + original
        return ProcessRaisedException(message, index, process.pid)


class SpawnContext(ProcessContext):
    """The old name of ``ProcessContext`` (torch warns)."""

    def __init__(self, processes: list[Any], error_files: list[str]) -> None:
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """Start ``nprocs`` processes (``start_method``: ``"spawn"``, ``"fork"``,
    ``"forkserver"``) each running ``fn(i, *args)`` for its index ``i``. With ``join``
    wait for all of them (re-raising a failure, see ``ProcessContext.join``) and return
    None; else return the ``ProcessContext``. Example::

        def work(rank, shared):
            shared[rank] = rank + 1

        x = hookgrad.zeros(2).share_memory_()
        hookgrad.multiprocessing.start_processes(work, (x,), nprocs=2)
        x          # tensor([1., 2.])
    """
    context = multiprocessing.get_context(start_method)
    error_files, processes = [], []
    for i in range(nprocs):
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115
            prefix="pytorch-errorfile-", suffix=".pickle", delete=False
        )
        handle.close()
        os.unlink(handle.name)
        process = context.Process(target=_wrap, args=(fn, i, args, handle.name), daemon=daemon)
        process.start()
        error_files.append(handle.name)
        processes.append(process)
    started = ProcessContext(processes, error_files)
    if not join:
        return started
    while not started.join():
        pass
    return None


def spawn(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """``start_processes`` with the ``spawn`` start method (another ``start_method``
    gets torch's FutureWarning and is ignored). ``fn`` must be defined at the top level
    of a module, so the children can import it. Example::

        hookgrad.multiprocessing.spawn(train, args=(model,), nprocs=4)
    """
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
