"""Row blocks on the intra-op threads: every row once, the same result for any thread
count, errors raised in the caller, and torch's random numbers from the blocked kernel."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import hookgrad
from hookgrad.ops.kernels.parallel import for_row_blocks


@pytest.fixture
def threads():
    """Set the intra-op thread count for a test, and put it back after."""
    before = hookgrad.get_num_threads()
    yield hookgrad.set_num_threads
    hookgrad.set_num_threads(before)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_every_row_once_in_blocks_of_the_grain(threads, count):
    threads(count)
    seen: list[tuple[int, int, str]] = []
    lock = threading.Lock()

    def kernel(rows: slice) -> None:
        with lock:
            seen.append((rows.start, rows.stop, threading.current_thread().name))

    for_row_blocks(10, 4, kernel)
    assert sorted((start, stop) for start, stop, _ in seen) == [(0, 4), (4, 8), (8, 10)]
    names = {name for _, _, name in seen}
    if count == 1:
        assert names == {threading.current_thread().name}
    else:
        assert all(name.startswith("hookgrad-intra-op") for name in names)


def test_one_block_runs_in_the_calling_thread(threads):
    threads(2)
    names = []
    for_row_blocks(3, 8, lambda rows: names.append(threading.current_thread().name))
    assert names == [threading.current_thread().name]


def test_an_error_in_a_block_reaches_the_caller(threads):
    threads(2)

    def kernel(rows: slice) -> None:
        if rows.start == 4:
            raise ValueError("block 4 failed")

    with pytest.raises(ValueError, match="block 4 failed"):
        for_row_blocks(12, 4, kernel)


def test_a_forked_child_runs_blocks_on_its_own_threads(threads):
    threads(2)
    for_row_blocks(8, 2, lambda rows: None)  # the parent's pool exists
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        out = np.zeros(8)
        for_row_blocks(8, 2, lambda rows: out.__setitem__(rows, 1.0))
        os._exit(0 if out.sum() == 8 else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.parametrize("count", [1, 2])
def test_long_normal_is_torchs_on_any_thread_count(torch, threads, count):
    """float32 ``normal_`` of more than one block of Box-Muller rows: torch's values."""
    threads(count)
    size = 16 * 4096 * 2 + 21  # two full blocks, a partial one and a tail
    hookgrad.manual_seed(5)
    torch.manual_seed(5)
    got = hookgrad.empty(size).normal_(1.5, 2.0).numpy()
    expected = torch.empty(size).normal_(1.5, 2.0).numpy()
    assert np.array_equal(got, expected)
