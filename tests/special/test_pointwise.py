"""torch's pointwise math functions that came with ``hookgrad.special`` (``fmod``,
``logaddexp``, ``hypot``, ``copysign``, ``nextafter``, ``ldexp``, ``frexp``, ``heaviside``,
``gcd``/``lcm``, the shifts, ``float_power``, ``positive``, the comparisons' other names)
and the in-place variants of the pointwise functions, against torch: values and dtypes,
the nodes in-place variants record and the gradients through them, version counters, and
torch's errors.

Gradients and second derivatives of the table's entries are checked by the op table
(``tests/ops/cases/arithmetic.py``, ``unary.py``) and the node tests.
"""

from __future__ import annotations

import math

import pytest

import hookgrad
from tests.oracle import outcome
from tests.special.helpers import same

NAN, INF = math.nan, math.inf


# ---------------------------------------------------------------- values, dtypes, errors


@pytest.mark.parametrize(
    "call",
    [
        # fmod: C's remainder (sign of the dividend), integers kept, zero divisors refused
        lambda t: t.fmod(t.tensor([-7.5, 7.5, 3.0, -0.0]), t.tensor([2.0, -2.0, INF, 1.0])),
        lambda t: t.fmod(t.tensor([-7, 7, 5]), 3),
        lambda t: t.fmod(t.tensor([7]), t.tensor([0])),
        lambda t: t.fmod(2, t.tensor([1.0])),
        # NaN-ignoring maximum and minimum; refused for complex
        lambda t: t.fmax(t.tensor([1.0, NAN, NAN, -0.0]), t.tensor([NAN, 2.0, NAN, 0.0])),
        lambda t: t.fmin(t.tensor([1, 5]), t.tensor([3, 2])),
        lambda t: t.fmax(t.tensor([1j]), t.tensor([1j])),
        # logaddexp: the same infinity, -inf, complex, integers refused
        lambda t: t.logaddexp(t.tensor([INF, -INF, -INF, 1.0]), t.tensor([INF, -INF, 0.0, NAN])),
        lambda t: t.logaddexp2(t.tensor([INF, 3.0]), t.tensor([INF, 3.0])),
        lambda t: t.logaddexp(t.tensor([1 + 1j]), t.tensor([0.5 - 2j])),
        lambda t: t.logaddexp(t.tensor([1]), t.tensor([2])),
        lambda t: t.logaddexp(t.tensor([1.0]), 2.0),
        # hypot, nextafter: floating only
        lambda t: t.hypot(t.tensor([3.0, INF, NAN]), t.tensor([4.0, NAN, INF])),
        lambda t: t.hypot(t.tensor([3]), t.tensor([4])),
        lambda t: t.nextafter(t.tensor([1.0, 0.0, 1.0]), t.tensor([2.0, -1.0, 1.0])),
        lambda t: t.nextafter(t.tensor([1.0], dtype=t.float64), t.tensor([0.0])),
        # copysign: integers and bools in the default float dtype
        lambda t: t.copysign(t.tensor([1, -2]), t.tensor([-0.0, 3.0])),
        lambda t: t.copysign(t.tensor([True, False]), -1),
        lambda t: t.copysign(2, t.tensor([1.0])),
        # ldexp: an integer exponent in the base's float dtype
        lambda t: t.ldexp(t.tensor([1.0], dtype=t.float64), t.tensor([200])),
        lambda t: t.ldexp(t.tensor([1.0]), t.tensor([200.0], dtype=t.float64)),
        lambda t: t.ldexp(t.tensor([3]), t.tensor([2])),
        lambda t: t.ldexp(t.tensor([1.5], dtype=t.float16), t.tensor([3])),
        # frexp
        lambda t: t.frexp(t.tensor([8.0, -0.75, 0.0, INF, NAN, 1e-40])),
        lambda t: t.frexp(t.tensor([3.0], dtype=t.float64)),
        lambda t: t.frexp(t.tensor([3])),
        # heaviside
        lambda t: t.heaviside(t.tensor([-1.5, 0.0, 2.0]), t.tensor([0.5])),
        lambda t: t.heaviside(t.tensor([-1, 0, 2]), t.tensor([7, 8, 9])),
        lambda t: t.heaviside(t.tensor([1.0]), t.tensor([1.0], dtype=t.float64)),
        lambda t: t.heaviside(t.tensor([1.0]), 0.5),
        # gcd, lcm: integers only
        lambda t: t.gcd(t.tensor([12, -18, 0, 0, 7]), t.tensor([8, 12, 5, 0, -14])),
        lambda t: t.lcm(t.tensor([4, -6, 0], dtype=t.int16), t.tensor([6, 4, 3], dtype=t.int16)),
        lambda t: t.gcd(t.tensor([1.0]), t.tensor([1.0])),
        # shifts: amounts out of range give 0 (left) or the sign (right)
        lambda t: t.bitwise_left_shift(t.tensor([1, 3, -1, 5, 5]), t.tensor([2, 63, 1, 64, -1])),
        lambda t: t.bitwise_right_shift(t.tensor([-8, 8, -8, 8]), t.tensor([1, 70, 70, -2])),
        lambda t: t.bitwise_left_shift(t.tensor([200], dtype=t.uint8), 1),
        lambda t: t.tensor([9, -9], dtype=t.int8) >> 2,
        lambda t: 2 << t.tensor([1, 3]),
        lambda t: 64 >> t.tensor([1, 3]),
        lambda t: t.bitwise_left_shift(t.tensor([1.0]), 1),
        # float_power: float64 (complex128) whatever the operands
        lambda t: t.float_power(t.tensor([2, -3]), 2),
        lambda t: t.float_power(2, t.tensor([0.5, -1.0])),
        lambda t: str(t.float_power(t.tensor([1j]), t.tensor([2.0])).dtype),
        lambda t: t.float_power([1.0], 2),
        # the comparisons' other names
        lambda t: t.greater(t.tensor([1, 2]), 1.5),
        lambda t: t.less_equal(t.tensor([1.0, 2.0]), t.tensor([2.0, 2.0])),
        lambda t: t.tensor([1, 2]).not_equal(t.tensor([1, 3])),
        lambda t: t.greater_equal(1, t.tensor([1])),
        # positive
        lambda t: t.positive(t.tensor([True])),
        lambda t: t.deg2rad(t.tensor([1j])),
    ],
)
def test_values_dtypes_and_errors_as_torch(call, torch):
    same(call, torch)


