"""The declarative table of op cases, one module per op family.

Each module defines ``CASES``, a list of ``OpCase``; ``ALL_CASES`` joins them. One table
drives every check in ``tests/ops/test_op_table.py``: forward values and gradients
against torch (float32 and float64), ``gradcheck`` and ``gradgradcheck`` in float64.
"""

from tests.ops.cases import activation as nn_activation
from tests.ops.cases import (
    arithmetic,
    conv,
    fft,
    indexing,
    linalg,
    reduction,
    restride,
    shape,
    special,
    unary,
)
from tests.ops.cases import loss as nn_loss
from tests.ops.cases.spec import OpCase

ALL_CASES: list[OpCase] = [
    *arithmetic.CASES,
    *unary.CASES,
    *special.CASES,
    *reduction.CASES,
    *shape.CASES,
    *indexing.CASES,
    *linalg.CASES,
    *fft.CASES,
    *conv.CASES,
    *nn_activation.CASES,
    *nn_loss.CASES,
    *restride.CASES,
]

__all__ = ["ALL_CASES", "OpCase"]
