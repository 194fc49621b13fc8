"""The tensor layer: ``Tensor``, dtypes, creation, promotion, and the op entry points."""

# isort: skip_file
# NOTE: ``tensor`` first: the function modules that ``formulas`` imports need the class.
from hookgrad.tensor.tensor import Tensor
from hookgrad.tensor import formulas  # noqa: F401 (binds the derivative table)

__all__ = ["Tensor"]
