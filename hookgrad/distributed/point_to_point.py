"""Point-to-point messages between two ranks, with torch's signatures: ``send``,
``recv``, their asynchronous ``isend``/``irecv``, and ``batch_isend_irecv`` of a list of
``P2POp``. As the collectives, they write into the tensors they are given and are not
recorded by autograd."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.distributed import transport
from hookgrad.distributed.collective_args import (
    _as_reals,
    _check_single_tensor,
    _describe,
    _root,
    _spec,
    _store,
    _target,
    _wire,
)
from hookgrad.distributed.process_group import ProcessGroup, not_member, resolve
from hookgrad.distributed.work import Work
from hookgrad.tensor.tensor import Tensor

__all__ = ["P2POp", "batch_isend_irecv", "irecv", "isend", "recv", "send"]


def _peer(group: ProcessGroup, rank: int | None, group_rank: int | None, what: str) -> int:
    if rank is None and group_rank is None:
        raise ValueError(f"Must specify global_rank or group_rank ({what})")
    peer = _root(group, rank, group_rank, what, default=False)
    if peer == group.rank():
        kind = "destination" if what in ("send", "isend") else "source"
        raise ValueError(
            f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the "
            "current process."
        )
    return peer


def send(
    tensor: Tensor,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    tag: int = 0,
    group_dst: int | None = None,
) -> None:
    """Send ``tensor`` to rank ``dst`` (which receives it with ``recv``); blocks until the
    data is on its way. Example: ``dist.send(torch.ones(2), dst=1)``."""
    a = _check_single_tensor(tensor, "tensor")
    group = resolve(group)
    if not_member(group, "send"):
        return
    peer = _peer(group, dst, group_dst, "send")
    group._comm.Send(_spec(_wire(a)), dest=peer, tag=tag)


def isend(
    tensor: Tensor,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    tag: int = 0,
    group_dst: int | None = None,
) -> Work | None:
    """Start sending ``tensor`` to rank ``dst``; return its ``Work`` (do not change
    ``tensor`` before ``wait()``). Example: ``dist.isend(t, dst=1).wait()``."""
    a = _check_single_tensor(tensor, "tensor")
    group = resolve(group)
    if not_member(group, "isend"):
        return None
    peer = _peer(group, dst, group_dst, "isend")
    wire = _wire(a)
    return Work([group._comm.Isend(_spec(wire), dest=peer, tag=tag)], None, [tensor])


def recv(
    tensor: Tensor,
    src: int | None = None,
    group: ProcessGroup | None = None,
    tag: int = 0,
    group_src: int | None = None,
) -> int:
    """Receive into ``tensor`` what rank ``src`` (default: any rank) sends with ``send``;
    return the sender's rank. Example: ``sender = dist.recv(t)``."""
    a = _check_single_tensor(tensor, "tensor")
    group = resolve(group)
    if not_member(group, "recv"):
        return -1
    mpi = transport.load()
    source = mpi.ANY_SOURCE
    if src is not None or group_src is not None:
        source = _peer(group, src, group_src, "recv")
    flat, copied = _target(a)
    wire = _as_reals(flat)
    status = mpi.Status()
    group._comm.Probe(source=source, tag=tag, status=status)
    _check_received(status, wire, a)
    group._comm.Recv(_spec(wire), source=status.Get_source(), tag=tag)
    if copied:
        _store(a, flat)
    return group._ranks[status.Get_source()]


def _check_received(status: Any, wire: np.ndarray, a: np.ndarray) -> None:
    count = status.Get_count(transport.datatype(wire.dtype))
    if count != wire.size:
        raise RuntimeError(
            f"recv: rank {status.Get_source()} sent {count} elements of {wire.dtype}, but "
            f"the receiving tensor is a {_describe(a)} ({wire.size} elements)"
        )


def irecv(
    tensor: Tensor,
    src: int | None = None,
    group: ProcessGroup | None = None,
    tag: int = 0,
    group_src: int | None = None,
) -> Work | None:
    """Start receiving into ``tensor`` from rank ``src`` (default: any); return its
    ``Work``: ``tensor`` holds the data after ``wait()``, and ``source_rank()`` tells who
    sent it. Example: ``dist.irecv(t, src=0).wait()``."""
    a = _check_single_tensor(tensor, "tensor")
    group = resolve(group)
    if not_member(group, "irecv"):
        return None
    mpi = transport.load()
    source = mpi.ANY_SOURCE
    if src is not None or group_src is not None:
        source = _peer(group, src, group_src, "irecv")
    flat, copied = _target(a)
    wire = _as_reals(flat)
    request = group._comm.Irecv(_spec(wire), source=source, tag=tag)

    def finish(statuses: list[Any]) -> None:
        _check_received(statuses[0], wire, a)
        if copied:
            _store(a, flat)

    def sender(statuses: list[Any]) -> int:
        return group._ranks[statuses[0].Get_source()]

    return Work([request], finish, [tensor], source=sender)


class P2POp:
    """One send or receive for ``batch_isend_irecv``: ``op`` is ``dist.isend`` or
    ``dist.irecv``, ``peer`` the other rank. Example::

        ops = [dist.P2POp(dist.isend, t, 1), dist.P2POp(dist.irecv, r, 1)]
        for work in dist.batch_isend_irecv(ops):
            work.wait()
    """

    def __init__(
        self,
        op: Callable[..., Any],
        tensor: Tensor,
        peer: int | None = None,
        group: ProcessGroup | None = None,
        tag: int = 0,
        group_peer: int | None = None,
    ) -> None:
        if op not in (isend, irecv):
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` "
                "or ``torch.distributed.irecv``."
            )
        _check_single_tensor(tensor, "tensor")
        self.op = op
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag
        self.group_peer = group_peer


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every send and receive of ``p2p_op_list``; return their ``Work``s."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError(
            "Invalid ``p2p_op_list``. Each op is expected to to be of type "
            "``torch.distributed.P2POp``."
        )
    works = []
    for p in p2p_op_list:
        work = p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        if work is not None:
            works.append(work)
    return works
