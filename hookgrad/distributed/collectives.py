"""The collectives on tensors, with torch's signatures and in-place conventions, each one
MPI call: ``all_reduce``, ``broadcast``, ``reduce``, ``all_gather``,
``all_gather_into_tensor``, ``gather``, ``scatter``, ``reduce_scatter``,
``reduce_scatter_tensor``, ``all_to_all``, ``all_to_all_single``, ``barrier``
(point-to-point messages are in ``point_to_point``, the checks and buffers every one of
them uses in ``collective_args``).

Every function writes its result into the tensors it is given (contiguous or not: a
non-contiguous tensor is sent from, or received into, a contiguous copy), returns None, or
with ``async_op=True`` a ``Work`` to wait on. Like torch's, these writes are not recorded
by autograd and do not bump version counters.

Before a collective, the ranks agree on what they pass (dtype and element counts) with
one small all-reduce of a fingerprint: a mismatch (a wrong shape on one rank) raises on
every rank a RuntimeError that lists each rank's tensors, where MPI itself would
misbehave or hang. ``DistributedDataParallel`` checks its model once at construction and
reduces its buckets with ``allreduce_array``, without the fingerprint.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import numpy as np

from hookgrad.distributed import transport
from hookgrad.distributed.collective_args import (
    _agree,
    _as_reals,
    _avg,
    _check_single_tensor,
    _check_tensor_list,
    _describe,
    _problem,
    _root,
    _same_dtype,
    _spec,
    _start,
    _store,
    _target,
    _wire,
    _wire_count,
)
from hookgrad.distributed.errors import DistBackendError
from hookgrad.distributed.process_group import (
    ProcessGroup,
    not_member,
    resolve,
)
from hookgrad.distributed.reduce_op import ReduceOp
from hookgrad.distributed.work import Work
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "all_gather",
    "all_gather_coalesced",
    "all_gather_into_tensor",
    "all_reduce",
    "all_reduce_coalesced",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "gather",
    "monitored_barrier",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
]


# -- collectives ----------------------------------------------------------------------------


def all_reduce(
    tensor: Tensor,
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Reduce ``tensor`` across the group in place: afterwards every rank holds the sum
    (or ``op``: ``ReduceOp.AVG``, ``MAX``...) of all ranks' tensors. Example::

        t = torch.tensor([float(dist.get_rank())])
        dist.all_reduce(t)          # t == 0 + 1 + ... on every rank
    """
    a = _check_single_tensor(tensor, "tensor")
    group = resolve(group)
    if not_member(group, "all_reduce"):
        return None
    mpi_op = transport.mpi_op(op, a.dtype, "all_reduce")
    _agree(group, "all_reduce", (a.dtype.str, a.size), _describe(a))
    return allreduce_array(a, mpi_op, group, async_op, _avg(op), [tensor])


def allreduce_array(
    a: np.ndarray,
    mpi_op: Any,
    group: ProcessGroup,
    async_op: bool,
    average: bool = False,
    result: list[Any] | None = None,
    then: Callable[[], None] | None = None,
) -> Work | None:
    """All-reduce the array ``a`` in place with the MPI operation ``mpi_op``, dividing by
    the group's size if ``average``, then calling ``then()`` (no checks:
    ``DistributedDataParallel``'s path)."""
    mpi = transport.load()
    comm = group._comm
    flat, copied = _target(a)
    spec = _spec(flat)
    size = group.size()

    def finish(_: list[Any]) -> None:
        if average:
            np.divide(flat, size, out=flat, casting="unsafe")
        if copied:
            _store(a, flat)
        if then is not None:
            then()

    return _start(
        async_op,
        lambda: comm.Allreduce(mpi.IN_PLACE, spec, op=mpi_op),
        lambda: comm.Iallreduce(mpi.IN_PLACE, spec, op=mpi_op),
        finish,
        result if result is not None else [],
    )


