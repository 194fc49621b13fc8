"""Several DataPipes into one, or one into several: ``concat`` (``Concater``), ``zip``
(``Zipper``), ``mux`` (``Multiplexer``), ``fork`` (``Forker``) and ``demux``
(``Demultiplexer``). A fork or demux is one container DataPipe read by child DataPipes,
with a buffer for the children that lag behind."""

from __future__ import annotations

import copy as copymodule
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sized
from typing import Any, TypeVar

from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes._hook_iterator import _SnapshotState
from hookgrad.utils.data.datapipes.datapipe import IterDataPipe
from hookgrad.utils.data.datapipes.utils.common import StreamWrapper, _check_unpickable_fn

__all__ = [
    "ConcaterIterDataPipe",
    "DemultiplexerIterDataPipe",
    "ForkerIterDataPipe",
    "MultiplexerIterDataPipe",
    "ZipperIterDataPipe",
]

_T_co = TypeVar("_T_co", covariant=True)


@functional_datapipe("concat")
class ConcaterIterDataPipe(IterDataPipe):
    """The samples of each DataPipe, one after the other (functional name ``concat``).
    Example::

        list(IterableWrapper(range(2)).concat(IterableWrapper(range(2))))   # [0, 1, 0, 1]
    """

    def __init__(self, *datapipes: IterDataPipe) -> None:
        if len(datapipes) == 0:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `IterDataPipe`")
        self.datapipes = datapipes

    def __iter__(self) -> Iterator[Any]:
        for dp in self.datapipes:
            yield from dp

    def __len__(self) -> int:
        if all(isinstance(dp, Sized) for dp in self.datapipes):
            return sum(len(dp) for dp in self.datapipes)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")


@functional_datapipe("fork")
class ForkerIterDataPipe(IterDataPipe):
    """``num_instances`` child DataPipes that each yield every sample of ``datapipe``
    (functional name ``fork``); samples wait in a buffer of ``buffer_size`` (-1:
    unlimited) for the slowest child; ``copy`` (``"shallow"``/``"deep"``) gives each child
    its own copy. One instance: ``datapipe`` itself. Example::

        a, b = IterableWrapper(range(3)).fork(2)
        list(zip(a, b))   # [(0, 0), (1, 1), (2, 2)]
    """

    def __new__(  # type: ignore[misc]
        cls,
        datapipe: IterDataPipe,
        num_instances: int,
        buffer_size: int = 1000,
        copy: str | None = None,
    ) -> Any:
        if num_instances < 1:
            raise ValueError(
                f"Expected `num_instances` larger than 0, but {num_instances} is found"
            )
        if num_instances == 1:
            return datapipe
        container = _ForkerIterDataPipe(datapipe, num_instances, buffer_size, copy)
        return [_ChildDataPipe(container, i) for i in range(num_instances)]


def _no_op(x: Any) -> Any:
    return x


class _ContainerTemplate:
    """What a container of child DataPipes provides."""

    def get_next_element_by_instance(self, instance_id: int) -> Any:
        raise NotImplementedError

    def is_every_instance_exhausted(self) -> bool:
        raise NotImplementedError

    def get_length_by_instance(self, instance_id: int) -> int:
        raise NotImplementedError


