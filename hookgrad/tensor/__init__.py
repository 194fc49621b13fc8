"""The tensor layer: ``Tensor``, dtypes, creation, promotion, and the op entry points."""

from hookgrad.tensor.tensor import Tensor

__all__ = ["Tensor"]
