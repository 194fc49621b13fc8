"""Samplers: orders that do not depend on the random stream match torch's; random orders
are permutations (or draws in range) that repeat with the seed; torch's errors. (Exact
random orders after ``manual_seed`` are compared with torch in ``test_torch_streams.py``.)"""

from __future__ import annotations

from typing import Any

import pytest

import hookgrad
from hookgrad.utils.data import (
    BatchSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from tests.oracle import outcome
from tests.utils.data.common import data_of


def seeded(seed: int) -> hookgrad.Generator:
    return hookgrad.Generator().manual_seed(seed)


def test_sequential_sampler() -> None:
    sampler = SequentialSampler("abcd")
    assert list(sampler) == [0, 1, 2, 3]
    assert list(sampler) == [0, 1, 2, 3]
    assert len(sampler) == 4


def test_random_sampler_is_a_permutation_that_repeats_with_the_seed() -> None:
    order = list(RandomSampler(range(50), generator=seeded(1)))
    assert sorted(order) == list(range(50))
    assert order != list(range(50))
    assert list(RandomSampler(range(50), generator=seeded(1))) == order
    assert list(RandomSampler(range(50), generator=seeded(2))) != order


def test_random_sampler_reshuffles_each_pass() -> None:
    sampler = RandomSampler(range(30), generator=seeded(0))
    first, second = list(sampler), list(sampler)
    assert sorted(first) == sorted(second) == list(range(30))
    assert first != second


def test_random_sampler_without_generator_follows_manual_seed() -> None:
    hookgrad.manual_seed(5)
    first = list(RandomSampler(range(40)))
    hookgrad.manual_seed(5)
    assert list(RandomSampler(range(40))) == first
    assert sorted(first) == list(range(40))


@pytest.mark.parametrize("num_samples", [7, 10, 23])
def test_random_sampler_more_samples_than_items_chains_permutations(num_samples: int) -> None:
    order = list(RandomSampler(range(5), num_samples=num_samples, generator=seeded(0)))
    assert len(order) == num_samples
    for start in range(0, num_samples - num_samples % 5, 5):
        assert sorted(order[start : start + 5]) == list(range(5))
    assert len(set(order[num_samples - num_samples % 5 :])) == num_samples % 5


@pytest.mark.parametrize("num_samples", [1, 31, 32, 33, 100])
def test_random_sampler_with_replacement(num_samples: int) -> None:
    sampler = RandomSampler(
        range(6), replacement=True, num_samples=num_samples, generator=seeded(0)
    )
    draws = list(sampler)
    assert len(draws) == len(sampler) == num_samples
    assert all(type(i) is int and 0 <= i < 6 for i in draws)
    again = RandomSampler(range(6), replacement=True, num_samples=num_samples, generator=seeded(0))
    assert list(again) == draws


def test_random_sampler_length_follows_the_dataset() -> None:
    data = [1, 2, 3]
    sampler = RandomSampler(data, generator=seeded(0))
    data.append(4)
    assert len(sampler) == 4
    assert sorted(sampler) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "kwargs",
    [{"replacement": 1}, {"num_samples": 0}, {"num_samples": 2.0}, {"num_samples": -1}],
)
def test_random_sampler_errors_match_torch(torch: Any, kwargs: dict) -> None:
    def build(lib: Any) -> Any:
        return data_of(lib).RandomSampler(range(3), **kwargs)

    assert outcome(build, hookgrad) == outcome(build, torch)
    assert outcome(build, hookgrad)[0] == "error"


def test_random_sampler_of_an_empty_dataset_is_refused(torch: Any) -> None:
    def build(lib: Any) -> Any:
        return data_of(lib).RandomSampler([])

    assert outcome(build, hookgrad) == outcome(build, torch)


def test_subset_random_sampler() -> None:
    indices = [10, 30, 20, 50]
    order = list(SubsetRandomSampler(indices, generator=seeded(0)))
    assert sorted(order) == sorted(indices)
    assert list(SubsetRandomSampler(indices, generator=seeded(0))) == order
    assert len(SubsetRandomSampler(indices)) == 4


def test_weighted_random_sampler_never_draws_zero_weights() -> None:
    with_replacement = list(WeightedRandomSampler([0.0, 2.0, 0.0, 1.0], 50, generator=seeded(0)))
    assert set(with_replacement) <= {1, 3}
    assert len(with_replacement) == 50
    without = list(WeightedRandomSampler([0.0, 2.0, 0.5, 1.0], 3, replacement=False))
    assert sorted(without) == [1, 2, 3]


@pytest.mark.parametrize(
    "weights, num_samples, replacement",
    [
        ([1.0, 2.0], 0, True),
        ([1.0, 2.0], True, True),
        ([1.0, 2.0], 1.5, True),
        ([1.0, 2.0], 2, 0),
        ([[1.0, 2.0]], 2, True),
    ],
)
def test_weighted_random_sampler_errors_match_torch(
    torch: Any, weights: Any, num_samples: Any, replacement: Any
) -> None:
    def build(lib: Any) -> Any:
        return data_of(lib).WeightedRandomSampler(weights, num_samples, replacement)

    assert outcome(build, hookgrad) == outcome(build, torch)
    assert outcome(build, hookgrad)[0] == "error"


def test_weighted_random_sampler_keeps_float64_weights() -> None:
    sampler = WeightedRandomSampler([1, 2, 3], 4)
    assert sampler.weights.dtype == hookgrad.float64
    assert len(sampler) == 4


@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 11])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_matches_torch(torch: Any, batch_size: int, drop_last: bool) -> None:
    ours = BatchSampler(SequentialSampler(range(10)), batch_size, drop_last)
    theirs = torch.utils.data.BatchSampler(range(10), batch_size, drop_last)
    assert list(ours) == list(theirs)
    assert len(ours) == len(theirs)


def test_batch_sampler_over_a_plain_iterable_without_length() -> None:
    batches = BatchSampler(iter("abcde"), 2, drop_last=False)
    assert list(batches) == [["a", "b"], ["c", "d"], ["e"]]


@pytest.mark.parametrize("batch_size, drop_last", [(0, False), (True, False), (2.0, False), (2, 1)])
def test_batch_sampler_errors_match_torch(torch: Any, batch_size: Any, drop_last: Any) -> None:
    def build(lib: Any) -> Any:
        return data_of(lib).BatchSampler(range(4), batch_size, drop_last)

    assert outcome(build, hookgrad) == outcome(build, torch)
    assert outcome(build, hookgrad)[0] == "error"


def test_sampler_subclasses_are_generic() -> None:
    class Backwards(hookgrad.utils.data.Sampler[int]):
        def __init__(self, n: int) -> None:
            self.n = n

        def __iter__(self) -> Any:
            return iter(range(self.n - 1, -1, -1))

    assert list(Backwards(3)) == [2, 1, 0]
    with pytest.raises(TypeError):
        len(Backwards(3))
