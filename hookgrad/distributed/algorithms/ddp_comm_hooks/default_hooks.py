"""torch's default communication hooks for ``DistributedDataParallel``: ``allreduce_hook``
and ``fp16_compress_hook`` (``fp16_compress_wrapper`` for other hooks). There is no
bfloat16 hook: NumPy has no bfloat16."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookgrad.distributed import collectives
from hookgrad.distributed.grad_bucket import GradBucket
from hookgrad.distributed.process_group import ProcessGroup, default_group
from hookgrad.distributed.work import Work
from hookgrad.futures import Future
from hookgrad.tensor import dtypes
from hookgrad.tensor.tensor import Tensor

__all__ = ["allreduce_hook", "fp16_compress_hook", "fp16_compress_wrapper"]


def _group(process_group: ProcessGroup | None) -> ProcessGroup:
    return process_group if process_group is not None else default_group()


def _started(work: Work | None) -> Work:
    if work is None:
        raise ValueError("a communication hook ran on a rank outside its process group")
    return work


def _allreduce_fut(process_group: ProcessGroup | None, tensor: Tensor) -> Future[Tensor]:
    """Average ``tensor`` over the group: divide, all-reduce, return a future of it."""
    group_to_use = _group(process_group)
    # Divide first, as torch does, so that float16 sums do not overflow.
    tensor.div_(group_to_use.size())
    work = _started(collectives.all_reduce(tensor, group=group_to_use, async_op=True))
    return work.get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group: ProcessGroup | None, bucket: GradBucket) -> Future[Tensor]:
    """Average the bucket over the ranks with one all-reduce: what DDP does without a
    hook, so registering it changes nothing (a starting point for your own). Example::

        ddp_model.register_comm_hook(None, allreduce_hook)
    """
    return _allreduce_fut(process_group, bucket.buffer())


def fp16_compress_hook(process_group: ProcessGroup | None, bucket: GradBucket) -> Future[Tensor]:
    """Cast the bucket to float16, divide by the group's size, all-reduce it, and cast the
    result back into the bucket: half the bytes of ``allreduce_hook``, at float16's
    precision. Example::

        ddp_model.register_comm_hook(None, fp16_compress_hook)
    """
    group_to_use = _group(process_group)
    buffer = bucket.buffer()
    compressed = buffer.to(dtypes.float16).div_(group_to_use.size())

    def decompress(fut: Future[list[Tensor]]) -> Tensor:
        buffer.copy_(fut.value()[0])
        return buffer

    work = _started(collectives.all_reduce(compressed, group=group_to_use, async_op=True))
    return work.get_future().then(decompress)


def fp16_compress_wrapper(
    hook: Callable[[Any, GradBucket], Future[Tensor]],
) -> Callable[[Any, GradBucket], Future[Tensor]]:
    """Wrap ``hook`` so that it sees the bucket cast to float16 and its result is cast
    back. Example::

        ddp_model.register_comm_hook(None, fp16_compress_wrapper(allreduce_hook))
    """

    def fp16_compress_wrapper_hook(state: Any, bucket: GradBucket) -> Future[Tensor]:
        buffer = bucket.buffer()
        bucket.set_buffer(buffer.to(dtypes.float16))
        fut = hook(state, bucket)

        def decompress(fut: Future[Tensor]) -> Tensor:
            buffer.copy_(fut.value())
            return buffer

        return fut.then(decompress)

    return fp16_compress_wrapper_hook