class _ForkerIterDataPipe(IterDataPipe, _ContainerTemplate):
    """The container of a fork: one iterator of the source, a buffer, a pointer per child."""

    def __init__(
        self,
        datapipe: IterDataPipe,
        num_instances: int,
        buffer_size: int = 1000,
        copy: str | None = None,
    ) -> None:
        self.main_datapipe = datapipe
        self._datapipe_iterator: Iterator[Any] | None = None
        self.num_instances = num_instances
        self.buffer: deque[Any] = deque()
        self.buffer_size = buffer_size
        if self.buffer_size < 0:
            warnings.warn(
                "Unlimited buffer size is set for `fork`, please be aware of OOM at random places",
                UserWarning,
                stacklevel=2,
            )
        copy_functions = {None: _no_op, "shallow": copymodule.copy, "deep": copymodule.deepcopy}
        if copy not in copy_functions:
            raise ValueError(
                f"Unknown copy method `{copy}` requested, choose one of None, `shallow` or `deep`."
            )
        self.copy_fn = copy_functions[copy]
        self._clear()

    def _clear(self) -> None:
        self.child_pointers = [0] * self.num_instances
        self.slowest_ptr = 0
        self.leading_ptr = 0
        self.end_ptr: int | None = None
        self._child_stop = [True] * self.num_instances

    def __len__(self) -> int:
        return len(self.main_datapipe)

    def get_next_element_by_instance(self, instance_id: int) -> Any:
        if self._datapipe_iterator is None and self._child_stop[instance_id]:
            self._datapipe_iterator = iter(self.main_datapipe)
            self._snapshot_state = _SnapshotState.Iterating
            self._child_stop = [False] * self.num_instances
        try:
            while not self._child_stop[instance_id]:
                self.child_pointers[instance_id] += 1
                pointer = self.child_pointers[instance_id]
                if self.end_ptr is not None and pointer == self.end_ptr:
                    self._child_stop[instance_id] = True
                    break
                if self.buffer and pointer <= self.leading_ptr:
                    value = self.buffer[pointer - self.slowest_ptr - 1]
                else:
                    self.leading_ptr = pointer
                    try:
                        value = next(self._datapipe_iterator)  # type: ignore[arg-type]
                        self.buffer.append(value)
                    except StopIteration:
                        self._child_stop[instance_id] = True
                        self._datapipe_iterator = None
                        self.end_ptr = self.leading_ptr
                        continue
                if pointer == self.slowest_ptr + 1:
                    new_min = min(self.child_pointers)
                    if self.slowest_ptr < new_min:
                        self.slowest_ptr = new_min
                        self.buffer.popleft()
                if self.buffer_size >= 0 and self.leading_ptr > self.buffer_size + self.slowest_ptr:
                    raise BufferError(
                        "ForkerIterDataPipe buffer overflow,"
                        + f"buffer size {self.buffer_size} is insufficient."
                    )
                yield self.copy_fn(value)
        finally:
            self._child_stop[instance_id] = True
            if all(self._child_stop):
                self._datapipe_iterator = None
                self._cleanup()

    def is_every_instance_exhausted(self) -> bool:
        return self.end_ptr is not None and all(self._child_stop)

    def get_length_by_instance(self, instance_id: int) -> int:
        return len(self.main_datapipe)

    def reset(self) -> None:
        self._datapipe_iterator = None
        self.buffer = deque()
        self._clear()

    def __getstate__(self) -> Any:
        state = (
            self.main_datapipe,
            self.num_instances,
            self.buffer_size,
            self.copy_fn,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        )
        hook = IterDataPipe.getstate_hook
        return hook(state) if hook is not None else state

    def __setstate__(self, state: Any) -> None:
        (
            self.main_datapipe,
            self.num_instances,
            self.buffer_size,
            self.copy_fn,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        ) = state
        self._datapipe_iterator = None
        self.buffer = deque()
        self._clear()

    def _cleanup(self) -> None:
        while self.buffer:
            StreamWrapper.close_streams(self.buffer.popleft())


class _ChildDataPipe(IterDataPipe):
    """One child of a fork or demux: reads its container's stream for its instance."""

    _is_child_datapipe: bool = True

    def __init__(self, main_datapipe: IterDataPipe, instance_id: int) -> None:
        if not isinstance(main_datapipe, _ContainerTemplate):
            raise AssertionError("main_datapipe must implement _ContainerTemplate")
        self.main_datapipe = main_datapipe
        self.instance_id = instance_id

    def __iter__(self) -> Any:
        return self.main_datapipe.get_next_element_by_instance(self.instance_id)

    def __len__(self) -> int:
        return self.main_datapipe.get_length_by_instance(self.instance_id)

    def _set_main_datapipe_valid_iterator_id(self) -> int:
        """A new iterator of this child: the first child to start over resets the
        container (warning if others were not done)."""
        main = self.main_datapipe
        if main._valid_iterator_id is None:
            main._valid_iterator_id = 0
        elif main._valid_iterator_id == self._valid_iterator_id:
            main._valid_iterator_id += 1
            if not main.is_every_instance_exhausted():
                warnings.warn(
                    "Some child DataPipes are not exhausted when __iter__ is called. We are "
                    "resetting the buffer and each child DataPipe will read from the start again.",
                    UserWarning,
                    stacklevel=2,
                )
            main.reset()
        self._valid_iterator_id = main._valid_iterator_id
        return self._valid_iterator_id

    def _check_valid_iterator_id(self, iterator_id: Any) -> bool:
        return (
            iterator_id == self._valid_iterator_id
            and iterator_id == self.main_datapipe._valid_iterator_id
        )


