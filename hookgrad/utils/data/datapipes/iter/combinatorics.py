"""``shuffle`` (``Shuffler``, a buffer shuffle seeded from hookgrad's generator) and
``Sampler`` (the order a ``Sampler`` gives)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sized
from typing import Any, TypeVar

from hookgrad.utils.data.datapipes._decorator import functional_datapipe
from hookgrad.utils.data.datapipes.datapipe import IterDataPipe
from hookgrad.utils.data.sampler import Sampler, SequentialSampler, draw_seed

__all__ = ["SamplerIterDataPipe", "ShufflerIterDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


def _draw_seed() -> int:
    """A seed from hookgrad's default generator, as torch draws it
    (``torch.empty((), dtype=torch.int64).random_()``)."""
    return draw_seed()


class SamplerIterDataPipe(IterDataPipe[_T_co]):
    """The samples a ``sampler`` (built on ``datapipe``, which must have a length) yields.
    Example::

        list(SamplerIterDataPipe(IterableWrapper(range(3))))   # [0, 1, 2]
    """

    datapipe: IterDataPipe
    sampler: Sampler

    def __init__(
        self,
        datapipe: IterDataPipe,
        sampler: type[Sampler] = SequentialSampler,
        sampler_args: tuple | None = None,
        sampler_kwargs: dict | None = None,
    ) -> None:
        if not isinstance(datapipe, Sized):
            raise AssertionError("Sampler class requires input datapipe implemented `__len__`")
        super().__init__()
        self.datapipe = datapipe
        self.sampler_args = () if sampler_args is None else sampler_args
        self.sampler_kwargs = {} if sampler_kwargs is None else sampler_kwargs
        self.sampler_kwargs["data_source"] = self.datapipe
        self.sampler = sampler(*self.sampler_args, **self.sampler_kwargs)

    def __iter__(self) -> Iterator[_T_co]:
        return iter(self.sampler)

    def __len__(self) -> int:
        if isinstance(self.sampler, Sized):
            return len(self.sampler)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")


@functional_datapipe("shuffle")
class ShufflerIterDataPipe(IterDataPipe[_T_co]):
    """Shuffle with a buffer of ``buffer_size`` samples (functional name ``shuffle``):
    each sample out is a random one of the buffer. Each new iteration reseeds Python's
    ``random.Random`` with ``set_seed``'s seed, or one drawn from hookgrad's generator
    (so ``hookgrad.manual_seed`` makes it repeat, as torch's). ``set_shuffle(False)``
    passes samples through. Example::

        hookgrad.manual_seed(0)
        list(IterableWrapper(range(5)).shuffle())
    """

    def __init__(
        self, datapipe: IterDataPipe[_T_co], *, buffer_size: int = 10000, unbatch_level: int = 0
    ) -> None:
        super().__init__()
        self._buffer: list[Any] = []
        if buffer_size <= 0:
            raise AssertionError("buffer_size should be larger than 0")
        self.datapipe = (
            datapipe if unbatch_level == 0 else datapipe.unbatch(unbatch_level=unbatch_level)
        )
        self.buffer_size = buffer_size
        self._enabled = True
        self._seed: int | None = None
        self._rng = random.Random()

    def set_shuffle(self, shuffle: bool = True) -> ShufflerIterDataPipe:
        self._enabled = shuffle
        return self

    def set_seed(self, seed: int) -> ShufflerIterDataPipe:
        self._seed = seed
        return self

    def __iter__(self) -> Iterator[_T_co]:
        if not self._enabled:
            yield from self.datapipe
            return
        for x in self.datapipe:
            if len(self._buffer) == self.buffer_size:
                index = self._rng.randint(0, len(self._buffer) - 1)
                value, self._buffer[index] = self._buffer[index], x
                yield value
            else:
                self._buffer.append(x)
        while self._buffer:
            index = self._rng.randint(0, len(self._buffer) - 1)
            yield self._buffer.pop(index)

    def __len__(self) -> int:
        if isinstance(self.datapipe, Sized):
            return len(self.datapipe)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")

    def reset(self) -> None:
        self._buffer = []
        if self._enabled:
            if self._seed is None:
                self._seed = _draw_seed()
            self._rng.seed(self._seed)
            self._seed = None

    def __getstate__(self) -> Any:
        state = (
            self.datapipe,
            self.buffer_size,
            self._enabled,
            self._seed,
            self._buffer,
            self._rng.getstate(),
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        )
        hook = IterDataPipe.getstate_hook
        return hook(state) if hook is not None else state

    def __setstate__(self, state: Any) -> None:
        (
            self.datapipe,
            self.buffer_size,
            self._enabled,
            self._seed,
            self._buffer,
            rng_state,
            self._valid_iterator_id,
            self._number_of_samples_yielded,
        ) = state
        self._rng = random.Random()
        self._rng.setstate(rng_state)
