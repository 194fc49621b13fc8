"""The built-in ``MapDataPipe``s: ``SequenceWrapper``, ``map`` (``Mapper``), ``batch``
(``Batcher``), ``concat`` (``Concater``), ``zip`` (``Zipper``), and ``shuffle``, which
turns a MapDataPipe into a shuffled ``IterDataPipe``."""

from __future__ import annotations

import copy
import random
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence, Sized
from typing import Any, TypeVar

from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes.datapipe import DataChunk, IterDataPipe, MapDataPipe
from hookgrad.utils.data.datapipes.iter.combinatorics import _draw_seed
from hookgrad.utils.data.datapipes.utils.common import _check_unpickable_fn

__all__ = [
    "BatcherMapDataPipe",
    "ConcaterMapDataPipe",
    "MapperMapDataPipe",
    "SequenceWrapperMapDataPipe",
    "ShufflerIterDataPipe",
    "ZipperMapDataPipe",
]

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class SequenceWrapperMapDataPipe(MapDataPipe[_T]):
    """A sequence (or mapping) as a ``MapDataPipe``, deep-copied unless ``deepcopy=False``
    (or it cannot be: a warning). Example::

        SequenceWrapper(range(3))[1]   # 1
    """

    def __init__(self, sequence: Sequence[_T] | Mapping[Any, _T], deepcopy: bool = True) -> None:
        self.sequence = sequence
        if deepcopy:
            try:
                self.sequence = copy.deepcopy(sequence)
            except TypeError:
                warnings.warn(
                    "The input sequence can not be deepcopied, please be aware of in-place "
                    "modification would affect source data",
                    stacklevel=2,
                )

    def __getitem__(self, index: Any) -> _T:
        return self.sequence[index]

    def __len__(self) -> int:
        return len(self.sequence)


def default_fn(data: Any) -> Any:
    return data


@functional_datapipe("map")
class MapperMapDataPipe(MapDataPipe[_T_co]):
    """``fn`` of each sample (functional name ``map``). Example::

    SequenceWrapper(range(3)).map(lambda x: x * 10)[2]   # 20
    """

    def __init__(self, datapipe: MapDataPipe, fn: Callable[..., Any] = default_fn) -> None:
        super().__init__()
        self.datapipe = datapipe
        _check_unpickable_fn(fn)
        self.fn = fn

    def __len__(self) -> int:
        return len(self.datapipe)

    def __getitem__(self, index: Any) -> _T_co:
        return self.fn(self.datapipe[index])


@functional_datapipe("batch")
class BatcherMapDataPipe(MapDataPipe[DataChunk]):
    """Batch ``i``: samples ``i * batch_size`` to ``(i + 1) * batch_size`` (the last may be
    short unless ``drop_last``) (functional name ``batch``). Example::

        SequenceWrapper(range(5)).batch(2)[2]   # [4]
    """

    def __init__(
        self,
        datapipe: MapDataPipe[_T],
        batch_size: int,
        drop_last: bool = False,
        wrapper_class: type[DataChunk] = DataChunk,
    ) -> None:
        if batch_size <= 0:
            raise AssertionError("Batch size is required to be larger than 0!")
        super().__init__()
        self.datapipe = datapipe
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.wrapper_class = wrapper_class

    def __getitem__(self, index: int) -> DataChunk:
        batch: list[Any] = []
        try:
            batch.extend(
                self.datapipe[i]
                for i in range(index * self.batch_size, (index + 1) * self.batch_size)
            )
            return self.wrapper_class(batch)
        except IndexError as error:
            if not self.drop_last and len(batch) > 0:
                return self.wrapper_class(batch)
            raise IndexError(f"Index {index} is out of bound.") from error

    def __len__(self) -> int:
        if isinstance(self.datapipe, Sized):
            if self.drop_last:
                return len(self.datapipe) // self.batch_size
            return (len(self.datapipe) + self.batch_size - 1) // self.batch_size
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")


