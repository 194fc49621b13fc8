"""Public tensor functions, one module per op family, each with a Tensor-method mixin."""

from hookgrad.tensor.functions.arithmetic import ArithmeticMethods
from hookgrad.tensor.functions.conversion import ConversionMethods
from hookgrad.tensor.functions.indexing import IndexingMethods
from hookgrad.tensor.functions.linalg import LinalgMethods
from hookgrad.tensor.functions.reduction import ReductionMethods
from hookgrad.tensor.functions.shape import ShapeMethods
from hookgrad.tensor.functions.unary import UnaryMethods

__all__ = [
    "ArithmeticMethods",
    "ConversionMethods",
    "IndexingMethods",
    "LinalgMethods",
    "ReductionMethods",
    "ShapeMethods",
    "UnaryMethods",
]
