"""nn modules: ``Flatten`` and ``Unflatten`` (reshape layers, views where possible)."""

from __future__ import annotations

from collections.abc import Sequence

from hookgrad.nn.modules.module import Module
from hookgrad.tensor import Tensor

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dims ``start_dim`` .. ``end_dim`` into one (by default all but the batch dim).

    Example::

        nn.Flatten()(hookgrad.zeros(8, 3, 4, 4)).shape   # hookgrad.Size([8, 48])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (one entry may be -1).

    Example::

        nn.Unflatten(1, (3, 16))(hookgrad.zeros(8, 48)).shape   # hookgrad.Size([8, 3, 16])
    """

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                "unflattened_size must be a tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        for position, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(
                    "unflattened_size must be tuple of ints, but found element of type "
                    f"{type(size).__name__} at pos {position}"
                )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
