"""Every collective of ``hookgrad.distributed`` against a NumPy reference, in real MPI jobs
of 2 and 3 processes (``workers/collectives.py`` holds the checks), and what needs no
job: the errors before ``init_process_group``, ``ReduceOp``."""

from __future__ import annotations

import warnings

import pytest

import hookgrad as hg
import hookgrad.distributed as dist
from tests.distributed.mpi import run_job


@pytest.mark.parametrize("processes", [2, 3])
def test_every_collective_matches_numpy(processes):
    status, output, _ = run_job(processes, "collectives")
    assert status == 0, output
    lines = [line for line in output.splitlines() if line.startswith("collectives ok")]
    assert len(lines) == processes, output
    assert all(int(line.split()[-1]) > 300 for line in lines), lines


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
