"""Starting MPI in processes that an MPI launcher did not start: torchrun-style
``RANK``/``WORLD_SIZE`` variables mapped onto the MPI world.

Under ``mpiexec`` there is nothing to do: the launcher tells each process its rank. A
process started otherwise, with ``WORLD_SIZE`` > 1 in its environment, is refused with a
message that says how to start it.
"""

from __future__ import annotations

import os

from hookgrad.distributed import transport

__all__ = ["prepare_environment"]


def prepare_environment() -> None:
    """Check, before MPI starts, that this process can join a world of ``WORLD_SIZE``."""
    if transport.loaded() is not None or transport.launched_by_mpi():
        return
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size <= 1:
        return
    raise RuntimeError(
        f"init_process_group: WORLD_SIZE={world_size}, but no MPI launcher started this "
        "process. Start the processes with `mpiexec -n N python script.py` or "
        "`python -m hookgrad.distributed.run -n N script.py`."
    )
