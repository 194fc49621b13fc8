"""Small helpers of ``torch.func``: ``debug_unwrap`` (a batched tensor's whole batch) and
``replace_all_batch_norm_modules_`` (batch norms without running statistics, for ``vmap``).
"""

from __future__ import annotations

from hookgrad.func.batched import BatchedArray, unwrap
from hookgrad.nn.modules.module import Module
from hookgrad.nn.modules.normalization import _BatchNorm
from hookgrad.tensor.tensor import Tensor

__all__ = ["debug_unwrap", "replace_all_batch_norm_modules_"]


def debug_unwrap(tensor: Tensor, *, recurse: bool = True) -> Tensor:
    """The tensor holding the whole batch of a batched tensor (inside ``vmap``): its
    innermost level's batch as dim 0 (with ``recurse``, every level's, the outermost
    first). Other tensors are returned as they are. For debugging: using the result in
    the function being mapped mixes the examples. Example::

        vmap(lambda x: print(hookgrad.func.debug_unwrap(x)) or x)(hookgrad.ones(2, 3))
    """
    data = tensor._data
    if type(data) is not BatchedArray:
        return tensor
    value, _ = unwrap(data, data._levels[-1])
    result = Tensor._make(value)
    return debug_unwrap(result) if recurse else result


def replace_all_batch_norm_modules_(root: Module) -> Module:
    """Make every batch norm of ``root`` (itself included) use its batch's statistics
    only: no running mean and variance (``track_running_stats`` False), so that it can
    run under ``vmap``, which cannot update them for each example. In place; returns
    ``root``. Example::

        model = hookgrad.func.replace_all_batch_norm_modules_(model)
    """
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
