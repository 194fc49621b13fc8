"""``repr``/``str`` of tensors against torch's, character for character."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hookgrad

DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.fixture(autouse=True)
def _restore_print_options(torch):
    yield
    hookgrad.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


def _values(kind: str, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` float64 values of one flavour (what makes torch pick a print style)."""
    if kind == "normal":
        return rng.standard_normal(count)
    if kind == "integers":
        return rng.integers(-1000, 1000, count).astype(float)
    if kind == "magnitudes":  # mixed magnitudes: scientific notation
        return rng.standard_normal(count) * 10.0 ** rng.integers(-12, 12, count)
    if kind == "scaled":  # one magnitude, large or tiny
        return rng.standard_normal(count) * 10.0 ** rng.integers(-6, 10)
    if kind == "special":
        specials = [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 0.5, 1e-3, 123.0]
        return rng.choice(specials, count)
    return rng.integers(-3, 3, count) * 10.0 ** rng.integers(-3, 12)  # big integer floats


@np.errstate(invalid="ignore", over="ignore")
def _array(dtype: str, shape: tuple, kind: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    count = math.prod(shape)
    values = _values(kind, count, rng)
    if dtype.startswith("complex"):
        values = values + 1j * _values(kind, count, rng)  # inf * 1j gives nan + infj
    values = values.reshape(shape)
    if dtype == "bool":
        return values.real > 0
    if dtype.startswith("int"):
        return np.nan_to_num(values.real, posinf=7, neginf=-7).clip(-1e9, 1e9).astype(dtype)
    return values.astype(dtype)


def _assert_same_repr(torch, array: np.ndarray, requires_grad: bool = False) -> None:
    expected = torch.tensor(array, requires_grad=requires_grad)
    actual = hookgrad.tensor(array, requires_grad=requires_grad)
    assert repr(actual) == repr(expected)
    assert str(actual) == str(expected)


shapes = st.one_of(
    st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple),
    st.integers(10, 45).map(lambda n: (n,)),  # long rows that wrap
    st.sampled_from([(1001,), (40, 30), (3, 2, 200), (2000,), (7, 1, 150)]),  # summarised
)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    dtype=st.sampled_from(DTYPES),
    shape=shapes,
    kind=st.sampled_from(["normal", "integers", "magnitudes", "scaled", "special", "bigint"]),
    seed=st.integers(0, 2**32 - 1),
    requires_grad=st.booleans(),
)
def test_repr_matches_torch_for_random_tensors(torch, dtype, shape, kind, seed, requires_grad):
    requires_grad = requires_grad and dtype.startswith(("float", "complex"))
    _assert_same_repr(torch, _array(dtype, shape, kind, seed), requires_grad)


CASES = [
    # 0-dim, every dtype and style
    "m.tensor(4.)",
    "m.tensor(4)",
    "m.tensor(True)",
    "m.tensor(-3.5)",
    "m.tensor(1e-5)",
    "m.tensor(1e10)",
    "m.tensor(float('nan'))",
    "m.tensor(float('-inf'))",
    "m.tensor(-0.0)",
    "m.tensor(2.5, dtype=m.float64)",
    "m.tensor(2.5, dtype=m.float16)",
    "m.tensor(7, dtype=m.int32)",
    "m.tensor(1 + 1j)",
    "m.tensor(1e-5 + 1e5j, dtype=m.complex128)",
    "m.tensor(float('nan') + 1j)",
    # 1-D / 2-D / 3-D
    "m.tensor([1., 2., 3.])",
    "m.tensor([1.5, -2.25, 3.])",
    "m.tensor([1, 2, -3])",
    "m.tensor([True, False])",
    "m.tensor([[1., 2.], [3., 4.]])",
    "m.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])",
    "m.tensor([[1.5e-5, 1.], [2., 3.]], dtype=m.complex64)",
    "m.tensor([1 + 2j, 3 - 4j])",
    "m.tensor([-1j, 1j])",
    "m.tensor([0j, 0j])",
    # styles: mixed magnitudes, integer floats, nan/inf, thresholds
    "m.tensor([1e-5, 1., 1000.])",
    "m.tensor([1e-5, 1e5])",
    "m.tensor([1., 1e9])",
    "m.tensor([0.5, 1000.])",
    "m.tensor([0.5, 500.])",
    "m.tensor([1., 1000.])",
    "m.tensor([1., 1001.])",
    "m.tensor([1.0e8])",
    "m.tensor([1.0e8 + 1])",
    "m.tensor([1e-4, 1.])",
    "m.tensor([123456.789])",
    "m.tensor([1e20, 1e-20])",
    "m.tensor([0., 0.])",
    "m.tensor([-0.0, 0.0, 1.5])",
    "m.tensor([float('nan'), 1., float('-inf')])",
    "m.tensor([float('nan'), float('inf')])",
    "m.tensor([float('nan'), 1e10])",
    "m.tensor([float('inf'), 1e-10, 1.5])",
    "m.tensor([float('nan') + 1j, float('inf') * 1j], dtype=m.complex64)",
    "m.tensor([65504., 1e-3], dtype=m.float16)",
    "m.tensor([1e-7, 1.], dtype=m.float16)",
    "m.tensor([[1, 2**40]])",
    # long rows, summarised
    "m.arange(100)",
    "m.arange(40.) / 7",
    "m.arange(2000.)",
    "m.arange(1100.).reshape(2, 550)",
    "m.arange(1100.).reshape(550, 2)",
    "m.arange(3000).reshape(10, 3, 100)",
    "m.arange(4000).reshape(2, 2, 1000) > 5",
    "m.arange(4000.).reshape(2, 2, 1000).to(m.complex64)",
    # empty tensors
    "m.tensor([])",
    "m.tensor([[]])",
    "m.tensor([], dtype=m.int64)",
    "m.zeros(2, 0, 3)",
    "m.zeros(0, dtype=m.bool)",
    "m.zeros(0, 2, dtype=m.float64)",
    "m.zeros(0, dtype=m.complex64)",
    "m.zeros(2, 0, requires_grad=True)",
    # autograd suffixes, also wrapped onto a new line
    "m.tensor([1., 2.], requires_grad=True)",
    "m.tensor(3., requires_grad=True)",
    "m.tensor([2., 3.], dtype=m.float64, requires_grad=True)",
    "m.ones(3, 3, requires_grad=True) * 2",
    "m.tensor(2.5, dtype=m.float64, requires_grad=True) * 2",
    "m.arange(12.).reshape(3, 4).requires_grad_() * 1.5",
    "m.arange(19.).requires_grad_() * 1.123",
    "(m.arange(20.).requires_grad_() * 1.123).double()",
    "m.ones(2, requires_grad=True) + m.ones(2)",
    "m.ones(2, requires_grad=True).clone()",
]