def test_positive_is_its_input():
    x = hookgrad.tensor([1.0, -2.0], requires_grad=True)
    assert hookgrad.positive(x) is x and x.positive() is x


def test_frexp_and_heaviside_nodes(torch):
    """``frexp``'s node saves the exponent; ``heaviside``'s is torch's ``NotImplemented``,
    whose backward raises torch's error."""

    def run(t):
        x = t.tensor([3.0, -0.75], requires_grad=True)
        mantissa, exponent = t.frexp(x)
        (grad,) = t.autograd.grad(mantissa.sum(), x)
        node = mantissa.grad_fn
        return node.name(), node._saved_exponent, exponent.requires_grad, grad

    same(run, torch)

    def backward(t):
        x = t.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        y = t.heaviside(x, t.tensor([0.5]))
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        return t.autograd.grad(y.sum(), x)

    assert outcome(backward, hookgrad) == outcome(backward, torch)


# ---------------------------------------------------------------- in-place variants

INPLACE = [
    ("floor_", lambda x: x.floor_()),
    ("ceil_", lambda x: x.ceil_()),
    ("trunc_", lambda x: x.trunc_()),
    ("fix_", lambda x: x.fix_()),
    ("frac_", lambda x: x.frac_()),
    ("round_", lambda x: x.round_()),
    ("round_decimals", lambda x: x.round_(decimals=1)),
    ("sign_", lambda x: x.sign_()),
    ("sgn_", lambda x: x.sgn_()),
    ("nan_to_num_", lambda x: x.nan_to_num_(posinf=2.0)),
    ("square_", lambda x: x.square_()),
    ("erf_", lambda x: x.erf_()),
    ("lgamma_", lambda x: x.lgamma_()),
    ("digamma_", lambda x: x.digamma_()),
    ("polygamma_", lambda x: x.polygamma_(2)),
    ("mvlgamma_", lambda x: (x + 3).mvlgamma_(2)),
    ("i0_", lambda x: x.i0_()),
    ("sinc_", lambda x: x.sinc_()),
    ("deg2rad_", lambda x: x.deg2rad_()),
    ("rad2deg_", lambda x: x.rad2deg_()),
    ("fmod_", lambda x: x.fmod_(0.75)),
    ("fmod_tensor", lambda x: x.fmod_(x.detach() * 0.3 + 2)),
    ("hypot_", lambda x: x.hypot_(x.detach() + 1)),
    ("copysign_", lambda x: x.copysign_(-1.0)),
    ("copysign_tensor", lambda x: x.copysign_(x.detach() - 1)),
    ("nextafter_", lambda x: x.nextafter_(x.detach() * 2)),
    ("ldexp_", lambda x: x.ldexp_(x.detach().round())),
    ("xlogy_", lambda x: x.xlogy_(x.detach().abs() + 1)),
    ("igamma_", lambda x: x.abs().igamma_(x.detach().abs() + 0.5)),
    ("igammac_", lambda x: x.abs().igammac_(x.detach().abs() + 0.5)),
    ("atan2_", lambda x: x.atan2_(x.detach() + 1)),
    ("arctan2_", lambda x: x.arctan2_(x.detach() + 1)),
    ("lerp_", lambda x: x.lerp_(x.detach() + 1, 0.25)),
    ("float_power_", lambda x: x.double().float_power_(2)),
    ("heaviside_", lambda x: x.heaviside_(x.detach())),
]


