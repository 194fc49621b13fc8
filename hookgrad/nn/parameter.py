"""``Parameter``: a leaf tensor that a ``Module`` registers as one of its parameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning it to a ``Module`` attribute registers
    it. It requires grad by default and prints as ``Parameter containing:``.

    Example::

        w = nn.Parameter(hookgrad.randn(3, 4))
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            self._data = np.zeros((0,), np.float32)
        else:  # shares memory with a given tensor, as torch does
            self._data = data._data if isinstance(data, Tensor) else Tensor(data)._data
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()
