"""dtypes and torch's type promotion, for every pair of the eight dtypes."""

import itertools
import pickle

import numpy as np
import pytest

import hookgrad

NAMES = ["bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]
PAIRS = list(itertools.product(NAMES, NAMES))
# Operand dims: both dimensioned, 0-dim vs dimensioned and back, both 0-dim.
DIMS = [(1, 1), (0, 1), (1, 0), (0, 0)]
SCALARS = [True, 2, 2.5, 1j, np.float64(2.5), np.float32(2.5), np.int32(3)]


@pytest.fixture
def float64_default(torch):
    """Both libraries with float64 as the default dtype, restored afterwards."""
    previous = hookgrad.get_default_dtype()
    hookgrad.set_default_dtype(hookgrad.float64)
    torch.set_default_dtype(torch.float64)
    yield
    hookgrad.set_default_dtype(previous)
    torch.set_default_dtype(torch.float32)


def _expected_name(torch_dtype) -> str:
    """torch's dtype as a hookgrad name: complex32, which NumPy lacks, is complex64."""
    name = str(torch_dtype).removeprefix("torch.")
    return "complex64" if name == "complex32" else name


def _ones(lib, name, ndim):
    return lib.ones((2,) * ndim, dtype=getattr(lib, name))


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes_match_torch(torch, name):
    ours, theirs = getattr(hookgrad, name), getattr(torch, name)
    assert repr(ours) == repr(theirs) == f"torch.{name}"
    assert str(ours) == str(theirs)
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.is_complex == theirs.is_complex
    assert ours.is_signed == theirs.is_signed
    assert ours.itemsize == theirs.itemsize
    assert pickle.loads(pickle.dumps(ours)) is ours


def test_dtype_aliases(torch):
    for alias in ["half", "float", "double", "long", "int", "cfloat", "cdouble"]:
        assert repr(getattr(hookgrad, alias)) == repr(getattr(torch, alias))


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_to_real_and_to_complex(torch, name):
    ours, theirs = getattr(hookgrad, name), getattr(torch, name)
    assert repr(ours.to_real()) == repr(theirs.to_real())
    assert repr(ours.to_complex()) == _expected_name(theirs.to_complex()).join(["torch.", ""])


def test_to_complex_of_an_integer_raises_like_torch(torch):
    with pytest.raises(RuntimeError) as expected:
        torch.int32.to_complex()
    with pytest.raises(RuntimeError) as actual:
        hookgrad.int32.to_complex()
    assert str(actual.value) == str(expected.value)


@pytest.mark.parametrize("a, b", PAIRS)
def test_promote_types_matches_torch(torch, a, b):
    expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert hookgrad.promote_types(getattr(hookgrad, a), getattr(hookgrad, b)).name == (
        _expected_name(expected)
    )


def test_promote_types_rejects_non_dtypes(torch):
    with pytest.raises(TypeError) as expected:
        torch.promote_types(torch.float32, 1)
    with pytest.raises(TypeError) as actual:
        hookgrad.promote_types(hookgrad.float32, 1)
    assert str(actual.value) == str(expected.value)


@pytest.mark.parametrize("dims", DIMS, ids=lambda d: f"{d[0]}d-{d[1]}d")
@pytest.mark.parametrize("a, b", PAIRS)
def test_result_type_and_add_match_torch(torch, a, b, dims):
    expected = torch.result_type(_ones(torch, a, dims[0]), _ones(torch, b, dims[1]))
    x, y = _ones(hookgrad, a, dims[0]), _ones(hookgrad, b, dims[1])
    assert hookgrad.result_type(x, y).name == _expected_name(expected)
    assert (x + y).dtype.name == _expected_name(expected)


@pytest.mark.parametrize("ndim", [0, 1])
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("name", NAMES)
def test_python_scalars_do_not_upcast(torch, name, scalar, ndim):
    """A Python (or NumPy) scalar only raises the category, as in torch."""
    expected = torch.result_type(_ones(torch, name, ndim), scalar)
    x = _ones(hookgrad, name, ndim)
    assert hookgrad.result_type(x, scalar).name == _expected_name(expected)
    for result in (x * scalar, scalar * x, x + scalar, scalar + x):
        assert result.dtype.name == _expected_name(expected)


@pytest.mark.parametrize("a, b", itertools.product([True, 2, 2.5, 1j], repeat=2), ids=repr)
def test_result_type_of_scalars(torch, a, b):
    assert hookgrad.result_type(a, b).name == _expected_name(torch.result_type(a, b))
    expected = torch.result_type(torch.tensor(a), b)
    assert hookgrad.result_type(hookgrad.tensor(a), b).name == _expected_name(expected)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", NAMES)
def test_true_division_dtype(torch, name, other):
    expected = (_ones(torch, name, 1) / _ones(torch, other, 1)).dtype
    assert (_ones(hookgrad, name, 1) / _ones(hookgrad, other, 1)).dtype.name == (
        _expected_name(expected)
    )


def test_int_divided_by_int_is_float():
    result = hookgrad.tensor([1, 2]) / hookgrad.tensor([2, 4])
    assert result.dtype is hookgrad.float32
    assert result.tolist() == [0.5, 0.5]
    assert (hookgrad.tensor([3]) / 2).dtype is hookgrad.float32


@pytest.mark.usefixtures("float64_default")
def test_float64_default_changes_inferred_and_promoted_dtypes(torch):
    assert hookgrad.get_default_dtype() is hookgrad.float64
    cases = [
        "m.tensor(1.5)",
        "m.tensor(1j)",
        "m.zeros(2)",
        "m.arange(3.)",
        "m.rand(2)",
        "m.tensor([1, 2]) / 2",
        "m.tensor([1, 2]) * 2.5",
        "m.ones(2, dtype=m.float32) * 2.5",
        "m.ones(2, dtype=m.float16) * 2.5",
        "m.ones(2, dtype=m.int32) + 1j",
    ]
    for expr in cases:
        expected = eval(expr, {"m": torch}).dtype
        assert eval(expr, {"m": hookgrad}).dtype.name == _expected_name(expected), expr
    for a, b in itertools.product([True, 2, 2.5, 1j], repeat=2):
        assert hookgrad.result_type(a, b).name == _expected_name(torch.result_type(a, b))


def test_set_default_dtype_rejects_non_floating(torch):
    for bad in ("int32", "complex64"):
        with pytest.raises(TypeError) as expected:
            torch.set_default_dtype(getattr(torch, bad))
        with pytest.raises(TypeError) as actual:
            hookgrad.set_default_dtype(getattr(hookgrad, bad))
        assert str(actual.value) == str(expected.value)
    assert hookgrad.get_default_dtype() is hookgrad.float32


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo_matches_torch(torch, name):
    ours, theirs = hookgrad.finfo(getattr(hookgrad, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["int32", "int64"])
def test_iinfo_matches_torch(torch, name):
    ours, theirs = hookgrad.iinfo(getattr(hookgrad, name)), torch.iinfo(getattr(torch, name))
    for field in ("bits", "max", "min", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("call", ["finfo(m.int32)", "iinfo(m.float32)", "iinfo(m.bool)"], ids=str)
def test_info_errors_match_torch(torch, call):
    with pytest.raises(TypeError) as expected:
        eval(f"m.{call}", {"m": torch})
    with pytest.raises(TypeError) as actual:
        eval(f"m.{call}", {"m": hookgrad})
    assert str(actual.value) == str(expected.value)


def test_finfo_default_is_the_default_dtype(torch):
    assert hookgrad.finfo().eps == torch.finfo().eps
