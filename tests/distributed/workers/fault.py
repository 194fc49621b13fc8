"""Run by ``tests/distributed/test_faults.py`` under ``mpiexec -n N``: the last rank raises
while the others wait for it in an all-reduce. The job must end, on every rank, with the
error shown, instead of hanging."""

import hookgrad as torch
import hookgrad.distributed as dist

dist.init_process_group("mpi")
if dist.get_rank() == dist.get_world_size() - 1:
    raise ValueError(f"boom on rank {dist.get_rank()}")
dist.all_reduce(torch.ones(2))
print("not reached", flush=True)
