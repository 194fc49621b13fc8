"""``DataLoader`` with worker processes: the same batches as in the main process, torch's
order for iterable datasets (interleaved, with and without sharding), worker seeding,
``get_worker_info``, ``worker_init_fn``, errors with their traceback, dead workers,
``timeout``, ``prefetch_factor``, ``persistent_workers``, ``in_order`` and start methods.
Datasets stay tiny: each test starts two or three processes."""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info
from hookgrad.utils.data.worker import numpy_seed_state
from tests.utils.data.common import data_of, structure


def stream(lib: Any, lengths: list[int], sharded: bool = False) -> Any:
    """Worker ``w`` yields ``100 * w + i`` for ``i < lengths[w]`` (all workers the same
    stream when not ``sharded``; in the main process ``0 .. lengths[0] - 1``)."""

    class Stream(data_of(lib).IterableDataset):
        def __iter__(self) -> Any:
            info = data_of(lib).get_worker_info()
            worker = 0 if info is None or not sharded else info.id
            return iter(range(100 * worker, 100 * worker + lengths[worker]))

    return Stream()


def ints(batches: list) -> list:
    return [b.tolist() if hasattr(b, "tolist") else b for b in batches]


def test_batches_equal_the_main_process_ones() -> None:
    data = TensorDataset(hookgrad.randn(11, 3), hookgrad.arange(11))
    here = list(DataLoader(data, batch_size=3))
    there = list(DataLoader(data, batch_size=3, num_workers=2))
    assert structure(there) == structure(here)


@pytest.mark.filterwarnings("ignore:This DataLoader will create 3 worker processes")
@pytest.mark.parametrize(
    "lengths, sharded, batch_size, drop_last",
    [
        ([5, 5], False, 2, False),
        ([3, 6], True, 2, False),
        ([6, 1, 4], True, 2, True),
        ([4, 0, 2], True, None, False),
    ],
)
def test_iterable_dataset_order_matches_torch(
    torch: Any, lengths: list, sharded: bool, batch_size: Any, drop_last: bool
) -> None:
    def load(lib: Any) -> Any:
        loader = data_of(lib).DataLoader(
            stream(lib, lengths, sharded),
            batch_size=batch_size,
            drop_last=drop_last,
            num_workers=len(lengths),
        )
        return ints(list(loader))

    ours = load(hookgrad)
    assert ours == load(torch)
    assert ours


