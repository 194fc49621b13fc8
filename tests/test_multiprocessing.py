"""``hookgrad.multiprocessing``: tensors moved into shared memory are the same memory in
every process (through ``spawn``'s arguments, a ``Queue``, a forked child); other
tensors travel as copies; ``spawn`` re-raises a child's failure as torch's does."""

from __future__ import annotations

import pickle

import pytest

import hookgrad
import hookgrad.multiprocessing as mp
from hookgrad import nn


def _train(rank, weight, queue):
    """A Hogwild-style worker: writes into the shared weight and into what it receives."""
    weight[rank] += rank + 1
    received = queue.get()
    with hookgrad.no_grad():
        received.mul_(10)


def _fail(rank):
    if rank == 1:
        raise ValueError("worker 1 failed")


def _exit(rank):
    raise SystemExit(3)


def test_spawn_shares_memory_through_arguments_and_queues():
    weight = hookgrad.zeros(3).share_memory_()
    queue = mp.get_context("spawn").Queue()
    shared = nn.Parameter(hookgrad.ones(2)).share_memory_()
    queue.put(shared)
    queue.put(shared)
    mp.spawn(_train, args=(weight, queue), nprocs=2)
    assert weight.tolist() == [1.0, 2.0, 0.0]
    assert shared.tolist() == [100.0, 100.0]


def test_a_tensor_not_shared_travels_as_a_copy():
    weight = hookgrad.zeros(3).share_memory_()
    queue = mp.get_context("fork").Queue()
    plain = hookgrad.ones(2)
    queue.put(plain)
    process = mp.get_context("fork").Process(target=_train, args=(0, weight, queue))
    process.start()
    process.join()
    assert process.exitcode == 0
    assert weight.tolist() == [1.0, 0.0, 0.0]  # the forked child's write is seen
    assert plain.tolist() == [1.0, 1.0]  # the child changed its copy


def test_shared_tensors_pickle_for_another_process_as_shared_memory():
    weight = nn.Parameter(hookgrad.arange(4.0)[1:]).share_memory_()
    copied = pickle.loads(mp.reductions.ForkingPickler.dumps(weight))
    assert type(copied) is nn.Parameter and copied.requires_grad and copied.is_shared()
    copied.data.add_(1.0)
    assert weight.tolist() == [2.0, 3.0, 4.0]
    plain = pickle.loads(mp.reductions.ForkingPickler.dumps(hookgrad.ones(2)))
    assert not plain.is_shared()


def test_spawn_reraises_a_childs_exception():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(_fail, nprocs=2)
    assert info.value.error_index == 1
    assert "ValueError: worker 1 failed" in str(info.value)
    assert "-- Process 1 terminated with the following error:" in str(info.value)


def test_start_processes_reports_an_exit_code():
    context = mp.start_processes(_exit, nprocs=1, join=False, start_method="fork")
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3"):
        while not context.join():
            pass


def test_module_matches_torchs(torch):
    assert mp.get_sharing_strategy() == torch.multiprocessing.get_sharing_strategy()
    assert mp.get_all_sharing_strategies() == torch.multiprocessing.get_all_sharing_strategies()
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError, match="invalid sharing strategy 'shm'"):
        mp.set_sharing_strategy("shm")
    missing = sorted(set(torch.multiprocessing.__all__) - set(dir(mp)))
    assert missing == []
    assert hookgrad.multiprocessing is mp
