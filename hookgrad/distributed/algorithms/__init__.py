"""``hookgrad.distributed.algorithms``: ``ddp_comm_hooks``, the communication hooks of
``DistributedDataParallel``."""

from hookgrad.distributed.algorithms import ddp_comm_hooks

__all__ = ["ddp_comm_hooks"]
