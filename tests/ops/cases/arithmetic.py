"""Op cases: arithmetic (add, sub, mul, div, pow, where, maximum ...)."""

import numpy as np

from tests.ops.cases.spec import Const, OpCase

BROADCAST = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3))]

CASES = [
    *[OpCase("add", lambda t, a, b: a + b, s) for s in BROADCAST],
    *[OpCase("add_alpha", lambda t, a, b: t.add(a, b, alpha=2.5), s) for s in BROADCAST[:2]],
    *[OpCase("sub", lambda t, a, b: a - b, s) for s in BROADCAST],
    *[OpCase("mul", lambda t, a, b: a * b, s) for s in BROADCAST],
    *[OpCase("div", lambda t, a, b: a / b, s, low=0.5, high=2.0) for s in BROADCAST],
    OpCase("neg", lambda t, a: -a, ((3, 2),)),
    OpCase("mul_scalar", lambda t, a: a * 3.5, ((3, 2),)),
    OpCase("rsub_scalar", lambda t, a: 2 - a, ((3, 2),)),
    OpCase("rdiv_scalar", lambda t, a: 2 / a, ((3, 2),), low=0.5, high=2.0),
    OpCase("pow_scalar", lambda t, a: a**3, ((3, 2),)),
    OpCase("pow_half", lambda t, a: a**0.5, ((3, 2),), low=0.5, high=2.0),
    OpCase("pow_tensor", lambda t, a, b: a**b, ((3, 2), (3, 2)), low=0.5, high=2.0),
    OpCase("pow_tensor_bcast", lambda t, a, b: a**b, ((3, 2), (2,)), low=0.5, high=2.0),
    OpCase("rpow_scalar", lambda t, a: 2.5**a, ((3, 2),)),
    OpCase(
        "where",
        lambda t, c, a, b: t.where(c, a, b),
        (Const(lambda r: r.random((3, 4)) > 0.5), (3, 4), (4,)),
    ),
    OpCase("maximum", lambda t, a, b: t.maximum(a, b), ((3, 4), (4,)), distinct=True),
    OpCase("minimum", lambda t, a, b: t.minimum(a, b), ((3, 4), (3, 4)), distinct=True),
    OpCase("remainder", lambda t, a: t.remainder(a, 0.7), ((3, 4),), distinct=True),
    OpCase(
        "masked_fill",
        lambda t, a, m: a.masked_fill(m, 1.5),
        ((3, 4), Const(lambda r: r.random((4,)) > 0.5)),
    ),
]

__all__ = ["CASES", "np"]
