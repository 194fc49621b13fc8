"""Poisson sampling for DP-SGD: every step draws each example independently with
probability ``sample_rate`` (the subsampling the accountant's analysis assumes), so
batches vary in size and may be empty."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import hookgrad
from hookgrad.tensor import Tensor
from hookgrad.utils.data import DataLoader, Sampler, default_collate

__all__ = ["DPDataLoader", "PoissonBatchSampler"]


class PoissonBatchSampler(Sampler[list[int]]):
    """``steps`` batches of indices into ``num_samples`` examples, each example in each
    batch with probability ``sample_rate``, drawn from ``generator`` (hookgrad's default
    generator if None) as ``rand(num_samples) < sample_rate``.

    Example::

        sampler = PoissonBatchSampler(num_samples=100, sample_rate=0.1)
        [len(batch) for batch in sampler]       # 10 batches of about 10 indices
    """

    def __init__(
        self,
        num_samples: int,
        sample_rate: float,
        steps: int | None = None,
        generator: hookgrad.Generator | None = None,
    ) -> None:
        if num_samples <= 0:
            raise ValueError(f"num_samples must be positive, got {num_samples}")
        if not 0 < sample_rate <= 1:
            raise ValueError(f"sample_rate must be in (0, 1], got {sample_rate}")
        self.num_samples = num_samples
        self.sample_rate = sample_rate
        self.steps = int(1 / sample_rate) if steps is None else steps
        self.generator = generator

    def __len__(self) -> int:
        return self.steps

    def __iter__(self) -> Iterator[list[int]]:
        for _ in range(self.steps):
            mask = hookgrad.rand(self.num_samples, generator=self.generator) < self.sample_rate
            yield mask.nonzero().reshape(-1).tolist()


def _empty_like(batch: Any) -> Any:
    """A collated batch with every tensor cut to 0 rows."""
    if isinstance(batch, Tensor):
        return batch[:0]
    if isinstance(batch, (tuple, list)):
        return type(batch)(_empty_like(item) for item in batch)
    if isinstance(batch, dict):
        return {key: _empty_like(value) for key, value in batch.items()}
    return batch


class DPDataLoader(DataLoader):
    """A ``DataLoader`` over ``dataset`` whose batches are Poisson samples
    (:class:`PoissonBatchSampler`, ``1 / sample_rate`` steps an epoch); an empty sample
    comes out as a batch of 0 rows with the shapes and dtypes of a real one.

    Example::

        loader = DPDataLoader(TensorDataset(x, y), sample_rate=64 / len(x))
        for xb, yb in loader:
            ...                                   # len(xb) is 64 on average
    """

    def __init__(
        self,
        dataset: Any,
        sample_rate: float,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        generator: hookgrad.Generator | None = None,
        steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        self.sample_rate = sample_rate
        collate = default_collate if collate_fn is None else collate_fn
        sampler = PoissonBatchSampler(len(dataset), sample_rate, steps, generator)
        super().__init__(
            dataset,
            batch_sampler=sampler,
            collate_fn=_EmptyAware(collate, dataset),
            generator=generator,
            **kwargs,
        )

    @classmethod
    def from_data_loader(
        cls, data_loader: DataLoader, generator: hookgrad.Generator | None = None
    ) -> DPDataLoader:
        """The Poisson-sampled loader for ``data_loader``'s dataset, with sample rate
        ``1 / len(data_loader)`` (its expected batch size is the loader's batch size)."""
        return cls(
            data_loader.dataset,
            sample_rate=1 / len(data_loader),
            collate_fn=data_loader.collate_fn,
            generator=generator,
        )


class _EmptyAware:
    """``collate``, except that an empty list of examples becomes ``collate`` of the first
    example cut to 0 rows (a picklable callable, for worker processes)."""

    def __init__(self, collate: Callable[[list[Any]], Any], dataset: Any) -> None:
        self.collate = collate
        self.dataset = dataset

    def __call__(self, examples: list[Any]) -> Any:
        if examples:
            return self.collate(examples)
        return _empty_like(self.collate([self.dataset[0]]))
