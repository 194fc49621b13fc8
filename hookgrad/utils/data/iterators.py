"""``hookgrad.utils.data.iterators``: one pass over a ``DataLoader``: what every pass does
(``_BaseDataLoaderIter``: draws the workers' base seed, counts batches, warns when an
iterable dataset yields more than its length said) and the pass that loads in the main
process (``_SingleProcessDataLoaderIter``). Passes with worker processes are in
``multiprocess.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

from hookgrad.utils.data.datapipes import loading as datapipe_loading
from hookgrad.utils.data.fetch import DatasetKind
from hookgrad.utils.data.sampler import draw_seed

__all__: list[str] = []

PIN_MEMORY_WARNING = (
    "'pin_memory' argument is set as true but no accelerator is found, then device pinned "
    "memory won't be used."
)


class _BaseDataLoaderIter:
    """What every pass over a loader shares; subclasses define ``_next_data``."""

    def __init__(self, loader: Any) -> None:
        self._dataset = loader.dataset
        # A DataPipe's random pipes are seeded from the loader's generator first, as torch.
        self._shared_seed = datapipe_loading.seed_pass(self._dataset, loader.generator)
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be used as the "
                f"device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                stacklevel=3,
            )
        if loader.pin_memory:
            # NOTE: hookgrad runs on the CPU only: as torch without an accelerator, pinning
            # is accepted and skipped.
            warnings.warn(PIN_MEMORY_WARNING, stacklevel=3)
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        # NOTE: the order of draws is torch's: samplers are lazy, so the base seed comes
        # out of the generator before a shuffling sampler draws its first number.
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = draw_seed(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self) -> _BaseDataLoaderIter:
        return self

    def _reset(self, loader: Any, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._shared_seed = datapipe_loading.seed_pass(self._dataset, loader.generator)

    def _next_index(self) -> Any:
        return next(self._sampler_iter)

    def _next_data(self) -> Any:
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        reported = self._IterableDataset_len_called
        if (
            self._dataset_kind == DatasetKind.Iterable
            and reported is not None
            and self._num_yielded > reported
        ):
            self._warn_longer_than_reported(reported)
        return data

    def _warn_longer_than_reported(self, reported: int) -> None:
        message = (
            f"Length of IterableDataset {self._dataset} was reported to be {reported}(when "
            f"accessing len(dataloader)), but {self._num_yielded} samples have been fetched. "
        )
        if self._num_workers > 0:
            message += (
                "For multiprocessing data-loading, this could be caused by not properly "
                "configuring the IterableDataset replica at each worker. Please see "
                "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                "for examples."
            )
        warnings.warn(message, stacklevel=3)

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self) -> Any:
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """A pass that fetches each batch in the main process when it is asked for."""

    def __init__(self, loader: Any) -> None:
        super().__init__(loader)
        datapipe_loading.shard_in_process(self._dataset)
        self._dataset_fetcher = DatasetKind.create_fetcher(
            self._dataset_kind,
            self._dataset,
            self._auto_collation,
            self._collate_fn,
            self._drop_last,
        )

    def _next_data(self) -> Any:
        return self._dataset_fetcher.fetch(self._next_index())
