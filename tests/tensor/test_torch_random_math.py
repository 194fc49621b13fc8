"""The arithmetic under torch's random transforms (``hookgrad.tensor.cpu_math``): the AVX
polynomials, and the C-library path taken when NumPy's own double-precision functions
differ from libm."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hookgrad
from hookgrad.tensor import cpu_math


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
