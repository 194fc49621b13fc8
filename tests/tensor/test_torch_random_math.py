"""The arithmetic under torch's random transforms (``hookgrad.tensor.cpu_math``): fused
multiply-adds rounded once (checked against exact rational arithmetic, at the rounding
midpoints where a naive emulation fails), the AVX polynomials, and the C-library path
taken when NumPy's own double-precision functions differ from libm."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import hookgrad
from hookgrad.tensor import cpu_math


def _round_float32(value: Fraction) -> np.float32:
    """``value`` rounded to the nearest float32 (ties to even), exactly."""
    guess = np.float32(float(value))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess]
    candidates.append(np.nextafter(guess, np.float32(np.inf)))
    return min(
        candidates,
        key=lambda c: (abs(Fraction(float(c)) - value), int(np.array(c).view(np.int32)) & 1),
    )


def _operands(rng, count, dtype):
    a = (rng.standard_normal(count) * 10.0 ** rng.integers(-4, 4, count)).astype(dtype)
    b = (rng.standard_normal(count) * 10.0 ** rng.integers(-4, 4, count)).astype(dtype)
    c = (rng.standard_normal(count) * 10.0 ** rng.integers(-6, 6, count)).astype(dtype)
    cancelling = -(a.astype(np.float64) * b).astype(dtype)  # a * b + c close to zero
    return a, b, np.where(rng.random(count) < 0.3, cancelling, c)


def test_fma64_rounds_once():
    a, b, c = _operands(np.random.default_rng(0), 4000, np.float64)
    exact = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    assert cpu_math.fma64(a, b, c).tolist() == exact
    assert (a * b + c).tolist() != exact  # two roundings differ (after cancellation)


def test_fma64_keeps_the_bits_a_rounded_product_loses():
    # (1 + 2**-30)**2 * 2**-53 needs 61 bits: added to 1, its low bits break the tie
    a = np.array([1 + 2.0**-30, -(1 + 2.0**-30)])
    b = np.array([(1 + 2.0**-30) * 2.0**-53, (1 + 2.0**-30) * 2.0**-53])
    c = np.array([-(2.0**-53) * (1 + 2.0**-29), 2.0**-53 * (1 + 2.0**-29)])
    assert cpu_math.fma64(a, b, c).tolist() == [2.0**-113, -(2.0**-113)]
    assert (a * b + c).tolist() == [0.0, 0.0]


def test_fma32_rounds_once():
    a, b, c = _operands(np.random.default_rng(1), 4000, np.float32)
    exact = [
        _round_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
        for x, y, z in zip(a, b, c)
    ]
    assert cpu_math.fma32(a, b, c).tolist() == np.array(exact, np.float32).tolist()


def test_fma32_is_right_on_float32_midpoints():
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 is halfway between two floats; a tiny addend
    # decides, and float64 alone loses it
    x = np.float32([1 + 2.0**-12, 1 + 2.0**-12])
    tiny = np.array([2.0**-60, -(2.0**-60)])
    fused = cpu_math.fma32(x, x, tiny)
    assert fused.tolist() == [1 + 2.0**-11 + 2.0**-23, 1 + 2.0**-11]
    naive = (x.astype(np.float64) * x + tiny).astype(np.float32)
    assert naive.tolist() != fused.tolist()


def test_avx_polynomials_are_accurate_float32_functions():
    x = np.random.default_rng(2).random(10000).astype(np.float32)
    positive = np.float32(1) - x
    log = cpu_math.avx_log(positive).astype(np.float64)
    np.testing.assert_allclose(log, np.log(positive.astype(np.float64)), rtol=2e-7, atol=2e-7)
    angles = np.float32(2 * math.pi) * x
    sine, cosine = cpu_math.avx_sincos(angles)
    np.testing.assert_allclose(sine, np.sin(angles.astype(np.float64)), atol=3e-7)
    np.testing.assert_allclose(cosine, np.cos(angles.astype(np.float64)), atol=3e-7)


@pytest.mark.parametrize("function", [math.log, math.log1p, math.sin, math.cos, math.tan])
def test_libm_gives_the_c_library_bits(function):
    x = np.random.default_rng(3).random(2000) + 0.01
    expected = [function(v) for v in x.tolist()]
    assert cpu_math.libm(function, x).tolist() == expected


def test_draws_match_torch_when_numpy_functions_are_not_trusted(torch, monkeypatch):
    monkeypatch.setattr(cpu_math, "_numpy_matches", lambda function: False)
    draws = (
        "(m.randn(1000, dtype=m.float64), m.randn(7, dtype=m.float64), "
        "m.empty(50).exponential_(), m.empty(50, dtype=m.float64).cauchy_(), "
        "m.empty(50).log_normal_(), m.empty(50).geometric_(0.2))"
    )
    results = []
    for lib in (hookgrad, torch):
        lib.manual_seed(12)
        results.append([t.numpy().tobytes() for t in eval(draws, {"m": lib})])
    assert results[0] == results[1]