@functional_datapipe("demux")
class DemultiplexerIterDataPipe(IterDataPipe):
    """``num_instances`` child DataPipes; sample ``x`` goes to child
    ``classifier_fn(x)`` (None: dropped with ``drop_none``, else an error), waiting in a
    buffer of ``buffer_size`` (-1: unlimited) until that child reads it (functional name
    ``demux``). Example::

        even, odd = IterableWrapper(range(5)).demux(2, lambda x: x % 2)
        list(even), list(odd)   # ([0, 2, 4], [1, 3])
    """

    def __new__(  # type: ignore[misc]
        cls,
        datapipe: IterDataPipe,
        num_instances: int,
        classifier_fn: Callable[[Any], int | None],
        drop_none: bool = False,
        buffer_size: int = 1000,
    ) -> Any:
        if num_instances < 1:
            raise ValueError(
                f"Expected `num_instances` larger than 0, but {num_instances} is found"
            )
        _check_unpickable_fn(classifier_fn)
        container = _DemultiplexerIterDataPipe(
            datapipe, num_instances, classifier_fn, drop_none, buffer_size
        )
        return [_ChildDataPipe(container, i) for i in range(num_instances)]


class _DemultiplexerIterDataPipe(IterDataPipe, _ContainerTemplate):
    """The container of a demux: one iterator of the source, a buffer per child."""

    def __init__(
        self,
        datapipe: IterDataPipe,
        num_instances: int,
        classifier_fn: Callable[[Any], int | None],
        drop_none: bool,
        buffer_size: int,
    ) -> None:
        self.main_datapipe = datapipe
        self._datapipe_iterator: Iterator[Any] | None = None
        self.num_instances = num_instances
        self.buffer_size = buffer_size
        if self.buffer_size < 0:
            warnings.warn(
                "Unlimited buffer size is set for `demux`, please be aware of OOM at random places",
                UserWarning,
                stacklevel=2,
            )
        self.classifier_fn = classifier_fn
        self.drop_none = drop_none
        self._clear()

    def _clear(self) -> None:
        self.current_buffer_usage = 0
        self.child_buffers: list[deque[Any]] = [deque() for _ in range(self.num_instances)]
        self.main_datapipe_exhausted = False
        self._child_stop = [True] * self.num_instances

    def _find_next(self, instance_id: int) -> Any:
        while True:
            if self.main_datapipe_exhausted or self._child_stop[instance_id]:
                raise StopIteration
            if self._datapipe_iterator is None:
                raise ValueError(
                    "_datapipe_iterator has not been set, likely because this private method is "
                    "called directly without invoking get_next_element_by_instance() first."
                )
            value = next(self._datapipe_iterator)
            classification = self.classifier_fn(value)
            if classification is None and self.drop_none:
                StreamWrapper.close_streams(value)
                continue
            if classification is None or classification >= self.num_instances or classification < 0:
                raise ValueError(
                    f"Output of the classification fn should be between 0 and "
                    f"{self.num_instances - 1}. " + f"{classification} is returned."
                )
            if classification == instance_id:
                return value
            self.child_buffers[classification].append(value)
            self.current_buffer_usage += 1
            if self.buffer_size >= 0 and self.current_buffer_usage > self.buffer_size:
                raise BufferError(
                    f"DemultiplexerIterDataPipe buffer overflow, buffer size {self.buffer_size} "
                    "is insufficient."
                )

    def get_next_element_by_instance(self, instance_id: int) -> Any:
        if self._datapipe_iterator is None and self._child_stop[instance_id]:
            self._datapipe_iterator = iter(self.main_datapipe)
            self._snapshot_state = _SnapshotState.Iterating
            self.main_datapipe_exhausted = False
            self._child_stop = [False] * self.num_instances
        try:
            while not self._child_stop[instance_id]:
                if self.child_buffers[instance_id]:
                    self.current_buffer_usage -= 1
                    yield self.child_buffers[instance_id].popleft()
                else:
                    try:
                        yield self._find_next(instance_id)
                    except StopIteration:
                        self._child_stop[instance_id] = True
                        self.main_datapipe_exhausted = True
                        self._datapipe_iterator = None
        finally:
            self._child_stop[instance_id] = True
            if all(self._child_stop):
                self._datapipe_iterator = None
            if self.child_buffers[instance_id]:
                self._cleanup(instance_id)

    def is_every_instance_exhausted(self) -> bool:
        return self.main_datapipe_exhausted and all(self._child_stop)

    def get_length_by_instance(self, instance_id: int) -> int:
        raise TypeError

    def reset(self) -> None:
        self._datapipe_iterator = None
        self._clear()

    def __getstate__(self) -> Any:
        state = (
            self.main_datapipe,
            self.num_instances,
            self.buffer_size,
            self.classifier_fn,
            self.drop_none,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        )
        hook = IterDataPipe.getstate_hook
        return hook(state) if hook is not None else state

    def __setstate__(self, state: Any) -> None:
        (
            self.main_datapipe,
            self.num_instances,
            self.buffer_size,
            self.classifier_fn,
            self.drop_none,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        ) = state
        self._datapipe_iterator = None
        self._clear()

    def _cleanup(self, instance_id: int | None = None) -> None:
        ids = range(self.num_instances) if instance_id is None else [instance_id]
        for i in ids:
            while self.child_buffers[i]:
                StreamWrapper.close_streams(self.child_buffers[i].popleft())


