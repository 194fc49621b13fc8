"""``DistributedSampler`` with explicit ``num_replicas``/``rank``: torch's shares, padding
and dropping, ``set_epoch`` and errors. (Exact shuffled orders are compared with torch in
``test_torch_streams.py``.)"""

from __future__ import annotations

from typing import Any

import pytest

import hookgrad
from hookgrad.utils.data import DistributedSampler
from tests.oracle import outcome
from tests.utils.data.common import data_of


@pytest.mark.parametrize("length", [1, 7, 8, 10])
@pytest.mark.parametrize("num_replicas", [1, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_shares_match_torch(
    torch: Any, length: int, num_replicas: int, drop_last: bool
) -> None:
    for rank in range(num_replicas):
        kwargs = dict(num_replicas=num_replicas, rank=rank, shuffle=False, drop_last=drop_last)
        ours = DistributedSampler(range(length), **kwargs)
        theirs = torch.utils.data.DistributedSampler(range(length), **kwargs)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


def shares(length: int, num_replicas: int, epoch: int, drop_last: bool = False) -> list[list[int]]:
    result = []
    for rank in range(num_replicas):
        sampler = DistributedSampler(
            range(length), num_replicas=num_replicas, rank=rank, seed=7, drop_last=drop_last
        )
        sampler.set_epoch(epoch)
        result.append(list(sampler))
    return result


def test_shuffled_shares_cover_the_dataset_once_per_epoch() -> None:
    parts = shares(12, 3, epoch=0)
    assert sorted(i for part in parts for i in part) == list(range(12))
    assert parts != [list(range(r, 12, 3)) for r in range(3)]


def test_shuffled_shares_pad_with_the_start_of_the_order() -> None:
    parts = shares(10, 4, epoch=0)
    assert [len(part) for part in parts] == [3, 3, 3, 3]
    everything = [i for part in parts for i in part]
    assert set(everything) == set(range(10))
    assert len(everything) == 12


def test_set_epoch_changes_the_order_and_the_same_epoch_repeats_it() -> None:
    assert shares(20, 2, epoch=1) == shares(20, 2, epoch=1)
    assert shares(20, 2, epoch=1) != shares(20, 2, epoch=2)


def test_drop_last_cuts_the_order() -> None:
    parts = shares(10, 4, epoch=0, drop_last=True)
    assert [len(part) for part in parts] == [2, 2, 2, 2]
    assert len({i for part in parts for i in part}) == 8


@pytest.mark.parametrize("rank", [-1, 2, 5])
def test_invalid_rank_matches_torch(torch: Any, rank: int) -> None:
    def build(lib: Any) -> Any:
        return data_of(lib).DistributedSampler(range(4), num_replicas=2, rank=rank)

    assert outcome(build, hookgrad) == outcome(build, torch)
    assert outcome(build, hookgrad)[0] == "error"


def test_without_replicas_it_needs_a_process_group() -> None:
    # as torch: the default process group gives them, and there is none here
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))
