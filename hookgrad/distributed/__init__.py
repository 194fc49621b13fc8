"""``hookgrad.distributed`` (``torch.distributed`` under ``import hookgrad as torch``):
processes that train together, on MPI.

The transport is MPI through ``mpi4py`` (``pip install mpi4py mpich`` brings a complete
MPI with ``mpiexec``; a system Open MPI or MPICH works as well), so the same program runs
on the cores of one machine or on a cluster's nodes::

    mpiexec -n 4 python train.py                          # or:
    python -m hookgrad.distributed.run -n 4 train.py      # a thin wrapper over mpiexec

and in ``train.py``::

    import hookgrad as torch
    import hookgrad.distributed as dist

    dist.init_process_group("mpi")
    t = torch.tensor([float(dist.get_rank())])
    dist.all_reduce(t)                     # the sum over the ranks, on every rank
    model = torch.nn.parallel.DistributedDataParallel(model)

Modules: ``process_group`` (``init_process_group``, groups, rank queries),
``collectives`` (the collectives on tensors and point-to-point messages),
``object_collectives`` (the same for picklable objects), ``reduce_op``, ``errors``
(``DistError`` and its kinds, ``DebugLevel``), ``work`` (the
handle of an ``async_op=True`` call), ``transport`` (MPI itself: loading it, datatypes,
reductions), ``bootstrap`` (torchrun-style start), ``run`` (the launcher),
``algorithms.ddp_comm_hooks`` (``DistributedDataParallel``'s communication hooks).
``mpi4py`` is imported, and MPI started, by ``init_process_group`` only.
"""

from hookgrad.distributed import algorithms
from hookgrad.distributed.collectives import (
    all_gather,
    all_gather_coalesced,
    all_gather_into_tensor,
    all_reduce,
    all_reduce_coalesced,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    gather,
    monitored_barrier,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
)
from hookgrad.distributed.errors import (
    DebugLevel,
    DistBackendError,
    DistError,
    DistNetworkError,
    DistStoreError,
    QueueEmptyError,
    get_debug_level,
    set_debug_level,
    set_debug_level_from_env,
)
from hookgrad.distributed.grad_bucket import GradBucket
from hookgrad.distributed.object_collectives import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from hookgrad.distributed.point_to_point import P2POp, batch_isend_irecv, irecv, isend, recv, send
from hookgrad.distributed.process_group import (
    Backend,
    GroupMember,
    ProcessGroup,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_default_backend_for_device,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_pg_count,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_backend_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    is_ucc_available,
    is_xccl_available,
    new_group,
    new_subgroups,
    new_subgroups_by_enumeration,
)
from hookgrad.distributed.reduce_op import ReduceOp, reduce_op, supports_complex
from hookgrad.distributed.work import Work

__all__ = [
    "Backend",
    "DebugLevel",
    "DistBackendError",
    "DistError",
    "DistNetworkError",
    "DistStoreError",
    "QueueEmptyError",
    "GradBucket",
    "GroupMember",
    "P2POp",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "algorithms",
    "all_gather",
    "all_gather_coalesced",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_reduce_coalesced",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "broadcast_object_list",
    "default_pg_timeout",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_debug_level",
    "get_default_backend_for_device",
    "get_global_rank",
    "get_group_rank",
    "get_node_local_rank",
    "get_pg_count",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_backend_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "is_ucc_available",
    "is_xccl_available",
    "isend",
    "monitored_barrier",
    "new_group",
    "new_subgroups",
    "new_subgroups_by_enumeration",
    "recv",
    "recv_object_list",
    "reduce",
    "reduce_op",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
    "send_object_list",
    "set_debug_level",
    "set_debug_level_from_env",
    "supports_complex",
]
