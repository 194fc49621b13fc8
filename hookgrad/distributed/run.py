"""``python -m hookgrad.distributed.run``: start a training script on N processes.

A thin wrapper over MPI's own launcher: it finds ``mpiexec`` (the one installed beside
this Python first, e.g. by ``pip install mpich``, else the first on ``PATH``) and replaces
itself with::

    mpiexec -n N [-f HOSTFILE] PYTHON SCRIPT ARGS...

so MPI starts the processes, places them on the hosts, forwards their output and signals,
and ends the job when one fails. Every option of ``mpiexec`` remains available by calling
it directly. Examples::

    python -m hookgrad.distributed.run -n 4 train.py --epochs 3
    python -m hookgrad.distributed.run -n 16 --hostfile hosts.txt train.py
    python -m hookgrad.distributed.run -n 2 -m mypackage.train
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

__all__ = ["find_mpiexec", "launch_command", "main"]


def find_mpiexec() -> str:
    """The ``mpiexec`` to use: beside this Python (a virtual environment's), else on
    ``PATH``; a RuntimeError naming what to install if there is none."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise RuntimeError(
            "no mpiexec found: pip install mpich (or install a system MPI), "
            "or name one with --mpiexec"
        )
    return found


def _hostfile_flag(mpiexec: str) -> str:
    """MPICH's Hydra reads a host file with ``-f``, Open MPI with ``--hostfile``."""
    try:
        version = subprocess.run(
            [mpiexec, "--version"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        version = ""
    return "--hostfile" if "Open MPI" in version or "OpenRTE" in version else "-f"


def launch_command(argv: list[str] | None = None) -> list[str]:
    """The ``mpiexec`` command line for the launcher's arguments ``argv``. Example::

    launch_command(["-n", "2", "train.py"])
    # ['/venv/bin/mpiexec', '-n', '2', '/venv/bin/python', 'train.py']
    """
    parser = argparse.ArgumentParser(
        prog="python -m hookgrad.distributed.run",
        description="Start a script on N MPI processes (a thin wrapper over mpiexec).",
    )
    parser.add_argument(
        "-n",
        "--nproc",
        "--nproc-per-node",
        "--nproc_per_node",
        type=int,
        default=1,
        dest="nproc",
        help="number of processes in all (default 1)",
    )
    parser.add_argument("--hostfile", help="MPI host file: one host a line (host:slots)")
    parser.add_argument("--hosts", help="comma-separated host names")
    parser.add_argument("--mpiexec", help="the mpiexec to run (default: found)")
    parser.add_argument("-m", dest="module", action="store_true", help="run a module")
    parser.add_argument("script", help="the training script (or module with -m)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    options = parser.parse_args(argv)
    if options.nproc < 1:
        parser.error(f"-n must be at least 1, got {options.nproc}")
    mpiexec = options.mpiexec or find_mpiexec()
    command = [mpiexec, "-n", str(options.nproc)]
    if options.hostfile:
        command += [_hostfile_flag(mpiexec), options.hostfile]
    if options.hosts:
        command += ["-hosts" if _hostfile_flag(mpiexec) == "-f" else "--host", options.hosts]
    command.append(sys.executable)
    if options.module:
        command.append("-m")
    return command + [options.script, *options.args]


def main(argv: list[str] | None = None) -> None:
    """Replace this process with ``mpiexec`` running the script (see the module
    docstring)."""
    command = launch_command(argv)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
