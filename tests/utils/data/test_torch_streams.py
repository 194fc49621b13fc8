"""After the same ``manual_seed``, every random order of ``hookgrad.utils.data`` is torch's,
number for number: samplers, ``random_split``, ``DistributedSampler``, shuffled loaders
(with and without a generator, with workers) and the workers' seeds. These tests hold as
long as hookgrad's generator reproduces torch's streams."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.utils.data import Dataset, get_worker_info
from tests.utils.data.common import data_of

SAMPLERS = {
    "random": lambda lib, g: data_of(lib).RandomSampler(range(37), generator=g),
    "random, more samples": lambda lib, g: data_of(lib).RandomSampler(
        range(7), num_samples=30, generator=g
    ),
    "random, replacement": lambda lib, g: data_of(lib).RandomSampler(
        range(1000), replacement=True, num_samples=70, generator=g
    ),
    "subset random": lambda lib, g: data_of(lib).SubsetRandomSampler([5, 9, 2, 7, 11], generator=g),
    "weighted": lambda lib, g: data_of(lib).WeightedRandomSampler(
        [0.1, 0.9, 0.4, 0.7, 3.0], 20, generator=g
    ),
    "weighted, no replacement": lambda lib, g: data_of(lib).WeightedRandomSampler(
        [0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False, generator=g
    ),
}


@pytest.mark.parametrize("name", SAMPLERS)
@pytest.mark.parametrize("with_generator", [True, False])
def test_sampler_orders_match_torch(torch: Any, name: str, with_generator: bool) -> None:
    def orders(lib: Any) -> Any:
        lib.manual_seed(7)
        generator = lib.Generator().manual_seed(3) if with_generator else None
        sampler = SAMPLERS[name](lib, generator)
        return list(sampler), list(sampler)

    assert orders(hookgrad) == orders(torch)


@pytest.mark.parametrize("lengths", [[3, 7], [0.2, 0.3, 0.5]])
def test_random_split_matches_torch(torch: Any, lengths: list) -> None:
    def split(lib: Any) -> Any:
        lib.manual_seed(1)
        seeded = data_of(lib).random_split(
            range(10), lengths, generator=lib.Generator().manual_seed(42)
        )
        default = data_of(lib).random_split(range(10), lengths)
        return [list(part) for part in seeded + default]

    assert split(hookgrad) == split(torch)


def test_distributed_sampler_matches_torch(torch: Any) -> None:
    def shares(lib: Any) -> Any:
        result = []
        for epoch in (0, 3):
            for rank in range(3):
                sampler = data_of(lib).DistributedSampler(
                    range(11), num_replicas=3, rank=rank, seed=5
                )
                sampler.set_epoch(epoch)
                result.append(list(sampler))
        return result

    assert shares(hookgrad) == shares(torch)


@pytest.mark.parametrize("with_generator", [True, False])
@pytest.mark.parametrize("num_workers", [0, 2])
def test_shuffled_loader_matches_torch(torch: Any, with_generator: bool, num_workers: int) -> None:
    def epochs(lib: Any) -> Any:
        lib.manual_seed(9)
        generator = lib.Generator().manual_seed(4) if with_generator else None
        loader = data_of(lib).DataLoader(
            range(23), batch_size=5, shuffle=True, num_workers=num_workers, generator=generator
        )
        return [[batch.tolist() for batch in loader] for _ in range(2)]

    assert epochs(hookgrad) == epochs(torch)


def worker_draws(lib: Any) -> Any:
    class Draws(data_of(lib).Dataset):
        def __len__(self) -> int:
            return 4

        def __getitem__(self, index: int) -> Any:
            info = data_of(lib).get_worker_info()
            threads = lib.get_num_threads()  # torch's workers run ops on one thread
            draws = [lib.rand(()).item(), random.random(), np.random.rand()]
            return [info.id, info.seed, threads, *draws]

    lib.manual_seed(2)
    loader = data_of(lib).DataLoader(
        Draws(), batch_size=None, num_workers=2, generator=lib.Generator().manual_seed(8)
    )
    return [[float(x) for x in sample] for sample in loader]


def test_worker_seeds_and_draws_match_torch(torch: Any) -> None:
    assert worker_draws(hookgrad) == worker_draws(torch)


def test_worker_seed_without_generator_follows_manual_seed(torch: Any) -> None:
    class Seed(Dataset):
        def __len__(self) -> int:
            return 2

        def __getitem__(self, index: int) -> int:
            return get_worker_info().seed

    def seeds(lib: Any, dataset: Any) -> Any:
        lib.manual_seed(6)
        return [int(s) for s in data_of(lib).DataLoader(dataset, batch_size=None, num_workers=2)]

    class TorchSeed(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return 2

        def __getitem__(self, index: int) -> int:
            return torch.utils.data.get_worker_info().seed

    assert seeds(hookgrad, Seed()) == seeds(torch, TorchSeed())
