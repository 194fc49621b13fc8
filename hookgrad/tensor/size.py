"""``Size``: the tuple subclass ``Tensor.shape`` returns."""

from __future__ import annotations

import math


class Size(tuple):
    """A tensor's shape; prints as ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements a tensor of this shape has."""
        return math.prod(self)
