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
    # pointwise binary functions (away from their kinks: fmod's and fmax's ties)
    OpCase("fmod", lambda t, a, b: t.fmod(a, b), ((3, 4), (4,)), low=0.5, high=2.0, distinct=True),
    OpCase("fmod_scalar", lambda t, a: a.fmod(0.7), ((3, 4),), distinct=True),
    OpCase("fmax", lambda t, a, b: t.fmax(a, b), ((3, 4), (4,)), distinct=True),
    OpCase("fmin", lambda t, a, b: a.fmin(b), ((3, 4), (3, 4)), distinct=True),
    OpCase("logaddexp", lambda t, a, b: t.logaddexp(a, b), ((3, 4), (4,))),
    OpCase("logaddexp2", lambda t, a, b: a.logaddexp2(b), ((2, 3), (2, 3))),
    OpCase("hypot", lambda t, a, b: t.hypot(a, b), ((3, 4), (3, 1)), low=0.5, high=2.0),
    OpCase("copysign", lambda t, a, b: t.copysign(a, b), ((3, 4), (4,)), low=0.2, high=2.0),
    OpCase("copysign_scalar", lambda t, a: a.copysign(-1.0), ((3, 4),), low=0.2, high=2.0),
    OpCase("nextafter", lambda t, a, b: t.nextafter(a, b), ((3, 4), (4,)), distinct=True),
    OpCase("ldexp", lambda t, a, b: t.ldexp(a, b), ((3, 4), (4,))),
    OpCase(
        "ldexp_integer",
        lambda t, a, e: a.ldexp(e),
        ((3, 4), Const(lambda r: r.integers(-3, 4, (4,)))),
    ),
    OpCase("float_power", lambda t, a, b: t.float_power(a, b), ((3, 2), (2,)), low=0.5, high=2.0),
    OpCase("float_power_scalar", lambda t, a: t.float_power(a, 2.5), ((3, 2),), low=0.5, high=2.0),
    OpCase("frexp", lambda t, a: t.frexp(a * 10).mantissa, ((3, 4),)),
]

__all__ = ["CASES", "np"]
