"""Process groups: ``init_process_group`` makes the default group (every process of the MPI
job), ``new_group`` a subset; the rank and size queries, ``destroy_process_group``, and the
hook that turns an uncaught error on one rank into the end of the whole job.

A ``ProcessGroup`` owns one MPI communicator (its own duplicate, so hookgrad's messages
never meet the user's own MPI traffic) and the global ranks of its members, in order.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings
from datetime import timedelta
from typing import Any

from hookgrad.distributed import transport

__all__ = [
    "Backend",
    "GroupMember",
    "ProcessGroup",
    "default_pg_timeout",
    "destroy_process_group",
    "get_backend",
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
    "is_available",
    "is_backend_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "is_ucc_available",
    "is_xccl_available",
    "new_group",
    "new_subgroups",
    "new_subgroups_by_enumeration",
]

default_pg_timeout = timedelta(minutes=30)

NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


class Backend(str):
    """The name of a communication backend, lower-cased: ``Backend("MPI") == "mpi"``.

    hookgrad's transport is MPI; ``"gloo"`` (torch's CPU backend, what CPU scripts ask
    for) is accepted and runs on MPI too. ``"nccl"`` and the other accelerator backends
    are refused, as on a CPU-only torch. Example::

        dist.Backend.MPI        # 'mpi'
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {name}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


class ProcessGroup:
    """A group of processes that run collectives together: ``rank()`` is this process's
    place in it, ``size()`` the number of members. Made by ``init_process_group`` (all
    processes) and ``new_group``. Example::

        g = dist.new_group([0, 1])
        g.rank(), g.size()       # (0, 2) on global rank 0
    """

    def __init__(self, comm: Any, ranks: list[int], backend: str, name: str) -> None:
        self._comm = comm
        self._ranks = ranks
        self._backend = backend
        self.group_name = name
        self.group_desc = name

    def rank(self) -> int:
        """This process's rank in the group."""
        return int(self._comm.Get_rank())

    def size(self) -> int:
        """The number of processes in the group."""
        return len(self._ranks)

    def name(self) -> str:
        """The backend's name (``"mpi"``)."""
        return "mpi"

    def __repr__(self) -> str:
        return f"<hookgrad.distributed.ProcessGroup {self.group_name} ranks={self._ranks}>"


class _World:
    """The state of this process's distributed package."""

    def __init__(self) -> None:
        self.default: ProcessGroup | None = None
        self.groups: dict[ProcessGroup, list[int]] = {}
        self.backend = Backend.MPI
        self.count = 0
        self.previous_excepthook: Any = None


_world = _World()


class _WorldMeta(type):
    """Gives ``group.WORLD`` and ``GroupMember.WORLD``: the default group, or None."""

    @property
    def WORLD(cls) -> ProcessGroup | None:  # noqa: N802 (torch's name)
        return _world.default


class group(metaclass=_WorldMeta):  # noqa: N801 (torch's name)
    """``group.WORLD``: the default process group (None before ``init_process_group``)."""


class GroupMember(metaclass=_WorldMeta):
    """``GroupMember.WORLD`` (the default group) and ``GroupMember.NON_GROUP_MEMBER``, what
    ``new_group`` returns to processes outside the new group."""

    NON_GROUP_MEMBER: Any = -100


# -- availability ---------------------------------------------------------------------------


def is_available() -> bool:
    """Whether the distributed package can run here: True when ``mpi4py`` is installed
    (``pip install mpi4py mpich``). Example: ``if dist.is_available(): ...``."""
    return transport.available()


def is_mpi_available() -> bool:
    """Whether the MPI backend is available (``mpi4py`` is installed)."""
    return transport.available()


def is_gloo_available() -> bool:
    """Whether ``backend="gloo"`` works: it does wherever MPI does (served by MPI)."""
    return transport.available()


def is_nccl_available() -> bool:
    """Always False: hookgrad has no GPUs."""
    return False


def is_ucc_available() -> bool:
    """Always False: hookgrad's transport is MPI."""
    return False


def is_backend_available(backend: str) -> bool:
    """Whether ``backend`` (``"mpi"``, ``"gloo"``) can be used here."""
    return Backend(backend) in (Backend.MPI, Backend.GLOO) and transport.available()


