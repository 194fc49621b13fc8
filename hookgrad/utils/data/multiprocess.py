"""``hookgrad.utils.data.multiprocess``: a pass over a ``DataLoader`` with worker
processes, the main process's side: start the workers, keep ``prefetch_factor`` batches
per worker requested, hand batches back in order, and shut every worker down.

Task ``i`` (the ``i``-th batch of keys) goes to the next active worker in turn, so with an
iterable dataset (where every worker reads its own stream) batches interleave worker by
worker: 0, 1, ..., 0, 1, ... until a worker's stream ends and it drops out.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
from typing import Any

from hookgrad.utils.data import signal_handling
from hookgrad.utils.data.datapipes import loading as datapipe_loading
from hookgrad.utils.data.iterators import _BaseDataLoaderIter
from hookgrad.utils.data.worker import (
    STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    IterableDatasetStopIteration,
    ResumeIteration,
    worker_loop,
)

__all__: list[str] = []

# NOTE: a queue whose object becomes garbage stops its feeder thread. An iterator caught in
# a reference cycle becomes garbage together with its request queues, and its ``__del__``
# could then no longer tell its workers to exit: the queues are held here until shutdown.
_request_queues: dict[int, list[Any]] = {}


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """A pass whose batches are fetched by ``num_workers`` worker processes.

    Bookkeeping: ``_send_idx`` is the next task to send, ``_rcvd_idx`` the next to hand
    back; ``_task_info[i]`` is ``(worker,)`` while task ``i`` is out and
    ``(worker, data)`` once it came back early; ``_workers_status`` says which workers
    still take tasks.
    """

    _shutdown = True  # until there are workers to shut down

    def __init__(self, loader: Any) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        if self._prefetch_factor <= 0:
            raise AssertionError(
                "prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter"
            )
        self._in_order = loader.in_order
        self._owner_pid = os.getpid()
        context = loader.multiprocessing_context or multiprocessing
        self._worker_result_queue = context.Queue()
        self._data_queue = self._worker_result_queue
        self._worker_pids_set = False
        self._workers_done_event = context.Event()
        self._index_queues: list[Any] = []
        self._workers: list[Any] = []
        self._workers_status = [True] * self._num_workers
        self._shutdown = False
        _request_queues[id(self)] = self._index_queues
        # A DataPipe is seeded and sharded in each worker before ``worker_init_fn``.
        init_fn = datapipe_loading.worker_init_fn(
            self._dataset, loader.worker_init_fn, self._shared_seed
        )
        for worker_id in range(self._num_workers):
            self._start_worker(context, init_fn, worker_id)
        signal_handling.set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        signal_handling.set_sigchld_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _start_worker(self, context: Any, worker_init_fn: Any, worker_id: int) -> None:
        index_queue = context.Queue()
        # NOTE: requests left in a queue at shutdown must not keep the main process waiting.
        index_queue.cancel_join_thread()
        worker = context.Process(
            target=worker_loop,
            args=(
                self._dataset_kind,
                self._dataset,
                index_queue,
                self._worker_result_queue,
                self._workers_done_event,
                self._auto_collation,
                self._collate_fn,
                self._drop_last,
                self._base_seed,
                worker_init_fn,
                worker_id,
                self._num_workers,
            ),
        )
        worker.daemon = True
        worker.start()
        self._index_queues.append(index_queue)
        self._workers.append(worker)

    def _reset(self, loader: Any, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info: dict[int, tuple[Any, ...]] = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            self._resume_workers()
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _resume_workers(self) -> None:
        """Start a new epoch on persistent workers; what they still send of the last one
        (an epoch left unfinished) is dropped."""
        for index_queue in self._index_queues:
            index_queue.put(ResumeIteration())
        waiting = self._num_workers
        while waiting > 0:
            task, _ = self._get_data()
            if isinstance(task, ResumeIteration):
                waiting -= 1

    # -- receiving -----------------------------------------------------------------------
    def _try_get_data(self, timeout: float = STATUS_CHECK_INTERVAL) -> tuple[bool, Any]:
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as error:
            failed = []
            for worker_id, worker in enumerate(self._workers):
                if self._workers_status[worker_id] and not worker.is_alive():
                    failed.append(worker)
                    self._mark_worker_as_unavailable(worker_id)
            if failed:
                pids = ", ".join(str(worker.pid) for worker in failed)
                raise RuntimeError(
                    f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                ) from error
            if isinstance(error, queue.Empty):
                return False, None
            raise

    def _get_data(self) -> Any:
        if self._timeout > 0:
            received, data = self._try_get_data(self._timeout)
            if not received:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            received, data = self._try_get_data()
            if received:
                return data

    def _next_data(self) -> Any:
        while True:
            # Skip tasks whose worker has stopped before answering (an ended stream).
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            task, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if task != self._rcvd_idx and self._in_order:
                self._task_info[task] += (data,)
                continue
            worker_id = self._task_info.pop(task)[0]
            if task == self._rcvd_idx:
                self._rcvd_idx += 1
            return self._process_data(data, worker_id)

    def _process_data(self, data: Any, worker_id: int) -> Any:
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    # -- sending -------------------------------------------------------------------------
    def _next_worker(self) -> int | None:
        """The worker that takes the next task: the next active one in turn (out of order,
        one with fewer than its share of the outstanding tasks); None if none can."""
        max_tasks = self._prefetch_factor * self._num_workers
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if not self._workers_status[worker_id]:
                continue
            if self._in_order:
                return worker_id
            if self._workers_num_tasks[worker_id] < max_tasks // sum(self._workers_status):
                return worker_id
        return None

    def _try_put_index(self) -> None:
        try:
            keys = self._next_index()
        except StopIteration:
            return
        worker_id = self._next_worker()
        if worker_id is None:
            return
        self._index_queues[worker_id].put((self._send_idx, keys))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    # -- shutting down -------------------------------------------------------------------
    def _mark_worker_as_unavailable(self, worker_id: int) -> None:
        """Tell worker ``worker_id`` to exit and send it no more tasks."""
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        """Stop every worker: ask, wait a while, then terminate those still running."""
        if signal_handling.python_exiting() or self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id)
            for worker in self._workers:
                worker.join(timeout=STATUS_CHECK_INTERVAL)
            for index_queue in self._index_queues:
                index_queue.cancel_join_thread()
                index_queue.close()
        finally:
            if self._worker_pids_set:
                signal_handling.remove_worker_pids(id(self))
                self._worker_pids_set = False
            for worker in self._workers:
                if worker.is_alive():
                    worker.terminate()
                    worker.join(timeout=STATUS_CHECK_INTERVAL)
            _request_queues.pop(id(self), None)

    def __del__(self) -> None:
        self._shutdown_workers()
