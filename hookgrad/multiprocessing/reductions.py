"""How tensors travel between processes: ``init_reductions`` teaches ``multiprocessing``'s
pickler (``ForkingPickler``, which ``Queue``, ``Pipe`` and ``Process`` arguments under
``spawn`` use) to send a tensor whose storage is shared (``share_memory_()``) as the file
descriptor of that memory, so the receiver maps the same memory instead of a copy.

NOTE: torch also moves a tensor that is not shared into shared memory when it is sent;
hookgrad sends such a tensor as a copy of its data (what ``pickle`` makes), and the
receiver's writes do not reach the sender.
"""

from __future__ import annotations

from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any

import numpy as np

from hookgrad.nn.parameter import Parameter
from hookgrad.ops.as_strided import memory_owner, storage_view
from hookgrad.ops.strides import torch_strides
from hookgrad.tensor import shared_memory
from hookgrad.tensor.layout import storage_offset as storage_offset_of
from hookgrad.tensor.tensor import Tensor

__all__ = ["init_reductions", "rebuild_shared_tensor", "reduce_tensor"]


def reduce_tensor(tensor: Tensor) -> Any:
    """The pickled form of ``tensor`` for another process: its shared memory's file
    descriptor and its layout when its storage is shared, else its usual form (a copy).
    """
    data = tensor._data
    root = memory_owner(data)
    fd = shared_memory.descriptor(root)
    if fd is None:
        return tensor.__reduce_ex__(2)
    layout = (data.dtype.str, data.shape, torch_strides(data), storage_offset_of(tensor))
    return (
        rebuild_shared_tensor,
        (type(tensor), DupFd(fd), root.nbytes, layout, tensor.requires_grad),
    )


def rebuild_shared_tensor(
    cls: type, fd: Any, nbytes: int, layout: tuple[Any, ...], requires_grad: bool
) -> Tensor:
    """The tensor ``reduce_tensor`` sent: a view of the shared memory it names."""
    dtype, shape, strides, offset = layout
    root = shared_memory.attach(fd.detach(), nbytes)
    tensor = Tensor._make(storage_view(root, np.dtype(dtype), shape, strides, offset))
    if issubclass(cls, Parameter):
        return Parameter(tensor, requires_grad)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def init_reductions() -> None:
    """Register ``reduce_tensor`` with ``multiprocessing``'s pickler for ``Tensor`` and
    ``Parameter`` (done when ``hookgrad.multiprocessing`` is imported)."""
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
