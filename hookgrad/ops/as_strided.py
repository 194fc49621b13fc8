"""``as_strided`` as ops: a view of a tensor's memory with any sizes, strides and offset
(``AsStridedView``, node ``AsStridedBackward0``), its copy (``AsStridedCopy``) and
``as_strided_scatter``; and the memory helpers they and the storage functions use
(``memory_owner``: the array owning some memory; ``storage_view``: a view of that memory
with any layout).

Example: ``storage_view(memory_owner(a), np.float32, (2,), (1,), 0)`` is a view of the
first two float32 elements of ``a``'s memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.indexing import Key
from hookgrad.ops.strides import preserve_layout, torch_strides

# ---------------------------------------------------------------- as_strided


def _positions(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> np.ndarray:
    """The storage position (in elements) of each element of a strided layout."""
    positions = np.full(shape, offset, np.int64)
    for dim, (size, stride) in enumerate(zip(shape, strides)):
        steps = np.arange(size, dtype=np.int64) * stride
        positions += steps.reshape((size,) + (1,) * (len(shape) - dim - 1))
    return positions


def memory_owner(array: np.ndarray) -> np.ndarray:
    """The array owning ``array``'s memory (the end of its chain of NumPy bases; an
    ``as_strided`` view's base is a ``DummyArray`` holding the array it views)."""
    while True:
        base = array.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
            if not isinstance(base, np.ndarray):
                return array
        array = base


def storage_view(
    root: np.ndarray, dtype: Any, shape: tuple[int, ...], strides: tuple[int, ...], offset: int
) -> np.ndarray:
    """A view of the memory of ``root`` (the array owning it) as elements of ``dtype``
    laid out with ``shape``, ``strides`` and ``offset`` (in elements)."""
    memory = root.ravel(order="K").view(np.uint8)
    itemsize = np.dtype(dtype).itemsize
    return np.ndarray(
        shape,
        dtype,
        buffer=memory,
        offset=offset * itemsize,
        strides=tuple(s * itemsize for s in strides),
    )


class AsStridedView(Op):
    """``as_strided(size, stride, storage_offset)``: a view of the input's memory with
    any layout (``storage_offset`` None: the input's own). Its backward adds the gradient
    into the memory's places and reads the input's back (shared equally where the input's
    own elements share memory), as torch's ``as_strided_backward`` does."""

    view = True
    node_name = "AsStridedBackward0"
    input_names = ("self",)
    saved_attributes = ("size", "storage_offset", "stride")

    def __init__(
        self,
        size: tuple[int, ...],
        stride: tuple[int, ...],
        storage_offset: int | None,
        root: np.ndarray,
        offsets: tuple[int, int],
    ) -> None:
        self.size = size
        self.stride = stride
        self.storage_offset = storage_offset
        self.root = root
        self.offset, self.input_offset = offsets

    def forward(self, a: Any) -> Any:
        self.input_geometry = (a.shape, torch_strides(a), self.input_offset)
        return storage_view(self.root, a.dtype, self.size, self.stride, self.offset)

    def backward(self, grad: Any) -> Any:
        written = _positions(self.size, self.stride, self.offset)
        read = _positions(*self.input_geometry)
        span = int(max(written.max(initial=-1), read.max(initial=-1))) + 1
        memory = grad.new_zeros((span,))
        key = Key((Ellipsis,), (written.reshape(-1),), "IndexPutBackward0")
        memory = memory._index_put_key(key, grad.reshape(-1), True)
        grad_input = memory._index_key(Key((Ellipsis,), (read,), "IndexBackward0"))
        counts = np.bincount(read.reshape(-1), minlength=span)[read]
        if (counts > 1).any():
            grad_input = grad_input / grad.new_tensor(counts)
        return grad_input


class AsStridedScatter(Op):
    """``as_strided_scatter``: a copy of ``self`` (laid out as ``clone()``) with ``src``
    written into its ``as_strided(size, stride, storage_offset)`` view; ``src`` gets that
    view's gradient, ``self`` the rest."""

    input_names = ("self", "src")
    saved_attributes = ("size", "storage_offset", "stride")

    def __init__(self, size: tuple[int, ...], stride: tuple[int, ...], storage_offset: Any) -> None:
        self.size = size
        self.stride = stride
        self.storage_offset = storage_offset

    def forward(self, a: Any, src: Any) -> Any:
        # NOTE: a copy laid out as torch's ``clone()``: the offsets count in its memory.
        out = preserve_layout(a.copy(order="K"), a)
        offset = self.storage_offset or 0
        storage_view(memory_owner(out), out.dtype, self.size, self.stride, offset)[...] = src
        return out

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        size, stride, offset = self.size, self.stride, self.storage_offset
        grad = grad.contiguous()
        grad_self = grad_src = None
        if needs[0]:
            grad_self = grad.as_strided_scatter(grad.new_zeros(size), size, stride, offset)
        if needs[1]:
            grad_src = grad.as_strided(size, stride, offset)
        return grad_self, grad_src


class AsStridedCopy(AsStridedView):
    """``as_strided_copy``: the ``as_strided`` view as a new contiguous tensor."""

    view = False
    node_name = "AsStridedBackward0_copy"

    def forward(self, a: Any) -> Any:
        return np.array(super().forward(a), order="C")
