"""``hookgrad.distributed.algorithms.ddp_comm_hooks``: how ``DistributedDataParallel``
reduces a bucket of gradients. ``default_hooks`` has torch's ``allreduce_hook`` (what DDP
does without a hook) and ``fp16_compress_hook`` (reduce in float16, half the bytes);
``register_ddp_comm_hook`` registers one by its ``DDPCommHookType``. Example::

    from hookgrad.distributed.algorithms.ddp_comm_hooks import default_hooks
    ddp_model.register_comm_hook(None, default_hooks.fp16_compress_hook)
"""

from __future__ import annotations

import enum
from functools import partial
from typing import Any

from hookgrad.distributed.algorithms.ddp_comm_hooks import default_hooks

__all__ = ["DDPCommHookType", "default_hooks", "register_ddp_comm_hook"]


class DDPCommHookType(enum.Enum):
    """The built-in hooks, by name: ``ALLREDUCE``, ``FP16_COMPRESS``."""

    ALLREDUCE = partial(default_hooks.allreduce_hook)
    FP16_COMPRESS = partial(default_hooks.fp16_compress_hook)


def register_ddp_comm_hook(comm_hook_type: DDPCommHookType, model: Any, state: Any = None) -> None:
    """Register the built-in hook ``comm_hook_type`` on the DDP ``model`` with ``state``
    (the process group, None for the default). Example::

        register_ddp_comm_hook(DDPCommHookType.FP16_COMPRESS, ddp_model)
    """
    model.register_comm_hook(state, comm_hook_type.value)
