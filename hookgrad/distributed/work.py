"""``Work``: the handle of a collective started with ``async_op=True``, and the future it
completes.

MPI moves a non-blocking operation forward only while some MPI call runs in this process
(there is no progress thread), so a handle is finished by whoever asks about it:
``wait()``, ``is_completed()``, or ``wait()`` on its future or on any future chained
from it with ``then``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from hookgrad.distributed import transport
from hookgrad.distributed.errors import DistBackendError
from hookgrad.futures import Future, _callback_error

__all__ = ["Work"]


class Work:
    """A started collective or point-to-point operation. Example::

    work = dist.all_reduce(t, async_op=True)
    ...                    # compute something else meanwhile
    work.wait()            # t now holds the sum
    """

    def __init__(
        self,
        requests: list[Any],
        finish: Callable[[list[Any]], None] | None = None,
        result: list[Any] | None = None,
        source: Callable[[list[Any]], int] | None = None,
    ) -> None:
        self._requests = requests
        mpi = transport.loaded()
        self._statuses = [mpi.Status() for _ in requests] if requests else []
        self._finish = finish
        self._result = result if result is not None else []
        self._source = source
        self._done = False
        self._error: BaseException | None = None
        self._future: WorkFuture | None = None
        if not requests:
            self._complete()

    def __repr__(self) -> str:
        state = "completed" if self._done else "pending"
        return f"<hookgrad.distributed.Work ({state}) at {id(self):#x}>"

    def is_completed(self) -> bool:
        """Whether the operation has finished (asks MPI without blocking)."""
        if not self._done and transport.load().Request.Testall(self._requests, self._statuses):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        """Whether it finished without an error."""
        return self.is_completed() and self._error is None

    def exception(self) -> BaseException | None:
        """The error it finished with, or None."""
        return self._error

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until the operation has finished; return True. With ``timeout`` (a
        ``timedelta``), raise a RuntimeError if it has not finished by then."""
        if timeout is None:
            self._drive()
        elif not self._done:
            self._wait_until(time.monotonic() + timeout.total_seconds())
        if self._error is not None:
            raise self._error
        return True

    def _drive(self) -> None:
        """Block until finished, keeping any error for the caller.

        MPI's own wait spins on the core; this one asks MPI in a loop that yields the
        core between questions, so that a process waiting for a slower rank leaves the
        CPU to the others (which matters when processes share cores).
        """
        if self._done:
            return
        test = transport.load().Request.Testall
        while not test(self._requests, self._statuses):
            os.sched_yield()
        self._complete()

    def _wait_until(self, deadline: float) -> None:
        while not self.is_completed():
            if time.monotonic() > deadline:
                raise DistBackendError(
                    "hookgrad.distributed: the operation did not finish in time (Work.wait)"
                )
            time.sleep(1e-4)

    def synchronize(self) -> None:
        """The same as ``wait()`` (there is no device stream to synchronize with)."""
        self.wait()

    def result(self) -> list[Any]:
        """The output tensors, once finished (``wait()`` first)."""
        self.wait()
        return self._result

    def source_rank(self) -> int:
        """The rank a ``recv``/``irecv`` from any source received from."""
        if self._source is None:
            raise RuntimeError(
                "It is only possible to obtain the source rank of a receive operation"
            )
        self.wait()
        return self._source(self._statuses)

    def get_future(self) -> WorkFuture:
        """A ``Future`` completed with the output tensors (a list) when the operation
        finishes. Example: ``dist.all_reduce(t, async_op=True).get_future().then(f)``."""
        if self._future is None:
            self._future = WorkFuture(self)
            if self._done:
                self._settle(self._future)
        return self._future

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            try:
                self._finish(self._statuses)
            except Exception as error:  # noqa: BLE001 (kept for wait() and the future)
                self._error = error
        if self._future is not None:
            self._settle(self._future)

    def _settle(self, future: Future[Any]) -> None:
        if future.done():
            return
        if self._error is not None:
            future.set_exception(self._error)
        else:
            future.set_result(self._result)


class WorkFuture(Future[Any]):
    """The future of a ``Work``: waiting on it (or on a future chained from it with
    ``then``) finishes the work first, since MPI progresses only when asked."""

    def __init__(self, work: Work) -> None:
        super().__init__()
        self._work = work

    def wait(self) -> Any:
        """Finish the work, then return this future's value (or raise its error)."""
        self._work._drive()
        return super().wait()

    def done(self) -> bool:
        """Whether the value is there (asks MPI without blocking)."""
        self._work.is_completed()
        return super().done()

    def then(self, callback: Callable[[Future[Any]], Any]) -> WorkFuture:
        """A future of ``callback(self)``, waitable like this one. Example::

        fut.then(lambda f: f.value()[0] / 2)
        """
        chained = WorkFuture(self._work)

        def run(future: Future[Any]) -> None:
            try:
                result = callback(future)
            except Exception as error:  # noqa: BLE001 (handed to the chained future)
                chained.set_exception(RuntimeError(_callback_error(error)))
            else:
                chained.set_result(result)

        self.add_done_callback(run)
        return chained
