"""``hookgrad.nn.parallel``: wrappers that run a module on several devices or processes;
``DataParallel``, which runs it on the CPU as torch does without GPUs, and
``DistributedDataParallel``, data-parallel training over the processes of an MPI job."""

from hookgrad.nn.parallel.data_parallel import DataParallel
from hookgrad.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