def is_torchelastic_launched() -> bool:
    """Whether torchelastic (``torchrun``) started this process (``TORCHELASTIC_RUN_ID``
    is set)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    """Whether ``init_process_group`` has made the default group. Example::

    if not dist.is_initialized():
        dist.init_process_group("mpi")
    """
    return _world.default is not None


# -- the default group ----------------------------------------------------------------------


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store: Any = None,
    group_name: str = "",
    pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Join this process to the default process group: every process of the MPI job.

    Start the processes with ``mpiexec -n N python train.py`` (or
    ``python -m hookgrad.distributed.run -n N train.py``, or torchrun-style with ``RANK``,
    ``WORLD_SIZE``, ``MASTER_ADDR`` and ``MASTER_PORT`` set in each process; see
    ``hookgrad.distributed.bootstrap``): MPI assigns ranks. ``backend`` is ``"mpi"``,
    ``"gloo"`` (served by MPI) or None; ``world_size`` and ``rank``, if given, must be
    what MPI assigned. ``init_method``, ``store``, ``timeout``, ``pg_options`` and
    ``device_id`` are accepted for torch's signature. On more than one process, an
    uncaught exception then ends every process of the job (``MPI_Abort``) after printing
    its traceback, so that no rank waits forever for one that died. Example::

        dist.init_process_group("mpi")
        print(dist.get_rank(), dist.get_world_size())
    """
    if _world.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = _check_backend(backend)
    from hookgrad.distributed import bootstrap

    bootstrap.prepare_environment()
    mpi = transport.load()
    comm = mpi.COMM_WORLD
    size = int(comm.Get_size())
    my_rank = int(comm.Get_rank())
    _check_assigned("world_size", world_size, size, "WORLD_SIZE")
    _check_assigned("rank", rank, my_rank, "RANK")
    _world.backend = name
    _world.default = ProcessGroup(comm.Dup(), list(range(size)), name, "0")
    _world.groups[_world.default] = list(range(size))
    _world.count = 1
    if size > 1:
        _install_abort_hook()


def _check_backend(backend: str | None) -> Backend:
    """The backend asked for: None, ``"mpi"``, ``"gloo"``, or torch's per-device form
    (``"cpu:gloo,cuda:nccl"``, of which the CPU's counts)."""
    if backend is None:
        return Backend(Backend.MPI)
    text = str(backend)
    if ":" in text:
        pairs = dict(part.split(":", 1) for part in text.split(",") if ":" in part)
        if "cpu" not in pairs:
            raise ValueError(f"Invalid backend: '{backend}' names no backend for the cpu")
        text = pairs["cpu"]
    name = Backend(text)
    if name in (Backend.MPI, Backend.GLOO):
        return name
    if name == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    raise ValueError(f"Invalid backend: '{backend}'")


def _check_assigned(what: str, given: int, assigned: int, variable: str) -> None:
    """``world_size``/``rank`` (or their environment variables) must be MPI's."""
    source = f"{what}={given}"
    if given in (-1, None):
        text = os.environ.get(variable)
        if text is None:
            return
        given, source = int(text), f"{variable}={text}"
    if int(given) != assigned:
        raise ValueError(
            f"init_process_group: {source}, but MPI started this process as {what} "
            f"{assigned}. Start the processes with `mpiexec -n N` or "
            "`python -m hookgrad.distributed.run -n N`, or torchrun-style with RANK, "
            "WORLD_SIZE, MASTER_ADDR and MASTER_PORT in every process."
        )


