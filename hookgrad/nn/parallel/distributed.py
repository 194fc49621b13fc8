"""``DistributedDataParallel``: data-parallel training over the processes of an MPI job.

Each process runs the whole model on its share of the batch; the wrapper keeps the
replicas equal. At construction it checks that every rank has the same parameters and
broadcasts rank 0's parameters and buffers; in backward its ``Reducer``
(``hookgrad.distributed.reducer``) averages the gradients bucket by bucket, overlapping
the all-reduces with the rest of backward, so that every rank's optimizer takes the same
step, the step one process would take on the whole batch.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.distributed import process_group, transport
from hookgrad.distributed.reducer import (
    DEFAULT_FIRST_BUCKET_BYTES,
    Reducer,
    compute_bucket_assignment_by_size,
)
from hookgrad.nn.modules.module import Module
from hookgrad.tensor.tensor import Tensor

__all__ = ["DistributedDataParallel"]

_MB = 1024 * 1024
DEFAULT_BUCKET_CAP_MB = 25


class DistributedDataParallel(Module):
    """Wrap ``module`` for data-parallel training: call it as the module itself, one
    process per rank, each with its own share of the data; after ``backward()`` every
    rank's ``.grad`` is the average over the ranks.

    ``process_group``: the group to train over (default: the world). ``bucket_cap_mb``:
    the size of a gradient bucket (default 25; the first bucket reduced, holding the last
    parameters, is then 1 MB so that communication starts early).
    ``find_unused_parameters``: allow parameters that get no gradient in an iteration
    (without it, torch's error at the next forward). ``broadcast_buffers``: copy rank 0's
    buffers (BatchNorm statistics...) to every rank before each forward (default True).
    ``init_sync``: broadcast rank 0's parameters and buffers at construction.
    ``device_ids``, ``output_device``, ``dim``, ``check_reduction``,
    ``gradient_as_bucket_view``, ``static_graph`` and the other arguments are accepted
    for torch's signature; gradients are copied out of the buckets.

    ``ddp.module`` is the wrapped module (state-dict keys start with ``module.``);
    ``no_sync()`` accumulates gradients locally; ``register_comm_hook`` replaces the
    averaging. Hooks registered on the module, its parameters and tensors fire as they
    would in one process and see this rank's own gradients. Example::

        dist.init_process_group("mpi")
        model = DistributedDataParallel(Net())
        for x, y in loader:                 # a DistributedSampler's share
            opt.zero_grad()
            loss_fn(model(x), y).backward()   # .grad: the average over the ranks
            opt.step()
    """

    def __init__(
        self,
        module: Module,
        device_ids: Any = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool | None = None,
        init_sync: bool = True,
        process_group: Any = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        delay_all_reduce_named_params: Any = None,
        param_to_hook_all_reduce: Any = None,
        mixed_precision: Any = None,
        device_mesh: Any = None,
        skip_all_reduce_unused_params: bool = False,
        bucket_cap_mb_list: list[int] | None = None,
        batched_grad_copy: bool = False,
        forward_sync_buffers: bool | None = None,
    ) -> None:
        super().__init__()
        group = _resolve_group(process_group)
        ignored = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        named = [
            (name, p)
            for name, p in module.named_parameters()
            if p.requires_grad and name not in ignored
        ]
        if not named:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any "
                "parameter that requires a gradient."
            )
        self.module = module
        self.process_group = group
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap_mb = DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * _MB)
        first_cap = DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        self._module_buffers = [b for name, b in module.named_buffers() if name not in ignored]
        names = [name for name, _ in named]
        params = [p for _, p in named]
        _verify_params_across_processes(group, params)
        if init_sync:
            state = params + (self._module_buffers if self.broadcast_buffers else [])
            _broadcast_coalesced(group, state, src=0)
        # Buckets in reverse parameter order: the last layers' gradients come first.
        reversed_params = params[::-1]
        limits = [min(first_cap, self.bucket_bytes_cap), self.bucket_bytes_cap]
        assignment = compute_bucket_assignment_by_size(reversed_params, limits)
        last = len(params) - 1
        bucket_indices = [[last - i for i in bucket] for bucket in assignment]
        self.reducer = Reducer(params, bucket_indices, group, find_unused_parameters, names)

    # -- forward ---------------------------------------------------------------------------

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Run ``module(*inputs, **kwargs)``, preparing the gradient reduction of the
        backward pass that follows (unless under ``no_sync()`` or without grad)."""
        grad_enabled = grad_mode.is_grad_enabled()
        if grad_enabled:
            self.reducer.ensure_prior_reduction_finished()
        if self._will_sync_buffers():
            _broadcast_coalesced(self.process_group, self._module_buffers, src=0)
        output = self.module(*inputs, **kwargs)
        if grad_enabled and self.require_backward_grad_sync:
            self.require_forward_param_sync = True
            outputs = list(_find_tensors(output)) if self.find_unused_parameters else []
            self.reducer.prepare_for_backward(outputs)
        else:
            self.require_forward_param_sync = False
        return output

    def _will_sync_buffers(self) -> bool:
        return (
            self.require_forward_param_sync
            and self.broadcast_buffers
            and len(self._module_buffers) > 0
            and self.process_group.size() > 1
        )

    # -- the user's controls -----------------------------------------------------------------

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """A context in which forward/backward passes accumulate gradients on each rank
        without communicating; the first synchronised backward after it averages the
        accumulated gradients. Example::

            with ddp.no_sync():
                for x in micro_batches[:-1]:
                    loss_fn(ddp(x)).backward()      # local accumulation
            loss_fn(ddp(micro_batches[-1])).backward()   # averaged over the ranks
        """
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def register_comm_hook(self, state: Any, hook: Callable[..., Any]) -> None:
        """Reduce each gradient bucket with ``hook(state, bucket)`` instead of the
        built-in average: ``bucket`` is a ``dist.GradBucket`` and the hook returns a
        future of the reduced flat tensor (``bucket.buffer()`` averaged over the ranks).
        ``state`` is passed through (the standard hooks take the process group, None for
        the default). Register once, before training. Example::

            from hookgrad.distributed.algorithms.ddp_comm_hooks import default_hooks
            ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
        """
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        self.reducer.register_comm_hook(state, hook)

    def _get_ddp_logging_data(self) -> dict[str, Any]:
        return {
            "world_size": self.process_group.size(),
            "bucket_cap_bytes": self.bucket_bytes_cap,
            "find_unused_parameters": self.find_unused_parameters,
            "num_buckets": len(self.reducer._buckets),
            "backend_name": "mpi",
        }


def _resolve_group(group: Any) -> process_group.ProcessGroup:
    if group is None:
        return process_group.default_group()
    if group is process_group.GroupMember.NON_GROUP_MEMBER:
        raise ValueError("DistributedDataParallel: this rank is not in process_group")
    return group


def _find_tensors(obj: Any) -> Iterator[Tensor]:
    """The tensors inside a forward's output (nested lists, tuples, dicts, dataclasses)."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _find_tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _find_tensors(item)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for field in dataclasses.fields(obj):
            yield from _find_tensors(getattr(obj, field.name))


def _verify_params_across_processes(group: process_group.ProcessGroup, params: list[Any]) -> None:
    """torch's check that every rank wraps the same model: the same number of
    parameters, each with rank 0's shape. Every rank raises, naming the first rank that
    differs, so that none waits in the broadcast that follows."""
    if group.size() == 1:
        return
    mine = [tuple(p._data.shape) for p in params]
    everyone = group._comm.allgather(mine)
    first = everyone[0]
    for rank, theirs in enumerate(everyone):
        if len(theirs) != len(first):
            raise RuntimeError(
                f"DDP expects same model across all ranks, but Rank {rank} has {len(theirs)} "
                f"params, while rank 0 has inconsistent {len(first)} params."
            )
        for index, shape in enumerate(theirs):
            if shape != first[index]:
                raise RuntimeError(
                    f"[{rank}]: params[{index}] in this process with sizes {list(shape)} "
                    "appears not to match sizes of the same param in process 0."
                )


def _broadcast_coalesced(group: process_group.ProcessGroup, tensors: list[Any], src: int) -> None:
    """Copy rank ``src``'s ``tensors`` into every rank's, one broadcast per dtype."""
    if group.size() == 1 or not tensors:
        return
    by_dtype: dict[Any, list[Any]] = {}
    for t in tensors:
        by_dtype.setdefault(t._data.dtype, []).append(t)
    for dtype, members in by_dtype.items():
        flat = np.concatenate([np.ascontiguousarray(t._data).reshape(-1) for t in members])
        wire = flat.view(np.dtype(f"f{dtype.itemsize // 2}")) if dtype.kind == "c" else flat
        group._comm.Bcast([wire, transport.datatype(wire.dtype)], root=src)
        start = 0
        for t in members:
            count = t._data.size
            t._data[...] = flat[start : start + count].reshape(t._data.shape)
            start += count
