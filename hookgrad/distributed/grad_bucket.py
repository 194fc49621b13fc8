"""``GradBucket``: what ``DistributedDataParallel`` hands a communication hook, one bucket of
gradients flattened into one tensor."""

from __future__ import annotations

from typing import Any

from hookgrad.tensor.tensor import Tensor

__all__ = ["GradBucket"]


class GradBucket:
    """One bucket of gradients: ``buffer()`` is a flat tensor holding them one after the
    other, ``gradients()`` views of it shaped like ``parameters()``. A communication hook
    reduces the buffer and returns a future of the reduced (averaged) flat tensor.
    Example::

        def hook(state, bucket):
            print(bucket.index(), bucket.buffer().numel(), bucket.is_last())
            return default_hooks.allreduce_hook(state, bucket)
    """

    def __init__(
        self, index: int, buffer: Tensor, parameters: list[Any], offsets: list[int], last: bool
    ) -> None:
        self._index = index
        self._buffer = buffer
        self._parameters = parameters
        self._offsets = offsets
        self._last = last

    def index(self) -> int:
        """The bucket's number (0 holds the last parameters, whose gradients come first)."""
        return self._index

    def buffer(self) -> Tensor:
        """The flat tensor of the bucket's gradients."""
        return self._buffer

    def gradients(self) -> list[Tensor]:
        """Views of ``buffer()``, one per parameter, shaped like it."""
        flat = self._buffer._data
        return [
            Tensor._make(flat[start : start + p._data.size].reshape(p._data.shape))
            for p, start in zip(self._parameters, self._offsets)
        ]

    def parameters(self) -> list[Any]:
        """The parameters whose gradients the bucket holds."""
        return list(self._parameters)

    def is_last(self) -> bool:
        """Whether this is the last bucket reduced in a backward pass."""
        return self._last

    def set_buffer(self, buffer: Tensor) -> None:
        """Replace the bucket's flat tensor by ``buffer`` (same size)."""
        self._buffer = buffer
