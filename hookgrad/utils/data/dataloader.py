"""``hookgrad.utils.data.dataloader``: ``DataLoader``, an iterable of batches over a
dataset: it checks torch's arguments, picks the default sampler and collate function, and
starts a pass (in the main process, or with worker processes) at each ``iter()``.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import warnings
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from hookgrad.tensor.random import Generator
from hookgrad.utils.data.collate import default_collate, default_convert
from hookgrad.utils.data.datapipes import loading as datapipe_loading
from hookgrad.utils.data.dataset import Dataset, IterableDataset
from hookgrad.utils.data.fetch import DatasetKind
from hookgrad.utils.data.iterators import _BaseDataLoaderIter, _SingleProcessDataLoaderIter
from hookgrad.utils.data.multiprocess import _MultiProcessingDataLoaderIter
from hookgrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
)
from hookgrad.utils.data.worker import get_worker_info

# as torch's module: the loader, and the collation and worker helpers it uses
__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

T_co = TypeVar("T_co", covariant=True)

# Set once: changing them would make the loader's samplers disagree with each other.
_FROZEN_ATTRIBUTES = (
    "batch_size",
    "batch_sampler",
    "sampler",
    "drop_last",
    "dataset",
    "persistent_workers",
)


class _InfiniteConstantSampler(Sampler[None]):
    """``None`` forever: the keys of an iterable dataset, which needs none."""

    def __iter__(self) -> Any:
        while True:
            yield None


class DataLoader(Generic[T_co]):
    """Batches of ``dataset``, loaded in the main process or in ``num_workers`` worker
    processes, with torch's arguments and semantics.

    * ``batch_size`` (default 1; None turns batching off), ``shuffle`` (a ``RandomSampler``
      drawing from ``generator``), ``sampler`` or ``batch_sampler`` (your own order),
      ``drop_last`` (drop a last, short batch);
    * ``collate_fn`` makes a batch of a list of samples (``default_collate``; without
      batching ``default_convert`` of each sample);
    * ``num_workers`` processes, each seeded with ``base_seed + worker_id`` (Python's
      ``random`` and hookgrad's generator; NumPy's global generator as torch seeds it),
      where ``base_seed`` is drawn from ``generator`` at each ``iter()``;
      ``worker_init_fn(worker_id)`` runs in each after seeding; ``prefetch_factor``
      batches per worker are requested ahead; ``persistent_workers`` keeps them between
      epochs; ``timeout`` bounds the wait for a batch; ``multiprocessing_context`` picks
      the start method; ``in_order=False`` hands batches back as they arrive;
    * ``pin_memory`` is accepted (hookgrad has only the CPU: nothing is pinned).

    An error in a worker is raised in the main process with the worker's traceback; a
    worker that dies is reported at once; no worker outlives the loader's pass, the
    program's exit or Ctrl-C.

    Example::

        ds = TensorDataset(hookgrad.arange(10.0).view(5, 2), hookgrad.arange(5))
        for x, y in DataLoader(ds, batch_size=2, shuffle=True, num_workers=2):
            print(x.shape, y)      # torch.Size([2, 2]) tensor([3, 0]) ...
    """

    dataset: Dataset[T_co]
    batch_size: int | None
    num_workers: int
    pin_memory: bool
    drop_last: bool
    timeout: float
    sampler: Sampler[Any] | Iterable[Any]
    prefetch_factor: int | None
    _iterator: _BaseDataLoaderIter | None
    _initialized = False

    def __init__(
        self,
        dataset: Dataset[T_co],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler[Any] | Iterable[Any] | None = None,
        batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        prefetch_factor = _check_worker_options(
            num_workers, timeout, prefetch_factor, persistent_workers
        )
        # A DataPipe is kept in torch's serialization wrapper (datapipes.loading).
        self.dataset = datapipe_loading.wrap(dataset)
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = DatasetKind.Iterable
            shuffle = datapipe_loading.apply_shuffle(dataset, shuffle)
            _check_iterable_options(shuffle, sampler, batch_sampler)
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = DatasetKind.Map
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )
        if sampler is None:
            sampler = self._default_sampler(dataset, shuffle, generator)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True
        # len(loader) of an iterable dataset, once asked: a pass warns if it yields more.
        self._IterableDataset_len_called: int | None = None
        self._iterator = None
        self.check_worker_number_rationality()

    def _default_sampler(self, dataset: Any, shuffle: bool | None, generator: Any) -> Sampler[Any]:
        if self._dataset_kind == DatasetKind.Iterable:
            return _InfiniteConstantSampler()
        if shuffle:
            return RandomSampler(dataset, generator=generator)
        return SequentialSampler(dataset)

    @property
    def multiprocessing_context(self) -> Any:
        """The ``multiprocessing`` context that starts workers (None: the default one)."""
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context: Any) -> None:
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={self.num_workers}"
                )
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method "
                        f"in {methods!r}, but got multiprocessing_context={context!r}"
                    )
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a "
                    "string specifying the start method, but got "
                    f"multiprocessing_context={context}"
                )
        self._multiprocessing_context = context

    def __setattr__(self, name: str, value: Any) -> None:
        if self._initialized and name in _FROZEN_ATTRIBUTES:
            raise ValueError(
                f"{name} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(name, value)

    def _get_iterator(self) -> _BaseDataLoaderIter:
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self) -> _BaseDataLoaderIter:
        """A new pass over the data; with ``persistent_workers`` the same workers (and
        iterator object) start the next epoch."""
        if not (self.persistent_workers and self.num_workers > 0):
            return self._get_iterator()
        if self._iterator is None:
            self._iterator = self._get_iterator()
        else:
            self._iterator._reset(self)
        return self._iterator

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        """The number of batches: the batch sampler's length, or for an iterable dataset
        an estimate from ``len(dataset)`` and ``batch_size``."""
        if self._dataset_kind == DatasetKind.Map:
            return len(self._index_sampler)
        length = self._IterableDataset_len_called = len(self.dataset)  # type: ignore[arg-type]
        if self.batch_size is None:
            return length
        if self.drop_last:
            return length // self.batch_size
        return math.ceil(length / self.batch_size)

    def check_worker_number_rationality(self) -> None:
        """Warn when ``num_workers`` exceeds the CPUs this process may run on."""
        if not self.num_workers:
            return
        if hasattr(os, "sched_getaffinity"):
            suggested: int | None = len(os.sched_getaffinity(0))
            cpuset_note = ""
        else:
            suggested = os.cpu_count()
            cpuset_note = " (`cpuset` is not taken into account)"
        if suggested is not None and self.num_workers <= suggested:
            return
        if suggested is None:
            advice = (
                "DataLoader is not able to compute a suggested max number of worker in "
                "current system."
            )
        else:
            advice = (
                f"Our suggested max number of worker in current system is {suggested}"
                f"{cpuset_note}, which is smaller than what this DataLoader is going to create."
            )
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. "
            f"{advice} Please be aware that excessive worker creation might get DataLoader "
            "running slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.",
            stacklevel=2,
        )


def _check_worker_options(
    num_workers: int, timeout: float, prefetch_factor: int | None, persistent_workers: bool
) -> int | None:
    """Torch's checks of the worker options; returns ``prefetch_factor`` (2 by default
    with workers)."""
    if num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable "
            "multiprocessing."
        )
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing.let "
            "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_iterable_options(shuffle: Any, sampler: Any, batch_sampler: Any) -> None:
    """An iterable dataset decides its own order: no shuffle, sampler or batch sampler."""
    if shuffle not in {False, None}:
        raise ValueError(
            "DataLoader with IterableDataset: expected unspecified shuffle option, but got "
            f"shuffle={shuffle}"
        )
    if sampler is not None:
        raise ValueError(
            "DataLoader with IterableDataset: expected unspecified sampler option, but got "
            f"sampler={sampler}"
        )
    if batch_sampler is not None:
        raise ValueError(
            "DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
            f"got batch_sampler={batch_sampler}"
        )
