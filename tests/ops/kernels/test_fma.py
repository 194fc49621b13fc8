"""``a * b + c`` rounded once (``hookgrad.ops.kernels.fma``), checked against exact rational
arithmetic, at the rounding midpoints where a naive emulation fails too."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from hookgrad.ops.kernels.fma import fma32, fma64


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
    assert fma64(a, b, c).tolist() == exact
    assert (a * b + c).tolist() != exact  # two roundings differ (after cancellation)


def test_fma64_keeps_the_bits_a_rounded_product_loses():
    # (1 + 2**-30)**2 * 2**-53 needs 61 bits: added to 1, its low bits break the tie
    a = np.array([1 + 2.0**-30, -(1 + 2.0**-30)])
    b = np.array([(1 + 2.0**-30) * 2.0**-53, (1 + 2.0**-30) * 2.0**-53])
    c = np.array([-(2.0**-53) * (1 + 2.0**-29), 2.0**-53 * (1 + 2.0**-29)])
    assert fma64(a, b, c).tolist() == [2.0**-113, -(2.0**-113)]
    assert (a * b + c).tolist() == [0.0, 0.0]


def test_fma32_rounds_once():
    a, b, c = _operands(np.random.default_rng(1), 4000, np.float32)
    exact = [
        _round_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
        for x, y, z in zip(a, b, c)
    ]
    assert fma32(a, b, c).tolist() == np.array(exact, np.float32).tolist()


def test_fma32_is_right_on_float32_midpoints():
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 is halfway between two floats; a tiny addend
    # decides, and float64 alone loses it
    x = np.float32([1 + 2.0**-12, 1 + 2.0**-12])
    tiny = np.array([2.0**-60, -(2.0**-60)])
    fused = fma32(x, x, tiny)
    assert fused.tolist() == [1 + 2.0**-11 + 2.0**-23, 1 + 2.0**-11]
    naive = (x.astype(np.float64) * x + tiny).astype(np.float32)
    assert naive.tolist() != fused.tolist()
