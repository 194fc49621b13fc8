"""``hookgrad.utils.data.worker``: what runs inside a ``DataLoader`` worker process: its
seeding, ``get_worker_info``, the loop that answers batch requests, and
``ExceptionWrapper``, which carries an error and its traceback back to the main process.

The loop speaks a small protocol over two queues. The main process sends
``(task index, batch of keys)``, a ``ResumeIteration`` (start the next epoch of a
persistent worker; acknowledged at once) or ``None`` (exit). The worker answers
``(task index, batch)``, ``(task index, ExceptionWrapper)`` or, when an iterable dataset
has ended, ``(task index, IterableDatasetStopIteration)``.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from hookgrad.ops.kernels.cpu import set_num_threads
from hookgrad.tensor.random import manual_seed
from hookgrad.utils.data.fetch import DatasetKind

__all__ = ["ExceptionWrapper", "WorkerInfo", "get_worker_info", "worker_loop"]

# Seconds between the checks that the other side is still alive (a worker checks its
# parent, the main process its workers) while waiting on a queue.
STATUS_CHECK_INTERVAL = 5.0

_MASK32 = 0xFFFFFFFF


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: its ``id`` (0 to
    ``num_workers - 1``), ``num_workers``, the ``seed`` its generators were seeded with
    (``base_seed + id``) and its own copy of the ``dataset``."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The ``WorkerInfo`` of the current ``DataLoader`` worker process; None in the main
    process. Use it in an ``IterableDataset``'s ``__iter__`` or in ``worker_init_fn`` to
    give each worker its share of the data.

    Example::

        def worker_init_fn(worker_id):
            info = get_worker_info()
            info.dataset.shard = (info.id, info.num_workers)
    """
    return _worker_info


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """A worker's answer once its copy of an iterable dataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Asks a persistent worker to start a new epoch (a fresh fetcher)."""


class KeyErrorMessage(str):
    """A message whose ``repr`` is itself: ``KeyError`` prints its argument's ``repr``,
    which would show a traceback as one escaped line."""

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """The exception being handled (its type and formatted traceback) in a form that
    crosses process boundaries; ``reraise()`` raises it again, its message naming
    ``where`` it was caught and carrying the original traceback.

    Example::

        try:
            1 / 0
        except ZeroDivisionError:
            wrapped = ExceptionWrapper(where="in DataLoader worker process 0")
        wrapped.reraise()   # ZeroDivisionError: Caught ZeroDivisionError in DataLoader ...
    """

    def __init__(self, exc_info: Any = None, where: str = "in background") -> None:
        # NOTE: the traceback object itself is not kept: it would hold every frame (and
        # the worker's dataset) alive, and cannot be pickled.
        exc_type, exc_value, exc_traceback = exc_info or sys.exc_info()
        self.exc_type: Any = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc_value, exc_traceback))
        self.where = where

    def reraise(self) -> NoReturn:
        """Raise the wrapped exception's type with the original traceback in its message
        (a ``RuntimeError`` if that type cannot be built from one message)."""
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            message = KeyErrorMessage(message)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=message)
        try:
            exception = self.exc_type(message)
        except Exception:
            raise RuntimeError(message) from None
        try:
            raise exception
        finally:
            # NOTE: a local naming the exception its traceback holds is a reference cycle,
            # which would keep the failed loader (and its workers) alive until the next
            # garbage collection.
            del exception


class ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive (a worker whose
    parent died is adopted by another process)."""

    def __init__(self) -> None:
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self) -> bool:
        """False once the parent has gone."""
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


def numpy_seed_state(base_seed: int, worker_id: int) -> list[int]:
    """The four 32-bit words torch seeds a worker's global NumPy generator with: NumPy's
    ``SeedSequence`` of ``[worker_id, low word of base_seed, high word, 0]``."""
    entropy = [worker_id, base_seed & _MASK32, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4).tolist()


def seed_worker(base_seed: int, worker_id: int) -> int:
    """Seed a worker's generators as torch does: Python's ``random`` and hookgrad's
    default generator with ``base_seed + worker_id`` (returned), NumPy's global generator
    from ``numpy_seed_state``."""
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(numpy_seed_state(base_seed, worker_id))
    return seed


def worker_loop(
    dataset_kind: int,
    dataset: Any,
    index_queue: Any,
    data_queue: Any,
    done_event: Any,
    auto_collation: bool,
    collate_fn: Any,
    drop_last: bool,
    base_seed: int,
    init_fn: Any,
    worker_id: int,
    num_workers: int,
) -> None:
    """A worker process's life: one intra-op thread (as torch's workers), seed, call
    ``init_fn(worker_id)``, then answer requests until told to stop or the main process is
    gone. Errors are sent back, never raised (an error in ``init_fn`` answers the first
    request); Ctrl-C ends the loop quietly."""
    global _worker_info
    where = f"in DataLoader worker process {worker_id}"
    set_num_threads(1)
    try:
        seed = seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_error = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = DatasetKind.create_fetcher(
                dataset_kind, dataset, auto_collation, collate_fn, drop_last
            )
        except Exception:
            init_error = ExceptionWrapper(where=where)
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                request = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(request, ResumeIteration):
                data_queue.put((request, None))
                iteration_end = False
                fetcher = DatasetKind.create_fetcher(
                    dataset_kind, dataset, auto_collation, collate_fn, drop_last
                )
                continue
            if request is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            task, keys = request
            if init_error is not None:
                answer: Any = init_error
                init_error = None
            else:
                try:
                    answer = fetcher.fetch(keys)  # type: ignore[union-attr]
                except StopIteration:
                    if dataset_kind != DatasetKind.Iterable:
                        answer = ExceptionWrapper(where=where)
                    else:
                        answer = IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                except Exception:
                    answer = ExceptionWrapper(where=where)
            data_queue.put((task, answer))
            del answer, keys, request  # a batch should not outlive its sending
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        # NOTE: the main process has stopped reading: waiting to flush the queue's buffer
        # into the pipe would never end.
        data_queue.cancel_join_thread()
        data_queue.close()
