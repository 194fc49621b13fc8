"""``hookgrad.utils.data.fetch``: turning what the sampler yields into a batch, the same in
the main process and in workers: ``MapDatasetFetcher`` reads ``dataset[key]`` (or
``__getitems__``), ``IterableDatasetFetcher`` reads the next samples of the stream; both
pass them to ``collate_fn``.

A batch of a ``TensorDataset`` (or a ``Subset`` of one) under ``default_collate`` is taken
in one indexing per tensor instead of one per sample: the result is the same tensors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from hookgrad.tensor import Tensor
from hookgrad.tensor.creation import from_numpy
from hookgrad.utils.data.collate import (
    collate_tensor_fn,
    default_collate,
    default_collate_fn_map,
)
from hookgrad.utils.data.dataset import Subset, TensorDataset

__all__ = ["DatasetKind", "IterableDatasetFetcher", "MapDatasetFetcher", "create_fetcher"]


class DatasetKind:
    """The two kinds of dataset a ``DataLoader`` reads."""

    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(
        kind: int,
        dataset: Any,
        auto_collation: bool,
        collate_fn: Callable[..., Any],
        drop_last: bool,
    ) -> MapDatasetFetcher | IterableDatasetFetcher:
        """The fetcher for a dataset of ``kind``."""
        fetcher = MapDatasetFetcher if kind == DatasetKind.Map else IterableDatasetFetcher
        return fetcher(dataset, auto_collation, collate_fn, drop_last)


create_fetcher = DatasetKind.create_fetcher


class IterableDatasetFetcher:
    """Batches from ``iter(dataset)``: as many samples as the batch of (``None``) keys is
    long; ``StopIteration`` once the stream has ended (or, with ``drop_last``, when the last
    batch would be short). Without automatic batching each sample is one item."""

    def __init__(
        self, dataset: Any, auto_collation: bool, collate_fn: Callable[..., Any], drop_last: bool
    ) -> None:
        self.collate_fn = collate_fn
        self.auto_collation = auto_collation
        self.drop_last = drop_last
        self.dataset_iter: Iterator[Any] = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index: Any) -> Any:
        """The next batch (or sample), collated."""
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in possibly_batched_index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
            raise StopIteration
        return self.collate_fn(data)


class MapDatasetFetcher:
    """Batches of ``dataset[key]`` for each key of a batch (one ``__getitems__`` call if
    the dataset has it); without automatic batching ``dataset[key]`` for one key."""

    def __init__(
        self, dataset: Any, auto_collation: bool, collate_fn: Callable[..., Any], drop_last: bool
    ) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index: Any) -> Any:
        """The batch (or sample) at ``possibly_batched_index``, collated."""
        if not self.auto_collation:
            return self.collate_fn(self.dataset[possibly_batched_index])
        if self.collate_fn is default_collate:
            batch = _tensor_rows(self.dataset, possibly_batched_index)
            if batch is not None:
                return batch
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            data = getitems(possibly_batched_index)
        else:
            data = [self.dataset[index] for index in possibly_batched_index]
        return self.collate_fn(data)


def _tensor_rows(dataset: Any, indices: Any) -> list[Tensor] | None:
    """What ``default_collate`` makes of the samples of a ``TensorDataset`` (through
    ``Subset`` s) at ``indices``, taken with one indexing per tensor; None where the
    result could differ from stacking the samples one by one (keys other than in-range
    ints, tensors that require grad or subclass ``Tensor``, a changed collate map)."""
    if type(indices) is not list or not indices or not all(type(i) is int for i in indices):
        return None
    while type(dataset) is Subset:
        try:
            indices = [dataset.indices[i] for i in indices]
        except IndexError:
            return None
        if not all(type(i) is int for i in indices):
            return None
        dataset = dataset.dataset
    if type(dataset) is not TensorDataset or not _collates_as_stack():
        return None
    tensors = dataset.tensors
    if any(type(t) is not Tensor or t.requires_grad for t in tensors):
        return None
    rows = np.array(indices, dtype=np.int64)
    size = tensors[0].shape[0]
    if rows.min() < -size or rows.max() >= size:
        return None
    return [from_numpy(np.take(t.numpy(), rows, axis=0)) for t in tensors]


def _collates_as_stack() -> bool:
    """Whether ``default_collate`` turns a list of tuples of tensors into a list of
    stacks: tuples reach no entry of the collate map, tensors reach the stacking one."""
    if default_collate_fn_map.get(Tensor) is not collate_tensor_fn:
        return False
    return not any(isinstance((), key) for key in default_collate_fn_map)
