"""``hookgrad.utils.data.sampler``: the samplers, iterables of dataset keys (or, for
``BatchSampler``, of lists of keys) that decide the order a ``DataLoader`` reads in.

Randomness is drawn exactly as torch's samplers draw it (``randperm``, ``randint`` in
chunks of 32, ``multinomial``, a fresh seed from the default generator), so that the same
``manual_seed`` gives the same order as torch wherever hookgrad's streams are torch's.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

from hookgrad.tensor import Tensor, dtypes
from hookgrad.tensor.creation import as_tensor, empty
from hookgrad.tensor.functions.sampling import multinomial
from hookgrad.tensor.random import Generator, randint, randperm

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

T_co = TypeVar("T_co", covariant=True)

REPLACEMENT_CHUNK = 32  # RandomSampler(replacement=True) draws this many indices at a time


def draw_seed(generator: Generator | None = None) -> int:
    """A fresh 63-bit seed drawn from ``generator`` (the default generator if None), as
    torch draws one: ``empty((), dtype=int64).random_(generator=generator).item()``."""
    return int(empty((), dtype=dtypes.int64).random_(generator=generator).item())


class Sampler(Generic[T_co]):
    """Base class of samplers: a subclass defines ``__iter__`` (yielding keys, or lists of
    keys for a batch sampler) and, where it can, ``__len__``.

    Example::

        class Backwards(Sampler[int]):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(self.n - 1, -1, -1))

            def __len__(self):
                return self.n

        list(DataLoader(range(4), sampler=Backwards(4), batch_size=None))   # [3, 2, 1, 0]
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError

    # NOTE: no default ``__len__``: ``list(sampler)`` asks for one and must fall back to
    # iterating when a sampler has none (a raising ``__len__`` would break that).


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``, every time.

    Example: ``list(SequentialSampler("abc"))`` is ``[0, 1, 2]``.
    """

    data_source: Sized

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random order of ``range(len(data_source))``: successive permutations without
    replacement (``num_samples`` may exceed the length), or ``num_samples`` independent
    draws with ``replacement=True``. Without a ``generator`` each iteration seeds a fresh
    generator from the default one.

    Example::

        g = Generator().manual_seed(0)
        sorted(RandomSampler(range(5), generator=g))      # [0, 1, 2, 3, 4]
        len(RandomSampler(range(5), replacement=True, num_samples=12))   # 12
    """

    data_source: Sized
    replacement: bool

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices an iteration yields (the dataset's current length unless
        given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator()
            generator.manual_seed(draw_seed())
        if self.replacement:
            yield from self._with_replacement(n, generator)
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def _with_replacement(self, n: int, generator: Generator) -> Iterator[int]:
        chunks, rest = divmod(self.num_samples, REPLACEMENT_CHUNK)
        for size in itertools.chain(itertools.repeat(REPLACEMENT_CHUNK, chunks), [rest]):
            draws = randint(high=n, size=(size,), dtype=dtypes.int64, generator=generator)
            yield from draws.tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given ``indices`` in a random order (``randperm(len(indices))``).

    Example: ``sorted(SubsetRandomSampler([7, 3, 5]))`` is ``[3, 5, 7]``.
    """

    indices: Sequence[int]

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices of ``weights`` drawn with probability proportional to
    their weight (``multinomial``), with or without replacement.

    Example::

        list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))   # [1, 1, 1]
    """

    weights: Tensor
    num_samples: int
    replacement: bool

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights_tensor = as_tensor(weights, dtype=dtypes.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        draws = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from draws.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Lists of ``batch_size`` consecutive keys of ``sampler`` (the last one shorter,
    unless ``drop_last``).

    Example::

        list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
        # [[0, 1], [2, 3], [4]]
    """

    def __init__(
        self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool
    ) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        keys = iter(self.sampler)
        batch = list(itertools.islice(keys, self.batch_size))
        while batch and (len(batch) == self.batch_size or not self.drop_last):
            yield batch
            batch = list(itertools.islice(keys, self.batch_size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size  # type: ignore[arg-type]
        return -(-len(self.sampler) // self.batch_size)  # type: ignore[arg-type]
