"""Op cases: the special functions (``hookgrad.special`` and the gamma family, Bessel
functions, the incomplete gamma and zeta functions of ``hookgrad``).

Domains keep away from poles and branch points. Arguments torch has no derivative for
(``igamma``'s and ``zeta``'s first) are constants. Float32 results are compared closely:
the kernels are torch's algorithms, in float32 arithmetic where torch's are.
"""

import numpy as np

from tests.ops.cases.spec import Const, OpCase

TIGHT = {"rtol32": 2e-6, "atol32": 1e-7}


def _cases(name, fn, low, high, shapes=((3, 4), ()), **options):
    """One case per shape, compared closely in float32."""
    return [
        OpCase(name, fn, (shape,), low=low, high=high, **{**TIGHT, **options}) for shape in shapes
    ]


def _shape_a(rng):
    """Shape parameters ``a`` of the incomplete gamma functions, one per regime: the
    power series, the continued fraction and Temme's expansion (a near x, a > 20)."""
    values = [[0.7, 2.5, 4.0, 30.0], [1.5, 0.3, 9.0, 55.0], [3.0, 12.0, 0.9, 120.0]]
    return np.array(values, np.float32)


def _exponents(rng):
    return np.array([2.0, 3.5, 4.0, 6.25], np.float32)


CASES = [
    # the gamma family
    *_cases("lgamma", lambda t, a: t.lgamma(a), 0.3, 6.0),
    *_cases("lgamma_negative", lambda t, a: a.lgamma(), -2.9, -2.1),
    *_cases("gammaln", lambda t, a: t.special.gammaln(a), 0.3, 6.0, shapes=((2, 3),)),
    *_cases("digamma", lambda t, a: t.digamma(a), 0.2, 12.0),
    *_cases("digamma_negative", lambda t, a: t.special.psi(a), -0.9, -0.1, shapes=((5,),)),
    *_cases("polygamma1", lambda t, a: t.polygamma(1, a), 0.2, 5.0),
    *_cases("polygamma2", lambda t, a: a.polygamma(2), 0.5, 5.0, shapes=((3, 4),)),
    *_cases("polygamma3", lambda t, a: t.special.polygamma(3, a), 0.5, 5.0, shapes=((5,),)),
    *_cases("mvlgamma", lambda t, a: t.mvlgamma(a, 3), 1.2, 5.0, shapes=((2, 3),)),
    *_cases("multigammaln", lambda t, a: t.special.multigammaln(a, 1), 0.5, 5.0, shapes=((4,),)),
    # Bessel functions: both of Cephes' ranges ([0, 8] and beyond)
    *_cases("i0", lambda t, a: t.i0(a), -12.0, 12.0),
    *_cases("i0e", lambda t, a: t.special.i0e(a), -12.0, 12.0),
    *_cases("i1", lambda t, a: t.special.i1(a), -12.0, 12.0),
    *_cases("i1e", lambda t, a: t.special.i1e(a), -12.0, 12.0),
    # the normal distribution
    *_cases("ndtr", lambda t, a: t.special.ndtr(a), -3.0, 3.0),
    *_cases("ndtri", lambda t, a: t.special.ndtri(a), 0.01, 0.99),
    *_cases("log_ndtr", lambda t, a: t.special.log_ndtr(a), -6.0, 3.0),
    *_cases("erfcx", lambda t, a: t.special.erfcx(a), -3.0, 60.0),
    # elementary
    *_cases("entr", lambda t, a: t.special.entr(a), 0.1, 3.0),
    *_cases("sinc", lambda t, a: t.sinc(a), -2.5, 2.5),
    *_cases("xlog1py", lambda t, a: t.special.xlog1py(a, a * a), -2.0, 2.0, shapes=((2, 3),)),
    OpCase(
        "xlog1py_bcast",
        lambda t, a, b: t.special.xlog1py(a, b),
        ((2, 3), (3,)),
        low=0.5,
        high=2.0,
        **TIGHT,
    ),
    OpCase(
        "xlog1py_number_self",
        lambda t, b: t.special.xlog1py(2.5, b),
        ((3, 4),),
        low=-0.5,
        high=2.0,
        **TIGHT,
    ),
    OpCase("xlog1py_number_other", lambda t, a: t.special.xlog1py(a, 1.5), ((3, 4),), **TIGHT),
    # the incomplete gamma and zeta functions: differentiable in the second argument
    OpCase(
        "igamma",
        lambda t, a, x: t.igamma(a, x),
        (Const(_shape_a), (3, 4)),
        low=0.2,
        high=40.0,
        **TIGHT,
    ),
    OpCase(
        "gammaincc",
        lambda t, a, x: t.special.gammaincc(a, x),
        (Const(_shape_a), (3, 4)),
        low=0.2,
        high=40.0,
        **TIGHT,
    ),
    OpCase(
        "zeta",
        lambda t, s, q: t.special.zeta(s, q),
        (Const(_exponents), (3, 4)),
        low=0.5,
        high=4.0,
        **TIGHT,
    ),
    OpCase("zeta_number_self", lambda t, q: t.special.zeta(3.0, q), ((4,),), low=0.5, high=4.0),
]

__all__ = ["CASES"]