@pytest.mark.parametrize("expr", CASES)
def test_repr_matches_torch(torch, expr):
    expected = eval(expr, {"m": torch})
    actual = eval(expr, {"m": hookgrad})
    assert repr(actual) == repr(expected)
    assert str(actual) == repr(actual)


@pytest.mark.parametrize(
    "expr",
    [
        "m.tensor([1., 2.])",
        "m.tensor([1., 2.], dtype=m.float32)",
        "m.tensor([1j])",
        "m.tensor([1j], dtype=m.complex64)",
        "m.zeros(0, dtype=m.float32)",
        "m.zeros(0)",
        "m.tensor(1.5, requires_grad=True) * 2",
    ],
)
def test_repr_with_float64_default(torch, expr):
    previous = hookgrad.get_default_dtype()
    hookgrad.set_default_dtype(hookgrad.float64)
    torch.set_default_dtype(torch.float64)
    try:
        expected = repr(eval(expr, {"m": torch}))
        actual = repr(eval(expr, {"m": hookgrad}))
    finally:
        hookgrad.set_default_dtype(previous)
        torch.set_default_dtype(torch.float32)
    assert actual == expected


@pytest.mark.parametrize(
    "options",
    [
        {"precision": 2},
        {"precision": 6},
        {"sci_mode": True},
        {"sci_mode": False},
        {"profile": "short"},
        {"profile": "full"},
        {"linewidth": 20},
        {"threshold": 5},
        {"threshold": 3, "edgeitems": 1},
        {"edgeitems": 0},
    ],
)
@pytest.mark.parametrize(
    "expr",
    [
        "m.tensor([1.23456, 2.])",
        "m.tensor([1e-5, 1.])",
        "m.tensor([1e10, 1.])",
        "m.tensor(3.5)",
        "m.arange(10.) / 3",
        "m.arange(1200).reshape(30, 40)",
        "m.arange(10.).reshape(5, 2)",
        "m.tensor([1.5 + 2j, 1e-5j])",
    ],
)
def test_print_options_match_torch(torch, options, expr):
    hookgrad.set_printoptions(**options)
    torch.set_printoptions(**options)
    assert repr(eval(expr, {"m": hookgrad})) == repr(eval(expr, {"m": torch}))


def test_print_options_roundtrip():
    hookgrad.set_printoptions(precision=2, sci_mode=True)
    assert hookgrad.get_printoptions()["precision"] == 2
    assert hookgrad.get_printoptions()["sci_mode"] is True
    hookgrad.set_printoptions(profile="default")
    assert hookgrad.get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }


def test_bad_profile_raises():
    # torch ignores an unknown profile silently; hookgrad names the valid ones.
    with pytest.raises(ValueError, match="'default', 'short', 'full'"):
        hookgrad.set_printoptions(profile="tiny")
