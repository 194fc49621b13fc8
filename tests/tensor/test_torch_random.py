"""torch's random numbers, bit for bit: after the same ``manual_seed`` (or the same seed of
an explicit ``Generator``) every random function returns torch's values and leaves the
generator in torch's state.

Each case is a Python expression run on both libraries (``m`` is the library, ``G`` the
generator under test: None for the default one, or a seeded ``Generator``). A case draws
its call twice, then ``rand(3)``, then reads the state bytes, so that the words consumed
and the cached normal sample are checked as well as the values.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import hookgrad

SIZES = [1, 15, 16, 17, 100, 1000, 100000]


@pytest.fixture(autouse=True)
def _keep_default_generators(torch):
    ours, theirs = hookgrad.get_rng_state(), torch.get_rng_state()
    yield
    hookgrad.set_rng_state(ours)
    torch.set_rng_state(theirs)


def _arrays(value):
    """A result as a flat list of NumPy arrays and plain values."""
    if isinstance(value, (tuple, list)):
        return [array for item in value for array in _arrays(item)]
    if hasattr(value, "detach"):
        return [np.asarray(value.detach().numpy())]
    return [value]


def _run(lib, expr, seed, explicit):
    """``expr`` evaluated for ``lib`` after seeding the generator under test."""
    lib.manual_seed(seed ^ 1)
    generator = lib.Generator().manual_seed(seed) if explicit else None
    if not explicit:
        lib.manual_seed(seed)

    def state():
        return generator.get_state() if explicit else lib.get_rng_state()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(expr, {"m": lib, "G": generator, "S": state, "np": np})


def assert_same_draws(torch, expr, seed=0, explicit=False):
    """hookgrad and torch give the same bits (and dtypes) for ``expr``."""
    ours = _arrays(_run(hookgrad, expr, seed, explicit))
    theirs = _arrays(_run(torch, expr, seed, explicit))
    assert len(ours) == len(theirs)
    for index, (a, b) in enumerate(zip(ours, theirs)):
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, (index, a.dtype, b.dtype)
            assert a.tobytes() == b.tobytes(), (index, expr, np.flatnonzero(a != b)[:10])
        else:
            assert a == b, (index, expr)


def _twice_then_state(call):
    return f"({call}, {call}, m.rand(3, generator=G), S())"


# -- floating draws -------------------------------------------------------------------------
FLOAT_CALLS = [
    "m.rand({n}, dtype=m.{dtype}, generator=G)",
    "m.randn({n}, dtype=m.{dtype}, generator=G)",
    "m.empty({n}, dtype=m.{dtype}).uniform_(-0.37, 2.5, generator=G)",
    "m.empty({n}, dtype=m.{dtype}).normal_(0.3, 1.7, generator=G)",
    "m.empty({n}, dtype=m.{dtype}).exponential_(2.5, generator=G)",
    "m.empty({n}, dtype=m.{dtype}).random_(generator=G)",
    "m.empty({n}, dtype=m.{dtype}).random_(-7, 100, generator=G)",
    "m.empty({n}, dtype=m.{dtype}).bernoulli_(0.3, generator=G)",
    "m.bernoulli(m.rand({n}, dtype=m.{dtype}), generator=G)",
    "m.empty({n}, dtype=m.{dtype}).cauchy_(0.5, 2.0, generator=G)",
    "m.empty({n}, dtype=m.{dtype}).log_normal_(0.5, 0.3, generator=G)",
    "m.empty({n}, dtype=m.{dtype}).geometric_(0.3, generator=G)",
    "m.randn_like(m.empty({n}, dtype=m.{dtype}), generator=G)",
]


@pytest.mark.parametrize("explicit", [False, True], ids=["default", "generator"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("call", FLOAT_CALLS)
def test_floating_draws_match_torch(torch, call, n, dtype, explicit):
    expr = _twice_then_state(call.format(n=n, dtype=dtype))
    assert_same_draws(torch, expr, seed=n, explicit=explicit)


HALF_CALLS = [
    "m.rand({n}, dtype=m.float16, generator=G)",
    "m.randn({n}, dtype=m.float16, generator=G)",
    "m.empty({n}, dtype=m.float16).uniform_(-3, 5, generator=G)",
    "m.empty({n}, dtype=m.float16).normal_(1, 3, generator=G)",
    "m.empty({n}, dtype=m.float16).random_(generator=G)",
    "m.empty({n}, dtype=m.float16).random_(-50, 2000, generator=G)",
    "m.empty({n}, dtype=m.float16).exponential_(generator=G)",
    "m.empty({n}, dtype=m.float16).bernoulli_(0.7, generator=G)",
]


@pytest.mark.parametrize("n", [1, 15, 16, 17, 33, 1000])
@pytest.mark.parametrize("call", HALF_CALLS)
def test_float16_draws_match_torch(torch, call, n):
    assert_same_draws(torch, _twice_then_state(call.format(n=n)), seed=3)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 100, 1000])
@pytest.mark.parametrize(
    "call",
    [
        "m.rand({n}, dtype=m.complex64, generator=G)",
        "m.randn({n}, dtype=m.complex64, generator=G)",
        "m.randn({n}, dtype=m.complex128, generator=G)",
        "m.empty({n}, dtype=m.complex128).uniform_(-1, 2, generator=G)",
    ],
)
def test_complex_draws_match_torch(torch, call, n):
    assert_same_draws(torch, _twice_then_state(call.format(n=n)), seed=5)


# -- integer draws --------------------------------------------------------------------------
INTEGER_CALLS = [
    "m.randint(-5, 1000, ({n},), generator=G)",
    "m.randint(0, 2**28 - 1, ({n},), generator=G)",
    "m.randint(0, 2**28, ({n},), generator=G)",
    "m.randint(-2**62, 2**62, ({n},), generator=G)",
    "m.randint(7, ({n},), dtype=m.int32, generator=G)",
    "m.randint(0, 2, ({n},), dtype=m.bool, generator=G)",
    "m.randint(3, 40, ({n},), dtype=m.float32, generator=G)",
    "m.randint_like(m.empty({n}, dtype=m.int32), 3, 9, generator=G)",
    "m.empty({n}, dtype=m.int64).random_(generator=G)",
    "m.empty({n}, dtype=m.int32).random_(generator=G)",
    "m.empty({n}, dtype=m.bool).random_(generator=G)",
    "m.empty({n}, dtype=m.int64).random_(10, generator=G)",
    "m.empty({n}, dtype=m.int64).random_(5, None, generator=G)",
    "m.empty({n}, dtype=m.int32).random_(-5, None, generator=G)",
    "m.empty({n}, dtype=m.int64).random_(-2**63, None, generator=G)",
    "m.empty({n}, dtype=m.float64).random_(-2**63, None, generator=G)",
    "m.randperm({n}, generator=G)",
    "m.randperm({n}, dtype=m.float32, generator=G)",
]


@pytest.mark.parametrize("explicit", [False, True], ids=["default", "generator"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("call", INTEGER_CALLS)
def test_integer_draws_match_torch(torch, call, n, explicit):
    assert_same_draws(torch, _twice_then_state(call.format(n=n)), seed=n + 11, explicit=explicit)


def test_randperm_of_nothing_and_one_draws_nothing(torch):
    assert_same_draws(torch, "(m.randperm(0), m.randperm(1), m.randperm(2), S())")


def test_dataloader_seed_draw_matches_torch(torch):
    # how torch.utils.data draws a seed from a generator
    expr = "[m.empty((), dtype=m.int64).random_(generator=G).item() for _ in range(5)]"
    for explicit in (False, True):
        assert_same_draws(torch, expr, seed=42, explicit=explicit)


# -- layouts --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        "m.empty(4, 5).t().uniform_(generator=G)",
        "m.empty(4, 5).t().normal_(generator=G)",
        "m.empty(40, 5).t().normal_(generator=G)",
        "m.empty(4, 5, 6).permute(2, 0, 1).random_(0, 9, generator=G)",
        "m.empty(4, 6)[:, ::2].bernoulli_(0.4, generator=G)",
        "m.empty(4, 6)[:, ::2].exponential_(generator=G)",
        "m.empty(10, 8)[:, 1:5].normal_(generator=G)",
        "m.empty(6, 7, dtype=m.float64).t().normal_(2, 3, generator=G)",
        "m.rand_like(m.empty(3, 8).t(), generator=G)",
        "m.randn_like(m.empty(3, 8).t(), generator=G)",
        "m.bernoulli(m.rand(5, 4).t(), generator=G)",
    ],
)
def test_strided_tensors_are_filled_in_memory_order(torch, call):
    assert_same_draws(torch, _twice_then_state(call), explicit=True)


# -- sequences of calls ---------------------------------------------------------------------
SEQUENCES = [
    # the cached normal of the scalar path carries over between calls and dtypes
    "(m.randn(5), m.randn(3, dtype=m.float64), m.randn(1), m.randn(20), m.randn(3), S())",
    "(m.randn(1, dtype=m.float64), S(), m.randn(1, dtype=m.float64), S(), m.rand(1), S())",
    "(m.empty(3).normal_(), m.empty(3).log_normal_(), m.empty(2, 2).t().normal_(), S())",
    # the vectorised path leaves the cache alone
    "(m.randn(3), m.randn(16), m.randn(3), S())",
    # a twist of the Mersenne Twister in the middle of a call
    "(m.rand(620), m.rand(10, dtype=m.float64), m.randn(700), S(), m.randint(0, 9, (999,)))",
    "(m.rand(17), m.randint(0, 5, (4,)), m.randperm(10), m.bernoulli(m.rand(9)), S())",
    "(m.multinomial(m.rand(8), 3), m.randn(2), m.multinomial(m.rand(8), 30, True), S())",
]


@pytest.mark.parametrize("expr", SEQUENCES)
@pytest.mark.parametrize("seed", [0, 1, 2**32 + 7, -1, 2**64 - 1, 67280421310721])
def test_sequences_of_calls_match_torch(torch, expr, seed):
    assert_same_draws(torch, expr, seed=seed)


def test_explicit_generators_leave_the_default_alone(torch):
    expr = "(m.rand(3), m.randn(20, generator=G), m.rand(3), m.randn(5, generator=G), S())"
    assert_same_draws(torch, expr, explicit=True)
    assert_same_draws(torch, "(m.rand(3, generator=G), m.get_rng_state())", explicit=True)


# -- bernoulli, multinomial, normal ---------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        "m.empty(50).bernoulli_(m.rand(50), generator=G)",
        "m.empty(50).bernoulli_(m.rand(50, dtype=m.float64), generator=G)",
        "m.empty(5, 4).bernoulli_(m.rand(4), generator=G)",
        "m.empty(50, dtype=m.int64).bernoulli_(0.5, generator=G)",
        "m.bernoulli(m.rand(50, dtype=m.float64), generator=G)",
        "m.bernoulli(m.rand(50), 0.25, generator=G)",
        "m.rand(50).bernoulli(generator=G)",
    ],
)
def test_bernoulli_matches_torch(torch, call):
    assert_same_draws(torch, _twice_then_state(call), seed=8, explicit=True)


@pytest.mark.parametrize(
    "call",
    [
        "m.multinomial(m.rand(10), 1, generator=G)",
        "m.multinomial(m.rand(10), 5, generator=G)",
        "m.multinomial(m.rand(4, 10), 10, generator=G)",
        "m.multinomial(m.rand(4, 10).t(), 3, generator=G)",
        "m.multinomial(m.rand(4, 10, dtype=m.float64), 7, generator=G)",
        "m.multinomial(m.rand(10), 1, True, generator=G)",
        "m.multinomial(m.rand(4, 10), 20, True, generator=G)",
        "m.multinomial(m.rand(4, 10, dtype=m.float64), 20, True, generator=G)",
        "m.multinomial(m.tensor([0.0, 3.0, 0.0, 1.0]), 50, True, generator=G)",
        "m.multinomial(m.rand(100000), 1000, generator=G)",
        "m.multinomial(m.rand(100000), 1000, True, generator=G)",
        "m.rand(3, 6).multinomial(4, generator=G)",
    ],
)
def test_multinomial_matches_torch(torch, call):
    assert_same_draws(torch, _twice_then_state(call), seed=9, explicit=True)


@pytest.mark.parametrize(
    "call",
    [
        "m.normal(m.arange(20.0), 2.0, generator=G)",
        "m.normal(m.arange(5.0), 2.0, generator=G)",
        "m.normal(1.5, m.rand(20), generator=G)",
        "m.normal(m.zeros(4, 1), m.ones(1, 5), generator=G)",
        "m.normal(m.zeros(20, dtype=m.float64), m.rand(20, dtype=m.float64), generator=G)",
        "m.normal(2.0, 3.0, (20,), generator=G)",
        "m.normal(2.0, 3.0, size=(3,), generator=G)",
    ],
)
def test_normal_function_matches_torch(torch, call):
    assert_same_draws(torch, _twice_then_state(call), seed=10, explicit=True)


# -- seeds and states -----------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 5489, 2**32 - 1, 2**32, 2**63, -1, -(2**63)])
def test_state_bytes_after_seeding_match_torch(torch, seed):
    for explicit in (False, True):
        assert_same_draws(torch, "(S(), m.rand(1), S())", seed=seed, explicit=explicit)
    assert hookgrad.manual_seed(seed).initial_seed() == torch.manual_seed(seed).initial_seed()


def test_a_state_saved_by_torch_restores_in_hookgrad(torch):
    torch.manual_seed(5)
    torch.rand(7)
    torch.randn(3, dtype=torch.float64)  # leaves a cached normal in the state
    state = torch.get_rng_state()
    hookgrad.set_rng_state(state)
    assert hookgrad.initial_seed() == torch.initial_seed()
    for draw in ("randn(3, dtype={}.float64)", "randn(41)", "rand(5)"):
        ours = eval("hookgrad." + draw.format("hookgrad")).numpy()
        assert ours.tobytes() == eval("torch." + draw.format("torch")).numpy().tobytes()
    generator = hookgrad.Generator().set_state(state)
    torch_generator = torch.Generator().set_state(state)
    ours = hookgrad.randn(5, dtype=hookgrad.float64, generator=generator)
    assert ours.tolist() == torch.randn(5, dtype=torch.float64, generator=torch_generator).tolist()


def test_a_state_saved_by_hookgrad_restores_in_torch(torch):
    hookgrad.manual_seed(11)
    hookgrad.randn(3, dtype=hookgrad.float64)
    state = hookgrad.get_rng_state()
    torch.set_rng_state(torch.from_numpy(state.numpy()))
    ours = hookgrad.randn(9, dtype=hookgrad.float64).numpy()
    assert ours.tobytes() == torch.randn(9, dtype=torch.float64).numpy().tobytes()


def test_state_is_a_uint8_tensor_of_torchs_bytes(torch):
    hookgrad.manual_seed(21)
    torch.manual_seed(21)
    hookgrad.randn(3)
    torch.randn(3)
    ours, theirs = hookgrad.get_rng_state(), torch.get_rng_state()
    assert ours.dtype is hookgrad.uint8
    assert repr(ours.dtype) == repr(theirs.dtype)
    assert ours.shape == theirs.shape
    assert ours.numpy().tobytes() == theirs.numpy().tobytes()
    assert hookgrad.Generator().get_state().numpy().dtype == np.uint8


def test_state_round_trip_repeats_the_draws(torch):
    g = hookgrad.Generator().manual_seed(3)
    hookgrad.randn(5, dtype=hookgrad.float64, generator=g)  # caches a normal
    state = g.get_state()
    first = hookgrad.randn(7, dtype=hookgrad.float64, generator=g).tolist()
    g.set_state(state)
    assert hookgrad.randn(7, dtype=hookgrad.float64, generator=g).tolist() == first
    assert g.clone_state().get_state().tolist() == g.get_state().tolist()
    for duplicate in (lambda g: pickle.loads(pickle.dumps(g)), copy.deepcopy):
        copied = duplicate(g)
        assert copied.get_state().tolist() == g.get_state().tolist()
        assert hookgrad.rand(4, generator=copied).tolist() == hookgrad.rand(4, generator=g).tolist()


def test_fresh_seed_gives_torch_numbers_for_that_seed(torch):
    seed = hookgrad.seed()
    assert hookgrad.initial_seed() == seed
    torch.manual_seed(seed)
    assert hookgrad.rand(10).tolist() == torch.rand(10).tolist()
    g = hookgrad.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed()
    seed = g.seed()
    assert g.initial_seed() == seed
    assert (
        hookgrad.rand(5, generator=g).tolist()
        == torch.rand(5, generator=torch.Generator().manual_seed(seed)).tolist()
    )


def test_fork_rng_puts_the_state_back(torch):
    hookgrad.manual_seed(4)
    torch.manual_seed(4)
    with hookgrad.random.fork_rng():
        hookgrad.randn(30)
    with torch.random.fork_rng():
        torch.randn(30)
    assert hookgrad.rand(3).tolist() == torch.rand(3).tolist()


@pytest.mark.parametrize(
    "state",
    [
        lambda lib: lib.zeros(10, dtype=lib.uint8),
        lambda lib: lib.zeros(5056, dtype=lib.uint8),
    ],
)
def test_bad_states_raise_like_torch(torch, state):
    errors = []
    for lib in (hookgrad, torch):
        with pytest.raises(RuntimeError) as error:
            lib.Generator().set_state(state(lib))
        errors.append(str(error.value))
    assert errors[0] == errors[1]
    for wrong_dtype in ("float32", "int64"):
        for lib in (hookgrad, torch):
            with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
                lib.Generator().set_state(lib.zeros(5056, dtype=getattr(lib, wrong_dtype)))
    with pytest.raises(ValueError, match="Overflow"):
        hookgrad.Generator().manual_seed(2**64)


# -- errors and graphs ----------------------------------------------------------------------
ERRORS = [
    "m.empty(3).random_(2**25, 2**26)",
    "m.empty(3, dtype=m.bool).random_(0, 3)",
    "m.empty(3, dtype=m.int32).random_(0, 2**33)",
    "m.empty(3, dtype=m.float16).random_(0, 70000)",
    "m.empty(3).random_(3, 3)",
    "m.empty(3, dtype=m.complex64).random_()",
    "m.randperm(2**25, dtype=m.float16)",
    "m.empty(3).exponential_(0)",
    "m.empty(3, dtype=m.int64).exponential_()",
    "m.empty(3, dtype=m.int64).cauchy_()",
    "m.empty(3, dtype=m.int64).log_normal_()",
    "m.empty(3).log_normal_(0, 0)",
    "m.empty(3).geometric_(1.5)",
    "m.empty(3).bernoulli_(1.5)",
    "m.empty(3).bernoulli_(m.tensor([0.5, 2.0, 0.1]))",
    "m.bernoulli(m.tensor([0.5, 2.0, 0.1]))",
    "m.empty(3).normal_(0, -1)",
    "m.empty(3, dtype=m.int64).normal_()",
    "m.empty(3, dtype=m.int64).uniform_()",
    "m.empty(3).uniform_(2, 1)",
    "m.multinomial(m.tensor([0.5, 0.0, 0.5]), 4)",
    "m.multinomial(m.tensor([[0.5, 0.5], [0.0, 0.0]]), 2, True)",
    "m.multinomial(m.tensor([[0.5, 0.5], [0.0, 0.0]]), 1)",
    "m.multinomial(m.tensor([-1.0, 2.0]), 2, True)",
    "m.multinomial(m.tensor([1.0, float('inf')]), 2, True)",
    "m.multinomial(m.tensor([1.0, float('nan')]), 1)",
    "m.multinomial(m.tensor([1, 2]), 1)",
    "m.multinomial(m.tensor([1.0, 2.0]), 0)",
    "m.multinomial(m.ones(2, 2, 2), 1)",
    "m.normal(m.zeros(3), m.tensor([1.0, -1.0, 1.0]))",
    "m.empty(3, dtype=m.complex64).random_(0, 5)",
    "m.empty(3, dtype=m.complex64).random_(-5, None)",
    "m.empty(3, dtype=m.complex64).random_(-2**63, None)",
    "m.empty(3, dtype=m.complex64).bernoulli_(0.5)",
    "m.empty(3, dtype=m.complex64).bernoulli_(m.rand(3))",
    "m.empty(3, dtype=m.complex64).geometric_(0.5)",
    "m.empty(3, dtype=m.int32).random_(-2**63, None)",
    "m.empty(3, dtype=m.bool).random_(-2**63, None)",
    "m.empty(3, dtype=m.float16).random_(2**12, None)",
    "m.empty(1, 3).expand(4, 3).uniform_()",
    "m.empty(1, 3).expand(4, 3).bernoulli_(0.5)",
    "m.randint(0, 5, (3,), dtype=m.complex64)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_and_what_they_drew_match_torch(torch, expr):
    """The same error (or warning and result), and the same draws made before it."""
    outcomes = []
    for lib in (hookgrad, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = eval(expr, {"m": lib}).tolist()
            except Exception as error:  # noqa: BLE001 (the error is the outcome)
                result = f"{type(error).__name__}: {error}"
        # torch's C++ warnings end with where they were raised
        messages = [str(w.message).split(" (Triggered internally")[0] for w in caught]
        outcomes.append((result, messages, lib.rand(2).tolist()))
    assert outcomes[0] == outcomes[1]


GRAPHS = [
    "y.uniform_()",
    "y.normal_()",
    "y.random_()",
    "y.random_(5)",
    "y.random_(1, 5)",
    "y.random_(1, None)",
    "y.exponential_()",
    "y.bernoulli_(0.5)",
    "y.bernoulli_(p)",
    "y.cauchy_()",
    "y.log_normal_()",
    "y.geometric_(0.5)",
    "m.bernoulli(y.sigmoid())",
]


@pytest.mark.parametrize("expr", GRAPHS)
def test_random_fills_record_torch_nodes_with_zero_gradients(torch, expr):
    outcomes = []
    for lib in (hookgrad, torch):
        x = lib.ones(3, requires_grad=True)
        p = lib.full((3,), 0.5, requires_grad=True)
        out = eval(expr, {"m": lib, "y": x * 2, "p": p})
        out.sum().backward()
        grad_p = None if p.grad is None else p.grad.tolist()
        outcomes.append((out.grad_fn.name(), x.grad.tolist(), grad_p))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1] == [0.0, 0.0, 0.0]
