"""Random creation functions: reproducible seeds, distributions, dtypes, shapes, errors.

The values are compared with torch's bit for bit in ``test_torch_random*.py``; here the
distributions are also checked statistically, and torch is the oracle for dtypes, shapes
and errors.
"""

import warnings

import numpy as np
import pytest

import hookgrad

DRAWS = [
    "m.rand(2, 3)",
    "m.rand((4,), dtype=m.float64)",
    "m.randn(3, 2)",
    "m.randn(5, dtype=m.complex64)",
    "m.randint(0, 10, (2, 3))",
    "m.randint(5, (4,))",
    "m.randperm(7)",
]


@pytest.fixture(autouse=True)
def _fresh_default_generator():
    state = hookgrad.get_rng_state()
    yield
    hookgrad.set_rng_state(state)


def _run(lib, expr):
    """``repr`` of ``expr`` (with ``m`` = ``lib``) or the error it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return repr(eval(expr, {"m": lib, "np": np}))
        except Exception as error:  # noqa: BLE001 (the error is the result)
            return f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("expr", DRAWS)
def test_manual_seed_reproduces(expr):
    hookgrad.manual_seed(123)
    first = eval(expr, {"m": hookgrad})
    second = eval(expr, {"m": hookgrad})
    hookgrad.manual_seed(123)
    again = eval(expr, {"m": hookgrad})
    assert again.tolist() == first.tolist()
    assert second.tolist() != first.tolist()


def test_generators_are_independent():
    g = hookgrad.Generator().manual_seed(5)
    a = hookgrad.randn(4, generator=g)
    hookgrad.manual_seed(0)
    hookgrad.randn(10)  # the default generator does not affect g
    g.manual_seed(5)
    assert hookgrad.randn(4, generator=g).tolist() == a.tolist()
    assert g.initial_seed() == 5
    other = hookgrad.Generator().manual_seed(6)
    assert hookgrad.rand(4, generator=other).tolist() != hookgrad.rand(4, generator=g).tolist()


def test_generator_state_round_trip():
    g = hookgrad.Generator().manual_seed(1)
    hookgrad.rand(3, generator=g)
    state = g.get_state()
    assert isinstance(state, hookgrad.Tensor) and state.dtype is hookgrad.uint8
    a = hookgrad.randn(5, generator=g)
    g.set_state(state)
    assert hookgrad.randn(5, generator=g).tolist() == a.tolist()
    hookgrad.manual_seed(3)
    saved = hookgrad.get_rng_state()
    b = hookgrad.randint(0, 100, (5,))
    hookgrad.set_rng_state(saved)
    assert hookgrad.randint(0, 100, (5,)).tolist() == b.tolist()
    assert hookgrad.initial_seed() == 3


def test_seeds_follow_torch(torch):
    assert hookgrad.manual_seed(-1).initial_seed() == torch.manual_seed(-1).initial_seed()
    assert hookgrad.Generator().initial_seed() == torch.Generator().initial_seed()
    with pytest.raises(ValueError, match="Overflow"):
        hookgrad.manual_seed(2**64 + 5)
    assert hookgrad.seed() == hookgrad.initial_seed()


SAMPLES = 200_000


def test_rand_is_uniform_in_unit_interval():
    hookgrad.manual_seed(0)
    for dtype in (hookgrad.float16, hookgrad.float32, hookgrad.float64):
        x = hookgrad.rand(SAMPLES, dtype=dtype).numpy().astype(np.float64)
        assert x.min() >= 0.0 and x.max() < 1.0
        assert abs(x.mean() - 0.5) < 0.01
        assert abs(x.var() - 1 / 12) < 0.005
        counts = np.histogram(x, bins=10, range=(0, 1))[0]
        assert counts.min() > 0.9 * SAMPLES / 10


def test_randn_is_standard_normal():
    hookgrad.manual_seed(0)
    for dtype in (hookgrad.float16, hookgrad.float32, hookgrad.float64):
        x = hookgrad.randn(SAMPLES, dtype=dtype).numpy().astype(np.float64)
        assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01
        assert abs(np.mean(np.abs(x) < 1) - 0.6827) < 0.01


def test_complex_samples_match_torch_convention():
    hookgrad.manual_seed(0)
    z = hookgrad.randn(SAMPLES, dtype=hookgrad.complex128).numpy()
    assert abs(z.real.var() - 0.5) < 0.01 and abs(z.imag.var() - 0.5) < 0.01
    assert abs(np.mean(np.abs(z) ** 2) - 1) < 0.02
    u = hookgrad.rand(SAMPLES, dtype=hookgrad.complex64).numpy()
    for part in (u.real, u.imag):
        assert part.min() >= 0 and part.max() < 1 and abs(part.mean() - 0.5) < 0.01


def test_randint_covers_its_range():
    hookgrad.manual_seed(0)
    x = hookgrad.randint(-5, 5, (SAMPLES,)).numpy()
    assert set(np.unique(x)) == set(range(-5, 5))
    counts = np.bincount(x + 5)
    assert counts.min() > 0.9 * SAMPLES / 10


def test_randperm_is_a_permutation():
    hookgrad.manual_seed(0)
    for n in (0, 1, 10, 1000):
        assert sorted(hookgrad.randperm(n).tolist()) == list(range(n))
    firsts = [hookgrad.randperm(4).tolist()[0] for _ in range(400)]
    assert set(firsts) == {0, 1, 2, 3}


METADATA_CASES = [
    "m.rand(2, 3).shape",
    "m.rand((2, 3)).dtype",
    "m.rand(size=(2, 3)).shape",
    "m.rand(()).shape",
    "m.randn([]).shape",
    "m.rand(0, 3).shape",
    "m.rand(2, dtype=m.float64).dtype",
    "m.rand(2, dtype=m.float16).dtype",
    "m.rand(2, dtype=m.complex64).dtype",
    "m.randn(2, dtype=m.complex128).dtype",
    "m.rand(2, requires_grad=True).requires_grad",
    "m.randn(2, requires_grad=True).is_leaf",
    "m.rand(2, 3, generator=m.Generator().manual_seed(1)).shape",
    "m.randint(3, (2,)).dtype",
    "m.randint(0, 3, (2, 2)).shape",
    "m.randint(0, 3, size=(2,)).shape",
    "m.randint(3, size=(2,)).shape",
    "m.randint(low=0, high=3, size=(2,)).shape",
    "m.randint(3, (2,), dtype=m.float32).dtype",
    "m.randint(3, (2,), dtype=m.int32).dtype",
    "m.randint(0, 2, (5,), dtype=m.bool).dtype",
    "m.randint(2**40, (3,)).dtype",
    "m.randint(0, 1, (3,))",
    "m.randperm(5).dtype",
    "m.randperm(5, dtype=m.float32).dtype",
    "m.randperm(0)",
    "m.randperm(1)",
    "m.rand_like(m.ones(2, 3, dtype=m.float64)).dtype",
    "m.rand_like(m.ones(2, 3)).shape",
    "m.randn_like(m.ones(2), dtype=m.float64).dtype",
    "m.rand_like(m.ones(2, requires_grad=True)).requires_grad",
    "m.randn_like(m.ones(2), requires_grad=True).requires_grad",
    "m.randint_like(m.ones(2), 10).dtype",
    "m.randint_like(m.ones(2, dtype=m.int32), 3, 10).dtype",
    "m.randint_like(m.ones(2, 3), 3, 10).shape",
    "m.Generator().device",
    "type(m.manual_seed(3)).__name__",
    # errors
    "m.rand(2, dtype=m.int64)",
    "m.rand(2, dtype=m.bool)",
    "m.randn(2, dtype=m.int64)",
    "m.randn(2, dtype=m.bool)",
    "m.rand(-1)",
    "m.randn(2, -1)",
    "m.rand(2.5)",
    "m.randint(3, 3, (2,))",
    "m.randint(3, 2)",
    "m.randint(3.5, (2,))",
    "m.randint(3, (2,), requires_grad=True)",
    "m.randint(0, 3, (2,), dtype=m.bool)",
    "m.randperm(-1)",
    "m.randperm(3.0)",
    "m.randperm(3, dtype=m.bool)",
    "m.rand_like(m.ones(2, dtype=m.int64))",
    "m.randn_like(m.ones(2, dtype=m.int64))",
]


@pytest.mark.parametrize("expr", METADATA_CASES)
def test_metadata_and_errors_match_torch(torch, expr):
    assert _run(hookgrad, expr) == _run(torch, expr)


def test_float16_rand_never_rounds_to_one():
    hookgrad.manual_seed(0)
    assert hookgrad.rand(SAMPLES, dtype=hookgrad.float16).numpy().max() < 1.0