@pytest.mark.parametrize("name, call", INPLACE, ids=[row[0] for row in INPLACE])
def test_inplace_variants_as_torch(name, call, torch):
    """The value, the version bump, the node recorded and the gradient through it."""

    def run(t):
        leaf = t.tensor([1.25, -2.5, 3.75, 0.5], dtype=t.float64, requires_grad=True)
        x = leaf * 1
        version = x._version
        result = call(x)
        assert result is x or name in (
            "float_power_",
            "mvlgamma_",
            "igamma_",
            "igammac_",
            "erfinv_",
        )
        node = result.grad_fn.name()
        (grad,) = t.autograd.grad(result.sum(), leaf, allow_unused=True)
        return result.detach(), result._version > version, node, grad

    same(run, torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.tensor([1, 2]).lgamma_(),
        lambda t: t.tensor([1, 2]).hypot_(t.tensor([1, 2])),
        lambda t: t.tensor([1.5]).float_power_(2),
        lambda t: t.tensor([1, 2]).sqrt_(),
        lambda t: t.tensor([True]).floor_(),
        lambda t: t.tensor([1, 5]).gcd_(t.tensor([3, 10])),
        lambda t: t.tensor([1, 5]).lcm_(t.tensor([3, 10])),
        lambda t: t.tensor([1, 5]).bitwise_left_shift_(2),
        lambda t: t.tensor([16, 5]).bitwise_right_shift_(t.tensor([2, 1])),
        lambda t: t.tensor([1, 5]).__ilshift__(1),
        lambda t: t.tensor([1.5, 2.5]).fmod_(t.tensor([1, 2])),
        lambda t: t.tensor([2.0], requires_grad=True).ceil_(),
        lambda t: t.floor_(t.tensor([1.5, -1.5])),
        lambda t: t.round_(t.tensor([1.25]), decimals=1),
        lambda t: t.square_(t.tensor([3])),
        lambda t: t.ldexp_(t.tensor([1.5]), t.tensor([2])),
        lambda t: t.xlogy_(t.tensor([2.0]), t.tensor([3.0])),
        lambda t: t.gcd_(t.tensor([12]), t.tensor([8])),
        lambda t: t.nan_to_num_(t.tensor([NAN, INF])),
        lambda t: t.frac_(t.tensor([-1.25])),
        lambda t: t.fix_(t.tensor([-1.75])),
        lambda t: t.erf_(t.tensor([0.5])),
        lambda t: t.i0_(t.tensor([0.5])),
        lambda t: t.sinc_(t.tensor([0.5])),
        lambda t: t.deg2rad_(t.tensor([90.0])),
    ],
)
def test_inplace_dtypes_errors_and_functions_as_torch(call, torch):
    same(call, torch)


def test_inplace_saved_result_is_the_tensor(torch):
    """``hypot_``'s node saves its result: changing the tensor again makes the backward
    fail, as in torch."""

    def run(t):
        x = t.tensor([3.0, 4.0], requires_grad=True) * 1
        x.hypot_(t.tensor([4.0, 3.0]))
        x.add_(1)
        return t.autograd.grad(x.sum(), x.grad_fn.next_functions[0][0].variable)

    assert outcome(run, hookgrad, first_line=True)[:2] == outcome(run, torch, first_line=True)[:2]
