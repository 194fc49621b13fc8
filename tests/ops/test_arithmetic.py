"""Arithmetic ops beyond the op table: node names, conventions at ties, errors, dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close

NAMED = [
    ("add", lambda t, a, b: a + b),
    ("add_scalar", lambda t, a, b: 2 + a),
    ("sub", lambda t, a, b: a - b),
    ("rsub_scalar", lambda t, a, b: 2 - a),
    ("mul", lambda t, a, b: a * b),
    ("div", lambda t, a, b: a / b),
    ("rdiv_scalar", lambda t, a, b: 2 / a),
    ("neg", lambda t, a, b: -a),
    ("pow_scalar", lambda t, a, b: a**2),
    ("pow_tensor", lambda t, a, b: a**b),
    ("rpow_scalar", lambda t, a, b: 2**a),
    ("div_floor", lambda t, a, b: t.div(a, b, rounding_mode="floor")),
    ("remainder", lambda t, a, b: a % b),
    ("maximum", lambda t, a, b: t.maximum(a, b)),
    ("minimum", lambda t, a, b: t.minimum(a, b)),
    ("where", lambda t, a, b: t.where(a > 0, a, b)),
]


@pytest.mark.parametrize("name,fn", NAMED, ids=[n for n, _ in NAMED])
def test_node_names_match_torch(name, fn, torch):
    def run(lib):
        a = lib.tensor([0.5, 1.5], requires_grad=True)
        b = lib.tensor([2.0, 0.25], requires_grad=True)
        return fn(lib, a, b)

    ours, theirs = run(hookgrad), run(torch)
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_binary_max_min_split_ties_evenly(op, torch):
    def run(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.tensor([1.0, 5.0, 0.0], requires_grad=True)
        getattr(lib, op)(a, b).sum().backward()
        return a.grad, b.grad

    assert_close(run(hookgrad), run(torch))


def test_pow_conventions_at_zero(torch):
    def run(lib):
        x = lib.tensor([0.0, 0.0, 2.0], requires_grad=True)
        e = lib.tensor([0.0, 2.0, 0.0], requires_grad=True)
        (x**e).sum().backward()
        y = lib.tensor([0.0, 1.0], requires_grad=True)
        (y**0).sum().backward()
        z = lib.tensor([0.0, 4.0], requires_grad=True)
        (z**0.5).sum().backward()
        return x.grad, e.grad, y.grad, z.grad

    assert_close(run(hookgrad), run(torch))


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_rounding_division_values_and_zero_gradient(mode, torch):
    def run(lib):
        a = lib.tensor([-3.5, 2.5, 7.0], requires_grad=True)
        b = lib.tensor([2.0, -2.0, 3.0], requires_grad=True)
        q = lib.div(a, b, rounding_mode=mode)
        q.sum().backward()
        ints = lib.div(lib.tensor([-7, 7]), lib.tensor([2, 2]), rounding_mode=mode)
        return q, a.grad, b.grad, ints

    assert_close(run(hookgrad), run(torch))


def test_int_true_division_gives_default_float(torch):
    ours = hookgrad.tensor([1, 2]) / hookgrad.tensor([2, 4])
    theirs = torch.tensor([1, 2]) / torch.tensor([2, 4])
    assert_close(ours, theirs)


def test_division_by_zero_is_silent_like_torch(torch):
    with np.errstate(all="raise"):
        ours = hookgrad.tensor([1.0, -1.0, 0.0]) / 0.0
    assert_close(ours, torch.tensor([1.0, -1.0, 0.0]) / 0.0)


def test_comparisons_return_bool_and_no_grad(torch):
    a = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    for out in (a > 1, a >= 1, a < 2, a <= 2, a == 1, a != 1):
        assert out.dtype is hookgrad.bool
        assert not out.requires_grad
    assert_close(a > 1.5, torch.tensor([1.0, 2.0]) > 1.5)


def _error(lib, fn):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value), str(info.value)


ERRORS = [
    lambda t: t.ones(2, 3) * t.ones(4, 3),
    lambda t: t.ones(2, 3) + t.ones(3, 2),
    lambda t: t.ones(3) - t.ones(2, 2),
    lambda t: t.tensor([True]) - t.tensor([False]),
    lambda t: -t.tensor([True]),
    lambda t: t.ones(2) - True,
    lambda t: t.tensor([True]) - 2,
    lambda t: 2 - t.tensor([True]),
    lambda t: t.ones(2) - t.tensor([True, False]),
    lambda t: t.where(t.tensor([1.0]), t.ones(1), t.zeros(1)),
    lambda t: t.div(t.ones(1), t.ones(1), rounding_mode="round"),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors_match_torch(fn, torch):
    assert _error(hookgrad, fn) == _error(torch, fn)


def test_library_usable_after_an_error():
    with pytest.raises(RuntimeError):
        hookgrad.ones(2, requires_grad=True) * hookgrad.ones(3)
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]
    assert hookgrad.is_grad_enabled()
