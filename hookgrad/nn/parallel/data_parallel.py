"""``DataParallel``: torch's single-process multi-GPU wrapper, as it runs without GPUs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookgrad.nn.modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Wraps ``module`` to split each batch across GPUs; with none (always here), it runs
    ``module`` itself, as torch does on a machine without GPUs.

    ``dp.module`` is the wrapped module, so parameter and ``state_dict`` keys start with
    ``module.``, as in torch; ``device_ids`` is ``[]`` whatever is passed, and
    ``output_device`` and ``dim`` are accepted and ignored. Example::

        model = nn.DataParallel(nn.Linear(2, 3))
        model(hookgrad.ones(4, 2)).shape        # Size([4, 3])
        list(model.state_dict())                # ['module.weight', 'module.bias']
    """

    def __init__(
        self,
        module: Module,
        device_ids: Sequence[Any] | None = None,
        output_device: Any = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[int] = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """``module(*inputs, **kwargs)``."""
        return self.module(*inputs, **kwargs)
