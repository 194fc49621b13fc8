"""Starting real MPI jobs from the tests: ``run_job(n, worker, *args)`` runs
``mpiexec -n n python tests/distributed/workers/<worker>.py args`` with the mpiexec beside
this Python (``pip install mpich``, in the test extra) or on PATH, one BLAS thread per
process, and a time limit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

WORKERS = Path(__file__).parent / "workers"
ROOT = Path(__file__).parents[2]


def mpiexec() -> str:
    """The mpiexec to use; the test fails, saying what to install, where there is none (the
    test extra installs MPI, so its absence is a broken environment, not a reason to skip)."""
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    found = shutil.which("mpiexec")
    assert found is not None, "no mpiexec: pip install mpi4py mpich (the test extra has them)"
    return found


def require_mpi4py() -> None:
    """Fail, saying what to install, where mpi4py is missing."""
    try:
        import mpi4py  # noqa: F401
    except ImportError as error:  # pragma: no cover - a broken test environment
        pytest.fail(f"mpi4py is missing ({error}): pip install mpi4py mpich")


def run_job(n: int, worker: str, *args: str, timeout: float = 60) -> tuple[int, str, float]:
    """Run a worker (a name in ``workers/``, or a script's path) on ``n`` processes;
    return (exit status, output, seconds)."""
    require_mpi4py()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    command = [
        mpiexec(),
        "-n",
        str(n),
        sys.executable,
        str(WORKERS / f"{worker}.py") if "/" not in worker else worker,
        *args,
    ]
    start = time.monotonic()
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )
    return done.returncode, done.stdout + done.stderr, time.monotonic() - start
