"""Linear algebra functions (matmul, mm, bmm, einsum ...) and their Tensor methods."""

from __future__ import annotations

__all__ = []


class LinalgMethods:
    """Linear algebra methods of ``Tensor``."""

    __slots__ = ()
