"""``Size``: the tuple subclass ``Tensor.shape`` returns."""

from __future__ import annotations

import math
from typing import Any


class Size(tuple):
    """A tensor's shape; prints as ``torch.Size([2, 3])``.

    Slicing, ``+`` and ``*`` give a ``Size`` again, as in torch::

        hookgrad.zeros(2, 3).shape[1:] + (4,)    # torch.Size([3, 4])
    """

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, count: Any) -> Any:
        return Size(tuple(self) * count)

    __rmul__ = __mul__

    def __reduce__(self) -> tuple[Any, tuple[tuple[int, ...]]]:
        return (Size, (tuple(self),))

    def numel(self) -> int:
        """The number of elements a tensor of this shape has."""
        return math.prod(self)
