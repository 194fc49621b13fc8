"""``hookgrad.utils.data.dataset``: the dataset classes (map-style ``Dataset``, stream-style
``IterableDataset``, and the ones that wrap tensors or other datasets) and
``random_split``.

A map-style dataset answers ``dataset[key]`` (and usually ``len(dataset)``); an iterable
dataset answers ``iter(dataset)``. The ``DataLoader`` reads both.
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from hookgrad.tensor import Tensor
from hookgrad.tensor.random import Generator, default_generator, randperm

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "StackDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from keys to samples: subclasses define ``__getitem__`` (and usually
    ``__len__``; a ``DataLoader`` with its default samplers needs it). A subclass may also
    define ``__getitems__(indices) -> list of samples`` to fetch a batch at once.

    ``dataset1 + dataset2`` is a ``ConcatDataset``.

    Example::

        class Squares(Dataset):
            def __len__(self):
                return 10

            def __getitem__(self, index):
                return index * index

        Squares()[3]          # 9
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: subclasses define ``__iter__``.

    With ``num_workers > 0`` every worker process iterates its own copy of the dataset, so
    each yields the whole stream unless ``__iter__`` (or ``worker_init_fn``) reads
    ``get_worker_info()`` to pick its share. ``stream1 + stream2`` is a ``ChainDataset``.

    Example::

        class Count(IterableDataset):
            def __iter__(self):
                info = get_worker_info()
                start, step = (0, 1) if info is None else (info.id, info.num_workers)
                return iter(range(start, 8, step))

        list(DataLoader(Count(), batch_size=None, num_workers=2))   # [0, 1, 2, ..., 7]
    """

    def __add__(self, other: Dataset[T_co]) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are rows: ``dataset[i]`` is ``tuple(t[i] for t in tensors)``; every tensor
    must have the same size in dimension 0.

    Example::

        ds = TensorDataset(hookgrad.arange(6).view(3, 2), hookgrad.tensor([0, 1, 0]))
        ds[1]         # (tensor([2, 3]), tensor(1))
    """

    tensors: tuple[Tensor, ...]

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


def _same_length(datasets: Sequence[Any]) -> int:
    length = len(datasets[0])
    if any(length != len(dataset) for dataset in datasets):
        raise ValueError("Size mismatch between datasets")
    return length


class StackDataset(Dataset[T_co]):
    """Samples of several datasets of equal length side by side: a tuple for positional
    datasets, a dict for keyword ones.

    Example::

        StackDataset(range(3), "abc")[1]            # (1, 'b')
        StackDataset(x=range(3), y="abc")[1]        # {'x': 1, 'y': 'b'}
    """

    datasets: tuple[Any, ...] | dict[str, Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) "
                "like input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self._length = _same_length(args or list(kwargs.values()))
        self.datasets = args or kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list[Any]) -> list[Any]:
        """The samples at ``indices``, each part fetched in one call from a dataset that
        has ``__getitems__``."""
        if isinstance(self.datasets, dict):
            columns = {key: _fetch_many(ds, indices) for key, ds in self.datasets.items()}
            return [
                {key: column[i] for key, column in columns.items()} for i in range(len(indices))
            ]
        parts = [_fetch_many(dataset, indices) for dataset in self.datasets]
        return [tuple(part[i] for part in parts) for i in range(len(indices))]

    def __len__(self) -> int:
        return self._length


def _fetch_many(dataset: Any, indices: list[Any]) -> list[Any]:
    if not callable(getattr(dataset, "__getitems__", None)):
        return [dataset[index] for index in indices]
    items = dataset.__getitems__(indices)
    if len(items) != len(indices):
        raise ValueError(
            f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}"
        )
    return items


class ConcatDataset(Dataset[T_co]):
    """Map-style datasets one after the other; ``cumulative_sizes[i]`` is the length of the
    first ``i + 1`` of them.

    Example::

        ds = ConcatDataset([range(3), range(10, 12)])
        len(ds), ds[3], ds[-1]        # (5, 10, 11)
    """

    datasets: list[Dataset[T_co]]
    cumulative_sizes: list[int]

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        """The running totals of the lengths of ``sequence``'s items."""
        return list(itertools.accumulate(len(item) for item in sequence))

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(dataset, IterableDataset) for dataset in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


def _check_iterable(dataset: Any) -> Any:
    if not isinstance(dataset, IterableDataset):
        raise AssertionError("ChainDataset only supports IterableDataset")
    return dataset


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other, chained as they are read.

    Example::

        list(ChainDataset([stream_a, stream_b]))   # stream_a's samples, then stream_b's
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for dataset in self.datasets:
            yield from _check_iterable(dataset)

    def __len__(self) -> int:
        return sum(len(_check_iterable(dataset)) for dataset in self.datasets)


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``: ``Subset(ds, idx)[i]`` is
    ``ds[idx[i]]``. A subclass that overrides ``__getitem__`` must override
    ``__getitems__`` too (the ``DataLoader`` calls the latter).

    Example::

        Subset(range(10, 20), [5, 0])[0]      # 15
    """

    dataset: Dataset[T_co]
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When "
                "subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        """The samples at ``indices`` (through the dataset's ``__getitems__`` if it has
        one)."""
        return _fetch_many(self.dataset, [self.indices[i] for i in indices])

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(fractions: Sequence[float], total: int) -> list[int]:
    """Each fraction's floor share of ``total``, then the remainder one by one from the
    first split on."""
    lengths = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * fraction))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(
                f"Length of split at index {i} is 0. This might result in an empty dataset.",
                stacklevel=3,
            )
    return lengths


def random_split(
    dataset: Dataset[Any],
    lengths: Sequence[int | float],
    generator: Generator | None = default_generator,
) -> list[Subset[Any]]:
    """Split ``dataset`` at random into non-overlapping ``Subset`` s of the given
    ``lengths``, or of the given fractions of ``len(dataset)`` when ``lengths`` sum to 1
    (the items left over by rounding down go one each to the first splits). The order is
    ``randperm(len(dataset), generator=generator)``, as torch's.

    Example::

        train, val = random_split(range(10), [0.8, 0.2], generator=Generator().manual_seed(0))
        len(train), len(val)        # (8, 2)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))  # type: ignore[arg-type]
    if sum(lengths) != len(dataset):  # type: ignore[arg-type]
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()  # type: ignore[arg-type]
    ends = itertools.accumulate(lengths)
    return [
        Subset(dataset, indices[end - length : end])  # type: ignore[misc]
        for end, length in zip(ends, lengths)
    ]
