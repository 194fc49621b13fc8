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
    """The mpiexec to use; the test is skipped, saying why, where there is no MPI."""
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    found = shutil.which("mpiexec")
    if found is None:
        pytest.skip("no MPI here: pip install mpi4py mpich (the test extra installs them)")
    return found


def run_job(n: int, worker: str, *args: str, timeout: float = 60) -> tuple[int, str, float]:
    """Run a worker on ``n`` processes; return (exit status, output, seconds)."""
    pytest.importorskip("mpi4py", reason="no mpi4py: pip install mpi4py mpich")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    command = [mpiexec(), "-n", str(n), sys.executable, str(WORKERS / f"{worker}.py"), *args]
    start = time.monotonic()
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )
    return done.returncode, done.stdout + done.stderr, time.monotonic() - start
