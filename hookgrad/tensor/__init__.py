"""The tensor layer: ``Tensor``, dtypes, creation, promotion, and the op entry points."""

from hookgrad.tensor import formulas, methods  # noqa: F401 (bind the table, attach methods)
from hookgrad.tensor.tensor import Tensor

__all__ = ["Tensor"]
