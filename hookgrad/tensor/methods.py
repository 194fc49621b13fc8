"""Attaches the methods of ``Tensor``, in one place, after the class exists.

``hookgrad.tensor.tensor`` defines the data and autograd fields only and imports nothing
above it; every other method comes from the modules that implement it and is set on the
class here: each op family's namespace of methods (``ArithmeticMethods`` ...; ``Tensor``
does not inherit from them), the derivative table's generated methods and in-place variants,
the device methods, the legacy constructor and ``type()``, ``backward``, and the
regeneration of a view's ``grad_fn``.
``ATTACHED`` records what was attached; ``tools/tensor_stub.py`` writes the stub
``attached.pyi`` from it, so that type checkers and editors see these methods.
"""

from __future__ import annotations

from typing import Any

from hookgrad.tensor import dispatch, legacy, legacy_construction, views
from hookgrad.tensor.backward import tensor_backward
from hookgrad.tensor.device import DeviceMethods
from hookgrad.tensor.functions import generated
from hookgrad.tensor.functions.activation import ActivationMethods
from hookgrad.tensor.functions.arithmetic_methods import ArithmeticMethods
from hookgrad.tensor.functions.comparison import ComparisonMethods
from hookgrad.tensor.functions.conversion import ConversionMethods
from hookgrad.tensor.functions.differences import DifferenceMethods
from hookgrad.tensor.functions.index_functions import IndexFunctionMethods
from hookgrad.tensor.functions.indexing import IndexingMethods
from hookgrad.tensor.functions.inplace import TABLE_INPLACE, InplaceMethods
from hookgrad.tensor.functions.legacy_attributes import LegacyAttributeMethods
from hookgrad.tensor.functions.linalg import LinalgMethods
from hookgrad.tensor.functions.linalg_inplace import LinalgInplaceMethods
from hookgrad.tensor.functions.pointwise import PointwiseMethods
from hookgrad.tensor.functions.positions import PositionMethods
from hookgrad.tensor.functions.reduction import ReductionMethods
from hookgrad.tensor.functions.restride import RestrideMethods
from hookgrad.tensor.functions.sampling import SamplingMethods
from hookgrad.tensor.functions.shape import ShapeMethods
from hookgrad.tensor.functions.sorting import SortingMethods
from hookgrad.tensor.functions.statistics import StatisticsMethods
from hookgrad.tensor.functions.stft import StftMethods
from hookgrad.tensor.functions.unary import UnaryMethods
from hookgrad.tensor.layout import LayoutMethods
from hookgrad.tensor.tensor import Tensor

# What a class body holds besides its methods (``__hash__`` is None where ``__eq__`` is
# defined: ``Tensor`` keeps its own).
_CLASS_FIELDS = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__hash__"}

FAMILIES = (
    LayoutMethods,
    ArithmeticMethods,
    UnaryMethods,
    ReductionMethods,
    ShapeMethods,
    IndexingMethods,
    IndexFunctionMethods,
    PositionMethods,
    LinalgMethods,
    StftMethods,
    ConversionMethods,
    InplaceMethods,
    SamplingMethods,
    PointwiseMethods,
    SortingMethods,
    StatisticsMethods,
    DifferenceMethods,
    ComparisonMethods,
    DeviceMethods,
    RestrideMethods,
    LinalgInplaceMethods,
    ActivationMethods,
    LegacyAttributeMethods,
)

ATTACHED: dict[str, Any] = {
    "__init__": legacy_construction.legacy_init,
    "new": legacy_construction.tensor_new,
    "new_empty_strided": legacy_construction.new_empty_strided,
    "backward": tensor_backward,
    "_apply_op": dispatch.apply_op,
    "_refresh_grad_fn": views.refresh_grad_fn,
}
for _family in FAMILIES:
    for _name, _method in vars(_family).items():
        if _name not in _CLASS_FIELDS:
            if _name in ATTACHED:
                raise RuntimeError(f"Tensor.{_name} is defined by two method families")
            ATTACHED[_name] = _method
# NOTE: last: the table's methods replace the hand-written ones of the same name (``logit``).
ATTACHED |= generated.FUNCTIONS | TABLE_INPLACE
ATTACHED["type"] = legacy.tensor_type  # also takes the legacy types: x.type(LongTensor)

for _name, _method in ATTACHED.items():
    setattr(Tensor, _name, _method)
