"""``batch`` (``Batcher``), ``unbatch`` (``UnBatcher``) and ``groupby`` (``Grouper``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sized
from typing import Any, TypeVar

from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes.datapipe import DataChunk, IterDataPipe
from hookgrad.utils.data.datapipes.utils.common import _check_unpickable_fn

__all__ = ["BatcherIterDataPipe", "GrouperIterDataPipe", "UnBatcherIterDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


@functional_datapipe("batch")
class BatcherIterDataPipe(IterDataPipe[DataChunk]):
    """Batches of ``batch_size`` samples, as ``wrapper_class`` (``DataChunk``) lists; the
    last may be short unless ``drop_last`` (functional name ``batch``). Example::

        list(IterableWrapper(range(5)).batch(2))   # [[0, 1], [2, 3], [4]]
    """

    def __init__(
        self,
        datapipe: IterDataPipe,
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

    def __iter__(self) -> Iterator[DataChunk]:
        batch: list[Any] = []
        for x in self.datapipe:
            batch.append(x)
            if len(batch) == self.batch_size:
                yield self.wrapper_class(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.wrapper_class(batch)

    def __len__(self) -> int:
        if isinstance(self.datapipe, Sized):
            if self.drop_last:
                return len(self.datapipe) // self.batch_size
            return (len(self.datapipe) + self.batch_size - 1) // self.batch_size
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")


@functional_datapipe("unbatch")
class UnBatcherIterDataPipe(IterDataPipe):
    """The items of batches, ``unbatch_level`` levels deep (-1: all the way), as a flat
    stream (functional name ``unbatch``). Example::

        list(IterableWrapper([[[0, 1], [2]], [[3]]]).unbatch(2))   # [0, 1, 2, 3]
    """

    def __init__(self, datapipe: IterDataPipe, unbatch_level: int = 1) -> None:
        self.datapipe = datapipe
        self.unbatch_level = unbatch_level

    def __iter__(self) -> Any:
        for element in self.datapipe:
            yield from self._dive(element, unbatch_level=self.unbatch_level)

    def _dive(self, element: Any, unbatch_level: int) -> Any:
        if unbatch_level < -1:
            raise ValueError("unbatch_level must be -1 or >= 0")
        if unbatch_level == -1:
            if isinstance(element, (list, DataChunk)):
                for item in element:
                    yield from self._dive(item, unbatch_level=-1)
            else:
                yield element
        elif unbatch_level == 0:
            yield element
        elif isinstance(element, (list, DataChunk)):
            for item in element:
                yield from self._dive(item, unbatch_level=unbatch_level - 1)
        else:
            raise IndexError(
                f"unbatch_level {self.unbatch_level} exceeds the depth of the DataPipe"
            )


@functional_datapipe("groupby")
class GrouperIterDataPipe(IterDataPipe[DataChunk]):
    """Groups of samples with the same ``group_key_fn`` key (functional name ``groupby``):
    a group is yielded when it reaches ``group_size``, the largest one when
    ``buffer_size`` samples are waiting (if it has ``guaranteed_group_size``; else an
    error, or dropped with ``drop_remaining``), and the rest at the end; ``keep_key``
    yields ``(key, group)``. Example::

        list(IterableWrapper(range(6)).groupby(lambda x: x % 2, group_size=3))
        # [[0, 2, 4], [1, 3, 5]]
    """

    def __init__(
        self,
        datapipe: IterDataPipe[_T_co],
        group_key_fn: Callable[[_T_co], Any],
        *,
        keep_key: bool = False,
        buffer_size: int = 10000,
        group_size: int | None = None,
        guaranteed_group_size: int | None = None,
        drop_remaining: bool = False,
    ) -> None:
        _check_unpickable_fn(group_key_fn)
        self.datapipe = datapipe
        self.group_key_fn = group_key_fn
        self.keep_key = keep_key
        self.max_buffer_size = buffer_size
        self.buffer_elements: defaultdict[Any, list[Any]] = defaultdict(list)
        self.curr_buffer_size = 0
        self.group_size = group_size
        self.guaranteed_group_size = None
        if group_size is not None and buffer_size is not None:
            if not 0 < group_size <= buffer_size:
                raise AssertionError("group_size must be > 0 and <= buffer_size")
            self.guaranteed_group_size = group_size
        if guaranteed_group_size is not None:
            if group_size is None or not 0 < guaranteed_group_size <= group_size:
                raise AssertionError(
                    "guaranteed_group_size must be > 0 and <= group_size and group_size must be set"
                )
            self.guaranteed_group_size = guaranteed_group_size
        self.drop_remaining = drop_remaining
        self.wrapper_class = DataChunk

    def _remove_biggest_key(self) -> Any:
        biggest_key = None
        biggest_size = 0
        for key in self.buffer_elements:
            if len(self.buffer_elements[key]) > biggest_size:
                biggest_size = len(self.buffer_elements[key])
                biggest_key = key
        if (
            self.guaranteed_group_size is not None
            and biggest_size < self.guaranteed_group_size
            and not self.drop_remaining
        ):
            raise RuntimeError("Failed to group items", str(self.buffer_elements[biggest_key]))
        result = None
        if self.guaranteed_group_size is None or biggest_size >= self.guaranteed_group_size:
            result = self.buffer_elements[biggest_key]
        self.curr_buffer_size -= biggest_size
        del self.buffer_elements[biggest_key]
        return result

    def __iter__(self) -> Any:
        for x in self.datapipe:
            key = self.group_key_fn(x)
            self.buffer_elements[key].append(x)
            self.curr_buffer_size += 1
            if self.group_size is not None and self.group_size == len(self.buffer_elements[key]):
                group = self.wrapper_class(self.buffer_elements[key])
                yield (key, group) if self.keep_key else group
                self.curr_buffer_size -= len(self.buffer_elements[key])
                del self.buffer_elements[key]
            if self.curr_buffer_size == self.max_buffer_size:
                removed = self._remove_biggest_key()
                if removed is not None:
                    group = self.wrapper_class(removed)
                    yield (key, group) if self.keep_key else group
        for key in tuple(self.buffer_elements.keys()):
            group = self.wrapper_class(self.buffer_elements.pop(key))
            self.curr_buffer_size -= len(group)
            yield (key, group) if self.keep_key else group

    def reset(self) -> None:
        self.curr_buffer_size = 0
        self.buffer_elements = defaultdict(list)

    def __getstate__(self) -> Any:
        state = (
            self.datapipe,
            self.group_key_fn,
            self.keep_key,
            self.max_buffer_size,
            self.group_size,
            self.guaranteed_group_size,
            self.drop_remaining,
            self.wrapper_class,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        )
        hook = IterDataPipe.getstate_hook
        return hook(state) if hook is not None else state

    def __setstate__(self, state: Any) -> None:
        (
            self.datapipe,
            self.group_key_fn,
            self.keep_key,
            self.max_buffer_size,
            self.group_size,
            self.guaranteed_group_size,
            self.drop_remaining,
            self.wrapper_class,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        ) = state
        self.curr_buffer_size = 0
        self.buffer_elements = defaultdict(list)
