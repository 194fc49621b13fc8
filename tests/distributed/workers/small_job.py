"""Run by ``tests/distributed/test_collectives.py`` in processes started torchrun-style
(``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``, no mpiexec): the ranks are the
ones given, a collective and a DDP step work. Prints ``small job ok <rank>``."""

import os

import hookgrad as torch
import hookgrad.distributed as dist
from hookgrad import nn

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
assert (rank, world) == (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
assert t.item() == world * (world + 1) / 2, t
torch.manual_seed(rank)
model = nn.parallel.DistributedDataParallel(nn.Linear(3, 1))
model(torch.ones(2, 3) * rank).sum().backward()
grads = [torch.zeros(3) for _ in range(world)]
dist.all_gather(grads, model.module.weight.grad.reshape(3))
assert all(torch.equal(g, grads[0]) for g in grads), grads
dist.destroy_process_group()
print(f"small job ok {rank}", flush=True)
