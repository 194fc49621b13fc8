"""Op cases: elementwise math (exp/log, roots, trigonometric, activations, erf, clamp,
rounding) and the small binary ops of the family (atan2, xlogy, lerp).

Domains keep away from points where an op is not differentiable or not defined (log at
0, abs at 0, clamp at its bounds ...); the conventions there are tested explicitly in
``tests/ops/test_unary.py``.
"""

import numpy as np

from tests.ops.cases.spec import Const, OpCase

SHAPES = [(3, 4), (), (2, 1, 3)]


def _cases(name, fn, low=-2.0, high=2.0, **options):
    """One case per shape in ``SHAPES``."""
    return [OpCase(name, fn, (shape,), low=low, high=high, **options) for shape in SHAPES]


def _signs(rng):
    """Random signs: ``a * signs`` with ``a`` in [0.5, 2] stays away from 0 (a kink)."""
    return rng.choice([-1.0, 1.0], size=(3, 4))


def _0_95(rng):
    return np.array(0.95)


CASES = [
    # exponentials and logarithms
    *_cases("exp", lambda t, a: a.exp()),
    *_cases("exp2", lambda t, a: t.exp2(a)),
    *_cases("expm1", lambda t, a: t.expm1(a)),
    *_cases("log", lambda t, a: a.log(), low=0.5, high=3.0),
    *_cases("log2", lambda t, a: t.log2(a), low=0.5, high=3.0),
    *_cases("log10", lambda t, a: a.log10(), low=0.5, high=3.0),
    *_cases("log1p", lambda t, a: t.log1p(a), low=-0.5, high=2.0),
    # roots and powers
    *_cases("sqrt", lambda t, a: a.sqrt(), low=0.5, high=3.0),
    *_cases("rsqrt", lambda t, a: t.rsqrt(a), low=0.5, high=3.0),
    *_cases("square", lambda t, a: t.square(a)),
    *_cases("reciprocal", lambda t, a: a.reciprocal(), low=0.5, high=3.0),
    # sign and magnitude: abs away from 0; sign and sgn have a zero gradient
    *_cases("abs", lambda t, a: t.abs(a), low=0.2, high=2.0),
    OpCase("abs_signs", lambda t, a, s: (a * s).abs(), ((3, 4), Const(_signs)), low=0.5, high=2.0),
    *_cases("sign", lambda t, a: a.sign() * a),
    *_cases("sgn", lambda t, a: t.sgn(a) * a),
    # trigonometric and hyperbolic
    *_cases("sin", lambda t, a: a.sin()),
    *_cases("cos", lambda t, a: t.cos(a)),
    *_cases("tan", lambda t, a: a.tan(), low=-1.2, high=1.2),
    *_cases("asin", lambda t, a: t.asin(a), low=-0.9, high=0.9),
    *_cases("acos", lambda t, a: a.acos(), low=-0.9, high=0.9),
    *_cases("atan", lambda t, a: t.arctan(a)),
    *_cases("sinh", lambda t, a: a.sinh()),
    *_cases("cosh", lambda t, a: t.cosh(a)),
    *_cases("tanh", lambda t, a: a.tanh()),
    *_cases("asinh", lambda t, a: t.asinh(a)),
    *_cases("acosh", lambda t, a: a.acosh(), low=1.2, high=3.0),
    *_cases("atanh", lambda t, a: t.atanh(a), low=-0.9, high=0.9),
    OpCase("atan2", lambda t, a, b: t.atan2(a, b), ((3, 4), (3, 4))),
    OpCase("atan2_bcast", lambda t, a, b: a.atan2(b), ((2, 1, 3), (4, 1))),
    OpCase("atan2_0dim", lambda t, a, b: t.arctan2(a, b), ((), (3,))),
    # activations and the error function
    *_cases("sigmoid", lambda t, a: a.sigmoid(), low=-4.0, high=4.0),
    OpCase("relu", lambda t, a, s: (a * s).relu(), ((3, 4), Const(_signs)), low=0.5, high=2.0),
    *_cases("relu", lambda t, a: t.relu(a), low=0.2, high=2.0),
    *_cases("logit", lambda t, a: a.logit(), low=0.1, high=0.9),
    *_cases("logit_eps", lambda t, a: t.logit(a, eps=0.2), low=0.0, high=1.0),
    *_cases("erf", lambda t, a: a.erf(), low=-3.0, high=3.0),
    *_cases("erfc", lambda t, a: t.erfc(a), low=-3.0, high=3.0),
    *_cases("erfinv", lambda t, a: a.erfinv(), low=-0.95, high=0.95),
    # clamping (random inputs land on a bound with probability 0)
    *_cases("clamp", lambda t, a: a.clamp(-0.55, 0.95)),
    *_cases("clamp_min", lambda t, a: t.clamp(a, min=-0.55)),
    *_cases("clamp_max", lambda t, a: t.clip(a, max=0.95)),
    OpCase("clamp_min_fn", lambda t, a: t.clamp_min(a, 0.35), ((3, 4),)),
    OpCase("clamp_max_fn", lambda t, a: a.clamp_max(0.35), ((3, 4),)),
    OpCase("clamp_tensor", lambda t, a, lo, hi: t.clamp(a, lo, hi), ((3, 4), (4,), (3, 1))),
    OpCase("clamp_tensor_min", lambda t, a, lo: a.clamp(min=lo), ((3, 4), (3, 4))),
    OpCase("clamp_tensor_max", lambda t, a, hi: t.clamp(a, max=hi), ((3, 4), ())),
    # a 0-dim tensor that does not require grad next to a number bound acts as a number
    OpCase("clamp_0dim_bound", lambda t, a, hi: t.clamp(a, -0.55, hi), ((3, 4), Const(_0_95))),
    OpCase("clamp_min_fn_tensor", lambda t, a, lo: t.clamp_min(a, lo), ((3, 4), (4,))),
    OpCase("clamp_max_fn_tensor", lambda t, a, hi: a.clamp_max(hi), ((3, 4), (4,))),
    # rounding: zero gradient
    *_cases("floor", lambda t, a: a.floor() * a),
    *_cases("ceil", lambda t, a: t.ceil(a) * a),
    *_cases("trunc", lambda t, a: a.trunc() * a),
    *_cases("round", lambda t, a: t.round(a) * a),
    OpCase("round_decimals", lambda t, a: a.round(decimals=1) + a, ((3, 4),)),
    *_cases("frac", lambda t, a: a.frac()),
    OpCase(
        "nan_to_num",
        lambda t, a, s: t.nan_to_num((a * s).log(), nan=0.5),
        ((3, 4), Const(_signs)),
        low=0.5,
        high=2.0,
    ),
    # angles
    *_cases("deg2rad", lambda t, a: t.deg2rad(a) * 30),
    *_cases("rad2deg", lambda t, a: a.rad2deg()),
    # binary
    OpCase("xlogy", lambda t, a, b: t.xlogy(a, b), ((3, 4), (3, 4)), low=0.5, high=2.0),
    OpCase("xlogy_bcast", lambda t, a, b: a.xlogy(b), ((2, 3), (3,)), low=0.5, high=2.0),
    OpCase("xlogy_number_other", lambda t, a: t.xlogy(a, 2.5), ((3, 4),)),
    OpCase("xlogy_number_self", lambda t, b: t.xlogy(2.5, b), ((3, 4),), low=0.5, high=2.0),
    OpCase("lerp", lambda t, a, b: t.lerp(a, b, 0.3), ((3, 4), (3, 4))),
    OpCase("lerp_far", lambda t, a, b: a.lerp(b, 0.8), ((3, 4), (4,))),
    OpCase("lerp_tensor", lambda t, a, b, w: t.lerp(a, b, w), ((3, 4), (4,), (3, 1))),
    OpCase("lerp_tensor_0dim", lambda t, a, b, w: a.lerp(b, w), ((), (2, 3), ())),
]

__all__ = ["CASES", "np"]