def _install_abort_hook() -> None:
    """On an uncaught exception: print it as Python would, then abort the MPI job, so
    that the other ranks (perhaps waiting in a collective) end too instead of hanging."""
    previous = sys.excepthook

    def abort_job(kind: Any, value: Any, tb: Any) -> None:
        rank = -1 if _world.default is None else int(transport.load().COMM_WORLD.Get_rank())
        sys.stderr.write(f"[rank{rank}]: uncaught exception, aborting the MPI job:\n")
        traceback.print_exception(kind, value, tb)
        sys.stderr.flush()
        sys.stdout.flush()
        transport.load().COMM_WORLD.Abort(1)

    _world.previous_excepthook = previous
    sys.excepthook = abort_job


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free ``group``, or with no argument every group (the package is then
    uninitialized, and ``init_process_group`` may be called again). Example::

        dist.destroy_process_group()
    """
    if _world.default is None:
        raise ValueError(NOT_INITIALIZED)
    if group is None or group is _world.default:
        for member in list(_world.groups):
            member._comm.Free()
        _world.groups.clear()
        _world.default = None
        _world.count = 0
        if _world.previous_excepthook is not None:
            sys.excepthook = _world.previous_excepthook
            _world.previous_excepthook = None
        return
    if group not in _world.groups:
        raise ValueError("Invalid process group specified")
    group._comm.Free()
    del _world.groups[group]


def default_group() -> ProcessGroup:
    """The default group; a ValueError (torch's) before ``init_process_group``."""
    if _world.default is None:
        raise ValueError(NOT_INITIALIZED)
    return _world.default


def resolve(group: Any) -> Any:
    """``group`` or the default group for None; NON_GROUP_MEMBER passes through."""
    if group is None:
        return default_group()
    default_group()
    return group


def not_member(group: Any, op_name: str) -> bool:
    """True (with torch's warning) when this process is not in ``group``."""
    if group is GroupMember.NON_GROUP_MEMBER:
        warnings.warn(
            f"Running {op_name} on global rank {get_rank()} which does not belong to the "
            "given group.",
            stacklevel=3,
        )
        return True
    return False


# -- queries ----------------------------------------------------------------------------------


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (default: the world); -1 if not a member.
    Example: ``if dist.get_rank() == 0: print(loss)``."""
    group = resolve(group)
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return group.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in ``group`` (default: the world); -1 if not a member.
    Example: ``lr = base_lr * dist.get_world_size()``."""
    group = resolve(group)
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return group.size()


def get_backend(group: ProcessGroup | None = None) -> Backend:
    """The backend of ``group``: ``"mpi"``, or ``"gloo"`` if that was asked for."""
    group = resolve(group)
    if group is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return Backend(group._backend)


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    return list(resolve(group)._ranks)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The global rank of ``group``'s member number ``group_rank``."""
    ranks = resolve(group)._ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """The rank within ``group`` of the process with global rank ``global_rank``."""
    ranks = resolve(group)._ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def get_pg_count() -> int:
    """How many process groups this process has made (the default group included)."""
    return _world.count


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank on its machine: ``LOCAL_RANK`` if set (torchrun sets it), else
    the local rank MPI's launcher gives (``MPI_LOCALRANKID``, ``OMPI_COMM_WORLD_LOCAL_RANK``),
    else ``fallback_rank``."""
    for variable in ("LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK"):
        if variable in os.environ:
            return int(os.environ[variable])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device "
        "context and want the code to run locally instead."
    )


# -- subgroups ------------------------------------------------------------------------------


def new_group(
    ranks: list[int] | None = None,
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    use_local_synchronization: bool = False,
    group_desc: str | None = None,
    device_id: Any = None,
    sort_ranks: bool = True,
) -> Any:
    """A process group of the global ranks ``ranks`` (default: all). Every process of the
    world must call it, members or not; a non-member gets ``GroupMember.NON_GROUP_MEMBER``
    (collectives on it warn and do nothing there). Example::

        evens = dist.new_group([r for r in range(dist.get_world_size()) if r % 2 == 0])
        dist.all_reduce(t, group=evens)      # on the even ranks
    """
    world = default_group()
    size = world.size()
    chosen = list(range(size)) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        chosen.sort()
    for r in chosen:
        if not 0 <= r < size:
            raise ValueError(
                "The new group's rank should be within the world_size set by "
                f"init_process_group; got {r} with world size {size}"
            )
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"new_group: ranks must be distinct, got {chosen}")
    mpi = transport.load()
    me = world.rank()
    color = 0 if me in chosen else mpi.UNDEFINED
    key = chosen.index(me) if me in chosen else 0
    comm = world._comm.Split(color, key)
    _world.count += 1
    if me not in chosen:
        return GroupMember.NON_GROUP_MEMBER
    made = ProcessGroup(comm, chosen, _world.backend, str(_world.count - 1))
    made.group_desc = group_desc or made.group_name
    _world.groups[made] = chosen
    return made


def new_subgroups_by_enumeration(
    ranks_per_subgroup_list: list[list[int]],
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    group_desc: str | None = None,
) -> tuple[Any, list[Any]]:
    """Make one group per list of global ranks; return (this process's group, all of
    them). Every process must call it. Example::

        mine, groups = dist.new_subgroups_by_enumeration([[0, 2], [1, 3]])
    """
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    subgroups = []
    mine = None
    for ranks in ranks_per_subgroup_list:
        made = new_group(ranks, group_desc=group_desc)
        subgroups.append(made)
        if get_rank() in ranks:
            if mine is not None:
                raise ValueError(f"Rank {get_rank()} has appeared in both subgroup")
            mine = made
    return mine, subgroups


def get_default_backend_for_device(device: Any) -> str:
    """The backend for tensors on ``device``: ``"mpi"`` for the CPU (hookgrad's only
    device). Example: ``dist.get_default_backend_for_device("cpu")``."""
    if str(device).split(":")[0] != "cpu":
        raise RuntimeError(f"Default backend not registered for device : {device}")
    return Backend.MPI


def is_xccl_available() -> bool:
    """Always False: hookgrad has no Intel GPUs."""
    return False


def new_subgroups(
    group_size: int | None = None,
    group: ProcessGroup | None = None,
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    group_desc: str | None = None,
) -> tuple[Any, list[Any]]:
    """Split the world into consecutive groups of ``group_size`` ranks; return (this
    process's group, all of them). Every process must call it. Example::

        mine, everyone = dist.new_subgroups(2)     # ranks {0,1}, {2,3}, ...
    """
    size = get_world_size()
    if group_size is None:
        group_size = size
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    if size % group_size != 0:
        raise ValueError(f"The world size ({size}) must be divisible by group_size={group_size}")
    subgroups = []
    mine = None
    for start in range(0, size, group_size):
        made = new_group(list(range(start, start + group_size)), group_desc=group_desc)
        subgroups.append(made)
        if start <= get_rank() < start + group_size:
            mine = made
    return mine, subgroups
