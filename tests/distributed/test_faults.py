"""Faults in real MPI jobs: a rank that raises ends every rank, with its error shown and
no hang. (A collective with mismatched shapes raising a clear error on every rank is
checked in ``workers/collectives.py``.)"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.distributed.mpi import ROOT, run_job


def test_a_rank_that_raises_ends_the_job():
    status, output, seconds = run_job(3, "fault", timeout=60)
    assert status != 0, output
    assert "ValueError: boom on rank 2" in output, output
    assert "not reached" not in output, output
    assert seconds < 30, seconds


def test_world_size_without_a_launcher_is_refused():
    env = dict(os.environ, WORLD_SIZE="2")
    for name in (
        "RANK",
        "MASTER_ADDR",
        "MASTER_PORT",
        "PMI_RANK",
        "PMI_FD",
        "PMIX_RANK",
        "OMPI_COMM_WORLD_RANK",
        "MPI_LOCALRANKID",
    ):
        env.pop(name, None)
    code = "import hookgrad.distributed as d; d.init_process_group('mpi')"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
    )
    assert done.returncode != 0
    assert "WORLD_SIZE=2, but no MPI launcher started this process" in done.stderr
    assert "RANK, MASTER_ADDR, MASTER_PORT is not set" in done.stderr
