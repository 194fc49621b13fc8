"""``Reducer``: the gradient averaging of ``DistributedDataParallel``, driven by autograd
hooks (torch's ``dist.Reducer``).

The parameters are split into *buckets* of at most ``bucket_cap_mb`` (one dtype each), in
reverse parameter order: a model's last layers get their gradients first in backward, so
their bucket fills first. Each bucket is one flat array.

During backward, a post-hook on each parameter's ``AccumulateGrad`` node (it runs after
``.grad`` was accumulated and after the user's own hooks) copies the gradient into its
bucket, pre-divided by the world size. The moment a bucket is full its non-blocking
all-reduce starts (or the registered communication hook runs), while autograd goes on with
the earlier layers. Buckets start in index order on every rank, so MPI sees the same
sequence of collectives everywhere. When the last bucket has started, a callback queued
on the engine (``hookgrad.engine.queue_callback``) waits for the reductions at the end of
the backward pass and writes the averaged gradients into ``.grad``, before ``backward()``
returns. User hooks therefore see this rank's own gradients, as in one process; ``.grad``
holds the average once ``backward()`` returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from hookgrad import engine
from hookgrad.distributed import transport
from hookgrad.distributed.collectives import allreduce_array
from hookgrad.distributed.errors import DebugLevel, get_debug_level
from hookgrad.distributed.grad_bucket import GradBucket
from hookgrad.distributed.process_group import ProcessGroup
from hookgrad.grad_mode import enable_grad
from hookgrad.graph.accumulate import AccumulateGrad
from hookgrad.tensor.tensor import Tensor

__all__ = ["Reducer", "compute_bucket_assignment_by_size"]

DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024

UNFINISHED_REDUCTION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` "
    "function. Please include the loss function and the structure of the return value of "
    "`forward` of your module when reporting this issue (e.g. list, dict, iterable)."
)

MARKED_TWICE = (
    "Expected to mark a variable ready only once. This error is caused by one of the "
    "following reasons: 1) Use of a module parameter outside the `forward` function. Please "
    "make sure model parameters are not shared across multiple concurrent forward-backward "
    "passes. or try to use _set_static_graph() as a workaround if this module graph does "
    "not change during training loop.2) Reused parameters in multiple reentrant backward "
    "passes. For example, if you use multiple `checkpoint` functions to wrap the same part "
    "of your model, it would result in the same set of parameters been used by different "
    "reentrant backward passes multiple times, and hence marking a variable ready multiple "
    "times. DDP does not support such use cases in default. You can try to use "
    "_set_static_graph() as a workaround if your module graph does not change over "
    "iterations."
)


def compute_bucket_assignment_by_size(params: list[Any], limits: list[int]) -> list[list[int]]:
    """Split ``params`` (indices in the given order) into buckets of one dtype whose
    byte size reaches the current limit: ``limits[0]`` for the first bucket of a dtype,
    then the next limit, the last one repeating (torch's
    ``_compute_bucket_assignment_by_size``). Buckets come out ordered by their first
    index."""
    open_buckets: dict[Any, tuple[list[int], int, int]] = {}
    closed: list[list[int]] = []
    for index, p in enumerate(params):
        key = p._data.dtype
        members, size, limit_index = open_buckets.get(key, ([], 0, 0))
        members.append(index)
        size += p._data.nbytes
        if size >= limits[limit_index]:
            closed.append(members)
            open_buckets[key] = ([], 0, min(limit_index + 1, len(limits) - 1))
        else:
            open_buckets[key] = (members, size, limit_index)
    closed.extend(members for members, _, _ in open_buckets.values() if members)
    return sorted(closed, key=min)


class _Bucket:
    """One bucket: its parameters (indices into the reducer's list), their offsets in
    ``flat``, and this iteration's state."""

    def __init__(self, index: int, members: list[int], params: list[Any]) -> None:
        self.index = index
        self.members = members
        sizes = [params[i]._data.size for i in members]
        self.offsets = [int(x) for x in np.concatenate([[0], np.cumsum(sizes)[:-1]])]
        self.flat = np.zeros(sum(sizes), dtype=params[members[0]]._data.dtype)
        self.pending = len(members)
        self.work: Any = None
        self.future: Any = None


class Reducer:
    """Averages the gradients of ``params`` over ``group`` as backward produces them.

    ``bucket_indices``: lists of indices into ``params``, bucket 0 first (reduced first).
    ``names``: the parameters' names, for error messages. Used by
    ``DistributedDataParallel``; see the module docstring for how it works.
    """

    def __init__(
        self,
        params: list[Any],
        bucket_indices: list[list[int]],
        group: ProcessGroup,
        find_unused_parameters: bool,
        names: list[str],
    ) -> None:
        self._params = params
        self._names = names
        self._group = group
        self._find_unused = find_unused_parameters
        self._buckets = [_Bucket(i, members, params) for i, members in enumerate(bucket_indices)]
        self._place: dict[int, tuple[_Bucket, int]] = {}
        for bucket in self._buckets:
            for member, offset in zip(bucket.members, bucket.offsets):
                self._place[member] = (bucket, offset)
        self._comm_hook: Callable[[Any, GradBucket], Any] | None = None
        self._comm_state: Any = None
        self._expect_hooks = False
        self._require_finalize = False
        self._ready = [False] * len(params)
        self._next_bucket = 0
        self._unused: list[int] = []
        self._unused_marked = False
        self._local_used = np.zeros(len(params), dtype=np.int32)
        # Listeners called with a bucket's index when its reduction starts (tests and
        # benchmarks watch the overlap with it).
        self.launch_listeners: list[Callable[[int], None]] = []
        self._accumulators = [self._register_hook(index, p) for index, p in enumerate(params)]
        mpi = transport.load()
        self._sum = mpi.SUM

    def _register_hook(self, index: int, p: Any) -> Any:
        """A post-hook on ``p``'s ``AccumulateGrad`` node, kept alive here (as torch's
        reducer keeps its grad accumulators) so that every graph uses this node."""
        with enable_grad():
            accumulator = p.view_as(p).grad_fn.next_functions[0][0]

        def hook(grad_inputs: Any, grad_outputs: Any) -> None:
            self._autograd_hook(index)

        accumulator.register_hook(hook)
        return accumulator

    # -- the communication hook ---------------------------------------------------------

    def register_comm_hook(self, state: Any, hook: Callable[[Any, GradBucket], Any]) -> None:
        """Reduce each bucket with ``hook(state, bucket)`` instead of the built-in average."""
        if self._comm_hook is not None:
            raise RuntimeError(
                "register_comm_hook or register_builtin_comm_hook can only be called once."
            )
        self._comm_hook = hook
        self._comm_state = state

    # -- one iteration ------------------------------------------------------------------

    def ensure_prior_reduction_finished(self) -> None:
        """Raise torch's error if the last synchronised backward did not reduce every
        bucket (a parameter got no gradient without ``find_unused_parameters``)."""
        if not self._require_finalize:
            return
        missing = [str(i) for i, ready in enumerate(self._ready) if not ready]
        rank = transport.load().COMM_WORLD.Get_rank()
        message = (
            f"{UNFINISHED_REDUCTION}\nParameter indices which did not receive grad for rank "
            f"{rank}: {' '.join(missing)}"
        )
        if get_debug_level() is not DebugLevel.OFF:
            names = [self._names[i] for i, ready in enumerate(self._ready) if not ready]
            message += (
                f"\nParameters which did not receive grad for rank {rank}: {', '.join(names)}"
            )
        else:
            message += (
                "\n In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG "
                "to either INFO or DETAIL to print out information about which particular "
                "parameters did not receive gradient on this rank as part of this error"
            )
        raise RuntimeError(message)

    def prepare_for_backward(self, outputs: Iterable[Any]) -> None:
        """Arm the hooks for the next backward pass. With ``find_unused_parameters``, the
        parameters that ``outputs``' graph does not reach are marked unused (their
        gradients count as zero on this rank)."""
        self._expect_hooks = True
        self._require_finalize = True
        self._ready = [False] * len(self._params)
        self._next_bucket = 0
        for bucket in self._buckets:
            bucket.pending = len(bucket.members)
            bucket.work = None
            bucket.future = None
        if self._find_unused:
            self._local_used[:] = 0
            self._unused = self._search_unused(outputs)
            self._unused_marked = False

    def _search_unused(self, outputs: Iterable[Any]) -> list[int]:
        """The indices of the parameters whose ``AccumulateGrad`` the graph of
        ``outputs`` does not reach."""
        seen: set[Any] = set()
        todo = [t.grad_fn for t in outputs if isinstance(t, Tensor) and t.grad_fn is not None]
        reached: set[int] = set()
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            if isinstance(node, AccumulateGrad):
                reached.add(id(node.variable))
                continue
            todo.extend(child for child, _ in node.next_functions if child is not None)
        return [i for i, p in enumerate(self._params) if id(p) not in reached]

    def _autograd_hook(self, index: int) -> None:
        if not self._expect_hooks:
            return
        if self._find_unused:
            if not self._unused_marked:
                self._unused_marked = True
                for unused in self._unused:
                    self._mark_ready(unused)
            self._local_used[index] = 1
        self._mark_ready(index)

    def _mark_ready(self, index: int) -> None:
        if self._ready[index]:
            raise RuntimeError(
                f"{MARKED_TWICE}\nParameter at index {index} with name {self._names[index]} "
                "has been marked as ready twice. This means that multiple autograd engine  "
                "hooks have fired for this particular parameter during this iteration."
            )
        self._ready[index] = True
        bucket, offset = self._place[index]
        p = self._params[index]
        view = bucket.flat[offset : offset + p._data.size]
        grad = p._grad
        if grad is None:
            view[:] = 0
        elif self._comm_hook is None:
            # Pre-divided as torch does (g * (1 / world_size)), so that sums do not overflow.
            factor = view.dtype.type(1.0 / self._group.size())
            np.multiply(grad._data.reshape(-1), factor, out=view)
        else:
            view[:] = grad._data.reshape(-1)
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready_buckets()
        else:
            self._progress()

    def _launch_ready_buckets(self) -> None:
        """Start the buckets that are full, in index order (the same order on every rank);
        once all have started, queue the end-of-backward callback."""
        buckets = self._buckets
        while self._next_bucket < len(buckets) and buckets[self._next_bucket].pending == 0:
            self._launch(buckets[self._next_bucket])
            self._next_bucket += 1
        if self._next_bucket == len(buckets):
            engine.queue_callback(self._finalize)

    def _launch(self, bucket: _Bucket) -> None:
        for listener in self.launch_listeners:
            listener(bucket.index)
        if self._comm_hook is None:
            bucket.work = allreduce_array(bucket.flat, self._sum, self._group, async_op=True)
            return
        grad_bucket = GradBucket(
            bucket.index,
            Tensor._make(bucket.flat),
            [self._params[i] for i in bucket.members],
            bucket.offsets,
            bucket.index == len(self._buckets) - 1,
        )
        bucket.future = self._comm_hook(self._comm_state, grad_bucket)

    def _progress(self) -> None:
        """Let MPI move the started reductions on (it does so only inside MPI calls)."""
        for bucket in self._buckets[: self._next_bucket]:
            if bucket.work is not None:
                bucket.work.is_completed()

    def _finalize(self) -> None:
        """At the end of backward: wait for every bucket, then write the averages into
        ``.grad`` (leaving a parameter unused on every rank untouched)."""
        for bucket in self._buckets:
            if bucket.work is not None:
                bucket.work.wait()
            else:
                result = bucket.future.wait()
                data = result._data if isinstance(result, Tensor) else np.asarray(result)
                if data is not bucket.flat:
                    bucket.flat[:] = data.reshape(-1)
        used = None
        if self._find_unused:
            mpi = transport.load()
            used = self._local_used.copy()
            self._group._comm.Allreduce(mpi.IN_PLACE, used, op=mpi.MAX)
        for index, p in enumerate(self._params):
            if used is not None and not used[index]:
                continue
            bucket, offset = self._place[index]
            average = bucket.flat[offset : offset + p._data.size].reshape(p._data.shape)
            if p._grad is None:
                p.grad = Tensor._make(average.copy())
            else:
                p._grad._data[...] = average
        self._expect_hooks = False
        self._require_finalize = False