@functional_datapipe("concat")
class ConcaterMapDataPipe(MapDataPipe):
    """The samples of each DataPipe, one after the other (functional name ``concat``)."""

    def __init__(self, *datapipes: MapDataPipe) -> None:
        if len(datapipes) == 0:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, MapDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `MapDataPipe`")
        if not all(isinstance(dp, Sized) for dp in datapipes):
            raise TypeError("Expected all inputs to be `Sized`")
        self.datapipes = datapipes

    def __getitem__(self, index: int) -> Any:
        offset = 0
        for dp in self.datapipes:
            if index - offset < len(dp):
                return dp[index - offset]
            offset += len(dp)
        raise IndexError(f"Index {index} is out of range.")

    def __len__(self) -> int:
        return sum(len(dp) for dp in self.datapipes)


@functional_datapipe("zip")
class ZipperMapDataPipe(MapDataPipe[tuple[_T_co, ...]]):
    """Tuples of the samples of each DataPipe at one index (functional name ``zip``)."""

    def __init__(self, *datapipes: MapDataPipe[_T_co]) -> None:
        if len(datapipes) == 0:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, MapDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `MapDataPipe`")
        if not all(isinstance(dp, Sized) for dp in datapipes):
            raise TypeError("Expected all inputs to be `Sized`")
        self.datapipes = datapipes

    def __getitem__(self, index: Any) -> tuple[_T_co, ...]:
        result = []
        for dp in self.datapipes:
            try:
                result.append(dp[index])
            except IndexError as error:
                raise IndexError(
                    f"Index {index} is out of range for one of the input MapDataPipes {dp}."
                ) from error
        return tuple(result)

    def __len__(self) -> int:
        return min(len(dp) for dp in self.datapipes)


class ShufflerIterDataPipe(IterDataPipe[_T_co]):
    """The samples of a ``MapDataPipe`` at ``indices`` (default all) in a random order,
    drawn anew at each iteration from ``set_seed``'s seed or hookgrad's generator
    (functional name ``shuffle`` of MapDataPipes). Example::

        list(SequenceWrapper(range(4)).shuffle())
    """

    def __init__(self, datapipe: MapDataPipe[_T_co], *, indices: list[Any] | None = None) -> None:
        super().__init__()
        self.datapipe = datapipe
        self.indices = list(range(len(datapipe))) if indices is None else indices
        self._enabled = True
        self._seed: int | None = None
        self._rng = random.Random()
        self._shuffled_indices: list[Any] = self.indices

    def set_shuffle(self, shuffle: bool = True) -> ShufflerIterDataPipe:
        self._enabled = shuffle
        return self

    def set_seed(self, seed: int) -> ShufflerIterDataPipe:
        self._seed = seed
        return self

    def __iter__(self) -> Iterator[_T_co]:
        if not self._enabled:
            for index in self.indices:
                yield self.datapipe[index]
        else:
            while self._shuffled_indices:
                yield self.datapipe[self._shuffled_indices.pop()]

    def reset(self) -> None:
        if self._enabled and self._seed is None:
            self._seed = _draw_seed()
        self._rng.seed(self._seed)
        self._seed = None
        self._shuffled_indices = self._rng.sample(self.indices, len(self.indices))

    def __len__(self) -> int:
        return len(self.datapipe)

    def __getstate__(self) -> Any:
        state = (
            self.datapipe,
            self.indices,
            self._enabled,
            self._seed,
            self._rng.getstate(),
            self._shuffled_indices,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        )
        hook = IterDataPipe.getstate_hook
        return hook(state) if hook is not None else state

    def __setstate__(self, state: Any) -> None:
        (
            self.datapipe,
            self.indices,
            self._enabled,
            self._seed,
            rng_state,
            self._shuffled_indices,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        ) = state
        self._rng = random.Random()
        self._rng.setstate(rng_state)


MapDataPipe.register_datapipe_as_function("shuffle", ShufflerIterDataPipe)