@functional_datapipe("mux")
class MultiplexerIterDataPipe(IterDataPipe):
    """One sample of each DataPipe in turn, until the shortest ends (functional name
    ``mux``). Example::

        list(IterableWrapper([0, 1, 2]).mux(IterableWrapper([10, 11])))   # [0, 10, 1, 11]
    """

    def __init__(self, *datapipes: IterDataPipe) -> None:
        self.datapipes = datapipes
        self.buffer: list[Any] = []

    def __iter__(self) -> Any:
        iterators = [iter(x) for x in self.datapipes]
        while iterators:
            for it in iterators:
                try:
                    self.buffer.append(next(it))
                except StopIteration:
                    self.buffer.clear()
                    return
            yield from self.buffer
            self.buffer.clear()

    def __len__(self) -> int:
        if all(isinstance(dp, Sized) for dp in self.datapipes):
            return min(len(dp) for dp in self.datapipes) * len(self.datapipes)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")

    def reset(self) -> None:
        self.buffer = []

    def __getstate__(self) -> Any:
        state = (self.datapipes, self._valid_iterator_id, self._number_of_samples_yielded)
        hook = IterDataPipe.getstate_hook
        return hook(state) if hook is not None else state

    def __setstate__(self, state: Any) -> None:
        self.datapipes, self._valid_iterator_id, self._number_of_samples_yielded = state
        self.buffer = []


@functional_datapipe("zip")
class ZipperIterDataPipe(IterDataPipe[tuple[_T_co]]):
    """Tuples of one sample of each DataPipe, until the shortest ends (functional name
    ``zip``). Example::

        list(IterableWrapper(range(3)).zip(IterableWrapper("ab")))   # [(0, 'a'), (1, 'b')]
    """

    def __init__(self, *datapipes: IterDataPipe) -> None:
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("All inputs are required to be `IterDataPipe` for `ZipIterDataPipe`.")
        super().__init__()
        self.datapipes = datapipes

    def __iter__(self) -> Iterator[tuple[_T_co]]:
        iterators = [iter(datapipe) for datapipe in self.datapipes]
        yield from zip(*iterators)

    def __len__(self) -> int:
        if all(isinstance(dp, Sized) for dp in self.datapipes):
            return min(len(dp) for dp in self.datapipes)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
