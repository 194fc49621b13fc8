"""No worker process outlives its program: at a normal exit with a pass (or persistent
workers) still running, and on Ctrl-C, whether the signal reaches the whole process group
(a terminal's Ctrl-C) or the main process only; the program itself reaps its workers.
Each case runs a small program."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.utils.data.test_worker import alive

PROGRAM = """
import sys, time
from hookgrad.utils.data import DataLoader, Dataset

class Slow(Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, index):
        time.sleep(0.05)
        return index

mode = sys.argv[1]
loader = DataLoader(Slow(), num_workers=2, persistent_workers=mode == "persistent")
iterator = iter(loader)
next(iterator)
print(" ".join(str(worker.pid) for worker in iterator._workers), flush=True)
if mode == "interrupt":
    time.sleep(30)
"""

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def run_until_workers_start(mode: str) -> tuple[subprocess.Popen, list[int]]:
    process = subprocess.Popen(
        [sys.executable, "-c", PROGRAM, mode],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    pids = [int(pid) for pid in process.stdout.readline().split()]
    assert len(pids) == 2
    return process, pids


def finish(process: subprocess.Popen) -> int:
    """Wait for the program; return its exit status."""
    status = process.wait(timeout=20)
    process.stdout.close()
    process.stderr.close()
    return status


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended and been reaped (no zombie left either)."""
    return not os.path.exists(f"/proc/{pid}")


@pytest.mark.parametrize("mode", ["exit", "persistent"])
def test_no_worker_outlives_a_normal_exit(mode: str) -> None:
    process, pids = run_until_workers_start(mode)
    assert finish(process) == 0
    assert all(gone(pid) for pid in pids)


@pytest.mark.parametrize("whole_group", [True, False])
def test_no_worker_outlives_ctrl_c(whole_group: bool) -> None:
    process, pids = run_until_workers_start("interrupt")
    assert all(alive(pid) for pid in pids)
    if whole_group:
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)
    stderr = process.stderr.read()
    assert finish(process) != 0
    assert stderr.count("KeyboardInterrupt") == 1  # the main program's; workers are quiet
    assert all(gone(pid) for pid in pids)
