"""What every collective does before and around its MPI call: torch's argument checks and
messages, the ranks' agreement on what they pass (one small all-reduce of a fingerprint,
so that a mismatch raises on every rank instead of hanging MPI), and the buffers a
tensor is sent from or received into (complex values as pairs of reals, a contiguous copy
for a non-contiguous tensor, written back when the call finishes)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.distributed import transport
from hookgrad.distributed.errors import DistBackendError
from hookgrad.distributed.process_group import ProcessGroup, get_group_rank, resolve
from hookgrad.distributed.reduce_op import ReduceOp
from hookgrad.distributed.work import Work
from hookgrad.tensor.tensor import Tensor

Finish = Callable[[list[Any]], None]


# -- argument checks, with torch's messages ------------------------------------------------


def _check_single_tensor(param: Any, param_name: str) -> np.ndarray:
    if not isinstance(param, Tensor):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{param_name}` of type "
            f"torch.Tensor\n             but got {type(param)} instead."
        )
    return param._data


def _check_tensor_list(param: Any, param_name: str) -> list[np.ndarray]:
    if not isinstance(param, list):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{param_name}` of type "
            f"List[torch.Tensor]\n             but got {type(param)} instead."
        )
    if not all(isinstance(p, Tensor) for p in param):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{param_name}` of type "
            f"List[torch.Tensor]\n             but got {type(param)} with elements of type "
            f"{[type(p) for p in param]}."
        )
    return [p._data for p in param]


def _same_dtype(*arrays: np.ndarray) -> None:
    """torch's ``_ensure_all_tensors_same_dtype`` (a complex dtype matches its parts)."""
    last = None
    for a in arrays:
        kind = a.dtype if a.dtype.kind != "c" else np.dtype(f"f{a.dtype.itemsize // 2}")
        if last is not None and kind != last:
            raise ValueError(
                f"Invalid usage of tensors with different dtypesFound torch.{last} and  "
                f"torch.{a.dtype}"
            )
        last = kind


def _root(
    group: ProcessGroup, rank: int | None, group_rank: int | None, name: str, default: bool
) -> int:
    """The group rank of a collective's root, given as a global or a group rank."""
    if rank is not None and group_rank is not None:
        raise ValueError("Can't specify both group_rank and global_rank")
    if rank is not None:
        found = get_group_rank(group, rank) if 0 <= rank < _world_size() else rank
    elif group_rank is not None:
        found = group_rank
    elif default:
        found = 0
    else:
        raise ValueError("Must specify global_rank or group_rank")
    if not 0 <= found < group.size():
        raise RuntimeError(f"ProcessGroupMPI::{name}: invalid root rank: {found}")
    return found


def _world_size() -> int:
    return resolve(None).size()


def _describe(a: np.ndarray) -> str:
    return f"torch.{a.dtype} tensor of shape {list(a.shape)}"


def _agree(
    group: ProcessGroup,
    name: str,
    key: Any,
    description: str,
    problem: Exception | None = None,
) -> None:
    """Raise on every rank if the ranks' ``key``s differ or one rank found a ``problem``
    with its own arguments: one all-reduce of a fingerprint, and on a mismatch an
    all-gather of each rank's ``description`` for the message.

    A rank whose own arguments are wrong (a list of the wrong length on the root...)
    raises its error; the others raise a RuntimeError naming it, instead of waiting in
    the collective for a rank that will never come.
    """
    if group.size() == 1:
        if problem is not None:
            raise problem
        return
    mpi = transport.load()
    code = zlib.crc32(repr(key).encode())
    flags = np.array([code, -code, problem is not None], dtype=np.int64)
    group._comm.Allreduce(mpi.IN_PLACE, flags, op=mpi.MAX)
    if flags[0] == -flags[1] and not flags[2]:
        return
    everyone = group._comm.allgather((description, None if problem is None else str(problem)))
    if problem is not None:
        raise problem
    failed = [f"rank {r}: {error}" for r, (_, error) in enumerate(everyone) if error]
    if failed:
        raise DistBackendError(f"{name}: another rank's arguments are wrong ({'; '.join(failed)})")
    lines = "; ".join(f"rank {r}: {d}" for r, (d, _) in enumerate(everyone))
    raise DistBackendError(f"{name}: the ranks' tensors do not match ({lines})")


def _problem(*checks: Callable[[], object]) -> Exception | None:
    """The first error the local ``checks`` raise, kept for ``_agree`` (so that every rank
    raises, not only this one)."""
    for local_check in checks:
        try:
            local_check()
        except (ValueError, RuntimeError) as error:
            return error
    return None


# -- buffers --------------------------------------------------------------------------------


def _wire(a: np.ndarray) -> np.ndarray:
    """``a`` as a contiguous 1-D array (a copy if it is not contiguous), complex numbers
    as pairs of reals."""
    return _as_reals(np.ascontiguousarray(a).reshape(-1))


def _as_reals(flat: np.ndarray) -> np.ndarray:
    """A contiguous 1-D array, complex numbers seen as pairs of reals (the collectives
    that move data without reducing it send them so)."""
    if flat.dtype.kind == "c":
        return flat.view(np.dtype(f"f{flat.dtype.itemsize // 2}"))
    return flat


def _target(a: np.ndarray) -> tuple[np.ndarray, bool]:
    """A contiguous 1-D array to receive into for ``a``: ``a``'s own memory when it is
    contiguous and writable, else a copy (then True: copy it back with ``_store``)."""
    if a.flags.c_contiguous and a.flags.writeable:
        return a.reshape(-1), False
    return np.ascontiguousarray(a).reshape(-1), True


def _store(a: np.ndarray, flat: np.ndarray) -> None:
    a[...] = flat.view(a.dtype).reshape(a.shape)


def _spec(flat: np.ndarray, counts: list[int] | None = None) -> list[Any]:
    datatype = transport.datatype(flat.dtype)
    if counts is None:
        return [flat, datatype]
    return [flat, (counts, _displacements(counts)), datatype]


def _displacements(counts: list[int]) -> list[int]:
    return [int(x) for x in np.concatenate([[0], np.cumsum(counts)[:-1]])] if counts else []


def _wire_count(a: np.ndarray) -> int:
    return int(a.size) * (2 if a.dtype.kind == "c" else 1)


def _start(
    async_op: bool,
    blocking: Callable[[], Any],
    nonblocking: Callable[[], Any],
    finish: Finish | None,
    result: list[Any],
) -> Work | None:
    """Run an MPI call now (``finish`` then does the copy-back), or start it and return
    its ``Work``."""
    if async_op:
        return Work([nonblocking()], finish, result)
    blocking()
    if finish is not None:
        finish([])
    return None


def _avg(op: Any) -> bool:
    return (op.op if isinstance(op, ReduceOp) else op) is ReduceOp.AVG
