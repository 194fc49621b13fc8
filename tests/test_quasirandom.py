"""``SobolEngine`` draws torch's numbers: plain and scrambled, in every dtype, through
``draw``, ``draw_base2``, ``fast_forward`` and ``reset``."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad.quasirandom import SobolEngine
from tests.oracle import outcome


def test_direction_numbers_are_torchs_for_every_dimension(torch):
    theirs = torch.zeros(SobolEngine.MAXDIM, SobolEngine.MAXBIT, dtype=torch.long)
    torch._sobol_engine_initialize_state_(theirs, SobolEngine.MAXDIM)
    ours = SobolEngine._initial_state(SobolEngine.MAXDIM)
    np.testing.assert_array_equal(ours, theirs.numpy())


def _session(lib, dimension, scramble, seed):
    """A sequence of calls on one engine; every result as an array."""
    engine = lib.quasirandom.SobolEngine(dimension, scramble=scramble, seed=seed)
    results = [engine.draw(), engine.draw(4), engine.draw(3, dtype=lib.float64)]
    engine.fast_forward(5)
    results.append(engine.draw(2))
    engine.reset()
    results.append(engine.draw_base2(3))
    engine.reset().fast_forward(3)
    results.append(engine.draw(2, dtype=lib.float64))
    out = lib.empty(0)
    engine.draw(3, out=out)
    results.append(out)
    return [r.numpy() for r in results], repr(engine), engine.num_generated


@pytest.mark.parametrize(
    "dimension, scramble, seed", [(1, False, None), (5, False, None), (3, True, 7), (40, True, 123)]
)
def test_draws_match_torch(dimension, scramble, seed, torch):
    ours, ours_repr, ours_count = _session(hookgrad, dimension, scramble, seed)
    theirs, theirs_repr, theirs_count = _session(torch, dimension, scramble, seed)
    assert (ours_repr, ours_count) == (theirs_repr, theirs_count)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_unseeded_scrambling_draws_from_the_default_generator(torch):
    hookgrad.manual_seed(3)
    torch.manual_seed(3)
    ours = hookgrad.quasirandom.SobolEngine(4, scramble=True).draw(4, dtype=hookgrad.float64)
    theirs = torch.quasirandom.SobolEngine(4, scramble=True).draw(4, dtype=torch.float64)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    np.testing.assert_array_equal(hookgrad.rand(3).numpy(), torch.rand(3).numpy())


def test_first_point_is_rounded_in_the_default_dtype(torch):
    # The first point is divided in float32 when the engine is made, then cast.
    for lib in (hookgrad, torch):
        lib.set_default_dtype(lib.float64)
    try:
        ours = hookgrad.quasirandom.SobolEngine(3, True, 5).draw(2, dtype=hookgrad.float32)
        theirs = torch.quasirandom.SobolEngine(3, True, 5).draw(2, dtype=torch.float32)
    finally:
        for lib in (hookgrad, torch):
            lib.set_default_dtype(lib.float32)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


ERRORS = {
    "dimension_zero": lambda t: t.quasirandom.SobolEngine(0),
    "dimension_too_large": lambda t: t.quasirandom.SobolEngine(21202),
    "unbalanced": lambda t: t.quasirandom.SobolEngine(2).fast_forward(1).draw_base2(2),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name, torch):
    expected = outcome(ERRORS[name], torch)
    assert expected[0] == "error"
    assert outcome(ERRORS[name], hookgrad) == expected
