"""What ``DataLoader`` does with a DataPipe, as torch's does: keep it in a serialization
wrapper, turn its shufflers on or off (``shuffle=``), seed its random DataPipes from
the loader's generator at each pass (one shared seed), and shard it across ranks and
worker processes (``sharding_filter``)."""

from __future__ import annotations

import functools
from typing import Any

from hookgrad.tensor.random import Generator
from hookgrad.utils.data import graph_settings
from hookgrad.utils.data.datapipes.datapipe import (
    IterDataPipe,
    MapDataPipe,
    _IterDataPipeSerializationWrapper,
    _MapDataPipeSerializationWrapper,
)
from hookgrad.utils.data.sampler import draw_seed

__all__ = ["apply_shuffle", "seed_pass", "shard_in_process", "wrap", "worker_init_fn"]


def wrap(dataset: Any) -> Any:
    """A DataPipe in torch's serialization wrapper (the loader's ``dataset``)."""
    if isinstance(dataset, IterDataPipe):
        return _IterDataPipeSerializationWrapper(dataset)
    if isinstance(dataset, MapDataPipe):
        return _MapDataPipeSerializationWrapper(dataset)
    return dataset


def apply_shuffle(dataset: Any, shuffle: bool | None) -> bool | None:
    """Apply the loader's ``shuffle`` to an ``IterDataPipe``'s shufflers; returns what is
    left for the loader's own checks (None when the DataPipe took it)."""
    if isinstance(dataset, IterDataPipe) and shuffle is not None:
        graph_settings.apply_shuffle_settings(dataset, shuffle=shuffle)
        return None
    return shuffle


def seed_pass(dataset: Any, generator: Generator | None) -> int | None:
    """At the start of a pass over an ``IterDataPipe``: draw the shared seed from the
    loader's ``generator`` and seed the DataPipe's random DataPipes from it."""
    if not isinstance(dataset, IterDataPipe):
        return None
    shared_seed = draw_seed(generator)
    _seed(dataset, shared_seed)
    return shared_seed


def _seed(dataset: Any, shared_seed: int) -> None:
    rng = Generator()
    rng.manual_seed(shared_seed)
    graph_settings.apply_random_seed(dataset, rng)


def _distributed_settings() -> tuple[int, int]:
    """``(world size, rank)``: ``(1, 0)`` without an initialized process group."""
    import hookgrad

    dist = getattr(hookgrad, "distributed", None)
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_world_size(), dist.get_rank()
    return 1, 0


def shard_in_process(dataset: Any) -> None:
    """Loading in the main process: shard a DataPipe across the distributed ranks."""
    if isinstance(dataset, (IterDataPipe, MapDataPipe)):
        world_size, rank = _distributed_settings()
        graph_settings.apply_sharding(dataset, world_size, rank)


def worker_init_fn(dataset: Any, init_fn: Any, shared_seed: int | None) -> Any:
    """The ``worker_init_fn`` workers run for a DataPipe: seed it with the pass's shared
    seed and shard it across ranks and workers, then ``init_fn(worker_id)``."""
    if not isinstance(dataset, (IterDataPipe, MapDataPipe)):
        return init_fn
    world_size, rank = _distributed_settings()
    return functools.partial(_init_worker, init_fn, world_size, rank, shared_seed)


def _init_worker(
    init_fn: Any, world_size: int, rank: int, shared_seed: int | None, worker_id: int
) -> None:
    from hookgrad.utils.data.worker import get_worker_info

    info = get_worker_info()
    if info is None:
        raise AssertionError("Worker info is None in sharding worker init function")
    datapipe = info.dataset
    if shared_seed is not None and isinstance(datapipe, IterDataPipe):
        _seed(datapipe, shared_seed)
    # Shard across ranks first, then across each rank's workers.
    graph_settings.apply_sharding(
        datapipe, info.num_workers * world_size, worker_id * world_size + rank
    )
    if init_fn is not None:
        init_fn(worker_id)
