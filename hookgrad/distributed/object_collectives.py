"""Collectives on picklable Python objects: ``broadcast_object_list``,
``all_gather_object``, ``gather_object``, ``scatter_object_list``, ``send_object_list``
and ``recv_object_list``, with torch's in-place list conventions.

Objects travel pickled (mpi4py's object messages), as in torch: only exchange objects
with processes you trust, since unpickling can run code.
"""

from __future__ import annotations

from typing import Any

from hookgrad.distributed import transport
from hookgrad.distributed.collective_args import _root
from hookgrad.distributed.point_to_point import _peer
from hookgrad.distributed.process_group import ProcessGroup, not_member, resolve

__all__ = [
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "recv_object_list",
    "scatter_object_list",
    "send_object_list",
]


def broadcast_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: ProcessGroup | None = None,
    device: Any = None,
    group_src: int | None = None,
) -> None:
    """Replace the items of ``object_list`` on every rank by those of rank ``src``
    (default 0); the lists must have the same length everywhere. Example::

        config = [load_config()] if rank == 0 else [None]
        dist.broadcast_object_list(config, src=0)
    """
    group = resolve(group)
    root = _root(group, src, group_src, "broadcast_object_list", default=True)
    if not_member(group, "broadcast_object_list"):
        return
    received = group._comm.bcast(list(object_list) if group.rank() == root else None, root=root)
    if len(received) != len(object_list):
        raise RuntimeError(
            f"broadcast_object_list: rank {root} sent {len(received)} objects but this "
            f"rank's object_list has {len(object_list)}"
        )
    object_list[:] = received


def all_gather_object(object_list: list[Any], obj: Any, group: ProcessGroup | None = None) -> None:
    """Fill ``object_list`` (one item per rank) with every rank's ``obj``. Example::

    stats = [None] * dist.get_world_size()
    dist.all_gather_object(stats, {"rank": rank, "loss": loss})
    """
    group = resolve(group)
    if not_member(group, "all_gather_object"):
        return
    gathered = group._comm.allgather(obj)
    if len(object_list) != len(gathered):
        raise RuntimeError(
            f"all_gather_object: object_list has {len(object_list)} items but the group "
            f"has {len(gathered)} ranks"
        )
    object_list[:] = gathered


def gather_object(
    obj: Any,
    object_gather_list: list[Any] | None = None,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    group_dst: int | None = None,
) -> None:
    """Fill ``object_gather_list`` on rank ``dst`` (default 0) with every rank's ``obj``;
    the other ranks pass None. Example::

        out = [None] * world if rank == 0 else None
        dist.gather_object(f"rank {rank}", out, dst=0)
    """
    group = resolve(group)
    root = _root(group, dst, group_dst, "gather_object", default=True)
    if not_member(group, "gather_object"):
        return
    mine = group.rank() == root
    if mine and (object_gather_list is None or len(object_gather_list) != group.size()):
        raise ValueError(
            "Argument ``object_gather_list`` must be specified on destination rank, with "
            "one item per rank"
        )
    if not mine and object_gather_list is not None:
        raise ValueError(
            "Argument ``object_gather_list`` must NOT be specified on non-destination ranks."
        )
    gathered = group._comm.gather(obj, root=root)
    if mine:
        object_gather_list[:] = gathered  # type: ignore[index]


def scatter_object_list(
    scatter_object_output_list: list[Any],
    scatter_object_input_list: list[Any] | None = None,
    src: int | None = None,
    group: ProcessGroup | None = None,
    group_src: int | None = None,
) -> None:
    """Send item ``r`` of rank ``src``'s ``scatter_object_input_list`` to rank ``r``, where it
    becomes ``scatter_object_output_list[0]``. Example::

        out = [None]
        dist.scatter_object_list(out, [f"to {r}" for r in range(world)] if rank == 0 else None)
    """
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError(
            "Expected argument scatter_object_output_list to be a list of size at least 1."
        )
    group = resolve(group)
    root = _root(group, src, group_src, "scatter_object_list", default=True)
    if not_member(group, "scatter_object_list"):
        return
    items = None
    if group.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != group.size():
            raise ValueError(
                "scatter_object_list: the source rank's scatter_object_input_list must have "
                "one item per rank"
            )
        items = list(scatter_object_input_list)
    scatter_object_output_list[0] = group._comm.scatter(items, root=root)


def send_object_list(
    object_list: list[Any],
    dst: int | None = None,
    group: ProcessGroup | None = None,
    device: Any = None,
    group_dst: int | None = None,
    use_batch: bool = False,
) -> None:
    """Send the items of ``object_list`` to rank ``dst``, which receives them with
    ``recv_object_list``. Example: ``dist.send_object_list(["hello", 42], dst=1)``."""
    group = resolve(group)
    if not_member(group, "send_object_list"):
        return
    peer = _peer(group, dst, group_dst, "send")
    group._comm.send(list(object_list), dest=peer, tag=1)


def recv_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: ProcessGroup | None = None,
    device: Any = None,
    group_src: int | None = None,
    use_batch: bool = False,
) -> int:
    """Replace the items of ``object_list`` by those rank ``src`` (default: any) sent with
    ``send_object_list``; return the sender's rank. Example::

        got = [None, None]
        dist.recv_object_list(got, src=0)
    """
    group = resolve(group)
    if not_member(group, "recv_object_list"):
        return -1
    mpi = transport.load()
    source = mpi.ANY_SOURCE
    if src is not None or group_src is not None:
        source = _peer(group, src, group_src, "recv")
    status = mpi.Status()
    received = group._comm.recv(source=source, tag=1, status=status)
    if len(received) != len(object_list):
        raise RuntimeError(
            f"recv_object_list: received {len(received)} objects but object_list has "
            f"{len(object_list)}"
        )
    object_list[:] = received
    return group._ranks[status.Get_source()]