def test_sharding_with_worker_init_fn() -> None:
    class Range(IterableDataset):
        def __init__(self, start: int, end: int) -> None:
            self.start, self.end = start, end

        def __iter__(self) -> Any:
            return iter(range(self.start, self.end))

    def split(worker_id: int) -> None:
        info = get_worker_info()
        per_worker = -(-(info.dataset.end - info.dataset.start) // info.num_workers)
        info.dataset.start += worker_id * per_worker
        info.dataset.end = min(info.dataset.start + per_worker, info.dataset.end)

    loader = DataLoader(Range(3, 8), num_workers=2, worker_init_fn=split)
    assert ints(list(loader)) == [[3], [6], [4], [7], [5]]


class WorkerFacts(Dataset):
    """Each sample reports, from inside its worker, what the worker knows."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> Any:
        info = get_worker_info()
        return {
            "index": index,
            "id": info.id,
            "num_workers": info.num_workers,
            "seed": info.seed,
            "same_dataset": info.dataset is self,
            "initial_seed": hookgrad.initial_seed(),
            "random": random.random(),
            "numpy": int(np.random.randint(1 << 30)),
            "pid": os.getpid(),
        }


def facts(**kwargs: Any) -> list[dict]:
    return list(DataLoader(WorkerFacts(), batch_size=None, num_workers=2, **kwargs))


def test_get_worker_info_and_seeding_follow_torch() -> None:
    generator = hookgrad.Generator().manual_seed(0)
    base_seed = int(hookgrad.empty((), dtype=hookgrad.int64).random_(generator=generator).item())
    samples = facts(generator=hookgrad.Generator().manual_seed(0))
    assert [s["id"] for s in samples] == [0, 1, 0, 1]
    for sample in samples:
        seed = base_seed + sample["id"]
        assert sample["num_workers"] == 2
        assert sample["same_dataset"]
        assert sample["seed"] == sample["initial_seed"] == seed
        assert len({s["pid"] for s in samples}) == 2
    first = {s["id"]: s for s in samples[:2]}
    for worker_id, sample in first.items():
        assert sample["random"] == random.Random(base_seed + worker_id).random()
        state = np.random.RandomState(numpy_seed_state(base_seed, worker_id))
        assert sample["numpy"] == state.randint(1 << 30)
    assert get_worker_info() is None


def test_numpy_seed_state_is_torchs(torch: Any) -> None:
    from torch.utils.data._utils.worker import _generate_state

    for base_seed in (0, 1, 2**32 + 7, 2**63 - 1, 1234567890123456789):
        for worker_id in (0, 1, 5):
            assert numpy_seed_state(base_seed, worker_id) == _generate_state(base_seed, worker_id)


def test_base_seed_is_drawn_from_the_generator_each_pass() -> None:
    generator = hookgrad.Generator().manual_seed(3)
    loader = DataLoader(WorkerFacts(), batch_size=None, num_workers=2, generator=generator)
    first, second = [s["seed"] for s in loader], [s["seed"] for s in loader]
    assert first != second
    assert first == [s["seed"] for s in facts(generator=hookgrad.Generator().manual_seed(3))]


def test_base_seed_is_drawn_before_the_shuffle(torch: Any) -> None:
    generator = hookgrad.Generator().manual_seed(5)
    loader = DataLoader(range(12), batch_size=5, shuffle=True, num_workers=2, generator=generator)
    order = [int(i) for batch in loader for i in batch]
    replay = hookgrad.Generator().manual_seed(5)
    hookgrad.empty((), dtype=hookgrad.int64).random_(generator=replay)
    assert order == hookgrad.randperm(12, generator=replay).tolist()


class Failing(Dataset):
    def __init__(self, error: Exception) -> None:
        self.error = error

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> int:
        if index == 2:
            raise self.error
        return index


def test_a_worker_error_reaches_the_main_process_with_its_traceback() -> None:
    loader = DataLoader(Failing(ValueError("bad sample")), num_workers=2)
    with pytest.raises(ValueError) as caught:
        list(loader)
    message = str(caught.value)
    assert message.startswith("Caught ValueError in DataLoader worker process 0.\n")
    assert "Original Traceback (most recent call last):" in message
    assert "raise self.error" in message
    assert message.rstrip().endswith("ValueError: bad sample")


def test_a_worker_key_error_stays_readable() -> None:
    with pytest.raises(KeyError) as caught:
        list(DataLoader(Failing(KeyError("missing")), num_workers=1))
    assert "\n" in str(caught.value)
    assert str(caught.value).startswith("Caught KeyError in DataLoader worker process 0.")


class TwoArgs(Exception):
    """An exception that cannot be built from one message (it must be importable: the
    worker sends its type by reference)."""

    def __init__(self, a: Any, b: Any) -> None:
        super().__init__(a, b)


def test_an_error_that_cannot_be_rebuilt_becomes_a_runtime_error() -> None:
    with pytest.raises(RuntimeError, match="Caught TwoArgs in DataLoader worker process 0"):
        list(DataLoader(Failing(TwoArgs(1, 2)), num_workers=1))


def test_an_error_in_worker_init_fn_reaches_the_main_process() -> None:
    def init(worker_id: int) -> None:
        raise ZeroDivisionError(f"init {worker_id}")

    with pytest.raises(ZeroDivisionError, match="(?s)Caught ZeroDivisionError.*init 0"):
        list(DataLoader(range(4), num_workers=2, worker_init_fn=init))


def test_worker_init_fn_runs_once_per_worker_after_seeding() -> None:
    class Seen(Dataset):
        def __len__(self) -> int:
            return 4

        def __getitem__(self, index: int) -> Any:
            return get_worker_info().dataset.init_seed

    def init(worker_id: int) -> None:
        info = get_worker_info()
        assert info.id == worker_id
        info.dataset.init_seed = (worker_id, hookgrad.initial_seed() - info.seed)

    loader = DataLoader(Seen(), batch_size=None, num_workers=2, worker_init_fn=init)
    assert list(loader) == [[0, 0], [1, 0], [0, 0], [1, 0]]  # default_convert: tuples -> lists


class Dying(Dataset):
    def __init__(self, how: str) -> None:
        self.how = how

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> int:
        if index == 1:
            if self.how == "exit":
                os._exit(3)
            os.kill(os.getpid(), 9)
        return index


@pytest.mark.parametrize("how, detail", [("exit", "exit code 3"), ("kill", "signal: Killed")])
def test_a_dead_worker_is_reported_at_once(how: str, detail: str) -> None:
    start = time.monotonic()
    with pytest.raises(
        RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"
    ) as caught:
        list(DataLoader(Dying(how), num_workers=2))
    assert time.monotonic() - start < 4  # not the 5 s status poll
    assert detail in str(caught.value.__cause__)


class Slow(Dataset):
    def __init__(self, seconds: float, slow_index: int = 0) -> None:
        self.seconds = seconds
        self.slow_index = slow_index

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> int:
        if index == self.slow_index:
            time.sleep(self.seconds)
        return index


def test_timeout() -> None:
    loader = DataLoader(Slow(1.0), num_workers=1, timeout=0.3)
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        next(iter(loader))


def test_out_of_order_batches_come_as_they_are_ready() -> None:
    loader = DataLoader(Slow(1.0), batch_size=None, num_workers=2, in_order=False)
    order = list(loader)
    assert sorted(order) == [0, 1, 2, 3]
    assert order[0] != 0
    in_order = DataLoader(Slow(0.2), batch_size=None, num_workers=2)
    assert list(in_order) == [0, 1, 2, 3]


def test_prefetch_factor_bounds_the_batches_requested_ahead() -> None:
    fetched = multiprocessing.Value("i", 0)

    class Counted(Dataset):
        def __len__(self) -> int:
            return 40

        def __getitem__(self, index: int) -> int:
            with fetched.get_lock():
                fetched.value += 1
            return index

    for prefetch_factor in (1, 3):
        fetched.value = 0
        loader = DataLoader(Counted(), batch_size=2, num_workers=2, prefetch_factor=prefetch_factor)
        iterator = iter(loader)
        ahead = 2 * 2 * prefetch_factor  # samples: batch size x workers x prefetch factor
        deadline = time.monotonic() + 10
        while fetched.value < ahead and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # time enough to fetch more, were more requested
        assert fetched.value == ahead
        assert next(iterator).tolist() == [0, 1]
        del iterator


def worker_pids(iterator: Any) -> list[int]:
    return [w.pid for w in iterator._workers]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_workers_are_shut_down_after_a_pass_and_when_a_pass_is_dropped() -> None:
    loader = DataLoader(range(10), batch_size=2, num_workers=2)
    iterator = iter(loader)
    assert len(list(iterator)) == 5
    assert not any(w.is_alive() for w in iterator._workers)
    dropped = iter(loader)
    next(dropped)
    pids = worker_pids(dropped)
    assert all(alive(pid) for pid in pids)
    del dropped
    assert not any(alive(pid) for pid in pids)


def test_persistent_workers_keep_their_processes_and_dataset_between_epochs() -> None:
    class Epochs(Dataset):
        def __len__(self) -> int:
            return 4

        def __getitem__(self, index: int) -> Any:
            dataset = get_worker_info().dataset
            dataset.reads = getattr(dataset, "reads", 0) + 1
            return (index, os.getpid(), dataset.reads)

    loader = DataLoader(Epochs(), batch_size=None, num_workers=2, persistent_workers=True)
    first = list(loader)
    iterator = loader._iterator
    partial = iter(loader)
    next(partial)
    second = list(loader)
    assert iter(loader) is iterator
    assert [s[0] for s in first] == [s[0] for s in second] == [0, 1, 2, 3]
    assert {s[1] for s in first} == {s[1] for s in second} == set(worker_pids(iterator))
    # Each worker read 2 samples in the first epoch and 2 (prefetched) in the abandoned one.
    assert [s[2] for s in second] == [5, 5, 6, 6]
    pids = worker_pids(iterator)
    assert all(alive(pid) for pid in pids)
    iterator._shutdown_workers()
    assert not any(alive(pid) for pid in pids)


def test_persistent_workers_restart_iterable_datasets() -> None:
    loader = DataLoader(
        stream(hookgrad, [3, 2], sharded=True), batch_size=2, num_workers=2, persistent_workers=True
    )
    expected = [[0, 1], [100, 101], [2]]
    assert ints(list(loader)) == expected
    assert ints(list(loader)) == expected
    loader._iterator._shutdown_workers()


def test_spawned_workers() -> None:
    data = TensorDataset(hookgrad.arange(6.0), hookgrad.arange(6))
    loader = DataLoader(data, batch_size=4, num_workers=1, multiprocessing_context="spawn")
    assert [x.tolist() for x, _ in loader] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0]]