def all_reduce_coalesced(
    tensors: list[Tensor],
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """``all_reduce`` of each tensor of ``tensors`` (all of one dtype) in one message: they
    are flattened into one buffer, reduced, and copied back. Example::

        dist.all_reduce_coalesced([weights_grad, bias_grad])
    """
    arrays = _check_tensor_list(tensors, "tensors")
    _same_dtype(*arrays)
    group = resolve(group)
    if not_member(group, "all_reduce_coalesced") or not arrays:
        return None
    mpi_op = transport.mpi_op(op, arrays[0].dtype, "all_reduce_coalesced")
    sizes = [int(a.size) for a in arrays]
    _agree(group, "all_reduce_coalesced", (arrays[0].dtype.str, sizes), str(sizes))
    flat = np.concatenate([np.ascontiguousarray(a).reshape(-1) for a in arrays])
    return allreduce_array(
        flat,
        mpi_op,
        group,
        async_op,
        _avg(op),
        list(tensors),
        then=lambda: _scatter_into(arrays, flat, sizes),
    )


def broadcast(
    tensor: Tensor,
    src: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank. Example::

    dist.broadcast(weights, src=0)      # every rank now has rank 0's weights
    """
    a = _check_single_tensor(tensor, "tensor")
    group = resolve(group)
    root = _root(group, src, group_src, "broadcast", default=False)
    if not_member(group, "broadcast"):
        return None
    _agree(group, "broadcast", (a.dtype.str, a.size), _describe(a))
    flat, copied = _target(a)
    wire = _as_reals(flat)
    spec = _spec(wire)
    comm = group._comm

    def finish(_: list[Any]) -> None:
        if copied:
            _store(a, flat)

    return _start(
        async_op,
        lambda: comm.Bcast(spec, root=root),
        lambda: comm.Ibcast(spec, root=root),
        finish,
        [tensor],
    )


def reduce(
    tensor: Tensor,
    dst: int | None = None,
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Reduce ``tensor`` across the group into rank ``dst``'s ``tensor`` (the others'
    tensors are left as they were). Example::

        dist.reduce(loss_sum, dst=0)       # rank 0 holds the total
    """
    a = _check_single_tensor(tensor, "tensor")
    group = resolve(group)
    root = _root(group, dst, group_dst, "reduce", default=False)
    if not_member(group, "reduce"):
        return None
    mpi_op = transport.mpi_op(op, a.dtype, "reduce")
    _agree(group, "reduce", (a.dtype.str, a.size), _describe(a))
    mpi = transport.load()
    comm = group._comm
    mine = group.rank() == root
    flat, copied = _target(a) if mine else (np.ascontiguousarray(a).reshape(-1), False)
    spec = _spec(flat)
    send = mpi.IN_PLACE if mine else spec
    receive = spec if mine else None
    size = group.size()

    def finish(_: list[Any]) -> None:
        if mine and _avg(op):
            np.divide(flat, size, out=flat, casting="unsafe")
        if copied:
            _store(a, flat)

    return _start(
        async_op,
        lambda: comm.Reduce(send, receive, op=mpi_op, root=root),
        lambda: comm.Ireduce(send, receive, op=mpi_op, root=root),
        finish,
        [tensor],
    )


def all_gather(
    tensor_list: list[Tensor],
    tensor: Tensor,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Gather every rank's ``tensor`` into ``tensor_list`` on every rank
    (``tensor_list[r]`` receives rank ``r``'s; sizes may differ between ranks). Example::

        parts = [torch.empty(2) for _ in range(dist.get_world_size())]
        dist.all_gather(parts, torch.full((2,), float(dist.get_rank())))
    """
    outputs = _check_tensor_list(tensor_list, "tensor_list")
    a = _check_single_tensor(tensor, "tensor")
    _same_dtype(*outputs, a)
    group = resolve(group)
    if not_member(group, "all_gather"):
        return None
    counts = [_wire_count(o) for o in outputs]
    me = group.rank()

    def own_size() -> None:
        if counts[me] != _wire_count(a):
            raise RuntimeError(
                f"all_gather: tensor_list[{me}] has {outputs[me].size} elements but this "
                f"rank's tensor has {a.size}"
            )

    problem = _problem(lambda: _one_per_rank(group, outputs, "all_gather", "tensor_list"), own_size)
    _agree(group, "all_gather", (a.dtype.str, counts), _describe(a), problem)
    send = _wire(a)
    flat = np.empty(sum(counts), dtype=send.dtype)
    comm = group._comm
    send_spec, receive_spec = _spec(send), _spec(flat, counts)

    def finish(_: list[Any]) -> None:
        _scatter_into(outputs, flat, counts)

    return _start(
        async_op,
        lambda: comm.Allgatherv(send_spec, receive_spec),
        lambda: comm.Iallgatherv(send_spec, receive_spec),
        finish,
        list(tensor_list),
    )


def all_gather_coalesced(
    output_tensor_lists: list[list[Tensor]],
    input_tensor_list: list[Tensor],
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """``all_gather`` of each tensor of ``input_tensor_list``: ``output_tensor_lists[r][i]``
    receives rank ``r``'s ``input_tensor_list[i]``. Example::

        outs = [[torch.empty(2), torch.empty(3)] for _ in range(world)]
        dist.all_gather_coalesced(outs, [torch.ones(2), torch.zeros(3)])
    """
    works = [
        all_gather([outputs[i] for outputs in output_tensor_lists], tensor, group, async_op)
        for i, tensor in enumerate(input_tensor_list)
    ]
    if not async_op or not works:
        return None
    requests = [request for work in works if work is not None for request in work._requests]

    def finish(_: list[Any]) -> None:
        for work in works:
            if work is not None:
                work._complete()

    return Work(requests, finish, [t for outputs in output_tensor_lists for t in outputs])


def _one_per_rank(group: ProcessGroup, arrays: list[Any], name: str, argument: str) -> None:
    if len(arrays) != group.size():
        raise ValueError(
            f"{name}: `{argument}` must hold one tensor per rank of the group "
            f"({group.size()}), got {len(arrays)}"
        )


def _scatter_into(outputs: list[np.ndarray], flat: np.ndarray, counts: list[int]) -> None:
    """Copy the consecutive pieces of ``flat`` (``counts`` elements each) into
    ``outputs``."""
    start = 0
    for out, count in zip(outputs, counts):
        _store(out, flat[start : start + count])
        start += count


def all_gather_into_tensor(
    output_tensor: Tensor,
    input_tensor: Tensor,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Gather every rank's ``input_tensor`` into ``output_tensor``, one after another in
    rank order (``output_tensor`` has ``world_size`` times as many elements, concatenated
    or stacked along dimension 0). Example::

        out = torch.empty(2 * dist.get_world_size())
        dist.all_gather_into_tensor(out, torch.ones(2))
    """
    out = _check_single_tensor(output_tensor, "output_tensor")
    a = _check_single_tensor(input_tensor, "input_tensor")
    _same_dtype(out, a)
    group = resolve(group)
    if not_member(group, "all_gather_into_tensor"):
        return None
    problem = None
    if out.size != a.size * group.size():
        problem = ValueError(
            "all_gather_into_tensor: output tensor size must be equal to world_size times "
            f"input tensor size (got {out.size} and {group.size()} x {a.size})"
        )
    _agree(group, "all_gather_into_tensor", (a.dtype.str, a.size), _describe(a), problem)
    send = _wire(a)
    flat, copied = _target(out)
    wire = flat.view(send.dtype)
    comm = group._comm
    send_spec, receive_spec = _spec(send), _spec(wire)

    def finish(_: list[Any]) -> None:
        if copied:
            _store(out, flat)

    return _start(
        async_op,
        lambda: comm.Allgather(send_spec, receive_spec),
        lambda: comm.Iallgather(send_spec, receive_spec),
        finish,
        [output_tensor],
    )


def gather(
    tensor: Tensor,
    gather_list: list[Tensor] | None = None,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Gather every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (default 0);
    the other ranks pass no list. Example::

        parts = [torch.empty(2) for _ in range(world)] if rank == 0 else None
        dist.gather(torch.ones(2), parts, dst=0)
    """
    a = _check_single_tensor(tensor, "tensor")
    outputs = _check_tensor_list(gather_list, "gather_list") if gather_list else []
    _same_dtype(a, *outputs)
    group = resolve(group)
    root = _root(group, dst, group_dst, "gather", default=True)
    if not_member(group, "gather"):
        return None
    mine = group.rank() == root
    problem = _problem(lambda: _root_list(group, mine, outputs, a, "gather", "gather_list"))
    _agree(group, "gather", (a.dtype.str, a.size), _describe(a), problem)
    send = _wire(a)
    flat = np.empty(send.size * group.size(), dtype=send.dtype) if mine else None
    comm = group._comm
    send_spec = _spec(send)
    receive_spec = _spec(flat) if flat is not None else None

    def finish(_: list[Any]) -> None:
        if flat is not None:
            _scatter_into(outputs, flat, [send.size] * group.size())

    return _start(
        async_op,
        lambda: comm.Gather(send_spec, receive_spec, root=root),
        lambda: comm.Igather(send_spec, receive_spec, root=root),
        finish,
        list(gather_list or []),
    )


def _root_list(
    group: ProcessGroup,
    mine: bool,
    arrays: list[np.ndarray],
    a: np.ndarray,
    name: str,
    argument: str,
) -> None:
    """torch's checks of ``gather_list``/``scatter_list``: given on the root only, one
    tensor per rank, each of ``a``'s size."""
    where = "destination" if name == "gather" else "source"
    if mine and not arrays:
        raise ValueError(f"Argument ``{argument}`` must be specified on {where} rank.")
    if not mine and arrays:
        raise ValueError(f"Argument ``{argument}`` must NOT be specified on non-{where} ranks.")
    if mine:
        _one_per_rank(group, arrays, name, argument)
        _same_sizes(arrays, a, name, argument)


def _same_sizes(arrays: list[np.ndarray], a: np.ndarray, name: str, argument: str) -> None:
    for index, other in enumerate(arrays):
        if other.size != a.size:
            raise ValueError(
                f"{name}: `{argument}[{index}]` has {other.size} elements but the tensor "
                f"has {a.size}; they must all have the same size"
            )


def scatter(
    tensor: Tensor,
    scatter_list: list[Tensor] | None = None,
    src: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Send ``scatter_list[r]`` of rank ``src`` (default 0) to rank ``r``'s ``tensor``;
    the other ranks pass no list. Example::

        parts = list(torch.arange(world * 2.0).chunk(world)) if rank == 0 else None
        dist.scatter(mine := torch.empty(2), parts, src=0)
    """
    a = _check_single_tensor(tensor, "tensor")
    inputs = _check_tensor_list(scatter_list, "scatter_list") if scatter_list else []
    _same_dtype(a, *inputs)
    group = resolve(group)
    root = _root(group, src, group_src, "scatter", default=True)
    if not_member(group, "scatter"):
        return None
    mine = group.rank() == root
    problem = _problem(lambda: _root_list(group, mine, inputs, a, "scatter", "scatter_list"))
    _agree(group, "scatter", (a.dtype.str, a.size), _describe(a), problem)
    flat, copied = _target(a)
    wire = _as_reals(flat)
    send = np.concatenate([_wire(x) for x in inputs]) if mine else None
    comm = group._comm
    send_spec = _spec(send) if send is not None else None
    receive_spec = _spec(wire)

    def finish(_: list[Any]) -> None:
        if copied:
            _store(a, flat)

    return _start(
        async_op,
        lambda: comm.Scatter(send_spec, receive_spec, root=root),
        lambda: comm.Iscatter(send_spec, receive_spec, root=root),
        finish,
        [tensor],
    )


def reduce_scatter(
    output: Tensor,
    input_list: list[Tensor],
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Reduce ``input_list[r]`` across the ranks into rank ``r``'s ``output``. Example::

    dist.reduce_scatter(out, [torch.ones(2) for _ in range(world)])   # out == world
    """
    out = _check_single_tensor(output, "output")
    inputs = _check_tensor_list(input_list, "input_list")
    _same_dtype(out, *inputs)
    group = resolve(group)
    if not_member(group, "reduce_scatter"):
        return None
    mpi_op = transport.mpi_op(op, out.dtype, "reduce_scatter")
    counts = [int(x.size) for x in inputs]
    me = group.rank()

    def own_size() -> None:
        if counts[me] != out.size:
            raise RuntimeError(
                f"reduce_scatter: input_list[{me}] has {counts[me]} elements but the output "
                f"has {out.size}"
            )

    problem = _problem(
        lambda: _one_per_rank(group, inputs, "reduce_scatter", "input_list"), own_size
    )
    _agree(group, "reduce_scatter", (out.dtype.str, counts), _describe(out), problem)
    send = np.concatenate([np.ascontiguousarray(x).reshape(-1) for x in inputs])
    return _reduce_scatter(group, out, send, counts, mpi_op, _avg(op), async_op, output)


def _reduce_scatter(
    group: ProcessGroup,
    out: np.ndarray,
    send: np.ndarray,
    counts: list[int],
    mpi_op: Any,
    average: bool,
    async_op: bool,
    output: Tensor,
) -> Work | None:
    flat, copied = _target(out)
    comm = group._comm
    send_spec, receive_spec = _spec(send), _spec(flat)
    size = group.size()

    def finish(_: list[Any]) -> None:
        if average:
            np.divide(flat, size, out=flat, casting="unsafe")
        if copied:
            _store(out, flat)

    return _start(
        async_op,
        lambda: comm.Reduce_scatter(send_spec, receive_spec, counts, op=mpi_op),
        lambda: comm.Ireduce_scatter(send_spec, receive_spec, counts, op=mpi_op),
        finish,
        [output],
    )


def reduce_scatter_tensor(
    output: Tensor,
    input: Tensor,  # noqa: A002 (torch's keyword)
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Reduce ``input`` (``world_size`` equal pieces along its elements) across the ranks;
    rank ``r``'s ``output`` receives the reduced piece ``r``. Example::

        out = torch.empty(2)
        dist.reduce_scatter_tensor(out, torch.ones(2 * world))    # out == world
    """
    out = _check_single_tensor(output, "output")
    a = _check_single_tensor(input, "input")
    _same_dtype(out, a)
    group = resolve(group)
    if not_member(group, "reduce_scatter_tensor"):
        return None
    mpi_op = transport.mpi_op(op, out.dtype, "reduce_scatter_tensor")
    problem = None
    if a.size != out.size * group.size():
        problem = ValueError(
            "reduce_scatter_tensor: input tensor size must be equal to world_size times "
            f"output tensor size (got {a.size} and {group.size()} x {out.size})"
        )
    _agree(group, "reduce_scatter_tensor", (out.dtype.str, out.size), _describe(out), problem)
    send = np.ascontiguousarray(a).reshape(-1)
    counts = [int(out.size)] * group.size()
    return _reduce_scatter(group, out, send, counts, mpi_op, _avg(op), async_op, output)


def all_to_all(
    output_tensor_list: list[Tensor],
    input_tensor_list: list[Tensor],
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Send ``input_tensor_list[r]`` to rank ``r``; receive rank ``r``'s piece for this
    rank into ``output_tensor_list[r]`` (sizes may differ). Example::

        outs = [torch.empty(1) for _ in range(world)]
        dist.all_to_all(outs, [torch.tensor([rank * 10.0 + r]) for r in range(world)])
    """
    outputs = _check_tensor_list(output_tensor_list, "output_tensor_list")
    inputs = _check_tensor_list(input_tensor_list, "input_tensor_list")
    _same_dtype(*outputs, *inputs)
    group = resolve(group)
    if not_member(group, "all_to_all"):
        return None
    problem = _problem(
        lambda: _one_per_rank(group, outputs, "all_to_all", "output_tensor_list"),
        lambda: _one_per_rank(group, inputs, "all_to_all", "input_tensor_list"),
    )
    size = group.size()
    send_counts = [_wire_count(x) for x in inputs] if problem is None else [0] * size
    receive_counts = [_wire_count(x) for x in outputs] if problem is None else [0] * size
    dtype = (inputs or outputs)[0].dtype if inputs or outputs else np.dtype("float32")
    _exchange_counts(group, "all_to_all", send_counts, receive_counts, dtype, problem)
    send = np.concatenate([_wire(x) for x in inputs])
    flat = np.empty(sum(receive_counts), dtype=send.dtype)
    comm = group._comm
    send_spec, receive_spec = _spec(send, send_counts), _spec(flat, receive_counts)

    def finish(_: list[Any]) -> None:
        _scatter_into(outputs, flat, receive_counts)

    return _start(
        async_op,
        lambda: comm.Alltoallv(send_spec, receive_spec),
        lambda: comm.Ialltoallv(send_spec, receive_spec),
        finish,
        list(output_tensor_list),
    )


def _exchange_counts(
    group: ProcessGroup,
    name: str,
    send: list[int],
    receive: list[int],
    dtype: np.dtype,
    problem: Exception | None,
) -> None:
    """Tell each rank how much this one sends it, and check that it expects that much (and
    the same dtype); a mismatch, or a ``problem`` on any rank, raises on every rank."""
    if group.size() == 1:
        if problem is not None:
            raise problem
        if send != receive:
            raise RuntimeError(f"{name}: sends {send} elements to itself but expects {receive}")
        return
    mpi = transport.load()
    code = zlib.crc32(dtype.str.encode())
    outgoing = np.array([[count, code] for count in send], dtype=np.int64)
    incoming = np.empty_like(outgoing)
    group._comm.Alltoall(outgoing, incoming)
    matches = list(incoming[:, 0]) == receive and bool((incoming[:, 1] == code).all())
    ok = np.array([int(matches and problem is None)], dtype=np.int64)
    group._comm.Allreduce(mpi.IN_PLACE, ok, op=mpi.MIN)
    if ok[0]:
        return
    error = None if problem is None else str(problem)
    everyone = group._comm.allgather((list(send), list(receive), str(dtype), error))
    if problem is not None:
        raise problem
    failed = [f"rank {r}: {e}" for r, (_, _, _, e) in enumerate(everyone) if e]
    if failed:
        raise DistBackendError(f"{name}: another rank's arguments are wrong ({'; '.join(failed)})")
    lines = "; ".join(
        f"rank {r} sends {s} and expects {e} ({d})" for r, (s, e, d, _) in enumerate(everyone)
    )
    raise DistBackendError(f"{name}: the ranks' split sizes do not match ({lines})")


def all_to_all_single(
    output: Tensor,
    input: Tensor,  # noqa: A002 (torch's keyword)
    output_split_sizes: list[int] | None = None,
    input_split_sizes: list[int] | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Split ``input`` along dimension 0 (by ``input_split_sizes``, default equal parts),
    send part ``r`` to rank ``r``, and concatenate what each rank sent this one into
    ``output`` (split by ``output_split_sizes``). Example::

        out = torch.empty(world)
        dist.all_to_all_single(out, torch.arange(world) + rank * world)
    """
    out = _check_single_tensor(output, "output")
    a = _check_single_tensor(input, "input")
    _same_dtype(out, a)
    group = resolve(group)
    if not_member(group, "all_to_all_single"):
        return None
    size = group.size()
    counts: dict[str, list[int]] = {}
    problem = _problem(
        lambda: counts.setdefault("send", _split_counts(a, input_split_sizes, size, "input")),
        lambda: counts.setdefault(
            "receive", _split_counts(out, output_split_sizes, size, "output")
        ),
    )
    send_counts = counts["send"] if problem is None else [0] * size
    receive_counts = counts["receive"] if problem is None else [0] * size
    _exchange_counts(group, "all_to_all_single", send_counts, receive_counts, a.dtype, problem)
    send = _wire(a)
    flat, copied = _target(out)
    wire = flat.view(send.dtype)
    comm = group._comm
    send_spec, receive_spec = _spec(send, send_counts), _spec(wire, receive_counts)

    def finish(_: list[Any]) -> None:
        if copied:
            _store(out, flat)

    return _start(
        async_op,
        lambda: comm.Alltoallv(send_spec, receive_spec),
        lambda: comm.Ialltoallv(send_spec, receive_spec),
        finish,
        [output],
    )


def _split_counts(a: np.ndarray, splits: list[int] | None, size: int, what: str) -> list[int]:
    """Element counts (in wire elements) of each rank's part of ``a`` along dim 0."""
    rows = a.shape[0] if a.ndim else 1
    per_row = _wire_count(a) // rows if rows else 0
    if not splits:
        if rows % size:
            raise ValueError(
                f"all_to_all_single: the {what} tensor's dim 0 ({rows}) does not divide "
                f"equally across group size ({size})"
            )
        return [rows // size * per_row] * size
    splits = [int(s) for s in splits]
    if len(splits) != size or sum(splits) != rows:
        raise ValueError(
            f"all_to_all_single: {what}_split_sizes {splits} must have one entry per rank "
            f"({size}) and add up to the {what} tensor's dim 0 ({rows})"
        )
    return [s * per_row for s in splits]


def barrier(
    group: ProcessGroup | None = None,
    async_op: bool = False,
    device_ids: Any = None,
    timeout: timedelta | None = None,
) -> Work | None:
    """Block until every rank of the group has called ``barrier``. With ``timeout``, a
    RuntimeError if that takes longer. Example::

        if rank == 0:
            prepare_data()
        dist.barrier()          # the others wait for rank 0
    """
    group = resolve(group)
    if not_member(group, "barrier"):
        return None
    comm = group._comm
    if timeout is not None and not async_op:
        work = Work([comm.Ibarrier()])
        work.wait(timeout)
        return None
    return _start(async_op, comm.Barrier, comm.Ibarrier, None, [])


def monitored_barrier(
    group: ProcessGroup | None = None,
    timeout: timedelta | None = None,
    wait_all_ranks: bool = False,
) -> None:
    """A barrier that raises a RuntimeError if not every rank arrives within ``timeout``
    (default 30 minutes), instead of waiting forever. Example::

        dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
    """
    barrier(group, timeout=timeout if timeout is not None else timedelta(minutes=30))
