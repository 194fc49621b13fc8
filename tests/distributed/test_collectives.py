"""Every collective of ``hookgrad.distributed`` against a NumPy reference, in real MPI jobs
of 2 and 3 processes (``workers/collectives.py`` holds the checks), and what needs no
job: the errors before ``init_process_group``, ``ReduceOp``."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import warnings

import pytest

import hookgrad as hg
import hookgrad.distributed as dist
from tests.distributed.mpi import ROOT, WORKERS, require_mpi4py, run_job


@pytest.mark.parametrize("processes", [2, 3])
def test_every_collective_matches_numpy(processes):
    status, output, _ = run_job(processes, "collectives")
    assert status == 0, output
    # each rank's count of checks (the lines of several ranks may interleave)
    counts = [int(n) for n in re.findall(r"collectives ok (\d+)", output)]
    assert len(counts) == processes, output
    assert min(counts) > 300, counts


def test_torchrun_style_environment_forms_the_mpi_world():
    """Processes started without mpiexec, with RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT as
    torchrun sets them, form one MPI world with those ranks."""
    require_mpi4py()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "PMIX_", "OMPI_"))}
    base.update(
        WORLD_SIZE="2",
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    )
    processes = [
        subprocess.Popen(
            [sys.executable, str(WORKERS / "small_job.py")],
            cwd=ROOT,
            env=dict(base, RANK=str(rank)),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for rank in (1, 0)
    ]
    outputs = [p.communicate(timeout=60)[0] for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    assert [re.findall(r"small job ok (\d)", output) for output in outputs] == [["1"], ["0"]]


def test_collective_before_init_is_torchs_error(torch):
    expected = "Default process group has not been initialized"
    for call in (
        lambda d, t: d.all_reduce(t.ones(2)),
        lambda d, t: d.get_rank(),
        lambda d, t: d.barrier(),
        lambda d, t: d.get_world_size(),
    ):
        with pytest.raises(ValueError, match=expected):
            call(torch.distributed, torch)
        with pytest.raises(ValueError, match=expected):
            call(dist, hg)
    assert dist.is_initialized() is torch.distributed.is_initialized() is False
    assert dist.is_available()


def test_reduce_op_as_torchs(torch):
    theirs = torch.distributed.ReduceOp
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        ours = getattr(dist.ReduceOp, name)
        assert (str(ours), repr(ours)) == (str(getattr(theirs, name)), repr(getattr(theirs, name)))
        assert dist.ReduceOp(ours) == ours
        assert dist.supports_complex(ours) == torch.distributed.supports_complex(
            getattr(theirs, name)
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.reduce_op.MAX is dist.ReduceOp.MAX
    assert caught[0].category is FutureWarning
    assert "`torch.distributed.reduce_op` is deprecated" in str(caught[0].message)


def test_backends():
    assert dist.Backend("MPI") == "mpi" and dist.Backend.GLOO == "gloo"
    assert dist.is_mpi_available() and dist.is_backend_available("gloo")
    assert not dist.is_nccl_available()
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        dist.init_process_group("nccl")


def test_errors_and_debug_level_as_torchs(torch):
    theirs = torch.distributed
    for name in (
        "DistError",
        "DistBackendError",
        "DistNetworkError",
        "DistStoreError",
        "QueueEmptyError",
    ):
        ours_mro = [c.__name__ for c in getattr(dist, name).__mro__]
        assert ours_mro == [c.__name__ for c in getattr(theirs, name).__mro__]
    assert list(dist.DebugLevel.__members__) == list(theirs.DebugLevel.__members__)
    assert dist.get_debug_level() is dist.DebugLevel.OFF
    dist.set_debug_level(dist.DebugLevel.DETAIL)
    assert dist.get_debug_level() is dist.DebugLevel.DETAIL
    dist.set_debug_level(dist.DebugLevel.OFF)
    assert dist.get_default_backend_for_device("cpu") == "mpi"
