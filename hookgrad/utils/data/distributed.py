"""``hookgrad.utils.data.distributed``: ``DistributedSampler``, the share of a dataset that
one of ``num_replicas`` processes reads.

``num_replicas`` and ``rank`` default to the world size and rank of the default process
group (``hookgrad.distributed``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized
from typing import TypeVar

from hookgrad import distributed as dist
from hookgrad.tensor.random import Generator, randperm
from hookgrad.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]

T_co = TypeVar("T_co", covariant=True)


class DistributedSampler(Sampler[T_co]):
    """The indices of ``dataset`` that replica ``rank`` of ``num_replicas`` reads: every
    ``num_replicas``-th index of one order, starting at ``rank``. The order is
    ``randperm(len(dataset))`` from a generator seeded with ``seed + epoch`` (the same on
    every replica) when ``shuffle``, else ``0, 1, ...``; it is padded by repeating its start
    (or, with ``drop_last``, cut) to a multiple of ``num_replicas``. Call
    ``set_epoch(epoch)`` before each epoch for a new order. ``num_replicas`` and ``rank``
    default to the default process group's size and this process's rank.

    Example::

        s = DistributedSampler(range(10), num_replicas=4, rank=1, shuffle=False)
        list(s)       # [1, 5, 9]

        sampler = DistributedSampler(train_set)        # after dist.init_process_group
        loader = DataLoader(train_set, batch_size=32, sampler=sampler)
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            for x, y in loader: ...
    """

    def __init__(
        self,
        dataset: Sized,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        if self.shuffle:
            generator = Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=generator).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if self.drop_last:
            indices = indices[: self.total_size]
        elif len(indices) < self.total_size:
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` in the next shuffle's seed, so that each epoch has its own order
        (the same on every replica)."""
        self.epoch = epoch
