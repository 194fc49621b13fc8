"""``hookgrad.futures``: ``Future``, a value that becomes available later, with torch's
API (``torch.futures``): ``set_result`` / ``set_exception`` complete it once, ``wait``
blocks until then, ``then`` chains a callback as a new ``Future``, and ``collect_all`` /
``wait_all`` join several. Futures may be completed and waited on from different
threads. Example::

    fut = hookgrad.futures.Future()
    doubled = fut.then(lambda f: f.wait() * 2)
    fut.set_result(21)
    doubled.wait()        # 42
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")


class Future(Generic[T]):
    """A placeholder for a result that another piece of code will provide.

    ``devices``: accepted for torch's signature; hookgrad's tensors are on the CPU only,
    so it must name CPU devices or be None.
    """

    def __init__(self, *, devices: list[Any] | None = None) -> None:
        for device in devices or ():
            if str(device) != "cpu":
                raise ValueError(f"Future: hookgrad has no device {device!r} (only cpu)")
        self._condition = threading.Condition()
        self._completed = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], None]] = []

    def __repr__(self) -> str:
        return f"<hookgrad.futures.Future object at {id(self):#x}>"

    def done(self) -> bool:
        """Whether the future has a result or an exception (``wait`` would not block)."""
        return self._completed

    def wait(self) -> T:
        """Block until the future is completed; return its result, or raise its
        exception. Example: ``fut.wait()``."""
        with self._condition:
            while not self._completed:
                self._condition.wait()
        if self._error is not None:
            raise self._error
        return self._value

    def value(self) -> T:
        """The result of a completed future (its exception is raised); unlike ``wait``
        it does not block: calling it before completion is an error."""
        if not self._completed:
            raise RuntimeError("Future.value() called before the future was completed")
        if self._error is not None:
            raise self._error
        return self._value

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A new future completed with ``callback(self)`` once this one is completed (at
        once if it is). If the callback raises, the new future holds torch's
        ``RuntimeError`` naming that error. Example::

            fut.then(lambda f: f.wait() + 1)
        """
        chained: Future[S] = Future()

        def run(future: Future[T]) -> None:
            try:
                result = callback(future)
            except Exception as error:  # noqa: BLE001 (handed to the chained future)
                chained.set_exception(RuntimeError(_callback_error(error)))
            else:
                chained.set_result(result)

        self.add_done_callback(run)
        return chained

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        """Run ``callback(self)`` once the future is completed (at once if it is). Its
        return value is ignored; an exception it raises is reported on stderr and
        dropped, as torch does. Use ``then`` to chain a result."""
        with self._condition:
            if not self._completed:
                self._callbacks.append(callback)
                return
        _run_callback(callback, self)

    def set_result(self, result: T) -> None:
        """Complete the future with ``result``: waiters wake up and callbacks run (in
        the order they were added). A future can be completed only once."""
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        """Complete the future with an exception: ``wait`` and ``value`` raise it.

        Example: ``fut.set_exception(ValueError("no result"))``.
        """
        if not isinstance(result, BaseException):
            raise TypeError(f"{result!r} is of type {type(result).__name__}, not an Exception.")
        self._complete(None, result)

    def _complete(self, value: Any, error: BaseException | None) -> None:
        with self._condition:
            if self._completed:
                raise RuntimeError(
                    "Attempting to mark a completed Future as complete again. Note that a "
                    "Future can only be marked completed once."
                )
            self._value = value
            self._error = error
            self._completed = True
            callbacks, self._callbacks = self._callbacks, []
            self._condition.notify_all()
        for callback in callbacks:
            _run_callback(callback, self)


def _callback_error(error: BaseException) -> str:
    """torch's message for an exception raised by a callback, with its traceback."""
    frames = traceback.extract_tb(error.__traceback__)
    where = "".join(f"  {f.filename}({f.lineno}): {f.name}\n" for f in reversed(frames))
    return (
        "Got the following error when running the callback: "
        f"{type(error).__name__}: {error}\n\nAt:\n{where}"
    )


def _run_callback(callback: Callable[[Future[Any]], None], future: Future[Any]) -> None:
    try:
        callback(future)
    except Exception as error:  # noqa: BLE001 (torch logs it and goes on)
        print(_callback_error(error), file=sys.stderr)


def collect_all(futures: list[Future[Any]]) -> Future[list[Future[Any]]]:
    """A future completed, once all ``futures`` are, with the list of them; if one of
    them failed, with the first failure's exception (in list order). Example::

        done = hookgrad.futures.collect_all([fut_a, fut_b])
        [f.wait() for f in done.wait()]
    """
    combined: Future[list[Future[Any]]] = Future()
    futures = list(futures)
    remaining = [len(futures)]
    lock = threading.Lock()

    def finish() -> None:
        for future in futures:
            if future._error is not None:
                combined.set_exception(future._error)
                return
        combined.set_result(futures)

    def one_done(_: Future[Any]) -> None:
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            finish()

    if not futures:
        combined.set_result([])
    for future in futures:
        future.add_done_callback(one_done)
    return combined


def wait_all(futures: list[Future[Any]]) -> list[Any]:
    """Wait for all ``futures`` and return their results, in order; the first failure
    (in list order) is raised. Example: ``hookgrad.futures.wait_all([fut_a, fut_b])``."""
    return [future.wait() for future in collect_all(futures).wait()]
