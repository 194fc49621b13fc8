"""Starting MPI in processes that no MPI launcher started: torchrun-style ``RANK``,
``WORLD_SIZE``, ``MASTER_ADDR`` and ``MASTER_PORT`` mapped onto the MPI world.

Under ``mpiexec`` there is nothing to do: the launcher's process manager tells each
process its rank and lets the processes find each other. Processes started another way
(by ``torchrun``, a job script, by hand) get that process manager from rank 0 instead:
before MPI starts, rank 0 starts a small server (``pmi_server.py``, in its own process:
MPI's start holds the interpreter) for MPI's process-management interface (PMI-1, the
simple line protocol of MPICH's Hydra) on ``MASTER_ADDR:MASTER_PORT`` (``MASTER_PORT + 1`` under
torchrun, whose agent holds ``MASTER_PORT``), and every rank points MPICH at it through
``PMI_PORT``/``PMI_ID``. The processes then form one MPI world of ``WORLD_SIZE`` with ranks
as given. MPICH's own launcher is not involved, so ending the other processes when one
fails is the starting tool's job (torchrun does it).

Only MPICH (``pip install mpich``) speaks this protocol; with Open MPI, start the
processes with ``mpirun``.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from hookgrad.distributed import transport

__all__ = ["prepare_environment", "serve_pmi"]

_servers: list[subprocess.Popen[bytes]] = []

CONNECT_TIMEOUT = 300.0


def prepare_environment() -> None:
    """Before MPI starts: if ``WORLD_SIZE`` > 1 and no MPI launcher started this process,
    join the torchrun-style world (rank 0 serves PMI, see the module docstring)."""
    if transport.loaded() is not None or transport.launched_by_mpi():
        return
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size <= 1:
        return
    missing = [v for v in ("RANK", "MASTER_ADDR", "MASTER_PORT") if v not in os.environ]
    if missing:
        raise RuntimeError(
            f"init_process_group: WORLD_SIZE={world_size}, but no MPI launcher started this "
            f"process and {', '.join(missing)} is not set. Start the processes with "
            "`mpiexec -n N python script.py` or `python -m hookgrad.distributed.run -n N "
            "script.py`, or set RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in each."
        )
    rank = int(os.environ["RANK"])
    if not 0 <= rank < world_size:
        raise ValueError(f"init_process_group: RANK={rank} is not in [0, {world_size})")
    address = os.environ["MASTER_ADDR"]
    port = int(os.environ["MASTER_PORT"])
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true":
        port += 1  # torchrun's agent holds MASTER_PORT for its store
    if rank == 0:
        serve_pmi(address, port, world_size, _process_mapping(address, world_size))
    _wait_for(address, port)
    os.environ.update(
        PMI_PORT=f"{address}:{port}",
        PMI_ID=str(rank),
        PMI_RANK=str(rank),
        PMI_SIZE=str(world_size),
    )


def _process_mapping(address: str, world_size: int) -> str:
    """PMI's map of ranks to machines (``(vector,(first node, nodes, ranks per node))``),
    which MPICH uses to choose shared memory between processes on one machine: torchrun's
    ``LOCAL_WORLD_SIZE`` ranks per machine if set, all on one machine for a loopback
    ``MASTER_ADDR``, else one per machine (always correct, perhaps slower)."""
    local = int(os.environ.get("LOCAL_WORLD_SIZE", "0"))
    if local > 0 and world_size % local == 0:
        return f"(vector,(0,{world_size // local},{local}))"
    try:
        loopback = ipaddress.ip_address(socket.gethostbyname(address)).is_loopback
    except (OSError, ValueError):
        loopback = False
    if loopback:
        return f"(vector,(0,1,{world_size}))"
    return f"(vector,(0,{world_size},1))"


def _wait_for(address: str, port: int) -> None:
    """Wait until rank 0 serves PMI (it may start later than this process)."""
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        try:
            with socket.create_connection((address, port), timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"init_process_group: rank 0 did not answer on {address}:{port} within "
                    f"{CONNECT_TIMEOUT:.0f} s (MASTER_ADDR/MASTER_PORT)"
                ) from None
            time.sleep(0.1)


def serve_pmi(address: str, port: int, size: int, mapping: str) -> subprocess.Popen[bytes]:
    """Start the PMI-1 server for a job of ``size`` processes on ``address:port`` in a
    child process (it ends when every process has finalized MPI, or when this one ends)."""
    script = Path(__file__).with_name("pmi_server.py")
    server = subprocess.Popen(
        [sys.executable, str(script), address, str(port), str(size), mapping, str(os.getpid())]
    )
    _servers.append(server)
    return server
