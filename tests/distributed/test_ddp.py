"""``DistributedDataParallel`` in real MPI jobs (``workers/ddp.py`` holds the checks): MLP
and CNN training equal to one process on the whole batch (1e-10 relative in float64, 1e-4
in float32), ``no_sync``, unused parameters, communication hooks, buffers, user hooks and
the overlap of the first bucket's all-reduce with backward; the example through the
launcher; and what needs no job: the launcher's command, the engine's end-of-backward
callbacks, and the bucket assignment against torch's."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import hookgrad as hg
from hookgrad import engine
from hookgrad.distributed import run
from hookgrad.distributed.reducer import compute_bucket_assignment_by_size
from tests.distributed.mpi import ROOT, require_mpi4py, run_job


def test_ddp_on_two_processes():
    status, output, _ = run_job(2, "ddp")
    assert status == 0, output
    assert output.count("ddp ok") == 2, output


def test_ddp_training_on_three_processes():
    status, output, _ = run_job(3, "ddp", "training")
    assert status == 0, output
    assert output.count("ddp ok 48") == 3, output


def test_example_trains_the_digits_cnn_through_the_launcher():
    require_mpi4py()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    command = [
        sys.executable,
        "-m",
        "hookgrad.distributed.run",
        "-n",
        "2",
        "examples/ddp_digits.py",
        "--epochs",
        "1",
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    accuracy = float(re.findall(r"epoch 1: loss [\d.]+, held-out accuracy ([\d.]+)%", output)[0])
    assert accuracy > 75, output
    assert "(2 processes)" in output


def test_launcher_command():
    command = run.launch_command(["-n", "4", "train.py", "--epochs", "2"])
    assert command[0].endswith(("mpiexec", "mpirun"))
    assert command[1:] == ["-n", "4", sys.executable, "train.py", "--epochs", "2"]
    command = run.launch_command(["-n", "2", "--hostfile", "hosts", "-m", "pkg.train"])
    assert command[3:5] in (["-f", "hosts"], ["--hostfile", "hosts"])
    assert command[-2:] == ["-m", "pkg.train"]


def test_queue_callback_runs_at_the_end_of_backward(torch):
    log = []
    for lib, queue in (
        (torch, torch.autograd.Variable._execution_engine.queue_callback),
        (hg, engine.queue_callback),
    ):
        x = lib.ones(2, requires_grad=True)

        def hook(grad, lib=lib, queue=queue):
            queue(lambda: log.append((lib.__name__, "end", lib.is_grad_enabled())))
            queue(lambda: queue(lambda: log.append((lib.__name__, "queued by a callback"))))
            log.append((lib.__name__, "hook"))

        x.register_hook(hook)
        (x * 2).sum().backward()
        with pytest.raises(RuntimeError, match="Final callbacks can only be installed"):
            queue(lambda: None)
    ours = [entry[1:] for entry in log if entry[0] == "hookgrad"]
    theirs = [entry[1:] for entry in log if entry[0] == "torch"]
    assert ours == theirs == [("hook",), ("end", False), ("queued by a callback",)]


@pytest.mark.parametrize("limits", [[400, 1000], [1 << 62], [2_000]])
def test_bucket_assignment_is_torchs(torch, limits):
    shapes = [
        (100, "float32"),
        (300, "float64"),
        (50, "float32"),
        (400, "float32"),
        (10, "float64"),
        (5, "float32"),
        (7, "float64"),
    ]
    ours = [hg.zeros(n, dtype=getattr(hg, dtype)) for n, dtype in shapes]
    theirs = [torch.zeros(n, dtype=getattr(torch, dtype)) for n, dtype in shapes]
    expected, _ = torch.distributed._compute_bucket_assignment_by_size(theirs, limits)
    assert compute_bucket_assignment_by_size(ours, limits) == expected
